//! The setup placements, searched with whole games: the medium level's best
//! few spots are the candidates of a settlement, every legal road those of its road;
//! each playout draws a determinization of the view
//! (the other seats' later placements are the medium policy's, as is everything
//! after), places the candidate and plays the game to its end with medium bots for
//! every seat. Successive halving spends the playouts: every round plays each
//! surviving candidate on the same draws (common random numbers), then keeps the
//! better half by mean reward.

use std::time::{Duration, Instant};

use catan_engine::{Action, GameView, Phase, Seat};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Budget, Known, determinize, playout};
use crate::board::Board;
use crate::heuristic::setup::ranked;

/// Spots searched at most: the medium level's best ones.
pub(super) const SETUP_CANDIDATES: usize = 8;

/// The candidates of a setup placement of `me`, the medium level's choice first:
/// its best [`SETUP_CANDIDATES`] settlements, or every legal road next to the new
/// settlement with the medium road first. Empty outside `me`'s own placements.
pub(super) fn candidates(
    view: &GameView,
    me: Seat,
    legal: &[Action],
    medium: Action,
) -> Vec<Action> {
    let Phase::Setup { settlement, .. } = view.phase else {
        return Vec::new();
    };
    if view.current != me {
        return Vec::new();
    }
    match settlement {
        None => Board::new(view).map_or_else(Vec::new, |board| {
            ranked(&board, legal)
                .into_iter()
                .take(SETUP_CANDIDATES)
                .map(|vertex| Action::BuildSettlement { vertex })
                .collect()
        }),
        Some(_) => std::iter::once(medium)
            .chain(
                legal
                    .iter()
                    .filter(|a| matches!(a, Action::BuildRoad { .. }) && **a != medium)
                    .copied(),
            )
            .collect(),
    }
}

/// The best of `candidates` (the medium choice first) by whole-game playouts, at
/// most `playouts` of them; `None` when fewer than two candidates or no playout in
/// the budget.
pub(super) fn best(
    view: &GameView,
    known: &Known,
    me: Seat,
    candidates: &[Action],
    playouts: u32,
    budget: Budget,
    rng: &mut dyn RngCore,
) -> Option<Action> {
    let mut alive: Vec<(Action, f64)> = candidates.iter().map(|&a| (a, 0.0)).collect();
    if alive.len() < 2 {
        return None;
    }
    let start = Instant::now();
    // A draw is not begun when the last one, taken again, would end past the time.
    let mut last = Duration::ZERO;
    let out_of_time = |last: Duration| budget.time.is_some_and(|t| start.elapsed() + last >= t);
    let rounds = alive.len().next_power_of_two().trailing_zeros().max(1);
    let per_round = playouts / rounds;
    let (mut samples, mut spent) = (0u32, 0u32);
    'rounds: while alive.len() > 1 {
        let draws = (per_round / alive.len() as u32).max(1);
        for _ in 0..draws {
            if out_of_time(last) || spent + alive.len() as u32 > playouts {
                break 'rounds;
            }
            let began = Instant::now();
            let Some(game) = determinize(view, known, rng) else {
                break 'rounds;
            };
            let seed = rng.next_u64();
            for (a, sum) in &mut alive {
                let mut g = game.clone();
                *sum += playout(&mut g, me, *a, &mut ChaCha8Rng::seed_from_u64(seed));
            }
            samples += 1;
            spent += alive.len() as u32;
            last = began.elapsed();
        }
        // Stable: among equal sums the medium level's order decides.
        alive.sort_by(|a, b| b.1.total_cmp(&a.1));
        alive.truncate(alive.len().div_ceil(2));
    }
    // Stopped inside a round: every survivor has had the same draws.
    alive.sort_by(|a, b| b.1.total_cmp(&a.1));
    (samples > 0).then_some(alive[0].0)
}
