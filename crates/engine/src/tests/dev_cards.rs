//! Development cards: buying, the timing rules and each card (R-8.2..R-8.6).

use super::support::{
    A, B, C, D, assert_cards_conserved, cards, edge, edit, give_card, has, main_phase, ok, only,
    pre_roll, refused, roads, script_roll, set_hand, settle, stack_deck, t,
};
use crate::{Action, Actor, DevCard, Event, Game, Phase, Resource, Resources, Resume};

fn buyer() -> Game {
    let mut g = main_phase(4);
    set_hand(&mut g, A, cards(0, 0, 5, 5, 5));
    g
}

/// Lets the system time out every step until it is seat A's turn again, before the roll.
fn until_a_rolls_again(g: &mut Game) {
    ok(g, A, Action::EndTurn);
    for _ in 0..100 {
        if g.current() == A && g.phase() == Phase::PreRoll {
            return;
        }
        ok(g, Actor::System, Action::TimeOut);
    }
    panic!("seat A never got another turn");
}

#[test]
fn a_bought_card_comes_from_the_top_of_the_deck() {
    //
    let mut g = buyer();
    stack_deck(&mut g, DevCard::Monopoly);
    let events = ok(&mut g, A, Action::BuyDevCard);
    assert_eq!(g.dev_deck_len(), 24);
    assert_eq!(g.player(A).dev_cards.get(DevCard::Monopoly), 1);
    assert_eq!(g.player(A).hand, cards(0, 0, 4, 4, 4));
    assert!(events.contains(&Event::DevCardBought {
        seat: A,
        card: Some(DevCard::Monopoly)
    }));
}

#[test]
fn an_empty_deck_cannot_be_bought_from() {
    //
    let mut g = buyer();
    edit(&mut g, |p| p.dev_deck.clear());
    refused(&mut g, A, Action::BuyDevCard, "dev_deck_empty");
}

#[test]
fn any_number_of_cards_may_be_bought_in_one_turn() {
    //
    let mut g = buyer();
    for _ in 0..5 {
        ok(&mut g, A, Action::BuyDevCard);
    }
    assert_eq!(g.player(A).dev_cards.total(), 5);
    assert_eq!(g.dev_deck_len(), 20);
}

#[test]
fn a_card_bought_this_turn_is_playable_only_from_a_later_turn() {
    //
    let mut g = buyer();
    stack_deck(&mut g, DevCard::Knight);
    ok(&mut g, A, Action::BuyDevCard);
    assert_eq!(g.player(A).dev_cards_new.get(DevCard::Knight), 1);
    refused(&mut g, A, Action::PlayKnight, "no_playable_card");
    until_a_rolls_again(&mut g);
    assert_eq!(g.player(A).dev_cards_new.total(), 0);
    ok(&mut g, A, Action::PlayKnight);
}

#[test]
fn an_older_card_is_playable_beside_a_new_one_of_the_same_kind() {
    // only the card bought this turn is held back.
    let mut g = buyer();
    give_card(&mut g, A, DevCard::Knight);
    stack_deck(&mut g, DevCard::Knight);
    ok(&mut g, A, Action::BuyDevCard);
    ok(&mut g, A, Action::PlayKnight);
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(0),
            victim: None,
        },
    );
    assert_eq!(g.player(A).dev_cards.get(DevCard::Knight), 1);
    assert_eq!(g.player(A).playable(DevCard::Knight), 0);
}

#[test]
fn only_one_development_card_may_be_played_per_turn() {
    //
    let mut g = pre_roll(4);
    give_card(&mut g, A, DevCard::Knight);
    give_card(&mut g, A, DevCard::Knight);
    give_card(&mut g, A, DevCard::YearOfPlenty);
    ok(&mut g, A, Action::PlayKnight);
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(0),
            victim: None,
        },
    );
    refused(&mut g, A, Action::PlayKnight, "dev_card_already_played");
    script_roll(&mut g, 8);
    ok(&mut g, A, Action::RollDice);
    assert_eq!(g.phase(), Phase::Main);
    refused(&mut g, A, Action::PlayKnight, "dev_card_already_played");
    refused(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Ore, 2),
        },
        "dev_card_already_played",
    );
}

