//! What the admin API shows of a room (protocol.md 22): everything it holds,
//! unredacted, for the operator only.

use catan_engine::Seat;
use catan_protocol::{AdminRoomDetail, AdminRoomSummary, LobbyError};

use super::{Match, Room};

impl Room {
    /// The room as listed to administrators.
    pub(crate) fn admin_summary(&self) -> AdminRoomSummary {
        let info = self.info();
        AdminRoomSummary {
            id: self.id,
            status: self.status(),
            phase: self.stage.game().map(|m| m.game().phase()),
            options: self.options,
            seats: info.seats,
            spectators: self.conns.spectators(),
            created_at: self.created_at,
            last_activity: self.life.last_activity().unix_ms,
            seq: self.seq(),
            actions: self.stage.game().map_or(0, Match::actions),
        }
    }

    /// Everything the room holds, unredacted, with the last `events` broadcasts;
    /// with `view`, the engine's view of a seat, now or as of a broadcast.
    ///
    /// # Errors
    /// For a view: `BadRequest` before the start, `NoSuchSeat`.
    pub(crate) fn admin_detail(
        &self,
        events: usize,
        view: Option<(Seat, Option<u64>)>,
    ) -> Result<AdminRoomDetail, LobbyError> {
        let sent = self.deadlines();
        let game = self.stage.game();
        let view = match view {
            None => None,
            Some((seat, at_seq)) => {
                let m = game.ok_or_else(|| {
                    LobbyError::BadRequest("view: the game has not started".to_owned())
                })?;
                if seat.0 >= m.game().options().players {
                    return Err(LobbyError::NoSuchSeat);
                }
                Some(Box::new(m.view_at(seat, at_seq)))
            }
        };
        Ok(AdminRoomDetail {
            room: self.admin_summary(),
            seed_commitment: game.map(|m| m.seed_commitment().to_owned()),
            game: game.map(|m| Box::new(m.game().clone())),
            offers: game.map(|m| m.game().offers().to_vec()).unwrap_or_default(),
            deadline: sent.deadline,
            offer_deadlines: sent.offers,
            game_over: self.stage.over().cloned(),
            events: self.outbox.tail(events),
            view,
        })
    }
}
