//! The wire vocabulary of `catan-server`: every type that crosses the wire, and
//! nothing else. A client (the reference client `catan-client`, a bot, a test, any
//! Rust program) depends on this crate and the engine, not on the server.
//!
//! protocol.md documents every message with an example; the server's tests parse
//! those examples into these types.
//!
//! # Layout
//!
//! - [`ws`]: WebSocket messages, one enum per direction ([`ClientMessage`],
//!   [`ServerMessage`]), and what they carry ([`Snapshot`], [`GameOverInfo`]...).
//! - [`room`]: a room's description, [`RoomOptions`] (the engine's
//!   [`catan_engine::GameOptions`] held once, plus the room's timers), seats and
//!   [`BotKind`].
//! - [`days`]: the clock of a game over days ([`DaysOptions`]) and each seat's
//!   ([`SeatClock`]).
//! - [`lobby`]: the HTTP bodies and queries of the lobby and the game history, and
//!   [`ErrorBody`], the one error body of every HTTP endpoint.
//! - [`admin`]: the admin API's bodies (unredacted, for administrators only).
//! - [`board`]: [`BoardGeometry`], the board's fixed geometry (`GET /api/board`).
//! - [`schema`]: all of the above as one JSON Schema (and TypeScript declarations
//!   generated from it), committed and served at `GET /api/schema.json`.
//! - [`codes`]: every code outside the engine's: [`ErrorCode`] (`error` and the
//!   room's `rejected`), [`ClosingReason`] (`closing`), [`CloseCode`] (WebSocket
//!   close frames) and [`LobbyError`] (HTTP), each with `code()` and a list of all
//!   (derived from the variants, except [`LobbyError`]'s, whose variants carry data).
//! - [`text`]: the rules for text people choose, display names and chat
//!   ([`text::clean_name`], [`text::clean_chat`]), and the key that makes account
//!   names unique ([`text::name_key`]).
//! - [`players`]: the bodies of the player calls (guests, accounts, sessions).
//! - [`notify`]: notifications: the channels a player opts into, the Web Push
//!   key, the administrators' delivery log (protocol.md 27.6).
//!
//! ```
//! use catan_protocol::{ClientMessage, ServerMessage, ErrorCode};
//!
//! let msg: ClientMessage = serde_json::from_str(r#"{"type":"sync"}"#).unwrap();
//! assert_eq!(msg, ClientMessage::Sync);
//! let err = ServerMessage::error(ErrorCode::RateLimited, "slow down");
//! assert_eq!(
//!     serde_json::to_string(&err).unwrap(),
//!     r#"{"type":"error","code":"rate_limited","message":"slow down"}"#
//! );
//! ```

pub mod admin;
pub mod board;
pub mod codes;
pub mod days;
pub mod lobby;
pub mod notify;
pub mod players;
pub mod room;
pub mod schema;
pub mod text;
pub mod ws;

pub use admin::{
    AdminPlayer, AdminPlayerDetail, AdminPlayerList, AdminPlayerQuery, AdminRoomDetail,
    AdminRoomList, AdminRoomSummary, CloseRoomRequest, CloseRoomResponse, InspectQuery,
    KickRequest, ModerationAction, ModerationEntry, ModerationRequest, RoomCounts, Sanction,
    ServerStats, StoreHealth,
};
pub use board::{BoardGeometry, EdgeGeometry, TileGeometry, VertexGeometry};
pub use codes::{CloseCode, ClosingReason, ErrorCode, LobbyError};
pub use days::{
    DAYS_MAX_HOURS, DAYS_MAX_VACATION, DAYS_PRESETS, DAYS_TIME_OUTS_REPLACED, DaysOptions,
    DaysRequest, MyGame, MyGames, SeatClock,
};
pub use lobby::{
    AddBotRequest, AddBotResponse, CreateRoomRequest, CreateRoomResponse, ErrorBody, ErrorDetail,
    GameList, GameListQuery, GameStatus, GameSummary, PlayerResult, RatingChange, RematchResponse,
    Replay, ReplayStep, RoomList, RoomListQuery, TakeSeatRequest, TakeSeatResponse, WsQuery,
    parse_body,
};
pub use notify::{
    AdminNotice, AdminNoticeList, NoticeKind, NoticeLang, NotifyChannelInfo, NotifyChannelList,
    NotifyChannelRequest, NotifyTarget, VapidKey, WebhookFormat,
};
pub use players::{
    ClaimRequest, GuestRequest, Leaderboard, LeaderboardEntry, LeaderboardQuery, PartyInfo,
    PartyMember, PasskeyChallenge, PasskeyInfo, PasskeyList, PasskeyRegistrationRequest,
    PasskeySignInRequest, PlayerInfo, PlayerProfile, ProfileQuery, QueueClientMessage,
    QueueRequest, QueueSeated, QueueServerMessage, QueueStatus, RatingInfo, RenameRequest,
    SessionInfo, SessionList, SignInRequest, SignedIn,
};
pub use room::{
    BotKind, DEFAULT_DISCARD_TIMEOUT_SECS, DEFAULT_STAND_IN_SECS, DEFAULT_TRADE_TIMEOUT_SECS,
    DEFAULT_TURN_TIMER_SECS, MAX_TIMER_SECS, Occupant, RoomInfo, RoomOptions, RoomOptionsError,
    RoomStatus, SeatInfo, UnknownBotKind,
};
pub use text::TextError;
pub use ws::{
    ClientMessage, GameOverInfo, History, HistoryActions, HistoryChat, OfferDeadline, ParseError,
    ServerMessage, Snapshot,
};

/// Version of this protocol, sent in every snapshot. Bumped on incompatible changes.
pub const PROTOCOL_VERSION: u32 = 1;

/// The protocol versions this crate (and a server built with it) speaks: a client
/// may ask for one of them with `?protocol=` on the WebSocket.
pub const SUPPORTED_PROTOCOL_VERSIONS: [u32; 1] = [PROTOCOL_VERSION];

/// Whether `version` is one of [`SUPPORTED_PROTOCOL_VERSIONS`].
#[must_use]
pub fn protocol_supported(version: u32) -> bool {
    SUPPORTED_PROTOCOL_VERSIONS.contains(&version)
}

/// Longest chat message in characters.
pub const MAX_CHAT_CHARS: usize = 500;
/// Longest display name in characters.
pub const MAX_NAME_CHARS: usize = 32;
/// Longest client request id in bytes.
pub const MAX_REQUEST_ID_BYTES: usize = 64;
