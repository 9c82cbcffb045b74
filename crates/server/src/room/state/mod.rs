//! The room's rules of play as a synchronous state machine: seats, the start, actions,
//! trade offers and deadlines, game over. No sockets, no store and no runtime: the
//! room task (`super::task`) hands it each command with the time, performs the store
//! writes it asks for, and delivers what it leaves in its outbox.
//!
//! # Layout
//! - this file: the [`Room`], its [`Stage`] (lobby, playing, finished) and what every
//!   part reads (the public description, snapshots, what administrators see);
//! - `lobby`: seats and the start;
//! - `conns`: connections attached to the room, resuming from a sequence number;
//! - `play`: actions, staged until stored, and game over;
//! - `timers`: the phase timer, the expiry of trade offers and the countdowns of
//!   absent people's decisions;
//! - `stand_in`: bots that play the seat of a person who is away;
//! - `outbox`: numbered broadcasts, the reconnect backlog and what goes to whom.

mod admin;
mod conns;
mod game;
mod lobby;
mod outbox;
mod play;
mod stand_in;
mod timers;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use catan_engine::{Replay, Seat, Tally};
use tokio::time::Instant;
use uuid::Uuid;

use super::RoomSettings;
use super::{ConnId, Deadlines};
use crate::metrics::Metrics;
use crate::store::{self, ActionRecord, Finish, GameRecord};
use crate::token;
use catan_protocol::{
    BotKind, HistoryChat, Occupant, PROTOCOL_VERSION, RoomInfo, RoomOptions, RoomStatus, SeatInfo,
    Snapshot,
};

pub(crate) use lobby::RematchPlan;
pub(crate) use outbox::Out;
pub(crate) use play::Staged;
pub(crate) use timers::Timer;

pub(crate) use game::{Match, Stage};
use outbox::Logged;
use timers::Timers;

