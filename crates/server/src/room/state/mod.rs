//! The room's rules of play as a synchronous state machine: seats, the start, actions,
//! trade offers and deadlines, game over. No sockets, no store and no runtime: the
//! room task (`super::task`) hands it each command with the time, performs the store
//! writes it asks for, and delivers what it leaves in its outbox.
//!
//! The [`Room`] composes parts, each a type that owns its fields and keeps its
//! invariants; a part's fields are written only in its own file:
//!
//! # Layout
//! - this file: the [`Room`] itself, made new or restored from the store, and what
//!   every part reads (the public description, snapshots, the idle and abandon
//!   deadlines);
//! - `seats`: [`seats::Seats`], who sits where and every token check;
//! - `conns`: [`conns::Conns`], connections attached to the room (a seat's or a
//!   spectator's, a stand-in's), resuming from a sequence number, and the seats
//!   that lost theirs;
//! - `outbox`: [`outbox::Outbox`], numbered broadcasts, the reconnect backlog, the
//!   chat kept for `history`, and what goes to whom;
//! - `game`: [`Stage`] (lobby, playing, finished) and [`Match`], the started game
//!   with its log: only here does the game move on;
//! - `timers`: the phase timer, the expiry of trade offers and the countdowns of
//!   absent people's decisions;
//! - `clock`: [`clock::Clock`], the seats' clocks of a game over days (hours per
//!   move, time bank, vacation days), a fold over the stored log;
//! - `notices`: what a game over days shows its notifications (the moves owed, the
//!   open offers, who is connected);
//! - `life`: [`life::Life`], the room's clock (now, last activity, people gone);
//! - `lobby`: seats taken and left, bots, the start and the rematch;
//! - `play`: client messages, actions staged until stored, and game over;
//! - `stand_in`: bots that play the seat of a person who is away;
//! - `admin`: what administrators see of the room.

mod admin;
mod clock;
mod conns;
mod game;
mod life;
mod lobby;
mod notices;
mod outbox;
mod play;
mod seats;
mod stand_in;
mod timers;

#[cfg(test)]
mod tests;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use catan_engine::{Replay, ReplayError, Seat, Tally};
use tokio::time::Instant;
use uuid::Uuid;

use super::{ConnId, Deadlines, RoomSettings, Wire};
use crate::metrics::Metrics;
use crate::store::{ActionRecord, Finish, GameRecord, LobbyRecord};
use crate::token::TokenHash;
use catan_protocol::{BotKind, RoomInfo, RoomOptions, RoomStatus, SeatInfo, Snapshot};

pub(crate) use lobby::RematchPlan;
pub(crate) use outbox::Out;
pub(crate) use play::Staged;
pub(crate) use timers::Timer;

use conns::Conns;
pub(crate) use game::{Match, Stage};
use life::Life;
use outbox::Outbox;
use seats::Seats;
use timers::Timers;

/// Sequence numbers a room reserves in the store at a time, ahead of its counter
/// (see `SeqReservation` in the room task); also how far past its last stored
/// action a game with no reservation stored is restored.
pub(crate) const SEQ_BLOCK: u64 = 1000;

/// How long a room of a game over days may gather players without anyone
/// connected: a week.
pub(crate) const DAYS_LOBBY_IDLE_SECS: u64 = 7 * 24 * 3600;

/// A room over days sleeps only when no move is due within this of its falling
/// asleep (the wake-up by deadline then has ample time).
pub(crate) const SLEEP_MARGIN: Duration = Duration::from_secs(600);

/// Unix time in milliseconds as rooms reckon it ([`Now::real`]): what deadlines
/// kept in the store are compared with.
pub(crate) fn rooms_now_ms() -> u64 {
    Now::real().unix_ms
}

/// Unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The time as the room sees it: an instant for its deadlines, and the same moment as
/// Unix milliseconds for what clients, administrators and the store are told.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Now {
    /// The monotonic clock, which tokio can pause in tests.
    pub at: Instant,
    /// Wall-clock time, Unix ms.
    pub unix_ms: u64,
}

