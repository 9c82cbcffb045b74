//! The room task's side of the store: an action is stored before it is committed (and
//! a game's result before anyone hears `game_over`), a refused write changes
//! nothing, and what was stored after the room gave up on a write is caught up.

use tokio::time::Instant;
use tracing::{info, warn};

use super::RoomTask;
use crate::room::state::Staged;
use crate::room::writes::store_finish;
use crate::store::{ActionRecord, Finish, StoreError};

impl RoomTask {
    /// Stores a staged action and commits it, or tells the room the store refused it
    /// (then nothing changed). An action that ends the game has its result stored
    /// before it is committed, so that `GET /api/games/{id}` answers the finished
    /// game by the time anyone hears `game_over`. Returns whether it was stored.
    pub(super) async fn store_and_commit(
        &mut self,
        staged: Staged,
        received: Option<Instant>,
    ) -> bool {
        let Some(staged) = self.store_action(staged).await else {
            return false;
        };
        if let Some(finish) = self.room.result_of(&staged) {
            self.store_result(finish).await;
        }
        // The result, if any, is the one just stored.
        let _ = self.room.commit(staged);
        if let Some(received) = received {
            self.ctx.metrics.action_latency.observe(received.elapsed());
        }
        self.flush();
        true
    }

    /// Appends the action of `staged` to the log; returns it once stored, or
    /// nothing once refused (its client told). A log that already holds an action
    /// at its index holds one the room did not commit (see [`Room::adopt`]): the
    /// room catches up with the log once, then stages the action again.
    async fn store_action(&mut self, mut staged: Staged) -> Option<Staged> {
        let mut caught_up = false;
        loop {
            // Bounded (retries of a hiccup included) by the store's wrapper.
            let (store, id, record) = (self.ctx.store.clone(), self.room.id(), staged.record);
            let append = async move { store.append_action(id, &record).await };
            match self.serving_reads(append).await {
                Ok(()) => return Some(staged),
                Err(StoreError::Conflict(e)) if !caught_up => {
                    warn!(error = %e, "the log holds an action the room did not commit; catching up");
                    caught_up = true;
                    let Some(log) = self.read_log().await else {
                        self.room.refuse_unstored(staged);
                        return None;
                    };
                    let at = usize::try_from(staged.record.seq).unwrap_or(usize::MAX);
                    if log.get(at).is_some_and(|r| r.same_action(&staged.record)) {
                        // This very action, stored by an attempt whose answer was
                        // lost (or by an earlier one of the same client).
                        return Some(staged);
                    }
                    if !self.catch_up_with(&log).await {
                        self.room.refuse_unstored(staged);
                        return None;
                    }
                    staged = self.room.restage(staged)?;
                }
                Err(e @ StoreError::Fenced(_)) => {
                    warn!(error = %e, "the room is another instance's now");
                    self.room.refuse_unstored(staged);
                    self.moved();
                    return None;
                }
                Err(e) => {
                    warn!(error = %e, "could not store an action; refusing it");
                    self.room.refuse_unstored(staged);
                    return None;
                }
            }
        }
    }

    /// The stored action log, or nothing if it cannot be read.
    async fn read_log(&mut self) -> Option<Vec<ActionRecord>> {
        let (store, id) = (self.ctx.store.clone(), self.room.id());
        let log = self
            .serving_reads(async move { store.actions(id).await })
            .await;
        log.map_err(|e| warn!(error = %e, "could not read the log to catch up with it"))
            .ok()
    }

    /// Commits the actions of the stored `log` past the room's own; false if they
    /// do not apply.
    async fn catch_up_with(&mut self, log: &[ActionRecord]) -> bool {
        let from = usize::try_from(self.room.actions_committed()).unwrap_or(usize::MAX);
        for record in log.iter().skip(from) {
            match self.room.adopt(record) {
                Ok(Some(finish)) => self.store_result(finish).await,
                Ok(None) => {}
                Err(e) => {
                    warn!(
                        seq = record.seq,
                        code = e.code(),
                        "the stored log does not apply"
                    );
                    return false;
                }
            }
            info!(
                seq = record.seq,
                "took in an action stored without the room's knowledge"
            );
        }
        self.flush();
        true
    }

    /// Stores the result of the game the action being committed ends (one call,
    /// bounded). If the store does not take it, the result is written in the
    /// background, retried with backoff until the database takes it (tracked, so
    /// that a shutdown waits for it); until then the stored game reads as playing.
    async fn store_result(&mut self, finish: Finish) {
        let (store, id) = (self.ctx.store.clone(), self.room.id());
        let kept = finish.clone();
        let stored = self
            .serving_reads(async move { store.finish_game(id, &kept).await })
            .await;
        match stored {
            Ok(()) => info!("result stored"),
            Err(e) => {
                warn!(error = %e, "could not store the result; retrying in the background");
                self.ctx.tasks.spawn(store_finish(
                    self.ctx.store.clone(),
                    id,
                    finish,
                    self.ctx.shutdown.clone(),
                ));
            }
        }
    }
}
