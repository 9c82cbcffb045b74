//! Trading: player offers and their life cycle, maritime trade.
//!
//! Beginner map harbors used here: generic 3:1 on the path 0-4, grain 2:1 on 2-5.

use super::support::{
    A, B, C, D, assert_cards_conserved, cards, city, edge, main_phase, ok, only, pre_roll, refused,
    roads, set_hand, settle, v,
};
use crate::{
    Action, Actor, Event, Game, OfferClosed, OfferId, Resource, Resources, Seat, TradeOffer,
};

/// A trade-and-build phase where every seat holds 2 of everything.
fn market() -> Game {
    let mut g = main_phase(4);
    for s in [A, B, C, D] {
        set_hand(&mut g, s, Resources::splat(2));
    }
    g
}

fn offer(to: Option<Seat>, give: Resources, get: Resources) -> Action {
    Action::OfferTrade { to, give, get }
}

/// The id of the offer made in `events`.
fn made(events: &[Event]) -> OfferId {
    events
        .iter()
        .find_map(|e| match e {
            Event::OfferMade { offer } => Some(offer.id),
            _ => None,
        })
        .expect("an offer was made")
}

fn closed(events: &[Event], id: OfferId, why: OfferClosed) -> bool {
    events.contains(&Event::OfferClosed {
        offer: id,
        reason: why,
    })
}

fn open(g: &Game, id: OfferId) -> Option<&TradeOffer> {
    g.offers.iter().find(|o| o.id == id)
}

fn lumber_for_ore() -> (Resources, Resources) {
    (only(Resource::Lumber, 1), only(Resource::Ore, 1))
}

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
    g.phase = crate::Phase::Main;
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
    let id = g.offers[0].id;
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
    assert!(g.offers.is_empty());
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
    assert!(g.offers.is_empty());
    assert_eq!(g.current, B);
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

#[test]
fn offers_are_answered_only_in_the_trade_and_build_phase() {
    // while A moves the robber, open offers cannot be answered.
    let mut g = market();
    let (give, get) = lumber_for_ore();
    let id = made(&ok(&mut g, A, offer(None, give, get)));
    g.phase = crate::Phase::MoveRobber {
        resume: crate::Resume::Main,
    };
    refused(&mut g, B, Action::AcceptOffer { offer: id }, "wrong_phase");
}

fn maritime(give: Resource, get: Resource) -> Action {
    Action::MaritimeTrade { give, get }
}

#[test]
fn a_bank_trade_without_a_harbor_is_four_to_one() {
    //
    let mut g = main_phase(4);
    settle(&mut g, A, 30);
    set_hand(&mut g, A, only(Resource::Lumber, 5));
    let bank = g.bank;
    let events = ok(&mut g, A, maritime(Resource::Lumber, Resource::Ore));
    assert!(events.contains(&Event::MaritimeTraded {
        seat: A,
        gave: only(Resource::Lumber, 4),
        got: only(Resource::Ore, 1),
    }));
    assert_eq!(g.player(A).hand, cards(1, 0, 0, 0, 1));
    assert_eq!(g.bank.get(Resource::Lumber), bank.get(Resource::Lumber) + 4);
    assert_eq!(g.bank.get(Resource::Ore), bank.get(Resource::Ore) - 1);
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
fn too_many_open_offers_are_refused() {
    // a bounded number of open offers (a stable error code).
    let mut g = market();
    let (give, get) = lumber_for_ore();
    for _ in 0..crate::rules::MAX_OPEN_OFFERS {
        ok(&mut g, A, offer(None, give, get));
    }
    refused(&mut g, A, offer(None, give, get), "too_many_offers");
    let id = g.offers[0].id;
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
            let p = &mut g.players[0];
            p.settlements = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
            p.cities = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
            let own = p.buildings();
            let mut expected = [4; 5];
            for h in &g.map.harbors {
                if own & topo.edge_vertex_mask[h.edge.index()] != 0 {
                    match h.resource {
                        Some(r) => expected[r.index()] = 2,
                        None => expected.iter_mut().for_each(|n| *n = (*n).min(3)),
                    }
                }
            }
            assert_eq!(g.maritime_ratios(A), expected, "seed {seed}, own {own:#x}");
        }
    }
}
