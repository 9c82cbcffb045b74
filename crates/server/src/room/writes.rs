//! The room task's writes to the store that take more than one call: an action's
//! append (retried within one bound), the game abandoned, a result retried in the
//! background until the database takes it, and the reservation of sequence
//! numbers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tracing::{debug, info, warn};
use uuid::Uuid;

use crate::store::{self, ActionRecord, Finish, Store};

/// Appends `record` to `game`'s log, retrying over a hiccup of the database (after
/// 20, 80 and 320 ms): four attempts at most, all within `limit`
/// (`--store-timeout-ms`), after which the action is refused.
pub(super) async fn append_with_retry(
    store: Arc<dyn Store>,
    game: Uuid,
    record: ActionRecord,
    limit: Duration,
) -> Result<(), store::StoreError> {
    let attempts = async {
        let mut delay = Duration::from_millis(20);
        let mut attempt = 0;
        loop {
            match store.append_action(game, &record).await {
                Ok(()) => return Ok(()),
                // Another instance owns the room now: no retry can be stored.
                Err(e @ store::StoreError::Fenced(_)) => return Err(e),
                Err(e) if attempt >= 3 => return Err(e),
                Err(e) => {
                    debug!(error = %e, attempt, "append failed; retrying");
                    tokio::time::sleep(delay).await;
                    delay *= 4;
                    attempt += 1;
                }
            }
        }
    };
    match tokio::time::timeout(limit, attempts).await {
        Ok(out) => out,
        Err(_) => Err(store::timed_out("append_action (with retries)", limit)),
    }
}

/// Marks the game abandoned, retrying briefly (after 20, 80 and 320 ms); false if
/// the store stays down (the game is then restored after a restart).
pub(super) async fn abandon_with_retry(store: Arc<dyn Store>, game: Uuid) -> bool {
    let mut delay = Duration::from_millis(20);
    for attempt in 0..4 {
        match store.abandon_game(game).await {
            Ok(()) => return true,
            Err(e) => {
                warn!(error = %e, attempt, "could not mark the game abandoned");
                tokio::time::sleep(delay).await;
                delay *= 4;
            }
        }
    }
    false
}

/// The longest pause between retries of a result write while shutting down.
const SHUTDOWN_RETRY: Duration = Duration::from_millis(500);

/// Writes a finished game's result, retrying with exponential backoff (capped at
/// 30 s, or 500 ms once the server is shutting down and waiting for this write)
/// until the database accepts it.
pub(crate) async fn store_finish(
    store: Arc<dyn Store>,
    id: Uuid,
    finish: Finish,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let mut delay = Duration::from_millis(100);
    loop {
        match store.finish_game(id, &finish).await {
            Ok(()) => {
                info!(room = %id, "result stored");
                return;
            }
            Err(e @ store::StoreError::Fenced(_)) => {
                // The instance that owns the room now stores it from the log.
                warn!(room = %id, error = %e, "the result is another instance's to store");
                return;
            }
            Err(e) => {
                let retry_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                warn!(room = %id, error = %e, retry_ms, "could not store the result; retrying");
                if shutdown.is_cancelled() {
                    tokio::time::sleep(delay.min(SHUTDOWN_RETRY)).await;
                } else {
                    // A shutdown cuts a long backoff short: it is waiting for this write.
                    tokio::select! {
                        () = tokio::time::sleep(delay) => {}
                        () = shutdown.cancelled() => {}
                    }
                }
                delay = (delay * 2).min(if shutdown.is_cancelled() {
                    SHUTDOWN_RETRY
                } else {
                    Duration::from_secs(30)
                });
            }
        }
    }
}

/// The sequence numbers the store holds as reserved for a room's broadcasts
/// (`games.seq_reserved`), kept ahead of the room's counter in blocks of
/// [`SEQ_BLOCK`](super::state::SEQ_BLOCK): a room restored after a restart numbers
/// its broadcasts after every number reserved, so no number is used twice, even
/// for the chat and presence messages that the action log does not record.
#[derive(Debug, Default)]
pub(super) struct SeqReservation {
    /// The highest number the store has reserved (0: none yet).
    reserved: AtomicU64,
    /// Whether a reservation is being written.
    writing: AtomicBool,
}

impl SeqReservation {
    /// With fewer than half a block of reserved numbers left above `seq`, starts
    /// writing a reservation up to `seq` plus a block, in the background (the room
    /// does not wait for it), unless one is being written. One the store refuses
    /// is tried again after the room's next command.
    pub(super) fn keep_ahead(
        self: &Arc<Self>,
        seq: u64,
        store: Arc<dyn Store>,
        game: Uuid,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        let block = super::state::SEQ_BLOCK;
        if seq + block / 2 <= self.reserved.load(Ordering::SeqCst)
            || self.writing.swap(true, Ordering::SeqCst)
        {
            return;
        }
        let up_to = seq + block;
        let this = self.clone();
        tasks.spawn(async move {
            match store.reserve_seq(game, up_to).await {
                Ok(()) => {
                    this.reserved.fetch_max(up_to, Ordering::SeqCst);
                    debug!(room = %game, up_to, "sequence numbers reserved");
                }
                Err(e) => warn!(room = %game, error = %e, "could not reserve sequence numbers"),
            }
            this.writing.store(false, Ordering::SeqCst);
        });
    }
}
