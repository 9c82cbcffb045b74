//! Longest Road and Largest Army (R-10.1..R-10.3) and the points they give.
//!
//! Routes on the beginner map used below:
//! - west coast `0-3-7-11-16-21-27-33`, cut from inside at 7 (third path 7-12);
//! - east coast `2-6-10-15-20-26-32`, and `53-50-46-42-37-32` from the south.

use super::support::{
    A, B, C, D, edit, give_card, main_phase, ok, refused, roads, set_hand, settle, v,
};
use crate::rules::longest_route;
use crate::{Action, DevCard, Event, Game, Resources};

const WEST: [u8; 8] = [0, 3, 7, 11, 16, 21, 27, 33];
const EAST: [u8; 7] = [2, 6, 10, 15, 20, 26, 32];
const SOUTH: [u8; 6] = [53, 50, 46, 42, 37, 32];

fn road(a: u8, b: u8) -> Action {
    Action::BuildRoad {
        edge: super::support::edge(a, b),
    }
}

/// Seat `seat`'s turn, trade-and-build, with plenty of cards.
fn turn_of(g: &mut Game, seat: crate::Seat) {
    edit(g, |p| {
        p.current = seat;
        p.phase = crate::Phase::Main;
    });
    set_hand(g, seat, Resources::splat(5));
}

/// Seat B builds a settlement on 7 from its settlement on 17, cutting the west coast.
fn b_cuts_the_west_coast(g: &mut Game) -> Vec<Event> {
    settle(g, B, 17);
    roads(g, B, &[17, 12, 7]);
    turn_of(g, B);
    ok(g, B, Action::BuildSettlement { vertex: v(7) })
}

#[test]
fn longest_road_needs_a_continuous_route_of_five_roads() {
    // R-10.3 (the first to reach the minimum takes it), R-1.2
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..5]);
    assert_eq!(g.player(A).road_length, 4);
    assert_eq!(g.longest_road(), None);
    turn_of(&mut g, A);
    let events = ok(&mut g, A, road(16, 21));
    assert!(events.contains(&Event::LongestRoad {
        holder: Some(A),
        length: 5
    }));
    assert_eq!(g.longest_road(), Some(A));
    assert_eq!(g.public_vp(A), 3);
}

#[test]
fn three_branches_of_two_roads_from_one_intersection_give_a_route_of_four_and_no_award() {
    // R-10.1 (the example): six roads, but branches do not add up.
    let mut g = main_phase(4);
    settle(&mut g, A, 23);
    roads(&mut g, A, &[12, 17, 23, 18, 13]);
    roads(&mut g, A, &[23, 29]);
    turn_of(&mut g, A);
    let events = ok(&mut g, A, road(29, 34));
    assert_eq!(g.player(A).roads.count_ones(), 6);
    assert_eq!(g.player(A).road_length, 4);
    assert_eq!(longest_route(g.player(A).roads, 0), 4);
    assert_eq!(g.longest_road(), None);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::LongestRoad { .. }))
    );
}

#[test]
fn a_loop_counts_in_full() {
    // six roads round the desert make a route of 6, which beats B's 5.
    let mut g = main_phase(4);
    settle(&mut g, B, 2);
    roads(&mut g, B, &EAST[..6]);
    assert_eq!(g.longest_road(), Some(B));
    settle(&mut g, A, 18);
    roads(&mut g, A, &[18, 24, 30, 35, 29, 23]);
    assert_eq!(g.longest_road(), Some(B), "5 against 5: B keeps it");
    turn_of(&mut g, A);
    ok(&mut g, A, road(23, 18));
    assert_eq!(g.player(A).road_length, 6);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn a_route_may_end_at_an_opponents_building() {
    // the cut is only *through* the building.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, B, 21);
    assert_eq!(g.player(A).road_length, 5);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn an_opponents_settlement_cuts_a_route_and_below_five_nobody_holds_the_card() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    assert_eq!(g.longest_road(), Some(A));
    let events = b_cuts_the_west_coast(&mut g);
    // 0-3-7 and 7-11-16-21 remain: 2 and 3.
    assert_eq!(g.player(A).road_length, 3);
    assert_eq!(g.longest_road(), None);
    assert!(events.contains(&Event::LongestRoad {
        holder: None,
        length: 0
    }));
    assert_eq!(g.public_vp(A), 1);
}

#[test]
fn a_holder_tied_for_longest_keeps_the_card() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, B, 2);
    roads(&mut g, B, &EAST[..5]);
    turn_of(&mut g, B);
    let events = ok(&mut g, B, road(20, 26));
    assert_eq!(g.player(B).road_length, 5);
    assert_eq!(g.longest_road(), Some(A));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::LongestRoad { .. }))
    );
}

#[test]
fn strictly_exceeding_the_holder_takes_the_card() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, B, 2);
    roads(&mut g, B, &EAST[..6]);
    assert_eq!(g.longest_road(), Some(A));
    turn_of(&mut g, B);
    let events = ok(&mut g, B, road(26, 32));
    assert!(events.contains(&Event::LongestRoad {
        holder: Some(B),
        length: 6
    }));
    assert_eq!((g.public_vp(A), g.public_vp(B)), (1, 3));
}

#[test]
fn a_cut_holder_loses_the_card_to_a_single_longest_player() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, C, 2);
    roads(&mut g, C, &EAST[..6]);
    assert_eq!(g.longest_road(), Some(A));
    b_cuts_the_west_coast(&mut g);
    assert_eq!(g.longest_road(), Some(C));
}

