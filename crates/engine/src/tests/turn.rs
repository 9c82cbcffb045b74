//! The shape of a turn and the system's time-outs in every phase, which must be
//! legal and reproducible.

use super::support::{
    A, B, C, D, cards, edge, edit, give_card, has, main_phase, new_game, ok, pre_roll, refused,
    script_roll, set_hand, settle, t, v,
};
use crate::board::topology;
use crate::{Action, Actor, DevCard, Event, Game, GameOptions, Phase, Resources, Resume};

#[test]
fn before_the_roll_only_a_development_card_or_the_roll_is_allowed() {
    //
    let mut g = pre_roll(4);
    set_hand(&mut g, A, Resources::splat(5));
    settle(&mut g, A, 0);
    for action in [
        Action::BuildRoad { edge: edge(0, 4) },
        Action::BuildCity { vertex: v(0) },
        Action::BuyDevCard,
        Action::MaritimeTrade {
            give: crate::Resource::Lumber,
            get: crate::Resource::Ore,
        },
        Action::OfferTrade {
            to: None,
            give: cards(1, 0, 0, 0, 0),
            get: cards(0, 1, 0, 0, 0),
        },
    ] {
        refused(&mut g, A, action, "wrong_phase");
    }
    refused(&mut g, A, Action::EndTurn, "wrong_phase");
    let mut actions = g.legal_actions(A);
    actions.sort_by_key(Action::kind);
    assert_eq!(actions, [Action::RollDice]);
    give_card(&mut g, A, DevCard::Knight);
    assert!(g.legal_actions(A).contains(&Action::PlayKnight));
}

#[test]
fn only_the_current_player_rolls_and_only_once() {
    //
    let mut g = pre_roll(4);
    refused(&mut g, B, Action::RollDice, "not_your_turn");
    script_roll(&mut g, 6);
    let events = ok(&mut g, A, Action::RollDice);
    let [a, b] = g.last_roll().expect("rolled");
    assert!((1..=6).contains(&a) && (1..=6).contains(&b));
    assert!(events.contains(&Event::DiceRolled {
        seat: A,
        dice: [a, b]
    }));
    assert_eq!(g.phase(), Phase::Main);
    refused(&mut g, A, Action::RollDice, "wrong_phase");
}

#[test]
fn a_seven_produces_nothing_and_goes_to_the_robber() {
    //
    let mut g = pre_roll(4);
    for n in 0..54 {
        if topology().vertex_neighbors[n]
            .iter()
            .all(|w| g.building_at(*w).is_none())
            && g.building_at(v(n as u8)).is_none()
        {
            settle(&mut g, B, n as u8);
        }
    }
    script_roll(&mut g, 7);
    let events = ok(&mut g, A, Action::RollDice);
    assert!(!has(&events, |e| matches!(e, Event::Produced { .. })));
    assert!(g.player(B).hand.is_empty());
    assert_eq!(
        g.phase(),
        Phase::MoveRobber {
            resume: Resume::Main
        }
    );
}

#[test]
fn ending_the_turn_passes_play_to_the_next_seat_in_order() {
    //
    let mut g = main_phase(4);
    let events = ok(&mut g, A, Action::EndTurn);
    assert!(events.contains(&Event::TurnStarted { seat: B, turn: 2 }));
    assert_eq!((g.current(), g.phase()), (B, Phase::PreRoll));
    refused(&mut g, A, Action::EndTurn, "not_your_turn");
    edit(&mut g, |p| {
        p.current = D;
        p.phase = Phase::Main;
    });
    ok(&mut g, D, Action::EndTurn);
    assert_eq!(g.current(), A, "play wraps round to the first seat");
    let mut three = main_phase(3);
    edit(&mut three, |p| p.current = C);
    ok(&mut three, C, Action::EndTurn);
    assert_eq!(three.current(), A);
}

#[test]
fn the_turn_cannot_end_while_a_step_is_pending() {
    //
    let mut g = main_phase(4);
    for phase in [
        Phase::MoveRobber {
            resume: Resume::Main,
        },
        Phase::Discard {
            pending: [0, 4, 0, 0],
        },
        Phase::RoadBuilding {
            remaining: 1,
            resume: Resume::Main,
        },
    ] {
        edit(&mut g, |p| p.phase = phase);
        refused(&mut g, A, Action::EndTurn, "pending_step");
    }
}

#[test]
fn players_and_the_system_issue_only_their_own_kinds_of_action() {
    // time-outs and expiries come from the system only; players
    // cannot fake them, and the system cannot play for a seat.
    let mut g = main_phase(4);
    refused(&mut g, A, Action::TimeOut, "system_only");
    refused(&mut g, Actor::System, Action::EndTurn, "not_for_system");
    refused(&mut g, Actor::System, Action::RollDice, "not_for_system");
    refused(&mut g, crate::Seat(3), Action::EndTurn, "not_your_turn");
    let mut three = main_phase(3);
    refused(&mut three, D, Action::EndTurn, "no_such_seat");
}

