//! The JSON bodies of the player calls (`/api/guests`, `/api/me...`,
//! `/api/sessions...`; docs/protocol/25-players.md): a person who lasts beyond one
//! room, as a guest first and an account when they want one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{BotKind, GameSummary};

/// `POST /api/guests` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestRequest {
    /// Display name, 1 to [`crate::MAX_NAME_CHARS`] characters (the rules of
    /// [`crate::text::clean_name`]).
    pub name: String,
}

/// `POST /api/me/claim` body: the name the account takes (unique among accounts,
/// case and look-alike forms aside) and its password.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    /// The account's display name (the rules of [`crate::text::clean_account_name`]).
    pub name: String,
    /// 8 to 128 characters.
    pub password: String,
}

/// `POST /api/sessions` body: signing in to an account.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SignInRequest {
    /// The account's name (any case or look-alike form of it).
    pub name: String,
    /// Its password.
    pub password: String,
}

/// `PUT /api/me/name` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameRequest {
    /// The new display name.
    pub name: String,
}

macro_rules! no_secrets_in_debug {
    ($ty:ident) => {
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("name", &self.name)
                    .finish_non_exhaustive()
            }
        }
    };
}
no_secrets_in_debug!(ClaimRequest);
no_secrets_in_debug!(SignInRequest);

/// A player as they see themselves (`GET /api/me`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerInfo {
    /// The player's id.
    pub id: Uuid,
    /// Display name.
    pub name: String,
    /// Whether the player claimed an account (a guest otherwise).
    pub account: bool,
    /// When the player was created (Unix milliseconds).
    pub created_at: u64,
}

/// A session of the player (`GET /api/sessions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    /// The session's id (to revoke it; not its token).
    pub id: Uuid,
    /// What it was opened from (the client's `User-Agent`, shortened).
    pub label: String,
    /// When it was opened (Unix milliseconds).
    pub created_at: u64,
    /// When it ends (Unix milliseconds).
    pub expires_at: u64,
    /// Whether it is the session of the call that lists them.
    pub current: bool,
}

/// The answer to creating a guest or signing in: the player, the new session, and
/// its token, given this once (a browser also gets it as an HttpOnly cookie).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SignedIn {
    /// Who is signed in.
    pub player: PlayerInfo,
    /// The session opened.
    pub session: SessionInfo,
    /// The session's bearer token (`Authorization: Bearer ...`).
    pub token: String,
}

impl std::fmt::Debug for SignedIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedIn")
            .field("player", &self.player)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// `GET /api/sessions` answer, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionList {
    /// The player's unexpired sessions.
    pub sessions: Vec<SessionInfo>,
}

/// The answer that starts a passkey ceremony (protocol 25.10): registering one
/// (`POST /api/me/passkeys/start`) or signing in with one
/// (`POST /api/sessions/passkey/start`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PasskeyChallenge {
    /// The ceremony's id, sent back with its finish (valid for 5 minutes, once).
    pub ceremony: Uuid,
    /// The options for the browser's WebAuthn call, as WebAuthn's JSON forms:
    /// `{"publicKey": PublicKeyCredentialCreationOptionsJSON}` to register (for
    /// `navigator.credentials.create`), `{"publicKey":
    /// PublicKeyCredentialRequestOptionsJSON}` to sign in (`navigator.credentials.get`);
    /// binary fields are base64url strings.
    pub options: serde_json::Value,
}

/// `POST /api/me/passkeys/finish` body: the new credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PasskeyRegistrationRequest {
    /// The ceremony's id, from its start.
    pub ceremony: Uuid,
    /// The authenticator's answer: `PublicKeyCredential.toJSON()` of the credential
    /// `navigator.credentials.create` made (a `RegistrationResponseJSON`).
    pub credential: serde_json::Value,
    /// What to call the passkey in the list (1 to 40 characters); the client's
    /// `User-Agent`, shortened, when left out.
    #[serde(default)]
    pub label: Option<String>,
}

/// `POST /api/sessions/passkey/finish` body: the signed challenge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PasskeySignInRequest {
    /// The ceremony's id, from its start.
    pub ceremony: Uuid,
    /// The authenticator's answer: `PublicKeyCredential.toJSON()` of the assertion
    /// `navigator.credentials.get` made (an `AuthenticationResponseJSON`).
    pub credential: serde_json::Value,
}

/// A passkey of the player (`GET /api/me/passkeys`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PasskeyInfo {
    /// The passkey's id (its WebAuthn credential id, base64url).
    pub id: String,
    /// What the player called it.
    pub label: String,
    /// When it was registered (Unix milliseconds).
    pub created_at: u64,
    /// When it last signed in (Unix milliseconds); `null` before its first use.
    pub last_used_at: Option<u64>,
}

/// `GET /api/me/passkeys` answer, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PasskeyList {
    /// The player's passkeys.
    pub passkeys: Vec<PasskeyInfo>,
}