#[test]
fn a_cut_that_leaves_a_tie_for_longest_gives_the_card_to_nobody() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, C, 2);
    roads(&mut g, C, &EAST[..6]);
    settle(&mut g, D, 53);
    roads(&mut g, D, &SOUTH);
    assert_eq!(g.longest_road(), Some(A));
    b_cuts_the_west_coast(&mut g);
    assert_eq!((g.player(C).road_length, g.player(D).road_length), (5, 5));
    assert_eq!(g.longest_road(), None);
}

#[test]
fn a_cut_holder_still_tied_for_longest_keeps_the_card() {
    // A's 7 becomes 2 and 5; C has 5.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST);
    settle(&mut g, C, 2);
    roads(&mut g, C, &EAST[..6]);
    b_cuts_the_west_coast(&mut g);
    assert_eq!(g.player(A).road_length, 5);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn after_a_tie_left_the_card_unheld_the_next_to_strictly_lead_takes_it() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    settle(&mut g, C, 2);
    roads(&mut g, C, &EAST[..6]);
    settle(&mut g, D, 53);
    roads(&mut g, D, &SOUTH);
    b_cuts_the_west_coast(&mut g);
    assert_eq!(g.longest_road(), None);
    turn_of(&mut g, C);
    ok(&mut g, C, road(26, 32));
    assert_eq!(g.longest_road(), Some(C));
}

#[test]
fn largest_army_needs_three_played_knights() {
    //
    let mut g = main_phase(4);
    edit(&mut g, |p| p.seats[A.index()].knights_played = 1);
    give_card(&mut g, A, DevCard::Knight);
    ok(&mut g, A, Action::PlayKnight);
    assert_eq!(g.player(A).knights_played, 2);
    assert_eq!(g.largest_army(), None);
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: super::support::t(0),
            victim: None,
        },
    );
    // As on a later turn: another card may be played.
    edit(&mut g, |p| p.dev_played = false);
    give_card(&mut g, A, DevCard::Knight);
    let events = ok(&mut g, A, Action::PlayKnight);
    assert!(events.contains(&Event::LargestArmy {
        holder: Some(A),
        knights: 3
    }));
    assert_eq!(g.public_vp(A), 2);
}

#[test]
fn unplayed_knights_do_not_count_for_largest_army() {
    //
    let mut g = main_phase(4);
    for _ in 0..5 {
        give_card(&mut g, A, DevCard::Knight);
    }
    // Each card was given through the position, which decides the awards afresh.
    assert_eq!(g.largest_army(), None);
    assert_eq!(g.total_vp(A), 0);
}

#[test]
fn largest_army_moves_only_when_strictly_exceeded() {
    //
    let mut g = main_phase(4);
    edit(&mut g, |p| {
        p.seats[A.index()].knights_played = 3;
        p.seats[B.index()].knights_played = 2;
    });
    assert_eq!(g.largest_army(), Some(A));
    edit(&mut g, |p| p.current = B);
    give_card(&mut g, B, DevCard::Knight);
    give_card(&mut g, B, DevCard::Knight);
    ok(&mut g, B, Action::PlayKnight);
    assert_eq!(g.player(B).knights_played, 3);
    assert_eq!(g.largest_army(), Some(A), "a tie leaves the card with A");
    ok(
        &mut g,
        B,
        Action::MoveRobber {
            tile: super::support::t(0),
            victim: None,
        },
    );
    refused(&mut g, B, Action::PlayKnight, "dev_card_already_played");
    // As on a later turn: another card may be played.
    edit(&mut g, |p| p.dev_played = false);
    ok(&mut g, B, Action::PlayKnight);
    assert_eq!(g.largest_army(), Some(B));
    assert_eq!((g.public_vp(A), g.public_vp(B)), (0, 2));
}

#[test]
fn a_road_joining_two_pieces_of_route_counts_them_together() {
    // 0-3-7 and 11-16-21 joined by 7-11 make one route of 5.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..3]);
    roads(&mut g, A, &WEST[3..6]);
    assert_eq!(g.player(A).road_length, 2);
    turn_of(&mut g, A);
    ok(&mut g, A, road(7, 11));
    assert_eq!(g.player(A).road_length, 5);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn an_own_settlement_on_a_route_does_not_cut_it() {
    // only an opponent's building cuts.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &WEST[..6]);
    turn_of(&mut g, A);
    ok(&mut g, A, Action::BuildSettlement { vertex: v(11) });
    assert_eq!(g.player(A).road_length, 5);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn cutting_someone_elses_route_leaves_the_holder_alone() {
    // C's route of 5 is cut; A, holding with 6, keeps the card and its length.
    let mut g = main_phase(4);
    settle(&mut g, A, 2);
    roads(&mut g, A, &EAST);
    settle(&mut g, C, 0);
    roads(&mut g, C, &WEST[..6]);
    assert_eq!(g.longest_road(), Some(A));
    b_cuts_the_west_coast(&mut g);
    assert_eq!(g.player(C).road_length, 3);
    assert_eq!(g.player(A).road_length, 6);
    assert_eq!(g.longest_road(), Some(A));
}

#[test]
fn a_cut_between_two_branches_keeps_the_longer_side() {
    // a route 0..27 of 6 cut at 7 leaves 2 and 4; the west side 3 roads beyond
    // 27 to 38 make it 2 and 6.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 3, 7, 11, 16, 21, 27, 33, 38]);
    assert_eq!(g.player(A).road_length, 8);
    b_cuts_the_west_coast(&mut g);
    assert_eq!(g.player(A).road_length, 6);
    assert_eq!(g.longest_road(), Some(A));
}
