//! Trading: player offers and their life cycle, maritime trade.
//!
//! Beginner map harbors used here: generic 3:1 on the path 0-4, grain 2:1 on 2-5.

mod closing;
mod maritime;
mod offers;

use super::support::{A, B, C, D, main_phase, only, set_hand};
use crate::{Action, Event, Game, OfferClosed, OfferId, Resource, Resources, Seat, TradeOffer};

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
    g.offers().iter().find(|o| o.id == id)
}

fn lumber_for_ore() -> (Resources, Resources) {
    (only(Resource::Lumber, 1), only(Resource::Ore, 1))
}
