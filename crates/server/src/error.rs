//! HTTP answers for refused requests. The codes and messages are the wire's
//! ([`catan_protocol::LobbyError`]); this only turns them into responses, and
//! internal details never reach the client.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use catan_protocol::LobbyError;

/// A [`LobbyError`] as an HTTP response: its status and `{"error": {...}}` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError(pub LobbyError);

impl From<LobbyError> for ApiError {
    fn from(e: LobbyError) -> ApiError {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(self.0.body())).into_response();
        if let LobbyError::RateLimited { retry_after_secs } = self.0 {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        response
    }
}
