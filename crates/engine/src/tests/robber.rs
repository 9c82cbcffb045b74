//! Rolling a 7: discards, moving the robber and stealing, and the Knight.
//!
//! Beginner map: tile 9 is the desert; tile 10 has corners 19, 24, 25, 30, 31, 36.

use super::support::{
    A, B, C, D, assert_cards_conserved, cards, city, edit, give_card, has, main_phase, ok, only,
    pre_roll, refused, script_roll, set_hand, settle, t,
};
use crate::{Action, DevCard, Event, Game, Phase, Resource, Resources, Resume, Seat};

/// Seat A rolls a 7 with the given hands.
fn seven(hands: [Resources; 4]) -> Game {
    let mut g = pre_roll(4);
    for (s, hand) in [A, B, C, D].into_iter().zip(hands) {
        set_hand(&mut g, s, hand);
    }
    script_roll(&mut g, 7);
    let events = ok(&mut g, A, Action::RollDice);
    assert!(!has(&events, |e| matches!(e, Event::Produced { .. })));
    g
}

/// A game where seat A must move the robber, resuming the trade-and-build phase.
fn robber_move() -> Game {
    let mut g = main_phase(4);
    edit(&mut g, |p| {
        p.phase = Phase::MoveRobber {
            resume: Resume::Main,
        }
    });
    g
}

#[test]
fn eight_or_nine_cards_discard_four_and_ten_or_eleven_discard_five() {
    // R-7.1 (the example)
    let g = seven([
        cards(2, 2, 2, 2, 0),
        cards(2, 2, 2, 2, 1),
        cards(2, 2, 2, 2, 2),
        cards(3, 2, 2, 2, 2),
    ]);
    assert_eq!(
        g.phase(),
        Phase::Discard {
            pending: [4, 4, 5, 5]
        }
    );
}

#[test]
fn seven_cards_or_fewer_discard_nothing_and_the_robber_moves_at_once() {
    //
    let g = seven([
        cards(2, 2, 2, 1, 0),
        cards(1, 0, 0, 0, 0),
        Resources::ZERO,
        cards(7, 0, 0, 0, 0),
    ]);
    assert_eq!(
        g.phase(),
        Phase::MoveRobber {
            resume: Resume::Main
        }
    );
}

#[test]
fn development_cards_do_not_count_toward_the_discard() {
    // only resource cards count.
    let mut g = pre_roll(4);
    set_hand(&mut g, A, cards(2, 2, 2, 1, 0));
    for _ in 0..3 {
        give_card(&mut g, A, DevCard::Knight);
    }
    script_roll(&mut g, 7);
    ok(&mut g, A, Action::RollDice);
    assert!(matches!(g.phase(), Phase::MoveRobber { .. }));
}

#[test]
fn discards_may_come_in_any_order_of_seats_and_give_the_same_result() {
    // discards are simultaneous; the current player is one of them.
    let g = seven([
        cards(8, 0, 0, 0, 0),
        cards(0, 9, 0, 0, 0),
        cards(0, 0, 10, 0, 0),
        Resources::ZERO,
    ]);
    let discards = [
        (A, only(Resource::Lumber, 4)),
        (B, only(Resource::Brick, 4)),
        (C, only(Resource::Wool, 5)),
    ];
    let orders = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut results = Vec::new();
    for order in orders {
        let mut h = g.clone();
        for (k, &i) in order.iter().enumerate() {
            let (seat, cards) = discards[i];
            ok(&mut h, seat, Action::Discard { cards });
            if k < 2 {
                assert!(matches!(h.phase(), Phase::Discard { .. }), "still waiting");
            }
        }
        assert_eq!(
            h.phase(),
            Phase::MoveRobber {
                resume: Resume::Main
            }
        );
        assert_eq!(h.player(A).hand.total(), 4);
        assert_eq!(h.player(B).hand.total(), 5);
        assert_eq!(h.player(C).hand.total(), 5);
        assert_cards_conserved(&h);
        results.push(h);
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn the_robber_cannot_move_before_every_discard_is_done() {
    //
    let mut g = seven([
        Resources::ZERO,
        cards(0, 9, 0, 0, 0),
        Resources::ZERO,
        Resources::ZERO,
    ]);
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(0),
            victim: None,
        },
        "wrong_phase",
    );
    refused(&mut g, A, Action::EndTurn, "pending_step");
    refused(&mut g, A, Action::BuyDevCard, "wrong_phase");
}

#[test]
fn a_discard_must_be_exactly_half_rounded_down_of_cards_held() {
    //
    let mut g = seven([
        Resources::ZERO,
        cards(0, 9, 0, 0, 0),
        Resources::ZERO,
        Resources::ZERO,
    ]);
    for wrong in [
        only(Resource::Brick, 3),
        only(Resource::Brick, 5),
        only(Resource::Ore, 4),
    ] {
        refused(
            &mut g,
            B,
            Action::Discard { cards: wrong },
            "invalid_discard",
        );
    }
    refused(
        &mut g,
        C,
        Action::Discard {
            cards: Resources::ZERO,
        },
        "no_discard_required",
    );
    ok(
        &mut g,
        B,
        Action::Discard {
            cards: only(Resource::Brick, 4),
        },
    );
    assert_eq!(g.player(B).hand, only(Resource::Brick, 5));
    assert_eq!(g.bank().get(Resource::Brick), 14);
    refused(
        &mut g,
        B,
        Action::Discard {
            cards: only(Resource::Brick, 4),
        },
        "wrong_phase",
    );
}

