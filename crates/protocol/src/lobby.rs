//! The JSON bodies of the HTTP lobby (`/api/rooms...`), of the finished-game history
//! (`/api/games...`) and the one error body every HTTP endpoint uses.

use catan_engine::board::Map;
use catan_engine::{
    Action, Event, FinalScore, GameOptions, GameStats, GameView, MapKind, Seat, TileId,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::LobbyError;
use crate::days::{DAYS_PRESETS, DaysOptions, DaysRequest};
use crate::room::{BotKind, RoomInfo, RoomOptions};
use serde::de::DeserializeOwned;
use serde_json::{Map as JsonMap, Value};

/// Parses a JSON body that must be an object; an empty (or whitespace) body means
/// `{}`. Anything else, `[4]` for instance (which serde would read as the fields in
/// order), is a `bad_request`.
fn parse_object(body: &[u8]) -> Result<JsonMap<String, Value>, LobbyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(JsonMap::new());
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| LobbyError::BadRequest(format!("invalid JSON body: {e}")))?;
    match value {
        Value::Object(object) => Ok(object),
        other => Err(LobbyError::BadRequest(format!(
            "the body must be a JSON object, not {}",
            json_kind(&other)
        ))),
    }
}

/// What kind of JSON value this is, for messages.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses a JSON object body (see [`parse_object`]) into `T`.
///
/// # Errors
/// `bad_request`, saying what is wrong.
pub fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, LobbyError> {
    T::deserialize(Value::Object(parse_object(body)?))
        .map_err(|e| LobbyError::BadRequest(format!("invalid JSON body: {e}")))
}

/// `POST /api/rooms`: the new room's options; every field may be left out (or be
/// `null`), and then takes the server's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRoomRequest {
    /// 3 or 4 (default 4).
    #[serde(default)]
    pub players: Option<u8>,
    /// 3..=20 (default 10).
    #[serde(default)]
    pub vp_target: Option<u8>,
    /// `random` (default) or `beginner`.
    #[serde(default)]
    pub map: Option<MapKind>,
    /// Turns after which the game ends with no winner (R-10.5), 100..=5000
    /// (default 1000).
    #[serde(default)]
    pub turn_limit: Option<u16>,
    /// Seconds per phase; 0 turns the turn timer off. Default: the server's.
    #[serde(default)]
    pub turn_timer_secs: Option<u32>,
    /// Seconds before a trade offer expires (at least 1). Default: the server's.
    #[serde(default)]
    pub trade_timeout_secs: Option<u32>,
    /// Seconds to discard after a 7; 0 turns it off. Default: the server's.
    #[serde(default)]
    pub discard_timeout_secs: Option<u32>,
    /// Shown in the public room list (default true).
    #[serde(default)]
    pub listed: Option<bool>,
    /// Spectators may watch (default true).
    #[serde(default)]
    pub spectators: Option<bool>,
    /// Seconds a person may be away while a decision is theirs before a bot stands
    /// in for them; 0 = never. Default 60.
    #[serde(default)]
    pub stand_in_secs: Option<u32>,
    /// The kind of bot that stands in (default `medium`).
    #[serde(default)]
    pub stand_in_level: Option<BotKind>,
    /// A rated game (default false; protocol 25.8).
    #[serde(default)]
    pub rated: Option<bool>,
    /// A game over days (protocol 27): hours per move and any field to differ
    /// from that move's preset. Absent: a live game.
    #[serde(default)]
    pub days: Option<DaysRequest>,
}

