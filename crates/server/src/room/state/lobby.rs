//! Before the game: seats taken by people and bots, left again, and the start, which
//! the task stores before anyone hears of it.

use catan_engine::{Game, Seat};
use tracing::info;

use super::{Match, Room, Stage};
use crate::error::LobbyError;
use crate::store::{self, LobbyRecord, NewGame};
use catan_protocol::{
    AddBotRequest, AddBotResponse, BotKind, CloseCode, ClosingReason, Occupant, RoomInfo,
    RoomOptions, RoomStatus, ServerMessage,
};
use uuid::Uuid;

/// What a rematch of a finished room asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RematchPlan {
    /// Someone asked before: the new room is this one.
    Exists(Uuid),
    /// A new room is to be made with these options and these bots in these seats.
    New {
        /// The options of this room.
        options: RoomOptions,
        /// Its bots: their seats and kinds.
        bots: Vec<(Seat, BotKind)>,
    },
}

/// A start the room has checked, waiting for the store to take the new game.
#[derive(Debug)]
pub(crate) struct PendingStart {
    /// What the store is to keep: options, seed and its commitment, the players.
    pub record: NewGame,
    /// The game, in its first position.
    game: Game,
}

impl Room {
    /// Seats a person (or, with `bot`, a built-in bot) and returns the seat's token.
    ///
    /// # Errors
    /// `AlreadyStarted`, `InvalidName`, `NoSuchSeat`, `SeatTaken`, `RoomFull`; nothing
    /// changes.
    pub(crate) fn take_seat(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        bot: Option<BotKind>,
    ) -> Result<(Seat, String), LobbyError> {
        self.take_seat_as(name, seat, bot, None)
    }

    /// [`Room::take_seat`] for a signed-in person: the seat is linked to `player`
    /// (protocol section 25), and the link is stored with the game. A bot's seat is
    /// linked to its level's identity ([`crate::store::bot_player_id`]).
    ///
    /// # Errors
    /// As [`Room::take_seat`]; in a rated room also `NotSignedIn` for a person
    /// without a player, `AlreadySeated` for a player seated here already, and
    /// `BotNotRated` for the random baseline (protocol 25.8).
    pub(crate) fn take_seat_as(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        bot: Option<BotKind>,
        player: Option<uuid::Uuid>,
    ) -> Result<(Seat, String), LobbyError> {
        if self.status() != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        let name = catan_protocol::text::clean_name(name).map_err(|_| LobbyError::InvalidName)?;
        let player = match bot {
            Some(kind) => Some(crate::store::bot_player_id(kind)),
            None => player,
        };
        if self.options.rated {
            match (bot, player) {
                (Some(kind), _) if catan_ratings::bot_skill(kind).is_none() => {
                    return Err(LobbyError::BotNotRated);
                }
                (None, None) => return Err(LobbyError::NotSignedIn),
                (None, Some(p)) if self.seats.has_player(p) => {
                    return Err(LobbyError::AlreadySeated);
                }
                _ => {}
            }
        }
        let seat = match seat {
            Some(s) if !self.seats.exists(s) => return Err(LobbyError::NoSuchSeat),
            Some(s) if !self.seats.is_free(s) => return Err(LobbyError::SeatTaken),
            Some(s) => s,
            None => self.seats.first_free().ok_or(LobbyError::RoomFull)?,
        };
        let token = self.seats.sit(seat, Occupant { name, bot }, player);
        info!(seat = seat.0, bot = bot.is_some(), "seat taken");
        self.broadcast_room();
        Ok((seat, token))
    }

    /// Frees a seat before the start: given up with the seat's own token, or taken
    /// back by the host with the host token (a bot, or a person waiting). A
    /// connection on it is closed: 4010 when its owner left, 4011 after a `closing`
    /// `kicked` when the host removed it. The seat's token stops working.
    ///
    /// # Errors
    /// `NoSuchSeat` (also a free seat the host names), `InvalidToken`,
    /// `AlreadyStarted`; nothing changes.
    pub(crate) fn leave_seat(&mut self, seat: Seat, token: &str) -> Result<(), LobbyError> {
        if !self.seats.exists(seat) {
            return Err(LobbyError::NoSuchSeat);
        }
        let own = self.seats.seat_of_token(token) == Some(seat);
        let by_host = !own && self.seats.is_host(token);
        if !own && !by_host {
            return Err(LobbyError::InvalidToken);
        }
        if self.seats.is_free(seat) {
            return Err(LobbyError::NoSuchSeat);
        }
        if self.status() != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        if let Some(conn) = self.conns.of_seat(seat) {
            if by_host {
                let msg = ServerMessage::closing(
                    ClosingReason::Kicked,
                    "the host removed you from this seat",
                );
                self.drop_conn(conn, CloseCode::Kicked, Some(msg));
            } else {
                self.drop_conn(conn, CloseCode::RoomClosed, None);
            }
        }
        self.seats.free(seat);
        info!(seat = seat.0, by_host, "seat left");
        self.broadcast_room();
        Ok(())
    }

