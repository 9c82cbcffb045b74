//! Seats: who acts. Players are addressed by seat index, the system by [`Actor::System`].

use serde::{Deserialize, Serialize};

/// Most seats a game can have (R-2: base game for 3 or 4 players).
pub const MAX_SEATS: usize = 4;

/// A player's seat, `0..players`. Seat order is turn order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an array index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Who issues an action: a player's seat, or the system (timers, R-9.3 expiry).
///
/// The system actor exists so that time enters the engine as an action: a room's
/// timer fires, the server applies `Actor::System` + [`crate::Action::TimeOut`],
/// and a replay of the log reproduces the same outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// A player acting from a seat.
    Seat(Seat),
    /// The room itself: timeouts and offer expiry.
    System,
}

impl From<Seat> for Actor {
    fn from(s: Seat) -> Self {
        Actor::Seat(s)
    }
}
