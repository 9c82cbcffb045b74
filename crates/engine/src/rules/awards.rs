//! Longest Road and Largest Army: route length and the holding rules of.

use crate::board::{EdgeMask, VertexId, VertexMask, topology};
use crate::event::Event;
use crate::game::Game;
use crate::seat::{MAX_SEATS, Seat};

/// Minimum route for Longest Road.
pub const LONGEST_ROAD_MIN: u8 = 5;
/// Minimum played knights for Largest Army.
pub const LARGEST_ARMY_MIN: u8 = 3;

/// The longest trail through `roads`: no path used twice, branches do not add
/// up, loops count, and an intersection in `blocked` (an opponent's building) cannot
/// be passed through, though a route may end there.
#[must_use]
pub fn longest_route(roads: EdgeMask, blocked: VertexMask) -> u8 {
    let topo = topology();
    let mut starts: VertexMask = 0;
    let mut m = roads;
    while m != 0 {
        let e = m.trailing_zeros() as usize;
        m &= m - 1;
        starts |= topo.edge_vertex_mask[e];
    }
    let mut best = 0;
    while starts != 0 {
        let v = starts.trailing_zeros();
        starts &= starts - 1;
        best = best.max(walk(VertexId(v as u8), roads, 0, blocked));
    }
    best
}

fn walk(v: VertexId, roads: EdgeMask, used: EdgeMask, blocked: VertexMask) -> u8 {
    let topo = topology();
    let mut best = 0;
    let mut edges = topo.vertex_edge_mask[v.index()] & roads & !used;
    while edges != 0 {
        let e = edges.trailing_zeros();
        edges &= edges - 1;
        let w = topo.other_end(crate::board::EdgeId(e as u8), v);
        let onward = if blocked & w.bit() != 0 {
            0
        } else {
            walk(w, roads, used | (1u128 << e), blocked)
        };
        best = best.max(1 + onward);
    }
    best
}

/// for either award: the holder keeps it while tied for the highest; otherwise a
/// single highest player at or above `min` takes it, and a tie leaves it with nobody.
fn award(holder: Option<Seat>, values: &[u8; MAX_SEATS], players: u8, min: u8) -> Option<Seat> {
    let n = usize::from(players);
    let max = values[..n].iter().copied().max().unwrap_or(0);
    if let Some(h) = holder
        && values[h.index()] >= min
        && values[h.index()] == max
    {
        return Some(h);
    }
    if max < min {
        return None;
    }
    let mut leaders = (0..n).filter(|&s| values[s] == max);
    match (leaders.next(), leaders.next()) {
        (Some(s), None) => Some(Seat(s as u8)),
        _ => None,
    }
}

impl Game {
    /// Recomputes every route after a road or building changed, then Longest Road.
    pub(crate) fn update_longest_road(&mut self, out: &mut Vec<Event>) {
        let occupied = self.occupied_vertices();
        let mut lengths = [0u8; MAX_SEATS];
        for s in 0..usize::from(self.options.players) {
            let p = &self.players[s];
            lengths[s] = longest_route(p.roads, occupied & !p.buildings());
            self.players[s].road_length = lengths[s];
        }
        let holder = award(
            self.longest_road,
            &lengths,
            self.options.players,
            LONGEST_ROAD_MIN,
        );
        if holder != self.longest_road {
            self.longest_road = holder;
            out.push(Event::LongestRoad {
                holder,
                length: holder.map_or(0, |h| lengths[h.index()]),
            });
        }
    }

    /// Re-decides Largest Army after a Knight was played.
    pub(crate) fn update_largest_army(&mut self, out: &mut Vec<Event>) {
        let knights: [u8; MAX_SEATS] = std::array::from_fn(|s| self.players[s].knights_played);
        let holder = award(
            self.largest_army,
            &knights,
            self.options.players,
            LARGEST_ARMY_MIN,
        );
        if holder != self.largest_army {
            self.largest_army = holder;
            out.push(Event::LargestArmy {
                holder,
                knights: holder.map_or(0, |h| knights[h.index()]),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_tied_for_highest_keeps_the_card() {
        //
        assert_eq!(award(Some(Seat(0)), &[5, 5, 0, 0], 4, 5), Some(Seat(0)));
    }

    #[test]
    fn a_player_strictly_exceeding_the_holder_takes_the_card() {
        //
        assert_eq!(award(Some(Seat(0)), &[5, 6, 0, 0], 4, 5), Some(Seat(1)));
    }

    #[test]
    fn a_cut_holder_loses_the_card_to_a_single_longest_player() {
        //
        assert_eq!(award(Some(Seat(0)), &[4, 6, 5, 0], 4, 5), Some(Seat(1)));
    }

    #[test]
    fn a_cut_holder_with_a_tie_for_longest_leaves_the_card_with_nobody() {
        //
        assert_eq!(award(Some(Seat(0)), &[4, 6, 6, 0], 4, 5), None);
    }

    #[test]
    fn nobody_holds_the_card_below_the_minimum() {
        //
        assert_eq!(award(Some(Seat(0)), &[4, 4, 3, 0], 4, 5), None);
        assert_eq!(award(None, &[4, 0, 0, 0], 4, 5), None);
    }

    #[test]
    fn the_first_player_to_reach_the_minimum_takes_the_card() {
        //
        assert_eq!(award(None, &[5, 3, 0, 0], 4, 5), Some(Seat(0)));
        assert_eq!(
            award(None, &[0, 0, 3, 0], 4, LARGEST_ARMY_MIN),
            Some(Seat(2))
        );
    }
}
