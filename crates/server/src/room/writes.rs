//! The room task's writes to the store that outlive a command: a result retried in
//! the background until the database takes it, and the reservation of sequence
//! numbers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use backon::Retryable;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};
use uuid::Uuid;

use crate::store::{Finish, Store, StoreError, retry};

/// The longest pause between retries of a result write while shutting down.
const SHUTDOWN_RETRY: Duration = Duration::from_millis(500);

/// Writes a finished game's result, retrying by [`retry::until_stored`] until the
/// database accepts it; once the server is shutting down (and waiting for this
/// write) a long wait is cut short and the next ones last at most 500 ms.
pub(crate) async fn store_finish(
    store: Arc<dyn Store>,
    id: Uuid,
    finish: Finish,
    shutdown: CancellationToken,
) {
    let sleep = move |wait: Duration| {
        let shutdown = shutdown.clone();
        async move {
            if shutdown.is_cancelled() {
                tokio::time::sleep(wait.min(SHUTDOWN_RETRY)).await;
            } else {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = shutdown.cancelled() => {}
                }
            }
        }
    };
    let stored = (|| store.finish_game(id, &finish))
        .retry(retry::until_stored())
        .sleep(sleep)
        // The instance that owns the room now stores it from the log.
        .when(|e| !matches!(e, StoreError::Fenced(_)))
        .notify(|e, wait| {
            let retry_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
            warn!(room = %id, error = %e, retry_ms, "could not store the result; retrying");
        })
        .await;
    match stored {
        Ok(()) => info!(room = %id, "result stored"),
        Err(e) => warn!(room = %id, error = %e, "the result is another instance's to store"),
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

/// The seats' clocks of a game over days as the store keeps them (`games.clocks`
/// and `games.next_deadline`, an index of what the log says): written in the
/// background whenever they change, the latest value last (a write under way is
/// followed by one of the newest value, never overtaken by an older one).
#[derive(Debug, Default)]
pub(super) struct ClocksKept {
    /// The value last handed over, and the one waiting to be written.
    state: std::sync::Mutex<ClocksState>,
}

/// See [`ClocksKept`].
#[derive(Debug, Default)]
struct ClocksState {
    /// The last value handed over (written or to be).
    last: Option<String>,
    /// The value to write next, if any.
    pending: Option<(String, Option<u64>)>,
    /// Whether a writer task is running.
    writing: bool,
}

impl ClocksKept {
    /// Hands over the clocks `json` with the earliest deadline `next`; writes them
    /// in the background if they differ from the last.
    pub(super) fn keep(
        self: &Arc<Self>,
        json: String,
        next: Option<u64>,
        store: &Arc<dyn Store>,
        game: Uuid,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        let mut state = self.state.lock().expect("clocks lock");
        if state.last.as_deref() == Some(json.as_str()) {
            return;
        }
        state.last = Some(json.clone());
        state.pending = Some((json, next));
        if state.writing {
            return;
        }
        state.writing = true;
        drop(state);
        let (this, store) = (self.clone(), store.clone());
        tasks.spawn(async move {
            loop {
                let next = {
                    let mut state = this.state.lock().expect("clocks lock");
                    match state.pending.take() {
                        Some(p) => p,
                        None => {
                            state.writing = false;
                            return;
                        }
                    }
                };
                if let Err(e) = store.save_clocks(game, &next.0, next.1).await {
                    warn!(room = %game, error = %e, "could not keep the clocks");
                    // Written again with the next change (or on the next restore).
                    this.state.lock().expect("clocks lock").last = None;
                }
            }
        });
    }

    /// Waits until every clock handed over is written (a room going to sleep).
    pub(super) async fn written(&self) {
        while self.state.lock().expect("clocks lock").writing {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}
