//! Building roads, settlements and cities, with costs and supplies.

use super::support::{
    A, B, assert_cards_conserved, cards, city, edge, main_phase, ok, refused, roads, set_hand,
    settle, v,
};
use crate::{Action, Event, Game, Resources};

/// Plenty of everything for seat A.
fn rich(g: &mut Game) {
    set_hand(g, A, Resources::splat(10));
}

fn road(a: u8, b: u8) -> Action {
    Action::BuildRoad { edge: edge(a, b) }
}

fn settlement(n: u8) -> Action {
    Action::BuildSettlement { vertex: v(n) }
}

#[test]
fn a_road_must_touch_an_own_road_or_building() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4]);
    refused(&mut g, A, road(30, 35), "illegal_placement");
    ok(&mut g, A, road(0, 3));
    ok(&mut g, A, road(4, 8));
    ok(&mut g, A, road(8, 12));
    assert_eq!(g.player(A).roads.count_ones(), 4);
}

#[test]
fn a_road_on_a_taken_path_is_rejected() {
    // the path must be empty.
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4]);
    settle(&mut g, B, 7);
    roads(&mut g, B, &[7, 3, 0]);
    refused(&mut g, A, road(0, 3), "illegal_placement");
    refused(&mut g, A, road(0, 4), "illegal_placement");
}

#[test]
fn a_road_may_end_next_to_an_opponents_building_but_not_pass_through_it() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4]);
    settle(&mut g, B, 8);
    ok(&mut g, A, road(4, 8));
    refused(&mut g, A, road(8, 12), "illegal_placement");
    refused(&mut g, A, road(8, 13), "illegal_placement");
}

#[test]
fn a_road_may_join_an_own_road_on_the_far_side_of_an_opponents_building() {
    // only the road leading *into* the intersection is not enough.
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4, 8]);
    settle(&mut g, A, 17);
    roads(&mut g, A, &[17, 12]);
    settle(&mut g, B, 8);
    ok(&mut g, A, road(8, 12));
    refused(&mut g, A, road(8, 13), "illegal_placement");
}

#[test]
fn a_settlement_next_to_another_is_rejected() {
    // own or opponent's, on any neighbouring intersection.
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4, 8, 12]);
    settle(&mut g, B, 13);
    refused(&mut g, A, settlement(4), "illegal_placement");
    refused(&mut g, A, settlement(8), "illegal_placement");
    refused(&mut g, A, settlement(0), "illegal_placement");
    ok(&mut g, A, settlement(12));
    assert_eq!(g.public_vp(A), 2);
}

#[test]
fn a_settlement_after_setup_must_touch_an_own_road() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4]);
    settle(&mut g, B, 17);
    roads(&mut g, B, &[17, 12, 7]);
    // Far from everything, and at the end of an opponent's road: both refused.
    refused(&mut g, A, settlement(30), "illegal_placement");
    refused(&mut g, A, settlement(7), "illegal_placement");
    ok(&mut g, A, road(4, 8));
    ok(&mut g, A, settlement(8));
}

#[test]
fn building_pays_the_listed_cost_into_the_bank() {
    // R-5 (cost table), R-5.1
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    let bank = g.bank();
    let events = ok(&mut g, A, road(0, 4));
    assert!(events.contains(&Event::Paid {
        seat: A,
        cards: cards(1, 1, 0, 0, 0)
    }));
    ok(&mut g, A, road(4, 8));
    ok(&mut g, A, settlement(8));
    ok(&mut g, A, Action::BuildCity { vertex: v(0) });
    ok(&mut g, A, Action::BuyDevCard);
    // 2 roads, a settlement, a city and a development card.
    let spent = cards(3, 3, 2, 4, 4);
    let mut expected = bank;
    expected.add(&spent);
    assert_eq!(g.bank(), expected);
    assert_eq!(g.player(A).hand, cards(7, 7, 8, 6, 6));
    assert_cards_conserved(&g);
}

#[test]
fn building_without_the_cost_in_hand_is_refused() {
    // R-5 (cost table)
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    settle(&mut g, A, 8);
    roads(&mut g, A, &[0, 4]);
    roads(&mut g, A, &[8, 12, 17]);
    set_hand(&mut g, A, cards(1, 0, 1, 1, 1));
    refused(&mut g, A, road(0, 3), "insufficient_resources");
    refused(&mut g, A, settlement(17), "insufficient_resources");
    set_hand(&mut g, A, cards(0, 0, 0, 2, 2));
    refused(
        &mut g,
        A,
        Action::BuildCity { vertex: v(0) },
        "insufficient_resources",
    );
    set_hand(&mut g, A, cards(0, 0, 1, 1, 0));
    refused(&mut g, A, Action::BuyDevCard, "insufficient_resources");
}

