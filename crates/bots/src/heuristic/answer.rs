//! Answers to trade offers from others: accept when the trade brings the
//! next build closer and does not help a leader who is near winning; else reject.

use catan_engine::{Action, OfferId, TradeOffer};

use super::{goals, nearest_goal};
use crate::board::Board;
use crate::plan;

/// An offerer this close to the target gets no help.
const NEAR_WIN: u8 = 3;

/// The answer to the first open offer that has one.
pub(super) fn offers(b: &Board, legal: &[Action]) -> Option<Action> {
    for a in legal {
        let offer = match *a {
            Action::AcceptOffer { offer } | Action::RejectOffer { offer } => offer,
            _ => continue,
        };
        let Some(o) = find(b, offer) else { continue };
        let accept = Action::AcceptOffer { offer };
        if legal.contains(&accept) && helps(b, o) {
            return Some(accept);
        }
        let reject = Action::RejectOffer { offer };
        if legal.contains(&reject) {
            return Some(reject);
        }
    }
    None
}

fn find<'v>(b: &Board<'v>, id: OfferId) -> Option<&'v TradeOffer> {
    b.view.offers.iter().find(|o| o.id == id)
}

/// Whether taking `o` (giving its `get`, receiving its `give`) helps the viewer and
/// not a player about to win.
fn helps(b: &Board, o: &TradeOffer) -> bool {
    let hand = b.hand();
    if !hand.contains(&o.get) {
        return false;
    }
    let from = b.player(o.from);
    if from.public_vp + NEAR_WIN >= b.view.options.vp_target
        || b.leader() == Some(o.from) && from.public_vp > b.my_player().public_vp + 1
    {
        return false;
    }
    let mut after = hand;
    after.sub(&o.get);
    after.add(&o.give);
    let Some(goal) = nearest_goal(b, &goals(b)) else {
        return false;
    };
    let cost = goal.cost();
    // Fewer missing cards for the next build, and never fewer cards in all than
    // it costs to give.
    plan::missing(&after, &cost) < plan::missing(&hand, &cost) && o.give.total() >= o.get.total()
}