/// Applies a time-out to two copies of `g` and checks that it is accepted and that
/// both copies end up equal, with equal events.
fn time_out_twice(g: &Game) -> (Game, Vec<Event>) {
    let mut one = g.clone();
    let mut two = g.clone();
    let events = ok(&mut one, Actor::System, Action::TimeOut);
    let again = ok(&mut two, Actor::System, Action::TimeOut);
    assert_eq!(events, again);
    assert_eq!(one, two);
    assert!(has(&events, |e| matches!(e, Event::TimedOut { .. })));
    (one, events)
}

#[test]
fn a_time_out_in_setup_places_a_legal_settlement_and_then_a_touching_road() {
    //
    let mut g = new_game(4);
    super::support::place(&mut g, 8, 4);
    let seat = g.current();
    let (g, _) = time_out_twice(&g);
    let Phase::Setup {
        settlement: Some(placed),
        ..
    } = g.phase()
    else {
        panic!("a settlement was placed: {:?}", g.phase());
    };
    assert_eq!(g.building_at(placed), Some((seat, false)));
    assert!(
        topology().vertex_neighbors[placed.index()]
            .iter()
            .all(|w| g.building_at(*w).is_none()),
        "the distance rule holds"
    );
    let (g, _) = time_out_twice(&g);
    let road = g.player(seat).roads;
    assert_eq!(road.count_ones(), 1);
    assert_ne!(road & topology().vertex_edge_mask[placed.index()], 0);
}

#[test]
fn a_time_out_before_the_roll_rolls_the_dice() {
    //
    let g = pre_roll(4);
    let (g, events) = time_out_twice(&g);
    assert!(g.last_roll().is_some());
    assert!(has(&events, |e| matches!(e, Event::DiceRolled { .. })));
}

#[test]
fn a_time_out_during_discards_discards_half_for_every_seat_still_owing() {
    //
    let mut g = pre_roll(4);
    set_hand(&mut g, A, cards(3, 3, 3, 0, 0));
    set_hand(&mut g, B, cards(2, 2, 2, 2, 2));
    set_hand(&mut g, C, cards(4, 0, 0, 0, 0));
    script_roll(&mut g, 7);
    ok(&mut g, A, Action::RollDice);
    ok(
        &mut g,
        A,
        Action::Discard {
            cards: cards(3, 1, 0, 0, 0),
        },
    );
    let (g, _) = time_out_twice(&g);
    assert_eq!(g.player(A).hand.total(), 5);
    assert_eq!(g.player(B).hand.total(), 5);
    assert_eq!(g.player(C).hand.total(), 4);
    assert_eq!(
        g.phase(),
        Phase::MoveRobber {
            resume: Resume::Main
        }
    );
}

#[test]
fn a_time_out_at_the_robber_moves_it_and_robs_an_eligible_player() {
    //
    let mut g = main_phase(4);
    edit(&mut g, |p| {
        p.phase = Phase::MoveRobber {
            resume: Resume::Main,
        }
    });
    for n in [19, 0, 2, 40, 46, 27, 13] {
        settle(&mut g, B, n);
    }
    set_hand(&mut g, B, cards(5, 0, 0, 0, 0));
    let (g, events) = time_out_twice(&g);
    assert_ne!(g.robber(), t(9));
    assert_eq!(g.phase(), Phase::Main);
    let robbed = has(
        &events,
        |e| matches!(e, Event::Stolen { victim, .. } if *victim == B),
    );
    assert_eq!(robbed, g.touches_tile(B, g.robber()));
}

#[test]
fn a_time_out_during_road_building_forfeits_the_roads_left() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 4) });
    let (g, _) = time_out_twice(&g);
    assert_eq!(g.phase(), Phase::Main);
    assert_eq!(g.player(A).roads.count_ones(), 1);
}

#[test]
fn a_time_out_in_trade_and_build_ends_the_turn() {
    //
    let g = main_phase(4);
    let (g, events) = time_out_twice(&g);
    assert!(events.contains(&Event::TurnStarted { seat: B, turn: 2 }));
    assert_eq!(g.current(), B);
}

#[test]
fn the_same_seed_and_the_same_actions_give_the_same_game() {
    // determinism, time-outs included.
    let play = || {
        let mut g = Game::new(GameOptions::default(), 99).unwrap();
        let mut log = Vec::new();
        for step in 0..400 {
            let action = if step % 3 == 0 {
                (Actor::System, Action::TimeOut)
            } else {
                let seat = match g.phase() {
                    Phase::Discard { pending } => {
                        crate::Seat(pending.iter().position(|&n| n > 0).unwrap() as u8)
                    }
                    _ => g.current(),
                };
                let legal = g.legal_actions(seat);
                (Actor::Seat(seat), legal[step % legal.len()])
            };
            log.push(ok(&mut g, action.0, action.1));
            if g.is_over() {
                break;
            }
        }
        (g, log)
    };
    let (one, log_one) = play();
    let (two, log_two) = play();
    assert_eq!(log_one, log_two);
    assert_eq!(one, two);
    assert!(one.turn() > 1, "the game got past setup");
}

#[test]
fn a_time_out_at_the_robber_after_a_knight_before_the_roll_returns_to_the_roll() {
    //
    let mut g = pre_roll(4);
    give_card(&mut g, A, DevCard::Knight);
    ok(&mut g, A, Action::PlayKnight);
    let (g, _) = time_out_twice(&g);
    assert_eq!(g.phase(), Phase::PreRoll);
    assert_ne!(g.robber(), t(9));
}
