//! The JSON bodies of the admin API (protocol.md, "Admin API"). Unlike the public
//! protocol these are unredacted: administrators see hands, decks and the seed.

use catan_engine::{Game, GameView, Phase, TradeOffer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::players::{PlayerProfile, SessionInfo};
use crate::room::{RoomOptions, RoomStatus, SeatInfo};
use crate::ws::{GameOverInfo, OfferDeadline, ServerMessage};

/// `GET /admin/rooms` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdminRoomList {
    /// Every room the server holds, listed or not, newest first.
    pub rooms: Vec<AdminRoomSummary>,
}

/// One room as an administrator sees it in the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdminRoomSummary {
    /// The room's id.
    pub id: Uuid,
    /// `lobby`, `playing` or `finished`.
    pub status: RoomStatus,
    /// The game's current step, once started.
    pub phase: Option<Phase>,
    /// The room's options (whether it is listed among them).
    pub options: RoomOptions,
    /// Each seat: who sits there (name; `bot` for a built-in bot) and whether a
    /// client is connected.
    pub seats: Vec<SeatInfo>,
    /// Spectator connections.
    pub spectators: usize,
    /// Creation time, Unix ms.
    pub created_at: u64,
    /// When the room last served a request other than a read (a seat taken, a
    /// connection, an action, a chat line...), Unix ms.
    pub last_activity: u64,
    /// The room's last broadcast sequence number.
    pub seq: u64,
    /// Actions in the game's log.
    pub actions: u64,
}

/// `GET /admin/rooms/{id}` answer: the room with its unredacted engine state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdminRoomDetail {
    /// The room as listed.
    pub room: AdminRoomSummary,
    /// The published seed commitment, once started.
    pub seed_commitment: Option<String>,
    /// The engine's complete `Game`, as the engine serializes it, once started.
    pub game: Option<Box<Game>>,
    /// Open trade offers.
    pub offers: Vec<TradeOffer>,
    /// Deadline of the current phase (Unix ms), when a timer runs.
    pub deadline: Option<u64>,
    /// Expiry of each open trade offer (Unix ms).
    pub offer_deadlines: Vec<OfferDeadline>,
    /// The result, once the game is over.
    pub game_over: Option<GameOverInfo>,
    /// The last broadcasts (at most `?events=`, default 50), oldest first, with
    /// game events unredacted.
    pub events: Vec<ServerMessage>,
    /// With `?view=N`: the engine's view of the game for seat `N`
    /// (`Game::view`), what that seat's client should show; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<GameView>>,
}

/// `POST /admin/rooms/{id}/close` body (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseRoomRequest {
    /// Sent to every client in the `closing` message; a default says an
    /// administrator closed the room.
    #[serde(default)]
    pub message: Option<String>,
}

/// `POST /admin/rooms/{id}/close` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CloseRoomResponse {
    /// The room closed.
    pub room_id: Uuid,
    /// Its status when it was closed.
    pub status: RoomStatus,
    /// Connections (clients, spectators and bots) that were closed.
    pub connections_closed: usize,
    /// Whether an unfinished game was marked abandoned in the store, so that it is
    /// not restored after a restart (false for rooms without a game in progress,
    /// and if the store could not be reached).
    pub game_abandoned: bool,
}

/// `POST /admin/rooms/{id}/seats/{seat}/kick` body (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KickRequest {
    /// Sent to the client in the `closing` message; a default says an
    /// administrator disconnected it.
    #[serde(default)]
    pub message: Option<String>,
}

/// `GET /admin/stats` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerStats {
    /// Seconds since the server started.
    pub uptime_secs: u64,
    /// Rooms held, by status.
    pub rooms: RoomCounts,
    /// Open WebSocket connections (bots are not counted: they run inside).
    pub connections: u64,
    /// Games won since the server started.
    pub games_finished: u64,
    /// Actions applied since the server started.
    pub actions_applied: u64,
    /// Whether the game store answers now.
    pub store: StoreHealth,
}

