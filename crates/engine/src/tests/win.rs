//! Score and victory, including the win timing of.

use super::support::{
    A, B, C, cards, city, edit, give_card, main_phase, ok, pre_roll, refused, roads, set_hand,
    settle, stack_deck, v,
};
use crate::{Action, Actor, DevCard, Event, Game, GameOptions, MapKind, Phase, Resources, Seat};

/// Seat A with 4 cities and a settlement on 46 (9 points) and a road 46-42-37.
fn nine_points(g: &mut Game) {
    for n in [19, 0, 53, 27] {
        settle(g, A, n);
        city(g, A, n);
    }
    settle(g, A, 46);
    roads(g, A, &[46, 42, 37]);
    assert_eq!(g.total_vp(A), 9);
}

fn game_won(events: &[Event]) -> Option<(Seat, u8)> {
    events.iter().find_map(|e| match e {
        Event::GameWon { seat, points } => Some((*seat, *points)),
        _ => None,
    })
}

#[test]
fn reaching_the_target_on_ones_own_turn_wins_at_once_and_ends_the_game() {
    //
    let mut g = main_phase(4);
    nine_points(&mut g);
    set_hand(&mut g, A, cards(2, 2, 1, 1, 0));
    ok(
        &mut g,
        A,
        Action::OfferTrade {
            to: None,
            give: crate::Resources::single(crate::Resource::Lumber, 1),
            get: crate::Resources::single(crate::Resource::Ore, 1),
        },
    );
    let events = ok(&mut g, A, Action::BuildSettlement { vertex: v(37) });
    assert_eq!(game_won(&events), Some((A, 10)));
    assert_eq!(g.phase(), Phase::Over { winner: Some(A) });
    assert_eq!(g.winner(), Some(A));
    assert!(g.offers().is_empty());
    refused(&mut g, A, Action::EndTurn, "game_over");
    refused(&mut g, B, Action::EndTurn, "game_over");
    refused(&mut g, Actor::System, Action::TimeOut, "game_over");
    assert!(g.legal_actions(A).is_empty());
}

#[test]
fn the_rooms_target_decides_when_the_game_is_won() {
    // a room may play to 5.
    let options = GameOptions {
        players: 4,
        vp_target: 5,
        map: MapKind::Beginner,
        ..GameOptions::default()
    };
    let mut g = Game::new(options, 1).unwrap();
    edit(&mut g, |p| {
        p.phase = Phase::Main;
        p.current = A;
        p.turn = 1;
    });
    settle(&mut g, A, 19);
    city(&mut g, A, 19);
    settle(&mut g, A, 0);
    settle(&mut g, A, 46);
    roads(&mut g, A, &[46, 42]);
    set_hand(&mut g, A, cards(1, 1, 0, 0, 0));
    let events = ok(
        &mut g,
        A,
        Action::BuildRoad {
            edge: super::support::edge(42, 37),
        },
    );
    assert_eq!(game_won(&events), None, "4 points are not 5");
    set_hand(&mut g, A, cards(1, 1, 1, 1, 0));
    let events = ok(&mut g, A, Action::BuildSettlement { vertex: v(37) });
    assert_eq!(game_won(&events), Some((A, 5)));
}

#[test]
fn a_target_outside_three_to_twenty_or_a_player_count_other_than_three_or_four_is_refused() {
    // R-2 (3 or 4 players)
    let with = |players, vp_target| {
        Game::new(
            GameOptions {
                players,
                vp_target,
                map: MapKind::Random,
                ..GameOptions::default()
            },
            1,
        )
        .map(|_| ())
        .map_err(|e| e.code())
    };
    assert_eq!(with(4, 2), Err("invalid_vp_target"));
    assert_eq!(with(4, 21), Err("invalid_vp_target"));
    assert_eq!(with(4, 3), Ok(()));
    assert_eq!(with(4, 20), Ok(()));
    assert_eq!(with(2, 10), Err("invalid_player_count"));
    assert_eq!(with(5, 10), Err("invalid_player_count"));
    assert_eq!(with(3, 10), Ok(()));
    assert_eq!(GameOptions::default().vp_target, 10);
}

#[test]
fn points_come_from_buildings_awards_and_victory_point_cards() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    settle(&mut g, A, 19);
    city(&mut g, A, 19);
    assert_eq!(g.public_vp(A), 3);
    roads(&mut g, A, &[0, 3, 7, 11, 16, 21]);
    assert_eq!(g.longest_road(), Some(A));
    assert_eq!(g.public_vp(A), 5);
    edit(&mut g, |p| p.seats[A.index()].knights_played = 3);
    assert_eq!(g.public_vp(A), 7);
    give_card(&mut g, A, DevCard::VictoryPoint);
    give_card(&mut g, A, DevCard::VictoryPoint);
    assert_eq!(g.public_vp(A), 7, "VP cards are hidden");
    assert_eq!(g.total_vp(A), 9);
}

