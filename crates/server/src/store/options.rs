//! Room options as the `games.options` column holds them: the store's own row type,
//! so that the database format does not change whenever the wire's does. Every
//! field has a default, so a row written before a field was added still reads.

use catan_engine::{GameOptions, MapKind};
use catan_protocol::{BotKind, DaysOptions, RoomOptions};
use serde::{Deserialize, Serialize};

/// The JSON object in `games.options` (one flat object, as every version wrote it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredOptions {
    /// Seats, 3 or 4.
    pub players: u8,
    /// Victory points to win.
    pub vp_target: u8,
    /// Map kind.
    pub map: MapKind,
    /// Turns after which the game ends with no winner (R-10.5). A row written before
    /// the limit existed reads as the default, 1000.
    pub turn_limit: u16,
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
    /// Seconds an absent person's decision waits before a bot stands in; 0 = never.
    /// A row written before stand-ins existed reads as the default, 60.
    pub stand_in_secs: u32,
    /// The kind of bot that stands in.
    pub stand_in_level: BotKind,
    /// A rated game. A row written before ratings existed reads as unrated.
    pub rated: bool,
    /// The clock of a game over days; absent (a live game) in every row written
    /// before games over days existed, and in a live game's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<StoredDays>,
}

/// The clock of a game over days as the `options` column holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredDays {
    /// Hours per turn before the bank is drawn on.
    pub move_hours: u32,
    /// Hours to discard after a 7.
    pub discard_hours: u32,
    /// Hours of bank at the start.
    pub bank_hours: u32,
    /// Minutes added to the bank per turn.
    pub bank_add_mins: u32,
    /// The most a bank holds, hours.
    pub bank_cap_hours: u32,
    /// Vacation days per seat.
    pub vacation_days: u32,
}

impl From<DaysOptions> for StoredDays {
    fn from(d: DaysOptions) -> StoredDays {
        StoredDays {
            move_hours: d.move_hours,
            discard_hours: d.discard_hours,
            bank_hours: d.bank_hours,
            bank_add_mins: d.bank_add_mins,
            bank_cap_hours: d.bank_cap_hours,
            vacation_days: d.vacation_days,
        }
    }
}

impl From<StoredDays> for DaysOptions {
    fn from(d: StoredDays) -> DaysOptions {
        DaysOptions {
            move_hours: d.move_hours,
            discard_hours: d.discard_hours,
            bank_hours: d.bank_hours,
            bank_add_mins: d.bank_add_mins,
            bank_cap_hours: d.bank_cap_hours,
            vacation_days: d.vacation_days,
        }
    }
}

impl Default for StoredOptions {
    /// A field missing from a stored row reads as the default of today's rooms.
    fn default() -> StoredOptions {
        StoredOptions::from(RoomOptions::default())
    }
}

impl From<RoomOptions> for StoredOptions {
    fn from(o: RoomOptions) -> StoredOptions {
        StoredOptions {
            players: o.game.players,
            vp_target: o.game.vp_target,
            map: o.game.map,
            turn_limit: o.game.turn_limit,
            turn_timer_secs: o.turn_timer_secs,
            trade_timeout_secs: o.trade_timeout_secs,
            discard_timeout_secs: o.discard_timeout_secs,
            listed: o.listed,
            spectators: o.spectators,
            stand_in_secs: o.stand_in_secs,
            stand_in_level: o.stand_in_level,
            rated: o.rated,
            days: o.days.map(StoredDays::from),
        }
    }
}

impl From<StoredOptions> for RoomOptions {
    fn from(o: StoredOptions) -> RoomOptions {
        RoomOptions {
            game: GameOptions::default()
                .with_players(o.players)
                .with_vp_target(o.vp_target)
                .with_map(o.map)
                .with_turn_limit(o.turn_limit),
            turn_timer_secs: o.turn_timer_secs,
            trade_timeout_secs: o.trade_timeout_secs,
            discard_timeout_secs: o.discard_timeout_secs,
            listed: o.listed,
            spectators: o.spectators,
            stand_in_secs: o.stand_in_secs,
            stand_in_level: o.stand_in_level,
            rated: o.rated,
            days: o.days.map(DaysOptions::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `options` column of a game stored by the version before the store had its
    /// own row type (tests/fixtures/stored_game_v1.sql holds a whole stored game).
    const V1: &str = r#"{"players":3,"vp_target":8,"map":"beginner","turn_timer_secs":90,"trade_timeout_secs":30,"discard_timeout_secs":45,"listed":false,"spectators":true}"#;

    #[test]
    fn options_stored_by_the_previous_version_read_back_unchanged() {
        let o: RoomOptions = serde_json::from_str::<StoredOptions>(V1).unwrap().into();
        assert_eq!(o.game.players, 3);
        assert_eq!(o.game.vp_target, 8);
        assert_eq!(o.game.map, MapKind::Beginner);
        assert_eq!(o.turn_timer_secs, 90);
        assert!(!o.listed);
        // R-10.5: written before the turn limit existed, the row reads with the default.
        assert_eq!(o.game.turn_limit, catan_engine::DEFAULT_TURN_LIMIT);
        let again = serde_json::to_string(&StoredOptions::from(o)).unwrap();
        // Stand-ins came later still: the default, 60 s by a medium bot.
        assert_eq!(o.stand_in_secs, catan_protocol::DEFAULT_STAND_IN_SECS);
        assert_eq!(o.stand_in_level, BotKind::Medium);
        let with_new = V1
            .replace(
                r#""map":"beginner","#,
                r#""map":"beginner","turn_limit":1000,"#,
            )
            .replace(
                r#""spectators":true}"#,
                r#""spectators":true,"stand_in_secs":60,"stand_in_level":"medium","rated":false}"#,
            );
        assert_eq!(
            again, with_new,
            "the stored format is unchanged but for the new fields"
        );
    }

    #[test]
    fn the_turn_limit_is_stored_and_read_back() {
        // R-10.5
        let mut o = RoomOptions::default();
        o.game.turn_limit = 100;
        let row = serde_json::to_string(&StoredOptions::from(o)).unwrap();
        assert!(row.contains(r#""turn_limit":100"#), "{row}");
        let back: RoomOptions = serde_json::from_str::<StoredOptions>(&row).unwrap().into();
        assert_eq!(back, o);
    }

    #[test]
    fn the_stand_in_options_are_stored_and_read_back() {
        let o = RoomOptions {
            stand_in_secs: 0,
            stand_in_level: BotKind::Hard,
            rated: true,
            days: Some(DaysOptions::preset(72)),
            ..RoomOptions::default()
        };
        let row = serde_json::to_string(&StoredOptions::from(o)).unwrap();
        let back: RoomOptions = serde_json::from_str::<StoredOptions>(&row).unwrap().into();
        assert_eq!(back, o);
    }

    #[test]
    fn a_row_without_a_field_added_later_reads_with_its_default() {
        let o: StoredOptions = serde_json::from_str(r#"{"players":3}"#).unwrap();
        assert_eq!(o.players, 3);
        assert_eq!(
            o.trade_timeout_secs,
            StoredOptions::default().trade_timeout_secs
        );
    }
}
