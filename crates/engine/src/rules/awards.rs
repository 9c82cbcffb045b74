//! Longest Road and Largest Army: route length and the holding rules of.

use crate::board::{EdgeId, EdgeMask, Topology, VERTEX_COUNT, VertexId, VertexMask, topology};
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
///
/// Each trail component (roads joined through unblocked intersections) is measured on
/// its own: a component without a loop is a tree, whose longest trail is its longest
/// path, found in one pass; a component with a loop gets a full search.
#[must_use]
pub fn longest_route(roads: EdgeMask, blocked: VertexMask) -> u8 {
    let topo = topology();
    let mut best = 0;
    let mut rest = roads;
    while rest != 0 {
        let e = EdgeId(rest.trailing_zeros() as u8);
        let component = trail_component(topo, roads, e, blocked);
        rest &= !component;
        best = best.max(component_route(topo, component, blocked));
    }
    best
}

/// The route length of a seat with the roads `roads` and its own buildings on
/// `own`, while buildings stand on `occupied` (everyone's, own included): every
/// opponent's building cuts the seat's trails, its own never do. This is how the game
/// measures every seat, and how a view or a bot asks "how long would my route be with
/// these extra roads" without knowing the rule.
#[must_use]
pub fn route_length(roads: EdgeMask, own: VertexMask, occupied: VertexMask) -> u8 {
    longest_route(roads, route_blockers(own, occupied))
}

/// The intersections that cut a seat's trails: opponents' buildings.
#[inline]
fn route_blockers(own: VertexMask, occupied: VertexMask) -> VertexMask {
    occupied & !own
}

/// The longest trail of one trail component.
fn component_route(topo: &Topology, component: EdgeMask, blocked: VertexMask) -> u8 {
    let first = component.trailing_zeros() as usize;
    let root = topo.edge_vertex_mask[first] & !blocked;
    if root == 0 {
        // A road between two blocked intersections is a component of its own.
        return 1;
    }
    let tree = Tree::from_root(topo, component, blocked, root.trailing_zeros() as usize);
    if tree.has_loop {
        search_route(topo, component, blocked)
    } else {
        tree.longest
    }
}

/// The longest-path pass over a trail component that may turn out to be a tree.
/// Blocked intersections are leaves, one per road reaching them.
struct Tree<'a> {
    topo: &'a Topology,
    roads: EdgeMask,
    blocked: VertexMask,
    /// Unblocked intersections reached so far; reaching one twice means a loop.
    visited: VertexMask,
    /// The longest path found so far.
    longest: u8,
    /// A loop was found: the answer needs [`search_route`].
    has_loop: bool,
}

impl<'a> Tree<'a> {
    /// A pass over `roads` nothing has visited yet.
    fn new(topo: &'a Topology, roads: EdgeMask, blocked: VertexMask) -> Tree<'a> {
        Tree {
            topo,
            roads,
            blocked,
            visited: 0,
            longest: 0,
            has_loop: false,
        }
    }

    /// The pass over `roads` from the intersection `root`: its longest path and
    /// whether it met a loop.
    fn from_root(
        topo: &'a Topology,
        roads: EdgeMask,
        blocked: VertexMask,
        root: usize,
    ) -> Tree<'a> {
        let mut tree = Tree::new(topo, roads, blocked);
        tree.height(root, 0);
        tree
    }

    /// The longest path down from `v` (entered through `parent`), recording the
    /// longest path through `v` on the way.
    fn height(&mut self, v: usize, parent: EdgeMask) -> u8 {
        self.visited |= 1 << v;
        let (mut first, mut second) = (0u8, 0u8);
        let mut edges = self.topo.vertex_edge_mask[v] & self.roads & !parent;
        while edges != 0 {
            let e = edges.trailing_zeros() as usize;
            edges &= edges - 1;
            let w = (self.topo.edge_vertex_mask[e] & !(1u64 << v)).trailing_zeros() as usize;
            let h = if self.blocked & (1 << w) != 0 {
                1
            } else if self.visited & (1 << w) != 0 {
                self.has_loop = true;
                return 0;
            } else {
                let below = self.height(w, 1 << e);
                if self.has_loop {
                    return 0;
                }
                1 + below
            };
            if h > first {
                second = first;
                first = h;
            } else if h > second {
                second = h;
            }
        }
        self.longest = self.longest.max(first + second);
        first
    }
}

/// The longest trail through the road `e` just added to `roads`, when the roads a
/// trail can reach from it hold no loop: then they form a tree, every trail is a path,
/// and the longest one through `e` joins the longest path down from each of its ends
/// (an end at a blocked intersection adds nothing: the trail stops there). Any
/// longer trail avoids `e` and was counted before it was built. `None` when a loop is
/// met (`e` closed it or it was there): the caller searches the component instead.
/// One pass over the component, without gathering it first.
fn route_through_new_road(
    topo: &Topology,
    roads: EdgeMask,
    e: EdgeId,
    blocked: VertexMask,
) -> Option<u8> {
    let ends = topo.edge_vertex_mask[e.index()];
    // Both open ends count as reached: meeting one again from the other is a loop.
    let mut reached = ends & !blocked;
    let mut used = e.bit();
    let mut through = 1;
    for end in topo.edge_vertices[e.index()] {
        if blocked & end.bit() == 0 {
            through += height(topo, roads, blocked, end.bit(), &mut reached, &mut used)?;
        }
    }
    Some(through)
}

