//! Players who last beyond one room (docs/protocol/25-players.md): a guest made
//! without a form, an account when the guest claims its name with a password,
//! sessions (a browser's HttpOnly cookie or an app's bearer token, kept only as
//! digests) that can be listed and revoked; passkeys beside an account's password.
//!
//! # Layout
//!
//! - `mod.rs`: [`Players`], the service the handlers call (passwords, sessions,
//!   sign-in limits), and [`PlayersConfig`].
//! - [`api`]: the HTTP handlers and the [`api::Me`] extractor.
//! - [`password`]: Argon2id hashing and verification off the async threads.
//! - [`passkeys`]: WebAuthn passkeys, registered by accounts, signing in without
//!   a name.
//! - [`ratings`]: profiles and the leaderboard (the ratings themselves are kept
//!   by the store, updated with each rated result: `crate::store`).
//! - [`sanctions`]: the bans and mutes in force, as the rooms read them
//!   (administrators impose them: `crate::admin`).
//! - [`enforce`]: their reload from the store, and the disconnection of a player
//!   newly banned from this instance's rooms.

pub mod api;
pub mod enforce;
pub mod passkeys;
pub mod password;
pub mod ratings;
pub mod sanctions;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use catan_protocol::{LobbyError, PasskeyChallenge, PlayerInfo, SessionInfo, text};
use uuid::Uuid;

use crate::limits::{AddressLimiter, KeyedLimiter};
use crate::store::{Claim, PlayerRow, SanctionKind, SessionRow, Store, StoreError};
use crate::token::TokenHash;

/// The name of the session cookie.
pub const COOKIE: &str = "catan_session";

/// Fewest and most characters of a password.
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;

/// How players and their sessions are kept (flags and variables of the server).
#[derive(Clone, Debug, clap::Args)]
pub struct PlayersConfig {
    /// Days a session lasts (a browser's cookie or an app's bearer token) before
    /// its player must sign in again (a guest, whose session is its only key,
    /// should claim an account before then).
    #[arg(long, env = "CATAN_SESSION_DAYS", default_value_t = 180)]
    pub session_days: u64,

    /// Sign-in attempts a client address may make per minute on average; beyond it
    /// they are refused with `429` `rate_limited`. 0 turns the limit off.
    #[arg(long, env = "CATAN_SIGN_IN_RATE_PER_MIN", default_value_t = 5)]
    pub sign_in_rate_per_min: u32,

    /// Sign-in attempts a client address may make at once (the bucket's size).
    #[arg(long, env = "CATAN_SIGN_IN_BURST", default_value_t = 10)]
    pub sign_in_burst: u32,

    /// Sign-in attempts per hour on average for one account name, from all
    /// addresses together (bursts of `--sign-in-burst`); beyond it they are refused
    /// with `429` `rate_limited`, whether the name exists or not. 0 turns it off.
    #[arg(long, env = "CATAN_SIGN_IN_PER_ACCOUNT_PER_HOUR", default_value_t = 30)]
    pub sign_in_per_account_per_hour: u32,
}

impl PlayersConfig {
    /// How long a session lasts.
    #[must_use]
    pub fn session_length(&self) -> Duration {
        Duration::from_secs(self.session_days.saturating_mul(86_400))
    }
}

/// Why a player call failed: an answer for the client, or the store.
fn stored(e: StoreError) -> LobbyError {
    match e {
        StoreError::Conflict(_) => LobbyError::NameTaken,
        other => {
            tracing::warn!(error = %other, "player store call failed");
            LobbyError::StoreUnavailable
        }
    }
}

/// A fresh session token: `cs_` and 256 random bits as 64 hex digits (told apart
/// from seat and host tokens by its prefix).
fn new_session_token() -> String {
    let bits: [u8; 32] = rand::random();
    let hex: String = bits.iter().map(|b| format!("{b:02x}")).collect();
    format!("cs_{hex}")
}

/// The current time in Unix milliseconds.
pub(crate) fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis(),
    )
    .unwrap_or(u64::MAX)
}

/// A player as they see themselves.
#[must_use]
pub fn info(p: &PlayerRow) -> PlayerInfo {
    PlayerInfo {
        id: p.id,
        name: p.name.clone(),
        account: p.password_hash.is_some(),
        created_at: p.created_at,
    }
}

pub(crate) fn session_info(s: &SessionRow, current: Option<Uuid>) -> SessionInfo {
    SessionInfo {
        id: s.id,
        label: s.label.clone(),
        created_at: s.created_at,
        expires_at: s.expires_at,
        current: current == Some(s.id),
    }
}

/// A signed-in player: the session of the call and its player.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session.
    pub session: SessionRow,
    /// Its player.
    pub player: PlayerRow,
}

