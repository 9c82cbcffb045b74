//! What a bot reads off a view: who owns which intersection and path, what each
//! intersection yields in pips, where settlements may still go, and harbors.

use catan_engine::board::{EDGE_COUNT, EdgeMask, VERTEX_COUNT, VertexMask, topology};
use catan_engine::rules;
use catan_engine::{
    EdgeId, GameView, PlayerView, PrivateView, Resource, Resources, Seat, TileId, VertexId,
};

/// How much a pip of each resource is worth when choosing spots: cities (grain,
/// ore) and expansion (lumber, brick) matter most, wool least.
pub(crate) const RESOURCE_WEIGHT: [f32; 5] = [1.0, 1.0, 0.8, 1.05, 1.05];

/// Pips of a number token: how many of the 36 dice outcomes roll it (2/12=1 ..
/// 6/8=5); 0 for the desert.
#[must_use]
pub(crate) const fn pips(number: u8) -> u32 {
    match number {
        2 | 12 => 1,
        3 | 11 => 2,
        4 | 10 => 3,
        5 | 9 => 4,
        6 | 8 => 5,
        _ => 0,
    }
}

/// A view, indexed for quick questions.
pub(crate) struct Board<'a> {
    /// The view itself.
    pub view: &'a GameView,
    /// The viewer's private part.
    pub me: PrivateView,
    /// Building on each intersection: owner and whether it is a city.
    building: [Option<(Seat, bool)>; VERTEX_COUNT],
    /// Road owner of each path.
    road: [Option<Seat>; EDGE_COUNT],
    /// Harbor of each intersection: `Some(None)` generic 3:1, `Some(Some(r))` 2:1.
    harbor: [Option<Option<Resource>>; VERTEX_COUNT],
    /// Intersections with any building, for the engine's rule functions.
    occupied: VertexMask,
}

impl<'a> Board<'a> {
    /// Indexes `view`; `None` for a spectator's view (no seat to play for).
    pub(crate) fn new(view: &'a GameView) -> Option<Board<'a>> {
        let me = view.me?;
        let topo = topology();
        let mut building = [None; VERTEX_COUNT];
        for b in &view.buildings {
            building[b.vertex.index()] = Some((b.seat, b.city));
        }
        let mut road = [None; EDGE_COUNT];
        for r in &view.roads {
            road[r.edge.index()] = Some(r.seat);
        }
        let mut harbor = [None; VERTEX_COUNT];
        for h in &view.map.harbors {
            for v in topo.edge_vertices[h.edge.index()] {
                harbor[v.index()] = Some(h.resource);
            }
        }
        Some(Board {
            view,
            me,
            building,
            road,
            harbor,
            occupied: view.occupied_vertices(),
        })
    }

    /// The viewer's seat.
    pub(crate) fn seat(&self) -> Seat {
        self.me.seat
    }

    /// The viewer's hand.
    pub(crate) fn hand(&self) -> Resources {
        self.me.hand
    }

    /// Public facts about `seat`.
    pub(crate) fn player(&self, seat: Seat) -> &PlayerView {
        &self.view.players[seat.index()]
    }

    /// Public facts about the viewer.
    pub(crate) fn my_player(&self) -> &PlayerView {
        self.player(self.seat())
    }

    /// Every opponent's public facts.
    pub(crate) fn opponents(&self) -> impl Iterator<Item = &PlayerView> + '_ {
        let me = self.seat();
        self.view.players.iter().filter(move |p| p.seat != me)
    }

    /// The opponent closest to winning by public points (ties: more cards in hand,
    /// which may hide VP cards and builds).
    pub(crate) fn leader(&self) -> Option<Seat> {
        self.opponents()
            .max_by_key(|p| (p.public_vp, p.dev_cards + p.resource_cards, p.seat.0))
            .map(|p| p.seat)
    }

    /// The building on `v`.
    pub(crate) fn building(&self, v: VertexId) -> Option<(Seat, bool)> {
        self.building[v.index()]
    }

    /// The road on `e`.
    pub(crate) fn road(&self, e: EdgeId) -> Option<Seat> {
        self.road[e.index()]
    }

    /// The harbor `v` gives access to.
    pub(crate) fn harbor(&self, v: VertexId) -> Option<Option<Resource>> {
        self.harbor[v.index()]
    }

    /// The resource `t` produces.
    pub(crate) fn tile_resource(&self, t: TileId) -> Option<Resource> {
        self.view.map.terrain[t.index()].resource()
    }

