//! Built-in bots. A bot is a client like any other: it attaches to its seat through
//! the room handle with its seat token, sees only its own redacted messages, and
//! sends actions that the room validates through the engine.
//!
//! [`Driver`] holds the client-side discipline every client should follow: act only
//! on the freshest `legal` list, and after sending an action wait for its
//! acknowledgement (the `events` message carrying the request id) or its rejection
//! before acting again, since messages already in flight carry stale lists.
//!
//! The heuristic bot ([`catan_bots::HeuristicBot`]) decides from its whole view,
//! which only a `snapshot` carries: whenever it may act it sends `sync`, and chooses
//! from the answering snapshot's view and legal list.

use std::time::Duration;

use catan_bots::{HeuristicBot, Strategy};
use catan_engine::{Action, ActionKind, GameView};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use tokio::sync::mpsc;
use tracing::debug;

use crate::protocol::{BotKind, ClientMessage};
use crate::room::{Outbound, RoomHandle};

/// Rejections in a row after which the heuristic bot takes the first listed action
/// as it is, so that a choice the room keeps refusing cannot loop forever.
const MAX_REJECTIONS: u32 = 2;

/// The parts of a server message a driver reads.
#[derive(Debug, Deserialize)]
pub struct Envelope {
    /// The message type (`events`, `snapshot`, `rejected`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// The seat's legal actions, in `snapshot`, `events` and `resumed`.
    #[serde(default)]
    pub legal: Vec<Action>,
    /// The request id, in acknowledgements and rejections.
    #[serde(default)]
    pub request_id: Option<String>,
}

/// The view a `snapshot` carries (none before the game starts).
#[derive(Debug, Deserialize)]
struct SnapshotView {
    /// The seat's view.
    #[serde(default)]
    view: Option<Box<GameView>>,
}

/// Decides when a client may act and keeps its legal list current.
#[derive(Debug, Default)]
pub struct Driver {
    /// The freshest legal actions known (player trades filtered out).
    legal: Vec<Action>,
    /// The action sent and not yet acknowledged or rejected.
    pending: Option<(String, Action)>,
    /// Whether `legal` is current as of the last acknowledgement.
    fresh: bool,
    /// Counter for request ids.
    next_request: u64,
    /// The game is over.
    pub over: bool,
}

impl Driver {
    /// Takes in one server message.
    pub fn observe(&mut self, msg: Envelope) {
        let acked = self
            .pending
            .as_ref()
            .is_some_and(|(id, _)| msg.request_id.as_deref() == Some(id));
        match msg.kind.as_str() {
            "game_over" => self.over = true,
            "snapshot" | "events" | "resumed" => {
                self.legal = msg.legal;
                self.legal.retain(|a| {
                    !matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer)
                });
                if acked {
                    self.pending = None;
                }
                self.fresh = true;
            }
            "rejected" if acked => {
                if let Some((_, action)) = self.pending.take() {
                    self.legal.retain(|a| *a != action);
                }
                self.fresh = true;
            }
            _ => {}
        }
    }

    /// Whether the client should act now.
    #[must_use]
    pub fn ready(&self) -> bool {
        !self.over && self.pending.is_none() && self.fresh && !self.legal.is_empty()
    }

    /// The freshest legal actions known (player-trade proposals filtered out).
    #[must_use]
    pub fn legal(&self) -> &[Action] {
        &self.legal
    }

    /// Picks a legal action uniformly and marks it pending.
    pub fn choose_random(&mut self, rng: &mut impl Rng) -> ClientMessage {
        let action = self.legal[rng.random_range(0..self.legal.len())];
        self.send(action)
    }

    /// Marks `action` as sent and wraps it in a client message.
    pub fn send(&mut self, action: Action) -> ClientMessage {
        self.next_request += 1;
        let request_id = format!("r{}", self.next_request);
        self.pending = Some((request_id.clone(), action));
        self.fresh = false;
        ClientMessage::Action { request_id, action }
    }
}

/// Starts a bot task for the seat whose token is `token`.
pub fn spawn(room: RoomHandle, token: String, think: Duration, kind: BotKind, seed: u64) {
    tokio::spawn(async move {
        match kind {
            BotKind::Random => random_bot(room, token, think, seed).await,
            BotKind::Heuristic => heuristic_bot(room, token, think, seed).await,
        }
    });
}

