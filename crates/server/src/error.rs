//! Errors of the lobby and connection layer, each with a stable code and an HTTP
//! status. Internal details never reach the client.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::protocol::{ErrorBody, ErrorDetail};

/// Why a lobby request or connection was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LobbyError {
    /// No room has that id (or it is gone).
    #[error("no room has that id")]
    RoomNotFound,
    /// The room has no free seat.
    #[error("every seat is taken")]
    RoomFull,
    /// The requested seat is taken.
    #[error("that seat is taken")]
    SeatTaken,
    /// The seat index is out of range.
    #[error("there is no such seat in this room")]
    NoSuchSeat,
    /// The display name is empty or too long.
    #[error("a name has 1 to 32 characters")]
    InvalidName,
    /// The room options are out of range.
    #[error("{0}")]
    InvalidOptions(String),
    /// A host-only call without the right host token.
    #[error("only the room's host may do that (missing or wrong host token)")]
    NotHost,
    /// The seat token is missing or does not match.
    #[error("missing or wrong seat token")]
    InvalidToken,
    /// The game has already started.
    #[error("the game has already started")]
    AlreadyStarted,
    /// The game cannot start before every seat is taken.
    #[error("every seat must be taken before the game starts")]
    NotFull,
    /// The room does not allow spectators.
    #[error("this room does not allow spectators")]
    SpectatorsNotAllowed,
    /// The server holds as many rooms as it may.
    #[error("the server is full; try again later")]
    TooManyRooms,
    /// The request body or query is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// The page's origin is not allowed to use this server.
    #[error("this origin is not allowed")]
    OriginNotAllowed,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The database is unreachable; nothing was changed.
    #[error("the game store is unavailable; try again shortly")]
    StoreUnavailable,
    /// The game is still being played (replays are for finished games).
    #[error("the game is not finished yet")]
    GameNotFinished,
    /// An admin call without the right admin token.
    #[error("missing or wrong admin token")]
    Unauthorized,
    /// No client is connected to that seat (admin kick).
    #[error("no client is connected to that seat")]
    NotConnected,
}

impl LobbyError {
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
        }
    }

    /// The HTTP status for this error.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        match self {
            LobbyError::RoomNotFound => StatusCode::NOT_FOUND,
            LobbyError::RoomFull
            | LobbyError::SeatTaken
            | LobbyError::AlreadyStarted
            | LobbyError::NotFull => StatusCode::CONFLICT,
            LobbyError::NoSuchSeat
            | LobbyError::InvalidName
            | LobbyError::InvalidOptions(_)
            | LobbyError::BadRequest(_) => StatusCode::BAD_REQUEST,
            LobbyError::NotHost | LobbyError::InvalidToken | LobbyError::Unauthorized => {
                StatusCode::UNAUTHORIZED
            }
            LobbyError::SpectatorsNotAllowed | LobbyError::OriginNotAllowed => {
                StatusCode::FORBIDDEN
            }
            LobbyError::TooManyRooms | LobbyError::ShuttingDown | LobbyError::StoreUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            LobbyError::GameNotFinished | LobbyError::NotConnected => StatusCode::CONFLICT,
        }
    }

    /// The JSON body.
    #[must_use]
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: self.code().to_owned(),
                message: self.to_string(),
            },
        }
    }
}

impl IntoResponse for LobbyError {
    fn into_response(self) -> Response {
        (self.status(), Json(self.body())).into_response()
    }
}
