//! Invariants every reachable game satisfies, checked from scratch for tests and fuzzing.
//!
//! [`check`] recomputes what the engine keeps incrementally (route lengths, scores,
//! awards) with independent, deliberately naive algorithms and compares, and checks
//! the conservation laws of the components. It never panics, so it can
//! also vet a `Game` deserialized from untrusted JSON.

use crate::board::{
    EDGE_COUNT, EdgeMask, NUMBER_BAG, TERRAIN_BAG, TILE_COUNT, Terrain, VERTEX_COUNT, VertexMask,
    topology,
};
use crate::dev_card::DevCard;
use crate::game::{
    BANK_PER_RESOURCE, CITIES_PER_PLAYER, Game, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER,
};
use crate::phase::{Phase, Resume};
use crate::resource::Resource;
use crate::rules::{LARGEST_ARMY_MIN, LONGEST_ROAD_MIN, MAX_OPEN_OFFERS, setup_seat};
use crate::seat::{MAX_SEATS, Seat};

/// All 54 intersections.
const ALL_VERTICES: VertexMask = (1u64 << VERTEX_COUNT) - 1;
/// All 72 paths.
const ALL_EDGES: EdgeMask = (1u128 << EDGE_COUNT) - 1;

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Checks every invariant of `game`.
///
/// # Errors
/// A description of the first invariant that does not hold.
pub fn check(game: &Game) -> Result<(), String> {
    check_seats(game)?;
    check_map(game)?;
    check_resources(game)?;
    check_dev_cards(game)?;
    check_pieces(game)?;
    check_board(game)?;
    check_routes(game)?;
    check_awards(game)?;
    check_scores(game)?;
    check_offers(game)?;
    check_phase(game)?;
    Ok(())
}

fn seats(game: &Game) -> impl Iterator<Item = Seat> + use<> {
    (0..game.options.players.min(MAX_SEATS as u8)).map(Seat)
}

/// Options valid, seats in range, and unused seats own nothing.
fn check_seats(game: &Game) -> Result<(), String> {
    game.options
        .validate()
        .map_err(|e| format!("invalid options: {e}"))?;
    let n = game.options.players;
    ensure!(game.current.0 < n, "current {} out of range", game.current);
    ensure!(game.first.0 < n, "first {} out of range", game.first);
    ensure!(
        game.robber.index() < TILE_COUNT,
        "robber on tile {} (R-2.7)",
        game.robber.0
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
            "unused seat {i} owns something"
        );
    }
    Ok(())
}

/// the 19 terrain tiles and the 18 number tokens, none on the desert.
/// the 9 harbors lie on the standard coastal paths, in the topology's order
/// (the engine looks a harbor up by its index), four generic and one 2:1 per resource.
fn check_map(game: &Game) -> Result<(), String> {
    let map = &game.map;
    let kinds = [
        Terrain::Forest,
        Terrain::Hills,
        Terrain::Pasture,
        Terrain::Fields,
        Terrain::Mountains,
        Terrain::Desert,
    ];
    for t in kinds {
        let count = |tiles: &[Terrain]| tiles.iter().filter(|&&x| x == t).count();
        ensure!(
            count(&map.terrain) == count(&TERRAIN_BAG),
            "{} tiles of {t:?} (R-2.1)",
            count(&map.terrain)
        );
    }
    let mut tokens = Vec::with_capacity(TILE_COUNT);
    for (&t, &n) in map.terrain.iter().zip(&map.numbers) {
        if t == Terrain::Desert {
            ensure!(n == 0, "number {n} on the desert (R-2.2)");
        } else {
            tokens.push(n);
        }
    }
    tokens.sort_unstable();
    ensure!(tokens == NUMBER_BAG, "number tokens {tokens:?} (R-2.2)");
    let harbors = &map.harbors;
    for (h, &edge) in harbors.iter().zip(&topology().harbor_edges) {
        ensure!(
            h.edge == edge,
            "a harbor on path {} instead of {} (R-2.3)",
            h.edge.0,
            edge.0
        );
    }
    let generic = harbors.iter().filter(|h| h.resource.is_none()).count();
    ensure!(generic == 4, "{generic} generic harbors, not 4 (R-2.3)");
    for r in Resource::ALL {
        let n = harbors.iter().filter(|h| h.resource == Some(r)).count();
        ensure!(n == 1, "{n} 2:1 harbors of {}, not 1 (R-2.3)", r.name());
    }
    Ok(())
}