/// The players service.
pub struct Players {
    store: Arc<dyn Store>,
    config: PlayersConfig,
    by_address: AddressLimiter,
    by_name: KeyedLimiter<String>,
    /// A hash verified against when no account has the name given, so that a
    /// wrong name costs what a wrong password does (made at the first sign-in).
    dummy: tokio::sync::OnceCell<String>,
    /// The bans and mutes in force.
    sanctions: Arc<sanctions::Sanctions>,
    /// The accounts' passkeys.
    passkeys: passkeys::Passkeys,
}

impl std::fmt::Debug for Players {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Players")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Players {
    /// The service over `store`, for a server reached at `public_origins` (the
    /// passkeys' domain).
    #[must_use]
    pub fn new(store: Arc<dyn Store>, config: PlayersConfig, public_origins: &[String]) -> Players {
        Players {
            passkeys: passkeys::Passkeys::new(store.clone(), public_origins),
            by_address: AddressLimiter::new(config.sign_in_rate_per_min, config.sign_in_burst),
            by_name: KeyedLimiter::per_hour(
                config.sign_in_per_account_per_hour,
                config.sign_in_burst,
            ),
            dummy: tokio::sync::OnceCell::new(),
            sanctions: Arc::default(),
            store,
            config,
        }
    }

    /// The bans and mutes in force, as the rooms read them.
    #[must_use]
    pub fn sanctions(&self) -> &Arc<sanctions::Sanctions> {
        &self.sanctions
    }

    /// How long a session lasts.
    #[must_use]
    pub fn session_length(&self) -> Duration {
        self.config.session_length()
    }

    /// Opens a session for `player`; returns it with its token.
    async fn open(
        &self,
        player: &PlayerRow,
        label: &str,
    ) -> Result<(SessionRow, String), LobbyError> {
        let token = new_session_token();
        let now = now_ms();
        let length = u64::try_from(self.session_length().as_millis()).unwrap_or(u64::MAX);
        let session = SessionRow {
            id: Uuid::new_v4(),
            player_id: player.id,
            label: label.to_owned(),
            created_at: now,
            expires_at: now.saturating_add(length),
        };
        self.store
            .create_session(&session, TokenHash::of(&token).as_str())
            .await
            .map_err(stored)?;
        Ok((session, token))
    }

    /// Creates a guest named `name` and its first session.
    ///
    /// # Errors
    /// `invalid_name`, `store_unavailable`.
    pub async fn create_guest(
        &self,
        name: &str,
        label: &str,
    ) -> Result<(PlayerRow, SessionRow, String), LobbyError> {
        let name = text::clean_name(name).map_err(|_| LobbyError::InvalidName)?;
        let player = PlayerRow {
            id: Uuid::new_v4(),
            name,
            password_hash: None,
            created_at: now_ms(),
            deleted: false,
        };
        self.store.create_player(&player).await.map_err(stored)?;
        let (session, token) = self.open(&player, label).await?;
        Ok((player, session, token))
    }

    /// The session whose token is `token`, with its player.
    ///
    /// # Errors
    /// `not_signed_in` when no unexpired session has it, `store_unavailable`.
    pub async fn session(&self, token: &str) -> Result<Session, LobbyError> {
        match self
            .store
            .session(TokenHash::of(token).as_str(), now_ms())
            .await
            .map_err(stored)?
        {
            Some((session, player)) => Ok(Session { session, player }),
            None => Err(LobbyError::NotSignedIn),
        }
    }

    /// Makes the guest of `me` an account named `name` with `password`.
    ///
    /// # Errors
    /// `already_claimed`, `invalid_name`, `invalid_password`, `name_taken`,
    /// `store_unavailable`.
    pub async fn claim(
        &self,
        me: &Session,
        name: &str,
        password: &str,
    ) -> Result<PlayerRow, LobbyError> {
        if me.player.password_hash.is_some() {
            return Err(LobbyError::AlreadyClaimed);
        }
        let name = text::clean_account_name(name).map_err(|_| LobbyError::InvalidName)?;
        if !PASSWORD_CHARS.contains(&password.chars().count()) {
            return Err(LobbyError::InvalidPassword);
        }
        let hash = password::hash(password.to_owned()).await?;
        let key = text::name_key(&name);
        match self
            .store
            .claim(me.player.id, &name, &key, &hash, now_ms())
            .await
            .map_err(stored)?
        {
            Claim::Claimed => Ok(PlayerRow {
                name,
                password_hash: Some(hash),
                ..me.player.clone()
            }),
            Claim::AlreadyClaimed => Err(LobbyError::AlreadyClaimed),
        }
    }

    /// Renames the player of `me`.
    ///
    /// # Errors
    /// `invalid_name`, `name_taken` (an account's new name), `store_unavailable`.
    pub async fn rename(&self, me: &Session, name: &str) -> Result<PlayerRow, LobbyError> {
        let account = me.player.password_hash.is_some();
        let name = if account {
            text::clean_account_name(name)
        } else {
            text::clean_name(name)
        }
        .map_err(|_| LobbyError::InvalidName)?;
        let key = account.then(|| text::name_key(&name));
        self.store
            .rename_player(me.player.id, &name, key.as_deref())
            .await
            .map_err(stored)?;
        Ok(PlayerRow {
            name,
            ..me.player.clone()
        })
    }

