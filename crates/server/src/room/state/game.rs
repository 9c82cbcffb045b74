//! The room's game: the stages of its life ([`Stage`]) and the started game with
//! its log ([`Match`]). Only here does a game move on or a stage change.

use catan_engine::{Action, Actor, Event, Game, GameView, Replay, Seat, Tally};
use catan_protocol::{DaysOptions, GameOverInfo, RoomOptions, RoomStatus};
use uuid::Uuid;

use super::Now;
use super::clock::Clock;
use super::timers::Timers;
use crate::store::{ActionRecord, Finish, Place};
use catan_ratings::{Seated, Turns};

/// A started game and what was committed to at its start.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    /// The game itself.
    game: Game,
    /// Salt of the seed commitment, revealed at game over.
    seed_salt: String,
    /// Published commitment to the seed.
    seed_commitment: String,
    /// The statistics of the game so far, for its `game_over` (hidden information
    /// until then: never shown during the game).
    tally: Tally,
    /// Every action accepted and stored so far, in order, with the `seq` of the
    /// broadcast that announced it (its index is its number in the stored log).
    log: Vec<(u64, Actor, Action)>,
    /// Each seat's turns and those a stand-in played, for the places of a rated
    /// game (from the stored log's `stand_in` marks after a restore).
    turns: Turns,
    /// In a game over days, the seats' clocks, a fold over the log's times.
    clock: Option<Clock>,
}

impl Match {
    /// The engine's view of `seat` now, or as of broadcast `at_seq`: the game replayed
    /// from its start through every action announced at or before it.
    pub(crate) fn view_at(&self, seat: Seat, at_seq: Option<u64>) -> GameView {
        match at_seq {
            None => self.game.view(Some(seat)),
            Some(at) => self.replay(Some(at), |_, _| {}).view(Some(seat)),
        }
    }

    /// Replays the log from the game's start through every action announced at or
    /// before broadcast `up_to` (all of them: `None`), handing each action's `seq`
    /// and events to `each`; returns the game as it then stands.
    pub(super) fn replay(&self, up_to: Option<u64>, mut each: impl FnMut(u64, &[Event])) -> Game {
        let upto = up_to.unwrap_or(u64::MAX);
        let log = self.log.iter().take_while(|(seq, ..)| *seq <= upto);
        let mut replay = Replay::from_game(
            self.initial(),
            log.map(|&(_, actor, action)| (actor, action)),
        );
        for step in replay.by_ref() {
            match step {
                Ok(step) => each(self.log[step.index].0, &step.events),
                Err(e) => {
                    // The log is the game: it replayed once already. Say so and give
                    // what there is.
                    let seq = e.index().map(|i| self.log[i].0);
                    tracing::error!(?seq, code = e.code(), "the room's log does not replay");
                }
            }
        }
        replay.into_game()
    }

    /// The game as it started, from which [`Match::log`] replays it: the room
    /// rebuilds a seat's history from these (`history`, protocol.md 5.1.5) rather
    /// than keep every event. Made again from the game's options and seed (the engine
    /// is deterministic; every game starts as `Game::new` makes it), not kept: some
    /// 800 bytes of every room.
    fn initial(&self) -> Game {
        Game::new(*self.game.options(), self.game.seed())
            .expect("the options of a game in play are valid")
    }

    /// A game just started at `started_at` (Unix ms), with the clocks of `days`
    /// for a game over days.
    pub(super) fn new(
        game: Game,
        seed_salt: String,
        seed_commitment: String,
        days: Option<DaysOptions>,
        started_at: u64,
    ) -> Match {
        Match {
            clock: days.map(|d| Clock::new(d, &game, started_at)),
            game,
            seed_salt,
            seed_commitment,
            log: Vec::new(),
            tally: Tally::default(),
            turns: Turns::default(),
        }
    }