    /// Pips of `t`'s number.
    pub(crate) fn tile_pips(&self, t: TileId) -> u32 {
        pips(self.view.map.numbers[t.index()])
    }

    /// Whether a settlement may stand on `v` by the distance rule, as the
    /// engine decides it.
    pub(crate) fn is_free_spot(&self, v: VertexId) -> bool {
        rules::distance_ok(self.occupied, v)
    }

    /// Pips per resource that a settlement on `v` would collect.
    pub(crate) fn vertex_yield(&self, v: VertexId) -> [u32; 5] {
        let mut y = [0; 5];
        for &t in &topology().vertex_tiles[v.index()] {
            if let Some(r) = self.tile_resource(t) {
                y[r.index()] += self.tile_pips(t);
            }
        }
        y
    }

    /// Pips per resource that `seat` collects now (cities twice, robber tile not).
    pub(crate) fn production(&self, seat: Seat) -> [u32; 5] {
        let mut y = [0; 5];
        for (v, b) in self.building.iter().enumerate() {
            let Some((owner, city)) = *b else { continue };
            if owner != seat {
                continue;
            }
            for &t in &topology().vertex_tiles[v] {
                if t == self.view.robber {
                    continue;
                }
                if let Some(r) = self.tile_resource(t) {
                    y[r.index()] += self.tile_pips(t) * if city { 2 } else { 1 };
                }
            }
        }
        y
    }

    /// The viewer's settlements (not cities).
    pub(crate) fn my_settlements(&self) -> impl Iterator<Item = VertexId> + '_ {
        let me = self.seat();
        (0..VERTEX_COUNT).filter_map(move |v| {
            let v = VertexId(v as u8);
            (self.building(v) == Some((me, false))).then_some(v)
        })
    }

    /// The viewer's roads as a mask.
    pub(crate) fn my_roads(&self) -> EdgeMask {
        self.roads_of(self.seat())
    }

    /// `seat`'s roads as a mask.
    pub(crate) fn roads_of(&self, seat: Seat) -> EdgeMask {
        self.view
            .roads
            .iter()
            .filter(|r| r.seat == seat)
            .fold(0, |m, r| m | r.edge.bit())
    }

    /// Free spots touching one of the viewer's roads: where a settlement could be
    /// built now with the cards, as the engine lists them.
    pub(crate) fn reachable_spots(&self) -> Vec<VertexId> {
        let spots = rules::settlement_spots(self.my_roads(), self.occupied);
        (0..VERTEX_COUNT)
            .map(|v| VertexId(v as u8))
            .filter(|v| spots & v.bit() != 0)
            .collect()
    }

    /// How good a new settlement on `v` is for a seat producing `prod`: weighted
    /// pips, a bonus for resources not produced yet, and its harbor.
    pub(crate) fn spot_value(&self, v: VertexId, prod: &[u32; 5]) -> f32 {
        let y = self.vertex_yield(v);
        let mut value = 0.0;
        for r in 0..5 {
            value += y[r] as f32 * RESOURCE_WEIGHT[r];
            if prod[r] == 0 && y[r] > 0 {
                value += 1.5;
            }
        }
        value
            + match self.harbor(v) {
                Some(Some(r)) => 0.25 * (prod[r.index()] + y[r.index()]).min(10) as f32,
                Some(None) => 1.0,
                None => 0.0,
            }
    }

    /// Whether `seat` may route a road through `v` (no opponent building, R-5.2).
    pub(crate) fn passable(&self, v: VertexId, seat: Seat) -> bool {
        self.building(v).is_none_or(|(s, _)| s == seat)
    }

    /// `seat`'s longest route if it also had the roads in `extra`, measured
    /// by the engine.
    pub(crate) fn longest_route(&self, seat: Seat, extra: EdgeMask) -> u32 {
        let own = self.view.buildings_of(seat);
        u32::from(rules::route_length(
            self.roads_of(seat) | extra,
            own,
            self.occupied,
        ))
    }

    /// Empty paths where the viewer could build a road now, cards and pieces aside
    /// as the engine lists them.
    pub(crate) fn road_spots(&self) -> EdgeMask {
        self.view.road_spots(self.seat())
    }

    /// Tiles that touch one of `seat`'s buildings.
    pub(crate) fn touches(&self, t: TileId, seat: Seat) -> bool {
        topology().tile_vertices[t.index()]
            .iter()
            .any(|v| self.building(*v).is_some_and(|(s, _)| s == seat))
    }
}
