//! What each seat may see: views and event redaction.

use super::support::{
    A, B, C, D, cards, edit, give_card, main_phase, ok, roads, set_hand, settle, stack_deck, t,
};
use crate::{Action, DevCard, Event, Game, Phase, Resource, Resume, Seat};

/// A's hand is 2 lumber and 1 ore, with a Knight and a VP card; A has a settlement on 0
/// (the generic harbor) and roads 0-4-8.
fn position() -> Game {
    let mut g = main_phase(4);
    settle(&mut g, A, 0);
    roads(&mut g, A, &[0, 4, 8]);
    set_hand(&mut g, A, cards(2, 0, 0, 0, 1));
    give_card(&mut g, A, DevCard::Knight);
    give_card(&mut g, A, DevCard::VictoryPoint);
    g
}

#[test]
fn opponents_and_spectators_see_only_how_many_cards_a_player_holds() {
    //
    // In `other`, A and D swap hands of three cards (so the bank is the same) and A
    // holds two Monopolies instead of a Knight and a VP card.
    let mut g = position();
    set_hand(&mut g, D, cards(0, 1, 2, 0, 0));
    let mut other = g.clone();
    edit(&mut other, |p| {
        p.seats[D.index()].hand = cards(2, 0, 0, 0, 1);
        let a = &mut p.seats[A.index()];
        a.hand = cards(0, 1, 2, 0, 0);
        a.dev_cards = crate::DevCards::default();
        *a.dev_cards.get_mut(DevCard::Monopoly) += 2;
    });
    assert_eq!(g.bank(), other.bank());
    for viewer in [Some(B), Some(C), None] {
        assert_eq!(g.view(viewer), other.view(viewer), "{viewer:?}");
    }
    assert_ne!(g.view(Some(A)), other.view(Some(A)));
    let seen = g.view(Some(B));
    assert_eq!(seen.players[0].resource_cards, 3);
    assert_eq!(seen.players[0].dev_cards, 2);
    assert_eq!(seen.me.map(|m| m.seat), Some(B));
}

#[test]
fn a_player_sees_their_own_hand_cards_total_and_ratios() {
    //
    let g = position();
    let me = g.view(Some(A)).me.expect("a seat's own facts");
    assert_eq!(me.seat, A);
    assert_eq!(me.hand, cards(2, 0, 0, 0, 1));
    assert_eq!(me.dev_cards.get(DevCard::Knight), 1);
    assert_eq!(me.dev_cards.get(DevCard::VictoryPoint), 1);
    assert_eq!(me.total_vp, 2);
    assert_eq!(me.maritime_ratios, [3; 5]);
}

#[test]
fn the_public_score_leaves_out_victory_point_cards() {
    //
    let g = position();
    for viewer in [Some(A), Some(B), None] {
        assert_eq!(g.view(viewer).players[0].public_vp, 1);
    }
    assert_eq!(g.view(Some(A)).me.unwrap().total_vp, 2);
}

#[test]
fn a_spectator_or_an_unknown_seat_gets_no_private_facts() {
    //
    let g = position();
    assert_eq!(g.view(None).me, None);
    assert_eq!(g.view(None).viewer, None);
    assert_eq!(g.view(Some(Seat(7))), g.view(None));
}

#[test]
fn the_view_holds_neither_the_seed_nor_the_deck_order() {
    //
    let g = position();
    let mut other = g.clone();
    edit(&mut other, |p| {
        p.seed = g.seed() + 1;
        p.rng_word_pos = 12_345;
        p.scripted_dice = vec![[6, 6]];
        p.dev_deck.reverse();
    });
    assert_ne!(g.to_position().dev_deck, other.to_position().dev_deck);
    for viewer in [Some(A), Some(B), None] {
        assert_eq!(g.view(viewer), other.view(viewer));
        let json = serde_json::to_string(&g.view(viewer)).unwrap();
        assert!(
            !json.contains("seed") && !json.contains("scripted"),
            "{json}"
        );
        assert!(!json.contains("victory_point") || viewer == Some(A));
    }
    assert_eq!(usize::from(g.view(None).dev_deck), g.dev_deck_len());
}

#[test]
fn the_board_the_played_knights_and_the_offers_are_public() {
    //
    let mut g = position();
    ok(&mut g, A, Action::PlayKnight);
    ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(0),
            victim: None,
        },
    );
    ok(
        &mut g,
        A,
        Action::OfferTrade {
            to: Some(C),
            give: cards(1, 0, 0, 0, 0),
            get: cards(0, 1, 0, 0, 0),
        },
    );
    let seen = g.view(None);
    assert_eq!(seen.players[0].knights_played, 1);
    assert_eq!(seen.buildings.len(), 1);
    assert_eq!(seen.buildings[0].seat, A);
    assert_eq!(seen.roads.len(), 2);
    assert_eq!(seen.robber, t(0));
    assert_eq!(seen.offers, g.offers());
    assert_eq!(seen.offers.len(), 1);
}

#[test]
fn a_stolen_card_is_shown_only_to_thief_and_victim() {
    //
    let mut g = main_phase(4);
    edit(&mut g, |p| {
        p.phase = Phase::MoveRobber {
            resume: Resume::Main,
        }
    });
    settle(&mut g, B, 19);
    set_hand(&mut g, B, cards(0, 0, 0, 1, 0));
    let events = ok(
        &mut g,
        A,
        Action::MoveRobber {
            tile: t(10),
            victim: Some(B),
        },
    );
    let stolen = *events
        .iter()
        .find(|e| matches!(e, Event::Stolen { .. }))
        .expect("a steal");
    let shown = Event::Stolen {
        thief: A,
        victim: B,
        resource: Some(Resource::Grain),
    };
    let hidden = Event::Stolen {
        thief: A,
        victim: B,
        resource: None,
    };
    assert_eq!(stolen.redact_for(Some(A)), shown);
    assert_eq!(stolen.redact_for(Some(B)), shown);
    assert_eq!(stolen.redact_for(Some(C)), hidden);
    assert_eq!(stolen.redact_for(None), hidden);
}

#[test]
fn a_bought_card_is_shown_only_to_its_buyer() {
    //
    let mut g = main_phase(4);
    set_hand(&mut g, A, crate::Resources::DEV_CARD);
    stack_deck(&mut g, DevCard::VictoryPoint);
    let events = ok(&mut g, A, Action::BuyDevCard);
    let bought = *events
        .iter()
        .find(|e| matches!(e, Event::DevCardBought { .. }))
        .expect("a purchase");
    assert_eq!(
        bought.redact_for(Some(A)),
        Event::DevCardBought {
            seat: A,
            card: Some(DevCard::VictoryPoint)
        }
    );
    for viewer in [Some(B), None] {
        assert_eq!(
            bought.redact_for(viewer),
            Event::DevCardBought {
                seat: A,
                card: None
            }
        );
    }
    // Public facts stay public: what A paid is seen by all.
    let paid = events
        .iter()
        .find(|e| matches!(e, Event::Paid { .. }))
        .expect("a payment");
    assert_eq!(paid.redact_for(Some(C)), *paid);
}
