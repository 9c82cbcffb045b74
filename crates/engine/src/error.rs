//! Why an action was refused. Each variant has a stable machine code for the wire.

use serde::Serialize;
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// A refused action. The game is unchanged whenever `apply` returns one.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, VariantArray, EnumCount, IntoStaticStr,
)]
#[strum(serialize_all = "snake_case")]
pub enum ActionError {
    /// The game is over: won, or ended by the turn limit.
    #[error("the game is over")]
    GameOver,
    /// The seat does not exist in this game.
    #[error("there is no such seat in this game")]
    NoSuchSeat,
    /// Only the system may issue this action (timeouts, expiry).
    #[error("only the server may issue this action")]
    SystemOnly,
    /// The system cannot issue player actions.
    #[error("the system can only issue time-outs and offer expiries")]
    NotForSystem,
    /// Another seat is to act.
    #[error("it is not your turn")]
    NotYourTurn,
    /// The action is not allowed in the current phase (e.g. building before the roll).
    #[error("that action is not allowed in the current phase")]
    WrongPhase,
    /// The player lacks the cards the action costs or gives away.
    #[error("you do not have the resources for that")]
    InsufficientResources,
    /// The bank cannot pay out what the action asks for.
    #[error("the bank does not have those resources")]
    BankInsufficient,
    /// An intersection, path or tile id is out of range.
    #[error("no such intersection, path or tile")]
    InvalidLocation,
    /// The place is taken or breaks the distance or connection rules (R-5.2..R-5.5, R-3.2).
    #[error("you cannot build there")]
    IllegalPlacement,
    /// The player's supply of that piece is used up.
    #[error("you have no pieces of that kind left")]
    NoPiecesLeft,
    /// The development deck is empty.
    #[error("the development card deck is empty")]
    DevDeckEmpty,
    /// The player holds no playable card of that kind (R-8.1: bought this turn, or none).
    #[error("you have no playable card of that kind")]
    NoPlayableCard,
    /// A development card was already played this turn.
    #[error("you have already played a development card this turn")]
    DevCardAlreadyPlayed,
    /// The discard is not exactly half the hand or is not held.
    #[error("you must discard exactly half of your cards, rounded down, from your hand")]
    InvalidDiscard,
    /// This seat does not have to discard now.
    #[error("you do not have to discard")]
    NoDiscardRequired,
    /// The robber must move to a different tile.
    #[error("the robber must move to a different tile")]
    RobberMustMove,
    /// The victim is not an opponent with cards and a building on the tile, or one is
    /// missing when someone is eligible.
    #[error("that player cannot be robbed there")]
    InvalidVictim,
    /// The cards chosen for Year of Plenty are not two (or all the bank has).
    #[error("choose two resources the bank holds")]
    InvalidYearOfPlenty,
    /// The trade is malformed (empty side, same resource on both sides, self).
    #[error("that trade is not allowed")]
    InvalidTrade,
    /// No open offer has that id.
    #[error("no open offer has that id")]
    UnknownOffer,
    /// The seat may not answer that offer.
    #[error("that offer is not addressed to you")]
    NotOfferRecipient,
    /// Only the offer's sender may withdraw or confirm it.
    #[error("that is not your offer")]
    NotOfferSender,
    /// The named seat has not accepted the offer.
    #[error("that player has not accepted the offer")]
    OfferNotAccepted,
    /// Too many offers are open at once.
    #[error("too many open offers; withdraw one first")]
    TooManyOffers,
    /// The seat already gave that answer to the offer.
    #[error("you already answered that offer that way")]
    AlreadyAnswered,
    /// The turn cannot end with a robber move, discard or Road Building pending.
    #[error("finish the pending step before ending the turn")]
    PendingStep,
}

impl ActionError {
    /// Stable machine-readable code, e.g. `not_your_turn`: the variant's name in snake
    /// case. Documented in protocol.md.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.into()
    }

    /// Every error, for documentation tests.
    pub const ALL: [ActionError; ActionError::COUNT] =
        *ActionError::VARIANTS.first_chunk().expect("COUNT variants");
}

impl Serialize for ActionError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}
