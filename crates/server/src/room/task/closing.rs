//! A room kept in the store while it gathers players, and a room that ends: closed
//! (by an administrator, for being idle, or its game abandoned) or moved to another
//! instance of the cluster.

use tracing::{info, warn};

use super::RoomTask;
use catan_protocol::{CloseCode, CloseRoomResponse, ClosingReason, RoomStatus};

impl RoomTask {
    /// Closes the room for being idle.
    pub(super) async fn close_idle(&mut self) {
        let secs = self.room.idle_secs();
        info!(idle_secs = secs, "closing idle room");
        let message = format!("the room was closed after {secs} s without players");
        self.close(&message).await;
    }

    /// Ends a game nobody plays any more (`--abandon-after-secs`): stored as
    /// abandoned (never restored), its room closed.
    pub(super) async fn close_abandoned(&mut self) {
        let secs = self.ctx.settings.rooms.abandon_after_secs;
        let message = format!("the game was abandoned: no player was connected for {secs} s");
        let closed = self.close(&message).await;
        info!(
            abandon_after_secs = secs,
            stored = closed.game_abandoned,
            "game abandoned by its players"
        );
    }

    /// Keeps the room in the store while it gathers players, so that it survives a
    /// restart (a single instance's: in a cluster it lives with its instance). A
    /// write the store refuses is logged; the room goes on in memory.
    pub(super) async fn keep_lobby(&mut self) {
        if !self.ctx.settings.keep_lobbies {
            return;
        }
        let Some(record) = self.room.lobby_record() else {
            return;
        };
        let store = self.ctx.store.clone();
        if let Err(e) = self
            .serving_reads(async move { store.save_lobby(&record).await })
            .await
        {
            warn!(error = %e, "could not keep the room in the store; it lives in memory only");
        }
    }

    /// Forgets the room's stored lobby (it was closed before its start).
    async fn forget_lobby(&mut self) {
        if !self.ctx.settings.keep_lobbies {
            return;
        }
        let (store, id) = (self.ctx.store.clone(), self.room.id());
        if let Err(e) = self
            .serving_reads(async move { store.drop_lobby(id).await })
            .await
        {
            warn!(error = %e, "could not forget the stored room; it comes back at a restart");
        }
    }

    /// Marks the game abandoned in the store (the store retries a hiccup); false if
    /// the store stays down (the game is then restored after a restart).
    async fn store_abandoned(&mut self) -> bool {
        let (store, id) = (self.ctx.store.clone(), self.room.id());
        match self
            .serving_reads(async move { store.abandon_game(id).await })
            .await
        {
            Ok(()) => true,
            Err(e) => {
                warn!(error = %e, "could not mark the game abandoned");
                false
            }
        }
    }

    /// Tells every connection why (`closing`), closes them all with 4010, marks an
    /// unfinished game abandoned in the store, leaves the registry and ends the task.
    pub(super) async fn close(&mut self, message: &str) -> CloseRoomResponse {
        let status = self.room.status();
        let connections_closed =
            self.room
                .close_all(ClosingReason::RoomClosed, CloseCode::RoomClosed, message);
        self.flush();
        let game_abandoned = status == RoomStatus::Playing && self.store_abandoned().await;
        if status == RoomStatus::Lobby {
            self.forget_lobby().await;
        }
        self.closed = true;
        if let Some(rooms) = self.ctx.rooms.upgrade() {
            rooms.remove(self.room.id());
        }
        info!(connections_closed, game_abandoned, "room closed");
        CloseRoomResponse {
            room_id: self.room.id(),
            status,
            connections_closed,
            game_abandoned,
        }
    }

    /// Stops the room here because another instance of the cluster owns it now
    /// (a write was fenced, or the lease was not renewed): every connection gets
    /// `closing` (`room_moved`) and 4014, so that it reconnects to the new owner;
    /// nothing more is stored; the room leaves the registry and the task ends.
    pub(in crate::room) fn moved(&mut self) {
        let connections_closed = self.room.close_all(
            ClosingReason::RoomMoved,
            CloseCode::RoomMoved,
            "another server instance runs this room now; reconnect",
        );
        self.flush();
        self.closed = true;
        if let Some(rooms) = self.ctx.rooms.upgrade() {
            rooms.remove(self.room.id());
        }
        warn!(connections_closed, "room moved to another instance");
    }
}
