//! Game options a room chooses (number of players, VP target, map kind, turn limit).

use serde::{Deserialize, Serialize};

/// Which map a game is played on (R-2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MapKind {
    /// Terrain, numbers and harbors shuffled from the seed, no adjacent 6/8.
    #[default]
    Random,
    /// The fixed layout suggested for first games.
    Beginner,
}

/// Options that change the rules of one game. Unvalidated: a `Game` can only be
/// created from options that pass [`GameOptions::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct GameOptions {
    /// Number of seats, 3 or 4 (default 4).
    pub players: u8,
    /// Victory points needed to win, 3..=20 (R-1.1; default 10).
    pub vp_target: u8,
    /// Random or beginner map (R-2.4; default random).
    pub map: MapKind,
    /// Turns after which the game ends with no winner if nobody has won, each
    /// player's turn counting one (R-10.5; [`TURN_LIMIT_MIN`]..=[`TURN_LIMIT_MAX`],
    /// default [`DEFAULT_TURN_LIMIT`]). Options written before the limit existed
    /// read with the default.
    pub turn_limit: u16,
}

/// The turn limit of a game that does not choose one (R-10.5).
pub const DEFAULT_TURN_LIMIT: u16 = 1000;
/// The lowest turn limit a game may choose (R-10.5).
pub const TURN_LIMIT_MIN: u16 = 100;
/// The highest turn limit a game may choose (R-10.5).
pub const TURN_LIMIT_MAX: u16 = 5000;

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions::DEFAULT
    }
}

/// Why a set of options cannot start a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// `players` is not 3 or 4.
    #[error("a game has 3 or 4 players, not {0}")]
    Players(u8),
    /// `vp_target` is outside 3..=20.
    #[error("the victory point target must be between 3 and 20, not {0}")]
    VpTarget(u8),
    /// `turn_limit` is outside 100..=5000 (R-10.5).
    #[error("the turn limit must be between 100 and 5000, not {0}")]
    TurnLimit(u16),
}

impl OptionsError {
    /// Stable machine-readable code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            OptionsError::Players(_) => "invalid_player_count",
            OptionsError::VpTarget(_) => "invalid_vp_target",
            OptionsError::TurnLimit(_) => "invalid_turn_limit",
        }
    }
}

/// Options are built from [`GameOptions::default`] (or [`GameOptions::DEFAULT`]) and
/// the `with_` methods, or by setting fields, never by a struct literal outside this
/// crate (it is `#[non_exhaustive]`): an option added later leaves code written before
/// it unchanged.
///
/// ```
/// use catan_engine::{GameOptions, MapKind};
///
/// let options = GameOptions::default().with_players(3).with_map(MapKind::Beginner);
/// assert_eq!((options.players, options.vp_target), (3, 10));
/// assert!(options.validate().is_ok());
/// ```
impl GameOptions {
    /// The default options, usable in constants: 4 players, 10 points to win (R-1.1), a
    /// random map (R-2.4), the game ending at turn [`DEFAULT_TURN_LIMIT`] (R-10.5).
    pub const DEFAULT: GameOptions = GameOptions {
        players: 4,
        vp_target: 10,
        map: MapKind::Random,
        turn_limit: DEFAULT_TURN_LIMIT,
    };

    /// These options with `players` seats.
    #[must_use]
    pub const fn with_players(mut self, players: u8) -> GameOptions {
        self.players = players;
        self
    }

    /// These options with `vp_target` victory points to win (R-1.1).
    #[must_use]
    pub const fn with_vp_target(mut self, vp_target: u8) -> GameOptions {
        self.vp_target = vp_target;
        self
    }

    /// These options on a map of kind `map` (R-2.4).
    #[must_use]
    pub const fn with_map(mut self, map: MapKind) -> GameOptions {
        self.map = map;
        self
    }

    /// These options with the game ending at turn `turn_limit` (R-10.5).
    #[must_use]
    pub const fn with_turn_limit(mut self, turn_limit: u16) -> GameOptions {
        self.turn_limit = turn_limit;
        self
    }

    /// Checks the options.
    ///
    /// # Errors
    /// [`OptionsError`] naming the first option out of range.
    pub fn validate(&self) -> Result<(), OptionsError> {
        if !(3..=4).contains(&self.players) {
            return Err(OptionsError::Players(self.players));
        }
        if !(3..=20).contains(&self.vp_target) {
            return Err(OptionsError::VpTarget(self.vp_target));
        }
        if !(TURN_LIMIT_MIN..=TURN_LIMIT_MAX).contains(&self.turn_limit) {
            return Err(OptionsError::TurnLimit(self.turn_limit));
        }
        Ok(())
    }
}
