//! The HTTP error codes: why a request of the lobby, player, queue, history or
//! admin API, or a WebSocket upgrade, was refused (protocol.md 4).

use std::fmt;

/// Why an HTTP request (lobby, history or admin API) or a WebSocket upgrade was
/// refused: the body is [`crate::ErrorBody`] with [`LobbyError::code`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyError {
    /// No room has that id (or it is gone).
    RoomNotFound,
    /// The room has no free seat.
    RoomFull,
    /// The requested seat is taken.
    SeatTaken,
    /// The seat index is out of range.
    NoSuchSeat,
    /// The display name breaks the rules of [`crate::text::clean_name`].
    InvalidName,
    /// The room options are out of range.
    InvalidOptions(String),
    /// A host-only call without the right host token.
    NotHost,
    /// The seat token is missing or does not match.
    InvalidToken,
    /// The game has already started.
    AlreadyStarted,
    /// The game cannot start before every seat is taken.
    NotFull,
    /// The room does not allow spectators.
    SpectatorsNotAllowed,
    /// The server holds as many rooms as it may.
    TooManyRooms,
    /// The request body or query is malformed.
    BadRequest(String),
    /// The page's origin is not allowed to use this server.
    OriginNotAllowed,
    /// The server is shutting down.
    ShuttingDown,
    /// The database is unreachable; nothing was changed.
    StoreUnavailable,
    /// The game is still being played (replays are for finished games).
    GameNotFinished,
    /// An admin call without the right admin token.
    Unauthorized,
    /// No client is connected to that seat (admin kick).
    NotConnected,
    /// This client address made too many costly lobby calls (creating rooms, taking
    /// seats, adding bots) or WebSocket upgrades in a short time; retry after that
    /// many seconds (also the `Retry-After` header).
    RateLimited {
        /// Whole seconds until the next call is taken.
        retry_after_secs: u64,
    },
    /// This client address has as many WebSockets open as it may.
    TooManyConnections,
    /// The server has as many WebSockets open as it takes.
    ServerBusy,
    /// A player call without a session (no cookie or bearer token, or one that
    /// ended).
    NotSignedIn,
    /// Signing in failed: no account has that name, or the password is not its
    /// own (the two are not told apart).
    InvalidCredentials,
    /// Another account has a name with the same key (case and look-alike forms
    /// aside).
    NameTaken,
    /// The password is too short or too long.
    InvalidPassword,
    /// The player already has an account (or was deleted).
    AlreadyClaimed,
    /// The player has no session with that id.
    SessionNotFound,
    /// No player has that id.
    PlayerNotFound,
    /// The player already has a seat in this rated room (one seat per player, so
    /// that one person is rated once).
    AlreadySeated,
    /// The random baseline bot cannot play in a rated room (it has no rating).
    BotNotRated,
    /// An administrator banned this player: signing in and reconnecting their
    /// seats are refused until the ban ends (protocol 22.9).
    Banned,
    /// Passkeys belong to accounts: the guest must claim a name and password first.
    NotAnAccount,
    /// The passkey could not be registered: its ceremony is unknown, used or
    /// expired, or the authenticator's answer did not verify.
    PasskeyFailed,
    /// The player has no passkey with that id.
    PasskeyNotFound,
    /// This server has no domain name for passkeys (its public origins are IP
    /// addresses: `CATAN_PUBLIC_ORIGINS`).
    PasskeysUnavailable,
    /// The player is in the queue already (leave it first).
    AlreadyQueued,
    /// The player holds a seat in a room that has not started: leave it before
    /// joining the queue (protocol 26.1).
    SeatedElsewhere,
    /// The player is not in the queue.
    NotQueued,
    /// No party has that code (or it ended).
    PartyNotFound,
    /// The party has three members already.
    PartyFull,
    /// The player is in a party already (leave it first).
    AlreadyInParty,
    /// The player is in no party.
    NotInParty,
    /// Only the party's leader queues it.
    NotPartyLeader,
    /// This server sends no Web Push (its operator turned it off).
    PushUnavailable,
    /// The player has no notification channel with that id.
    ChannelNotFound,
    /// The notification channel cannot be used (a bad address or URL, a private
    /// address, bad push keys): what is wrong, in words.
    InvalidChannel(String),
}

