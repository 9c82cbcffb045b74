//! How a medium bot answers fair 1:1 offers from a person, counted over many
//! positions: it accepts the ones that help it by its own evaluation (`trade::value`)
//! and never one that leaves it worse off. The share it accepts is the figure the
//! browser client's people meet; a bot that refuses every offer makes trading with
//! bots pointless.

use catan_engine::{Action, OfferId, Resource, Resources};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::tests::{after_setup, offer_view, rng};
use super::{HeuristicBot, goals, trade};
use crate::Strategy;
use crate::board::Board;

/// Every fair 1:1 offer (one card of a kind for one of another the bot holds) in 40
/// positions (10 games after their setup, 4 random hands of 3 to 8 cards each):
/// (offers, accepted, accepted that helped, rejected that would have helped,
/// accepted that hurt).
fn count() -> (u32, u32, u32, u32, u32) {
    let mut hands = ChaCha8Rng::seed_from_u64(2027);
    let (mut offers, mut accepted, mut helped, mut missed, mut hurt) = (0, 0, 0, 0, 0);
    for seed in 1..=10 {
        let game = after_setup(seed);
        for _ in 0..4 {
            let mut hand = Resources::ZERO;
            for _ in 0..hands.random_range(3..=8) {
                *hand.get_mut(Resource::ALL[hands.random_range(0..5)]) += 1;
            }
            for give in Resource::ALL {
                for get in Resource::ALL {
                    if give == get || hand.get(get) == 0 {
                        continue;
                    }
                    let (g, w) = (Resources::single(give, 1), Resources::single(get, 1));
                    let (view, legal) = offer_view(&game, hand, g, w);
                    // The bot's own evaluation of the trade: its hand's value after it.
                    let b = Board::new(&view).expect("a seat's view");
                    let goals = goals(&b);
                    let mut after = hand;
                    after.sub(&w);
                    after.add(&g);
                    let gain = trade::value(&goals, &after) - trade::value(&goals, &hand);
                    let a = HeuristicBot::new().choose(&view, &legal, &mut rng());
                    offers += 1;
                    let yes = a == Action::AcceptOffer { offer: OfferId(1) };
                    accepted += u32::from(yes);
                    helped += u32::from(yes && gain > 0.0);
                    hurt += u32::from(yes && gain < 0.0);
                    missed += u32::from(!yes && gain >= trade::ACCEPTS_GAIN);
                }
            }
        }
    }
    (offers, accepted, helped, missed, hurt)
}

#[test]
fn a_medium_bot_accepts_the_fair_offers_that_help_it_and_none_that_hurt() {
    let (offers, accepted, helped, missed, hurt) = count();
    let share = f64::from(accepted) / f64::from(offers);
    eprintln!(
        "fair 1:1 offers to a medium bot: {accepted} of {offers} accepted ({:.1}%), {helped} of them helping it; {missed} helpful ones rejected; {hurt} hurting it accepted",
        share * 100.0
    );
    assert!(offers >= 300, "{offers} offers counted");
    assert_eq!(hurt, 0, "no accepted offer leaves the bot worse off");
    assert_eq!(
        missed, 0,
        "every offer that helps it by its own evaluation is accepted"
    );
    assert!(
        share >= 0.2,
        "at least a fifth of fair offers accepted ({:.1}%)",
        share * 100.0
    );
}
