//! Making and answering player offers (R-9.1..R-9.3): who may trade, what an offer
//! may hold, accepting, rejecting, countering and confirming.

use super::{closed, lumber_for_ore, made, market, offer, open};
use crate::tests::support::{
    A, B, C, D, assert_cards_conserved, cards, edit, main_phase, ok, only, pre_roll, refused,
    set_hand,
};
use crate::{Action, Event, OfferClosed, OfferId, Resource, Resources, Seat};

#[test]
fn only_the_current_player_trades_and_only_after_the_roll() {
    //
    let mut g = pre_roll(4);
    set_hand(&mut g, A, Resources::splat(4));
    set_hand(&mut g, B, Resources::splat(4));
    let (give, get) = lumber_for_ore();
    refused(&mut g, A, offer(None, give, get), "wrong_phase");
    refused(
        &mut g,
        A,
        Action::MaritimeTrade {
            give: Resource::Lumber,
            get: Resource::Ore,
        },
        "wrong_phase",
    );
    edit(&mut g, |p| p.phase = crate::Phase::Main);
    refused(&mut g, B, offer(None, give, get), "not_your_turn");
    refused(
        &mut g,
        B,
        Action::MaritimeTrade {
            give: Resource::Lumber,
            get: Resource::Ore,
        },
        "not_your_turn",
    );
    ok(&mut g, A, offer(None, give, get));
}

#[test]
fn a_trade_needs_cards_on_both_sides_and_no_resource_on_both() {
    // no gifts; the same resource may not appear on both sides.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    refused(
        &mut g,
        A,
        offer(Some(B), give, Resources::ZERO),
        "invalid_trade",
    );
    refused(
        &mut g,
        A,
        offer(Some(B), Resources::ZERO, get),
        "invalid_trade",
    );
    refused(
        &mut g,
        A,
        offer(Some(B), cards(1, 0, 0, 0, 1), get),
        "invalid_trade",
    );
    ok(&mut g, A, offer(Some(B), give, get));
    let id = g.offers()[0].id;
    refused(
        &mut g,
        B,
        Action::CounterOffer {
            offer: id,
            give: Resources::ZERO,
            get: give,
        },
        "invalid_trade",
    );
}

#[test]
fn an_offer_to_oneself_or_to_a_missing_seat_is_refused() {
    // between the current player and one opponent.
    let mut g = main_phase(3);
    set_hand(&mut g, A, Resources::splat(2));
    let (give, get) = lumber_for_ore();
    refused(&mut g, A, offer(Some(A), give, get), "invalid_trade");
    refused(&mut g, A, offer(Some(D), give, get), "invalid_trade");
    refused(&mut g, A, offer(Some(Seat(9)), give, get), "invalid_trade");
}

#[test]
fn an_offer_of_cards_not_held_is_refused() {
    //
    let mut g = market();
    refused(
        &mut g,
        A,
        offer(None, only(Resource::Lumber, 3), only(Resource::Ore, 1)),
        "insufficient_resources",
    );
}

#[test]
fn ratios_are_free_and_a_confirmed_trade_moves_the_cards() {
    //
    let mut g = market();
    let events = ok(
        &mut g,
        A,
        offer(Some(B), cards(2, 1, 0, 0, 0), only(Resource::Ore, 1)),
    );
    let id = made(&events);
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    assert_eq!(g.player(A).hand, Resources::splat(2), "nothing moves yet");
    let events = ok(&mut g, A, Action::ConfirmTrade { offer: id, with: B });
    assert!(closed(&events, id, OfferClosed::Completed));
    assert_eq!(g.player(A).hand, cards(0, 1, 2, 2, 3));
    assert_eq!(g.player(B).hand, cards(4, 3, 2, 2, 1));
    assert!(open(&g, id).is_none());
    assert_cards_conserved(&g);
}

#[test]
fn an_offer_to_one_opponent_is_answered_only_by_that_opponent() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(Some(B), give, get)));
    refused(
        &mut g,
        C,
        Action::AcceptOffer { offer: id },
        "not_offer_recipient",
    );
    refused(
        &mut g,
        C,
        Action::RejectOffer { offer: id },
        "not_offer_recipient",
    );
    refused(
        &mut g,
        C,
        Action::CounterOffer {
            offer: id,
            give: get,
            get: give,
        },
        "not_offer_recipient",
    );
    refused(
        &mut g,
        A,
        Action::AcceptOffer { offer: id },
        "not_offer_recipient",
    );
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    refused(
        &mut g,
        B,
        Action::AcceptOffer { offer: id },
        "already_answered",
    );
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: C },
        "offer_not_accepted",
    );
    ok(&mut g, A, Action::ConfirmTrade { offer: id, with: B });
}

