//! Built-in bots. A bot is a client like any other: it attaches to its seat through
//! the room handle with its seat token, sees only its own redacted messages, and
//! sends actions that the room validates through the engine. It runs the one bot
//! driver ([`catan_bots::SeatDriver`]) over an in-process channel: the room hands it
//! typed messages ([`Outbound::Message`]), nothing is serialized on the way.

use std::time::Duration;

use catan_protocol::BotKind;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tracing::debug;

use crate::room::{Connected, Outbound, RoomHandle};
use catan_bots::SeatDriver;

/// The shortest wait after a refusal before the bot asks for a fresh snapshot, times
/// the refusals in a row (a refused store write means the database is struggling).
const REFUSAL_BACKOFF: Duration = Duration::from_millis(100);
/// The longest such wait.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Starts a bot task for the seat whose token is `token`.
pub fn spawn(room: RoomHandle, token: String, think: Duration, kind: BotKind, seed: u64) {
    tokio::spawn(async move {
        let Ok(conn) = room.connect_in_process(token).await else {
            return;
        };
        let conn_id = conn.conn;
        play(&room, conn, think, kind, seed).await;
        room.disconnect(conn_id).await;
    });
}

/// Hands `first` and every message queued behind it to the driver; false once the
/// room is gone.
fn drain(driver: &mut SeatDriver, conn: &mut Connected, first: Option<Outbound>) -> bool {
    let mut next = first;
    loop {
        match next.take() {
            Some(Outbound::Message(msg)) => driver.observe(&msg),
            // Never sent to an in-process connection; read it all the same.
            Some(Outbound::Text(text)) => {
                if let Ok(msg) = serde_json::from_str(&text) {
                    driver.observe(&msg);
                }
            }
            None => {}
        }
        match conn.rx.try_recv() {
            Ok(out) => next = Some(out),
            Err(tokio::sync::mpsc::error::TryRecvError::Empty) => return true,
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => return false,
        }
    }
}

/// Plays the seat of `conn` with the strategy of `kind` until the game ends or the
/// room goes away.
async fn play(room: &RoomHandle, mut conn: Connected, think: Duration, kind: BotKind, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut strategy = catan_bots::strategy(kind);
    let mut driver = SeatDriver::new();
    while let Some(out) = conn.rx.recv().await {
        if !drain(&mut driver, &mut conn, Some(out)) || driver.over() {
            return;
        }
        if !driver.ready() {
            continue;
        }
        let refusals = driver.backoff();
        let wait = if refusals > 0 {
            (REFUSAL_BACKOFF * refusals).min(MAX_BACKOFF).max(think)
        } else {
            think
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
            // What arrived meanwhile may change the decision (or end the game).
            if !drain(&mut driver, &mut conn, None) || driver.over() {
                return;
            }
        }
        let Some(msg) = driver.decide(strategy.as_mut(), &mut rng) else {
            continue;
        };
        debug!(seat = conn.seat.map(|s| s.0), ?msg, "bot acts");
        if !room.client_message(conn.conn, msg).await {
            return;
        }
    }
}
