//! A room as the lobby describes it: status, options, seats and their occupants,
//! and the kinds of built-in bot.

use std::fmt;
use std::str::FromStr;

use catan_engine::{GameOptions, OptionsError, Seat};

use crate::days::DaysOptions;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};
use uuid::Uuid;

/// A room's public description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoomInfo {
    /// The room's id.
    pub id: Uuid,
    /// `lobby`, `playing` or `finished`.
    pub status: RoomStatus,
    /// The room's options.
    pub options: RoomOptions,
    /// One entry per seat.
    pub seats: Vec<SeatInfo>,
    /// Creation time, Unix ms.
    pub created_at: u64,
    /// SHA-256 of `"{seed}:{seed_salt}"`, published when the game starts; the seed
    /// and salt are revealed at the end so anyone can check every roll and shuffle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_commitment: Option<String>,
}

/// Where a room is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats are being taken.
    Lobby,
    /// The game is on.
    Playing,
    /// The game is over.
    Finished,
}

/// Default seconds before a trade offer expires (R-9.3), when neither the room nor
/// the server says otherwise.
pub const DEFAULT_TRADE_TIMEOUT_SECS: u32 = 60;
/// Default seconds to discard after a 7 (R-7.1); 0 would turn the timer off.
pub const DEFAULT_DISCARD_TIMEOUT_SECS: u32 = 60;
/// Default seconds per phase (R-4.5); 0: no turn timer.
pub const DEFAULT_TURN_TIMER_SECS: u32 = 0;
/// Default seconds a person may be away while a decision is theirs before a stand-in
/// bot plays their seat; 0: never.
pub const DEFAULT_STAND_IN_SECS: u32 = 60;
/// The longest any timer option may be, in seconds.
pub const MAX_TIMER_SECS: u32 = 3600;

/// A room's settled options: the engine's [`GameOptions`] (once, flattened into the
/// same JSON object) and the room's own. Every field has a default, so options
/// written by an older version, without a field added since, still read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RoomOptions {
    /// Players, VP target, map and turn limit: the rules of the game itself.
    #[serde(flatten)]
    pub game: GameOptions,
    /// Seconds per phase; 0 = no turn timer.
    pub turn_timer_secs: u32,
    /// Seconds before a trade offer expires.
    pub trade_timeout_secs: u32,
    /// Seconds to discard after a 7; 0 = no discard timer.
    pub discard_timeout_secs: u32,
    /// In the public room list.
    pub listed: bool,
    /// Spectators allowed.
    pub spectators: bool,
    /// Seconds a person's seat may go without a connection while a decision is the
    /// seat's before a built-in bot stands in for it (until the person is back);
    /// 0 = never.
    pub stand_in_secs: u32,
    /// The kind of bot that stands in for an absent person.
    pub stand_in_level: BotKind,
    /// A rated game: its result updates the players' ratings (protocol 25.8).
    /// Every person's seat needs a player (a session); bots play at their level's
    /// fixed rating, and the random baseline cannot be seated.
    pub rated: bool,
    /// A game over days (protocol 27): hours per move, a time bank and vacation
    /// days instead of the turn timer, the trade timeout, the discard timeout and
    /// stand-ins (which do not apply), and the game is never abandoned for want of
    /// a connection. Absent for a live game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<DaysOptions>,
}

impl Default for RoomOptions {
    fn default() -> RoomOptions {
        RoomOptions {
            game: GameOptions::default(),
            turn_timer_secs: DEFAULT_TURN_TIMER_SECS,
            trade_timeout_secs: DEFAULT_TRADE_TIMEOUT_SECS,
            discard_timeout_secs: DEFAULT_DISCARD_TIMEOUT_SECS,
            listed: true,
            spectators: true,
            stand_in_secs: DEFAULT_STAND_IN_SECS,
            stand_in_level: BotKind::Medium,
            rated: false,
            days: None,
        }
    }
}

/// Why a set of room options cannot make a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoomOptionsError {
    /// The game options are out of range.
    Game(OptionsError),
    /// A timer is longer than [`MAX_TIMER_SECS`] (the field's name).
    TimerTooLong(&'static str),
    /// A field of the clock of a game over days is out of range (what it must be).
    Days(String),
}

impl fmt::Display for RoomOptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoomOptionsError::Game(e) => write!(f, "{e}"),
            RoomOptionsError::TimerTooLong(name) => write!(f, "{name} is at most {MAX_TIMER_SECS}"),
            RoomOptionsError::Days(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RoomOptionsError {}

impl RoomOptions {
    /// Checks every option.
    ///
    /// # Errors
    /// The first option out of range.
    pub fn validate(&self) -> Result<(), RoomOptionsError> {
        self.game.validate().map_err(RoomOptionsError::Game)?;
        for (name, v) in [
            ("turn_timer_secs", self.turn_timer_secs),
            ("trade_timeout_secs", self.trade_timeout_secs),
            ("discard_timeout_secs", self.discard_timeout_secs),
            ("stand_in_secs", self.stand_in_secs),
        ] {
            if v > MAX_TIMER_SECS {
                return Err(RoomOptionsError::TimerTooLong(name));
            }
        }
        if let Some(days) = &self.days {
            days.validate().map_err(RoomOptionsError::Days)?;
        }
        Ok(())
    }
}

/// One seat of a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo {
    /// The seat index, which is also turn order.
    pub seat: Seat,
    /// Who sits here, if anyone.
    pub occupant: Option<Occupant>,
    /// Whether a client (or bot) is connected now.
    pub connected: bool,
    /// Whether a built-in bot plays the seat for its absent person now (left out
    /// when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stand_in: bool,
}