/// Rooms by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoomCounts {
    /// Rooms whose seats are being taken.
    pub lobby: u64,
    /// Rooms with a game in progress.
    pub playing: u64,
    /// Rooms whose game is over.
    pub finished: u64,
}

/// The store's health as last checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StoreHealth {
    /// The database answered.
    Ok,
    /// The database did not answer.
    Unavailable,
}

/// Query of `GET /admin/rooms/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectQuery {
    /// How many of the last broadcasts to include (default 50; at most what the room
    /// keeps, `--event-backlog`).
    #[serde(default)]
    pub events: Option<usize>,
    /// A seat whose engine view to include (`view` in the answer).
    #[serde(default)]
    pub view: Option<u8>,
    /// With `view`: the view as of this broadcast (the game replayed from its start
    /// through every action announced at or before it) instead of now.
    #[serde(default)]
    pub at_seq: Option<u64>,
}

/// What an administrator may do to a player (protocol 22.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModerationAction {
    /// Sessions end, connected seats are disconnected and may not reconnect,
    /// signing in is refused (`banned`).
    Ban,
    /// The ban is lifted.
    Unban,
    /// Chat from the player's seats is refused (`muted`).
    Mute,
    /// The mute is lifted.
    Unmute,
}

/// A ban or a mute in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Sanction {
    /// Since when (Unix ms).
    pub since: u64,
    /// Until when (Unix ms); `null` until an administrator lifts it.
    pub until: Option<u64>,
    /// The reason the administrator gave.
    pub reason: String,
}

/// A player as an administrator sees them (never a password, its hash or a
/// session token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminPlayer {
    /// The player's id.
    pub id: Uuid,
    /// Display name ("deleted player" once deleted).
    pub name: String,
    /// Whether the player claimed an account (a guest otherwise).
    pub account: bool,
    /// Whether the player deleted itself.
    pub deleted: bool,
    /// When the player was created (Unix ms).
    pub created_at: u64,
    /// The ban in force, if any.
    pub banned: Option<Sanction>,
    /// The mute in force, if any.
    pub muted: Option<Sanction>,
}

/// `GET /admin/players` answer: a page of players, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminPlayerList {
    /// The page.
    pub players: Vec<AdminPlayer>,
    /// Players skipped before the page.
    pub offset: u64,
    /// All the players the query matches.
    pub total: u64,
}

/// Query of `GET /admin/players`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminPlayerQuery {
    /// Only players whose name contains this (any case).
    #[serde(default)]
    pub name: Option<String>,
    /// Players to skip (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Players in the page (default 50, at most 100).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// One entry of a player's moderation record (the audit log), newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModerationEntry {
    /// What was done.
    pub action: ModerationAction,
    /// The reason given.
    pub reason: String,
    /// For a ban or mute: until when (Unix ms); `null` until lifted.
    pub until: Option<u64>,
    /// Who took it: the name the administrator gave (`by`), or `admin`.
    pub by: String,
    /// When (Unix ms).
    pub at: u64,
}

/// `GET /admin/players/{id}` answer: the player, their sessions (ids and labels,
/// never tokens), their profile (rating, record, recent games) and their
/// moderation record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdminPlayerDetail {
    /// The player.
    pub player: AdminPlayer,
    /// The profile anyone may see, with the newest 20 games.
    pub profile: PlayerProfile,
    /// Unexpired sessions, newest first (`current` is always false here).
    pub sessions: Vec<SessionInfo>,
    /// Every moderation action taken on the player, newest first.
    pub moderation: Vec<ModerationEntry>,
}

/// `POST /admin/players/{id}/{ban,unban,mute,unmute}` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModerationRequest {
    /// Why, for the record: 1 to 500 characters.
    pub reason: String,
    /// For a ban or a mute: how many hours it lasts (1 to 87,600); left out, it
    /// lasts until lifted. Not taken by unban and unmute.
    #[serde(default)]
    pub hours: Option<u64>,
    /// Who takes it, for the record (1 to 32 characters; the admin API has one
    /// token, so administrators name themselves); left out: `admin`.
    #[serde(default)]
    pub by: Option<String>,
}