    /// Seats a built-in bot (host only), named after its seat counted from 1 (so a
    /// rematch, which seats its bots before the people come back, names them as the
    /// game before did); the caller starts it with the returned token.
    ///
    /// # Errors
    /// As [`Room::take_seat`], and `NotHost`.
    pub(crate) fn add_bot(
        &mut self,
        host_token: &str,
        request: AddBotRequest,
    ) -> Result<(AddBotResponse, String), LobbyError> {
        self.seats.check_host(host_token)?;
        let n = request
            .seat
            .or(self.seats.first_free())
            .map_or(0, |s| s.index() + 1);
        let name = format!("Bot {n}");
        let (seat, token) = self.take_seat(&name, request.seat, Some(request.kind))?;
        Ok((AddBotResponse { seat }, token))
    }

    /// What a rematch asked for with `token` (the host's, or a person's seat token)
    /// needs: only after the game (`game_not_finished` before). Nothing changes until
    /// [`Room::rematch_made`].
    ///
    /// # Errors
    /// `InvalidToken` (no token of the host or of a person seated here),
    /// `GameNotFinished`.
    pub(crate) fn rematch_plan(&self, token: &str) -> Result<RematchPlan, LobbyError> {
        if !self.seats.is_host(token) && !self.seats.is_persons_token(token) {
            return Err(LobbyError::InvalidToken);
        }
        if self.status() != RoomStatus::Finished {
            return Err(LobbyError::GameNotFinished);
        }
        if let Some(id) = self.stage.rematch() {
            return Ok(RematchPlan::Exists(id));
        }
        Ok(RematchPlan::New {
            options: self.options,
            bots: self.seats.bots(),
        })
    }

    /// The rematch room `id` exists: every connection hears of it (a numbered
    /// `rematch` message; later snapshots name it too).
    pub(crate) fn rematch_made(&mut self, id: Uuid) {
        self.stage.set_rematch(id);
        info!(rematch = %id, "rematch room made");
        self.broadcast_public(|seq| ServerMessage::Rematch { seq, room_id: id });
    }

    /// The room as the store keeps it while it gathers players; `None` once its
    /// game has started.
    pub(crate) fn lobby_record(&self) -> Option<LobbyRecord> {
        (self.status() == RoomStatus::Lobby).then(|| LobbyRecord {
            id: self.id,
            options: self.options,
            host_token_hash: self.seats.host().as_str().to_owned(),
            created_at: self.created_at,
            players: self
                .seats
                .records()
                .into_iter()
                .filter(|p| !p.name.is_empty())
                .collect(),
            seq: self.seq(),
        })
    }

    /// Checks that the host may start now and deals the game from `seed`, committed to
    /// with `salt`. Nothing changes until [`Room::start`] with the result.
    ///
    /// # Errors
    /// `NotHost`, `AlreadyStarted`, `NotFull`, `InvalidOptions`.
    pub(crate) fn prepare_start(
        &self,
        host_token: &str,
        seed: u64,
        salt: String,
    ) -> Result<PendingStart, LobbyError> {
        self.seats.check_host(host_token)?;
        if self.status() != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        if !self.seats.all_taken() {
            return Err(LobbyError::NotFull);
        }
        let game = Game::new(self.options.game, seed)
            .map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
        let record = NewGame {
            id: self.id,
            options: self.options,
            seed,
            seed_commitment: store::seed_commitment(seed, &salt),
            seed_salt: salt,
            host_token_hash: self.seats.host().as_str().to_owned(),
            created_at: self.created_at,
            started_at: self.now().unix_ms,
            players: self.seats.records(),
        };
        Ok(PendingStart { record, game })
    }

    /// Starts the game the store has taken: everyone hears of it and gets a snapshot
    /// with the first view and legal actions.
    pub(crate) fn start(&mut self, pending: PendingStart) -> RoomInfo {
        let PendingStart { record, game } = pending;
        let game = Match::new(
            game,
            record.seed_salt,
            record.seed_commitment,
            self.options.days,
            record.started_at,
        );
        let stage = Stage::playing(game, &self.options, self.now());
        self.set_stage(stage);
        info!("game started");
        self.life.people_left();
        self.broadcast_room();
        for (id, meta) in self.conns.sorted() {
            let msg = ServerMessage::Snapshot(Box::new(self.snapshot(meta.seat)));
            self.send_to(id, &msg);
        }
        self.info()
    }
}