impl Now {
    /// This moment, from both clocks: the wall clock as it was when the process
    /// first asked, moved on by the monotonic clock since. So the two never
    /// disagree within a run (a deadline of days, kept in Unix ms by a game over
    /// days, comes when its timer does, also on tokio's paused clock in tests),
    /// and a change of the system's clock does not move a room's deadlines.
    pub(crate) fn real() -> Now {
        static BASE: OnceLock<(Instant, u64)> = OnceLock::new();
        let (then, unix_then) = *BASE.get_or_init(|| (Instant::now(), now_ms()));
        let at = Instant::now();
        let since = u64::try_from(at.saturating_duration_since(then).as_millis()).unwrap_or(0);
        Now {
            at,
            unix_ms: unix_then + since,
        }
    }

    /// The moment that was `unix_ms` by the wall clock, on both clocks (a moment
    /// further back than the monotonic clock reaches counts as this one).
    fn at_unix(self, unix_ms: u64) -> Now {
        let at = if unix_ms <= self.unix_ms {
            let back = Duration::from_millis(self.unix_ms - unix_ms);
            self.at.checked_sub(back).unwrap_or(self.at)
        } else {
            self.at + Duration::from_millis(unix_ms - self.unix_ms)
        };
        Now { at, unix_ms }
    }

    /// `later` (a deadline) as Unix ms, for clients.
    fn unix_of(self, later: Instant) -> u64 {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(0);
        if later >= self.at {
            self.unix_ms + ms(later - self.at)
        } else {
            self.unix_ms.saturating_sub(ms(self.at - later))
        }
    }
}

/// One attached connection, as the room knows it (its socket is the task's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnMeta {
    /// Its seat, `None` for spectators.
    pub(crate) seat: Option<Seat>,
    /// A client of this process (a built-in bot): sent typed messages, not text.
    pub(crate) wire: Wire,
    /// A bot standing in for the seat's absent person: not the seat's connection.
    pub(crate) stand_in: bool,
}

/// A room rebuilt from the store.
pub(crate) struct Restored {
    /// The room, playing (or finished, if its log ends the game: a win or the turn
    /// limit).
    pub room: Room,
    /// Fresh tokens of the built-in bots to start (none once the game is over).
    pub bots: Vec<(String, BotKind)>,
    /// The result to store, when the log ends the game and the store has not
    /// recorded it.
    pub finish: Option<Finish>,
}

/// Why a stored game could not be brought back as a room.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The stored log skips an index: it is not a whole log.
    #[error("the stored action log has a gap at index {0}")]
    Gap(usize),
    /// The engine does not replay the stored log (or its options).
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// One room: its seats, its game and its connections, driven by the room task.
pub(crate) struct Room {
    /// The room's id.
    id: Uuid,
    /// The room's settled options.
    options: RoomOptions,
    /// Creation time, Unix ms.
    created_at: u64,
    /// Who sits where, and the host's token.
    seats: Seats,
    /// Lobby, playing or finished, with what each holds.
    stage: Stage,
    /// The connections, and which holds each seat.
    conns: Conns,
    /// Numbered broadcasts, the backlog, and what waits for delivery.
    outbox: Outbox,
    /// The time now, of the last activity, and since people left.
    life: Life,
    /// What the room reads of the configuration.
    settings: Arc<RoomSettings>,
    /// Counters kept in step with the room (statuses, actions, refusals).
    metrics: Arc<Metrics>,
}

impl Room {
    /// A new room in the lobby.
    pub(crate) fn new(
        id: Uuid,
        options: RoomOptions,
        host_token: &str,
        settings: Arc<RoomSettings>,
        metrics: Arc<Metrics>,
        now: Now,
    ) -> Room {
        metrics.room_moved(None, Some(RoomStatus::Lobby));
        let players = options.game.players;
        Room {
            id,
            created_at: now.unix_ms,
            seats: Seats::new(players, TokenHash::of(host_token)),
            stage: Stage::Lobby,
            conns: Conns::new(usize::from(players)),
            outbox: Outbox::new(0, settings.rooms.event_backlog),
            life: Life::new(now),
            options,
            settings,
            metrics,
        }
    }

