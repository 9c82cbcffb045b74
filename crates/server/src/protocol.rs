//! The wire protocol: every JSON body of the HTTP lobby and every WebSocket message,
//! one enum per direction. protocol.md documents each with an example, and a test
//! parses those examples into these types.

use catan_engine::{Action, Event, FinalScore, GameView, MapKind, OfferId, Seat};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Version of this protocol, sent in every snapshot. Bumped on incompatible changes.
pub const PROTOCOL_VERSION: u32 = 1;

/// Longest chat message in characters.
pub const MAX_CHAT_CHARS: usize = 500;
/// Longest display name in characters.
pub const MAX_NAME_CHARS: usize = 32;
/// Longest client request id in bytes.
pub const MAX_REQUEST_ID_BYTES: usize = 64;

// ----- WebSocket: client to server -------------------------------------------

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Apply a game action from the client's seat.
    Action {
        /// Chosen by the client; echoed in the acknowledgement or rejection.
        request_id: String,
        /// The engine action.
        action: Action,
    },
    /// Say something to everyone in the room.
    Chat {
        /// At most [`MAX_CHAT_CHARS`] characters.
        text: String,
    },
    /// Liveness check; answered with `pong`.
    Ping {
        /// Echoed back.
        #[serde(default)]
        request_id: Option<String>,
    },
    /// Ask for a fresh `snapshot` (to this connection only), e.g. to decide from the
    /// whole current view instead of rebuilding it from events.
    Sync,
}

// ----- WebSocket: server to client -------------------------------------------

/// A message to a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The full state as this client may see it; always the first message.
    Snapshot(Box<Snapshot>),
    /// Events of one accepted action, redacted for this client.
    Events {
        /// Room-wide sequence number of this message.
        seq: u64,
        /// What happened, in order.
        events: Vec<Event>,
        /// The request id, only for the client whose action this was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        /// Deadline of the current phase (Unix ms), when the room has a turn timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline: Option<u64>,
        /// Expiry of each open trade offer (Unix ms).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        offer_deadlines: Vec<OfferDeadline>,
        /// The actions this client's seat may take now (absent when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal: Vec<Action>,
    },
    /// The client's action was refused; nothing changed.
    Rejected {
        /// The request id of the refused action.
        request_id: String,
        /// Stable machine-readable code.
        code: String,
        /// Human-readable explanation.
        message: String,
    },
    /// A message that could not be processed at all (malformed, too large, flood...).
    Error {
        /// Stable machine-readable code.
        code: String,
        /// Human-readable explanation.
        message: String,
    },
    /// A chat line.
    Chat {
        /// Room-wide sequence number.
        seq: u64,
        /// The speaker's seat; absent for spectators.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// The speaker's display name.
        name: String,
        /// The text.
        text: String,
    },
    /// A seat's connection came or went.
    Presence {
        /// Room-wide sequence number.
        seq: u64,
        /// The seat.
        seat: Seat,
        /// Whether a client is connected to it now.
        connected: bool,
    },
    /// The room changed outside the game (seat taken or left, bot added, started).
    Room {
        /// Room-wide sequence number.
        seq: u64,
        /// The room now.
        room: RoomInfo,
    },
    /// Sent after the missed messages of a reconnect: the client is up to date as of
    /// `seq`, and here is what it may do now.
    Resumed {
        /// Sequence number of the last message the client now has.
        seq: u64,
        /// The actions this client's seat may take now.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal: Vec<Action>,
        /// Deadline of the current phase (Unix ms), when the room has a turn timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline: Option<u64>,
        /// Expiry of each open trade offer (Unix ms).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        offer_deadlines: Vec<OfferDeadline>,
    },
    /// The game ended: final scores with VP cards revealed and the seed.
    GameOver(GameOverInfo),
    /// Answer to `ping`.
    Pong {
        /// The ping's request id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// The server is about to close this connection, and why.
    Closing {
        /// Stable machine-readable reason.
        code: String,
        /// Human-readable explanation.
        message: String,
    },
}