impl LobbyError {
    /// One error of each kind (with empty details), in a fixed order.
    #[must_use]
    pub fn all() -> Vec<LobbyError> {
        vec![
            LobbyError::RoomNotFound,
            LobbyError::RoomFull,
            LobbyError::SeatTaken,
            LobbyError::NoSuchSeat,
            LobbyError::InvalidName,
            LobbyError::InvalidOptions(String::new()),
            LobbyError::NotHost,
            LobbyError::InvalidToken,
            LobbyError::AlreadyStarted,
            LobbyError::NotFull,
            LobbyError::SpectatorsNotAllowed,
            LobbyError::TooManyRooms,
            LobbyError::BadRequest(String::new()),
            LobbyError::OriginNotAllowed,
            LobbyError::ShuttingDown,
            LobbyError::StoreUnavailable,
            LobbyError::GameNotFinished,
            LobbyError::Unauthorized,
            LobbyError::NotConnected,
            LobbyError::RateLimited {
                retry_after_secs: 0,
            },
            LobbyError::TooManyConnections,
            LobbyError::ServerBusy,
            LobbyError::NotSignedIn,
            LobbyError::InvalidCredentials,
            LobbyError::NameTaken,
            LobbyError::InvalidPassword,
            LobbyError::AlreadyClaimed,
            LobbyError::SessionNotFound,
            LobbyError::PlayerNotFound,
            LobbyError::AlreadySeated,
            LobbyError::BotNotRated,
            LobbyError::Banned,
            LobbyError::NotAnAccount,
            LobbyError::PasskeyFailed,
            LobbyError::PasskeyNotFound,
            LobbyError::PasskeysUnavailable,
            LobbyError::AlreadyQueued,
            LobbyError::SeatedElsewhere,
            LobbyError::NotQueued,
            LobbyError::PartyNotFound,
            LobbyError::PartyFull,
            LobbyError::AlreadyInParty,
            LobbyError::NotInParty,
            LobbyError::NotPartyLeader,
            LobbyError::PushUnavailable,
            LobbyError::ChannelNotFound,
            LobbyError::InvalidChannel(String::new()),
        ]
    }