    /// Signs in to the account named `name` from `addr`: counted per address and
    /// per name (whether an account has it or not); a wrong name and a wrong
    /// password take the same work and get the same answer.
    ///
    /// # Errors
    /// `rate_limited`, `invalid_credentials`, `banned` (after the password
    /// check), `store_unavailable`.
    pub async fn sign_in(
        &self,
        addr: IpAddr,
        name: &str,
        password: &str,
        label: &str,
    ) -> Result<(PlayerRow, SessionRow, String), LobbyError> {
        self.by_address.check(addr)?;
        let key = text::name_key(name);
        self.by_name.check(key.clone())?;
        let account = self.store.account(&key).await.map_err(stored)?;
        let stored_hash = match account.as_ref().and_then(|a| a.password_hash.clone()) {
            Some(hash) => hash,
            None => self
                .dummy
                .get_or_try_init(|| password::hash(new_session_token()))
                .await?
                .clone(),
        };
        let right = password::verify(password.to_owned(), stored_hash).await?;
        let Some(player) = account.filter(|a| right && a.password_hash.is_some()) else {
            return Err(LobbyError::InvalidCredentials);
        };
        self.admit(player, label).await
    }

    /// Opens a session for `player`, whose credentials were right, unless banned.
    async fn admit(
        &self,
        player: PlayerRow,
        label: &str,
    ) -> Result<(PlayerRow, SessionRow, String), LobbyError> {
        // Told only to whoever proved to be the player (the store, not the copy:
        // it is current in a cluster too).
        let sanctions = self
            .store
            .sanctions(Some(player.id), now_ms())
            .await
            .map_err(stored)?;
        if sanctions.iter().any(|s| s.kind == SanctionKind::Ban) {
            return Err(LobbyError::Banned);
        }
        let (session, token) = self.open(&player, label).await?;
        Ok((player, session, token))
    }

    /// Starts a sign-in with a passkey from `addr` (counted as a sign-in attempt
    /// of that address).
    ///
    /// # Errors
    /// `rate_limited`, `passkeys_unavailable`, `store_unavailable`.
    pub async fn passkey_sign_in_start(
        &self,
        addr: IpAddr,
    ) -> Result<PasskeyChallenge, LobbyError> {
        self.by_address.check(addr)?;
        self.passkeys.sign_in_start().await
    }

    /// Finishes a sign-in with a passkey: the account's new session.
    ///
    /// # Errors
    /// `passkeys_unavailable`, `invalid_credentials`, `banned`, `store_unavailable`.
    pub async fn passkey_sign_in_finish(
        &self,
        ceremony: Uuid,
        credential: serde_json::Value,
        label: &str,
    ) -> Result<(PlayerRow, SessionRow, String), LobbyError> {
        let player = self.passkeys.sign_in_finish(ceremony, credential).await?;
        self.admit(player, label).await
    }

    /// The accounts' passkeys (registering, listing, removing them).
    #[must_use]
    pub fn passkeys(&self) -> &passkeys::Passkeys {
        &self.passkeys
    }

    /// The unexpired sessions of `me`'s player, newest first, `me`'s marked.
    ///
    /// # Errors
    /// `store_unavailable`.
    pub async fn sessions(&self, me: &Session) -> Result<Vec<SessionInfo>, LobbyError> {
        let list = self
            .store
            .sessions(me.player.id, now_ms())
            .await
            .map_err(stored)?;
        Ok(list
            .iter()
            .map(|s| session_info(s, Some(me.session.id)))
            .collect())
    }

    /// Ends session `id` of `me`'s player.
    ///
    /// # Errors
    /// `session_not_found`, `store_unavailable`.
    pub async fn end_session(&self, me: &Session, id: Uuid) -> Result<(), LobbyError> {
        if self
            .store
            .end_session(me.player.id, id)
            .await
            .map_err(stored)?
        {
            Ok(())
        } else {
            Err(LobbyError::SessionNotFound)
        }
    }

    /// Ends every session of `me`'s player (signing out everywhere).
    ///
    /// # Errors
    /// `store_unavailable`.
    pub async fn end_sessions(&self, me: &Session) -> Result<(), LobbyError> {
        self.store
            .end_sessions(me.player.id)
            .await
            .map_err(stored)?;
        Ok(())
    }

    /// Deletes `me`'s player: sessions ended, name replaced in every stored game.
    ///
    /// # Errors
    /// `store_unavailable`.
    pub async fn delete(&self, me: &Session) -> Result<(), LobbyError> {
        self.store
            .delete_player(me.player.id, now_ms())
            .await
            .map_err(stored)
    }
}

/// The session as the API shows it.
#[must_use]
pub fn shown(session: &SessionRow) -> SessionInfo {
    session_info(session, Some(session.id))
}
