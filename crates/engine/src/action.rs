//! Actions: what a seat (or the system) asks the game to do. Requests, not facts.

use serde::{Deserialize, Serialize};

use crate::board::{EdgeId, TileId, VertexId};
use crate::resource::{Resource, Resources};
use crate::seat::Seat;
use crate::trade::OfferId;

/// A request to change the game. [`crate::Game::apply`] accepts it or says why not.
///
/// On the wire an action is an object tagged by `type`, e.g.
/// `{"type": "build_road", "edge": 12}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Place a settlement: free during setup, paid afterwards.
    BuildSettlement {
        /// Where.
        vertex: VertexId,
    },
    /// Place a road: free during setup and Road Building, paid otherwise.
    BuildRoad {
        /// Where.
        edge: EdgeId,
    },
    /// Replace an own settlement with a city.
    BuildCity {
        /// Where.
        vertex: VertexId,
    },
    /// Roll the dice.
    RollDice,
    /// Return half of a hand over 7 cards after a 7.
    Discard {
        /// Exactly the cards to return.
        cards: Resources,
    },
    /// Move the robber and, if anyone is eligible, name the victim.
    MoveRobber {
        /// The new tile; must differ from the current one.
        tile: TileId,
        /// Whom to rob: required when an eligible opponent exists, else absent.
        #[serde(default)]
        victim: Option<Seat>,
    },
    /// Buy the top development card.
    BuyDevCard,
    /// Play a Knight.
    PlayKnight,
    /// Play Road Building; the roads follow as `build_road` actions.
    PlayRoadBuilding,
    /// Play Year of Plenty: `take` holds two cards, or fewer only when the
    /// bank has fewer than two in total.
    PlayYearOfPlenty {
        /// The cards to take from the bank.
        take: Resources,
    },
    /// Play Monopoly on a resource.
    PlayMonopoly {
        /// The resource every opponent hands over.
        resource: Resource,
    },
    /// Trade with the bank at the best ratio the player has: 4:1, 3:1 or 2:1.
    MaritimeTrade {
        /// The resource given (4, 3 or 2 of it).
        give: Resource,
        /// The one card received.
        get: Resource,
    },
    /// Offer a trade to one opponent or, with `to` absent, to all of them.
    OfferTrade {
        /// The recipient, or `None` for all opponents.
        #[serde(default)]
        to: Option<Seat>,
        /// What the offering player gives.
        give: Resources,
        /// What the offering player wants in return.
        get: Resources,
    },
    /// Accept an offer made to this seat. For a counter-offer, the current player's
    /// acceptance completes the trade at once.
    AcceptOffer {
        /// The offer.
        offer: OfferId,
    },
    /// Decline an offer made to this seat.
    RejectOffer {
        /// The offer.
        offer: OfferId,
    },
    /// Answer an offer with a new one from this seat back to the current player.
    CounterOffer {
        /// The offer being answered.
        offer: OfferId,
        /// What the countering player gives.
        give: Resources,
        /// What the countering player wants.
        get: Resources,
    },
    /// Take back an own offer.
    WithdrawOffer {
        /// The offer.
        offer: OfferId,
    },
    /// Complete an own offer with one opponent who accepted it.
    ConfirmTrade {
        /// The offer.
        offer: OfferId,
        /// The accepting opponent to trade with.
        with: Seat,
    },
    /// End the turn.
    EndTurn,
    /// System only: an offer reached the room's trade timeout.
    ExpireOffer {
        /// The offer.
        offer: OfferId,
    },
    /// System only: the phase's timer ran out. The engine resolves whatever is
    /// pending with a default chosen from the game's RNG: a random legal setup
    /// placement, the roll, random discards, a random robber move and victim, or
    /// the end of the turn.
    TimeOut,
}

/// The kind of an action, without its arguments. Legal-action lists give one
/// representative per kind for actions whose arguments are amounts of cards
/// (`discard`, `offer_trade`, `counter_offer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum ActionKind {
    BuildSettlement,
    BuildRoad,
    BuildCity,
    RollDice,
    Discard,
    MoveRobber,
    BuyDevCard,
    PlayKnight,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    PlayMonopoly,
    MaritimeTrade,
    OfferTrade,
    AcceptOffer,
    RejectOffer,
    CounterOffer,
    WithdrawOffer,
    ConfirmTrade,
    EndTurn,
    ExpireOffer,
    TimeOut,
}

impl Action {
    /// This action's kind.
    #[must_use]
    pub const fn kind(&self) -> ActionKind {
        match self {
            Action::BuildSettlement { .. } => ActionKind::BuildSettlement,
            Action::BuildRoad { .. } => ActionKind::BuildRoad,
            Action::BuildCity { .. } => ActionKind::BuildCity,
            Action::RollDice => ActionKind::RollDice,
            Action::Discard { .. } => ActionKind::Discard,
            Action::MoveRobber { .. } => ActionKind::MoveRobber,
            Action::BuyDevCard => ActionKind::BuyDevCard,
            Action::PlayKnight => ActionKind::PlayKnight,
            Action::PlayRoadBuilding => ActionKind::PlayRoadBuilding,
            Action::PlayYearOfPlenty { .. } => ActionKind::PlayYearOfPlenty,
            Action::PlayMonopoly { .. } => ActionKind::PlayMonopoly,
            Action::MaritimeTrade { .. } => ActionKind::MaritimeTrade,
            Action::OfferTrade { .. } => ActionKind::OfferTrade,
            Action::AcceptOffer { .. } => ActionKind::AcceptOffer,
            Action::RejectOffer { .. } => ActionKind::RejectOffer,
            Action::CounterOffer { .. } => ActionKind::CounterOffer,
            Action::WithdrawOffer { .. } => ActionKind::WithdrawOffer,
            Action::ConfirmTrade { .. } => ActionKind::ConfirmTrade,
            Action::EndTurn => ActionKind::EndTurn,
            Action::ExpireOffer { .. } => ActionKind::ExpireOffer,
            Action::TimeOut => ActionKind::TimeOut,
        }
    }

    /// Whether only [`crate::Actor::System`] may issue this action.
    #[must_use]
    pub const fn is_system(&self) -> bool {
        matches!(self, Action::ExpireOffer { .. } | Action::TimeOut)
    }
}
