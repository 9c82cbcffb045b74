//! The game in progress: client messages, actions checked by the engine and staged
//! until the store has them, and game over.
//!
//! An action is applied to a copy of the game ([`Room::stage_action`]); the task
//! stores it and then commits it ([`Room::commit`]) or, if the store refuses,
//! reports the refusal ([`Room::refuse_unstored`]). Until the commit the room is
//! untouched, so a refusal of either kind changes nothing.

use catan_engine::{Action, ActionError, Actor, Event, Game, Seat};
use tracing::info;

use super::{ConnId, Match, Room, Stage, Timer};
use crate::store::{ActionRecord, Finish};
use catan_protocol::{ClientMessage, ErrorCode, MAX_REQUEST_ID_BYTES, RoomStatus, ServerMessage};

/// Why the room refused an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The engine said no.
    Engine(ActionError),
    /// The action could not be stored, so it was not applied.
    Store,
}

impl Refusal {
    /// The stable code clients see.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Refusal::Engine(e) => e.code(),
            Refusal::Store => ErrorCode::StoreUnavailable.code(),
        }
    }

    /// The human message clients see.
    fn message(self) -> String {
        match self {
            Refusal::Engine(e) => e.to_string(),
            Refusal::Store => {
                "the game store is unavailable; nothing changed, try again".to_owned()
            }
        }
    }
}

/// An action the engine accepted, applied to a copy of the game, to be stored.
#[derive(Debug)]
pub(crate) struct Staged {
    /// The log entry the store is to append.
    pub record: ActionRecord,
    /// The game after the action.
    game: Game,
    /// What the action caused.
    events: Vec<Event>,
    /// The acting connection and its request id, for the acknowledgement.
    request: Option<(ConnId, String)>,
    /// For an offer: the seconds its author gave it, when sooner than the room's
    /// own expiry (kept in memory only: a restored room gives its offers the
    /// room's expiry).
    offer_secs: Option<u32>,
}

impl Room {
    /// Serves a message of connection `conn`. Pings, chat and `sync` are answered at
    /// once, as are actions refused before the engine applies them; an accepted
    /// action comes back staged, for the task to store.
    pub(crate) fn client_message(&mut self, conn: ConnId, msg: ClientMessage) -> Option<Staged> {
        let seat = self.conns.get(conn)?.seat;
        match msg {
            ClientMessage::Ping { request_id } => {
                self.send_to(conn, &ServerMessage::Pong { request_id });
                None
            }
            ClientMessage::Chat { text } => {
                self.chat(conn, seat, &text);
                None
            }
            ClientMessage::Sync => {
                let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
                self.send_to(conn, &msg);
                None
            }
            ClientMessage::History => {
                let msg = ServerMessage::History(Box::new(self.history(seat)));
                self.send_to(conn, &msg);
                None
            }
            ClientMessage::Action {
                request_id,
                action,
                expect_seq,
                offer_expires_secs,
            } => {
                let refused = if request_id.len() > MAX_REQUEST_ID_BYTES {
                    Some((
                        ErrorCode::InvalidRequestId,
                        "request ids are at most 64 bytes",
                    ))
                } else if seat.is_none() {
                    Some((ErrorCode::Spectator, "spectators cannot act"))
                } else if self.status() == catan_protocol::RoomStatus::Lobby {
                    Some((ErrorCode::NotStarted, "the game has not started"))
                } else {
                    None
                };
                if let Some((code, message)) = refused {
                    self.reject(conn, request_id, code.code(), message.to_owned(), None);
                    return None;
                }
                let actor = Actor::Seat(seat?);
                match self.stage_action(actor, action, Some((conn, request_id.clone()))) {
                    Ok(staged) => Some(Staged {
                        offer_secs: offer_expires_secs.map(|s| s.max(1)),
                        ..staged
                    }),
                    // Chosen before the game moved on, and no longer applying: the
                    // client has not seen what changed yet (protocol.md section 7).
                    Err(e) if expect_seq.is_some_and(|s| s < self.outbox.game_seq()) => {
                        let message = format!(
                            "the game moved on after seq {} ({}); choose again from the \
                             messages up to seq {}",
                            expect_seq.unwrap_or_default(),
                            e.message(),
                            self.seq()
                        );
                        let code = ErrorCode::StaleAction.code();
                        self.reject(conn, request_id, code, message, Some(self.seq()));
                        None
                    }
                    Err(e) => {
                        self.reject(conn, request_id, e.code(), e.message(), None);
                        None
                    }
                }
            }
        }
    }