/// bank plus hands is 19 of each resource.
fn check_resources(game: &Game) -> Result<(), String> {
    for r in Resource::ALL {
        let total: u32 = u32::from(game.bank.get(r))
            + game
                .players
                .iter()
                .map(|p| u32::from(p.hand.get(r)))
                .sum::<u32>();
        ensure!(
            total == u32::from(BANK_PER_RESOURCE),
            "{} cards of {} exist, not {BANK_PER_RESOURCE} (R-2.5)",
            total,
            r.name()
        );
    }
    Ok(())
}

/// 25 development cards; knights are tracked through play, VP cards are never
/// played, the other kinds can only have been played.
fn check_dev_cards(game: &Game) -> Result<(), String> {
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
    for c in DevCard::ALL {
        let seen = in_deck(c)
            + held(c)
            + if c == DevCard::Knight {
                knights_played
            } else {
                0
            };
        let full = u32::from(c.deck_count());
        match c {
            DevCard::Knight | DevCard::VictoryPoint => ensure!(
                seen == full,
                "{c:?}: deck + held + played = {seen}, not {full} (R-2.5)"
            ),
            _ => ensure!(seen <= full, "{c:?}: {seen} cards exist, more than {full}"),
        }
    }
    for (i, p) in game.players.iter().enumerate() {
        for c in DevCard::ALL {
            ensure!(
                p.dev_cards_new.get(c) <= p.dev_cards.get(c),
                "seat {i} bought more {c:?} this turn than it holds"
            );
        }
        let fresh = p.dev_cards_new.total() > 0;
        ensure!(
            !fresh || i == game.current.index(),
            "seat {i} holds cards bought this turn but it is not its turn (R-8.1)"
        );
    }
    Ok(())
}

/// supplies and one piece per spot.
fn check_pieces(game: &Game) -> Result<(), String> {
    let mut vertices: VertexMask = 0;
    let mut edges: EdgeMask = 0;
    for s in seats(game) {
        let p = &game.players[s.index()];
        ensure!(
            (p.settlements | p.cities) & !ALL_VERTICES == 0 && p.roads & !ALL_EDGES == 0,
            "{s} has pieces off the board"
        );
        ensure!(
            p.roads.count_ones() <= u32::from(ROADS_PER_PLAYER),
            "{s} has {} roads (R-2.6)",
            p.roads.count_ones()
        );
        ensure!(
            p.settlements.count_ones() <= u32::from(SETTLEMENTS_PER_PLAYER),
            "{s} has {} settlements (R-2.6)",
            p.settlements.count_ones()
        );
        ensure!(
            p.cities.count_ones() <= u32::from(CITIES_PER_PLAYER),
            "{s} has {} cities (R-2.6)",
            p.cities.count_ones()
        );
        ensure!(
            p.settlements & p.cities == 0,
            "{s} has a settlement and a city on one intersection"
        );
        ensure!(
            vertices & p.buildings() == 0,
            "two seats' buildings share an intersection ({s})"
        );
        ensure!(edges & p.roads == 0, "two seats' roads share a path ({s})");
        vertices |= p.buildings();
        edges |= p.roads;
    }
    Ok(())
}

/// distance rule on the whole board; every road reaches its owner's building.
fn check_board(game: &Game) -> Result<(), String> {
    let topo = topology();
    let occupied = game.occupied_vertices();
    for v in 0..VERTEX_COUNT {
        if occupied & (1 << v) == 0 {
            continue;
        }
        for n in &topo.vertex_neighbors[v] {
            ensure!(
                occupied & n.bit() == 0,
                "buildings on adjacent intersections {v} and {} (R-5.3)",
                n.0
            );
        }
    }
    for s in seats(game) {
        let p = &game.players[s.index()];
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
        ensure!(
            covered == p.roads,
            "{s} has roads not connected to its buildings (R-5.2)"
        );
    }
    Ok(())
}