    /// Rebuilds a room from its stored game by replaying the action log through the
    /// engine. Bots get fresh tokens (returned, to be started by the caller); people
    /// keep theirs, since only their hashes were stored. A log that ends the game, by
    /// a win or by the turn limit (the server stopped before the result was written),
    /// restores the finished room, with the result for the caller to store. A log
    /// that goes on past its turn limit was written before the limit existed (its
    /// options read with the default, R-10.5): the game ends at the limit, the rest
    /// of the log is not part of it (the engine's [`Replay`] says so).
    ///
    /// `deadlines` says how the timers start again: each with its
    /// full duration from now, or where it was, from the stored times of the
    /// actions that set it (a deadline already past then fires at once).
    ///
    /// # Errors
    /// [`RestoreError`]: a gap in the log, or the engine's refusal of an action (or
    /// of the options), naming its index.
    pub(crate) fn restore(
        record: GameRecord,
        actions: &[ActionRecord],
        settings: Arc<RoomSettings>,
        metrics: Arc<Metrics>,
        now: Now,
        deadlines: Deadlines,
    ) -> Result<Restored, RestoreError> {
        let g = &record.game;
        if let Some(i) = (0..actions.len()).find(|&i| actions[i].seq != i as u64) {
            return Err(RestoreError::Gap(i));
        }
        let mut replay = Replay::new(
            g.options.game,
            g.seed,
            actions.iter().map(|a| (a.actor(), a.action)),
        )?;
        // Continued deadlines are followed through the log, each action at its time.
        let mut timers = Timers::default();
        let continued = deadlines == Deadlines::Continue;
        if continued {
            timers.follow(replay.game(), &g.options, now.at_unix(g.started_at));
        }
        let mut tally = Tally::default();
        let mut clock = g
            .options
            .days
            .map(|d| clock::Clock::new(d, replay.game(), g.started_at));
        // Not a `for` loop: the game between steps is read (`replay.game()`).
        #[allow(clippy::while_let_on_iterator)]
        while let Some(step) = replay.next() {
            let step = step?;
            if continued {
                let then = now.at_unix(actions[step.index].at);
                timers.track(&step.events, &g.options, None, then);
                timers.follow(replay.game(), &g.options, then);
            }
            tally.record(&step.events);
            if let Some(clock) = clock.as_mut() {
                let a = &actions[step.index];
                clock.record(a.seat, &a.action, a.stand_in, replay.game(), a.at);
            }
        }
        let played = replay.played();
        if replay.went_past_the_limit() {
            tracing::warn!(
                room = %g.id,
                turn = replay.game().turn(),
                ignored = actions.len() - played,
                "the stored log goes on past the turn limit (written before it existed); the game ends at the limit"
            );
        }
        let game = replay.into_game();
        // Broadcasts go on numbered after every number the room may have used; a
        // room that slept, from exactly where it stopped (protocol 27.5).
        let seq = record.slept_seq.unwrap_or_else(|| {
            restored_seq(
                record.seq_reserved,
                actions.last().map_or(0, |a| a.room_seq),
            )
        });
        let actions = &actions[..played];
        let host = TokenHash::from_stored(g.host_token_hash.clone());
        let bot_tokens = if game.is_over() {
            seats::BotTokens::Kept
        } else {
            seats::BotTokens::Fresh
        };
        let (seats, bots) =
            Seats::restored(host, record.players.len(), &record.players, bot_tokens);
        if !continued {
            timers.restore_offers(&game, &g.options, now);
            timers.follow(&game, &g.options, now);
        }
        metrics.room_moved(None, Some(RoomStatus::Playing));
        let m = Match::restored(
            game,
            tally,
            actions,
            g.seed_salt.clone(),
            g.seed_commitment.clone(),
            clock,
        );
        let mut room = Room {
            id: g.id,
            options: g.options,
            created_at: g.created_at,
            seats,
            stage: Stage::Playing {
                game: Box::new(m),
                timers,
            },
            conns: Conns::new(record.players.len()),
            outbox: Outbox::new(seq, settings.rooms.event_backlog),
            life: Life::new(now),
            settings,
            metrics,
        };
        // Finished when the action that ended the game was stored: at that action's
        // time.
        let finish = room.finish_if_over().map(|f| Finish {
            finished_at: actions.last().map_or(f.finished_at, |a| a.at),
            ..f
        });
        Ok(Restored { room, bots, finish })
    }