    /// Sends `rejected` to `conn` and counts it.
    fn reject(
        &mut self,
        conn: ConnId,
        request_id: String,
        code: &'static str,
        message: String,
        seq: Option<u64>,
    ) {
        self.metrics.action_rejected(code);
        let msg = ServerMessage::Rejected {
            request_id,
            code: code.to_owned(),
            message,
            seq,
        };
        self.send_to(conn, &msg);
    }

    /// Chat from `seat` (or a spectator) to everyone, as
    /// [`catan_protocol::text::clean_chat`] leaves it.
    /// Answers connection `conn` with an `error` of `code` (a message refused
    /// before the room looked at it); nothing else changes.
    pub(crate) fn refuse(&mut self, conn: ConnId, code: ErrorCode, message: &str) {
        self.send_to(conn, &ServerMessage::error(code, message));
    }

    fn chat(&mut self, conn: ConnId, seat: Option<Seat>, text: &str) {
        let text = match catan_protocol::text::clean_chat(text) {
            Ok(text) => text,
            Err(why) => {
                self.send_to(
                    conn,
                    &ServerMessage::error(ErrorCode::InvalidChat, why.to_string()),
                );
                return;
            }
        };
        let name = seat
            .and_then(|s| self.seats.name(s))
            .unwrap_or_else(|| "spectator".to_owned());
        self.outbox.keep_chat(catan_protocol::HistoryChat {
            seq: self.seq() + 1,
            seat,
            name: name.clone(),
            text: text.clone(),
        });
        self.broadcast_public(|seq| ServerMessage::Chat {
            seq,
            seat,
            name,
            text,
        });
    }

    /// Applies `action` to a copy of the game; the room itself is unchanged.
    ///
    /// # Errors
    /// The engine's refusal; `GameOver` once the game has ended, as the engine says
    /// it (protocol.md 18.1); `WrongPhase` before the game starts.
    pub(crate) fn stage_action(
        &self,
        actor: Actor,
        action: Action,
        request: Option<(ConnId, String)>,
    ) -> Result<Staged, Refusal> {
        let m = match &self.stage {
            Stage::Playing { game: m, .. } => m,
            Stage::Finished { .. } => return Err(Refusal::Engine(ActionError::GameOver)),
            Stage::Lobby => return Err(Refusal::Engine(ActionError::WrongPhase)),
        };
        let mut game = m.game().clone();
        let events = game.apply(actor, action).map_err(Refusal::Engine)?;
        let record = ActionRecord {
            seq: m.actions(),
            room_seq: self.seq() + 1,
            seat: match actor {
                Actor::Seat(s) => Some(s),
                Actor::System => None,
            },
            action,
            at: self.now().unix_ms,
            stand_in: request
                .as_ref()
                .and_then(|(conn, _)| self.conns.get(*conn))
                .is_some_and(|c| c.stand_in),
        };
        Ok(Staged {
            record,
            game,
            events,
            request,
            offer_secs: None,
        })
    }

    /// Stages the system action of a timer that has run out.
    ///
    /// # Errors
    /// The engine's refusal (the offer was closed meanwhile, say); `WrongPhase` for a
    /// stand-in, which is no game action ([`Room::start_stand_in`]).
    pub(crate) fn stage_timer(&self, timer: Timer) -> Result<Staged, Refusal> {
        let action = timer
            .action()
            .ok_or(Refusal::Engine(ActionError::WrongPhase))?;
        self.stage_action(Actor::System, action, None)
    }

