//! Replaying a log: the one way a game is rebuilt from its start and the actions that
//! were accepted, for whoever keeps a log (a server restoring a room, showing its
//! history or a seat's view as of an earlier moment, or a finished game's replay).
//!
//! Every action of a log was accepted once, so a refusal means the log is not this
//! game's: the replay stops with a [`ReplayError`] naming the action's index and the
//! engine's refusal. One rule is about logs rather than play (R-10.5): a log written
//! before the turn limit existed may go on past it, since such games went on; the game
//! ends at the limit and the rest of the log is not part of it ([`Replay::went_past_the_limit`]).
//! After a win, by contrast, a further action is refused like any other.
//!
//! ```
//! use catan_engine::playout::RandomPlayer;
//! use catan_engine::{Action, Actor, Game, GameOptions, Replay};
//!
//! // Play a little, keeping the log.
//! let mut game = Game::new(GameOptions::default(), 5).unwrap();
//! let mut player = RandomPlayer::new(5);
//! let mut log: Vec<(Actor, Action)> = Vec::new();
//! while game.turn() < 3 {
//!     let (seat, action) = player.step(&mut game, &mut Vec::new()).unwrap();
//!     log.push((Actor::Seat(seat), action));
//! }
//!
//! // The log rebuilds the same game, action by action.
//! let mut replay = Replay::new(GameOptions::default(), 5, log.iter().copied()).unwrap();
//! assert_eq!(replay.game().turn(), 0, "the game as it started");
//! while let Some(step) = replay.next() {
//!     let step = step.unwrap();
//!     assert_eq!(log[step.index].1, step.action);
//! }
//! assert_eq!(replay.played(), log.len());
//! assert_eq!(replay.into_game(), game);
//!
//! // An action the game refuses is named by its index.
//! log.push((Actor::System, Action::RollDice));
//! let err = Replay::new(GameOptions::default(), 5, log.iter().copied())
//!     .unwrap()
//!     .run()
//!     .unwrap_err();
//! assert_eq!(err.index(), Some(log.len() - 1));
//! assert_eq!(err.code(), "not_for_system");
//! ```

use crate::action::Action;
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::options::{GameOptions, OptionsError};
use crate::seat::Actor;

/// A log being replayed: an iterator of [`ReplayedAction`]s over the actions of `log` applied to
/// a game, which [`Replay::game`] shows between steps (before the first, the game as
/// it started). It ends when the log does, when the game has ended at its turn limit
/// (R-10.5), or after the first refused action.
#[derive(Debug, Clone)]
pub struct Replay<I> {
    /// The game after the actions replayed so far.
    game: Game,
    /// The actions still to replay.
    log: I,
    /// Actions applied so far: the index of the next one.
    played: usize,
    /// How the replay stopped, once it has.
    end: Option<End>,
}

/// Why a replay stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The log ended.
    Log,
    /// The game ended at its turn limit and the log went on (R-10.5).
    PastTheLimit,
    /// An action was refused.
    Refused,
}

/// One replayed action: its index in the log and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayedAction {
    /// The action's index in the log, from 0.
    pub index: usize,
    /// Who acted.
    pub actor: Actor,
    /// What was done.
    pub action: Action,
    /// The events, unredacted, as when the action was first applied.
    pub events: Vec<Event>,
}

/// Why a log cannot be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The options cannot start a game (its message is the options' own).
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// The game refuses an action of the log: the log is not this game's.
    #[error("action {index} of the log is refused on replay: {error} ({})", .error.code())]
    Refused {
        /// The action's index in the log, from 0.
        index: usize,
        /// Who acted.
        actor: Actor,
        /// What was done.
        action: Action,
        /// Why the game refuses it.
        error: ActionError,
    },
}

impl ReplayError {
    /// The index of the refused action, if an action was refused.
    #[must_use]
    pub fn index(&self) -> Option<usize> {
        match self {
            ReplayError::Options(_) => None,
            ReplayError::Refused { index, .. } => Some(*index),
        }
    }

    /// The stable code of the cause: the options' or the refused action's.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            ReplayError::Options(e) => e.code(),
            ReplayError::Refused { error, .. } => error.code(),
        }
    }
}

impl<I: Iterator<Item = (Actor, Action)>> Replay<I> {
    /// Replays `log` from the start of the game of `options` and `seed` ([`Game::new`]).
    ///
    /// # Errors
    /// [`ReplayError::Options`] if the options cannot start a game.
    pub fn new(
        options: GameOptions,
        seed: u64,
        log: impl IntoIterator<IntoIter = I>,
    ) -> Result<Replay<I>, ReplayError> {
        Ok(Replay::from_game(Game::new(options, seed)?, log))
    }

    /// Replays `log` from `game`.
    pub fn from_game(game: Game, log: impl IntoIterator<IntoIter = I>) -> Replay<I> {
        Replay {
            game,
            log: log.into_iter(),
            played: 0,
            end: None,
        }
    }

    /// Replays the rest of the log without looking at the steps.
    ///
    /// # Errors
    /// [`ReplayError::Refused`] for the first action the game refuses.
    pub fn run(mut self) -> Result<Replay<I>, ReplayError> {
        for step in &mut self {
            step?;
        }
        Ok(self)
    }
}

impl<I> Replay<I> {
    /// The game after the actions replayed so far (before the first: the game as it
    /// started; after a refusal: the game before the refused action).
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game after the actions replayed so far.
    #[must_use]
    pub fn into_game(self) -> Game {
        self.game
    }

    /// How many actions of the log were applied: once the replay has ended without a
    /// refusal, the actions that are part of the game (R-10.5: not those past the turn
    /// limit).
    #[must_use]
    pub fn played(&self) -> usize {
        self.played
    }

    /// Whether the log went on after the game ended at its turn limit (R-10.5): it was
    /// written before the limit existed, and the rest of it is not part of the game.
    #[must_use]
    pub fn went_past_the_limit(&self) -> bool {
        self.end == Some(End::PastTheLimit)
    }
}

impl<I: Iterator<Item = (Actor, Action)>> Iterator for Replay<I> {
    type Item = Result<ReplayedAction, ReplayError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.end.is_some() {
            return None;
        }
        let Some((actor, action)) = self.log.next() else {
            self.end = Some(End::Log);
            return None;
        };
        // R-10.5: a game over without a winner ended at its turn limit; a log that
        // goes on was written when such games went on, and the rest is not part of it.
        if self.game.is_over() && self.game.winner().is_none() {
            self.end = Some(End::PastTheLimit);
            return None;
        }
        let index = self.played;
        match self.game.apply(actor, action) {
            Ok(events) => {
                self.played += 1;
                Some(Ok(ReplayedAction {
                    index,
                    actor,
                    action,
                    events,
                }))
            }
            Err(error) => {
                self.end = Some(End::Refused);
                Some(Err(ReplayError::Refused {
                    index,
                    actor,
                    action,
                    error,
                }))
            }
        }
    }
}