    /// Brings back a room that was gathering players: its seats (people keep their
    /// tokens; bots get fresh ones, returned to start them with), broadcasts numbered
    /// past every number its previous run may have used.
    pub(crate) fn from_lobby(
        record: &LobbyRecord,
        settings: Arc<RoomSettings>,
        metrics: Arc<Metrics>,
        now: Now,
    ) -> (Room, Vec<(String, BotKind)>) {
        metrics.room_moved(None, Some(RoomStatus::Lobby));
        let players = usize::from(record.options.game.players);
        let host = TokenHash::from_stored(record.host_token_hash.clone());
        let (seats, bots) =
            Seats::restored(host, players, &record.players, seats::BotTokens::Fresh);
        let room = Room {
            id: record.id,
            options: record.options,
            created_at: record.created_at,
            seats,
            stage: Stage::Lobby,
            conns: Conns::new(players),
            outbox: Outbox::new(restored_seq(None, record.seq), settings.rooms.event_backlog),
            life: Life::new(now),
            settings,
            metrics,
        };
        (room, bots)
    }

    /// The sequence number of the last broadcast.
    pub(crate) fn seq(&self) -> u64 {
        self.outbox.seq()
    }

    /// The room's id.
    pub(crate) fn id(&self) -> Uuid {
        self.id
    }

    /// The signed-in players holding a seat while the room gathers; none once its
    /// game started.
    pub(crate) fn gathering_players(&self) -> Vec<(uuid::Uuid, Seat)> {
        if self.status() == RoomStatus::Lobby {
            self.seats.players()
        } else {
            Vec::new()
        }
    }

    /// Lobby, playing or finished.
    pub(crate) fn status(&self) -> RoomStatus {
        self.stage.status()
    }

    /// The room's options.
    pub(crate) fn options(&self) -> &RoomOptions {
        &self.options
    }

    /// Sets the time of the command about to be served; `activity` marks it as more
    /// than a read, which keeps the room from being closed as idle.
    pub(crate) fn at(&mut self, now: Now, activity: bool) {
        self.life.at(now, activity);
    }

    /// The time of the command being served.
    fn now(&self) -> Now {
        self.life.now()
    }

    /// What the task is to deliver since it last asked, in order.
    pub(crate) fn take_outbox(&mut self) -> Vec<Out> {
        self.outbox.take()
    }

    /// Changes the stage, keeping the rooms-by-status gauge in step.
    fn set_stage(&mut self, stage: Stage) {
        self.metrics
            .room_moved(Some(self.stage.status()), Some(stage.status()));
        self.stage = stage;
    }

