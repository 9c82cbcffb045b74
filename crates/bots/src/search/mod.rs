//! The hard level: information-set Monte Carlo search with the engine itself.
//!
//! At each searched decision (before the roll, moving the robber, and its own
//! trade-and-build phase once the medium level's trade step has nothing to do), the
//! bot draws a fresh determinization of its view every iteration (`determinize`:
//! opponents' hands and cards, the deck and the dice sampled consistently with what
//! the view shows), and plays each of its candidate actions on it through the engine,
//! then on with medium bots for every seat for a few rounds, scoring the result from
//! its own seat. The statistics are kept per candidate at the information set's root,
//! over all determinizations (a search one decision deep: the rollouts below it are
//! the medium policy, not a tree). Candidates: the medium bot's own choice, then the
//! other legal actions up to [`MAX_CANDIDATES`]; it leaves the medium choice only for
//! one whose paired mean lead is above [`DEVIATE_MARGIN`] and two standard errors.
//! Its setup placements are searched with whole games instead (`setup`: the
//! medium level's best few settlement spots, then every road next to the chosen
//! one, each played to the end of the game by medium bots from determinizations,
//! successive halving over the candidates). Other decisions (discards, answers to
//! offers) are the medium bot's. The bot reads only its view: the search never sees
//! the game it is playing. By default ([`Budget::default`]) only the setup is
//! searched: the turns' search has no iterations unless a budget gives it some.

mod determinize;
mod known;
mod setup;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use catan_engine::{Action, Event, Game, GameView, Phase, Seat};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::arena;
use crate::board::Board;
use crate::{HeuristicBot, Level, Strategy, is_proposal};

pub(crate) use determinize::determinize;
pub(crate) use known::Known;

/// Candidate actions searched at most.
pub const MAX_CANDIDATES: usize = 8;
/// Samples a candidate needs before it may replace the medium choice.
const MIN_SAMPLES: u32 = 4;
/// How much better a candidate's mean must be to replace the medium choice.
pub const DEVIATE_MARGIN: f64 = 0.03;
/// Rounds (turns of every seat) a rollout plays before it is scored.
const ROLLOUT_ROUNDS: u32 = 2;
/// Actions a rollout plays at most (a whole game of medium bots takes ~600).
const ROLLOUT_ACTIONS: u32 = 20_000;
/// What a lost whole game is worth per share of the points target reached, so that
/// near misses count a little (a win is 1).
const LOSS_VP_WEIGHT: f64 = 0.5;

/// How long the hard bot may think per decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock time per decision; `None`: only `iterations` limits it (for
    /// deterministic runs).
    pub time: Option<Duration>,
    /// Iterations (determinization + rollout) per decision, at most.
    pub iterations: u32,
    /// Whole-game playouts per setup settlement, at most (half as many per setup
    /// road).
    pub setup_playouts: u32,
}

impl Budget {
    /// The default time per decision.
    pub const DEFAULT_TIME: Duration = Duration::from_millis(200);

    /// `iterations` per decision (and as many whole-game playouts per setup
    /// settlement) and no clock: the same input gives the same choice.
    #[must_use]
    pub const fn iterations(iterations: u32) -> Budget {
        Budget {
            time: None,
            iterations,
            setup_playouts: iterations,
        }
    }
}

impl Budget {
    /// The default cap of whole-game playouts per setup settlement (the clock ends
    /// the search long before it).
    pub const DEFAULT_SETUP_PLAYOUTS: u32 = 100_000;
}

impl Default for Budget {
    /// 200 ms per setup placement, capped at [`Budget::DEFAULT_SETUP_PLAYOUTS`]; no
    /// iterations for the turns' search, so the turns are the medium bot's. The
    /// turns' search measured no gain over 2,000 games (README, "Bots") and would
    /// take the whole 200 ms at each of ~60 decisions a game; `iterations` turns it on.
    fn default() -> Budget {
        Budget {
            time: Some(Budget::DEFAULT_TIME),
            iterations: 0,
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
        let searched = match view.phase {
            Phase::PreRoll | Phase::MoveRobber { .. } => true,
            Phase::Main => view.current == me,
            _ => false,
        };
        if !searched || self.budget.iterations == 0 || is_trade_step(&medium) {
            return medium;
        }
        let candidates = candidates(medium, legal);
        if candidates.len() < 2 {
            return medium;
        }
        let stats = search(view, &self.known, me, &candidates, self.budget, rng);
        best(&candidates, &stats)
    }

    fn observe(&mut self, event: &Event) {
        self.known.observe(event);
    }
}

/// Whether `a` belongs to player trading (offers, answers, confirmations).
fn is_trade_step(a: &Action) -> bool {
    is_proposal(a)
        || matches!(
            a,
            Action::AcceptOffer { .. }
                | Action::RejectOffer { .. }
                | Action::WithdrawOffer { .. }
                | Action::ConfirmTrade { .. }
        )
}

/// `medium` first, then the legal actions that are no trade steps, builds and cards
/// before roads and bank trades, at most [`MAX_CANDIDATES`].
fn candidates(medium: Action, legal: &[Action]) -> Vec<Action> {
    let rank = |a: &Action| match a {
        Action::BuildRoad { .. } => 1,
        Action::MaritimeTrade { .. } => 2,
        _ => 0,
    };
    let mut rest: Vec<Action> = legal
        .iter()
        .filter(|a| **a != medium && !is_trade_step(a) && !matches!(a, Action::Discard { .. }))
        .copied()
        .collect();
    rest.sort_by_key(rank);
    let mut out = vec![medium];
    out.extend(rest.into_iter().take(MAX_CANDIDATES - 1));
    out
}

/// Paired differences of each candidate's reward from the medium choice's.
#[derive(Debug, Clone, Copy, Default)]
struct Stat {
    /// Samples.
    n: u32,
    /// Sum of the differences.
    sum: f64,
    /// Sum of their squares.
    sum_sq: f64,
}

impl Stat {
    fn add(&mut self, d: f64) {
        self.n += 1;
        self.sum += d;
        self.sum_sq += d * d;
    }

