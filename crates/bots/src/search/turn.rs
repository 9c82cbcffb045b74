//! The turns' decisions where a place is chosen, searched with whole games: where a
//! settlement, city or road goes (R-5.2..R-5.5; R-8.3's free roads too), where the
//! robber goes and whom it robs, and whether to play a Knight before
//! the roll. The medium level chooses *what* to do; the search only asks
//! whether another place (or, before the roll, the other of roll and Knight) does
//! better. Each candidate is played from the same determinizations to the end of the
//! game by medium bots for every seat, as the setup search does; successive halving
//! spends the playouts on the better half of the alternatives, but the medium choice
//! is never dropped, so every draw gives a paired difference of each alternative
//! from it. An alternative replaces the medium choice only when its mean lead is above
//! [`DEVIATE_MARGIN`] and two standard errors: noise alone rarely moves the bot off
//! the medium level's play.

use std::time::{Duration, Instant};

use catan_engine::{Action, GameView, Phase, Seat};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Budget, Known, determinize, playout};
use crate::board::Board;

/// Candidates searched at most (the medium choice included).
pub(super) const MAX_CANDIDATES: usize = 6;
/// How much better (in [`super::score`]'s units: a win is 1) an alternative's mean
/// must be to replace the medium choice.
pub(super) const DEVIATE_MARGIN: f64 = 0.02;
/// Paired samples an alternative needs before it may replace the medium choice.
const MIN_SAMPLES: u32 = 8;

/// The candidates of `me`'s decision, the medium level's choice first; fewer than
/// two when the decision is not one the search asks about.
pub(super) fn candidates(
    view: &GameView,
    me: Seat,
    legal: &[Action],
    medium: Action,
) -> Vec<Action> {
    let own_turn = view.current == me;
    let same_kind = |a: &Action| std::mem::discriminant(a) == std::mem::discriminant(&medium);
    let mut out = vec![medium];
    match (view.phase, medium) {
        (
            Phase::Main | Phase::RoadBuilding { .. },
            Action::BuildSettlement { .. } | Action::BuildCity { .. } | Action::BuildRoad { .. },
        ) if own_turn => {
            out.extend(
                legal
                    .iter()
                    .filter(|a| same_kind(a) && **a != medium)
                    .copied(),
            );
        }
        (Phase::MoveRobber { .. }, Action::MoveRobber { .. }) => {
            // The medium level's own ranking: the best few robber moves.
            if let Some(board) = Board::new(view) {
                let mut rest: Vec<(Action, f32)> = legal
                    .iter()
                    .filter(|a| same_kind(a) && **a != medium)
                    .filter_map(|a| match *a {
                        Action::MoveRobber { tile, victim } => {
                            Some((*a, crate::heuristic::robber_score(&board, tile, victim)))
                        }
                        _ => None,
                    })
                    .collect();
                rest.sort_by(|x, y| y.1.total_cmp(&x.1));
                out.extend(rest.into_iter().map(|(a, _)| a));
            }
        }
        (Phase::PreRoll, Action::RollDice | Action::PlayKnight) if own_turn => {
            out.extend(
                legal
                    .iter()
                    .filter(|a| matches!(a, Action::RollDice | Action::PlayKnight) && **a != medium)
                    .copied(),
            );
        }
        _ => {}
    }
    out.truncate(MAX_CANDIDATES);
    out
}

/// Paired differences of an alternative's reward from the medium choice's.
#[derive(Debug, Clone, Copy, Default)]
struct Lead {
    /// Samples.
    n: u32,
    /// Sum of the differences.
    sum: f64,
    /// Sum of their squares.
    sum_sq: f64,
}

impl Lead {
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

    /// Whether the lead is clear enough to leave the medium choice for it.
    fn clear(self) -> bool {
        self.n >= MIN_SAMPLES && self.mean() > DEVIATE_MARGIN.max(2.0 * self.se())
    }
}

/// The best of `candidates` (the medium choice first) by whole-game playouts within
/// the budget (at most `budget.turn_playouts` playouts; the clock): the medium choice
/// unless an alternative leads it clearly ([`Lead::clear`]).
pub(super) fn best(
    view: &GameView,
    known: &Known,
    me: Seat,
    candidates: &[Action],
    budget: Budget,
    rng: &mut dyn RngCore,
) -> Action {
    let medium = candidates[0];
    if candidates.len() < 2 || budget.turn_playouts == 0 {
        return medium;
    }
    let mut leads = vec![Lead::default(); candidates.len()];
    // Indices of the alternatives still played, besides the medium choice.
    let mut alive: Vec<usize> = (1..candidates.len()).collect();
    let start = Instant::now();
    // A draw is not begun when the last one, taken again, would end past the time.
    let mut last = Duration::ZERO;
    let out_of_time = |last: Duration| budget.time.is_some_and(|t| start.elapsed() + last >= t);
    let rounds = alive.len().next_power_of_two().trailing_zeros() + 1;
    let per_round = budget.turn_playouts / rounds;
    let mut spent = 0u32;
    'rounds: loop {
        let width = alive.len() as u32 + 1;
        let draws = (per_round / width).max(1);
        for _ in 0..draws {
            if out_of_time(last) || spent + width > budget.turn_playouts {
                break 'rounds;
            }
            let began = Instant::now();
            let Some(game) = determinize(view, known, rng) else {
                break 'rounds;
            };
            let seed = rng.next_u64();
            let play = |a: Action| {
                playout(
                    &mut game.clone(),
                    me,
                    a,
                    &mut ChaCha8Rng::seed_from_u64(seed),
                )
            };
            let base = play(medium);
            for &i in &alive {
                leads[i].add(play(candidates[i]) - base);
            }
            spent += width;
            last = began.elapsed();
        }
        if alive.len() <= 1 {
            break;
        }
        // Stable: among equal leads the medium level's order decides.
        alive.sort_by(|&a, &b| leads[b].mean().total_cmp(&leads[a].mean()));
        alive.truncate(alive.len().div_ceil(2));
    }
    alive
        .into_iter()
        .filter(|&i| leads[i].clear())
        .max_by(|&a, &b| leads[a].mean().total_cmp(&leads[b].mean()))
        .map_or(medium, |i| candidates[i])
}
