//! HTTP answers for refused requests. The codes and messages are the wire's
//! ([`catan_protocol::LobbyError`]); this only turns them into responses, and
//! internal details never reach the client.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

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

/// A query string parsed as `T`. A malformed one is refused as `400` `bad_request`
/// with the reason, in the body every other refusal has (axum's own `Query`
/// answers plain text).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(q)) => Ok(ApiQuery(q)),
            Err(e) => Err(LobbyError::BadRequest(e.body_text()).into()),
        }
    }
}

/// A request's body as bytes. A body that cannot be read (it did not come within
/// `--header-timeout-secs`, or the connection broke) is refused as `400`
/// `bad_request`, in the body every other refusal has.
#[derive(Debug, Clone, Default)]
pub struct ApiBytes(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for ApiBytes {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match Bytes::from_request(request, state).await {
            Ok(b) => Ok(ApiBytes(b)),
            Err(e) => Err(LobbyError::BadRequest(format!(
                "the request body could not be read: {}",
                e.body_text()
            ))
            .into()),
        }
    }
}