#[test]
fn cards_are_played_only_on_ones_own_turn_and_never_mid_step() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, B, DevCard::Knight);
    give_card(&mut g, A, DevCard::Monopoly);
    refused(&mut g, B, Action::PlayKnight, "not_your_turn");
    edit(&mut g, |p| {
        p.phase = Phase::MoveRobber {
            resume: Resume::Main,
        }
    });
    refused(
        &mut g,
        A,
        Action::PlayMonopoly {
            resource: Resource::Ore,
        },
        "wrong_phase",
    );
}

#[test]
fn a_card_may_be_played_before_the_roll_and_the_roll_follows() {
    //
    let mut g = pre_roll(4);
    give_card(&mut g, A, DevCard::Knight);
    ok(&mut g, A, Action::PlayKnight);
    assert_eq!(
        g.phase(),
        Phase::MoveRobber {
            resume: Resume::PreRoll
        }
    );
    refused(&mut g, A, Action::RollDice, "wrong_phase");
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(3),
            victim: None,
        },
    );
    assert_eq!(g.phase(), Phase::PreRoll);
    ok(&mut g, A, Action::RollDice);
}

#[test]
fn a_played_knight_stays_face_up_in_front_of_the_player() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, A, DevCard::Knight);
    give_card(&mut g, A, DevCard::Knight);
    let events = ok(&mut g, A, Action::PlayKnight);
    assert!(events.contains(&Event::DevCardPlayed {
        seat: A,
        card: DevCard::Knight
    }));
    assert_eq!(g.player(A).knights_played, 1);
    assert_eq!(g.player(A).dev_cards.get(DevCard::Knight), 1);
    let seen_by_b = g.view(Some(B));
    assert_eq!(seen_by_b.players[0].knights_played, 1);
    assert_eq!(seen_by_b.players[0].dev_cards, 1);
}

#[test]
fn road_building_places_two_free_roads_the_first_making_the_second_legal() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    assert_eq!(
        g.phase(),
        Phase::RoadBuilding {
            remaining: 2,
            resume: Resume::Main
        }
    );
    refused(
        &mut g,
        A,
        Action::BuildRoad { edge: edge(4, 8) },
        "illegal_placement",
    );
    refused(&mut g, A, Action::EndTurn, "pending_step");
    refused(&mut g, A, Action::BuyDevCard, "wrong_phase");
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 4) });
    assert_eq!(
        g.phase(),
        Phase::RoadBuilding {
            remaining: 1,
            resume: Resume::Main
        }
    );
    let events = ok(&mut g, A, Action::BuildRoad { edge: edge(4, 8) });
    assert!(!has(&events, |e| matches!(e, Event::Paid { .. })));
    assert_eq!(g.phase(), Phase::Main);
    assert!(g.player(A).hand.is_empty(), "the roads were free");
    assert_eq!(g.player(A).roads.count_ones(), 2);
}

#[test]
fn road_building_before_the_roll_returns_to_the_roll() {
    //
    let mut g = pre_roll(4);
    settle(&mut g, A, 0);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 4) });
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 3) });
    assert_eq!(g.phase(), Phase::PreRoll);
}

#[test]
fn road_building_with_one_road_left_in_supply_places_one() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 2);
    roads(
        &mut g,
        A,
        &[2, 6, 10, 15, 20, 26, 32, 37, 42, 46, 50, 53, 49, 52, 48],
    );
    assert_eq!(g.player(A).roads_left(), 1);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    assert_eq!(
        g.phase(),
        Phase::RoadBuilding {
            remaining: 1,
            resume: Resume::Main
        }
    );
    ok(&mut g, A, Action::BuildRoad { edge: edge(2, 5) });
    assert_eq!(g.phase(), Phase::Main);
    assert_eq!(g.player(A).roads_left(), 0);
}

