//! A room of a game over days falls asleep (protocol 27.5): out of the registry and
//! out of memory, the store holding all of it.

use tracing::{info, warn};

use super::RoomTask;
use crate::room::state::Now;
use catan_protocol::{CloseCode, ClosingReason};

impl RoomTask {
    /// Puts a game over days with nobody there to sleep (protocol 27.5): the room
    /// leaves the registry (under its wake lock, so nobody wakes it meanwhile), its
    /// clocks are written, the store notes the number of its last broadcast and
    /// keeps its reconnect backlog, its bots' connections close and the task ends;
    /// the next request, connection or deadline wakes it from the store. A command that came meanwhile, or a store
    /// that refuses, keeps it awake (and tries again after `--sleep-after-secs`).
    pub(super) async fn go_to_sleep(&mut self) {
        let Some(rooms) = self.ctx.rooms.upgrade() else {
            return;
        };
        let id = self.room.id();
        let _lock = rooms.wake_locks().lock(id).await;
        rooms.remove(id);
        let stay = |task: &mut RoomTask, rooms: &dyn crate::room::Directory| {
            rooms.insert(task.handle.clone());
            task.room.at(Now::real(), true);
        };
        if !self.rx.is_empty() || !self.deferred.is_empty() {
            stay(self, rooms.as_ref());
            return;
        }
        if let Some((json, next)) = self.room.clocks_to_keep() {
            self.clocks
                .keep(json, next, &self.ctx.store, id, &self.ctx.tasks);
        }
        self.clocks.written().await;
        let seq = self.room.seq();
        let backlog = self.room.backlog_to_keep();
        if let Err(e) = self.ctx.store.sleep_game(id, seq, &backlog).await {
            warn!(error = %e, "could not put the room to sleep; it stays awake");
            stay(self, rooms.as_ref());
            return;
        }
        self.room.close_all(
            ClosingReason::RoomClosed,
            CloseCode::RoomClosed,
            "the room sleeps",
        );
        self.flush();
        self.closed = true;
        info!(seq, "room asleep");
    }
}
