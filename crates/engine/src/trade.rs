//! Player trade offers as objects with their own ids.

use serde::{Deserialize, Serialize};

use crate::resource::Resources;
use crate::seat::Seat;

/// Identifies an offer within a game; never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct OfferId(pub u32);

/// An open player-trade offer. Offers are public: every seat sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TradeOffer {
    /// The offer's id.
    pub id: OfferId,
    /// Who offers: the current player, or an opponent countering.
    pub from: Seat,
    /// The single recipient, or `None` for every opponent of `from`.
    pub to: Option<Seat>,
    /// What `from` gives.
    pub give: Resources,
    /// What `from` gets.
    pub get: Resources,
    /// The offer this one counters, if any.
    pub counter_to: Option<OfferId>,
    /// Seats that accepted, as a bit set by seat index.
    pub accepted: u8,
    /// Seats that rejected, as a bit set by seat index.
    pub rejected: u8,
}

impl TradeOffer {
    /// Offer `id` from `from` to every opponent, giving `give` for `get`, not
    /// a counter-offer, unanswered. Outside this crate (an offer in a
    /// [`crate::Position`], a test of a bot) an offer starts from here and has its
    /// fields set, never from a struct literal (it is `#[non_exhaustive]`): a field
    /// added later leaves such code unchanged.
    #[must_use]
    pub const fn new(id: OfferId, from: Seat, give: Resources, get: Resources) -> TradeOffer {
        TradeOffer {
            id,
            from,
            to: None,
            give,
            get,
            counter_to: None,
            accepted: 0,
            rejected: 0,
        }
    }

    /// Whether `seat` may answer this offer.
    #[must_use]
    pub fn is_recipient(&self, seat: Seat) -> bool {
        seat != self.from && self.to.is_none_or(|t| t == seat)
    }

    /// Whether `seat` has accepted.
    #[must_use]
    pub fn has_accepted(&self, seat: Seat) -> bool {
        self.accepted & (1 << seat.0) != 0
    }

    /// Whether `seat` has rejected.
    #[must_use]
    pub fn has_rejected(&self, seat: Seat) -> bool {
        self.rejected & (1 << seat.0) != 0
    }

    /// Records that `seat` accepts, taking back a rejection.
    pub(crate) fn accept(&mut self, seat: Seat) {
        self.accepted |= 1 << seat.0;
        self.rejected &= !(1 << seat.0);
    }

    /// Records that `seat` rejects, taking back an acceptance.
    pub(crate) fn reject(&mut self, seat: Seat) {
        self.rejected |= 1 << seat.0;
        self.accepted &= !(1 << seat.0);
    }
}

/// Why an offer closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OfferClosed {
    /// The trade was completed.
    Completed,
    /// Its sender took it back.
    Withdrawn,
    /// Every recipient rejected it.
    Rejected,
    /// It reached the room's trade timeout.
    Expired,
    /// The turn ended.
    TurnEnded,
    /// The game ended while the offer was open.
    GameOver,
}
