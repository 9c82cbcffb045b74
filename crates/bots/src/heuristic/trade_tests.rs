//! Player trades of the medium level: offers toward the next build,
//! answers by value, counters, and no spam.

use catan_engine::{Action, OfferId, Resource, Resources, Seat, TradeOffer};

use super::tests::{after_setup, main_view, offer_view, rng};
use super::{HeuristicBot, Level};
use crate::Strategy;

const LUMBER: Resources = Resources([1, 0, 0, 0, 0]);
const ORE: Resources = Resources([0, 0, 0, 0, 1]);
const GRAIN: Resources = Resources([0, 0, 0, 1, 0]);

/// The legal list of a current player who may offer (one representative) or end.
fn offer_legal() -> Vec<Action> {
    vec![
        Action::EndTurn,
        Action::OfferTrade {
            to: None,
            give: LUMBER,
            get: GRAIN,
        },
    ]
}

#[test]
fn one_card_short_of_a_city_it_offers_a_spare_card_for_it() {
    // 3 lumber (2 beyond any build) and a city missing one ore, too few
    // lumber for the bank at 4:1: one lumber for one ore, to everyone.
    let game = after_setup(2);
    let view = main_view(&game, Resources([3, 0, 0, 2, 2]));
    let mut bot = HeuristicBot::new();
    let a = bot.choose(&view, &offer_legal(), &mut rng());
    assert_eq!(
        a,
        Action::OfferTrade {
            to: None,
            give: LUMBER,
            get: ORE
        }
    );
    // Refused (the offer closed): the same terms are not offered again this turn.
    let again = bot.choose(&view, &offer_legal(), &mut rng());
    assert_eq!(again, Action::EndTurn);
    // The easy level makes no offers.
    let easy = HeuristicBot::at(Level::Easy).choose(&view, &offer_legal(), &mut rng());
    assert_eq!(easy, Action::EndTurn);
}

#[test]
fn at_most_two_offers_a_turn_and_none_repeated() {
    // A development card missing grain, with spare ore: ore for grain, then nothing
    // more this turn; a new turn may offer again.
    let game = after_setup(3);
    let mut view = main_view(&game, Resources([0, 0, 1, 0, 4]));
    view.me.as_mut().unwrap().maritime_ratios = [4; 5];
    let mut bot = HeuristicBot::new();
    let mut offers = Vec::new();
    for _ in 0..4 {
        match bot.choose(&view, &offer_legal(), &mut rng()) {
            Action::OfferTrade { give, get, .. } => offers.push((give, get)),
            _ => break,
        }
    }
    assert!(
        !offers.is_empty() && offers.len() <= super::trade::MAX_OFFERS_PER_TURN,
        "{offers:?}"
    );
    let mut unique = offers.clone();
    unique.dedup();
    assert_eq!(unique, offers, "no terms twice");
    view.turn += 1;
    assert!(matches!(
        bot.choose(&view, &offer_legal(), &mut rng()),
        Action::OfferTrade { .. }
    ));
}

#[test]
fn an_accepted_own_offer_is_confirmed_and_an_unanswered_one_withdrawn() {
    // the sender completes a trade with one accepting opponent.
    let game = after_setup(2);
    let me = game.current();
    let other = Seat((me.0 + 1) % 4);
    let mut view = main_view(&game, Resources([3, 0, 0, 2, 2]));
    let mut offer = TradeOffer::new(OfferId(7), me, LUMBER, ORE);
    offer.accepted = 1 << other.0;
    view.offers = vec![offer];
    let confirm = Action::ConfirmTrade {
        offer: OfferId(7),
        with: other,
    };
    let withdraw = Action::WithdrawOffer { offer: OfferId(7) };
    let legal = vec![Action::EndTurn, confirm, withdraw];
    assert_eq!(
        HeuristicBot::new().choose(&view, &legal, &mut rng()),
        confirm
    );
    offer.accepted = 0;
    view.offers = vec![offer];
    let legal = vec![Action::EndTurn, withdraw];
    assert_eq!(
        HeuristicBot::new().choose(&view, &legal, &mut rng()),
        withdraw
    );
}

#[test]
fn a_good_offer_is_accepted_and_one_that_makes_it_worse_refused() {
    // by value: the third ore for a spare lumber helps; giving the city's
    // grain away for lumber, or two ore for one lumber, makes the hand worse.
    let game = after_setup(6);
    let hand = Resources([2, 0, 0, 2, 2]);
    let accept = Action::AcceptOffer { offer: OfferId(1) };
    let reject = Action::RejectOffer { offer: OfferId(1) };
    let (view, legal) = offer_view(&game, hand, ORE, LUMBER);
    assert_eq!(
        HeuristicBot::new().choose(&view, &legal, &mut rng()),
        accept
    );
    for (give, get) in [(LUMBER, GRAIN), (LUMBER, Resources([0, 0, 0, 0, 2]))] {
        let (view, legal) = offer_view(&game, hand, give, get);
        assert_eq!(
            HeuristicBot::new().choose(&view, &legal, &mut rng()),
            reject
        );
    }
}

#[test]
fn an_offer_that_asks_for_a_needed_card_is_countered_once_with_a_spare_one() {
    // the offer gives the ore a city lacks but wants grain the city needs;
    // the counter gives a spare lumber for that ore instead, and only once.
    let game = after_setup(6);
    let hand = Resources([3, 0, 0, 2, 2]);
    let (view, mut legal) = offer_view(&game, hand, ORE, GRAIN);
    legal.push(Action::CounterOffer {
        offer: OfferId(1),
        give: LUMBER,
        get: GRAIN,
    });
    let mut bot = HeuristicBot::new();
    let counter = Action::CounterOffer {
        offer: OfferId(1),
        give: LUMBER,
        get: ORE,
    };
    assert_eq!(bot.choose(&view, &legal, &mut rng()), counter);
    assert_eq!(
        bot.choose(&view, &legal, &mut rng()),
        Action::RejectOffer { offer: OfferId(1) }
    );
    // The easy level does not counter.
    let easy = HeuristicBot::at(Level::Easy).choose(&view, &legal, &mut rng());
    assert_eq!(easy, Action::RejectOffer { offer: OfferId(1) });
    assert_eq!(Resource::Ore.index(), 4);
}