/// Sequence numbers a room reserves in the store at a time, ahead of its counter
/// (see `SeqReservation` in the room task); also how far past its last stored
/// action a game with no reservation stored is restored.
pub(crate) const SEQ_BLOCK: u64 = 1000;

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
    /// This moment, from both clocks.
    pub(crate) fn real() -> Now {
        Now {
            at: Instant::now(),
            unix_ms: now_ms(),
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

/// One seat of the room.
#[derive(Debug, Default)]
struct SeatState {
    /// Who sits here.
    occupant: Option<Occupant>,
    /// SHA-256 of the seat's secret token (the token itself is never kept).
    token_hash: Option<String>,
    /// The connection currently attached to the seat.
    conn: Option<ConnId>,
    /// The connection of the bot standing in for the seat's absent person, while
    /// one does ([`Room::start_stand_in`]); not the seat's own `conn`.
    stand_in: Option<ConnId>,
}

/// One attached connection, as the room knows it (its socket is the task's).
#[derive(Debug, Clone, Copy)]
struct ConnMeta {
    /// Its seat, `None` for spectators.
    seat: Option<Seat>,
    /// A client of this process (a built-in bot): sent typed messages, not text.
    in_process: bool,
    /// A bot standing in for the seat's absent person: not the seat's connection.
    stand_in: bool,
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

/// One room: its seats, its game and its connections, driven by the room task.
pub(crate) struct Room {
    /// The room's id.
    id: Uuid,
    /// The room's settled options.
    options: RoomOptions,
    /// Creation time, Unix ms.
    created_at: u64,
    /// SHA-256 of the secret for host-only calls.
    host_token_hash: String,
    /// Lobby, playing or finished, with what each holds.
    stage: Stage,
    /// Seats, `options.game.players` long.
    seats: Vec<SeatState>,
    /// The room of the rematch, once someone asked for one after the game.
    rematch: Option<Uuid>,
    /// Sequence number of the last message broadcast.
    seq: u64,
    /// Sequence number of the last broadcast that moved the game on (events): an
    /// action chosen before it may no longer apply.
    game_seq: u64,
    /// The last `event_backlog` broadcasts, for reconnects.
    backlog: VecDeque<(u64, Logged)>,
    /// The last [`outbox::CHAT_KEPT`] chat lines, for `history` (the backlog drops
    /// chat older than its oldest other broadcast).
    chat_kept: VecDeque<HistoryChat>,
    /// Attached connections.
    conns: HashMap<ConnId, ConnMeta>,
    /// Next connection id.
    next_conn: ConnId,
    /// Seats whose connection went away, announced once the current command is done
    /// (a connection dropped in the middle of a broadcast must not interleave a
    /// `presence` message between the seats of that broadcast).
    gone: Vec<Seat>,
    /// Seats whose stand-in's connection went away, announced like `gone`.
    stand_ins_gone: Vec<Seat>,
    /// What the task is to deliver, in order.
    outbox: Vec<Out>,
    /// The time of the command being served.
    now: Now,
    /// When the room last served a request other than a read (for idle clean-up).
    last_activity: Now,
    /// When the last person in a seat went away (or the game started, or was
    /// restored), for ending abandoned games.
    people_left_at: Now,
    /// Limits: the backlog's length, idle times.
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
        Room {
            id,
            created_at: now.unix_ms,
            host_token_hash: store::sha256_hex(host_token),
            seats: (0..options.game.players)
                .map(|_| SeatState::default())
                .collect(),
            options,
            ..Room::blank(settings, metrics, now)
        }
    }

    /// A room in the lobby with no seats, nobody connected and nothing sent: what
    /// [`Room::new`] and [`Room::restore`] fill in.
    fn blank(settings: Arc<RoomSettings>, metrics: Arc<Metrics>, now: Now) -> Room {
        Room {
            id: Uuid::nil(),
            options: RoomOptions::default(),
            created_at: now.unix_ms,
            host_token_hash: String::new(),
            stage: Stage::Lobby,
            seats: Vec::new(),
            rematch: None,
            seq: 0,
            game_seq: 0,
            backlog: VecDeque::new(),
            chat_kept: VecDeque::new(),
            conns: HashMap::new(),
            next_conn: 1,
            gone: Vec::new(),
            stand_ins_gone: Vec::new(),
            outbox: Vec::new(),
            now,
            last_activity: now,
            people_left_at: now,
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
    /// A description of the first action the engine refuses (a corrupt log).
    pub(crate) fn restore(
        record: GameRecord,
        actions: &[ActionRecord],
        settings: Arc<RoomSettings>,
        metrics: Arc<Metrics>,
        now: Now,
        deadlines: Deadlines,
    ) -> Result<Restored, String> {
        let g = &record.game;
        if let Some(i) = (0..actions.len()).find(|&i| actions[i].seq != i as u64) {
            return Err(format!("action log has a gap at {i}"));
        }
        let mut replay = Replay::new(
            g.options.game,
            g.seed,
            actions.iter().map(|a| (a.actor(), a.action)),
        )
        .map_err(|e| e.to_string())?;
        // Continued deadlines are followed through the log, each action at its time.
        let mut timers = Timers::default();
        let continued = deadlines == Deadlines::Continue;
        if continued {
            timers.follow(replay.game(), &g.options, now.at_unix(g.started_at));
        }
        let mut tally = Tally::default();
        let initial = replay.game().clone();
        while let Some(step) = replay.next() {
            let step = step.map_err(|e| e.to_string())?;
            if continued {
                let then = now.at_unix(actions[step.index].at);
                timers.track(&step.events, g.options.trade_timeout_secs, then);
                timers.follow(replay.game(), &g.options, then);
            }
            tally.record(&step.events);
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
        // Broadcasts go on numbered after every number the room may have used.
        let seq = restored_seq(
            record.seq_reserved,
            actions.last().map_or(0, |a| a.room_seq),
        );
        let actions = &actions[..played];
        let over = game.is_over();
        let mut bots = Vec::new();
        let seats = record
            .players
            .iter()
            .map(|p| {
                let token_hash = match p.bot {
                    Some(kind) if !over => {
                        let t = token::new_token();
                        let h = store::sha256_hex(&t);
                        bots.push((t, kind));
                        h
                    }
                    _ => p.token_hash.clone(),
                };
                SeatState {
                    occupant: Some(Occupant {
                        name: p.name.clone(),
                        bot: p.bot,
                    }),
                    token_hash: Some(token_hash),
                    conn: None,
                    stand_in: None,
                }
            })
            .collect();
        if !continued {
            timers.restore_offers(&game, g.options.trade_timeout_secs, now);
            timers.follow(&game, &g.options, now);
        }
        metrics.room_moved(None, Some(RoomStatus::Playing));
        let mut room = Room {
            id: g.id,
            options: g.options,
            created_at: g.created_at,
            host_token_hash: g.host_token_hash.clone(),
            stage: Stage::Playing {
                game: Box::new(Match {
                    initial,
                    game,
                    seed_salt: g.seed_salt.clone(),
                    seed_commitment: g.seed_commitment.clone(),
                    tally,
                    log: actions
                        .iter()
                        .map(|a| (a.room_seq, a.actor(), a.action))
                        .collect(),
                }),
                timers,
            },
            seats,
            seq,
            game_seq: seq,
            ..Room::blank(settings, metrics, now)
        };
        // Finished when the action that ended the game was stored: at that action's
        // time.
        let finish = room.finish_if_over().map(|f| Finish {
            finished_at: actions.last().map_or(f.finished_at, |a| a.at),
            ..f
        });
        Ok(Restored { room, bots, finish })
    }

    /// The sequence number of the last broadcast.
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// The room's id.
    pub(crate) fn id(&self) -> Uuid {
        self.id
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
        self.now = now;
        if activity {
            self.last_activity = now;
        }
    }

    /// What the task is to deliver since it last asked, in order.
    pub(crate) fn take_outbox(&mut self) -> Vec<Out> {
        std::mem::take(&mut self.outbox)
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
                .iter()
                .enumerate()
                .map(|(i, s)| SeatInfo {
                    seat: seat_at(i),
                    occupant: s.occupant.clone(),
                    connected: s.conn.is_some(),
                    stand_in: s.stand_in.is_some(),
                })
                .collect(),
            created_at: self.created_at,
            seed_commitment: self.stage.game().map(|m| m.seed_commitment.clone()),
        }
    }

    /// Everything `seat` (or a spectator) may know, to start from.
    fn snapshot(&self, seat: Option<Seat>) -> Snapshot {
        let (deadline, offer_deadlines) = self.deadlines();
        Snapshot {
            protocol_version: PROTOCOL_VERSION,
            room: self.info(),
            you: seat,
            seq: self.seq,
            view: self.stage.game().map(|m| m.game.view(seat)),
            legal: self.legal_for(seat),
            deadline,
            offer_deadlines,
            game_over: match &self.stage {
                Stage::Finished { over, .. } => Some(over.clone()),
                _ => None,
            },
            rematch: self.rematch,
        }
    }

    /// When the room is to be closed for being idle: no game in progress, nobody
    /// connected, and no request for `--idle-room-secs` (0: never); shorter once the
    /// game is over, so that a busy server does not hold finished games for long.
    pub(crate) fn idle_deadline(&self) -> Option<Instant> {
        let secs = self.idle_secs();
        if secs == 0 || self.status() == RoomStatus::Playing || self.people_connected() {
            return None;
        }
        Some(self.last_activity.at + Duration::from_secs(secs))
    }

    /// When the game in progress is to be ended as abandoned: once no person has
    /// been connected to a seat for `--abandon-after-secs` (0: never). Bots and
    /// spectators do not count.
    pub(crate) fn abandon_deadline(&self) -> Option<Instant> {
        let secs = self.settings.rooms.abandon_after_secs;
        let seated = self.seats.iter().any(|s| s.conn.is_some() && is_person(s));
        if secs == 0 || self.status() != RoomStatus::Playing || seated {
            return None;
        }
        Some(self.people_left_at.at + Duration::from_secs(secs))
    }

    /// Notes that `seat` lost its connection: if a person sits there, the time
    /// without people may start now.
    fn seat_left(&mut self, seat: Seat) {
        if is_person(&self.seats[seat.index()]) {
            self.people_left_at = self.now;
        }
    }

    /// How long the room may stay without people: `--finished-room-secs` once the
    /// game is over, at most `--empty-room-secs` while no seat is taken.
    pub(crate) fn idle_secs(&self) -> u64 {
        let c = &self.settings;
        match self.status() {
            RoomStatus::Finished => c.rooms.finished_room_secs,
            RoomStatus::Lobby if self.seats.iter().all(|s| s.occupant.is_none()) => {
                match (c.rooms.idle_room_secs, c.rooms.empty_room_secs) {
                    (0, empty) => empty,
                    (idle, 0) => idle,
                    (idle, empty) => idle.min(empty),
                }
            }
            _ => c.rooms.idle_room_secs,
        }
    }

    /// Whether a person (a human seat's client, or a spectator) is connected; bots
    /// (stand-ins too) do not keep a room alive.
    fn people_connected(&self) -> bool {
        self.conns.values().any(|c| match c.seat {
            None => true,
            Some(_) if c.stand_in => false,
            Some(s) => self.seats[s.index()]
                .occupant
                .as_ref()
                .is_some_and(|o| o.bot.is_none()),
        })
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

/// Whether a person (not a built-in bot) sits in `seat`.
fn is_person(seat: &SeatState) -> bool {
    seat.occupant.as_ref().is_some_and(|o| o.bot.is_none())
}

/// The seat at index `i` (rooms have at most four).
fn seat_at(i: usize) -> Seat {
    Seat(u8::try_from(i).unwrap_or(0))
}