/// The longest path down from the open intersections `from` along `roads` not yet
/// `used`, layer by layer (breadth first, without recursion), marking the roads it
/// takes as used and the open intersections it reaches as `reached`; `None` when it
/// meets a loop: a road between two intersections of one layer, or one reaching an
/// open intersection reached before or by another road of the layer. Blocked
/// intersections end a path (one per road reaching them) and are never passed.
fn height(
    topo: &Topology,
    roads: EdgeMask,
    blocked: VertexMask,
    from: VertexMask,
    reached: &mut VertexMask,
    used: &mut EdgeMask,
) -> Option<u8> {
    let mut layer = from;
    let mut depth = 0;
    loop {
        let mut edges: EdgeMask = 0;
        let mut m = layer;
        while m != 0 {
            edges |= topo.vertex_edge_mask[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        edges &= roads & !*used;
        if edges == 0 {
            return Some(depth);
        }
        depth += 1;
        *used |= edges;
        let mut next: VertexMask = 0;
        while edges != 0 {
            let far = topo.edge_vertex_mask[edges.trailing_zeros() as usize] & !layer;
            edges &= edges - 1;
            let open = far & !blocked;
            if far == 0 || open & (next | *reached) != 0 {
                return None;
            }
            next |= far;
        }
        layer = next & !blocked;
        *reached |= layer;
    }
}

/// The longest trail through `roads` by depth-first search from a few start points
/// only: a longest trail can always be taken to start at an intersection where an odd
/// number of the roads meet (1 or 3) or at a blocked one, since a trail starting at an
/// unblocked intersection of two roads can be extended backwards or rotated, except
/// around a component that is a bare loop of two-road intersections, whose length is
/// its number of roads.
fn search_route(topo: &Topology, roads: EdgeMask, blocked: VertexMask) -> u8 {
    // Bit-sliced degree of every intersection in the road graph (at most 3).
    let (mut odd, mut two_plus): (VertexMask, VertexMask) = (0, 0);
    let mut m = roads;
    while m != 0 {
        let ends = topo.edge_vertex_mask[m.trailing_zeros() as usize];
        m &= m - 1;
        two_plus |= odd & ends;
        odd ^= ends;
    }
    let touched = odd | two_plus;
    let mut starts = odd | (touched & blocked);
    let mut best = 0;
    // A bare loop needs at least six unblocked two-road intersections.
    let even = two_plus & !odd & !blocked;
    if even.count_ones() >= 6 {
        let mut rest = roads & !component_edges(topo, roads, starts);
        while rest != 0 {
            let v = topo.edge_vertex_mask[rest.trailing_zeros() as usize].trailing_zeros();
            let loop_edges = component_edges(topo, roads, 1 << v);
            rest &= !loop_edges;
            best = best.max(loop_edges.count_ones() as u8);
        }
    }
    if let Some(network) = Network::of(topo, roads) {
        let all = network.all();
        while starts != 0 {
            let v = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            best = best.max(network.walk(v, all, blocked));
        }
        return best;
    }
    while starts != 0 {
        let v = starts.trailing_zeros() as usize;
        starts &= starts - 1;
        best = best.max(walk(topo, v, roads, blocked));
    }
    best
}

/// Roads numbered among themselves, for the trail search of [`search_route`]: at most
/// 32 (a seat has 15), so a set of them is one word and the other end of a road one
/// exclusive or, where [`walk`] works on the board's 72 paths.
struct Network {
    /// How many roads.
    len: u32,
    /// The two ends of each road.
    ends: [[u8; 2]; 32],
    /// The roads meeting at each intersection.
    at: [u32; VERTEX_COUNT],
}

impl Network {
    /// `roads` numbered in path order, if there are at most 32.
    fn of(topo: &Topology, roads: EdgeMask) -> Option<Network> {
        let len = roads.count_ones();
        if len > 32 {
            return None;
        }
        let mut network = Network {
            len,
            ends: [[0; 2]; 32],
            at: [0; VERTEX_COUNT],
        };
        let mut m = roads;
        let mut i = 0;
        while m != 0 {
            let [a, b] = topo.edge_vertices[m.trailing_zeros() as usize];
            m &= m - 1;
            network.ends[i] = [a.0, b.0];
            network.at[a.index()] |= 1 << i;
            network.at[b.index()] |= 1 << i;
            i += 1;
        }
        Some(network)
    }

    /// Every road.
    fn all(&self) -> u32 {
        u32::MAX.checked_shr(32 - self.len).unwrap_or(0)
    }

    /// [`walk`]: the longest trail from intersection `v` along the unused roads `left`.
    fn walk(&self, v: usize, left: u32, blocked: VertexMask) -> u8 {
        let mut best = 0;
        let mut roads = self.at[v] & left;
        while roads != 0 {
            let r = roads.trailing_zeros() as usize;
            roads &= roads - 1;
            let [a, b] = self.ends[r];
            let w = usize::from(a ^ b) ^ v;
            let onward = if blocked & (1u64 << w) != 0 {
                0
            } else {
                self.walk(w, left & !(1 << r), blocked)
            };
            best = best.max(1 + onward);
        }
        best
    }
}

/// The roads connected to the intersections `from` through `roads`.
fn component_edges(topo: &Topology, roads: EdgeMask, from: VertexMask) -> EdgeMask {
    let mut edges: EdgeMask = 0;
    let mut frontier = from;
    let mut seen = from;
    while frontier != 0 {
        let v = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let mut new = topo.vertex_edge_mask[v] & roads & !edges;
        edges |= new;
        while new != 0 {
            let ends = topo.edge_vertex_mask[new.trailing_zeros() as usize];
            new &= new - 1;
            frontier |= ends & !seen;
            seen |= ends;
        }
    }
    edges
}

/// The roads of `roads` that share a trail with `e`: connected to it through
/// intersections that are not `blocked` (a trail may end at a blocked intersection
/// but never passes through it).
fn trail_component(topo: &Topology, roads: EdgeMask, e: EdgeId, blocked: VertexMask) -> EdgeMask {
    let mut edges = e.bit();
    let mut seen = topo.edge_vertex_mask[e.index()];
    let mut frontier = seen & !blocked;
    while frontier != 0 {
        let v = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let mut new = topo.vertex_edge_mask[v] & roads & !edges;
        edges |= new;
        while new != 0 {
            let ends = topo.edge_vertex_mask[new.trailing_zeros() as usize];
            new &= new - 1;
            frontier |= ends & !seen & !blocked;
            seen |= ends;
        }
    }
    edges
}

/// The longest trail from intersection `v` along unused `roads`.
fn walk(topo: &Topology, v: usize, roads: EdgeMask, blocked: VertexMask) -> u8 {
    let mut best = 0;
    let mut edges = topo.vertex_edge_mask[v] & roads;
    while edges != 0 {
        let e = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        let w = (topo.edge_vertex_mask[e] & !(1u64 << v)).trailing_zeros() as usize;
        let onward = if blocked & (1u64 << w) != 0 {
            0
        } else {
            walk(topo, w, roads & !(1u128 << e), blocked)
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
    /// Recomputes every route from scratch, then Longest Road. For positions whose
    /// pieces were written directly; the rules use the narrower updates below.
    #[cfg_attr(not(test), allow(dead_code, reason = "used by the rule scenarios"))]
    pub(crate) fn update_longest_road(&mut self, out: &mut Vec<Event>) {
        let occupied = self.occupied_vertices();
        for p in &mut self.players[..usize::from(self.options.players)] {
            p.road_length = route_length(p.roads, p.buildings(), occupied);
        }
        self.decide_longest_road(out);
    }

    /// After `seat` built the road `e`: only its own route can have changed (its roads
    /// grew, nobody's buildings moved), and only through the roads a trail can reach
    /// from `e`; every other trail was already counted in the recorded length.
    pub(crate) fn update_longest_road_after_road(
        &mut self,
        seat: Seat,
        e: EdgeId,
        out: &mut Vec<Event>,
    ) {
        let blocked = route_blockers(
            self.players[seat.index()].buildings(),
            self.occupied_vertices(),
        );
        let p = &mut self.players[seat.index()];
        let topo = topology();
        if let Some(through) = route_through_new_road(topo, p.roads, e, blocked) {
            p.road_length = p.road_length.max(through);
        } else {
            let reachable = trail_component(topo, p.roads, e, blocked);
            // A trail uses each road once: a component no larger than the recorded
            // route cannot hold a longer one, and needs no search. The pass above met
            // a loop in it, so the search goes straight to it (`component_route` would
            // meet the loop again first).
            if reachable.count_ones() > u32::from(p.road_length) {
                p.road_length = p.road_length.max(search_route(topo, reachable, blocked));
            }
        }
        self.decide_longest_road(out);
    }

    /// After `seat` built a settlement on `v`: only opponents with two or more roads
    /// meeting at `v` can have been cut there; `seat`'s own route is unchanged.
    pub(crate) fn update_longest_road_after_settlement(
        &mut self,
        seat: Seat,
        v: VertexId,
        out: &mut Vec<Event>,
    ) {
        let at_v = topology().vertex_edge_mask[v.index()];
        let occupied = self.occupied_vertices();
        for (s, p) in self.players[..usize::from(self.options.players)]
            .iter_mut()
            .enumerate()
        {
            if s != seat.index() && (p.roads & at_v).count_ones() >= 2 {
                p.road_length = route_length(p.roads, p.buildings(), occupied);
            }
        }
        self.decide_longest_road(out);
    }

    /// on the recorded route lengths.
    fn decide_longest_road(&mut self, out: &mut Vec<Event>) {
        let lengths: [u8; MAX_SEATS] = std::array::from_fn(|s| self.players[s].road_length);
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
mod tests;
