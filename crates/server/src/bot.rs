//! Built-in bots. A bot is a client like any other: it attaches to its seat through
//! the room handle with its seat token, sees only its own redacted messages, and
//! sends actions that the room validates through the engine.

use std::time::Duration;

use catan_engine::{Action, ActionKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use tracing::debug;

use crate::protocol::{BotKind, ClientMessage};
use crate::room::{Outbound, RoomHandle};

/// The only part of a server message a random bot reads.
#[derive(Deserialize)]
struct LegalOnly {
    #[serde(default)]
    legal: Vec<Action>,
    #[serde(rename = "type")]
    kind: String,
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
    let mut legal: Vec<Action> = Vec::new();
    let mut next_request = 0u64;
    loop {
        // Wait for news, then keep only the freshest legal list.
        let Some(Outbound::Text(text)) = conn.rx.recv().await else {
            break;
        };
        let mut latest = Some(text);
        while let Some(text) = latest.take() {
            if let Ok(msg) = serde_json::from_str::<LegalOnly>(&text) {
                if msg.kind == "game_over" {
                    return;
                }
                if matches!(msg.kind.as_str(), "snapshot" | "events" | "resumed") {
                    legal = msg.legal;
                }
            }
            if let Ok(Outbound::Text(t)) = conn.rx.try_recv() {
                latest = Some(t);
            }
        }
        legal.retain(|a| !matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer));
        if legal.is_empty() {
            continue;
        }
        if !think.is_zero() {
            tokio::time::sleep(think).await;
            // Anything that arrived meanwhile supersedes what we planned.
            let mut newer = false;
            while let Ok(Outbound::Text(t)) = conn.rx.try_recv() {
                if let Ok(msg) = serde_json::from_str::<LegalOnly>(&t) {
                    if msg.kind == "game_over" {
                        return;
                    }
                    if matches!(msg.kind.as_str(), "events" | "snapshot" | "resumed") {
                        legal = msg.legal;
                        newer = true;
                    }
                }
            }
            if newer {
                legal.retain(|a| {
                    !matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer)
                });
                if legal.is_empty() {
                    continue;
                }
            }
        }
        let action = legal[rng.random_range(0..legal.len())];
        next_request += 1;
        let msg = ClientMessage::Action {
            request_id: format!("bot-{next_request}"),
            action,
        };
        debug!(seat = conn.seat.map(|s| s.0), ?action, "bot acts");
        legal.clear();
        if !room.client_message(conn.conn, msg).await {
            break;
        }
    }
    room.disconnect(conn.conn).await;
}