    /// A game restored from the store: its start replayed through `actions` (the
    /// stored log) is `game`, whose events were `tally`'s; the clocks of a game
    /// over days, `clock`, were folded over the same log.
    pub(super) fn restored(
        game: Game,
        tally: Tally,
        actions: &[ActionRecord],
        seed_salt: String,
        seed_commitment: String,
        clock: Option<Clock>,
    ) -> Match {
        let mut turns = Turns::default();
        for a in actions {
            turns.record(a.seat, &a.action, a.stand_in);
        }
        Match {
            game,
            seed_salt,
            seed_commitment,
            tally,
            log: actions
                .iter()
                .map(|a| (a.room_seq, a.actor(), a.action))
                .collect(),
            turns,
            clock,
        }
    }

    /// The seats' clocks of a game over days.
    pub(crate) fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// The game as it stands.
    pub(crate) fn game(&self) -> &Game {
        &self.game
    }

    /// The published commitment to the seed.
    pub(super) fn seed_commitment(&self) -> &str {
        &self.seed_commitment
    }

    /// Every action committed so far, with the number of its broadcast.
    pub(super) fn log(&self) -> &[(u64, Actor, Action)] {
        &self.log
    }

    /// Takes an action the store has into the game: `game` is the game after it,
    /// announced by broadcast `room_seq`.
    fn commit(&mut self, game: Game, record: &ActionRecord, events: &[Event], room_seq: u64) {
        self.game = game;
        self.tally.record(events);
        self.log.push((room_seq, record.actor(), record.action));
        self.turns
            .record(record.seat, &record.action, record.stand_in);
        if let Some(clock) = self.clock.as_mut() {
            clock.record(
                record.seat,
                &record.action,
                record.stand_in,
                &self.game,
                record.at,
            );
        }
    }

    /// The result of `game` (this match's game, or the game after `staged`, an
    /// action not committed yet) if it is over, finished at `at` (Unix ms); in a
    /// rated room with every seat's place.
    pub(super) fn finish_of(
        &self,
        game: &Game,
        staged: Option<&ActionRecord>,
        at: u64,
        rated: bool,
    ) -> Option<Finish> {
        if !game.is_over() {
            return None;
        }
        let scores = game.final_scores();
        let rated = rated.then(|| {
            let mut turns = self.turns.clone();
            if let Some(a) = staged {
                turns.record(a.seat, &a.action, a.stand_in);
            }
            let seated: Vec<Seated> = scores
                .iter()
                .map(|s| {
                    let (played, stood_in) = turns.of(s.seat);
                    Seated {
                        seat: s.seat,
                        points: s.points,
                        turns: played,
                        stood_in,
                        timed_out: self.clock.as_ref().is_some_and(|c| c.replaced(s.seat)),
                    }
                })
                .collect();
            let places = catan_ratings::places(game.winner(), &seated);
            seated
                .iter()
                .zip(places)
                .map(|(s, place)| Place {
                    seat: s.seat,
                    place,
                    turns: s.turns,
                    stood_in: s.stood_in,
                })
                .collect()
        });
        Some(Finish {
            winner: game.winner(),
            finished_at: at,
            scores,
            rated,
        })
    }

    /// The result of the game as broadcast at its end, numbered `seq`: the seed and
    /// its salt revealed, the statistics.
    fn over(&self, seq: u64, finish: &Finish) -> GameOverInfo {
        GameOverInfo {
            seq,
            winner: finish.winner,
            scores: finish.scores.clone(),
            seed: self.game.seed().to_string(),
            seed_salt: self.seed_salt.clone(),
            stats: self.tally.stats(&self.game),
        }
    }

    /// Actions accepted and stored so far: the number of the next one.
    pub(super) fn actions(&self) -> u64 {
        self.log.len() as u64
    }
}

/// Where the room is in its life; each stage holds exactly what exists in it.
#[derive(Debug)]
pub(crate) enum Stage {
    /// Seats are being taken; there is no game yet.
    Lobby,
    /// A game is being played; its timers run.
    Playing {
        /// The game.
        game: Box<Match>,
        /// The phase deadline and the expiry of each open offer.
        timers: Timers,
    },
    /// The game is over; the room stays for reconnects and late readers.
    Finished {
        /// The game as it ended.
        game: Box<Match>,
        /// Its result, as broadcast.
        over: GameOverInfo,
        /// The room of the rematch, once someone asked for one.
        rematch: Option<Uuid>,
    },
}

