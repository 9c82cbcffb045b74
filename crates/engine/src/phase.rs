//! Where the game is within a turn: what may happen next.

use serde::{Deserialize, Serialize};

use crate::board::VertexId;
use crate::seat::{MAX_SEATS, Seat};

/// The step of the game, deciding which actions are legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "name", rename_all = "snake_case")]
pub enum Phase {
    /// Initial placements: placement `index` in `0..2 * players`, snake
    /// order. `settlement` is the one just placed once its road is due.
    Setup {
        /// Which placement of the snake order.
        index: u8,
        /// The settlement placed in this placement, whose road comes next.
        settlement: Option<VertexId>,
    },
    /// The current player has not rolled yet.
    PreRoll,
    /// A 7 was rolled: the listed seats still owe these many cards.
    Discard {
        /// Cards still owed by each seat; 0 for seats that are done.
        pending: [u8; MAX_SEATS],
    },
    /// The current player must move the robber.
    MoveRobber {
        /// Where the turn continues afterwards.
        resume: Resume,
    },
    /// Trade and build.
    Main,
    /// Road Building: free roads still to place.
    RoadBuilding {
        /// Roads still to place (1 or 2).
        remaining: u8,
        /// Where the turn continues afterwards.
        resume: Resume,
    },
    /// The game is over; nothing more can happen. Someone won, or the last
    /// allowed turn ended without a winner.
    Over {
        /// The winner; `None` (`null` on the wire) when the turn limit ended the game.
        winner: Option<Seat>,
    },
}

/// The phase a turn returns to after an interruption (robber, Road Building).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Resume {
    /// The card was played before the roll: the player still has to roll.
    PreRoll,
    /// Back to trade and build.
    Main,
}

impl From<Resume> for Phase {
    fn from(r: Resume) -> Phase {
        match r {
            Resume::PreRoll => Phase::PreRoll,
            Resume::Main => Phase::Main,
        }
    }
}
