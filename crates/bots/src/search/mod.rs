//! The hard level: information-set Monte Carlo search with the engine itself.
//!
//! The bot starts from the medium level's choice and searches the decisions where a
//! place is chosen: its setup placements (R-3.2, `setup`), and in its turns where a
//! settlement, city or road goes, where the robber goes and whom it robs, and
//! whether to play a Knight before the roll (`turn`). Every playout draws a
//! determinization of its view (`determinize`: opponents' hands and cards, the deck
//! and the dice sampled consistently with what the view and the seat's events show,
//! `known`), plays a candidate on it through the engine and then the whole rest of
//! the game with medium bots for every seat, and scores the end from its own seat
//! ([`score`]); candidates meet the same draws (common random numbers) and
//! successive halving spends the playouts. Other decisions (what to build, trades,
//! discards, answers to offers) are the medium bot's. The bot reads only its view:
//! the search never sees the game it is playing.

mod determinize;
mod known;
mod setup;
#[cfg(test)]
mod tests;
mod turn;

use std::time::Duration;

use catan_engine::{Action, Event, Game, GameView, Phase, Seat};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use crate::arena;
use crate::{HeuristicBot, Level, Strategy};

pub(crate) use determinize::determinize;
pub(crate) use known::Known;

/// Actions a playout plays at most (a whole game of medium bots takes ~600).
const ROLLOUT_ACTIONS: u32 = 20_000;
/// What a lost whole game is worth per share of the points target reached, so that
/// near misses count a little (a win is 1).
const LOSS_VP_WEIGHT: f64 = 0.5;

/// How long the hard bot may think per decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock time per decision; `None`: only the playout caps limit it (for
    /// deterministic runs).
    pub time: Option<Duration>,
    /// Whole-game playouts per searched decision of a turn, at most (0: the turns
    /// are the medium bot's).
    pub turn_playouts: u32,
    /// Whole-game playouts per setup settlement, at most (half as many per setup
    /// road).
    pub setup_playouts: u32,
}

impl Budget {
    /// The default time per decision.
    pub const DEFAULT_TIME: Duration = Duration::from_millis(200);
    /// The default cap of whole-game playouts per setup settlement (half as many per
    /// setup road): about what 200 ms allows on one quiet core (~1.3 ms a playout
    /// from the setup), so on such a machine the cap ends the search and the bot
    /// plays as the arena measures it with the clock off; on a busy one the clock
    /// ends it sooner.
    pub const DEFAULT_SETUP_PLAYOUTS: u32 = 150;
    /// The default cap of whole-game playouts per searched decision of a turn
    /// (~0.7 ms a playout from the middle of a game: ~45 ms on a quiet core).
    pub const DEFAULT_TURN_PLAYOUTS: u32 = 64;

    /// `playouts` whole games per decision (as many per setup settlement, half per
    /// setup road) and no clock: the same input gives the same choice.
    #[must_use]
    pub const fn playouts(playouts: u32) -> Budget {
        Budget {
            time: None,
            turn_playouts: playouts,
            setup_playouts: playouts,
        }
    }
}

impl Default for Budget {
    /// At most 200 ms per searched decision, and at most
    /// [`Budget::DEFAULT_SETUP_PLAYOUTS`] and [`Budget::DEFAULT_TURN_PLAYOUTS`]
    /// playouts.
    fn default() -> Budget {
        Budget {
            time: Some(Budget::DEFAULT_TIME),
            turn_playouts: Budget::DEFAULT_TURN_PLAYOUTS,
            setup_playouts: Budget::DEFAULT_SETUP_PLAYOUTS,
        }
    }
}

/// The hard bot (see the module documentation).
#[derive(Debug, Clone)]
pub struct SearchBot {
    /// The per-decision budget.
    budget: Budget,
    /// The medium bot it starts from (and whose trade memory it keeps).
    medium: HeuristicBot,
    /// What the seat's events showed of the other hands.
    known: Known,
}

impl SearchBot {
    /// A hard bot thinking within `budget` per decision.
    #[must_use]
    pub fn new(budget: Budget) -> SearchBot {
        SearchBot {
            budget,
            medium: HeuristicBot::at(Level::Medium),
            known: Known::new(),
        }
    }
}

impl Strategy for SearchBot {
    fn name(&self) -> &'static str {
        "hard"
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        let Some(me) = view.me.map(|m| m.seat) else {
            return self.medium.choose(view, legal, rng);
        };
        // The medium choice; in the trade phase its trade steps are taken as they are.
        let medium = self.medium.choose(view, legal, rng);
        if let Phase::Setup { settlement, .. } = view.phase {
            let candidates = setup::candidates(view, me, legal, medium);
            // A road decides less than its settlement: half the playouts.
            let playouts = match settlement {
                None => self.budget.setup_playouts,
                Some(_) => self.budget.setup_playouts / 2,
            };
            return setup::best(
                view,
                &self.known,
                me,
                &candidates,
                playouts,
                self.budget,
                rng,
            )
            .unwrap_or(medium);
        }
        let candidates = turn::candidates(view, me, legal, medium);
        turn::best(view, &self.known, me, &candidates, self.budget, rng)
    }

    fn observe(&mut self, event: &Event) {
        self.known.observe(event);
    }
}

thread_local! {
    /// Whole-game playouts begun on this thread (a search runs on its caller's thread).
    static PLAYOUTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whole-game playouts the hard bots of this thread have begun so far: the arena
/// reads it around each decision (`catan-arena --playouts`) to report how many
/// playouts a decision fits within its clock.
#[must_use]
pub fn playouts_begun() -> u64 {
    PLAYOUTS.with(std::cell::Cell::get)
}

/// Applies `first` for `me`, plays the rest of the game with medium bots for every
/// seat and scores the end for `me` ([`score`]).
fn playout(game: &mut Game, me: Seat, first: Action, rng: &mut ChaCha8Rng) -> f64 {
    PLAYOUTS.with(|n| n.set(n.get() + 1));
    let mut events: Vec<Event> = Vec::with_capacity(32);
    if game
        .apply_into(catan_engine::Actor::Seat(me), first, &mut events)
        .is_err()
    {
        return 0.0;
    }
    let mut bots: Vec<Box<dyn Strategy + Send>> = game
        .seats()
        .map(|_| Box::new(HeuristicBot::at(Level::Medium)) as Box<dyn Strategy + Send>)
        .collect();
    let mut legal = Vec::with_capacity(128);
    for _ in 0..ROLLOUT_ACTIONS {
        if game.is_over() {
            break;
        }
        if arena::step(game, &mut bots, rng, &mut legal, &mut events).is_err() {
            break;
        }
    }
    score(game, me)
}

/// `me`'s standing at the end of a playout, in 0..=1: 1 won, else
/// [`LOSS_VP_WEIGHT`] times the share of the points target reached (hidden points
/// included), so that near misses count a little.
fn score(game: &Game, me: Seat) -> f64 {
    if game.winner() == Some(me) {
        return 1.0;
    }
    let target = f64::from(game.options().vp_target);
    LOSS_VP_WEIGHT * f64::from(game.total_vp(me)).min(target) / target
}