impl Stage {
    /// The status clients see.
    pub(super) fn status(&self) -> RoomStatus {
        match self {
            Stage::Lobby => RoomStatus::Lobby,
            Stage::Playing { .. } => RoomStatus::Playing,
            Stage::Finished { .. } => RoomStatus::Finished,
        }
    }

    /// The game, once started.
    pub(super) fn game(&self) -> Option<&Match> {
        match self {
            Stage::Lobby => None,
            Stage::Playing { game, .. } | Stage::Finished { game, .. } => Some(game),
        }
    }

    /// A game starting now: its first phase's deadline set from `options`.
    pub(super) fn playing(game: Match, options: &RoomOptions, now: Now) -> Stage {
        let mut timers = Timers::default();
        timers.follow(&game.game, options, now);
        Stage::Playing {
            game: Box::new(game),
            timers,
        }
    }

    /// The legal actions of `seat` (none for spectators and outside a game).
    pub(super) fn legal_for(&self, seat: Option<Seat>) -> Vec<Action> {
        match (self, seat) {
            (Stage::Playing { game, .. }, Some(s)) => game.game.legal_actions(s),
            _ => Vec::new(),
        }
    }

    /// The deadlines of the game in progress.
    pub(super) fn timers(&self) -> Option<&Timers> {
        match self {
            Stage::Playing { timers, .. } => Some(timers),
            _ => None,
        }
    }

    /// The deadlines of the game in progress, to change.
    pub(super) fn timers_mut(&mut self) -> Option<&mut Timers> {
        match self {
            Stage::Playing { timers, .. } => Some(timers),
            _ => None,
        }
    }

    /// Stops every deadline (the room is closing).
    pub(super) fn stop_timers(&mut self) {
        if let Some(t) = self.timers_mut() {
            *t = Timers::default();
        }
    }

    /// Takes a stored action into the game in progress (`game` is the game after
    /// it, announced by broadcast `room_seq`); its deadlines follow (an offer's
    /// with the seconds its author gave it, if any). False outside a game in
    /// progress (nothing changes).
    pub(super) fn commit(
        &mut self,
        game: Game,
        record: &ActionRecord,
        events: &[Event],
        room_seq: u64,
        (options, offer_secs): (&RoomOptions, Option<u32>),
        now: Now,
    ) -> bool {
        let Stage::Playing { game: m, timers } = self else {
            return false;
        };
        m.commit(game, record, events, room_seq);
        timers.track(events, options, offer_secs, now);
        timers.follow(&m.game, options, now);
        true
    }

    /// Ends a game in progress that is over: the stage moves to
    /// finished with its `game_over`, numbered `seq`. The result, or nothing when no
    /// game in progress is over.
    pub(super) fn finish(
        &mut self,
        seq: u64,
        at: u64,
        rated: bool,
    ) -> Option<(Finish, GameOverInfo)> {
        let Stage::Playing { game: m, .. } = self else {
            return None;
        };
        let finish = m.finish_of(&m.game, None, at, rated)?;
        let over = m.over(seq, &finish);
        let Stage::Playing { game, .. } = std::mem::replace(self, Stage::Lobby) else {
            unreachable!("the stage was just matched as playing")
        };
        *self = Stage::Finished {
            game,
            over: over.clone(),
            rematch: None,
        };
        Some((finish, over))
    }

    /// The result broadcast at the end of the game.
    pub(super) fn over(&self) -> Option<&GameOverInfo> {
        match self {
            Stage::Finished { over, .. } => Some(over),
            _ => None,
        }
    }

    /// The room of the rematch, once made.
    pub(super) fn rematch(&self) -> Option<Uuid> {
        match self {
            Stage::Finished { rematch, .. } => *rematch,
            _ => None,
        }
    }

    /// Records the room of the rematch (only after the game).
    pub(super) fn set_rematch(&mut self, id: Uuid) {
        if let Stage::Finished { rematch, .. } = self {
            *rematch = Some(id);
        }
    }
}