/// Picks uniformly among its legal actions, never offering player trades.
async fn random_bot(room: RoomHandle, token: String, think: Duration, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let Ok(mut conn) = room.connect(Some(token), None).await else {
        return;
    };
    let mut driver = Driver::default();
    'outer: while let Some(Outbound::Text(text)) = conn.rx.recv().await {
        let mut next = Some(text);
        while let Some(text) = next.take() {
            if let Ok(env) = serde_json::from_str::<Envelope>(&text) {
                driver.observe(env);
            }
            if let Ok(Outbound::Text(t)) = conn.rx.try_recv() {
                next = Some(t);
            }
        }
        if driver.over {
            break;
        }
        if !driver.ready() {
            continue;
        }
        if !think.is_zero() {
            tokio::time::sleep(think).await;
            while let Ok(Outbound::Text(t)) = conn.rx.try_recv() {
                if let Ok(env) = serde_json::from_str::<Envelope>(&t) {
                    driver.observe(env);
                }
            }
            if !driver.ready() {
                continue 'outer;
            }
        }
        let msg = driver.choose_random(&mut rng);
        debug!(seat = conn.seat.map(|s| s.0), ?msg, "bot acts");
        if !room.client_message(conn.conn, msg).await {
            break;
        }
    }
    room.disconnect(conn.conn).await;
}

/// What the heuristic bot knows beyond the driver: the view of the last snapshot.
#[derive(Debug, Default)]
struct Synced {
    /// The view of the last `snapshot`.
    view: Option<Box<GameView>>,
    /// No `events` arrived since that snapshot, so its view is current.
    fresh: bool,
    /// A `sync` was sent and its snapshot has not arrived yet.
    awaiting: bool,
    /// Rejections since the last accepted action.
    rejections: u32,
}

impl Synced {
    /// Takes in one server message (`text`, already read as `env`), then hands it
    /// to the driver.
    fn observe(&mut self, driver: &mut Driver, text: &str, env: Envelope) {
        match env.kind.as_str() {
            "snapshot" => {
                self.view = serde_json::from_str::<SnapshotView>(text)
                    .ok()
                    .and_then(|s| s.view);
                self.fresh = true;
                self.awaiting = false;
            }
            "events" => {
                self.fresh = false;
                if env.request_id.is_some() {
                    self.rejections = 0;
                }
            }
            "rejected" => {
                // Decide again from a new snapshot: the refusal may mean the view aged.
                self.rejections += 1;
                self.fresh = false;
            }
            _ => {}
        }
        driver.observe(env);
    }
}

/// Hands `text` and every message already queued behind it to `synced`.
fn drain(text: &str, rx: &mut mpsc::Receiver<Outbound>, synced: &mut Synced, driver: &mut Driver) {
    if let Ok(env) = serde_json::from_str::<Envelope>(text) {
        synced.observe(driver, text, env);
    }
    while let Ok(Outbound::Text(t)) = rx.try_recv() {
        if let Ok(env) = serde_json::from_str::<Envelope>(&t) {
            synced.observe(driver, &t, env);
        }
    }
}

/// Plays to win: asks for a snapshot whenever it may act, then lets
/// [`HeuristicBot`] choose from that view and legal list.
async fn heuristic_bot(room: RoomHandle, token: String, think: Duration, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut strategy = HeuristicBot::new();
    let Ok(mut conn) = room.connect(Some(token), None).await else {
        return;
    };
    let mut driver = Driver::default();
    let mut synced = Synced::default();
    while let Some(Outbound::Text(text)) = conn.rx.recv().await {
        drain(&text, &mut conn.rx, &mut synced, &mut driver);
        if driver.over {
            break;
        }
        if !driver.ready() || synced.awaiting {
            continue;
        }
        if !synced.fresh {
            if !think.is_zero() {
                tokio::time::sleep(think).await;
            }
            synced.awaiting = true;
            if !room.client_message(conn.conn, ClientMessage::Sync).await {
                break;
            }
            continue;
        }
        let Some(view) = synced.view.as_deref() else {
            continue;
        };
        let actions = catan_bots::actionable(view, driver.legal());
        if actions.is_empty() {
            // Offers already answered: wait for something to change.
            continue;
        }
        let action = if synced.rejections >= MAX_REJECTIONS {
            actions[0]
        } else {
            strategy.choose(view, &actions, &mut rng)
        };
        let msg = driver.send(action);
        debug!(seat = conn.seat.map(|s| s.0), ?msg, "heuristic bot acts");
        if !room.client_message(conn.conn, msg).await {
            break;
        }
    }
    room.disconnect(conn.conn).await;
}