impl CreateRoomRequest {
    /// Parses the body of `POST /api/rooms`. A known option with a value of the right
    /// JSON type that the option does not take (`"map": "huge"`, `"players": 300`) is
    /// `invalid_options`, naming the field, like an option out of range; structural
    /// problems (not JSON, not an object, an unknown field, a value of the wrong JSON
    /// type) are `bad_request`. `valid` holds a valid value of every option, by name.
    ///
    /// # Errors
    /// `invalid_options` or `bad_request`, saying what is wrong.
    ///
    /// # Panics
    /// Never: room options always serialize.
    pub fn parse(body: &[u8], valid: &RoomOptions) -> Result<CreateRoomRequest, LobbyError> {
        let object = parse_object(body)?;
        // Every option present, `days` too (absent from a live room's options).
        let mut valid = *valid;
        valid
            .days
            .get_or_insert(DaysOptions::preset(DAYS_PRESETS[2]));
        let valid = serde_json::to_value(valid).expect("room options serialize");
        for (field, value) in &object {
            let Some(example) = valid.get(field) else {
                continue; // an unknown field: serde names it below
            };
            if value.is_null() || json_kind(value) != json_kind(example) {
                continue;
            }
            let alone = Value::Object(JsonMap::from_iter([(field.clone(), value.clone())]));
            if let Err(e) = CreateRoomRequest::deserialize(&alone) {
                return Err(LobbyError::InvalidOptions(format!("{field}: {e}")));
            }
        }
        CreateRoomRequest::deserialize(Value::Object(object))
            .map_err(|e| LobbyError::BadRequest(format!("invalid JSON body: {e}")))
    }

    /// The options asked for, each missing one taken from `defaults` (the server's).
    /// A trade timeout of 0 becomes 1 second: offers always expire (R-9.3).
    #[must_use]
    pub fn resolve(&self, defaults: &RoomOptions) -> RoomOptions {
        let d = defaults;
        RoomOptions {
            game: GameOptions::default()
                .with_players(self.players.unwrap_or(d.game.players))
                .with_vp_target(self.vp_target.unwrap_or(d.game.vp_target))
                .with_map(self.map.unwrap_or(d.game.map))
                .with_turn_limit(self.turn_limit.unwrap_or(d.game.turn_limit)),
            turn_timer_secs: self.turn_timer_secs.unwrap_or(d.turn_timer_secs),
            trade_timeout_secs: self
                .trade_timeout_secs
                .unwrap_or(d.trade_timeout_secs)
                .max(1),
            discard_timeout_secs: self.discard_timeout_secs.unwrap_or(d.discard_timeout_secs),
            listed: self.listed.unwrap_or(d.listed),
            spectators: self.spectators.unwrap_or(d.spectators),
            stand_in_secs: self.stand_in_secs.unwrap_or(d.stand_in_secs),
            stand_in_level: self.stand_in_level.unwrap_or(d.stand_in_level),
            rated: self.rated.unwrap_or(d.rated),
            days: self.days.map(|r| r.resolve()),
        }
    }
}

/// `POST /api/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateRoomResponse {
    /// The room's id.
    pub room_id: Uuid,
    /// Secret for host-only calls (add bot, start); send as `Authorization: Bearer`.
    pub host_token: String,
    /// The room.
    pub room: RoomInfo,
}

/// `GET /api/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoomList {
    /// Listed rooms, newest first.
    pub rooms: Vec<RoomInfo>,
}

/// Query of `GET /api/rooms`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomListQuery {
    /// At most this many rooms (default 50, at most 200).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Query of the WebSocket upgrade,
/// `GET /api/rooms/{id}/ws?token=...&last_seq=...&protocol=...`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WsQuery {
    /// Seat token; absent for a spectator.
    #[serde(default)]
    pub token: Option<String>,
    /// The last sequence number the client saw, to resume after a reconnect.
    #[serde(default)]
    pub last_seq: Option<u64>,
    /// The protocol version the client speaks ([`crate::PROTOCOL_VERSION`]); absent:
    /// whatever the server speaks. A version the server does not speak is closed
    /// with [`crate::CloseCode::UnsupportedVersion`].
    #[serde(default)]
    pub protocol: Option<u32>,
}

impl WsQuery {
    /// Whether the server speaks the protocol version the client asked for (any,
    /// when it asked for none).
    #[must_use]
    pub fn protocol_supported(&self) -> bool {
        self.protocol.is_none_or(crate::protocol_supported)
    }
}

/// `POST /api/rooms/{id}/seats` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeSeatRequest {
    /// Display name, 1 to [`crate::MAX_NAME_CHARS`] characters.
    pub name: String,
    /// A particular seat; default: the first free one.
    #[serde(default)]
    pub seat: Option<Seat>,
}

/// `POST /api/rooms/{id}/seats` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TakeSeatResponse {
    /// The seat taken.
    pub seat: Seat,
    /// Secret that identifies the seat on the WebSocket (`?token=`) and for leaving.
    pub token: String,
}

