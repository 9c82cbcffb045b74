//! Building roads, settlements and cities, in setup, normal play and Road Building.

use crate::board::{EDGE_COUNT, EdgeId, EdgeMask, VERTEX_COUNT, VertexId, VertexMask, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::Seat;

/// All 54 intersections.
const ALL_VERTICES: VertexMask = (1u64 << VERTEX_COUNT) - 1;

/// The distance rule: whether a settlement may stand on `v` while
/// buildings stand on `occupied`, that is `v` and all its neighbours are empty. Roads
/// and cards aside; the game checks it exactly this way, and views and bots ask it
/// here rather than knowing the rule.
///
/// An id off the board (54 and above) is never allowed.
#[inline]
#[must_use]
pub fn distance_ok(occupied: VertexMask, v: VertexId) -> bool {
    let Some(&neighbours) = topology().vertex_neighbor_mask.get(v.index()) else {
        return false;
    };
    occupied & (v.bit() | neighbours) == 0
}

/// The empty paths where a seat with the roads `own_roads` and the buildings
/// `own_buildings` may build a road, while buildings stand on `occupied` and
/// roads on `roads` (everyone's, own included): touching an own building, or an own
/// road at an intersection without an opponent's building. Pieces and cards aside;
/// the game lists roads exactly this way.
#[must_use]
pub fn road_spots(
    own_roads: EdgeMask,
    own_buildings: VertexMask,
    occupied: VertexMask,
    roads: EdgeMask,
) -> EdgeMask {
    let topo = topology();
    let opponents = occupied & !own_buildings;
    let reach = own_buildings | (road_ends(own_roads) & !opponents);
    let mut edges: EdgeMask = 0;
    let mut m = reach;
    while m != 0 {
        let v = m.trailing_zeros() as usize;
        m &= m - 1;
        edges |= topo.vertex_edge_mask[v];
    }
    edges & !roads
}

/// Every intersection where the distance rule allows a settlement while
/// buildings stand on `occupied`: empty, with no building on any neighbour.
#[must_use]
pub fn distance_ok_vertices(occupied: VertexMask) -> VertexMask {
    let topo = topology();
    let mut blocked = occupied;
    let mut m = occupied;
    while m != 0 {
        let v = m.trailing_zeros() as usize;
        m &= m - 1;
        blocked |= topo.vertex_neighbor_mask[v];
    }
    ALL_VERTICES & !blocked
}

/// Where a seat with the roads `own_roads` may build a settlement after setup while
/// buildings stand on `occupied`: the distance rule and an own road
/// at the intersection. Pieces and cards aside; the game lists settlements this way.
#[must_use]
pub fn settlement_spots(own_roads: EdgeMask, occupied: VertexMask) -> VertexMask {
    distance_ok_vertices(occupied) & road_ends(own_roads)
}

/// The intersections at either end of `roads`.
fn road_ends(roads: EdgeMask) -> VertexMask {
    let topo = topology();
    let mut ends = 0;
    let mut m = roads;
    while m != 0 {
        ends |= topo.edge_vertex_mask[m.trailing_zeros() as usize];
        m &= m - 1;
    }
    ends
}

impl Game {
    /// Intersections where the distance rule allows a settlement: empty, with
    /// no building on any neighbour.
    pub(crate) fn distance_ok_vertices(&self) -> VertexMask {
        distance_ok_vertices(self.occupied_vertices())
    }

    /// Legal settlement spots after setup, as [`settlement_spots`] tells them.
    pub(crate) fn settlement_spots(&self, seat: Seat) -> VertexMask {
        settlement_spots(self.players[seat.index()].roads, self.occupied_vertices())
    }

    /// Empty paths where `seat` may build a road, as [`road_spots`] tells them.
    pub(crate) fn road_spots(&self, seat: Seat) -> EdgeMask {
        let p = &self.players[seat.index()];
        road_spots(
            p.roads,
            p.buildings(),
            self.occupied_vertices(),
            self.occupied_edges(),
        )
    }

    /// Whether `v` is in [`Game::distance_ok_vertices`], without listing them all.
    pub(crate) fn distance_ok(&self, v: VertexId) -> bool {
        distance_ok(self.occupied_vertices(), v)
    }

    /// Whether `v` is in [`Game::settlement_spots`] of `seat`, without listing them all:
    /// the distance rule and an own road at `v`.
    pub(crate) fn settlement_spot_ok(&self, seat: Seat, v: VertexId) -> bool {
        let roads = self.players[seat.index()].roads;
        self.distance_ok(v) && roads & topology().vertex_edge_mask[v.index()] != 0
    }

    /// Whether `e` is in [`Game::road_spots`] of `seat`, without listing them all: an
    /// empty path with an end that is an own building, or that an own road reaches and
    /// no opponent's building holds.
    pub(crate) fn road_spot_ok(&self, seat: Seat, e: EdgeId) -> bool {
        let topo = topology();
        let p = &self.players[seat.index()];
        let own = p.buildings();
        let opponents = self.occupied_vertices() & !own;
        let reaches = |w: VertexId| {
            own & w.bit() != 0
                || (opponents & w.bit() == 0 && p.roads & topo.vertex_edge_mask[w.index()] != 0)
        };
        let [a, b] = topo.edge_vertices[e.index()];
        self.occupied_edges() & e.bit() == 0 && (reaches(a) || reaches(b))
    }

    /// Pays `cost` to the bank, announcing it.
    fn pay(&mut self, seat: Seat, cost: Resources, out: &mut Vec<Event>) {
        self.players[seat.index()].hand.sub(&cost);
        self.bank.add(&cost);
        out.push(Event::Paid { seat, cards: cost });
    }

    pub(crate) fn build_settlement(
        &mut self,
        seat: Seat,
        v: VertexId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if v.index() >= VERTEX_COUNT {
            return Err(ActionError::InvalidLocation);
        }
        match self.phase {
            Phase::Setup {
                index,
                settlement: None,
            } => {
                // distance rule, no road needed.
                if !self.distance_ok(v) {
                    return Err(ActionError::IllegalPlacement);
                }
                self.place_setup_settlement(seat, index, v, out);
                Ok(())
            }
            Phase::Main => {
                let p = &self.players[seat.index()];
                if p.settlements_left() == 0 {
                    return Err(ActionError::NoPiecesLeft);
                }
                if !self.settlement_spot_ok(seat, v) {
                    return Err(ActionError::IllegalPlacement);
                }
                if !p.hand.contains(&Resources::SETTLEMENT) {
                    return Err(ActionError::InsufficientResources);
                }
                self.pay(seat, Resources::SETTLEMENT, out);
                self.place_settlement(seat, v);
                out.push(Event::SettlementBuilt { seat, vertex: v });
                // A new building may cut an opponent's route.
                self.update_longest_road_after_settlement(seat, v, out);
                Ok(())
            }
            _ => Err(ActionError::WrongPhase),
        }
    }

    pub(crate) fn build_road(
        &mut self,
        seat: Seat,
        e: EdgeId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if e.index() >= EDGE_COUNT {
            return Err(ActionError::InvalidLocation);
        }
        match self.phase {
            Phase::Setup {
                index,
                settlement: Some(v),
            } => {
                // the road touches the settlement just placed.
                if topology().edge_vertex_mask[e.index()] & v.bit() == 0
                    || self.occupied_edges() & e.bit() != 0
                {
                    return Err(ActionError::IllegalPlacement);
                }
                self.place_setup_road(seat, index, e, out);
                Ok(())
            }
            Phase::Main => {
                let p = &self.players[seat.index()];
                if p.roads_left() == 0 {
                    return Err(ActionError::NoPiecesLeft);
                }
                if !self.road_spot_ok(seat, e) {
                    return Err(ActionError::IllegalPlacement);
                }
                if !p.hand.contains(&Resources::ROAD) {
                    return Err(ActionError::InsufficientResources);
                }
                self.pay(seat, Resources::ROAD, out);
                self.place_road(seat, e, out);
                Ok(())
            }
            Phase::RoadBuilding { remaining, resume } => {
                // free roads, each legal by.
                if self.players[seat.index()].roads_left() == 0 {
                    return Err(ActionError::NoPiecesLeft);
                }
                if !self.road_spot_ok(seat, e) {
                    return Err(ActionError::IllegalPlacement);
                }
                self.place_road(seat, e, out);
                let more = remaining > 1
                    && self.players[seat.index()].roads_left() > 0
                    && self.road_spots(seat) != 0;
                if more {
                    self.set_phase(
                        Phase::RoadBuilding {
                            remaining: remaining - 1,
                            resume,
                        },
                        out,
                    );
                } else {
                    self.set_phase(resume.into(), out);
                }
                Ok(())
            }
            _ => Err(ActionError::WrongPhase),
        }
    }

    fn place_road(&mut self, seat: Seat, e: EdgeId, out: &mut Vec<Event>) {
        self.players[seat.index()].roads |= e.bit();
        out.push(Event::RoadBuilt { seat, edge: e });
        self.update_longest_road_after_road(seat, e, out);
    }

    pub(crate) fn build_city(
        &mut self,
        seat: Seat,
        v: VertexId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if v.index() >= VERTEX_COUNT {
            return Err(ActionError::InvalidLocation);
        }
        if self.phase != Phase::Main {
            return Err(ActionError::WrongPhase);
        }
        let p = &self.players[seat.index()];
        if p.settlements & v.bit() == 0 {
            return Err(ActionError::IllegalPlacement);
        }
        if p.cities_left() == 0 {
            return Err(ActionError::NoPiecesLeft);
        }
        if !p.hand.contains(&Resources::CITY) {
            return Err(ActionError::InsufficientResources);
        }
        self.pay(seat, Resources::CITY, out);
        self.place_city(seat, v);
        out.push(Event::CityBuilt { seat, vertex: v });
        Ok(())
    }

    /// Puts a settlement of `seat` on the empty `v`: one point more, and the
    /// harbor there, if any, in reach.
    pub(crate) fn place_settlement(&mut self, seat: Seat, v: VertexId) {
        self.players[seat.index()].settlements |= v.bit();
        let b = &mut self.buildings[seat.index()];
        b.points += 1;
        b.harbors |= crate::rules::harbors_in_reach(&self.map, v.bit());
    }

    /// Replaces the settlement of `seat` on `v` with a city: one point more,
    /// the same harbors.
    fn place_city(&mut self, seat: Seat, v: VertexId) {
        let p = &mut self.players[seat.index()];
        // the settlement returns to the supply.
        p.settlements &= !v.bit();
        p.cities |= v.bit();
        self.buildings[seat.index()].points += 1;
    }
}