#[test]
fn road_building_with_an_empty_supply_places_nothing() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 2);
    roads(
        &mut g,
        A,
        &[2, 6, 10, 15, 20, 26, 32, 37, 42, 46, 50, 53, 49, 52, 48, 51],
    );
    give_card(&mut g, A, DevCard::RoadBuilding);
    let events = ok(&mut g, A, Action::PlayRoadBuilding);
    assert!(events.contains(&Event::DevCardPlayed {
        seat: A,
        card: DevCard::RoadBuilding
    }));
    assert_eq!(g.phase(), Phase::Main);
    assert_eq!(g.player(A).dev_cards.get(DevCard::RoadBuilding), 0);
    assert!(g.dev_card_played_this_turn());
}

#[test]
fn road_building_with_no_legal_path_places_nothing() {
    // A's settlement on 0 is hemmed in by B's roads.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    settle(&mut g, B, 7);
    roads(&mut g, B, &[7, 3, 0, 4]);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    assert_eq!(g.phase(), Phase::Main);
    assert_eq!(g.player(A).roads, 0);
    ok(&mut g, A, Action::EndTurn);
}

#[test]
fn road_building_stops_after_one_road_when_the_board_allows_only_one() {
    // after 0-4, both paths on from 4 are B's.
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    settle(&mut g, B, 7);
    roads(&mut g, B, &[7, 3, 0]);
    settle(&mut g, B, 8);
    roads(&mut g, B, &[8, 4, 1]);
    give_card(&mut g, A, DevCard::RoadBuilding);
    ok(&mut g, A, Action::PlayRoadBuilding);
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 4) });
    assert_eq!(g.phase(), Phase::Main);
}

#[test]
fn year_of_plenty_takes_any_two_cards_even_of_one_kind() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, A, DevCard::YearOfPlenty);
    give_card(&mut g, B, DevCard::YearOfPlenty);
    refused(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Ore, 3),
        },
        "invalid_year_of_plenty",
    );
    refused(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Ore, 1),
        },
        "invalid_year_of_plenty",
    );
    ok(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Ore, 2),
        },
    );
    assert_eq!(g.player(A).hand, only(Resource::Ore, 2));
    assert_eq!(g.bank().get(Resource::Ore), 17);
    // Two different kinds work too.
    edit(&mut g, |p| {
        p.current = B;
        p.dev_played = false;
    });
    ok(
        &mut g,
        B,
        Action::PlayYearOfPlenty {
            take: cards(1, 0, 0, 1, 0),
        },
    );
    assert_eq!(g.player(B).hand, cards(1, 0, 0, 1, 0));
    assert_cards_conserved(&g);
}

#[test]
fn year_of_plenty_takes_the_one_card_a_nearly_empty_bank_has() {
    // a bank with 1 card in total pays that one card.
    let mut g = main_phase(4);
    set_hand(&mut g, B, cards(19, 19, 18, 19, 19));
    assert_eq!(g.bank(), only(Resource::Wool, 1));
    give_card(&mut g, A, DevCard::YearOfPlenty);
    for wrong in [
        only(Resource::Wool, 2),
        cards(0, 0, 1, 0, 1),
        only(Resource::Ore, 1),
        Resources::ZERO,
    ] {
        refused(
            &mut g,
            A,
            Action::PlayYearOfPlenty { take: wrong },
            "invalid_year_of_plenty",
        );
    }
    ok(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Wool, 1),
        },
    );
    assert_eq!(g.player(A).hand, only(Resource::Wool, 1));
    assert!(g.bank().is_empty());
}

#[test]
fn year_of_plenty_cannot_choose_a_resource_the_bank_lacks() {
    //
    let mut g = main_phase(4);
    set_hand(&mut g, B, only(Resource::Ore, 19));
    give_card(&mut g, A, DevCard::YearOfPlenty);
    refused(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: cards(1, 0, 0, 0, 1),
        },
        "invalid_year_of_plenty",
    );
    ok(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: cards(1, 1, 0, 0, 0),
        },
    );
}

