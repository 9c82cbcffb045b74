//! Moving the robber: block the leader's best tile that touches none
//! of the viewer's buildings, and steal from whoever is ahead.

use catan_engine::board::topology;
use catan_engine::{Action, Seat, TileId};

use crate::board::Board;

/// Penalty per own pip blocked: never rob oneself while anything else is possible.
const OWN_TILE: f32 = -20.0;

/// The best legal robber move.
pub(super) fn choose(b: &Board, legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .filter_map(|a| match *a {
            Action::MoveRobber { tile, victim } => Some((*a, score(b, tile, victim))),
            _ => None,
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(a, _)| a)
}

/// How much `seat` should be hurt: more the closer it is to winning.
fn threat(b: &Board, seat: Seat) -> f32 {
    let p = b.player(seat);
    let target = f32::from(b.view.options.vp_target);
    let vp = f32::from(p.public_vp) + 0.5 * p.dev_cards as f32;
    1.0 + 3.0 * (vp / target).powi(2)
}

/// Blocking value of `tile` plus stealing value of `victim`.
pub(crate) fn score(b: &Board, tile: TileId, victim: Option<Seat>) -> f32 {
    let me = b.seat();
    let pips = b.tile_pips(tile) as f32;
    let mut value = 0.0;
    for &v in &topology().tile_vertices[tile.index()] {
        if let Some((owner, city)) = b.building(v) {
            let n = if city { 2.0 } else { 1.0 };
            value += if owner == me {
                OWN_TILE * n * pips.max(1.0)
            } else {
                n * pips * threat(b, owner)
            };
        }
    }
    if let Some(v) = victim {
        let cards = b.player(v).resource_cards as f32;
        value += 2.0 * threat(b, v) + 0.3 * cards.min(8.0);
        if b.leader() == Some(v) {
            value += 1.0;
        }
    }
    value
}
