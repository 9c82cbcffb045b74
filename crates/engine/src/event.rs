//! Events: facts about what happened, produced by `apply`, redacted per seat here.

use serde::{Deserialize, Serialize};

use crate::board::{EdgeId, TileId, VertexId};
use crate::dev_card::DevCard;
use crate::phase::Phase;
use crate::resource::{Resource, Resources};
use crate::seat::{MAX_SEATS, Seat};
use crate::trade::{OfferClosed, OfferId, TradeOffer};

/// Something that happened. Fields holding hidden information are `Option`s that
/// [`Event::redact_for`] blanks for seats that must not see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A new turn began.
    TurnStarted {
        /// Whose turn.
        seat: Seat,
        /// Turn number, from 1 for the first normal turn.
        turn: u32,
    },
    /// The phase changed; clients follow the game from these.
    PhaseChanged {
        /// The new phase.
        phase: Phase,
    },
    /// A settlement was placed.
    SettlementBuilt {
        /// Owner.
        seat: Seat,
        /// Where.
        vertex: VertexId,
    },
    /// A road was placed.
    RoadBuilt {
        /// Owner.
        seat: Seat,
        /// Where.
        edge: EdgeId,
    },
    /// A settlement became a city.
    CityBuilt {
        /// Owner.
        seat: Seat,
        /// Where.
        vertex: VertexId,
    },
    /// Cards paid to the bank for a build or purchase.
    Paid {
        /// Who paid.
        seat: Seat,
        /// What.
        cards: Resources,
    },
    /// Resources from the second setup settlement.
    StartingResources {
        /// Who.
        seat: Seat,
        /// What.
        cards: Resources,
    },
    /// The dice were rolled.
    DiceRolled {
        /// Who rolled.
        seat: Seat,
        /// The two dice.
        dice: [u8; 2],
    },
    /// A seat collected from a roll.
    Produced {
        /// Who.
        seat: Seat,
        /// What.
        cards: Resources,
    },
    /// Nobody collected this resource: the bank was short and several were owed.
    Shortage {
        /// The resource withheld.
        resource: Resource,
    },
    /// A seat returned cards after a 7; discards are public.
    Discarded {
        /// Who.
        seat: Seat,
        /// What.
        cards: Resources,
    },
    /// The robber moved.
    RobberMoved {
        /// Who moved it.
        seat: Seat,
        /// Where to.
        tile: TileId,
    },
    /// A card was stolen. The card is visible to thief and victim only.
    Stolen {
        /// Who stole.
        thief: Seat,
        /// From whom.
        victim: Seat,
        /// The card; `None` for everyone else.
        resource: Option<Resource>,
    },
    /// A development card was bought. The card is visible to the buyer only.
    DevCardBought {
        /// Who.
        seat: Seat,
        /// Which card; `None` for everyone else.
        card: Option<DevCard>,
    },
    /// A development card was played.
    DevCardPlayed {
        /// Who.
        seat: Seat,
        /// Which.
        card: DevCard,
    },
    /// Year of Plenty paid out.
    YearOfPlenty {
        /// Who.
        seat: Seat,
        /// What was taken from the bank.
        cards: Resources,
    },
    /// Monopoly collected.
    Monopoly {
        /// Who played it.
        seat: Seat,
        /// The named resource.
        resource: Resource,
        /// How many each seat handed over.
        taken: [u8; MAX_SEATS],
    },
    /// A trade with the bank.
    MaritimeTraded {
        /// Who.
        seat: Seat,
        /// Cards given to the bank.
        gave: Resources,
        /// Cards received.
        got: Resources,
    },
    /// A player trade offer was made. Offers are public.
    OfferMade {
        /// The offer.
        offer: TradeOffer,
    },
    /// A recipient accepted an offer.
    OfferAccepted {
        /// The offer.
        offer: OfferId,
        /// Who accepted.
        seat: Seat,
    },
    /// A recipient rejected an offer.
    OfferRejected {
        /// The offer.
        offer: OfferId,
        /// Who rejected.
        seat: Seat,
    },
    /// An offer closed.
    OfferClosed {
        /// The offer.
        offer: OfferId,
        /// Why.
        reason: OfferClosed,
    },
    /// A player trade was completed.
    TradeCompleted {
        /// The offer.
        offer: OfferId,
        /// The offer's sender.
        from: Seat,
        /// The other party.
        to: Seat,
        /// Cards `from` gave to `to`.
        gave: Resources,
        /// Cards `from` received from `to`.
        got: Resources,
    },
    /// The Longest Road card changed hands.
    LongestRoad {
        /// The new holder, if any.
        holder: Option<Seat>,
        /// The holder's route length (0 when nobody holds it).
        length: u8,
    },
    /// The Largest Army card changed hands.
    LargestArmy {
        /// The new holder, if any.
        holder: Option<Seat>,
        /// The holder's played knights (0 when nobody holds it).
        knights: u8,
    },
    /// The system resolved a step whose timer ran out; the resulting events follow.
    TimedOut {
        /// Whose step it was.
        seat: Seat,
    },
    /// The game is over.
    GameWon {
        /// The winner.
        seat: Seat,
        /// The winner's total, hidden VP cards included.
        points: u8,
    },
    /// The last allowed turn ended without a winner: the game is over with no winner
    /// . The phase becomes `over` with no winner next; no turn follows.
    TurnLimitReached {
        /// The turn that was the last (the game's turn limit).
        turn: u32,
    },
}

