//! Sleeping rooms whose deadline comes are woken (protocol 27.5): every second, the
//! store's sleeping games with a move due within the next two seconds are brought
//! back; the room's own timer then fires the deadline on time. A deadline that
//! passed while the server was down is due at once after a restart, so it fires
//! within a second of the start.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::warn;

use crate::restore::Restorer;

/// How often the store is asked.
const EVERY: Duration = Duration::from_secs(1);
/// How far ahead a deadline wakes its room.
const AHEAD_MS: u64 = 2_000;

/// Runs until `shutdown`.
pub async fn run(restorer: Restorer, shutdown: CancellationToken) {
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        if let Err(e) = restorer.wake_due(AHEAD_MS).await {
            warn!(error = %e, "could not look for sleeping rooms to wake");
        }
    }
}
