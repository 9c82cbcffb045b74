//! Built-in bots. A bot is a client like any other: it attaches to its seat through
//! the room handle with its seat token, sees only its own redacted messages, and
//! sends actions that the room validates through the engine.
//!
//! [`Driver`] holds the client-side discipline every client should follow: act only
//! on the freshest `legal` list, and after sending an action wait for its
//! acknowledgement (the `events` message carrying the request id) or its rejection
//! before acting again, since messages already in flight carry stale lists.

use std::time::Duration;

use catan_engine::{Action, ActionKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use tracing::debug;

use crate::protocol::{BotKind, ClientMessage};
use crate::room::{Outbound, RoomHandle};

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