/// `POST /api/rooms/{id}/bots` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddBotRequest {
    /// A particular seat; default: the first free one.
    #[serde(default)]
    pub seat: Option<Seat>,
    /// The bot kind (default `medium`).
    #[serde(default)]
    pub kind: BotKind,
}

/// `POST /api/rooms/{id}/bots` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AddBotResponse {
    /// The seat the bot took.
    pub seat: Seat,
}

/// Every HTTP error body: `{"error": {"code": ..., "message": ...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// A machine code and a human message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorDetail {
    /// Stable machine-readable code.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}

// ----- finished games ----------------------------------------------------------

/// Where a stored game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Being played (or waiting to be restored after a restart).
    Playing,
    /// Over, with a result.
    Finished,
    /// Closed by an administrator before it ended; its log is kept.
    Abandoned,
}

/// A seat of a stored game, with its result once finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerResult {
    /// The seat.
    pub seat: Seat,
    /// Display name.
    pub name: String,
    /// Bot kind, for built-in bots.
    pub bot: Option<BotKind>,
    /// Final victory points, once finished.
    pub final_vp: Option<u8>,
    /// Victory Point cards revealed at the end.
    pub vp_cards: Option<u8>,
    /// The player whose seat it was (protocol 25.7): a person's player, or a bot
    /// level's identity; absent for a seat taken without a player and in games
    /// stored before players existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
    /// What a finished rated game did to the seat's rating (protocol 25.8); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingChange>,
}

/// What a rated game did to a seat's rating, as shown (protocol 25.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RatingChange {
    /// The seat's place in the final order (1 is first; ties share a place).
    pub place: u8,
    /// The rating shown before the game.
    pub before: i32,
    /// The rating shown after it (the same for a bot, whose rating is fixed).
    pub after: i32,
    /// Whether the rating after the game is still provisional.
    pub provisional: bool,
}

/// A stored game as listed (`GET /api/games`, `GET /api/games/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameSummary {
    /// The game's (and its room's) id.
    pub id: Uuid,
    /// `playing`, `finished` or `abandoned` (closed by an administrator mid-game).
    pub status: GameStatus,
    /// The room's options.
    pub options: RoomOptions,
    /// Start time, Unix ms.
    pub started_at: u64,
    /// End time, Unix ms.
    pub finished_at: Option<u64>,
    /// The winner; `None` while playing, and for a game the turn limit ended with no
    /// winner (R-10.5).
    pub winner: Option<Seat>,
    /// Seats with names and results.
    pub players: Vec<PlayerResult>,
    /// The commitment published at the start.
    pub seed_commitment: String,
    /// The seed, only once finished (decimal string).
    pub seed: Option<String>,
    /// The commitment's salt, only once finished.
    pub seed_salt: Option<String>,
}

/// `GET /api/games` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameList {
    /// Finished games, newest first.
    pub games: Vec<GameSummary>,
    /// The page returned (from 1).
    pub page: u64,
    /// Games per page.
    pub per_page: u64,
}

/// Query of `GET /api/games`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameListQuery {
    /// Page number from 1 (default 1).
    #[serde(default)]
    pub page: Option<u64>,
    /// Games per page (default 20, at most 100).
    #[serde(default)]
    pub per_page: Option<u64>,
    /// Only games with a seat of this display name.
    #[serde(default)]
    pub player: Option<String>,
}

/// One action of a replay with everything it caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayStep {
    /// Position in the log, from 0.
    pub seq: u64,
    /// The seat that acted; absent for the system (timers).
    pub seat: Option<Seat>,
    /// The action.
    pub action: Action,
    /// When it was accepted, Unix ms.
    pub at: u64,
    /// Every event, unredacted.
    pub events: Vec<Event>,
    /// Every seat's public victory points after the step (no VP cards, R-1.3), in
    /// seat order: what a view followed from the events does not state.
    pub public_vp: Vec<u8>,
}

