//! The room task's operator side: what administrators see (summary, unredacted
//! detail), closing a room (by an administrator, or for being idle), kicking a seat's
//! connection, and the room's status as counted by the metrics.

use std::time::Duration;

use catan_engine::{Game, Seat};
use tokio::time::Instant;
use tracing::{info, warn};

use super::{ConnId, Logged, RoomTask, instant_ms};
use crate::error::LobbyError;
use catan_protocol::{AdminRoomDetail, AdminRoomSummary, CloseRoomResponse};
use catan_protocol::{CloseCode, ClosingReason, RoomStatus, ServerMessage};

impl RoomTask {
    /// Changes the room's status, keeping the rooms-by-status gauge in step.
    pub(super) fn set_status(&mut self, status: RoomStatus) {
        self.ctx.metrics.room_moved(Some(self.status), Some(status));
        self.status = status;
    }

    /// Whether a person (a human seat's client, or a spectator) is connected; bots
    /// do not keep a room alive.
    fn people_connected(&self) -> bool {
        self.conns.values().any(|c| match c.seat {
            None => true,
            Some(s) => self.seats[s.index()]
                .occupant
                .as_ref()
                .is_some_and(|o| o.bot.is_none()),
        })
    }

    /// When the room is to be closed for being idle: no game in progress, nobody
    /// connected, and no request for `--idle-room-secs` (0: never).
    pub(super) fn idle_deadline(&self) -> Option<Instant> {
        let secs = self.idle_secs();
        if secs == 0 || self.status == RoomStatus::Playing || self.people_connected() {
            return None;
        }
        Some(self.last_activity + Duration::from_secs(secs))
    }

    /// How long the room may stay without people: shorter once its game is over, so
    /// that a busy server does not hold every finished game in memory for long.
    fn idle_secs(&self) -> u64 {
        if self.status == RoomStatus::Finished {
            self.ctx.config.finished_room_secs
        } else {
            self.ctx.config.idle_room_secs
        }
    }

    /// Closes the room for being idle.
    pub(super) async fn close_idle(&mut self) {
        let secs = self.idle_secs();
        info!(idle_secs = secs, "closing idle room");
        let message = format!("the room was closed after {secs} s without players");
        self.close(&message).await;
    }

    /// The room as listed to administrators.
    pub(super) fn admin_summary(&self) -> AdminRoomSummary {
        let info = self.info();
        AdminRoomSummary {
            id: self.id,
            status: self.status,
            phase: self.game.as_ref().map(Game::phase),
            options: self.options,
            seats: info.seats,
            spectators: self.conns.values().filter(|c| c.seat.is_none()).count(),
            created_at: self.created_at,
            last_activity: self.last_activity_ms,
            seq: self.seq,
            actions: self.actions,
        }
    }

    /// Everything the room holds, unredacted, with the last `events` broadcasts.
    pub(super) fn admin_detail(&self, events: usize) -> AdminRoomDetail {
        let skip = self.backlog.len().saturating_sub(events);
        let events = self
            .backlog
            .iter()
            .skip(skip)
            .map(|(seq, logged)| match logged {
                Logged::Events(events) => ServerMessage::Events {
                    seq: *seq,
                    events: events.to_vec(),
                    request_id: None,
                    deadline: None,
                    offer_deadlines: Vec::new(),
                    legal: Vec::new(),
                },
                Logged::Public(m) => (**m).clone(),
            })
            .collect();
        AdminRoomDetail {
            room: self.admin_summary(),
            seed_commitment: self.seed_commitment.clone(),
            game: self.game.clone().map(Box::new),
            offers: self
                .game
                .as_ref()
                .map(|g| g.offers().to_vec())
                .unwrap_or_default(),
            deadline: self.phase_deadline.map(instant_ms),
            offer_deadlines: self.offer_deadline_list(),
            game_over: self.game_over.clone(),
            events,
        }
    }

    /// Tells every connection why (`closing` with `code`), closes them all with
    /// 4010, marks an unfinished game abandoned in the store, leaves the registry and
    /// ends the task.
    pub(super) async fn close(&mut self, message: &str) -> CloseRoomResponse {
        let status = self.status;
        let msg = ServerMessage::closing(ClosingReason::RoomClosed, message);
        let conns: Vec<_> = self.conns.drain().collect();
        let connections_closed = conns.len();
        for (_, c) in conns {
            // A full queue means the client is too slow to read it: the close code
            // still tells it.
            let _ = c.tx.try_send(c.outbound(&msg));
            c.shared.set_close(CloseCode::RoomClosed);
        }
        for s in &mut self.seats {
            s.conn = None;
        }
        self.phase_deadline = None;
        self.offer_deadlines.clear();
        let game_abandoned = status == RoomStatus::Playing && self.abandon_with_retry().await;
        self.closed = true;
        if let Some(rooms) = self.ctx.rooms.upgrade() {
            rooms.remove(self.id);
        }
        info!(connections_closed, game_abandoned, "room closed");
        CloseRoomResponse {
            room_id: self.id,
            status,
            connections_closed,
            game_abandoned,
        }
    }

    /// Marks the game abandoned, retrying briefly; false if the store stays down
    /// (the game is then restored after a restart).
    async fn abandon_with_retry(&self) -> bool {
        let mut delay = Duration::from_millis(20);
        for attempt in 0..4 {
            match self.ctx.store.abandon_game(self.id).await {
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

    /// Disconnects the client on `seat` with 4011 after a `closing` message; the seat
    /// stays its own and its token keeps working.
    pub(super) fn kick(&mut self, seat: Seat, message: &str) -> Result<(), LobbyError> {
        let s = self.seats.get(seat.index()).ok_or(LobbyError::NoSuchSeat)?;
        let conn: ConnId = s.conn.ok_or(LobbyError::NotConnected)?;
        if let Some(c) = self.conns.get(&conn) {
            // A full queue means the client is too slow to read it: the close code
            // still tells it.
            let msg = ServerMessage::closing(ClosingReason::Kicked, message);
            let _ = c.tx.try_send(c.outbound(&msg));
        }
        self.drop_conn(conn, CloseCode::Kicked);
        info!(seat = seat.0, "connection kicked by an administrator");
        Ok(())
    }
}
