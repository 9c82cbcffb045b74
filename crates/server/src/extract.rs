//! What the lobby and admin handlers take from a request, each step written once as
//! an extractor: the shutdown refusal, the client address and its rate limit, the
//! room the path names, the bearer tokens, and the JSON body. Extractors run in the
//! order of a handler's arguments, so a handler lists them in the order its checks
//! are documented (protocol.md section 4: a call refused for two reasons gets the
//! first one's code).

use std::collections::HashMap;
use std::net::IpAddr;

use axum::extract::{FromRef, FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::error::{ApiBytes, ApiError, LobbyError};
use crate::listen::PeerAddr;
use crate::room::RoomHandle;
use crate::token;

/// A call that changes something, refused with `shutting_down` once the server has
/// begun to shut down (a request whose head arrived before, and is let finish).
#[derive(Debug, Clone, Copy)]
pub struct Open;

impl<S: Send + Sync> FromRequestParts<S> for Open
where
    AppState: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, state: &S) -> Result<Open, ApiError> {
        if AppState::from_ref(state).shutdown.is_cancelled() {
            Err(LobbyError::ShuttingDown.into())
        } else {
            Ok(Open)
        }
    }
}

/// The client's address (see [`crate::address::ClientAddresses::client_ip`]); the
/// per-address limits count it under [`crate::address::limit_key`].
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<ClientIp, Self::Rejection> {
        // Forwarded by another instance of the cluster: the client it names.
        if let Some(client) = crate::cluster::forwarded_client(state, &parts.headers) {
            return Ok(ClientIp(client));
        }
        let peer = parts.extensions.get::<PeerAddr>().map(|p| p.0.ip());
        Ok(ClientIp(
            state.client_addresses.client_ip(&parts.headers, peer),
        ))
    }
}

/// A costly lobby call (creating a room, taking a seat, adding a bot, a rematch),
/// counted against its client address: `rate_limited` beyond the configured rate.
#[derive(Debug, Clone, Copy)]
pub struct Costly(pub IpAddr);

impl FromRequestParts<AppState> for Costly {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Costly, ApiError> {
        let Ok(ClientIp(ip)) = ClientIp::from_request_parts(parts, state).await;
        state.lobby_limiter.check(ip)?;
        Ok(Costly(ip))
    }
}

/// The room named by the path's `{id}`: `room_not_found` when the id is malformed
/// or no room has it, `shutting_down` when it is gone because the server is
/// shutting down (rooms end then).
#[derive(Debug, Clone)]
pub struct PathRoom(pub RoomHandle);

impl<S: Send + Sync> FromRequestParts<S> for PathRoom
where
    AppState: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<PathRoom, ApiError> {
        let app = AppState::from_ref(state);
        let params = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|_| LobbyError::RoomNotFound)?;
        let id = params.get("id").map_or("", String::as_str);
        Ok(PathRoom(app.room(id).await?))
    }
}

/// The bearer token of a host-only call: `not_host` when there is none.
#[derive(Debug, Clone)]
pub struct HostToken(pub String);

impl<S: Send + Sync> FromRequestParts<S> for HostToken {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<HostToken, ApiError> {
        token::bearer(&parts.headers)
            .map(HostToken)
            .ok_or_else(|| LobbyError::NotHost.into())
    }
}

/// The bearer token of a seat's call: `invalid_token` when there is none.
#[derive(Debug, Clone)]
pub struct SeatToken(pub String);

impl<S: Send + Sync> FromRequestParts<S> for SeatToken {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<SeatToken, ApiError> {
        token::bearer(&parts.headers)
            .map(SeatToken)
            .ok_or_else(|| LobbyError::InvalidToken.into())
    }
}

/// A JSON object body read as `T` (an empty body is `{}`: every field its
/// default): `bad_request` with the reason otherwise.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<ApiJson<T>, ApiError> {
        let ApiBytes(body) = ApiBytes::from_request(request, state).await?;
        Ok(ApiJson(catan_protocol::parse_body(&body)?))
    }
}
