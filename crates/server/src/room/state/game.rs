//! The room's game: the stages of its life and the started game with its log.

use catan_engine::{Action, Actor, Event, Game, GameView, Replay, Seat, Tally};
use catan_protocol::{GameOverInfo, RoomStatus};

use super::timers::Timers;

/// A started game and what was committed to at its start.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    /// The game itself.
    pub(super) game: Game,
    /// Salt of the seed commitment, revealed at game over.
    pub(super) seed_salt: String,
    /// Published commitment to the seed.
    pub(super) seed_commitment: String,
    /// The statistics of the game so far, for its `game_over` (hidden information
    /// until then: never shown during the game).
    pub(super) tally: Tally,
    /// The game as it started, from which [`Match::log`] replays it: the room
    /// rebuilds a seat's history from these (`history`, protocol.md 5.1.5) rather
    /// than keep every event.
    pub(super) initial: Game,
    /// Every action accepted and stored so far, in order, with the `seq` of the
    /// broadcast that announced it (its index is its number in the stored log).
    pub(super) log: Vec<(u64, Actor, Action)>,
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
            self.initial.clone(),
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

    /// A game just started (or restored, `log` being what the store replayed).
    pub(super) fn new(game: Game, seed_salt: String, seed_commitment: String) -> Match {
        Match {
            initial: game.clone(),
            game,
            seed_salt,
            seed_commitment,
            log: Vec::new(),
            tally: Tally::default(),
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
}
