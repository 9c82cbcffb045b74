//! First placements: the settlement with the most weighted pips and the best
//! resource mix, then a road toward the best spot it opens.

use catan_engine::{Action, Resource, VertexId};

use super::roads;
use crate::board::Board;

/// Bonus per distinct resource a spot yields, so two spots together cover more.
const VARIETY: f32 = 0.5;
/// Bonus for lumber and brick at the second settlement, whose cards come at once
/// and pay for the first roads.
const STARTING_CARDS: f32 = 0.75;

/// The best setup settlement among the legal ones.
pub(super) fn settlement(b: &Board, legal: &[Action]) -> Option<Action> {
    ranked(b, legal)
        .first()
        .map(|&vertex| Action::BuildSettlement { vertex })
}

/// The legal setup settlements, best first by this level's value (ties: the order
/// of `legal`): the hard level searches the first few of them.
pub(crate) fn ranked(b: &Board, legal: &[Action]) -> Vec<VertexId> {
    let me = b.seat();
    let prod = b.production(me);
    let second = b.view.buildings.iter().any(|x| x.seat == me);
    let mut spots: Vec<(VertexId, f32)> = legal
        .iter()
        .filter_map(|a| match a {
            Action::BuildSettlement { vertex } => Some(*vertex),
            _ => None,
        })
        .map(|v| (v, value(b, v, &prod, second)))
        .collect();
    // Stable, so among equals the last in `legal` stays last, as `max_by` picked it.
    spots.reverse();
    spots.sort_by(|x, y| y.1.total_cmp(&x.1));
    spots.into_iter().map(|(v, _)| v).collect()
}

/// How good `v` is as a starting settlement.
fn value(b: &Board, v: VertexId, prod: &[u32; 5], second: bool) -> f32 {
    let y = b.vertex_yield(v);
    let kinds = y.iter().filter(|&&p| p > 0).count() as f32;
    let mut value = b.spot_value(v, prod) + VARIETY * kinds;
    if second {
        for r in [Resource::Lumber, Resource::Brick] {
            if y[r.index()] > 0 {
                value += STARTING_CARDS;
            }
        }
    }
    value
}

/// The setup road next to `settlement`: toward the best spot it opens.
pub(super) fn road(b: &Board, settlement: VertexId, legal: &[Action]) -> Option<Action> {
    let _ = settlement; // the legal roads all touch it
    roads::best_road(b, legal, true)
}
