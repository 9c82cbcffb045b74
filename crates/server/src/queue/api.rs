//! The queue's HTTP calls (docs/protocol/26-quick-play.md): join, status, leave,
//! each for the signed-in player.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use catan_protocol::{PartyInfo, QueueRequest, QueueStatus};

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
