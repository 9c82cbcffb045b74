//! Invariants every reachable game satisfies, checked from scratch for tests and fuzzing.
//!
//! [`check`] recomputes what the engine keeps incrementally (route lengths, scores,
//! awards) with independent, deliberately naive algorithms and compares, and checks
//! the conservation laws of the components. It never panics, so it also
//! vets a `Game` deserialized from untrusted JSON and every [`crate::Position`] made
//! into a game: both paths report the first broken rule as a [`PositionError`].

use crate::board::{
    EDGE_COUNT, EdgeId, EdgeMask, Map, NUMBER_BAG, TERRAIN_BAG, TILE_COUNT, Terrain, TileId,
    VERTEX_COUNT, VertexId, VertexMask, topology,
};
use crate::dev_card::DevCard;
use crate::game::{
    BANK_PER_RESOURCE, CITIES_PER_PLAYER, Game, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER,
};
use crate::position_error::{Award, Piece, PositionError};
use crate::resource::Resource;
use crate::rules::{LARGEST_ARMY_MIN, LONGEST_ROAD_MIN};
use crate::seat::{MAX_SEATS, Seat};

/// All 54 intersections.
const ALL_VERTICES: VertexMask = (1u64 << VERTEX_COUNT) - 1;
/// All 72 paths.
const ALL_EDGES: EdgeMask = (1u128 << EDGE_COUNT) - 1;

macro_rules! ensure {
    ($cond:expr, $err:expr) => {
        if !$cond {
            return Err($err);
        }
    };
}

mod turn;

use turn::{check_dice, check_offers, check_phase};

/// Checks every invariant of `game`.
///
/// # Errors
/// The first broken rule, as a [`PositionError`] citing it.
pub fn check(game: &Game) -> Result<(), PositionError> {
    check_seats(game)?;
    check_map(&game.map)?;
    check_resources(game)?;
    check_dev_cards(game)?;
    check_pieces(game)?;
    check_board(game)?;
    check_routes(game)?;
    check_awards(game)?;
    check_scores(game)?;
    check_offers(game)?;
    check_dice(game)?;
    check_phase(game)?;
    Ok(())
}

fn seats(game: &Game) -> impl Iterator<Item = Seat> + use<> {
    (0..game.options.players.min(MAX_SEATS as u8)).map(Seat)
}

/// Options valid, seats in range, and unused seats own nothing.
fn check_seats(game: &Game) -> Result<(), PositionError> {
    game.options.validate()?;
    let n = game.options.players;
    for (role, seat) in [("current", game.current), ("first", game.first)] {
        ensure!(seat.0 < n, PositionError::SeatOutOfRange { role, seat });
    }
    ensure!(
        game.robber.index() < TILE_COUNT,
        PositionError::RobberOffBoard(game.robber)
    );
    for (i, p) in game.players.iter().enumerate().skip(usize::from(n)) {
        ensure!(
            p.hand.is_empty()
                && p.dev_cards.total() == 0
                && p.dev_cards_new.total() == 0
                && p.knights_played == 0
                && p.settlements == 0
                && p.cities == 0
                && p.roads == 0
                && p.road_length == 0,
            PositionError::UnusedSeat(Seat(i as u8))
        );
    }
    Ok(())
}

/// the 19 terrain tiles and the 18 number tokens, none on the desert and
/// no 6 or 8 next to another (the beginner map obeys this too, so no map is exempt).
/// the 9 harbors lie on the standard coastal paths, in the topology's order
/// (the engine looks a harbor up by its index), four generic and one 2:1 per resource.
///
/// # Errors
/// The first broken rule of the map.
pub fn check_map(map: &Map) -> Result<(), PositionError> {
    let kinds = [
        Terrain::Forest,
        Terrain::Hills,
        Terrain::Pasture,
        Terrain::Fields,
        Terrain::Mountains,
        Terrain::Desert,
    ];
    for terrain in kinds {
        let count = |tiles: &[Terrain]| tiles.iter().filter(|&&x| x == terrain).count();
        ensure!(
            count(&map.terrain) == count(&TERRAIN_BAG),
            PositionError::TerrainCount {
                terrain,
                count: count(&map.terrain),
                expected: count(&TERRAIN_BAG),
            }
        );
    }
    let mut tokens = Vec::with_capacity(TILE_COUNT);
    for (&t, &n) in map.terrain.iter().zip(&map.numbers) {
        if t == Terrain::Desert {
            ensure!(n == 0, PositionError::NumberOnDesert(n));
        } else {
            tokens.push(n);
        }
    }
    tokens.sort_unstable();
    ensure!(tokens == NUMBER_BAG, PositionError::NumberTokens(tokens));
    check_six_eight(map)?;
    let harbors = &map.harbors;
    for (index, (h, &expected)) in harbors.iter().zip(&topology().harbor_edges).enumerate() {
        ensure!(
            h.edge == expected,
            PositionError::HarborEdge {
                index,
                edge: h.edge,
                expected,
            }
        );
    }
    let generic = harbors.iter().filter(|h| h.resource.is_none()).count();
    let one_each = Resource::ALL
        .iter()
        .all(|&r| harbors.iter().filter(|h| h.resource == Some(r)).count() == 1);
    ensure!(generic == 4 && one_each, PositionError::HarborKinds);
    Ok(())
}

