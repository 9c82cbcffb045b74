//! The JSON bodies of the HTTP lobby (`/api/rooms...`), of the finished-game history
//! (`/api/games...`) and the one error body every HTTP endpoint uses.

use catan_engine::{Action, Event, FinalScore, GameOptions, MapKind, Seat};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::room::{BotKind, RoomInfo, RoomOptions};

/// `POST /api/rooms`: the new room's options; every field may be left out (or be
/// `null`), and then takes the server's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl CreateRoomRequest {
    /// The options asked for, each missing one taken from `defaults` (the server's).
    /// A trade timeout of 0 becomes 1 second: offers always expire.
    #[must_use]
    pub fn resolve(&self, defaults: &RoomOptions) -> RoomOptions {
        let d = defaults;
        RoomOptions {
            game: GameOptions {
                players: self.players.unwrap_or(d.game.players),
                vp_target: self.vp_target.unwrap_or(d.game.vp_target),
                map: self.map.unwrap_or(d.game.map),
            },
            turn_timer_secs: self.turn_timer_secs.unwrap_or(d.turn_timer_secs),
            trade_timeout_secs: self
                .trade_timeout_secs
                .unwrap_or(d.trade_timeout_secs)
                .max(1),
            discard_timeout_secs: self.discard_timeout_secs.unwrap_or(d.discard_timeout_secs),
            listed: self.listed.unwrap_or(d.listed),
            spectators: self.spectators.unwrap_or(d.spectators),
        }
    }
}

/// `POST /api/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateRoomResponse {
    /// The room's id.
    pub room_id: Uuid,
    /// Secret for host-only calls (add bot, start); send as `Authorization: Bearer`.
    pub host_token: String,
    /// The room.
    pub room: RoomInfo,
}

/// `GET /api/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Query of the WebSocket upgrade, `GET /api/rooms/{id}/ws?token=...&last_seq=...`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WsQuery {
    /// Seat token; absent for a spectator.
    #[serde(default)]
    pub token: Option<String>,
    /// The last sequence number the client saw, to resume after a reconnect.
    #[serde(default)]
    pub last_seq: Option<u64>,
}

/// `POST /api/rooms/{id}/seats` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TakeSeatRequest {
    /// Display name, 1 to [`crate::MAX_NAME_CHARS`] characters.
    pub name: String,
    /// A particular seat; default: the first free one.
    #[serde(default)]
    pub seat: Option<Seat>,
}

/// `POST /api/rooms/{id}/seats` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakeSeatResponse {
    /// The seat taken.
    pub seat: Seat,
    /// Secret that identifies the seat on the WebSocket (`?token=`) and for leaving.
    pub token: String,
}

/// `POST /api/rooms/{id}/bots` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddBotRequest {
    /// A particular seat; default: the first free one.
    #[serde(default)]
    pub seat: Option<Seat>,
    /// The bot kind (default `random`).
    #[serde(default)]
    pub kind: BotKind,
}

/// `POST /api/rooms/{id}/bots` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddBotResponse {
    /// The seat the bot took.
    pub seat: Seat,
}

/// Every HTTP error body: `{"error": {"code": ..., "message": ...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// A machine code and a human message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// Stable machine-readable code.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}

// ----- finished games ----------------------------------------------------------

/// Where a stored game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// A stored game as listed (`GET /api/games`, `GET /api/games/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The winner.
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

/// `GET /api/games/{id}/replay` answer: enough to rebuild the game exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The game.
    pub game: GameSummary,
    /// The engine options the game ran with.
    pub engine_options: GameOptions,
    /// Every action in order.
    pub actions: Vec<ReplayStep>,
    /// Final scores from re-running the log now (equal to the stored ones).
    pub final_scores: Vec<FinalScore>,
}