#[test]
fn an_offer_to_all_is_completed_with_one_accepting_opponent() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    ok(&mut g, C, Action::AcceptOffer { offer: id });
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: D },
        "offer_not_accepted",
    );
    refused(
        &mut g,
        B,
        Action::ConfirmTrade { offer: id, with: B },
        "not_your_turn",
    );
    ok(&mut g, A, Action::ConfirmTrade { offer: id, with: C });
    assert_eq!(g.player(C).hand, cards(3, 2, 2, 2, 1));
    assert_eq!(g.player(B).hand, Resources::splat(2));
    assert!(g.offers().is_empty());
}

#[test]
fn confirming_needs_an_opponent_who_accepted() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: B },
        "offer_not_accepted",
    );
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    ok(&mut g, B, Action::RejectOffer { offer: id });
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: B },
        "offer_not_accepted",
    );
    refused(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: id,
            with: Seat(9),
        },
        "offer_not_accepted",
    );
    refused(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: OfferId(99),
            with: B,
        },
        "unknown_offer",
    );
}

#[test]
fn accepting_needs_the_cards_asked_for() {
    //
    let mut g = market();
    set_hand(&mut g, B, only(Resource::Lumber, 2));
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(Some(B), give, get)));
    refused(
        &mut g,
        B,
        Action::AcceptOffer { offer: id },
        "insufficient_resources",
    );
}

#[test]
fn when_every_recipient_rejects_the_offer_closes() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    ok(&mut g, B, Action::RejectOffer { offer: id });
    refused(
        &mut g,
        B,
        Action::RejectOffer { offer: id },
        "already_answered",
    );
    ok(&mut g, C, Action::RejectOffer { offer: id });
    assert!(open(&g, id).is_some(), "D has not answered");
    let events = ok(&mut g, D, Action::RejectOffer { offer: id });
    assert!(closed(&events, id, OfferClosed::Rejected));
    assert!(open(&g, id).is_none());
    // An offer to one opponent closes on that opponent's rejection.
    let id = made(&ok(&mut g, A, offer(Some(C), give, get)));
    let events = ok(&mut g, C, Action::RejectOffer { offer: id });
    assert!(closed(&events, id, OfferClosed::Rejected));
    refused(
        &mut g,
        C,
        Action::AcceptOffer { offer: id },
        "unknown_offer",
    );
}

#[test]
fn a_counter_offer_completes_when_the_current_player_accepts_it() {
    // the counter is a new offer that the current player accepts in turn.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let first = made(&ok(&mut g, A, offer(Some(B), give, get)));
    let counter = made(&ok(
        &mut g,
        B,
        Action::CounterOffer {
            offer: first,
            give: only(Resource::Ore, 1),
            get: only(Resource::Lumber, 2),
        },
    ));
    let o = *open(&g, counter).expect("the counter is open");
    assert_eq!(
        (o.from, o.to, o.counter_to),
        (B, Some(A), Some(first)),
        "a counter goes from the opponent back to the current player"
    );
    refused(
        &mut g,
        C,
        Action::AcceptOffer { offer: counter },
        "not_offer_recipient",
    );
    refused(
        &mut g,
        A,
        Action::CounterOffer {
            offer: counter,
            give,
            get,
        },
        "not_offer_recipient",
    );
    let events = ok(&mut g, A, Action::AcceptOffer { offer: counter });
    assert!(events.contains(&Event::TradeCompleted {
        offer: counter,
        from: B,
        to: A,
        gave: only(Resource::Ore, 1),
        got: only(Resource::Lumber, 2),
    }));
    assert_eq!(g.player(A).hand, cards(0, 2, 2, 2, 3));
    assert_eq!(g.player(B).hand, cards(4, 2, 2, 2, 1));
    assert!(open(&g, counter).is_none());
    assert_cards_conserved(&g);
}

#[test]
fn the_current_player_may_reject_a_counter_offer() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let first = made(&ok(&mut g, A, offer(None, give, get)));
    let counter = made(&ok(
        &mut g,
        C,
        Action::CounterOffer {
            offer: first,
            give: only(Resource::Wool, 1),
            get,
        },
    ));
    let events = ok(&mut g, A, Action::RejectOffer { offer: counter });
    assert!(closed(&events, counter, OfferClosed::Rejected));
    assert!(open(&g, first).is_some());
}

#[test]
fn offers_are_answered_only_in_the_trade_and_build_phase() {
    // while A moves the robber, open offers cannot be answered.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    edit(&mut g, |p| {
        p.phase = crate::Phase::MoveRobber {
            resume: crate::Resume::Main,
        }
    });
    refused(&mut g, B, Action::AcceptOffer { offer: id }, "wrong_phase");
}

#[test]
fn too_many_open_offers_are_refused() {
    // a bounded number of open offers (a stable error code).
    let mut g = market();
    let (give, get) = lumber_for_ore();
    for _ in 0..crate::rules::MAX_OPEN_OFFERS {
        ok(&mut g, A, offer(None, give, get));
    }
    refused(&mut g, A, offer(None, give, get), "too_many_offers");
    let id = g.offers()[0].id;
    refused(
        &mut g,
        B,
        Action::CounterOffer {
            offer: id,
            give: get,
            get: give,
        },
        "too_many_offers",
    );
}
