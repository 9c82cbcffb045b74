//! The board and components of a new game and the setup placements.

use super::support::{A, B, C, D, cards, edge, new_game, ok, place, refused, v};
use crate::board::{Terrain, topology};
use crate::rules::setup_seat;
use crate::{Action, DevCard, Game, GameOptions, MapKind, Phase, Resources, Seat};

/// Eight setup placements on the beginner map that obey the distance rule, in order.
const PLACEMENTS: [(u8, u8); 8] = [
    (8, 4),
    (10, 6),
    (28, 22),
    (31, 25),
    (40, 44),
    (18, 13),
    (30, 24),
    (0, 3),
];

fn random_game(seed: u64) -> Game {
    Game::new(GameOptions::default(), seed).expect("default options are valid")
}

#[test]
fn a_new_game_has_nineteen_tiles_with_the_standard_terrain() {
    //
    let topo = topology();
    assert_eq!(topo.tile_vertices.len(), 19);
    assert_eq!(topo.vertex_tiles.len(), 54);
    assert_eq!(topo.edge_vertices.len(), 72);
    for seed in 0..20 {
        let g = random_game(seed);
        let count = |t: Terrain| g.map().terrain.iter().filter(|&&x| x == t).count();
        assert_eq!(
            [
                count(Terrain::Forest),
                count(Terrain::Hills),
                count(Terrain::Pasture),
                count(Terrain::Fields),
                count(Terrain::Mountains),
                count(Terrain::Desert),
            ],
            [4, 3, 4, 4, 3, 1],
            "seed {seed}"
        );
    }
}

#[test]
fn number_tokens_skip_the_desert_and_never_put_six_and_eight_side_by_side() {
    //
    let topo = topology();
    for seed in 0..200 {
        let g = random_game(seed);
        let mut tokens: Vec<u8> = g
            .map()
            .numbers
            .iter()
            .copied()
            .filter(|&n| n != 0)
            .collect();
        tokens.sort_unstable();
        assert_eq!(
            tokens,
            [2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12]
        );
        assert_eq!(g.map().numbers[g.map().desert().index()], 0, "seed {seed}");
        for (t, &n) in g.map().numbers.iter().enumerate() {
            if n == 6 || n == 8 {
                for m in &topo.tile_neighbors[t] {
                    let other = g.map().numbers[m.index()];
                    assert!(other != 6 && other != 8, "seed {seed}: {n} next to {other}");
                }
            }
        }
    }
}