#[test]
fn the_robber_must_leave_its_tile() {
    //
    let mut g = robber_move();
    assert_eq!(g.robber(), t(9));
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(9),
            victim: None,
        },
        "robber_must_move",
    );
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(19),
            victim: None,
        },
        "invalid_location",
    );
    refused(
        &mut g,
        B,
        Action::MoveRobber {
            tile: t(0),
            victim: None,
        },
        "not_your_turn",
    );
}

#[test]
fn the_robber_may_move_back_to_the_desert() {
    //
    let mut g = robber_move();
    edit(&mut g, |p| p.robber = t(5));
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(9),
            victim: None,
        },
    );
    assert_eq!(g.robber(), t(9));
    assert_eq!(g.phase(), Phase::Main);
}

#[test]
fn only_an_opponent_with_cards_and_a_building_on_the_tile_can_be_robbed() {
    //
    let mut g = robber_move();
    settle(&mut g, A, 30);
    settle(&mut g, B, 19);
    settle(&mut g, C, 36);
    settle(&mut g, D, 0);
    set_hand(&mut g, A, cards(1, 0, 0, 0, 0));
    set_hand(&mut g, B, cards(0, 0, 0, 2, 1));
    set_hand(&mut g, D, cards(0, 5, 0, 0, 0));
    let to_tile_10 = |victim| Action::MoveRobber {
        tile: t(10),
        victim,
    };
    // C has no cards, D no building there, A is the thief; seats 4 and up are outside
    // the game (7 the highest of three bits, 8 the first past it, 255 the last).
    for wrong in [
        Some(C),
        Some(D),
        Some(A),
        Some(Seat(4)),
        Some(Seat(7)),
        Some(Seat(8)),
        Some(Seat(200)),
        Some(Seat(u8::MAX)),
    ] {
        refused(&mut g, A, to_tile_10(wrong), "invalid_victim");
    }
    // Someone is eligible, so a victim must be named.
    refused(&mut g, A, to_tile_10(None), "invalid_victim");
    let events = ok(&mut g, A, to_tile_10(Some(B)));
    let stolen = events
        .iter()
        .find_map(|e| match e {
            Event::Stolen {
                thief: A,
                victim: B,
                resource,
            } => *resource,
            _ => None,
        })
        .expect("a steal");
    assert!(matches!(stolen, Resource::Grain | Resource::Ore));
    assert_eq!(g.player(B).hand.total(), 2);
    assert_eq!(g.player(A).hand.total(), 2);
    assert_eq!(g.player(A).hand.get(stolen), 1);
    assert_eq!(g.robber(), t(10));
    assert_eq!(g.phase(), Phase::Main);
    assert_cards_conserved(&g);
}

#[test]
fn no_victim_is_named_when_nobody_on_the_tile_is_eligible() {
    // C has a building on tile 10 but no cards; nobody is on tile 0.
    let mut g = robber_move();
    settle(&mut g, C, 36);
    set_hand(&mut g, B, cards(3, 0, 0, 0, 0));
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(10),
            victim: Some(C),
        },
        "invalid_victim",
    );
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(0),
            victim: Some(B),
        },
        "invalid_victim",
    );
    let events = ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(10),
            victim: None,
        },
    );
    assert!(!has(&events, |e| matches!(e, Event::Stolen { .. })));
    assert_eq!(g.player(B).hand.total(), 3);
}

#[test]
fn a_high_score_does_not_protect_from_discarding_or_being_robbed() {
    // score does not matter; neither.
    let mut g = pre_roll(4);
    for n in [19, 0, 53, 47] {
        settle(&mut g, B, n);
        city(&mut g, B, n);
    }
    settle(&mut g, B, 2);
    assert_eq!(g.public_vp(B), 9);
    set_hand(&mut g, B, cards(8, 0, 0, 0, 0));
    script_roll(&mut g, 7);
    ok(&mut g, A, Action::RollDice);
    ok(
        &mut g,
        B,
        Action::Discard {
            cards: only(Resource::Lumber, 4),
        },
    );
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(10),
            victim: Some(B),
        },
    );
    assert_eq!(g.player(B).hand, only(Resource::Lumber, 3));
    assert_eq!(g.player(A).hand, only(Resource::Lumber, 1));
    // the turn goes on with trade and build.
    assert_eq!(g.phase(), Phase::Main);
}

#[test]
fn a_knight_moves_the_robber_and_steals_without_any_discard() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, A, DevCard::Knight);
    settle(&mut g, B, 19);
    set_hand(&mut g, B, cards(10, 0, 0, 0, 0));
    ok(&mut g, A, Action::PlayKnight);
    assert_eq!(
        g.phase(),
        Phase::MoveRobber {
            resume: Resume::Main
        }
    );
    assert_eq!(g.player(B).hand.total(), 10);
    refused(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(9),
            victim: None,
        },
        "robber_must_move",
    );
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(10),
            victim: Some(B),
        },
    );
    assert_eq!(g.player(B).hand, only(Resource::Lumber, 9));
    assert_eq!(g.player(A).hand, only(Resource::Lumber, 1));
    assert_eq!(g.phase(), Phase::Main);
}