/// `GET /api/games/{id}/replay` answer: enough to rebuild the game exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Replay {
    /// The game.
    pub game: GameSummary,
    /// The engine options the game ran with.
    pub engine_options: GameOptions,
    /// The map the seed dealt (R-2.4): terrain and number of every tile, the harbors.
    /// Derived from the seed when asked for, so games stored before it existed have it.
    pub map: Map,
    /// The robber's tile at the start: the desert (R-2.7).
    pub robber_start: TileId,
    /// The seat the seed chose to place first (R-3.1).
    pub first: Seat,
    /// The seats in turn order from `first` (R-3.1); setup round two is its reverse
    /// (R-3.2).
    pub seat_order: Vec<Seat>,
    /// The game before its first action as a spectator sees it: the view the events
    /// of `actions` apply to, step by step.
    pub start: GameView,
    /// Every action in order.
    pub actions: Vec<ReplayStep>,
    /// Final scores from re-running the log now (equal to the stored ones).
    pub final_scores: Vec<FinalScore>,
    /// The statistics of the game, as in its `game_over`.
    pub stats: GameStats,
}

/// `POST /api/rooms/{id}/rematch` answer: the new room for the game after this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RematchResponse {
    /// The new room's id.
    pub room_id: Uuid,
    /// Its host token, to the caller who created it; `null` for everyone asking after
    /// (the room exists already, its host is the first caller).
    pub host_token: Option<String>,
    /// The new room, its bots seated.
    pub room: RoomInfo,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_room_option_has_a_valid_value_to_compare_types_with() {
        // `CreateRoomRequest::parse` tells a wrong value from a wrong type by the options'
        // own serialization: the request and the options share their field names.
        let request = serde_json::to_value(CreateRoomRequest::default()).unwrap();
        let options = serde_json::to_value(RoomOptions {
            days: Some(DaysOptions::preset(24)),
            ..RoomOptions::default()
        })
        .unwrap();
        for field in request.as_object().unwrap().keys() {
            assert!(options.get(field).is_some(), "{field}");
        }
    }

    #[test]
    fn create_room_bodies_are_objects_with_valid_options() {
        let d = RoomOptions::default();
        let parse = |s: &'static str| CreateRoomRequest::parse(s.as_bytes(), &d);
        assert_eq!(parse("").unwrap(), CreateRoomRequest::default());
        assert_eq!(
            parse(r#"{"map":null}"#).unwrap(),
            CreateRoomRequest::default()
        );
        assert!(
            matches!(parse(r#"{"map":"huge"}"#), Err(LobbyError::InvalidOptions(m)) if m.starts_with("map: "))
        );
        assert!(matches!(
            parse(r#"{"players":"four"}"#),
            Err(LobbyError::BadRequest(_))
        ));
        assert!(matches!(
            parse(r#"{"colour":"red"}"#),
            Err(LobbyError::BadRequest(_))
        ));
        assert!(matches!(parse("[4]"), Err(LobbyError::BadRequest(_))));
        // A game over days: the preset of its hours, and a field of the wrong kind
        // named as an option.
        let days = parse(r#"{"days":{"move_hours":72}}"#).unwrap().resolve(&d);
        assert_eq!(days.days, Some(DaysOptions::preset(72)));
        assert!(
            matches!(parse(r#"{"days":{"move_hours":"x"}}"#), Err(LobbyError::InvalidOptions(m)) if m.starts_with("days: "))
        );
        let zero = parse(r#"{"days":{"move_hours":0}}"#).unwrap().resolve(&d);
        assert!(
            zero.validate()
                .unwrap_err()
                .to_string()
                .contains("move_hours")
        );
    }

    #[test]
    fn a_room_request_takes_its_turn_limit_or_the_default() {
        // R-10.5
        let d = RoomOptions::default();
        let asked: CreateRoomRequest = serde_json::from_str(r#"{"turn_limit": 250}"#).unwrap();
        assert_eq!(asked.resolve(&d).game.turn_limit, 250);
        let none: CreateRoomRequest = serde_json::from_str(r#"{"turn_limit": null}"#).unwrap();
        assert_eq!(
            none.resolve(&d).game.turn_limit,
            catan_engine::DEFAULT_TURN_LIMIT
        );
        let low = CreateRoomRequest {
            turn_limit: Some(99),
            ..CreateRoomRequest::default()
        };
        let e = low.resolve(&d).validate().unwrap_err();
        assert_eq!(
            e,
            crate::RoomOptionsError::Game(catan_engine::OptionsError::TurnLimit(99))
        );
    }
}