    /// The result to store when `staged` ends the game (a win, or the turn limit:
    /// the task stores it before it commits the action, so that the
    /// history API has it by the time anyone hears `game_over`.
    pub(crate) fn result_of(&self, staged: &Staged) -> Option<Finish> {
        let m = self.stage.game()?;
        m.finish_of(
            &staged.game,
            Some(&staged.record),
            self.now().unix_ms,
            self.options.rated,
        )
    }

    /// Takes a stored action into the room: the game moves on, the deadlines follow,
    /// everyone hears the events, and `game_over` if the action ended the game.
    /// Returns that game's result, the one [`Room::result_of`] gave before.
    pub(crate) fn commit(&mut self, staged: Staged) -> Option<Finish> {
        let Staged {
            record,
            game,
            events,
            request,
            offer_secs,
        } = staged;
        // The broadcast below takes the next number.
        let room_seq = self.seq() + 1;
        let (options, now) = (self.options, self.now());
        let committed = self.stage.commit(
            game,
            &record,
            &events,
            room_seq,
            (&options, offer_secs),
            now,
        );
        if !committed {
            return None;
        }
        self.metrics.action_applied();
        self.broadcast_events(events, request);
        self.finish_if_over()
    }

    /// Actions committed so far: the index in the log of the next one.
    pub(crate) fn actions_committed(&self) -> u64 {
        self.stage.game().map_or(0, Match::actions)
    }

    /// Takes in an action the stored log holds but the room did not commit: its
    /// write was refused to the room (the call's time bound passed, or its answer
    /// was lost) and yet the database stored it. The stored log is the game (a
    /// restart replays it), so the room catches up with it: everyone hears the
    /// events. Returns the result when the action ended the game.
    ///
    /// # Errors
    /// The engine's refusal: the stored log does not apply to the room's game.
    pub(crate) fn adopt(&mut self, record: &ActionRecord) -> Result<Option<Finish>, Refusal> {
        let staged = self.stage_action(record.actor(), record.action, None)?;
        Ok(self.commit(staged))
    }

    /// Stages the action of `staged` again, after the room caught up with the
    /// stored log ([`Room::adopt`]); if it no longer applies, its client is told
    /// `stale_action` (the game moved on) and nothing is returned.
    pub(crate) fn restage(&mut self, staged: Staged) -> Option<Staged> {
        let Staged {
            record,
            request,
            offer_secs,
            ..
        } = staged;
        match self.stage_action(record.actor(), record.action, request.clone()) {
            Ok(again) => Some(Staged {
                offer_secs,
                ..again
            }),
            Err(e) => {
                if let Some((conn, request_id)) = request {
                    let message = format!(
                        "the game moved on ({}); choose again from the messages up to seq {}",
                        e.message(),
                        self.seq()
                    );
                    let code = ErrorCode::StaleAction.code();
                    self.reject(conn, request_id, code, message, Some(self.seq()));
                }
                None
            }
        }
    }

    /// Tells the requesting connection that its action could not be stored.
    pub(crate) fn refuse_unstored(&mut self, staged: Staged) {
        if let Some((conn, request_id)) = staged.request {
            let r = Refusal::Store;
            self.reject(conn, request_id, r.code(), r.message(), None);
        }
    }

    /// Ends a game that is over, won or ended by the turn limit with no winner
    /// both the same way: the room moves to finished, everyone gets
    /// `game_over` with the seed and salt revealed (`winner` null for no winner), and
    /// the result is returned for the task to store.
    pub(super) fn finish_if_over(&mut self) -> Option<Finish> {
        let seq = self.seq() + 1;
        let (finish, over) = self
            .stage
            .finish(seq, self.now().unix_ms, self.options.rated)?;
        if let Some(m) = self.stage.game() {
            info!(
                winner = finish.winner.map(|w| w.0),
                turn = m.game().turn(),
                actions = m.actions(),
                "game over"
            );
        }
        self.metrics
            .room_moved(Some(RoomStatus::Playing), Some(RoomStatus::Finished));
        self.metrics.game_finished();
        self.broadcast_public(|numbered| {
            debug_assert_eq!(numbered, seq, "game_over takes the next number");
            ServerMessage::GameOver(over)
        });
        self.broadcast_room();
        Some(finish)
    }
}