impl Event {
    /// This event as `viewer` may see it (`None`: a spectator). The only place
    /// where events are redacted: a stolen card is shown to thief and victim,
    /// a bought card to its buyer, nothing hidden to anyone else.
    #[must_use]
    pub fn redact_for(&self, viewer: Option<Seat>) -> Event {
        match *self {
            Event::Stolen {
                thief,
                victim,
                resource,
            } => Event::Stolen {
                thief,
                victim,
                resource: resource.filter(|_| viewer == Some(thief) || viewer == Some(victim)),
            },
            Event::DevCardBought { seat, card } => Event::DevCardBought {
                seat,
                card: card.filter(|_| viewer == Some(seat)),
            },
            other => other,
        }
    }
}

impl Event {
    /// The `type` of every event, in declaration order (a test checks them against
    /// serde's tags).
    pub const TYPES: [&'static str; 28] = [
        "turn_started",
        "phase_changed",
        "settlement_built",
        "road_built",
        "city_built",
        "paid",
        "starting_resources",
        "dice_rolled",
        "produced",
        "shortage",
        "discarded",
        "robber_moved",
        "stolen",
        "dev_card_bought",
        "dev_card_played",
        "year_of_plenty",
        "monopoly",
        "maritime_traded",
        "offer_made",
        "offer_accepted",
        "offer_rejected",
        "offer_closed",
        "trade_completed",
        "longest_road",
        "largest_army",
        "timed_out",
        "game_won",
        "turn_limit_reached",
    ];

    /// The event's `type` on the wire (its serde tag).
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        match self {
            Event::TurnStarted { .. } => "turn_started",
            Event::PhaseChanged { .. } => "phase_changed",
            Event::SettlementBuilt { .. } => "settlement_built",
            Event::RoadBuilt { .. } => "road_built",
            Event::CityBuilt { .. } => "city_built",
            Event::Paid { .. } => "paid",
            Event::StartingResources { .. } => "starting_resources",
            Event::DiceRolled { .. } => "dice_rolled",
            Event::Produced { .. } => "produced",
            Event::Shortage { .. } => "shortage",
            Event::Discarded { .. } => "discarded",
            Event::RobberMoved { .. } => "robber_moved",
            Event::Stolen { .. } => "stolen",
            Event::DevCardBought { .. } => "dev_card_bought",
            Event::DevCardPlayed { .. } => "dev_card_played",
            Event::YearOfPlenty { .. } => "year_of_plenty",
            Event::Monopoly { .. } => "monopoly",
            Event::MaritimeTraded { .. } => "maritime_traded",
            Event::OfferMade { .. } => "offer_made",
            Event::OfferAccepted { .. } => "offer_accepted",
            Event::OfferRejected { .. } => "offer_rejected",
            Event::OfferClosed { .. } => "offer_closed",
            Event::TradeCompleted { .. } => "trade_completed",
            Event::LongestRoad { .. } => "longest_road",
            Event::LargestArmy { .. } => "largest_army",
            Event::TimedOut { .. } => "timed_out",
            Event::GameWon { .. } => "game_won",
            Event::TurnLimitReached { .. } => "turn_limit_reached",
        }
    }
}
