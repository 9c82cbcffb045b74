//! Where a road leads: to a good free spot within a few more roads, or to Longest
//! Road. Roads that do neither are not built (except when Road Building forces one).

use catan_engine::board::{EDGE_COUNT, topology};
use catan_engine::{Action, EdgeId, VertexId, rules};

use crate::board::Board;

/// A spot this many roads further away counts this much less per road.
const DISTANCE_DECAY: f32 = 0.6;
/// Roads looked ahead beyond the new one.
const LOOKAHEAD: u32 = 2;
/// The least value of a road toward a spot worth paying for while cities can still
/// be built on own settlements.
const WORTHWHILE: f32 = 4.0;
/// The same once expanding is the only way to grow: any spot will do.
const LAST_RESORT: f32 = 1.0;
/// Longest Road needs at least this many roads.
const LONGEST_ROAD_MIN: u32 = rules::LONGEST_ROAD_MIN as u32;

/// Empty paths where the viewer could build a road now, cards aside.
pub(super) fn candidates(b: &Board) -> Vec<EdgeId> {
    let spots = b.road_spots();
    (0..EDGE_COUNT)
        .map(|e| EdgeId(e as u8))
        .filter(|e| spots & e.bit() != 0)
        .collect()
}

/// Whether `v` already belongs to the viewer's network (a building or a road end).
fn in_network(b: &Board, v: VertexId) -> bool {
    let me = b.seat();
    b.building(v).is_some_and(|(s, _)| s == me)
        || topology().vertex_edge_mask[v.index()] & b.my_roads() != 0
}

/// The best free spot a road on `e` opens up, discounted by the roads still needed
/// after it; 0 when it opens nothing.
pub(super) fn spot_value(b: &Board, e: EdgeId) -> f32 {
    let topo = topology();
    let me = b.seat();
    let prod = b.production(me);
    let mut best = 0.0f32;
    for w in topo.edge_vertices[e.index()] {
        if in_network(b, w) || !b.passable(w, me) {
            continue;
        }
        // Breadth-first from the new end over empty paths.
        let mut frontier = vec![w];
        let mut seen = w.bit();
        for d in 0..=LOOKAHEAD {
            let mut next = Vec::new();
            for &x in &frontier {
                if b.is_free_spot(x) {
                    best = best.max(b.spot_value(x, &prod) * DISTANCE_DECAY.powi(d as i32));
                }
                if !b.passable(x, me) {
                    continue;
                }
                for &f in &topo.vertex_edges[x.index()] {
                    let y = topo.other_end(f, x);
                    if b.road(f).is_none() && seen & y.bit() == 0 {
                        seen |= y.bit();
                        next.push(y);
                    }
                }
            }
            frontier = next;
        }
    }
    best
}

/// The least spot value a road must lead to: lower once no settlement is left to
/// turn into a city.
fn threshold(b: &Board) -> f32 {
    if b.my_player().cities_left == 0 || b.my_settlements().next().is_none() {
        LAST_RESORT
    } else {
        WORTHWHILE
    }
}

/// Whether some road would lead to a spot worth the cards.
pub(super) fn leads_somewhere(b: &Board) -> bool {
    let min = threshold(b);
    candidates(b).into_iter().any(|e| spot_value(b, e) >= min)
}

/// A road among `edges` that lengthens the viewer's longest route the most.
pub(super) fn route_edge(b: &Board, edges: &[EdgeId]) -> Option<EdgeId> {
    let me = b.seat();
    let now = b.longest_route(me, 0);
    edges
        .iter()
        .map(|&e| (e, b.longest_route(me, e.bit())))
        .filter(|&(_, len)| len > now)
        .max_by_key(|&(e, len)| (len, std::cmp::Reverse(e)))
        .map(|(e, _)| e)
}

/// A road among `edges` that would take Longest Road for the viewer now (R-10.1,
///
pub(super) fn longest_road_edge(b: &Board, edges: &[EdgeId]) -> Option<EdgeId> {
    let me = b.seat();
    if b.view.longest_road == Some(me) {
        return None;
    }
    let others = b.opponents().map(|p| u32::from(p.road_length)).max();
    let needed = LONGEST_ROAD_MIN.max(others.unwrap_or(0) + 1);
    if u32::from(b.my_player().road_length) + 1 < needed {
        return None;
    }
    edges
        .iter()
        .copied()
        .find(|e| b.longest_route(me, e.bit()) >= needed)
}

/// The best legal road: one that takes Longest Road, else the one toward the best
/// spot if it is worthwhile, else one that lengthens the longest route. With
/// `forced` (setup, Road Building) some legal road is always chosen.
pub(super) fn best_road(b: &Board, legal: &[Action], forced: bool) -> Option<Action> {
    let edges: Vec<EdgeId> = legal
        .iter()
        .filter_map(|a| match a {
            Action::BuildRoad { edge } => Some(*edge),
            _ => None,
        })
        .collect();
    if let Some(edge) = longest_road_edge(b, &edges) {
        return Some(Action::BuildRoad { edge });
    }
    let scored = edges
        .iter()
        .map(|&e| (e, spot_value(b, e)))
        .max_by(|x, y| x.1.total_cmp(&y.1));
    match scored {
        Some((edge, v)) if v >= threshold(b) || (forced && v > 0.0) => {
            Some(Action::BuildRoad { edge })
        }
        _ => route_edge(b, &edges)
            .or_else(|| edges.first().copied().filter(|_| forced))
            .map(|edge| Action::BuildRoad { edge }),
    }
}
