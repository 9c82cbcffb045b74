//! Games over days (protocol.md 27): a room's clock of hours per move with a time
//! bank and vacation days ([`DaysOptions`]), the request that asks for one
//! ([`DaysRequest`]), and each seat's clock as clients are told it ([`SeatClock`]).

use catan_engine::Seat;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::room::{RoomOptions, RoomStatus};

/// The documented presets of hours per move: an hour, half a day, a day, three days.
pub const DAYS_PRESETS: [u32; 4] = [1, 12, 24, 72];
/// Time-outs after which a seat's person is replaced by a bot for the rest of the
/// game (and, in a rated game, placed last).
pub const DAYS_TIME_OUTS_REPLACED: u32 = 3;
/// The longest move, discard or time bank, in hours (30 days).
pub const DAYS_MAX_HOURS: u32 = 720;
/// The most vacation days a seat may have.
pub const DAYS_MAX_VACATION: u32 = 30;

/// The clock of a game over days. A *move* is a decision a seat owes: its turn
/// (from the moment it becomes the seat's turn, set-up placements included, until
/// the turn passes) or its discard after a 7 (R-7.1). Answers to trade offers are
/// no move: an offer stays open until its turn ends (R-9.3) or its author closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DaysOptions {
    /// Hours for each turn before the time bank is drawn on.
    pub move_hours: u32,
    /// Hours to discard after a 7 (no time bank).
    pub discard_hours: u32,
    /// Hours of time bank each seat starts with.
    pub bank_hours: u32,
    /// Minutes added to a seat's bank after each of its turns.
    pub bank_add_mins: u32,
    /// The most a bank may hold, in hours.
    pub bank_cap_hours: u32,
    /// Whole days each seat may draw, once its bank is empty, before it times out.
    pub vacation_days: u32,
}

impl DaysOptions {
    /// The options of `move_hours` per move: a discard of at most 12 hours, a bank
    /// of two moves, a quarter of a move added per turn up to three moves, and a
    /// week of vacation (capped at [`DAYS_MAX_HOURS`]).
    #[must_use]
    pub fn preset(move_hours: u32) -> DaysOptions {
        DaysOptions {
            move_hours,
            discard_hours: move_hours.clamp(1, 12),
            bank_hours: move_hours.saturating_mul(2).min(DAYS_MAX_HOURS),
            bank_add_mins: move_hours.saturating_mul(15),
            bank_cap_hours: move_hours.saturating_mul(3).min(DAYS_MAX_HOURS),
            vacation_days: 7,
        }
    }

    /// Checks every field: the option's name and what it must be when one is out
    /// of range.
    ///
    /// # Errors
    /// The first field out of range, with the range.
    pub fn validate(&self) -> Result<(), String> {
        let hours = |name: &str, v: u32, min: u32| {
            if (min..=DAYS_MAX_HOURS).contains(&v) {
                Ok(())
            } else {
                Err(format!("days.{name} is from {min} to {DAYS_MAX_HOURS}"))
            }
        };
        hours("move_hours", self.move_hours, 1)?;
        hours("discard_hours", self.discard_hours, 1)?;
        hours("bank_hours", self.bank_hours, 0)?;
        hours("bank_cap_hours", self.bank_cap_hours, 0)?;
        if self.bank_hours > self.bank_cap_hours {
            return Err("days.bank_hours is at most days.bank_cap_hours".into());
        }
        if self.bank_add_mins > DAYS_MAX_HOURS * 60 {
            return Err(format!(
                "days.bank_add_mins is at most {}",
                DAYS_MAX_HOURS * 60
            ));
        }
        if self.vacation_days > DAYS_MAX_VACATION {
            return Err(format!("days.vacation_days is at most {DAYS_MAX_VACATION}"));
        }
        Ok(())
    }
}

/// `days` in `POST /api/rooms`: the hours per move, and any field to differ from
/// that move's preset ([`DaysOptions::preset`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DaysRequest {
    /// Hours per move; the presets are 1, 12, 24 and 72.
    pub move_hours: u32,
    /// Default: the move's, at most 12.
    #[serde(default)]
    pub discard_hours: Option<u32>,
    /// Default: two moves.
    #[serde(default)]
    pub bank_hours: Option<u32>,
    /// Default: a quarter of a move, in minutes.
    #[serde(default)]
    pub bank_add_mins: Option<u32>,
    /// Default: three moves.
    #[serde(default)]
    pub bank_cap_hours: Option<u32>,
    /// Default: 7.
    #[serde(default)]
    pub vacation_days: Option<u32>,
}

