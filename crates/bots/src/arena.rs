//! Whole games between strategies, refereed by the engine: the seat that must act
//! gets its own view and legal list, its strategy chooses, and the engine applies
//! the choice. A refused choice is an error, so a run also proves every decision legal.
//!
//! The arena asks the seat that must act ([`seat_to_ask`]): a recipient of an open
//! offer who has not answered it yet, else the current player (or during a discard
//! the first seat that owes cards). So every player offer is answered before its
//! sender decides again, as humans and bots answer within the trade timeout on a
//! server.
//!
//! Every game ends: with a winner, or with no winner when its last allowed
//! turn ends; both are finished games, counted apart.

use std::fmt;

use catan_engine::playout::seat_to_act;
use catan_engine::{Action, ActionError, Actor, Event, Game, GameOptions, Phase, Seat};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{BotKind, Strategy};

/// Actions after which a game counts as runaway.
pub const MAX_ACTIONS: u64 = 100_000;

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The winner; `None` when the turn limit ended the game.
    pub winner: Option<Seat>,
    /// Normal turns played.
    pub turns: u32,
    /// Actions applied.
    pub actions: u64,
    /// Player trades completed.
    pub trades: u64,
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
    /// Not over after [`MAX_ACTIONS`] actions (the turn limit ends every game well
    /// before, so this is an engine or bot bug).
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
            ArenaError::TooLong(n) => write!(f, "not over after {n} actions"),
        }
    }
}

impl std::error::Error for ArenaError {}

/// The seat asked next: the first recipient of an open offer that has
/// neither accepted nor rejected it, else the seat that must act.
#[must_use]
pub fn seat_to_ask(game: &Game) -> Seat {
    if game.phase() == Phase::Main {
        for o in game.offers() {
            if let Some(s) = game
                .seats()
                .find(|&s| o.is_recipient(s) && !o.has_accepted(s) && !o.has_rejected(s))
            {
                return s;
            }
        }
    }
    seat_to_act(game)
}

/// Asks [`seat_to_ask`] for one action and applies it; returns the seat asked and
/// its action. `legal` and `events` are scratch lists; `events` holds the action's
/// events afterwards.
///
/// # Errors
/// [`ArenaError::Refused`] or [`ArenaError::NoLegalAction`].
pub fn step(
    game: &mut Game,
    bots: &mut [Box<dyn Strategy + Send>],
    rng: &mut dyn RngCore,
    legal: &mut Vec<Action>,
    events: &mut Vec<Event>,
) -> Result<(Seat, Action), ArenaError> {
    let seat = seat_to_ask(game);
    legal.clear();
    game.legal_actions_into(Actor::Seat(seat), legal);
    let view = game.view(Some(seat));
    let asked = crate::actionable(&view, legal);
    if asked.is_empty() {
        return Err(ArenaError::NoLegalAction {
            seat,
            phase: game.phase(),
        });
    }
    let action = bots[seat.index()].choose(&view, &asked, rng);
    events.clear();
    game.apply_into(Actor::Seat(seat), action, events)
        .map_err(|error| ArenaError::Refused {
            seat,
            action,
            error,
        })?;
    Ok((seat, action))
}

/// Plays `game` to its end, a win or the turn limit; `bots[s]` plays seat
/// `s`, deciding from `game.view(Some(s))` and its actionable legal actions only,
/// and observes every event as seat `s` would receive it ([`Strategy::observe`]).
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
    let mut trades = 0;
    while !game.is_over() {
        if actions >= MAX_ACTIONS {
            return Err(ArenaError::TooLong(actions));
        }
        step(game, bots, rng, &mut legal, &mut events)?;
        for e in &events {
            for (seat, bot) in game.seats().zip(bots.iter_mut()) {
                bot.observe(&e.redact_for(Some(seat)));
            }
        }
        trades += events
            .iter()
            .filter(|e| matches!(e, Event::TradeCompleted { .. }))
            .count() as u64;
        actions += 1;
    }
    Ok(Outcome {
        winner: game.winner(),
        turns: game.turn(),
        actions,
        trades,
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
    /// Normal turns of the finished games, won or not.
    pub turns: u64,
    /// Actions of all games.
    pub actions: u64,
    /// Games abandoned on an [`ArenaError`], described (game index, seed, error).
    pub errors: Vec<String>,
    /// Games the turn limit ended with no winner.
    pub no_winner: u64,
    /// Player trades completed in all games.
    pub trades: u64,
    /// Each finished game's index in the run with the place of every lineup entry
    /// in it ([`catan_ratings::places`]: 1 is first), for rating the entries.
    pub places: Vec<(u64, Vec<u8>)>,
}

impl Tally {
    /// Games that ended with a winner.
    #[must_use]
    pub fn won(&self) -> u64 {
        self.wins.iter().sum()
    }

    /// Games that ended: won, or at the turn limit with no winner.
    #[must_use]
    pub fn finished(&self) -> u64 {
        self.won() + self.no_winner
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
        self.no_winner += other.no_winner;
        self.trades += other.trades;
        self.places.extend(other.places);
        self.places.sort_by_key(|(i, _)| *i);
    }

    /// Share of the finished games won by the entries of `kind` in `lineup` (a game
    /// without a winner is won by nobody).
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

/// Plays games `range` of a run: one seat per entry of `lineup`, rotating, each
/// kind's default strategy ([`crate::strategy`]).
#[must_use]
pub fn run(
    lineup: &[BotKind],
    options: GameOptions,
    seed: u64,
    range: std::ops::Range<u64>,
) -> Tally {
    run_with(lineup, options, seed, range, &crate::strategy)
}

/// [`run`] with the strategy of each kind made by `make` (e.g. the hard level with
/// a smaller budget).
#[must_use]
pub fn run_with(
    lineup: &[BotKind],
    options: GameOptions,
    seed: u64,
    range: std::ops::Range<u64>,
    make: &(dyn Fn(BotKind) -> Box<dyn Strategy + Send> + Sync),
) -> Tally {
    let mut tally = Tally {
        wins: vec![0; lineup.len()],
        ..Tally::default()
    };
    for i in range {
        let s = game_seed(seed, i);
        tally.games += 1;
        let seats = seating(lineup.len(), i);
        let mut bots: Vec<_> = seats.iter().map(|&e| make(lineup[e])).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(s ^ 0x9E37_79B9_7F4A_7C15);
        let result = Game::new(options, s)
            .map_err(|e| e.to_string())
            .and_then(|mut g| {
                let o = play(&mut g, &mut bots, &mut rng).map_err(|e| e.to_string())?;
                Ok((o, g))
            });
        match result {
            Ok((o, game)) => {
                let seated: Vec<catan_ratings::Seated> = game
                    .final_scores()
                    .iter()
                    .map(|f| catan_ratings::Seated {
                        seat: f.seat,
                        points: f.points,
                        turns: 0,
                        stood_in: 0,
                        timed_out: false,
                    })
                    .collect();
                let by_seat = catan_ratings::places(o.winner, &seated);
                let mut by_entry = vec![0; lineup.len()];
                for (f, place) in seated.iter().zip(by_seat) {
                    by_entry[seats[f.seat.index()]] = place;
                }
                tally.places.push((i, by_entry));
                match o.winner {
                    Some(w) => tally.wins[seats[w.index()]] += 1,
                    None => tally.no_winner += 1,
                }
                tally.turns += u64::from(o.turns);
                tally.actions += o.actions;
                tally.trades += o.trades;
            }
            Err(e) => tally.errors.push(format!("game {i} (seed {s}): {e}")),
        }
    }
    tally
}