/// `POST /api/queue` body: the table a player waits for (protocol 26.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueRequest {
    /// Seats at the table: 3 or 4.
    pub seats: u8,
    /// A rated table (default not).
    #[serde(default)]
    pub rated: bool,
    /// Whether bots may complete the table after a wait (default yes).
    #[serde(default = "yes")]
    pub bots: bool,
}

fn yes() -> bool {
    true
}

/// Where a queued player sits once their table formed.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QueueSeated {
    /// The table's room (its game starts once everyone at it is connected).
    pub room_id: Uuid,
    /// The player's seat.
    pub seat: u8,
    /// The seat's token, to connect (`/api/rooms/{room_id}/ws?token=`).
    pub token: String,
}

impl std::fmt::Debug for QueueSeated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueSeated")
            .field("room_id", &self.room_id)
            .field("seat", &self.seat)
            .finish_non_exhaustive()
    }
}

/// A player's place in the queue (`POST` and `GET /api/queue`; protocol 26.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QueueStatus {
    /// Seats at the table waited for.
    pub seats: u8,
    /// A rated table.
    pub rated: bool,
    /// Whether bots may complete it.
    pub bots: bool,
    /// When the player joined (Unix milliseconds).
    pub since: u64,
    /// Milliseconds waited so far (until seated).
    pub waited_ms: u64,
    /// The player's place among those waiting for the same table, longest waiting
    /// first (1: next); `null` once seated.
    pub position: Option<u32>,
    /// Where the player sits once the table formed; `null` while waiting.
    pub seated: Option<QueueSeated>,
}

/// What a client sends on the queue's socket (`GET /api/queue/ws`; protocol 26.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QueueClientMessage {
    /// Joins the queue for the table described, as `POST /api/queue`.
    Join(QueueRequest),
    /// Leaves the queue, as `DELETE /api/queue`.
    Leave,
}

/// What the server sends on the queue's socket (protocol 26.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QueueServerMessage {
    /// The player's place in the queue, or their seat once their table formed: sent
    /// on connecting, after each join, and whenever anything but the time waited
    /// changes.
    Status(QueueStatus),
    /// The player is not in the queue: sent on connecting, after leaving, and when
    /// they are dropped from a table (protocol 26.4).
    NotQueued,
    /// A message was refused; nothing changed.
    Error {
        /// Stable machine-readable code, as the HTTP call's (`bad_request`,
        /// `already_queued`, `rate_limited`, ...).
        code: String,
        /// Human-readable explanation.
        message: String,
    },
}

/// A member of a party (protocol 26.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PartyMember {
    /// The player's id.
    pub id: Uuid,
    /// Their name.
    pub name: String,
}

/// A party of the queue (`/api/queue/party`; protocol 26.3): friends seated together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PartyInfo {
    /// The code the leader shares (`POST /api/queue/party/{code}` joins).
    pub code: String,
    /// The player who queues the party.
    pub leader: Uuid,
    /// Its members, the leader first (at most three).
    pub members: Vec<PartyMember>,
}

/// A rating as shown (protocol 25.8): the conservative figure, whether it is still
/// provisional, and the rated games behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RatingInfo {
    /// The rating shown (a new player's is 1000).
    pub value: i32,
    /// Whether it is still too uncertain to mean much (few rated games).
    pub provisional: bool,
    /// Rated games played.
    pub games: u64,
}

/// A player as anyone may see them (`GET /api/players/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerProfile {
    /// The player's id.
    pub id: Uuid,
    /// Display name ("deleted player" once deleted).
    pub name: String,
    /// Whether the player claimed an account.
    pub account: bool,
    /// The level, for a built-in bot's identity (its rating is fixed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
    /// The rating.
    pub rating: RatingInfo,
    /// Finished games played, rated or not.
    pub games: u64,
    /// Of those, the games won.
    pub wins: u64,
    /// A page of the player's finished games in listed rooms, newest first (`offset`
    /// and `limit` of the query), each as `GET /api/games/{id}` shows it.
    pub recent: Vec<GameSummary>,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LeaderboardEntry {
    /// The place on the board (1 is first; players with equal ratings share it).
    pub rank: u64,
    /// The player's id.
    pub id: Uuid,
    /// Display name.
    pub name: String,
    /// The rating.
    pub rating: RatingInfo,
    /// Rated games won.
    pub wins: u64,
}

/// `GET /api/leaderboard` answer: a page of the players with a rated game, best
/// first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Leaderboard {
    /// The page.
    pub entries: Vec<LeaderboardEntry>,
    /// Entries skipped before the page.
    pub offset: u64,
    /// All the entries the query matches.
    pub total: u64,
}

/// Query of `GET /api/players/{id}`: the page of recent games.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileQuery {
    /// Games to skip, newest first (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Games in the page (default 20, at most 100).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// Query of `GET /api/leaderboard`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// Entries to skip (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Entries in the page (default 50, at most 100).
    #[serde(default)]
    pub limit: Option<u64>,
    /// Also list players whose rating is still provisional (default false).
    #[serde(default)]
    pub provisional: Option<bool>,
}