/// no two tiles that carry a 6 or an 8 are adjacent.
fn check_six_eight(map: &Map) -> Result<(), PositionError> {
    let red = |n: u8| n == 6 || n == 8;
    for (t, neighbours) in topology().tile_neighbors.iter().enumerate() {
        let n = map.numbers[t];
        if !red(n) {
            continue;
        }
        if let Some(&m) = neighbours.iter().find(|m| red(map.numbers[m.index()])) {
            return Err(PositionError::AdjacentSixEight {
                tiles: [TileId(t as u8), m],
                numbers: [n, map.numbers[m.index()]],
            });
        }
    }
    Ok(())
}

/// bank plus hands is 19 of each resource.
fn check_resources(game: &Game) -> Result<(), PositionError> {
    for resource in Resource::ALL {
        let total: u32 = u32::from(game.bank.get(resource))
            + game
                .players
                .iter()
                .map(|p| u32::from(p.hand.get(resource)))
                .sum::<u32>();
        ensure!(
            total == u32::from(BANK_PER_RESOURCE),
            PositionError::ResourceCount { resource, total }
        );
    }
    Ok(())
}

/// 25 development cards; knights are tracked through play, VP cards are never
/// played, the other kinds can only have been played.
fn check_dev_cards(game: &Game) -> Result<(), PositionError> {
    let in_deck = |c: DevCard| game.dev_deck.iter().filter(|&&d| d == c).count() as u32;
    let held = |c: DevCard| {
        game.players
            .iter()
            .map(|p| u32::from(p.dev_cards.get(c)))
            .sum::<u32>()
    };
    let knights_played: u32 = game
        .players
        .iter()
        .map(|p| u32::from(p.knights_played))
        .sum();
    for card in DevCard::ALL {
        let count = in_deck(card)
            + held(card)
            + if card == DevCard::Knight {
                knights_played
            } else {
                0
            };
        let expected = card.deck_count();
        let exact = matches!(card, DevCard::Knight | DevCard::VictoryPoint);
        ensure!(
            count == u32::from(expected) || (!exact && count < u32::from(expected)),
            PositionError::DevCardCount {
                card,
                count,
                expected,
            }
        );
    }
    for (i, p) in game.players.iter().enumerate() {
        let fits = DevCard::ALL
            .iter()
            .all(|&c| p.dev_cards_new.get(c) <= p.dev_cards.get(c));
        let fresh = p.dev_cards_new.total() > 0;
        ensure!(
            fits && (!fresh || i == game.current.index()),
            PositionError::NewDevCards(Seat(i as u8))
        );
    }
    Ok(())
}

/// supplies and one piece per spot.
fn check_pieces(game: &Game) -> Result<(), PositionError> {
    let mut vertices: VertexMask = 0;
    let mut edges: EdgeMask = 0;
    for seat in seats(game) {
        let p = &game.players[seat.index()];
        for (piece, mask, all) in [
            (
                Piece::Settlement,
                u128::from(p.settlements),
                u128::from(ALL_VERTICES),
            ),
            (Piece::City, u128::from(p.cities), u128::from(ALL_VERTICES)),
            (Piece::Road, p.roads, ALL_EDGES),
        ] {
            ensure!(
                mask & !all == 0,
                PositionError::PieceOffBoard { seat, piece }
            );
        }
        for (piece, count, limit) in [
            (Piece::Road, p.roads.count_ones(), ROADS_PER_PLAYER),
            (
                Piece::Settlement,
                p.settlements.count_ones(),
                SETTLEMENTS_PER_PLAYER,
            ),
            (Piece::City, p.cities.count_ones(), CITIES_PER_PLAYER),
        ] {
            ensure!(
                count <= u32::from(limit),
                PositionError::PieceSupply {
                    seat,
                    piece,
                    count,
                    limit,
                }
            );
        }
        let shared = (p.settlements & p.cities) | (vertices & p.buildings());
        ensure!(
            shared == 0,
            PositionError::SharedIntersection(VertexId(shared.trailing_zeros() as u8))
        );
        let shared = edges & p.roads;
        ensure!(
            shared == 0,
            PositionError::SharedPath(EdgeId(shared.trailing_zeros() as u8))
        );
        vertices |= p.buildings();
        edges |= p.roads;
    }
    Ok(())
}