#[test]
fn monopoly_takes_every_opponents_cards_of_that_resource_and_nothing_from_the_bank() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, A, DevCard::Monopoly);
    set_hand(&mut g, A, only(Resource::Grain, 1));
    set_hand(&mut g, B, only(Resource::Grain, 3));
    set_hand(&mut g, C, cards(0, 0, 0, 2, 1));
    set_hand(&mut g, D, only(Resource::Lumber, 4));
    let bank = g.bank();
    let events = ok(
        &mut g,
        A,
        Action::PlayMonopoly {
            resource: Resource::Grain,
        },
    );
    assert_eq!(g.player(A).hand, only(Resource::Grain, 6));
    assert!(g.player(B).hand.is_empty());
    assert_eq!(g.player(C).hand, only(Resource::Ore, 1));
    assert_eq!(g.player(D).hand, only(Resource::Lumber, 4));
    assert_eq!(g.bank(), bank);
    assert!(events.contains(&Event::Monopoly {
        seat: A,
        resource: Resource::Grain,
        taken: [0, 3, 2, 0]
    }));
}

#[test]
fn a_victory_point_card_counts_at_once_is_hidden_and_is_never_played() {
    //
    let mut g = buyer();
    settle(&mut g, A, 0);
    stack_deck(&mut g, DevCard::VictoryPoint);
    ok(&mut g, A, Action::BuyDevCard);
    assert_eq!(g.total_vp(A), 2);
    assert_eq!(g.public_vp(A), 1);
    until_a_rolls_again(&mut g);
    assert_eq!(g.player(A).dev_cards.get(DevCard::VictoryPoint), 1);
    // Holding only a VP card, the one thing to do before the roll is to roll.
    assert_eq!(g.legal_actions(A), vec![Action::RollDice]);
}

#[test]
fn a_victory_point_card_counts_even_after_another_card_was_played() {
    // not limited by.
    let mut g = buyer();
    give_card(&mut g, A, DevCard::Monopoly);
    ok(
        &mut g,
        A,
        Action::PlayMonopoly {
            resource: Resource::Brick,
        },
    );
    stack_deck(&mut g, DevCard::VictoryPoint);
    ok(&mut g, A, Action::BuyDevCard);
    assert_eq!(g.total_vp(A), 1);
}

#[test]
fn year_of_plenty_with_an_empty_bank_takes_nothing() {
    // take what there is, which is nothing.
    let mut g = main_phase(4);
    set_hand(&mut g, B, Resources::splat(19));
    give_card(&mut g, A, DevCard::YearOfPlenty);
    refused(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: only(Resource::Ore, 1),
        },
        "invalid_year_of_plenty",
    );
    ok(
        &mut g,
        A,
        Action::PlayYearOfPlenty {
            take: Resources::ZERO,
        },
    );
    assert!(g.player(A).hand.is_empty());
    assert!(g.dev_card_played_this_turn());
}

#[test]
fn monopoly_on_a_resource_nobody_else_holds_takes_nothing_and_keeps_own_cards() {
    //
    let mut g = main_phase(4);
    give_card(&mut g, A, DevCard::Monopoly);
    set_hand(&mut g, A, only(Resource::Wool, 2));
    set_hand(&mut g, B, only(Resource::Ore, 3));
    let events = ok(
        &mut g,
        A,
        Action::PlayMonopoly {
            resource: Resource::Wool,
        },
    );
    assert_eq!(g.player(A).hand, only(Resource::Wool, 2));
    assert_eq!(g.player(B).hand, only(Resource::Ore, 3));
    assert!(events.contains(&Event::Monopoly {
        seat: A,
        resource: Resource::Wool,
        taken: [0; 4]
    }));
    refused(
        &mut g,
        A,
        Action::PlayMonopoly {
            resource: Resource::Ore,
        },
        "dev_card_already_played",
    );
}