/// Who sits on a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Occupant {
    /// Display name.
    pub name: String,
    /// The bot kind, for a built-in bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
}

/// Kinds of built-in bot, by the names the lobby API and command lines use.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
    VariantArray,
    EnumCount,
    IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum BotKind {
    /// The easy level: plays the medium bot's plans without bank trades or
    /// development cards, and makes no player offers.
    Easy,
    /// The medium level (the lobby's default): plays to win from its own view and
    /// trades with players by its own evaluation (`catan_bots::HeuristicBot`).
    /// Rooms and games stored under the earlier name `heuristic` read as this.
    #[default]
    #[serde(alias = "heuristic")]
    Medium,
    /// The hard level: searches over the hidden information its view leaves open
    /// (`catan_bots::SearchBot`).
    Hard,
    /// Uniform among its legal actions, for tests and load: not a level for players.
    Random,
}

impl BotKind {
    /// Every kind, in a fixed order: the levels, then `random`.
    pub const ALL: [BotKind; BotKind::COUNT] =
        *BotKind::VARIANTS.first_chunk().expect("COUNT variants");

    /// The kind's name, as on the wire (serde's name of the variant) and parsed by
    /// `from_str`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Earlier names still read, with the kind each stands for now.
    pub const ALIASES: [(&'static str, BotKind); 1] = [("heuristic", BotKind::Medium)];
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`BotKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBotKind(pub String);

impl fmt::Display for UnknownBotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = BotKind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown bot kind `{}` (known: {})",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownBotKind {}

impl FromStr for BotKind {
    type Err = UnknownBotKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        BotKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .or_else(|| {
                BotKind::ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == name)
                    .map(|(_, k)| *k)
            })
            .ok_or_else(|| UnknownBotKind(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bot_kind_parses_from_its_own_name() {
        for k in BotKind::ALL {
            assert_eq!(k.name().parse::<BotKind>(), Ok(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
        assert!("clever".parse::<BotKind>().is_err());
    }

    #[test]
    fn the_earlier_name_heuristic_reads_as_medium() {
        // Rooms and stored games written before the levels name `heuristic`.
        assert_eq!("heuristic".parse::<BotKind>(), Ok(BotKind::Medium));
        let k: BotKind = serde_json::from_str(r#""heuristic""#).unwrap();
        assert_eq!(k, BotKind::Medium);
        assert_eq!(serde_json::to_value(k).unwrap(), "medium");
        assert_eq!(BotKind::default(), BotKind::Medium);
    }

    #[test]
    fn room_options_are_one_flat_object() {
        let json = serde_json::to_value(RoomOptions::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "players": 4, "vp_target": 10, "map": "random", "turn_limit": 1000,
                "turn_timer_secs": 0, "trade_timeout_secs": 60,
                "discard_timeout_secs": 60, "listed": true, "spectators": true,
                "stand_in_secs": 60, "stand_in_level": "medium", "rated": false
            })
        );
    }

    #[test]
    fn room_options_without_newer_fields_still_read() {
        let old: RoomOptions = serde_json::from_str(r#"{"players":3,"listed":false}"#).unwrap();
        assert_eq!(old.game.players, 3);
        assert!(!old.listed);
        assert_eq!(old.trade_timeout_secs, DEFAULT_TRADE_TIMEOUT_SECS);
        // R-10.5: the turn limit came later.
        assert_eq!(old.game.turn_limit, catan_engine::DEFAULT_TURN_LIMIT);
        // Stand-ins came later still.
        assert_eq!(old.stand_in_secs, DEFAULT_STAND_IN_SECS);
        assert_eq!(old.stand_in_level, BotKind::Medium);
    }

    #[test]
    fn a_seat_without_a_stand_in_leaves_the_field_out() {
        let mut seat = SeatInfo {
            seat: Seat(2),
            occupant: None,
            connected: false,
            stand_in: false,
        };
        let json = serde_json::to_value(&seat).unwrap();
        assert_eq!(json.get("stand_in"), None);
        let back: SeatInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back, seat);
        seat.stand_in = true;
        assert_eq!(serde_json::to_value(&seat).unwrap()["stand_in"], true);
    }

    #[test]
    fn a_timer_over_an_hour_is_refused() {
        let o = RoomOptions {
            turn_timer_secs: MAX_TIMER_SECS + 1,
            ..RoomOptions::default()
        };
        assert_eq!(
            o.validate(),
            Err(RoomOptionsError::TimerTooLong("turn_timer_secs"))
        );
        let o = RoomOptions {
            stand_in_secs: MAX_TIMER_SECS + 1,
            ..RoomOptions::default()
        };
        assert_eq!(
            o.validate(),
            Err(RoomOptionsError::TimerTooLong("stand_in_secs"))
        );
    }
}