    /// Stable machine-readable code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            LobbyError::RoomNotFound => "room_not_found",
            LobbyError::RoomFull => "room_full",
            LobbyError::SeatTaken => "seat_taken",
            LobbyError::NoSuchSeat => "no_such_seat",
            LobbyError::InvalidName => "invalid_name",
            LobbyError::InvalidOptions(_) => "invalid_options",
            LobbyError::NotHost => "not_host",
            LobbyError::InvalidToken => "invalid_token",
            LobbyError::AlreadyStarted => "already_started",
            LobbyError::NotFull => "not_full",
            LobbyError::SpectatorsNotAllowed => "spectators_not_allowed",
            LobbyError::TooManyRooms => "too_many_rooms",
            LobbyError::BadRequest(_) => "bad_request",
            LobbyError::OriginNotAllowed => "origin_not_allowed",
            LobbyError::ShuttingDown => "shutting_down",
            LobbyError::StoreUnavailable => "store_unavailable",
            LobbyError::GameNotFinished => "game_not_finished",
            LobbyError::Unauthorized => "unauthorized",
            LobbyError::NotConnected => "not_connected",
            LobbyError::RateLimited { .. } => "rate_limited",
            LobbyError::TooManyConnections => "too_many_connections",
            LobbyError::ServerBusy => "server_busy",
            LobbyError::NotSignedIn => "not_signed_in",
            LobbyError::InvalidCredentials => "invalid_credentials",
            LobbyError::NameTaken => "name_taken",
            LobbyError::InvalidPassword => "invalid_password",
            LobbyError::AlreadyClaimed => "already_claimed",
            LobbyError::SessionNotFound => "session_not_found",
            LobbyError::PlayerNotFound => "player_not_found",
            LobbyError::AlreadySeated => "already_seated",
            LobbyError::BotNotRated => "bot_not_rated",
            LobbyError::Banned => "banned",
            LobbyError::NotAnAccount => "not_an_account",
            LobbyError::PasskeyFailed => "passkey_failed",
            LobbyError::PasskeyNotFound => "passkey_not_found",
            LobbyError::PasskeysUnavailable => "passkeys_unavailable",
            LobbyError::AlreadyQueued => "already_queued",
            LobbyError::SeatedElsewhere => "seated_elsewhere",
            LobbyError::NotQueued => "not_queued",
            LobbyError::PartyNotFound => "party_not_found",
            LobbyError::PartyFull => "party_full",
            LobbyError::AlreadyInParty => "already_in_party",
            LobbyError::NotInParty => "not_in_party",
            LobbyError::NotPartyLeader => "not_party_leader",
            LobbyError::PushUnavailable => "push_unavailable",
            LobbyError::ChannelNotFound => "channel_not_found",
            LobbyError::InvalidChannel(_) => "invalid_channel",
        }
    }

    /// The HTTP status code that carries this error.
    #[must_use]
    pub fn status(&self) -> u16 {
        match self {
            LobbyError::RoomNotFound
            | LobbyError::SessionNotFound
            | LobbyError::PlayerNotFound
            | LobbyError::PasskeyNotFound
            | LobbyError::NotQueued
            | LobbyError::PartyNotFound
            | LobbyError::NotInParty
            | LobbyError::PushUnavailable
            | LobbyError::ChannelNotFound => 404,
            LobbyError::NameTaken
            | LobbyError::AlreadyClaimed
            | LobbyError::AlreadySeated
            | LobbyError::NotAnAccount
            | LobbyError::AlreadyQueued
            | LobbyError::SeatedElsewhere
            | LobbyError::PartyFull
            | LobbyError::AlreadyInParty => 409,
            LobbyError::InvalidPassword | LobbyError::BotNotRated | LobbyError::PasskeyFailed => {
                400
            }
            LobbyError::NotSignedIn | LobbyError::InvalidCredentials => 401,
            LobbyError::RoomFull
            | LobbyError::SeatTaken
            | LobbyError::AlreadyStarted
            | LobbyError::NotFull
            | LobbyError::GameNotFinished
            | LobbyError::NotConnected => 409,
            LobbyError::NoSuchSeat
            | LobbyError::InvalidName
            | LobbyError::InvalidOptions(_)
            | LobbyError::InvalidChannel(_)
            | LobbyError::BadRequest(_) => 400,
            LobbyError::NotHost | LobbyError::InvalidToken | LobbyError::Unauthorized => 401,
            LobbyError::SpectatorsNotAllowed
            | LobbyError::OriginNotAllowed
            | LobbyError::Banned
            | LobbyError::NotPartyLeader => 403,
            LobbyError::RateLimited { .. } | LobbyError::TooManyConnections => 429,
            LobbyError::TooManyRooms
            | LobbyError::ShuttingDown
            | LobbyError::StoreUnavailable
            | LobbyError::ServerBusy
            | LobbyError::PasskeysUnavailable => 503,
        }
    }

    /// The JSON body of the HTTP answer.
    #[must_use]
    pub fn body(&self) -> crate::ErrorBody {
        crate::ErrorBody {
            error: crate::ErrorDetail {
                code: self.code().to_owned(),
                message: self.to_string(),
            },
        }
    }
}