#[test]
fn nine_harbors_sit_on_the_coast_four_generic_and_one_two_to_one_per_resource() {
    //
    let topo = topology();
    for seed in 0..20 {
        let g = random_game(seed);
        let mut served = 0u64;
        for h in &g.map().harbors {
            assert!(topo.coast.contains(&h.edge), "harbor inland");
            let ends = topo.edge_vertex_mask[h.edge.index()];
            assert_eq!(served & ends, 0, "two harbors share an intersection");
            served |= ends;
        }
        assert_eq!(g.map().harbors.len(), 9);
        assert_eq!(
            g.map()
                .harbors
                .iter()
                .filter(|h| h.resource.is_none())
                .count(),
            4
        );
        for r in crate::Resource::ALL {
            assert_eq!(
                g.map()
                    .harbors
                    .iter()
                    .filter(|h| h.resource == Some(r))
                    .count(),
                1
            );
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_map_and_deck_and_other_seeds_differ() {
    //
    assert_eq!(random_game(11), random_game(11));
    let maps: std::collections::BTreeSet<String> = (0..10)
        .map(|s| format!("{:?}", random_game(s).map))
        .collect();
    assert!(maps.len() > 1, "every seed gave the same map");
    let decks: std::collections::BTreeSet<Vec<DevCard>> =
        (0..10).map(|s| random_game(s).dev_deck).collect();
    assert!(decks.len() > 1, "every seed gave the same deck order");
}

#[test]
fn the_beginner_map_is_the_same_for_every_seed() {
    //
    let beginner = |seed| {
        Game::new(
            GameOptions {
                map: MapKind::Beginner,
                ..GameOptions::default()
            },
            seed,
        )
        .unwrap()
        .map
    };
    assert_eq!(beginner(1), beginner(2));
    assert_eq!(beginner(1), crate::board::Map::beginner());
}

#[test]
fn the_bank_starts_with_nineteen_of_each_and_the_deck_with_twenty_five_cards() {
    //
    let g = random_game(3);
    assert_eq!(g.bank(), Resources::splat(19));
    assert_eq!(g.dev_deck_len(), 25);
    let deck = g.to_position().dev_deck;
    let count = |c: DevCard| deck.iter().filter(|&&x| x == c).count();
    assert_eq!(count(DevCard::Knight), 14);
    assert_eq!(count(DevCard::RoadBuilding), 2);
    assert_eq!(count(DevCard::YearOfPlenty), 2);
    assert_eq!(count(DevCard::Monopoly), 2);
    assert_eq!(count(DevCard::VictoryPoint), 5);
}

#[test]
fn every_player_starts_with_fifteen_roads_five_settlements_and_four_cities() {
    //
    let g = random_game(3);
    for s in g.seats() {
        let p = g.player(s);
        assert_eq!(
            (p.roads_left(), p.settlements_left(), p.cities_left()),
            (15, 5, 4)
        );
        assert!(p.hand.is_empty());
    }
}

#[test]
fn the_robber_starts_on_the_desert() {
    //
    for seed in 0..30 {
        let g = random_game(seed);
        assert_eq!(
            g.map().terrain[g.robber().index()],
            Terrain::Desert,
            "seed {seed}"
        );
    }
}

#[test]
fn the_first_player_is_drawn_from_the_seed() {
    //
    assert_eq!(random_game(5).first, random_game(5).first);
    let firsts: std::collections::BTreeSet<Seat> = (0..40).map(|s| random_game(s).first).collect();
    assert_eq!(firsts.len(), 4, "every seat should sometimes start");
    let g = random_game(5);
    assert_eq!(g.current(), g.first(), "the first player places first");
}

#[test]
fn setup_goes_in_seat_order_then_back_so_the_last_player_places_twice() {
    //
    for players in [3u8, 4] {
        let mut g = new_game(players);
        let first = g.first().0;
        let n = usize::from(players);
        let order: Vec<u8> = PLACEMENTS[..n]
            .iter()
            .chain(&PLACEMENTS[4..4 + n])
            .map(|&(s, r)| place(&mut g, s, r).0)
            .collect();
        let seat = |k: u8| (first + k) % players;
        let mut expected: Vec<u8> = (0..players).map(seat).collect();
        expected.extend((0..players).rev().map(seat));
        assert_eq!(order, expected, "{players} players");
        assert_eq!(order[n - 1], order[n], "the last player places twice");
    }
    // The same order for a first player other than seat 0.
    let snake: Vec<Seat> = (0..8).map(|i| setup_seat(C, 4, i)).collect();
    assert_eq!(snake, [C, D, A, B, B, A, D, C]);
}

#[test]
fn each_placement_is_a_settlement_then_a_road() {
    //
    let mut g = new_game(4);
    let seat = g.current();
    refused(
        &mut g,
        seat,
        Action::BuildRoad { edge: edge(8, 4) },
        "wrong_phase",
    );
    ok(&mut g, seat, Action::BuildSettlement { vertex: v(8) });
    refused(
        &mut g,
        seat,
        Action::BuildSettlement { vertex: v(40) },
        "wrong_phase",
    );
    refused(&mut g, seat, Action::RollDice, "wrong_phase");
    refused(
        &mut g,
        Seat((seat.0 + 1) % 4),
        Action::BuildRoad { edge: edge(8, 4) },
        "not_your_turn",
    );
    ok(&mut g, seat, Action::BuildRoad { edge: edge(8, 4) });
    assert_eq!(
        g.phase(),
        Phase::Setup {
            index: 1,
            settlement: None
        }
    );
}

#[test]
fn a_setup_road_must_touch_the_settlement_just_placed() {
    //
    let mut g = new_game(4);
    for &(s, r) in &PLACEMENTS[..4] {
        place(&mut g, s, r);
    }
    // The last player places again: their first settlement is on 31.
    let seat = g.current();
    assert!(g.player(seat).settlements & v(31).bit() != 0);
    ok(&mut g, seat, Action::BuildSettlement { vertex: v(40) });
    refused(
        &mut g,
        seat,
        Action::BuildRoad { edge: edge(31, 37) },
        "illegal_placement",
    );
    refused(
        &mut g,
        seat,
        Action::BuildRoad { edge: edge(0, 3) },
        "illegal_placement",
    );
    ok(&mut g, seat, Action::BuildRoad { edge: edge(40, 44) });
}

#[test]
fn a_setup_settlement_needs_no_road_but_obeys_the_distance_rule() {
    //
    let mut g = new_game(4);
    place(&mut g, 8, 4);
    let seat = g.current();
    for next_to_it in [4, 12, 13] {
        refused(
            &mut g,
            seat,
            Action::BuildSettlement {
                vertex: v(next_to_it),
            },
            "illegal_placement",
        );
    }
    refused(
        &mut g,
        seat,
        Action::BuildSettlement { vertex: v(8) },
        "illegal_placement",
    );
    // Two paths away and far from any road of its own: fine.
    ok(&mut g, seat, Action::BuildSettlement { vertex: v(30) });
}

#[test]
fn a_second_settlement_touching_forest_fields_and_desert_yields_one_lumber_and_one_grain() {
    // R-3.4 (the example): intersection 30 touches forest, fields and the desert.
    let mut g = new_game(4);
    let kinds: Vec<Terrain> = topology().vertex_tiles[30]
        .iter()
        .map(|t| g.map().terrain[t.index()])
        .collect();
    assert_eq!(kinds, [Terrain::Desert, Terrain::Forest, Terrain::Fields]);
    for &(s, r) in &PLACEMENTS[..4] {
        place(&mut g, s, r);
    }
    let seat = g.current();
    let events = ok(&mut g, seat, Action::BuildSettlement { vertex: v(30) });
    let one_lumber_one_grain = cards(1, 0, 0, 1, 0);
    assert_eq!(g.player(seat).hand, one_lumber_one_grain);
    assert_eq!(g.bank(), cards(18, 19, 19, 18, 19));
    assert!(events.contains(&crate::Event::StartingResources {
        seat,
        cards: one_lumber_one_grain
    }));
}

#[test]
fn a_first_settlement_yields_nothing() {
    // only the second settlement pays out.
    let mut g = new_game(4);
    let seat = g.current();
    ok(&mut g, seat, Action::BuildSettlement { vertex: v(30) });
    assert!(g.player(seat).hand.is_empty());
    assert_eq!(g.bank(), Resources::splat(19));
}

#[test]
fn a_second_settlement_touching_two_tiles_of_one_kind_yields_two_cards() {
    // one card per adjacent tile; intersection 28 touches fields and two forests.
    let mut g = new_game(4);
    for &(s, r) in &[(8, 4), (10, 6), (40, 44), (31, 25)] {
        place(&mut g, s, r);
    }
    let seat = g.current();
    ok(&mut g, seat, Action::BuildSettlement { vertex: v(28) });
    assert_eq!(g.player(seat).hand, cards(2, 0, 0, 1, 0));
}

#[test]
fn after_setup_everyone_has_two_points_and_the_first_player_starts_a_normal_turn() {
    //
    let mut g = new_game(4);
    for &(s, r) in &PLACEMENTS {
        place(&mut g, s, r);
    }
    assert_eq!(g.phase(), Phase::PreRoll);
    assert_eq!(g.current(), g.first());
    assert_eq!(g.turn(), 1);
    for s in [A, B, C, D] {
        assert_eq!(g.public_vp(s), 2, "{s}");
        assert_eq!(g.player(s).settlements.count_ones(), 2);
        assert_eq!(g.player(s).roads.count_ones(), 2);
    }
    let first = g.first();
    ok(&mut g, first, Action::RollDice);
}

#[test]
fn with_three_players_the_fourth_placement_is_the_first_second_settlement() {
    // for three seats.
    let mut g = new_game(3);
    let mut third = None;
    for &(s, r) in &PLACEMENTS[..3] {
        third = Some(place(&mut g, s, r));
    }
    let last = g.current();
    assert_eq!(Some(last), third, "the last player places twice");
    let events = ok(&mut g, last, Action::BuildSettlement { vertex: v(30) });
    assert!(events.contains(&crate::Event::StartingResources {
        seat: last,
        cards: cards(1, 0, 0, 1, 0)
    }));
    ok(&mut g, last, Action::BuildRoad { edge: edge(30, 24) });
    for &(s, r) in &[(40, 44), (0, 3)] {
        place(&mut g, s, r);
    }
    assert_eq!(g.phase(), Phase::PreRoll);
    assert_eq!(g.current(), g.first());
    for s in g.seats() {
        assert_eq!(g.public_vp(s), 2);
    }
}
