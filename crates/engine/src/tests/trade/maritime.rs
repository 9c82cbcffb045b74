//! Maritime trade with the bank: 4:1, harbors at 3:1 and 2:1, and the bank's
//! own cards.
//!
//! Beginner map harbors used here: generic 3:1 on the path 0-4, grain 2:1 on 2-5.

use crate::tests::support::{
    A, B, cards, city, edit, main_phase, ok, only, refused, roads, set_hand, settle, v, vertices,
};
use crate::{Action, Event, Game, Resource};

fn maritime(give: Resource, get: Resource) -> Action {
    Action::MaritimeTrade { give, get }
}

#[test]
fn a_bank_trade_without_a_harbor_is_four_to_one() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 30);
    set_hand(&mut g, A, only(Resource::Lumber, 5));
    let bank = g.bank();
    let events = ok(&mut g, A, maritime(Resource::Lumber, Resource::Ore));
    assert!(events.contains(&Event::MaritimeTraded {
        seat: A,
        gave: only(Resource::Lumber, 4),
        got: only(Resource::Ore, 1),
    }));
    assert_eq!(g.player(A).hand, cards(1, 0, 0, 0, 1));
    assert_eq!(
        g.bank().get(Resource::Lumber),
        bank.get(Resource::Lumber) + 4
    );
    assert_eq!(g.bank().get(Resource::Ore), bank.get(Resource::Ore) - 1);
    refused(
        &mut g,
        A,
        maritime(Resource::Lumber, Resource::Ore),
        "insufficient_resources",
    );
}

#[test]
fn a_generic_harbor_trades_three_to_one() {
    // intersection 0 is on the generic harbor 0-4.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    set_hand(&mut g, A, cards(0, 3, 0, 0, 0));
    assert_eq!(g.maritime_ratio(A, Resource::Brick), 3);
    ok(&mut g, A, maritime(Resource::Brick, Resource::Wool));
    assert_eq!(g.player(A).hand, only(Resource::Wool, 1));
}

#[test]
fn a_two_to_one_harbor_trades_only_its_own_resource_at_two() {
    // intersection 2 is on the grain harbor 2-5; a city serves as well.
    let mut g = main_phase(4);
    settle(&mut g, A, 2);
    city(&mut g, A, 2);
    set_hand(&mut g, A, cards(3, 0, 0, 2, 0));
    assert_eq!(g.maritime_ratio(A, Resource::Grain), 2);
    assert_eq!(g.maritime_ratio(A, Resource::Lumber), 4);
    refused(
        &mut g,
        A,
        maritime(Resource::Lumber, Resource::Ore),
        "insufficient_resources",
    );
    ok(&mut g, A, maritime(Resource::Grain, Resource::Ore));
    assert_eq!(g.player(A).hand, cards(3, 0, 0, 0, 1));
}

#[test]
fn a_harbor_is_usable_right_after_building_on_it() {
    // A builds on 5 (grain harbor) and trades 2:1 in the same turn.
    let mut g = main_phase(4);
    settle(&mut g, A, 13);
    roads(&mut g, A, &[13, 9, 5]);
    set_hand(&mut g, A, cards(1, 1, 1, 3, 0));
    assert_eq!(g.maritime_ratio(A, Resource::Grain), 4);
    ok(&mut g, A, Action::BuildSettlement { vertex: v(5) });
    ok(&mut g, A, maritime(Resource::Grain, Resource::Ore));
    assert_eq!(g.player(A).hand, only(Resource::Ore, 1));
}

#[test]
fn a_road_onto_a_harbor_is_not_enough() {
    // a road on the harbor's path, but no building on its intersections.
    let mut g = main_phase(4);
    settle(&mut g, A, 13);
    roads(&mut g, A, &[13, 9, 5, 2]);
    set_hand(&mut g, A, only(Resource::Grain, 3));
    assert_eq!(g.maritime_ratio(A, Resource::Grain), 4);
    refused(
        &mut g,
        A,
        maritime(Resource::Grain, Resource::Ore),
        "insufficient_resources",
    );
}

#[test]
fn giving_a_resource_for_the_same_resource_is_not_a_trade() {
    //
    let mut g = main_phase(4);
    set_hand(&mut g, A, only(Resource::Lumber, 8));
    refused(
        &mut g,
        A,
        maritime(Resource::Lumber, Resource::Lumber),
        "invalid_trade",
    );
}

#[test]
fn the_bank_must_hold_the_card_asked_for() {
    //
    let mut g = main_phase(4);
    set_hand(&mut g, A, only(Resource::Lumber, 4));
    set_hand(&mut g, B, only(Resource::Ore, 19));
    refused(
        &mut g,
        A,
        maritime(Resource::Lumber, Resource::Ore),
        "bank_insufficient",
    );
    ok(&mut g, A, maritime(Resource::Lumber, Resource::Grain));
}

#[test]
fn a_two_to_one_harbor_and_a_generic_harbor_combine_per_resource() {
    // grain at 2:1 (harbor 2-5), everything else at 3:1 (harbor 0-4).
    let mut g = main_phase(4);
    settle(&mut g, A, 2);
    settle(&mut g, A, 0);
    assert_eq!(
        Resource::ALL.map(|r| g.maritime_ratio(A, r)),
        [3, 3, 3, 2, 3]
    );
    set_hand(&mut g, A, cards(0, 0, 3, 0, 0));
    ok(&mut g, A, maritime(Resource::Wool, Resource::Grain));
    assert_eq!(g.player(A).hand, only(Resource::Grain, 1));
}

#[test]
fn maritime_ratios_match_a_scan_of_every_harbor() {
    // the ratios, looked up by the seat's buildings on harbor intersections,
    // equal a scan of all nine harbors of random maps with random buildings.
    use crate::board::topology;
    use rand::{Rng, SeedableRng};
    let topo = topology();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    for seed in 0..300 {
        let options = crate::GameOptions {
            map: crate::MapKind::Random,
            ..crate::GameOptions::default()
        };
        let mut g = Game::new(options, seed).unwrap();
        for _ in 0..20 {
            let settlements = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
            let cities = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
            edit(&mut g, |p| {
                let s = &mut p.seats[A.index()];
                s.settlements = vertices(settlements);
                s.cities = vertices(cities);
            });
            let own = g.player(A).buildings();
            let mut expected = [4; 5];
            for h in &g.map().harbors {
                if own & topo.edge_vertex_mask[h.edge.index()] != 0 {
                    match h.resource {
                        Some(r) => expected[r.index()] = 2,
                        None => expected.iter_mut().for_each(|n| *n = (*n).min(3)),
                    }
                }
            }
            assert_eq!(g.maritime_ratios(A), expected, "seed {seed}, own {own:#x}");
            for r in Resource::ALL {
                assert_eq!(g.maritime_ratio(A, r), expected[r.index()], "{r:?}");
            }
        }
    }
}
