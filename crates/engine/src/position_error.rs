//! Why a [`crate::Position`] or a saved game is not a legal game: one variant per
//! broken rule, each with a stable code and a message citing the rule (R-x.y).

use crate::board::{EdgeId, Terrain, TileId, VertexId};
use crate::dev_card::DevCard;
use crate::options::OptionsError;
use crate::phase::Phase;
use crate::resource::Resource;
use crate::seat::Seat;
use crate::trade::OfferId;

/// A kind of piece in a player's supply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A road.
    Road,
    /// A settlement.
    Settlement,
    /// A city.
    City,
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Piece::Road => "roads",
            Piece::Settlement => "settlements",
            Piece::City => "cities",
        })
    }
}

/// One of the two awards of R-10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Award {
    /// Longest Road.
    LongestRoad,
    /// Largest Army.
    LargestArmy,
}

impl std::fmt::Display for Award {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Award::LongestRoad => "Longest Road",
            Award::LargestArmy => "Largest Army",
        })
    }
}

/// Why a position cannot be a [`crate::Game`]: returned by
/// [`crate::Game::from_position`], by deserializing a `Game`, and by
/// [`crate::invariants::check`]. The first broken rule found is reported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The options are out of range (3-4 players, target 3-20; turn limit
    /// 100-5000: ).
    #[error("invalid options: {0}")]
    Options(#[from] OptionsError),
    /// The seat list is not one entry per player.
    #[error("{found} seats described for a {players}-player game")]
    SeatCount {
        /// Players in the options.
        players: u8,
        /// Seats in the position.
        found: usize,
    },
    /// The current or first seat is not in play.
    #[error("R-3.1: {role} {seat} is not in play")]
    SeatOutOfRange {
        /// `"current"` or `"first"`.
        role: &'static str,
        /// The seat named.
        seat: Seat,
    },
    /// A seat beyond the player count owns something.
    #[error("unused {0} owns cards or pieces")]
    UnusedSeat(Seat),
    /// The robber is not on a land tile.
    #[error("R-2.7: the robber is on tile {}, not one of the 19 land tiles", .0.0)]
    RobberOffBoard(TileId),
    /// The terrain tiles are not the 19 of the base game.
    #[error("R-2.1: {count} {terrain:?} tiles, not {expected}")]
    TerrainCount {
        /// The terrain miscounted.
        terrain: Terrain,
        /// How many the map has.
        count: usize,
        /// How many the base game has.
        expected: usize,
    },
    /// The desert carries a number.
    #[error("R-2.2: the desert carries number {0}")]
    NumberOnDesert(u8),
    /// The number tokens are not the 18 of the base game.
    #[error("R-2.2: number tokens {0:?} are not 2, 12 and two each of 3-6 and 8-11")]
    NumberTokens(Vec<u8>),
    /// Two tiles carrying 6 or 8 touch (R-2.2; the beginner map obeys this too).
    #[error("R-2.2: {} and {} on adjacent tiles {} and {}", .numbers[0], .numbers[1], .tiles[0].0, .tiles[1].0)]
    AdjacentSixEight {
        /// The two tiles.
        tiles: [TileId; 2],
        /// Their numbers.
        numbers: [u8; 2],
    },
    /// A harbor is not on its standard coastal path.
    #[error("R-2.3: harbor {index} on path {} instead of {}", .edge.0, .expected.0)]
    HarborEdge {
        /// Its index in the map.
        index: usize,
        /// Where it is.
        edge: EdgeId,
        /// Where it belongs.
        expected: EdgeId,
    },
    /// The harbor kinds are not 4 generic and one 2:1 per resource.
    #[error("R-2.3: the harbors are not 4 generic and one 2:1 harbor per resource")]
    HarborKinds,
    /// Bank and hands do not add up to 19 of a resource: a saved game only.
    #[error("R-2.5: {total} cards of {} exist, not 19", .resource.name())]
    ResourceCount {
        /// The resource.
        resource: Resource,
        /// Bank plus hands.
        total: u32,
    },
    /// The hands hold more than the 19 cards of a resource, so the bank would be
    /// negative.
    #[error("R-2.5: the hands hold {held} {}, more than the 19 that exist", .resource.name())]
    BankNegative {
        /// The resource.
        resource: Resource,
        /// Cards of it in all hands.
        held: u32,
    },
    /// Deck, hands and played Knights are not the 25 development cards.
    #[error("R-2.5: {count} {card:?} cards in deck, hands and play, not {expected}")]
    DevCardCount {
        /// The kind.
        card: DevCard,
        /// How many exist in the position.
        count: u32,
        /// How many the deck has (at most, for cards that are used up when played).
        expected: u8,
    },
    /// More cards marked bought this turn than held, or held off turn.
    #[error("R-8.1: {0} holds development cards bought this turn that it cannot hold")]
    NewDevCards(Seat),
    /// A piece on an intersection or path that does not exist.
    #[error("R-2.1: {seat} has {piece} off the board (intersections 0-53, paths 0-71)")]
    PieceOffBoard {
        /// The owner.
        seat: Seat,
        /// The kind.
        piece: Piece,
    },
    /// More pieces than the supply.
    #[error("R-2.6: {seat} has {count} {piece}, more than {limit}")]
    PieceSupply {
        /// The owner.
        seat: Seat,
        /// The kind.
        piece: Piece,
        /// How many on the board.
        count: u32,
        /// The supply.
        limit: u8,
    },
    /// Two buildings on one intersection.
    #[error("R-5.3: two buildings on intersection {}", .0.0)]
    SharedIntersection(VertexId),
    /// Two roads on one path.
    #[error("R-5.2: two roads on path {}", .0.0)]
    SharedPath(EdgeId),
    /// Buildings on neighbouring intersections.
    #[error("R-5.3: buildings on adjacent intersections {} and {}", .0[0].0, .0[1].0)]
    DistanceRule([VertexId; 2]),
    /// A road not connected to its owner's buildings through its owner's roads.
    #[error("R-5.2: {seat}'s road on path {} is not connected to its buildings", .edge.0)]
    RoadNotConnected {
        /// The owner.
        seat: Seat,
        /// A disconnected road.
        edge: EdgeId,
    },
    /// A recorded route length differs from the board's: a saved game only.
    #[error("R-10.1: {seat}'s route is recorded as {recorded}, the board gives {actual}")]
    RoadLength {
        /// The owner.
        seat: Seat,
        /// The saved length.
        recorded: u8,
        /// The length on the board.
        actual: u8,
    },
    /// An award held by someone who is not at the minimum or not tied for highest
    ///
    #[error(
        "R-10.3: {award} held by {holder}, who has {value}, not the minimum {min} and the most ({max})"
    )]
    AwardHolder {
        /// The award.
        award: Award,
        /// The named holder.
        holder: Seat,
        /// The holder's length or knights.
        value: u8,
        /// The award's minimum.
        min: u8,
        /// The highest value of any seat.
        max: u8,
    },
    /// An award nobody holds though one seat alone leads at the minimum:
    /// a saved game only (a position computes the holder).
    #[error("R-10.3: {award} unheld though {leader} alone leads with {value}")]
    AwardUnheld {
        /// The award.
        award: Award,
        /// The single leader.
        leader: Seat,
        /// Its length or knights.
        value: u8,
    },
    /// A score differs from the pieces, awards and cards.
    #[error("R-1.2: {0}'s score does not follow from its pieces, awards and cards")]
    Score(Seat),
    /// An open offer that cannot exist (R-9.1..R-9.3), or too many of them.
    #[error("R-9.3: offer {}: {reason}", .offer.0)]
    Offer {
        /// The offer.
        offer: OfferId,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Offers open outside the current player's trade-and-build phase.
    #[error("R-9.1: offers open in phase {0:?}")]
    OffersOutOfPhase(Phase),
    /// A die of the last roll or of the scripted dice is not 1-6.
    #[error("R-4.2: a die shows {0}")]
    Die(u8),
    /// The phase is over with a winner who is not the current player at the target
    ///
    #[error("R-1.1: {0} is not the current player at the target")]
    Winner(Seat),
    /// The turn counter does not fit the phase (0 in setup, at least 1 after).
    #[error("turn {turn} does not fit phase {phase:?}")]
    Turn {
        /// The turn.
        turn: u32,
        /// The phase.
        phase: Phase,
    },
    /// A seat in normal play lacks its two setup settlements and roads.
    #[error("R-3.5: {0} lacks its two setup settlements and roads")]
    SetupPieces(Seat),
    /// The setup placement does not match the snake order or the pieces placed.
    #[error("R-3.2: setup placement {index}: {reason}")]
    Setup {
        /// The placement index.
        index: u8,
        /// What is wrong.
        reason: &'static str,
    },
    /// Development cards bought before the roll or played before any roll.
    #[error("R-4.1: {0}")]
    BeforeRoll(&'static str),
    /// A discard phase that does not follow.
    #[error("R-7.1: {0}")]
    Discard(&'static str),
    /// A seat owes a number of discards other than half its hand.
    #[error("R-7.1: {seat} owes {owed} cards with {hand} in hand")]
    DiscardOwed {
        /// The seat.
        seat: Seat,
        /// Cards it owes.
        owed: u8,
        /// Cards it holds.
        hand: u32,
    },
    /// The robber is to move without a 7 or a Knight.
    #[error("R-7.2: the robber is to move without a 7 or a Knight")]
    RobberWithoutCause,
    /// Road Building pending without the card played or without roads.
    #[error("R-8.3: Road Building pending without the card played or roads to place")]
    RoadBuilding,
    /// The game goes on though the current player is at the target.
    #[error("R-10.4: {seat} has {points} points on its turn, but the game goes on")]
    TargetReached {
        /// The current player.
        seat: Seat,
        /// Its total points.
        points: u8,
    },
    /// A saved game's random generator is not its seed's stream.
    #[error("R-2.4: the random generator is not the seed's stream")]
    Rng,
    /// The game is over with no winner before its last allowed turn ended.
    #[error("R-10.5: over with no winner at turn {turn}, before the turn limit {limit}")]
    EndedBeforeTurnLimit {
        /// The turn.
        turn: u32,
        /// The game's turn limit.
        limit: u16,
    },
}

impl PositionError {
    /// Stable machine-readable code, e.g. `adjacent_six_eight`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            PositionError::Options(_) => "invalid_options",
            PositionError::SeatCount { .. } => "seat_count",
            PositionError::SeatOutOfRange { .. } => "seat_out_of_range",
            PositionError::UnusedSeat(_) => "unused_seat",
            PositionError::RobberOffBoard(_) => "robber_off_board",
            PositionError::TerrainCount { .. } => "terrain_count",
            PositionError::NumberOnDesert(_) => "number_on_desert",
            PositionError::NumberTokens(_) => "number_tokens",
            PositionError::AdjacentSixEight { .. } => "adjacent_six_eight",
            PositionError::HarborEdge { .. } => "harbor_edge",
            PositionError::HarborKinds => "harbor_kinds",
            PositionError::ResourceCount { .. } => "resource_count",
            PositionError::BankNegative { .. } => "bank_negative",
            PositionError::DevCardCount { .. } => "dev_card_count",
            PositionError::NewDevCards(_) => "new_dev_cards",
            PositionError::PieceOffBoard { .. } => "piece_off_board",
            PositionError::PieceSupply { .. } => "piece_supply",
            PositionError::SharedIntersection(_) => "shared_intersection",
            PositionError::SharedPath(_) => "shared_path",
            PositionError::DistanceRule(_) => "distance_rule",
            PositionError::RoadNotConnected { .. } => "road_not_connected",
            PositionError::RoadLength { .. } => "road_length",
            PositionError::AwardHolder { .. } => "award_holder",
            PositionError::AwardUnheld { .. } => "award_unheld",
            PositionError::Score(_) => "score",
            PositionError::Offer { .. } => "offer",
            PositionError::OffersOutOfPhase(_) => "offers_out_of_phase",
            PositionError::Die(_) => "die",
            PositionError::Winner(_) => "winner",
            PositionError::Turn { .. } => "turn",
            PositionError::SetupPieces(_) => "setup_pieces",
            PositionError::Setup { .. } => "setup",
            PositionError::BeforeRoll(_) => "before_roll",
            PositionError::Discard(_) => "discard",
            PositionError::DiscardOwed { .. } => "discard_owed",
            PositionError::RobberWithoutCause => "robber_without_cause",
            PositionError::RoadBuilding => "road_building",
            PositionError::TargetReached { .. } => "target_reached",
            PositionError::Rng => "rng",
            PositionError::EndedBeforeTurnLimit { .. } => "ended_before_turn_limit",
        }
    }
}
