//! Whole games between strategies, refereed by the engine: the seat that must act
//! gets its own view and legal list, its strategy chooses, and the engine applies
//! the choice. A refused choice is an error, so a run also proves every decision legal.
//!
//! The arena asks only the seat that must act (the current player, or during a
//! discard the first seat that owes cards), so player offers, which no built-in
//! strategy makes, would go unanswered.

use std::fmt;

use catan_engine::playout::seat_to_act;
use catan_engine::{Action, ActionError, Actor, Game, GameOptions, Phase, Seat};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{BotKind, Strategy};

/// Actions after which a game counts as runaway.
pub const MAX_ACTIONS: u64 = 100_000;

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The winner.
    pub winner: Seat,
    /// Normal turns played.
    pub turns: u32,
    /// Actions applied.
    pub actions: u64,
}

/// Why a game could not be played to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArenaError {
    /// A strategy chose an action the engine refused.
    Refused {
        /// Who chose it.
        seat: Seat,
        /// The choice.
        action: Action,
        /// The engine's reason.
        error: ActionError,
    },
    /// The seat that must act had no legal action (an engine bug).
    NoLegalAction {
        /// The seat.
        seat: Seat,
        /// The phase.
        phase: Phase,
    },
    /// No winner after [`MAX_ACTIONS`] actions.
    TooLong(u64),
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Refused {
                seat,
                action,
                error,
            } => write!(f, "{seat} chose {action:?}, refused: {error}"),
            ArenaError::NoLegalAction { seat, phase } => {
                write!(f, "{seat} has no legal action in {phase:?}")
            }
            ArenaError::TooLong(n) => write!(f, "no winner after {n} actions"),
        }
    }
}

impl std::error::Error for ArenaError {}

/// Plays `game` to its end; `bots[s]` plays seat `s`, deciding from
/// `game.view(Some(s))` and `game.legal_actions(s)` only.
///
/// # Errors
/// [`ArenaError`] when a choice is refused, a seat is stuck, or the game runs away.
pub fn play(
    game: &mut Game,
    bots: &mut [Box<dyn Strategy + Send>],
    rng: &mut dyn RngCore,
) -> Result<Outcome, ArenaError> {
    let mut legal = Vec::with_capacity(128);
    let mut events = Vec::with_capacity(32);
    let mut actions = 0;
    while game.winner().is_none() {
        if actions >= MAX_ACTIONS {
            return Err(ArenaError::TooLong(actions));
        }
        let seat = seat_to_act(game);
        legal.clear();
        game.legal_actions_into(Actor::Seat(seat), &mut legal);
        if legal.is_empty() {
            return Err(ArenaError::NoLegalAction {
                seat,
                phase: game.phase(),
            });
        }
        let view = game.view(Some(seat));
        let action = bots[seat.index()].choose(&view, &legal, rng);
        events.clear();
        game.apply_into(Actor::Seat(seat), action, &mut events)
            .map_err(|error| ArenaError::Refused {
                seat,
                action,
                error,
            })?;
        actions += 1;
    }
    Ok(Outcome {
        winner: game.winner().unwrap_or(Seat(0)),
        turns: game.turn(),
        actions,
    })
}

/// The seed of game `i` of a run with base seed `seed` (as in `catan-sim`).
#[must_use]
pub fn game_seed(seed: u64, i: u64) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(i)
}

/// Which lineup entry sits in each seat in game `i`: the lineup rotates one seat per
/// game, so over `n` games every entry sits in every seat once.
#[must_use]
pub fn seating(players: usize, i: u64) -> Vec<usize> {
    let shift = (i % players as u64) as usize;
    (0..players)
        .map(|s| (s + players - shift) % players)
        .collect()
}

/// Totals of a run of games.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Games played (finished or abandoned).
    pub games: u64,
    /// Wins per lineup entry.
    pub wins: Vec<u64>,
    /// Normal turns of the finished games.
    pub turns: u64,
    /// Actions of all games.
    pub actions: u64,
    /// Games abandoned on an [`ArenaError`], described (game index, seed, error).
    pub errors: Vec<String>,
}

impl Tally {
    /// Games that ended with a winner.
    #[must_use]
    pub fn finished(&self) -> u64 {
        self.wins.iter().sum()
    }

    /// Adds another run's totals.
    pub fn merge(&mut self, other: Tally) {
        self.games += other.games;
        if self.wins.len() < other.wins.len() {
            self.wins.resize(other.wins.len(), 0);
        }
        for (a, b) in self.wins.iter_mut().zip(other.wins) {
            *a += b;
        }
        self.turns += other.turns;
        self.actions += other.actions;
        self.errors.extend(other.errors);
    }

    /// Share of the finished games won by the entries of `kind` in `lineup`.
    #[must_use]
    pub fn share(&self, lineup: &[BotKind], kind: BotKind) -> f64 {
        let won: u64 = lineup
            .iter()
            .zip(&self.wins)
            .filter(|(k, _)| **k == kind)
            .map(|(_, w)| *w)
            .sum();
        won as f64 / self.finished().max(1) as f64
    }
}

/// Plays games `range` of a run: one seat per entry of `lineup`, rotating.
#[must_use]
pub fn run(
    lineup: &[BotKind],
    options: GameOptions,
    seed: u64,
    range: std::ops::Range<u64>,
) -> Tally {
    let mut tally = Tally {
        wins: vec![0; lineup.len()],
        ..Tally::default()
    };
    for i in range {
        let s = game_seed(seed, i);
        tally.games += 1;
        let seats = seating(lineup.len(), i);
        let mut bots: Vec<_> = seats.iter().map(|&e| crate::strategy(lineup[e])).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(s ^ 0x9E37_79B9_7F4A_7C15);
        let result = Game::new(options, s)
            .map_err(|e| e.to_string())
            .and_then(|mut g| play(&mut g, &mut bots, &mut rng).map_err(|e| e.to_string()));
        match result {
            Ok(o) => {
                tally.wins[seats[o.winner.index()]] += 1;
                tally.turns += u64::from(o.turns);
                tally.actions += o.actions;
            }
            Err(e) => tally.errors.push(format!("game {i} (seed {s}): {e}")),
        }
    }
    tally
}