/// every recorded route length equals an independent brute-force search.
fn check_routes(game: &Game) -> Result<(), String> {
    let occupied = game.occupied_vertices();
    for s in seats(game) {
        let p = &game.players[s.index()];
        let expected = longest_trail(p.roads, occupied & !p.buildings());
        ensure!(
            p.road_length == expected,
            "{s} road_length is {}, a brute-force search finds {expected} (R-10.1)",
            p.road_length
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
fn check_award(name: &str, holder: Option<Seat>, values: &[u8], min: u8) -> Result<(), String> {
    let max = values.iter().copied().max().unwrap_or(0);
    match holder {
        Some(h) => {
            let v = values.get(h.index()).copied();
            ensure!(v.is_some(), "{name} held by missing {h}");
            let v = v.unwrap_or(0);
            ensure!(v >= min, "{name} held by {h} with {v} < {min}");
            ensure!(
                v == max,
                "{name} held by {h} with {v}, but someone has {max}"
            );
        }
        None => {
            let leaders = values.iter().filter(|&&v| v == max).count();
            ensure!(
                max < min || leaders > 1,
                "{name} unheld though one seat leads with {max}"
            );
        }
    }
    Ok(())
}

/// ..R-10.3 for both awards.
fn check_awards(game: &Game) -> Result<(), String> {
    let roads: Vec<u8> = seats(game)
        .map(|s| game.players[s.index()].road_length)
        .collect();
    let knights: Vec<u8> = seats(game)
        .map(|s| game.players[s.index()].knights_played)
        .collect();
    check_award("Longest Road", game.longest_road, &roads, LONGEST_ROAD_MIN)?;
    check_award(
        "Largest Army",
        game.largest_army,
        &knights,
        LARGEST_ARMY_MIN,
    )
}

/// public and total points from the board, the awards and the cards,
/// compared with `public_vp`, `total_vp` and every view.
fn check_scores(game: &Game) -> Result<(), String> {
    let spectator = game.view(None);
    ensure!(spectator.me.is_none(), "a spectator view has private facts");
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
        ensure!(
            u32::from(game.public_vp(s)) == public,
            "{s} public_vp {} != {public} (R-1.2)",
            game.public_vp(s)
        );
        ensure!(
            u32::from(game.total_vp(s)) == total,
            "{s} total_vp {} != {total} (R-1.3)",
            game.total_vp(s)
        );
        let view = game.view(Some(s));
        let me = view.me.ok_or_else(|| format!("{s} view lacks `me`"))?;
        ensure!(
            me.seat == s && u32::from(me.total_vp) == total,
            "{s} own view says {} points, not {total}",
            me.total_vp
        );
        for v in [&view, &spectator] {
            let pv = v.players.get(s.index());
            ensure!(
                pv.is_some_and(|pv| pv.seat == s && u32::from(pv.public_vp) == public),
                "a view shows {s} with other public points than {public}"
            );
        }
    }
    Ok(())
}

/// open offers are well formed and answerable.
fn check_offers(game: &Game) -> Result<(), String> {
    ensure!(
        game.offers.len() <= MAX_OPEN_OFFERS,
        "{} offers open",
        game.offers.len()
    );
    let mut last = 0;
    for o in &game.offers {
        ensure!(
            o.id.0 > last && o.id.0 < game.next_offer,
            "offer ids out of order or unissued ({})",
            o.id.0
        );
        last = o.id.0;
        ensure!(
            !o.give.is_empty() && !o.get.is_empty() && !o.give.overlaps(&o.get),
            "offer {} has malformed terms (R-9.2)",
            o.id.0
        );
        ensure!(
            o.from.0 < game.options.players,
            "offer {} from nobody",
            o.id.0
        );
        match o.counter_to {
            None => ensure!(
                o.from == game.current
                    && o.to
                        .is_none_or(|t| t != o.from && t.0 < game.options.players),
                "offer {} is not the current player's to an opponent (R-9.1)",
                o.id.0
            ),
            Some(c) => ensure!(
                o.from != game.current && o.to == Some(game.current) && c.0 < o.id.0,
                "counter-offer {} is not an opponent's to the current player (R-9.3)",
                o.id.0
            ),
        }
        let recipients = seats(game)
            .filter(|&s| o.is_recipient(s))
            .fold(0u8, |m, s| m | (1 << s.0));
        ensure!(
            o.accepted & o.rejected == 0 && (o.accepted | o.rejected) & !recipients == 0,
            "offer {} has answers from non-recipients or both answers",
            o.id.0
        );
        ensure!(
            o.rejected != recipients,
            "offer {} rejected by all yet open",
            o.id.0
        );
    }
    Ok(())
}

/// The phase agrees with the rest of the state.
fn check_phase(game: &Game) -> Result<(), String> {
    let offers_allowed = matches!(
        game.phase,
        Phase::Main
            | Phase::MoveRobber {
                resume: Resume::Main
            }
            | Phase::RoadBuilding {
                resume: Resume::Main,
                ..
            }
    );
    ensure!(
        offers_allowed || game.offers.is_empty(),
        "offers open in {:?} (R-4.4, R-9.1)",
        game.phase
    );
    let target = game.options.vp_target;
    match game.phase {
        Phase::Setup { index, settlement } => return check_setup(game, index, settlement),
        Phase::Over { winner } => {
            ensure!(
                winner == game.current && game.total_vp(winner) >= target,
                "winner {winner} is not the current player at the target (R-1.1)"
            );
        }
        _ => ensure!(
            game.total_vp(game.current) < target,
            "{} reached the target on its turn but the game goes on (R-10.4)",
            game.current
        ),
    }
    ensure!(game.turn >= 1, "a normal phase at turn 0");
    for s in seats(game) {
        let p = &game.players[s.index()];
        ensure!(
            p.buildings().count_ones() >= 2 && p.roads.count_ones() >= 2,
            "{s} lacks its setup pieces (R-3.5)"
        );
    }
    let fresh = game.players.iter().any(|p| p.dev_cards_new.total() > 0);
    match game.phase {
        Phase::PreRoll | Phase::Discard { .. } => ensure!(
            !fresh,
            "cards bought before the roll ({:?}, R-4.1)",
            game.phase
        ),
        _ => {}
    }
    match game.phase {
        Phase::PreRoll => ensure!(
            !game.dev_played || game.last_roll.is_some(),
            "a card played before any roll"
        ),
        Phase::Discard { pending } => check_discard(game, pending)?,
        Phase::MoveRobber { resume } => ensure!(
            game.dev_played || (resume == Resume::Main && rolled_seven(game)),
            "robber to move without a 7 or a Knight (R-7, R-7.5)"
        ),
        Phase::RoadBuilding { remaining, .. } => ensure!(
            game.dev_played
                && (1..=2).contains(&remaining)
                && game.players[game.current.index()].roads_left() > 0,
            "Road Building pending without the card or roads (R-8.3)"
        ),
        _ => {}
    }
    Ok(())
}

fn rolled_seven(game: &Game) -> bool {
    game.last_roll.is_some_and(|[a, b]| a + b == 7)
}

/// pending discards are half of hands over 7.
fn check_discard(game: &Game, pending: [u8; MAX_SEATS]) -> Result<(), String> {
    ensure!(rolled_seven(game), "discards pending without a 7 (R-7.1)");
    ensure!(
        pending.iter().any(|&n| n > 0),
        "discard phase with nobody to discard"
    );
    for (i, &owed) in pending.iter().enumerate() {
        if owed == 0 {
            continue;
        }
        ensure!(
            i < usize::from(game.options.players),
            "unused seat {i} owes cards"
        );
        let hand = game.players[i].hand.total();
        ensure!(
            hand > 7 && u32::from(owed) == hand / 2,
            "seat {i} owes {owed} with {hand} cards (R-7.1)"
        );
    }
    Ok(())
}

/// the placement index matches whose turn it is and what is on the board.
fn check_setup(
    game: &Game,
    index: u8,
    settlement: Option<crate::board::VertexId>,
) -> Result<(), String> {
    let n = game.options.players;
    ensure!(index < 2 * n, "setup placement {index} of {}", 2 * n);
    ensure!(game.turn == 0, "setup at turn {}", game.turn);
    ensure!(
        game.current == setup_seat(game.first, n, index),
        "{} places, not the snake order's seat (R-3.2)",
        game.current
    );
    ensure!(
        !game.dev_played && game.offers.is_empty(),
        "cards or offers in setup"
    );
    for s in seats(game) {
        let done = (0..index)
            .filter(|&i| setup_seat(game.first, n, i) == s)
            .count() as u32;
        let p = &game.players[s.index()];
        let extra = u32::from(s == game.current && settlement.is_some());
        ensure!(
            p.settlements.count_ones() == done + extra
                && p.cities == 0
                && p.roads.count_ones() == done,
            "{s} has the wrong setup pieces after {index} placements (R-3.2)"
        );
        ensure!(
            p.dev_cards.total() == 0 && p.knights_played == 0,
            "{s} has development cards in setup"
        );
    }
    if let Some(v) = settlement {
        let p = &game.players[game.current.index()];
        ensure!(
            p.settlements & v.bit() != 0,
            "the pending setup road's settlement is not the current player's"
        );
        ensure!(
            p.roads & topology().vertex_edge_mask[v.index()] == 0,
            "the new setup settlement already has its road (R-3.2)"
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
        assert!(check(&g).unwrap_err().contains("R-2.5"));
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
        assert!(check(&g).unwrap_err().contains("Knight"));
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