impl DaysRequest {
    /// The options asked for, each missing field from the preset.
    #[must_use]
    pub fn resolve(&self) -> DaysOptions {
        let p = DaysOptions::preset(self.move_hours);
        DaysOptions {
            move_hours: self.move_hours,
            discard_hours: self.discard_hours.unwrap_or(p.discard_hours),
            bank_hours: self.bank_hours.unwrap_or(p.bank_hours),
            bank_add_mins: self.bank_add_mins.unwrap_or(p.bank_add_mins),
            bank_cap_hours: self.bank_cap_hours.unwrap_or(p.bank_cap_hours),
            vacation_days: self.vacation_days.unwrap_or(p.vacation_days),
        }
    }
}

/// A seat's clock in a game over days, in `snapshot`, `events` and `resumed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatClock {
    /// The seat.
    pub seat: Seat,
    /// When the seat's move runs out (Unix ms), while a move is the seat's: its time,
    /// then its bank, then its vacation days. Then a bot moves for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    /// Time bank left, ms.
    pub bank_ms: u64,
    /// Vacation left, whole days.
    pub vacation_days: u32,
    /// Moves a bot made for the seat because its time ran out.
    pub time_outs: u32,
    /// Replaced by a bot for the rest of the game, after
    /// [`DAYS_TIME_OUTS_REPLACED`] time-outs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
}

/// `GET /api/me/games`: every game the signed-in player has a seat in and that is
/// not over (protocol 27.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MyGames {
    /// Games where a move is the player's first (the soonest deadline first), then
    /// the other started games (latest started first), then rooms still gathering
    /// players.
    pub games: Vec<MyGame>,
}

/// One game of [`MyGames`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MyGame {
    /// The room (open it with the seat's token the player was given, or take the
    /// seat again from the room's page).
    pub room_id: Uuid,
    /// `lobby` (gathering players) or `playing`.
    pub status: RoomStatus,
    /// The player's seat.
    pub seat: Seat,
    /// The display names at the table, in seat order (`null` for an empty seat).
    pub names: Vec<Option<String>>,
    /// The room's options (`days` for a game over days).
    pub options: RoomOptions,
    /// Whether a move is the player's now (known for a game over days).
    pub your_move: bool,
    /// The seats whose move it is (a game over days; empty otherwise).
    pub to_move: Vec<Seat>,
    /// The player's own clock, in a game over days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<SeatClock>,
    /// When the game started (Unix ms); absent while gathering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_a_request_takes_the_preset_for_what_it_leaves_out() {
        for h in DAYS_PRESETS {
            assert_eq!(DaysOptions::preset(h).validate(), Ok(()), "{h}");
        }
        let day = DaysOptions::preset(24);
        assert_eq!(
            (
                day.discard_hours,
                day.bank_hours,
                day.bank_add_mins,
                day.bank_cap_hours
            ),
            (12, 48, 360, 72)
        );
        let asked: DaysRequest =
            serde_json::from_str(r#"{"move_hours":24,"vacation_days":0}"#).unwrap();
        assert_eq!(
            asked.resolve(),
            DaysOptions {
                vacation_days: 0,
                ..day
            }
        );
        assert!(serde_json::from_str::<DaysRequest>(r#"{"move_hours":24,"x":1}"#).is_err());
    }

    #[test]
    fn out_of_range_fields_are_named() {
        let day = DaysOptions::preset(24);
        let bad = |o: DaysOptions| o.validate().unwrap_err();
        assert!(
            bad(DaysOptions {
                move_hours: 0,
                ..day
            })
            .contains("move_hours")
        );
        assert!(
            bad(DaysOptions {
                move_hours: 721,
                ..day
            })
            .contains("move_hours")
        );
        assert!(
            bad(DaysOptions {
                bank_hours: 100,
                ..day
            })
            .contains("bank_cap_hours")
        );
        assert!(
            bad(DaysOptions {
                vacation_days: 31,
                ..day
            })
            .contains("vacation_days")
        );
        assert!(
            bad(DaysOptions {
                bank_add_mins: 50_000,
                ..day
            })
            .contains("bank_add_mins")
        );
    }
}
