//! The queue's HTTP calls (docs/protocol/26-quick-play.md): join, status, leave,
//! each for the signed-in player.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use catan_protocol::{QueueRequest, QueueStatus};

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
