//! Trading: maritime trades with the bank and player offers.

use crate::board::{Map, VertexMask, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::{Resource, Resources};
use crate::seat::Seat;
use crate::trade::{OfferClosed, OfferId, TradeOffer};

/// Most offers open at once in a game; keeps a flooding client from growing state.
pub const MAX_OPEN_OFFERS: usize = 8;

/// The bit of a generic 3:1 harbor in [`harbors_in_reach`]; bits 0..5 are the
/// 2:1 harbors by resource index.
pub(crate) const GENERIC_HARBOR: u8 = 1 << 5;

/// The maritime ratio of every resource, in resource order, for a seat
/// reaching the harbors `reach` (as [`harbors_in_reach`] gives them): 2 with the
/// resource's 2:1 harbor, else 3 with a generic harbor, else 4.
pub(crate) fn maritime_ratios(reach: u8) -> [u8; 5] {
    let base = if reach & GENERIC_HARBOR != 0 { 3 } else { 4 };
    std::array::from_fn(|r| if reach & (1 << r) != 0 { 2 } else { base })
}

/// The harbors a seat with buildings on `buildings` may use on `map`, as a bit
/// set: bit `r` for the 2:1 harbor of resource `r`, [`GENERIC_HARBOR`] for a 3:1
/// harbor. A harbor counts as soon as a building stands on one of its two
/// intersections, so only the buildings on harbor intersections are looked
/// at, usually none or one.
#[inline]
pub(crate) fn harbors_in_reach(map: &Map, buildings: VertexMask) -> u8 {
    let topo = topology();
    let mut on_harbors = buildings & topo.harbor_vertices;
    let mut reach = 0u8;
    while on_harbors != 0 {
        let v = on_harbors.trailing_zeros() as usize;
        on_harbors &= on_harbors - 1;
        // `map.harbors[i]` lies on `topo.harbor_edges[i]` (see `Map`).
        let harbor = &map.harbors[usize::from(topo.vertex_harbor[v])];
        reach |= harbor.resource.map_or(GENERIC_HARBOR, |r| 1 << r.index());
    }
    reach
}

impl Game {
    /// How many of `give` the seat hands the bank for one card: 2, 3 or 4.
    /// A harbor counts as soon as a building stands on one of its intersections.
    #[must_use]
    pub fn maritime_ratio(&self, seat: Seat, give: Resource) -> u8 {
        // As `maritime_ratios`, for one resource.
        let reach = self.harbors_in_reach(seat);
        if reach & (1 << give.index()) != 0 {
            2
        } else if reach & GENERIC_HARBOR != 0 {
            3
        } else {
            4
        }
    }

    /// [`Game::maritime_ratio`] of every resource, in resource order.
    pub(crate) fn maritime_ratios(&self, seat: Seat) -> [u8; 5] {
        maritime_ratios(self.harbors_in_reach(seat))
    }

    /// The harbors `seat` may use, as [`harbors_in_reach`] tells them: kept
    /// beside the seat's buildings (`Game::buildings`).
    #[inline]
    pub(crate) fn harbors_in_reach(&self, seat: Seat) -> u8 {
        self.buildings[seat.index()].harbors
    }

    /// trades happen in the current player's trade-and-build phase only.
    fn require_trade_phase(&self) -> Result<(), ActionError> {
        if self.phase == Phase::Main {
            Ok(())
        } else {
            Err(ActionError::WrongPhase)
        }
    }

    pub(crate) fn maritime_trade(
        &mut self,
        seat: Seat,
        give: Resource,
        get: Resource,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        self.require_trade_phase()?;
        if give == get {
            return Err(ActionError::InvalidTrade);
        }
        let ratio = self.maritime_ratio(seat, give);
        if self.players[seat.index()].hand.get(give) < ratio {
            return Err(ActionError::InsufficientResources);
        }
        if self.bank.get(get) == 0 {
            return Err(ActionError::BankInsufficient);
        }
        let gave = Resources::single(give, ratio);
        let got = Resources::single(get, 1);
        let p = &mut self.players[seat.index()];
        p.hand.sub(&gave);
        p.hand.add(&got);
        self.bank.add(&gave);
        self.bank.sub(&got);
        out.push(Event::MaritimeTraded { seat, gave, got });
        Ok(())
    }

    /// both sides non-empty, no resource on both sides.
    fn check_terms(give: &Resources, get: &Resources) -> Result<(), ActionError> {
        if give.is_empty() || get.is_empty() || give.overlaps(get) {
            Err(ActionError::InvalidTrade)
        } else {
            Ok(())
        }
    }

    fn find_offer(&self, id: OfferId) -> Result<(usize, TradeOffer), ActionError> {
        self.offers
            .iter()
            .position(|o| o.id == id)
            .map(|i| (i, self.offers[i]))
            .ok_or(ActionError::UnknownOffer)
    }

    fn open_offer(
        &mut self,
        from: Seat,
        to: Option<Seat>,
        give: Resources,
        get: Resources,
        counter_to: Option<OfferId>,
        out: &mut Vec<Event>,
    ) {
        let offer = TradeOffer {
            id: OfferId(self.next_offer),
            from,
            to,
            give,
            get,
            counter_to,
            accepted: 0,
            rejected: 0,
        };
        self.next_offer += 1;
        self.offers.push(offer);
        out.push(Event::OfferMade { offer });
    }

    pub(crate) fn offer_trade(
        &mut self,
        seat: Seat,
        to: Option<Seat>,
        give: Resources,
        get: Resources,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        self.require_trade_phase()?;
        Self::check_terms(&give, &get)?;
        if let Some(t) = to
            && (t == seat || t.0 >= self.options.players)
        {
            return Err(ActionError::InvalidTrade);
        }
        if !self.players[seat.index()].hand.contains(&give) {
            return Err(ActionError::InsufficientResources);
        }
        if self.offers.len() >= MAX_OPEN_OFFERS {
            return Err(ActionError::TooManyOffers);
        }
        self.open_offer(seat, to, give, get, None, out);
        Ok(())
    }

    pub(crate) fn accept_offer(
        &mut self,
        seat: Seat,
        id: OfferId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_trade_phase()?;
        let (i, offer) = self.find_offer(id)?;
        if !offer.is_recipient(seat) {
            return Err(ActionError::NotOfferRecipient);
        }
        if offer.has_accepted(seat) {
            return Err(ActionError::AlreadyAnswered);
        }
        if !self.players[seat.index()].hand.contains(&offer.get) {
            return Err(ActionError::InsufficientResources);
        }
        if seat == self.current {
            // A counter-offer accepted by the current player completes at once.
            if !self.players[offer.from.index()].hand.contains(&offer.give) {
                return Err(ActionError::InsufficientResources);
            }
            self.complete_trade(i, offer.from, seat, out);
        } else {
            self.offers[i].accept(seat);
            out.push(Event::OfferAccepted { offer: id, seat });
        }
        Ok(())
    }

    pub(crate) fn reject_offer(
        &mut self,
        seat: Seat,
        id: OfferId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_trade_phase()?;
        let (i, offer) = self.find_offer(id)?;
        if !offer.is_recipient(seat) {
            return Err(ActionError::NotOfferRecipient);
        }
        if offer.has_rejected(seat) {
            return Err(ActionError::AlreadyAnswered);
        }
        let o = &mut self.offers[i];
        o.reject(seat);
        let rejected = o.rejected;
        out.push(Event::OfferRejected { offer: id, seat });
        let all_rejected = self
            .seats()
            .filter(|&s| offer.is_recipient(s))
            .all(|s| rejected & (1 << s.0) != 0);
        if all_rejected {
            self.offers.remove(i);
            out.push(Event::OfferClosed {
                offer: id,
                reason: OfferClosed::Rejected,
            });
        }
        Ok(())
    }

    pub(crate) fn counter_offer(
        &mut self,
        seat: Seat,
        id: OfferId,
        give: Resources,
        get: Resources,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_trade_phase()?;
        let (_, offer) = self.find_offer(id)?;
        // Only opponents answer the current player's offers with counters.
        if !offer.is_recipient(seat) || seat == self.current {
            return Err(ActionError::NotOfferRecipient);
        }
        Self::check_terms(&give, &get)?;
        if !self.players[seat.index()].hand.contains(&give) {
            return Err(ActionError::InsufficientResources);
        }
        if self.offers.len() >= MAX_OPEN_OFFERS {
            return Err(ActionError::TooManyOffers);
        }
        self.open_offer(seat, Some(self.current), give, get, Some(id), out);
        Ok(())
    }

    pub(crate) fn withdraw_offer(
        &mut self,
        seat: Seat,
        id: OfferId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let (i, offer) = self.find_offer(id)?;
        if offer.from != seat {
            return Err(ActionError::NotOfferSender);
        }
        self.offers.remove(i);
        out.push(Event::OfferClosed {
            offer: id,
            reason: OfferClosed::Withdrawn,
        });
        Ok(())
    }

    pub(crate) fn confirm_trade(
        &mut self,
        seat: Seat,
        id: OfferId,
        with: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        self.require_trade_phase()?;
        let (i, offer) = self.find_offer(id)?;
        if offer.from != seat {
            return Err(ActionError::NotOfferSender);
        }
        if with.0 >= self.options.players || !offer.has_accepted(with) {
            return Err(ActionError::OfferNotAccepted);
        }
        // cards move only if both still hold them.
        if !self.players[seat.index()].hand.contains(&offer.give)
            || !self.players[with.index()].hand.contains(&offer.get)
        {
            return Err(ActionError::InsufficientResources);
        }
        self.complete_trade(i, seat, with, out);
        Ok(())
    }

    /// Moves the cards of offer `i` between its sender and `other`, then closes it.
    fn complete_trade(&mut self, i: usize, from: Seat, other: Seat, out: &mut Vec<Event>) {
        let offer = self.offers.remove(i);
        self.players[from.index()].hand.sub(&offer.give);
        self.players[from.index()].hand.add(&offer.get);
        self.players[other.index()].hand.sub(&offer.get);
        self.players[other.index()].hand.add(&offer.give);
        out.push(Event::TradeCompleted {
            offer: offer.id,
            from,
            to: other,
            gave: offer.give,
            got: offer.get,
        });
        out.push(Event::OfferClosed {
            offer: offer.id,
            reason: OfferClosed::Completed,
        });
    }

    pub(crate) fn expire_offer(
        &mut self,
        id: OfferId,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let (i, _) = self.find_offer(id)?;
        self.offers.remove(i);
        out.push(Event::OfferClosed {
            offer: id,
            reason: OfferClosed::Expired,
        });
        Ok(())
    }
}