    /// The room's public description.
    pub(crate) fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id,
            status: self.status(),
            options: self.options,
            seats: self
                .seats
                .occupants()
                .map(|(seat, occupant)| SeatInfo {
                    seat,
                    occupant: occupant.cloned(),
                    connected: self.conns.of_seat(seat).is_some(),
                    stand_in: self.conns.stand_in_of(seat).is_some(),
                })
                .collect(),
            created_at: self.created_at,
            seed_commitment: self.stage.game().map(|m| m.seed_commitment().to_owned()),
        }
    }

    /// Everything `seat` (or a spectator) may know, to start from.
    fn snapshot(&self, seat: Option<Seat>) -> Snapshot {
        let sent = self.deadlines();
        Snapshot {
            protocol_version: catan_protocol::PROTOCOL_VERSION,
            room: self.info(),
            you: seat,
            seq: self.outbox.seq(),
            view: self.stage.game().map(|m| m.game().view(seat)),
            legal: self.legal_for(seat),
            deadline: sent.deadline,
            offer_deadlines: sent.offers,
            clocks: sent.clocks,
            game_over: self.stage.over().cloned(),
            rematch: self.stage.rematch(),
        }
    }

    /// The legal actions of `seat` (none for spectators and outside a game).
    pub(super) fn legal_for(&self, seat: Option<Seat>) -> Vec<catan_engine::Action> {
        self.stage.legal_for(seat)
    }

    /// When the room is to be closed for being idle: no game in progress, nobody
    /// connected, and no request for `--idle-room-secs` (0: never); shorter once the
    /// game is over, so that a busy server does not hold finished games for long.
    pub(crate) fn idle_deadline(&self) -> Option<Instant> {
        let secs = self.idle_secs();
        if secs == 0 || self.status() == RoomStatus::Playing || self.people_connected() {
            return None;
        }
        Some(self.life.last_activity().at + Duration::from_secs(secs))
    }

    /// When the game in progress is to be ended as abandoned: once no person has
    /// been connected to a seat for `--abandon-after-secs` (0: never). Bots and
    /// spectators do not count. Never for a game over days.
    pub(crate) fn abandon_deadline(&self) -> Option<Instant> {
        let secs = self.settings.rooms.abandon_after_secs;
        let seated = self
            .seats
            .occupants()
            .any(|(s, _)| self.seats.is_person(s) && self.conns.of_seat(s).is_some());
        // A game over days is played by people who are mostly away.
        if secs == 0
            || self.status() != RoomStatus::Playing
            || seated
            || self.options.days.is_some()
        {
            return None;
        }
        Some(self.life.people_left_at().at + Duration::from_secs(secs))
    }

    /// When the room may go to sleep (a game over days, `--sleep-after-secs`,
    /// protocol 27.5): once no person or spectator has been connected and nothing
    /// but reads came for that long; never while a move is due within
    /// [`SLEEP_MARGIN`] of then (a bot making a move counts: its deadline passed).
    pub(crate) fn sleep_deadline(&self) -> Option<Instant> {
        if !self.settings.sleeps
            || self.options.days.is_none()
            || self.status() != RoomStatus::Playing
            || self.people_connected()
        {
            return None;
        }
        let after = Duration::from_secs(self.settings.rooms.sleep_after_secs);
        let at = self.life.last_activity().at + after;
        let m = self.stage.game()?;
        let due = m.clock()?.deadlines(m.game());
        let now = self.now();
        let soonest = due.iter().map(|(_, ms)| now.at_unix(*ms).at).min();
        if soonest.is_some_and(|d| d < at + SLEEP_MARGIN) {
            return None;
        }
        Some(at)
    }

    /// Notes that `seat` lost its connection: if a person sits there, the time
    /// without people may start now.
    fn seat_left(&mut self, seat: Seat) {
        if self.seats.is_person(seat) {
            self.life.people_left();
        }
    }

    /// How long the room may stay without people: `--finished-room-secs` once the
    /// game is over, at most `--empty-room-secs` while no seat is taken.
    pub(crate) fn idle_secs(&self) -> u64 {
        let c = &self.settings.rooms;
        match self.status() {
            RoomStatus::Finished => c.finished_room_secs,
            RoomStatus::Lobby if self.seats.none_taken() => {
                match (c.idle_room_secs, c.empty_room_secs) {
                    (0, empty) => empty,
                    (idle, 0) => idle,
                    (idle, empty) => idle.min(empty),
                }
            }
            // A game over days gathers its players over days too.
            RoomStatus::Lobby if self.options.days.is_some() && c.idle_room_secs > 0 => {
                c.idle_room_secs.max(DAYS_LOBBY_IDLE_SECS)
            }
            _ => c.idle_room_secs,
        }
    }

    /// Whether a person (a human seat's client, or a spectator) is connected; bots
    /// (stand-ins too) do not keep a room alive.
    fn people_connected(&self) -> bool {
        self.conns.any(|s| self.seats.is_person(s))
    }
}

/// The sequence number a restored room starts from (its next broadcast takes the
/// one after): one past every number its previous run may have used, that is past
/// the reservation stored (`reserved`) and the last stored action's (`last`); with no
/// reservation stored, a block past the last action. The number itself is never
/// sent, so a client resuming with any `last_seq` of the previous run gets a
/// snapshot, never a `resumed` that skips what was broadcast since.
fn restored_seq(reserved: Option<u64>, last: u64) -> u64 {
    reserved.map_or(last + SEQ_BLOCK, |r| r.max(last)) + 1
}

/// The seat at index `i` (rooms have at most four).
fn seat_at(i: usize) -> Seat {
    Seat(u8::try_from(i).unwrap_or(0))
}
