//! The JSON bodies of the player calls (`/api/guests`, `/api/me...`,
//! `/api/sessions...`; docs/protocol/25-players.md): a person who lasts beyond one
//! room, as a guest first and an account when they want one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

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