#[test]
fn a_city_replaces_an_own_settlement_which_returns_to_the_supply() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    for n in [0, 2, 19, 40, 46] {
        settle(&mut g, A, n);
    }
    roads(&mut g, A, &[0, 4, 8]);
    assert_eq!(g.player(A).settlements_left(), 0);
    refused(&mut g, A, settlement(8), "no_pieces_left");
    let events = ok(&mut g, A, Action::BuildCity { vertex: v(0) });
    assert!(events.contains(&Event::CityBuilt {
        seat: A,
        vertex: v(0)
    }));
    assert_eq!(g.building_at(v(0)), Some((A, true)));
    assert_eq!(g.player(A).settlements_left(), 1);
    assert_eq!(g.player(A).cities_left(), 3);
    assert_eq!(g.public_vp(A), 6);
    ok(&mut g, A, settlement(8));
    assert_eq!(g.public_vp(A), 7);
}

#[test]
fn a_city_goes_only_on_an_own_settlement() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    settle(&mut g, B, 2);
    city(&mut g, A, 0);
    settle(&mut g, A, 19);
    for n in [0, 2, 30] {
        refused(
            &mut g,
            A,
            Action::BuildCity { vertex: v(n) },
            "illegal_placement",
        );
    }
    ok(&mut g, A, Action::BuildCity { vertex: v(19) });
}

#[test]
fn a_player_has_only_four_cities() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    for n in [0, 2, 19, 40] {
        settle(&mut g, A, n);
        city(&mut g, A, n);
    }
    settle(&mut g, A, 46);
    refused(
        &mut g,
        A,
        Action::BuildCity { vertex: v(46) },
        "no_pieces_left",
    );
}

#[test]
fn a_player_has_only_fifteen_roads() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 2);
    let route = [2, 6, 10, 15, 20, 26, 32, 37, 42, 46, 50, 53, 49, 52, 48, 51];
    roads(&mut g, A, &route);
    assert_eq!(g.player(A).roads_left(), 0);
    refused(&mut g, A, road(2, 5), "no_pieces_left");
}

#[test]
fn building_on_another_players_turn_is_refused() {
    // only the current player builds.
    let mut g = main_phase(4);
    set_hand(&mut g, B, Resources::splat(5));
    settle(&mut g, B, 0);
    refused(&mut g, B, road(0, 3), "not_your_turn");
    refused(
        &mut g,
        B,
        Action::BuildCity { vertex: v(0) },
        "not_your_turn",
    );
    refused(&mut g, B, Action::BuyDevCard, "not_your_turn");
}

#[test]
fn several_things_can_be_built_in_one_turn_in_any_order() {
    //
    let mut g = main_phase(4);
    rich(&mut g);
    settle(&mut g, A, 0);
    ok(&mut g, A, Action::BuyDevCard);
    ok(&mut g, A, road(0, 4));
    ok(
        &mut g,
        A,
        Action::MaritimeTrade {
            give: crate::Resource::Ore,
            get: crate::Resource::Brick,
        },
    );
    ok(&mut g, A, road(4, 8));
    ok(&mut g, A, settlement(8));
    ok(&mut g, A, Action::BuyDevCard);
    ok(&mut g, A, Action::BuildCity { vertex: v(8) });
    assert_eq!(g.player(A).dev_cards.total(), 2);
    assert_eq!(g.public_vp(A), 3);
}

#[test]
fn locations_off_the_board_are_refused() {
    // 54 intersections, 72 paths.
    let mut g = main_phase(4);
    rich(&mut g);
    refused(
        &mut g,
        A,
        Action::BuildSettlement {
            vertex: crate::VertexId(54),
        },
        "invalid_location",
    );
    refused(
        &mut g,
        A,
        Action::BuildRoad {
            edge: crate::EdgeId(72),
        },
        "invalid_location",
    );
    refused(
        &mut g,
        A,
        Action::BuildCity {
            vertex: crate::VertexId(255),
        },
        "invalid_location",
    );
}

#[test]
fn a_single_spot_check_agrees_with_the_listed_spots() {
    // `apply` checks one spot, the listing computes them all; both
    // must agree for every seat, intersection and path along random games.
    use crate::board::{EDGE_COUNT, EdgeId, VERTEX_COUNT, VertexId};
    use crate::playout::RandomPlayer;
    use crate::{GameOptions, Seat};
    let mut events = Vec::new();
    for seed in 0..40 {
        let mut g = Game::new(GameOptions::default(), seed).unwrap();
        let mut player = RandomPlayer::new(seed);
        let mut limit = super::support::StepLimit::new("the end of the game");
        while !g.is_over() {
            limit.tick(&g);
            for s in g.seats().collect::<Vec<Seat>>() {
                let (roads, settlements) = (g.road_spots(s), g.settlement_spots(s));
                let distance = g.distance_ok_vertices();
                for e in 0..EDGE_COUNT as u8 {
                    let e = EdgeId(e);
                    assert_eq!(g.road_spot_ok(s, e), roads & e.bit() != 0, "{s} {e:?}");
                }
                for v in 0..VERTEX_COUNT as u8 {
                    let v = VertexId(v);
                    assert_eq!(g.distance_ok(v), distance & v.bit() != 0, "{v:?}");
                    let ok = g.settlement_spot_ok(s, v);
                    assert_eq!(ok, settlements & v.bit() != 0, "{s} {v:?}");
                }
            }
            events.clear();
            player.step(&mut g, &mut events).unwrap();
        }
    }
}