/// The first message on every connection, and the answer to a reconnect that is
/// too far behind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// [`PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// The room, its seats and their connection status.
    pub room: RoomInfo,
    /// The client's seat; absent for spectators.
    pub you: Option<Seat>,
    /// Sequence number of the last message included in this snapshot.
    pub seq: u64,
    /// The game as this client may see it, once started.
    pub view: Option<GameView>,
    /// Actions this client may take now.
    pub legal: Vec<Action>,
    /// Deadline of the current phase (Unix ms), when the room has a turn timer.
    pub deadline: Option<u64>,
    /// Expiry of each open trade offer (Unix ms).
    pub offer_deadlines: Vec<OfferDeadline>,
    /// The result, once the game is over.
    pub game_over: Option<GameOverInfo>,
}

/// When a trade offer expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferDeadline {
    /// The offer.
    pub offer: OfferId,
    /// Expiry time, Unix ms.
    pub deadline: u64,
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOverInfo {
    /// Room-wide sequence number.
    pub seq: u64,
    /// The winner.
    pub winner: Seat,
    /// Every seat's total, VP cards revealed.
    pub scores: Vec<FinalScore>,
    /// The game's seed, revealed only now, as a decimal string (it exceeds 2^53).
    pub seed: String,
    /// The salt of the seed commitment, revealed with the seed.
    pub seed_salt: String,
}

// ----- HTTP lobby --------------------------------------------------------------

/// `POST /api/rooms`: the new room's options; every field may be left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRoomRequest {
    /// 3 or 4 (default 4).
    #[serde(default = "default_players")]
    pub players: u8,
    /// 3..=20 (default 10).
    #[serde(default = "default_target")]
    pub vp_target: u8,
    /// `random` (default) or `beginner`.
    #[serde(default)]
    pub map: MapKind,
    /// Seconds per phase; 0 turns the turn timer off. Default: the server's.
    #[serde(default)]
    pub turn_timer_secs: Option<u32>,
    /// Seconds before a trade offer expires. Default: the server's.
    #[serde(default)]
    pub trade_timeout_secs: Option<u32>,
    /// Seconds to discard after a 7; 0 turns it off. Default: the server's.
    #[serde(default)]
    pub discard_timeout_secs: Option<u32>,
    /// Shown in the public room list (default true).
    #[serde(default = "yes")]
    pub listed: bool,
    /// Spectators may watch (default true).
    #[serde(default = "yes")]
    pub spectators: bool,
}

const fn default_players() -> u8 {
    4
}
const fn default_target() -> u8 {
    10
}
const fn yes() -> bool {
    true
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

/// A room's public description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats are being taken.
    Lobby,
    /// The game is on.
    Playing,
    /// The game is over.
    Finished,
}

/// A room's settled options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomOptions {
    /// 3 or 4 seats.
    pub players: u8,
    /// Victory points to win.
    pub vp_target: u8,
    /// Map kind.
    pub map: MapKind,
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
}

/// One seat of a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The seat index, which is also turn order.
    pub seat: Seat,
    /// Who sits here, if anyone.
    pub occupant: Option<Occupant>,
    /// Whether a client (or bot) is connected now.
    pub connected: bool,
}

/// Who sits on a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupant {
    /// Display name.
    pub name: String,
    /// The bot kind, for a built-in bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
}

/// Kinds of built-in bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Picks uniformly among its legal actions (no player trades).
    #[default]
    Random,
    /// Plays to win from its own view (`catan_bots::HeuristicBot`).
    Heuristic,
}

/// `GET /api/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomList {
    /// Listed rooms, newest first.
    pub rooms: Vec<RoomInfo>,
}

/// `POST /api/rooms/{id}/seats` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TakeSeatRequest {
    /// Display name, 1 to [`MAX_NAME_CHARS`] characters.
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

/// WebSocket close codes the server uses (documented in protocol.md).
pub mod close {
    /// The server is shutting down.
    pub const GOING_AWAY: u16 = 1001;
    /// Another connection took over this seat.
    pub const REPLACED: u16 = 4000;
    /// The client sent messages faster than the rate limit, repeatedly.
    pub const RATE_LIMITED: u16 = 4008;
    /// The client did not read its messages fast enough.
    pub const TOO_SLOW: u16 = 4009;
    /// The room was closed.
    pub const ROOM_CLOSED: u16 = 4010;
    /// An administrator disconnected this client.
    pub const KICKED: u16 = 4011;
}