impl fmt::Display for LobbyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LobbyError::RateLimited { retry_after_secs } => {
                return write!(f, "too many requests; retry in {retry_after_secs} s");
            }
            LobbyError::RoomNotFound => "no room has that id",
            LobbyError::RoomFull => "every seat is taken",
            LobbyError::SeatTaken => "that seat is taken",
            LobbyError::NoSuchSeat => "there is no such seat in this room",
            LobbyError::InvalidName => {
                "a name has 1 to 32 characters, not all invisible, no control or \
                 bidirectional formatting characters, and no \"(... bot)\" claim"
            }
            LobbyError::InvalidOptions(m)
            | LobbyError::BadRequest(m)
            | LobbyError::InvalidChannel(m) => m,
            LobbyError::NotHost => "only the room's host may do that (missing or wrong host token)",
            LobbyError::InvalidToken => "missing or wrong seat token",
            LobbyError::AlreadyStarted => "the game has already started",
            LobbyError::NotFull => "every seat must be taken before the game starts",
            LobbyError::SpectatorsNotAllowed => "this room does not allow spectators",
            LobbyError::TooManyRooms => "the server is full; try again later",
            LobbyError::OriginNotAllowed => {
                "this page's origin is not allowed by this server; its operator can allow it \
                 with CATAN_PUBLIC_ORIGINS (the server's own address) or CATAN_ALLOWED_ORIGINS"
            }
            LobbyError::ShuttingDown => "the server is shutting down",
            LobbyError::StoreUnavailable => "the game store is unavailable; try again shortly",
            LobbyError::GameNotFinished => "the game is not finished yet",
            LobbyError::Unauthorized => "missing or wrong admin token",
            LobbyError::NotConnected => "no client is connected to that seat",
            LobbyError::TooManyConnections => {
                "too many connections from this address; close some first"
            }
            LobbyError::ServerBusy => "the server has too many connections; try again later",
            LobbyError::NotSignedIn => {
                "not signed in: create a guest (POST /api/guests) or sign in (POST /api/sessions)"
            }
            LobbyError::InvalidCredentials => "wrong name or password",
            LobbyError::NameTaken => "another account has that name",
            LobbyError::InvalidPassword => "a password has 8 to 128 characters",
            LobbyError::AlreadyClaimed => "this player already has an account",
            LobbyError::SessionNotFound => "you have no session with that id",
            LobbyError::PlayerNotFound => "no player has that id",
            LobbyError::AlreadySeated => "you already have a seat in this rated room",
            LobbyError::BotNotRated => {
                "the random bot has no rating and cannot play in a rated room"
            }
            LobbyError::Banned => "an administrator of this server banned this player",
            LobbyError::NotAnAccount => {
                "passkeys belong to accounts: claim a name and password first (POST /api/me/claim)"
            }
            LobbyError::PasskeyFailed => {
                "the passkey was not registered: the request expired or the authenticator's \
                 answer did not verify; start again"
            }
            LobbyError::PasskeyNotFound => "you have no passkey with that id",
            LobbyError::PasskeysUnavailable => {
                "passkeys need the server's domain name; its operator sets it with \
                 CATAN_PUBLIC_ORIGINS (an address such as https://catan.example.org)"
            }
            LobbyError::AlreadyQueued => "you are in the queue already; leave it first",
            LobbyError::SeatedElsewhere => {
                "you have a seat in a room that has not started; leave it before joining the queue"
            }
            LobbyError::NotQueued => "you are not in the queue",
            LobbyError::PartyNotFound => "no party has that code",
            LobbyError::PartyFull => "that party has three members already",
            LobbyError::AlreadyInParty => "you are in a party already; leave it first",
            LobbyError::NotInParty => "you are in no party",
            LobbyError::NotPartyLeader => "only the party's leader queues it",
            LobbyError::PushUnavailable => {
                "this server sends no Web Push; add an email or a webhook instead"
            }
            LobbyError::ChannelNotFound => "you have no notification channel with that id",
        })
    }
}

impl std::error::Error for LobbyError {}
