//! The queue's HTTP calls (docs/protocol/26-quick-play.md): join, status, leave,
//! each for the signed-in player.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::http::StatusCode;
use catan_protocol::{LobbyError, PartyInfo, QueueRequest, QueueStatus};
use uuid::Uuid;

use super::service::Gathering;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{ApiJson, Open};
use crate::players::api::Me;

/// `POST /api/queue`
pub async fn join(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
    ApiJson(req): ApiJson<QueueRequest>,
) -> Result<(StatusCode, Json<QueueStatus>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.queue.join(&me, &req).await?),
    ))
}

/// `GET /api/queue`
pub async fn status(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<Json<QueueStatus>, ApiError> {
    Ok(Json(state.queue.status(&me).await?))
}

/// `DELETE /api/queue`
pub async fn leave(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
) -> Result<StatusCode, ApiError> {
    state.queue.leave(&me).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/queue/gathering/{player}`: whether `player` holds a seat in one of
/// this instance's rooms still gathering; for another instance of the cluster
/// only (a forwarded request), `401` `unauthorized` for anyone else.
pub async fn gathering(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(player): Path<Uuid>,
) -> Result<Json<Gathering>, ApiError> {
    if crate::cluster::forwarded_client(&state, &headers).is_none() {
        return Err(LobbyError::Unauthorized.into());
    }
    Ok(Json(Gathering {
        gathering: state.rooms.gathering_seat_of(player).is_some(),
    }))
}

/// `POST /api/queue/party`: a new party led by the caller.
pub async fn create_party(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
) -> Result<(StatusCode, Json<PartyInfo>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(state.queue.parties().create(&me).await?),
    ))
}

/// `POST /api/queue/party/{code}`: joins a party.
pub async fn join_party(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
    Path(code): Path<String>,
) -> Result<Json<PartyInfo>, ApiError> {
    Ok(Json(state.queue.parties().join(&me, &code).await?))
}

/// `GET /api/queue/party`
pub async fn party(State(state): State<AppState>, Me(me): Me) -> Result<Json<PartyInfo>, ApiError> {
    Ok(Json(state.queue.parties().show(&me).await?))
}

/// `DELETE /api/queue/party`: leaves the party (its leader ends it).
pub async fn leave_party(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
) -> Result<StatusCode, ApiError> {
    state.queue.parties().leave(&me).await?;
    Ok(StatusCode::NO_CONTENT)
}