    fn mean(self) -> f64 {
        self.sum / f64::from(self.n.max(1))
    }

    /// The mean's standard error.
    fn se(self) -> f64 {
        let n = f64::from(self.n.max(1));
        let var = (self.sum_sq / n - self.mean().powi(2)).max(0.0);
        (var / n).sqrt()
    }
}

/// Runs the iterations the budget allows. An iteration draws one determinization
/// and one rollout seed and plays every candidate on them (common random numbers:
/// the candidates meet the same hidden cards and the same dice), adding each one's
/// reward minus the medium choice's to its statistics. The budget's iterations
/// count rollouts.
fn search(
    view: &GameView,
    known: &Known,
    me: Seat,
    candidates: &[Action],
    budget: Budget,
    rng: &mut dyn RngCore,
) -> Vec<Stat> {
    let start = Instant::now();
    let mut stats = vec![Stat::default(); candidates.len()];
    let per = candidates.len() as u32;
    for _ in 0..budget.iterations / per.max(1) {
        if budget.time.is_some_and(|t| start.elapsed() >= t) {
            break;
        }
        let Some(game) = determinize(view, known, rng) else {
            break;
        };
        let seed = rng.next_u64();
        let rewards: Vec<f64> = candidates
            .iter()
            .map(|&a| {
                playout(
                    &mut game.clone(),
                    me,
                    a,
                    &mut ChaCha8Rng::seed_from_u64(seed),
                    Some(ROLLOUT_ROUNDS),
                )
            })
            .collect();
        for (s, r) in stats.iter_mut().zip(&rewards) {
            s.add(r - rewards[0]);
        }
    }
    stats
}

/// The candidate whose mean lead over the medium choice is largest, if that lead is
/// above [`DEVIATE_MARGIN`] and two standard errors; else the medium choice.
fn best(candidates: &[Action], stats: &[Stat]) -> Action {
    (1..candidates.len())
        .filter(|&i| {
            let s = stats[i];
            s.n >= MIN_SAMPLES && s.mean() > DEVIATE_MARGIN.max(2.0 * s.se())
        })
        .max_by(|&a, &b| stats[a].mean().total_cmp(&stats[b].mean()))
        .map_or(candidates[0], |i| candidates[i])
}

/// Applies `first` for `me`, plays on with medium bots for `rounds` rounds (`None`:
/// to the end of the game) and scores the end for `me` in 0..=1 ([`score`]).
fn playout(
    game: &mut Game,
    me: Seat,
    first: Action,
    rng: &mut ChaCha8Rng,
    rounds: Option<u32>,
) -> f64 {
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
    let stop = rounds.map_or(u32::MAX, |r| {
        game.turn() + r * u32::from(game.options().players)
    });
    let mut legal = Vec::with_capacity(128);
    for _ in 0..ROLLOUT_ACTIONS {
        if game.is_over() || game.turn() >= stop {
            break;
        }
        if arena::step(game, &mut bots, rng, &mut legal, &mut events).is_err() {
            break;
        }
    }
    score(game, me, rounds.is_none())
}

/// `me`'s standing: 1 won; lost, 0 after a short rollout and for a `whole` game
/// [`LOSS_VP_WEIGHT`] times the share of the target reached; else a logistic of its lead in points (hidden
/// ones included) plus a tenth of a point per 3 pips of production.
fn score(game: &Game, me: Seat, whole: bool) -> f64 {
    if game.is_over() {
        if game.winner() == Some(me) {
            return 1.0;
        }
        if !whole {
            return 0.0;
        }
        let target = f64::from(game.options().vp_target);
        return LOSS_VP_WEIGHT * f64::from(game.total_vp(me)).min(target) / target;
    }
    let view = game.view(Some(me));
    let Some(board) = Board::new(&view) else {
        return 0.5;
    };
    let strength = |s: Seat| {
        f64::from(game.total_vp(s)) + f64::from(board.production(s).iter().sum::<u32>()) / 30.0
    };
    let mine = strength(me);
    let best_other = game
        .seats()
        .filter(|&s| s != me)
        .map(strength)
        .fold(0.0, f64::max);
    1.0 / (1.0 + (-(mine - best_other) / 1.5).exp())
}