#[test]
fn buying_the_winning_victory_point_card_wins_on_the_same_turn() {
    //
    let mut g = main_phase(4);
    nine_points(&mut g);
    set_hand(&mut g, A, Resources::DEV_CARD);
    stack_deck(&mut g, DevCard::VictoryPoint);
    let events = ok(&mut g, A, Action::BuyDevCard);
    assert_eq!(game_won(&events), Some((A, 10)));
    assert_eq!(g.public_vp(A), 9);
}

#[test]
fn a_knight_before_the_roll_that_brings_largest_army_wins_before_the_roll() {
    // checked before the roll and after every action.
    let mut g = pre_roll(4);
    for n in [19, 0, 53] {
        settle(&mut g, A, n);
        city(&mut g, A, n);
    }
    settle(&mut g, A, 46);
    settle(&mut g, A, 27);
    edit(&mut g, |p| p.seats[A.index()].knights_played = 2);
    give_card(&mut g, A, DevCard::Knight);
    let events = ok(&mut g, A, Action::PlayKnight);
    assert_eq!(game_won(&events), Some((A, 10)));
    assert_eq!(g.last_roll(), None);
}

/// C holds Longest Road with the east coast (6); B has a route of 5 from 53 to 31 and
/// 8 points, 2 of them hidden VP cards. Seat A, to move, has settlements on 19 and 36
/// with roads 19-14-10 and 36-41-46 reaching into both routes.
fn b_waits_for_longest_road() -> Game {
    let mut g = main_phase(4);
    settle(&mut g, C, 2);
    roads(&mut g, C, &[2, 6, 10, 15, 20, 26, 32]);
    for n in [53, 0, 27] {
        settle(&mut g, B, n);
        city(&mut g, B, n);
    }
    roads(&mut g, B, &[53, 50, 46, 42, 37, 31]);
    give_card(&mut g, B, DevCard::VictoryPoint);
    give_card(&mut g, B, DevCard::VictoryPoint);
    settle(&mut g, A, 19);
    roads(&mut g, A, &[19, 14, 10]);
    settle(&mut g, A, 36);
    roads(&mut g, A, &[36, 41, 46]);
    set_hand(&mut g, A, cards(2, 2, 2, 2, 0));
    assert_eq!(g.longest_road(), Some(C));
    assert_eq!((g.public_vp(B), g.total_vp(B)), (6, 8));
    g
}

#[test]
fn a_player_reaching_the_target_on_another_players_turn_wins_when_their_turn_starts() {
    // hidden VP cards count.
    let mut g = b_waits_for_longest_road();
    // A cuts C's route at 10: C is left with 4, B's 5 is now the single longest.
    let events = ok(&mut g, A, Action::BuildSettlement { vertex: v(10) });
    assert_eq!(g.longest_road(), Some(B));
    assert_eq!(g.total_vp(B), 10);
    assert_eq!(game_won(&events), None, "not on A's turn");
    assert_eq!(g.phase(), Phase::Main);
    let events = ok(&mut g, A, Action::EndTurn);
    assert!(events.contains(&Event::TurnStarted { seat: B, turn: 2 }));
    assert_eq!(game_won(&events), Some((B, 10)));
    assert_eq!(g.winner(), Some(B));
    assert_eq!(g.last_roll(), Some([3, 5]), "B wins before rolling");
}

#[test]
fn a_player_reaching_the_target_on_the_last_allowed_turn_of_another_does_not_win() {
    // the win would come at the start of B's turn, and no turn follows
    // the last one; the game ends with no winner, B's 10 points recorded as they stand.
    let mut g = b_waits_for_longest_road();
    edit(&mut g, |p| {
        p.options.turn_limit = 100;
        p.turn = 100;
    });
    ok(&mut g, A, Action::BuildSettlement { vertex: v(10) });
    assert_eq!(g.total_vp(B), 10);
    let events = ok(&mut g, A, Action::EndTurn);
    assert_eq!(game_won(&events), None);
    assert!(events.contains(&Event::TurnLimitReached { turn: 100 }));
    assert_eq!(g.phase(), Phase::Over { winner: None });
    assert_eq!(g.current(), A);
    let b = g.final_scores()[B.index()];
    assert_eq!((b.points, b.vp_cards), (10, 2));
}

#[test]
fn a_player_who_loses_the_target_before_their_turn_does_not_win() {
    // only if they still have it when their turn starts.
    let mut g = b_waits_for_longest_road();
    ok(&mut g, A, Action::BuildSettlement { vertex: v(10) });
    assert_eq!(g.total_vp(B), 10);
    // A cuts B's route at 46 as well: 2 and 3 left, nobody has 5.
    ok(&mut g, A, Action::BuildSettlement { vertex: v(46) });
    assert_eq!(g.longest_road(), None);
    assert_eq!(g.total_vp(B), 8);
    let events = ok(&mut g, A, Action::EndTurn);
    assert_eq!(game_won(&events), None);
    assert_eq!(g.current(), B);
    assert_eq!(g.phase(), Phase::PreRoll);
}
