//! Production after a roll, the robber's tile and bank shortages.
//!
//! Beginner map: tile 10 is forest on 3, tile 13 mountains on 3, tile 14 fields on 4,
//! tile 5 pasture on 4. Intersection 30 touches tiles 9, 10, 14; 36 touches 10, 14,
//! 15; 41 touches 14, 15, 18; 19 touches 5, 6, 10; 40 touches 13, 14, 17.

use super::support::{
    A, B, C, D, assert_cards_conserved, cards, city, edit, has, ok, only, pre_roll, script_roll,
    set_hand, settle, t,
};
use crate::{Action, Event, Phase, Resource, Resources};

/// A game where seat A is about to roll `sum`.
fn rolling(sum: u8, setup: impl FnOnce(&mut crate::Game)) -> (crate::Game, Vec<Event>) {
    let mut g = pre_roll(4);
    setup(&mut g);
    script_roll(&mut g, sum);
    let events = ok(&mut g, A, Action::RollDice);
    (g, events)
}

#[test]
fn a_settlement_collects_one_card_and_a_city_two_on_any_players_turn() {
    //
    let (g, events) = rolling(3, |g| {
        settle(g, A, 19);
        city(g, B, 36);
        settle(g, C, 40);
        settle(g, D, 0);
    });
    assert_eq!(g.phase(), Phase::Main);
    assert_eq!(g.player(A).hand, only(Resource::Lumber, 1));
    // B and C collect on A's turn.
    assert_eq!(g.player(B).hand, only(Resource::Lumber, 2));
    assert_eq!(g.player(C).hand, only(Resource::Ore, 1));
    // D's tile has another number.
    assert!(g.player(D).hand.is_empty());
    assert_eq!(g.bank(), cards(16, 19, 19, 19, 18));
    assert!(events.contains(&Event::Produced {
        seat: B,
        cards: only(Resource::Lumber, 2)
    }));
    assert_cards_conserved(&g);
}

#[test]
fn a_building_next_to_two_rolled_tiles_collects_from_each() {
    // intersection 22 touches tiles 3 and 7 (both fields); give both a 9.
    let (g, _) = rolling(9, |g| {
        edit(g, |p| p.map.numbers[3] = 9);
        assert_eq!(g.map().numbers[7], 9);
        settle(g, A, 22);
        city(g, B, 7);
    });
    assert_eq!(g.player(A).hand, only(Resource::Grain, 2));
    // Intersection 7 touches tile 3 only among the 9s: a city there gets 2.
    assert_eq!(g.player(B).hand, only(Resource::Grain, 2));
}

#[test]
fn a_city_next_to_two_rolled_tiles_collects_four() {
    //
    let (g, _) = rolling(9, |g| {
        edit(g, |p| p.map.numbers[3] = 9);
        settle(g, A, 22);
        city(g, A, 22);
    });
    assert_eq!(g.player(A).hand, only(Resource::Grain, 4));
}

#[test]
fn the_robbers_tile_produces_nothing() {
    //
    let (g, events) = rolling(3, |g| {
        edit(g, |p| p.robber = t(10));
        city(g, B, 36);
        settle(g, C, 40);
    });
    assert!(g.player(B).hand.is_empty());
    assert_eq!(g.player(C).hand, only(Resource::Ore, 1));
    assert!(!has(
        &events,
        |e| matches!(e, Event::Produced { seat, .. } if *seat == B)
    ));
}

#[test]
fn when_the_bank_is_short_and_two_players_are_owed_nobody_collects_that_resource() {
    // R-6.2 (the example): 1 grain left, A and B owed 1 each -> neither gets grain.
    // Other resources are unaffected: C still collects wool.
    let (g, events) = rolling(4, |g| {
        set_hand(g, D, only(Resource::Grain, 18));
        settle(g, A, 30);
        settle(g, B, 41);
        settle(g, C, 19);
    });
    assert_eq!(g.bank().get(Resource::Grain), 1);
    assert!(g.player(A).hand.is_empty());
    assert!(g.player(B).hand.is_empty());
    assert_eq!(g.player(C).hand, only(Resource::Wool, 1));
    assert!(events.contains(&Event::Shortage {
        resource: Resource::Grain
    }));
    assert_cards_conserved(&g);
}

#[test]
fn a_single_player_owed_more_than_the_bank_holds_takes_what_remains() {
    // R-6.2 (the example): 1 grain left, one player owed 2 -> that player takes the 1.
    let (g, events) = rolling(4, |g| {
        set_hand(g, D, only(Resource::Grain, 18));
        settle(g, A, 30);
        city(g, A, 30);
    });
    assert_eq!(g.player(A).hand, only(Resource::Grain, 1));
    assert_eq!(g.bank().get(Resource::Grain), 0);
    assert!(!has(&events, |e| matches!(e, Event::Shortage { .. })));
    assert_cards_conserved(&g);
}

#[test]
fn when_the_bank_holds_exactly_enough_everyone_collects() {
    //
    let (g, events) = rolling(4, |g| {
        set_hand(g, D, only(Resource::Grain, 17));
        settle(g, A, 30);
        settle(g, B, 41);
    });
    assert_eq!(g.player(A).hand, only(Resource::Grain, 1));
    assert_eq!(g.player(B).hand, only(Resource::Grain, 1));
    assert_eq!(g.bank().get(Resource::Grain), 0);
    assert!(!has(&events, |e| matches!(e, Event::Shortage { .. })));
}

#[test]
fn a_shortage_counts_everything_owed_including_two_tiles_of_one_player() {
    // A is owed 2 grain from two fields; with 1 in the bank and B owed 1 too,
    // nobody collects grain.
    let (g, _) = rolling(9, |g| {
        edit(g, |p| p.map.numbers[3] = 9);
        set_hand(g, D, only(Resource::Grain, 17));
        settle(g, A, 22);
        settle(g, B, 27);
    });
    assert_eq!(g.bank().get(Resource::Grain), 2);
    assert_eq!(g.player(A).hand, Resources::ZERO);
    assert_eq!(g.player(B).hand, Resources::ZERO);
}
