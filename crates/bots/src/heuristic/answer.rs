//! Answers to trade offers from others, by the bot's own evaluation
//! (`trade::accepts`): accept what helps it and does not help a player near
//! winning; otherwise counter once (medium level) or reject.

use catan_engine::Action;

use super::Level;
use super::trade::{self, TradeMemory};
use crate::board::Board;

/// The answer to the first open offer that has one.
pub(super) fn offers(
    b: &Board,
    legal: &[Action],
    level: Level,
    memory: &mut TradeMemory,
) -> Option<Action> {
    for a in legal {
        let offer = match *a {
            Action::AcceptOffer { offer } | Action::RejectOffer { offer } => offer,
            _ => continue,
        };
        let Some(o) = b.view.offers.iter().find(|o| o.id == offer) else {
            continue;
        };
        let accept = Action::AcceptOffer { offer };
        if legal.contains(&accept) && trade::accepts(b, o) {
            return Some(accept);
        }
        let may_counter = legal
            .iter()
            .any(|a| matches!(*a, Action::CounterOffer { offer: id, .. } if id == offer));
        if level == Level::Medium
            && may_counter
            && let Some(c) = trade::counter(b, o, memory)
        {
            trade::countered(memory, offer);
            return Some(c);
        }
        let reject = Action::RejectOffer { offer };
        if legal.contains(&reject) {
            return Some(reject);
        }
    }
    None
}
