//! How player offers close: withdrawn, at the end of the turn, expired by the
//! system, or refused at the end because a side no longer holds the cards.

use super::{closed, lumber_for_ore, made, market, offer};
use crate::tests::support::{A, B, C, cards, edge, ok, only, refused, set_hand, settle};
use crate::{Action, Actor, OfferClosed, OfferId, Resource, Resources};

#[test]
fn the_sender_may_withdraw_an_offer_and_nobody_else_may() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    refused(
        &mut g,
        B,
        Action::WithdrawOffer { offer: id },
        "not_offer_sender",
    );
    let events = ok(&mut g, A, Action::WithdrawOffer { offer: id });
    assert!(closed(&events, id, OfferClosed::Withdrawn));
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: B },
        "unknown_offer",
    );
    refused(
        &mut g,
        A,
        Action::WithdrawOffer { offer: id },
        "unknown_offer",
    );
    assert_eq!(g.player(A).hand, Resources::splat(2));
}

#[test]
fn cards_move_only_if_the_sender_still_holds_them() {
    // A spends the offered lumber on a road before confirming.
    let mut g = market();
    set_hand(&mut g, A, cards(1, 1, 0, 0, 0));
    settle(&mut g, A, 0);
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(Some(B), give, get)));
    ok(&mut g, B, Action::AcceptOffer { offer: id });
    ok(&mut g, A, Action::BuildRoad { edge: edge(0, 4) });
    refused(
        &mut g,
        A,
        Action::ConfirmTrade { offer: id, with: B },
        "insufficient_resources",
    );
}

#[test]
fn cards_move_only_if_the_accepting_opponent_still_holds_them() {
    // B gives away both ore in another trade after accepting the first.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let first = made(&ok(&mut g, A, offer(Some(B), give, get)));
    ok(&mut g, B, Action::AcceptOffer { offer: first });
    let second = made(&ok(
        &mut g,
        A,
        offer(Some(B), only(Resource::Wool, 1), only(Resource::Ore, 2)),
    ));
    ok(&mut g, B, Action::AcceptOffer { offer: second });
    ok(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: second,
            with: B,
        },
    );
    assert_eq!(g.player(B).hand.get(Resource::Ore), 0);
    refused(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: first,
            with: B,
        },
        "insufficient_resources",
    );
}

#[test]
fn a_counter_offer_completes_only_if_both_sides_still_hold_the_cards() {
    // B counters with its 2 ore, then trades them away before A accepts.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let first = made(&ok(&mut g, A, offer(None, give, get)));
    let counter = made(&ok(
        &mut g,
        B,
        Action::CounterOffer {
            offer: first,
            give: only(Resource::Ore, 2),
            get: only(Resource::Lumber, 1),
        },
    ));
    let other = made(&ok(
        &mut g,
        A,
        offer(Some(B), only(Resource::Wool, 1), only(Resource::Ore, 2)),
    ));
    ok(&mut g, B, Action::AcceptOffer { offer: other });
    ok(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: other,
            with: B,
        },
    );
    refused(
        &mut g,
        A,
        Action::AcceptOffer { offer: counter },
        "insufficient_resources",
    );
    // And the current player must hold what the counter asks for.
    let counter = made(&ok(
        &mut g,
        C,
        Action::CounterOffer {
            offer: first,
            give: only(Resource::Ore, 1),
            get: only(Resource::Lumber, 3),
        },
    ));
    refused(
        &mut g,
        A,
        Action::AcceptOffer { offer: counter },
        "insufficient_resources",
    );
}

#[test]
fn open_offers_close_at_the_end_of_the_turn() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let one = made(&ok(&mut g, A, offer(None, give, get)));
    let two = made(&ok(&mut g, A, offer(Some(C), get, give)));
    let counter = made(&ok(
        &mut g,
        B,
        Action::CounterOffer {
            offer: one,
            give: only(Resource::Ore, 1),
            get: only(Resource::Lumber, 2),
        },
    ));
    ok(&mut g, B, Action::AcceptOffer { offer: one });
    let events = ok(&mut g, A, Action::EndTurn);
    for id in [one, two, counter] {
        assert!(closed(&events, id, OfferClosed::TurnEnded), "{id:?}");
    }
    assert!(g.offers().is_empty());
    assert_eq!(g.current(), B);
    refused(
        &mut g,
        A,
        Action::ConfirmTrade {
            offer: one,
            with: B,
        },
        "not_your_turn",
    );
}

#[test]
fn the_system_expires_an_offer_after_the_trade_timeout() {
    //
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    refused(&mut g, A, Action::ExpireOffer { offer: id }, "system_only");
    refused(
        &mut g,
        Actor::System,
        Action::ExpireOffer {
            offer: OfferId(id.0 + 1),
        },
        "unknown_offer",
    );
    let events = ok(&mut g, Actor::System, Action::ExpireOffer { offer: id });
    assert!(closed(&events, id, OfferClosed::Expired));
    refused(
        &mut g,
        B,
        Action::AcceptOffer { offer: id },
        "unknown_offer",
    );
}