/// distance rule on the whole board; every road reaches its owner's building.
fn check_board(game: &Game) -> Result<(), PositionError> {
    let topo = topology();
    let occupied = game.occupied_vertices();
    for v in 0..VERTEX_COUNT {
        if occupied & (1 << v) == 0 {
            continue;
        }
        for n in &topo.vertex_neighbors[v] {
            ensure!(
                occupied & n.bit() == 0,
                PositionError::DistanceRule([VertexId(v as u8), *n])
            );
        }
    }
    for seat in seats(game) {
        let p = &game.players[seat.index()];
        // Grow the network from the buildings along own roads; every road must be reached.
        let mut reached: VertexMask = p.buildings();
        let mut covered: EdgeMask = 0;
        loop {
            let mut grew = false;
            for e in 0..EDGE_COUNT {
                let bit = 1u128 << e;
                if p.roads & bit != 0
                    && covered & bit == 0
                    && reached & topo.edge_vertex_mask[e] != 0
                {
                    covered |= bit;
                    reached |= topo.edge_vertex_mask[e];
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let loose = p.roads & !covered;
        ensure!(
            loose == 0,
            PositionError::RoadNotConnected {
                seat,
                edge: EdgeId(loose.trailing_zeros() as u8),
            }
        );
    }
    Ok(())
}

/// every recorded route length equals an independent brute-force search.
fn check_routes(game: &Game) -> Result<(), PositionError> {
    let occupied = game.occupied_vertices();
    for seat in seats(game) {
        let p = &game.players[seat.index()];
        let actual = longest_trail(p.roads, occupied & !p.buildings());
        ensure!(
            p.road_length == actual,
            PositionError::RoadLength {
                seat,
                recorded: p.road_length,
                actual,
            }
        );
    }
    Ok(())
}

/// The longest trail in `roads`, searched edge by edge by brute force: each
/// state is the last road used and the intersection it leads to; `blocked`
/// intersections (opponents' buildings) end a trail. Deliberately naive and
/// independent of [`crate::rules::longest_route`], against which tests compare it.
#[must_use]
pub fn longest_trail(roads: EdgeMask, blocked: VertexMask) -> u8 {
    let mut best = 0;
    for e in 0..EDGE_COUNT {
        if roads & (1u128 << e) == 0 {
            continue;
        }
        for end in topology().edge_vertices[e] {
            best = best.max(extend(roads, blocked, 1u128 << e, end.index()));
        }
    }
    best
}

/// Length of the best trail whose roads so far are `used`, now standing at `at`.
fn extend(roads: EdgeMask, blocked: VertexMask, used: EdgeMask, at: usize) -> u8 {
    let here = used.count_ones() as u8;
    if blocked & (1u64 << at) != 0 {
        return here;
    }
    let mut best = here;
    for f in 0..EDGE_COUNT {
        let bit = 1u128 << f;
        let [a, b] = topology().edge_vertices[f];
        if roads & bit == 0 || used & bit != 0 || (a.index() != at && b.index() != at) {
            continue;
        }
        let next = if a.index() == at { b } else { a };
        best = best.max(extend(roads, blocked, used | bit, next.index()));
    }
    best
}

/// outcome for one award: a holder is at the minimum and tied for highest; no
/// holder means nobody reaches the minimum or the highest are tied.
fn check_award(
    award: Award,
    holder: Option<Seat>,
    values: &[u8],
    min: u8,
) -> Result<(), PositionError> {
    let max = values.iter().copied().max().unwrap_or(0);
    match holder {
        Some(h) => {
            let value = values.get(h.index()).copied().unwrap_or(0);
            ensure!(
                h.index() < values.len() && value >= min && value == max,
                PositionError::AwardHolder {
                    award,
                    holder: h,
                    value,
                    min,
                    max,
                }
            );
        }
        None => {
            let mut leaders = (0..values.len()).filter(|&s| values[s] == max);
            if let (Some(leader), None) = (leaders.next(), leaders.next()) {
                ensure!(
                    max < min,
                    PositionError::AwardUnheld {
                        award,
                        leader: Seat(leader as u8),
                        value: max,
                    }
                );
            }
        }
    }
    Ok(())
}

/// ..R-10.3 for both awards.
fn check_awards(game: &Game) -> Result<(), PositionError> {
    let roads: Vec<u8> = seats(game)
        .map(|s| game.players[s.index()].road_length)
        .collect();
    let knights: Vec<u8> = seats(game)
        .map(|s| game.players[s.index()].knights_played)
        .collect();
    check_award(
        Award::LongestRoad,
        game.longest_road,
        &roads,
        LONGEST_ROAD_MIN,
    )?;
    check_award(
        Award::LargestArmy,
        game.largest_army,
        &knights,
        LARGEST_ARMY_MIN,
    )
}

/// public and total points from the board, the awards and the cards,
/// compared with `public_vp`, `total_vp` and every view.
fn check_scores(game: &Game) -> Result<(), PositionError> {
    let spectator = game.view(None);
    for s in seats(game) {
        let p = &game.players[s.index()];
        let mut public = p.settlements.count_ones() + 2 * p.cities.count_ones();
        if game.longest_road == Some(s) {
            public += 2;
        }
        if game.largest_army == Some(s) {
            public += 2;
        }
        let total = public + u32::from(p.dev_cards.get(DevCard::VictoryPoint));
        let view = game.view(Some(s));
        let own = view
            .me
            .as_ref()
            .is_some_and(|me| me.seat == s && u32::from(me.total_vp) == total);
        let shown = [&view, &spectator].iter().all(|v| {
            v.players
                .get(s.index())
                .is_some_and(|pv| pv.seat == s && u32::from(pv.public_vp) == public)
        });
        ensure!(
            spectator.me.is_none()
                && u32::from(game.public_vp(s)) == public
                && u32::from(game.total_vp(s)) == total
                && own
                && shown,
            PositionError::Score(s)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameOptions;

    #[test]
    fn a_new_game_satisfies_every_invariant() {
        //
        for seed in 0..20 {
            let g = Game::new(GameOptions::default(), seed).unwrap();
            assert_eq!(check(&g), Ok(()));
        }
    }

    #[test]
    fn a_card_out_of_nowhere_breaks_resource_conservation() {
        //
        let mut g = Game::new(GameOptions::default(), 1).unwrap();
        *g.players[0].hand.get_mut(Resource::Ore) += 1;
        assert!(check(&g).unwrap_err().to_string().contains("R-2.5"));
    }

    #[test]
    fn a_lost_knight_breaks_dev_card_conservation() {
        //
        let mut g = Game::new(GameOptions::default(), 1).unwrap();
        let i = g
            .dev_deck
            .iter()
            .position(|&c| c == DevCard::Knight)
            .unwrap();
        g.dev_deck.remove(i);
        assert!(check(&g).unwrap_err().to_string().contains("Knight"));
    }

    #[test]
    fn the_brute_force_route_counts_a_loop_and_not_branches() {
        // a hexagon of six roads is a route of 6; three branches of 2 give 4.
        let topo = topology();
        let ring = topo.tile_vertices[9];
        let mut roads = 0;
        for i in 0..6 {
            let e = topo.edge_between(ring[i], ring[(i + 1) % 6]).unwrap();
            roads |= e.bit();
        }
        assert_eq!(longest_trail(roads, 0), 6);
        // Blocking one corner of the ring leaves a path of 6 that starts and ends there.
        assert_eq!(longest_trail(roads, ring[0].bit()), 6);
        let centre = crate::VertexId(20);
        let mut star = 0;
        for &n in &topo.vertex_neighbors[centre.index()] {
            star |= topo.edge_between(centre, n).unwrap().bit();
            let far = topo.vertex_neighbors[n.index()]
                .iter()
                .copied()
                .find(|&m| m != centre)
                .unwrap();
            star |= topo.edge_between(n, far).unwrap().bit();
        }
        assert_eq!(star.count_ones(), 6);
        assert_eq!(longest_trail(star, 0), 4);
        assert_eq!(longest_trail(star, centre.bit()), 2);
    }
}
