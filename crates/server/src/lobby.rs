//! The public HTTP API: rooms, seats, bots, start, and the WebSocket upgrade.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_engine::Seat;
use serde::de::DeserializeOwned;
use tracing::{Instrument, info_span};
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiError, LobbyError};
use crate::token;
use crate::ws::{self, ConnLimits};
use catan_protocol::{
    AddBotRequest, CreateRoomRequest, CreateRoomResponse, RoomList, RoomListQuery, TakeSeatRequest,
    WsQuery,
};

/// Largest WebSocket frame the transport accepts at all; bigger ones end the
/// connection. Messages between `max_message_bytes` and this get `message_too_large`.
const TRANSPORT_MAX_MESSAGE: usize = 64 * 1024;

/// Parses a JSON body; an empty body means "all defaults" where `T: Default`-like
/// defaults come from serde.
fn parse_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, LobbyError> {
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    serde_json::from_slice(body)
        .map_err(|e| LobbyError::BadRequest(format!("invalid JSON body: {e}")))
}

fn parse_room_id(id: &str) -> Result<Uuid, LobbyError> {
    Uuid::parse_str(id).map_err(|_| LobbyError::RoomNotFound)
}

/// The bearer token of a request, if any.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_owned())
}

/// `POST /api/rooms`
pub async fn create_room(State(state): State<AppState>, body: Bytes) -> Result<Response, ApiError> {
    let req: CreateRoomRequest = parse_body(&body)?;
    let options = req.resolve(&state.config.room_defaults());
    options
        .validate()
        .map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
    let host_token = token::new_token();
    let room = state
        .rooms
        .create(state.room_context(), options, host_token.clone())?;
    let info = room.info().await?;
    let body = CreateRoomResponse {
        room_id: room.id,
        host_token,
        room: info,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/rooms`
pub async fn list_rooms(
    State(state): State<AppState>,
    Query(q): Query<RoomListQuery>,
) -> Json<RoomList> {
    let limit = q.limit.unwrap_or(50).min(200);
    let mut rooms = Vec::new();
    for h in state.rooms.listed(limit) {
        if let Ok(info) = h.info().await {
            rooms.push(info);
        }
    }
    Json(RoomList { rooms })
}

/// `GET /api/rooms/{id}`
pub async fn get_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let room = state.rooms.get(parse_room_id(&id)?)?;
    Ok(Json(room.info().await?).into_response())
}

/// `POST /api/rooms/{id}/seats`
pub async fn take_seat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let room = state.rooms.get(parse_room_id(&id)?)?;
    let req: TakeSeatRequest = parse_body(&body)?;
    let resp = room.take_seat(req.name, req.seat).await?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `DELETE /api/rooms/{id}/seats/{seat}` with the seat token as bearer.
pub async fn leave_seat(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, u8)>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let room = state.rooms.get(parse_room_id(&id)?)?;
    let token = bearer(&headers).ok_or(LobbyError::InvalidToken)?;
    room.leave_seat(Seat(seat), token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/rooms/{id}/bots` with the host token as bearer.
pub async fn add_bot(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let room = state.rooms.get(parse_room_id(&id)?)?;
    let token = bearer(&headers).ok_or(LobbyError::NotHost)?;
    let req: AddBotRequest = parse_body(&body)?;
    let resp = room.add_bot(token, req).await?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `POST /api/rooms/{id}/start` with the host token as bearer.
pub async fn start(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let room = state.rooms.get(parse_room_id(&id)?)?;
    let token = bearer(&headers).ok_or(LobbyError::NotHost)?;
    Ok(Json(room.start(token).await?).into_response())
}

/// `GET /api/rooms/{id}/ws?token=...&last_seq=...`: the WebSocket.
pub async fn websocket(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<WsQuery>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if !state.origins.allows(&headers) {
        return Err(LobbyError::OriginNotAllowed.into());
    }
    if *state.shutdown.borrow() {
        return Err(LobbyError::ShuttingDown.into());
    }
    let room = state.rooms.get(parse_room_id(&id)?)?;
    let conn = room
        .connect(q.token.filter(|t| !t.is_empty()), q.last_seq)
        .await?;
    let limits = ConnLimits {
        max_message_bytes: state.config.max_message_bytes,
        rate_per_sec: state.config.rate_limit_per_sec,
    };
    let span =
        info_span!("conn", room = %room.id, seat = conn.seat.map(|s| i16::from(s.0)).unwrap_or(-1));
    let shutdown = state.shutdown.clone();
    let counted = state.metrics.connection();
    // Tracked, so that a shutdown waits for each socket's closing handshake.
    let tasks = state.tasks.clone();
    Ok(upgrade
        .read_buffer_size(state.config.ws_read_buffer)
        .max_message_size(TRANSPORT_MAX_MESSAGE)
        .max_frame_size(TRANSPORT_MAX_MESSAGE)
        .on_upgrade(move |socket| {
            tasks.track_future(
                async move {
                    let _counted = counted;
                    ws::serve(socket, room, conn, limits, shutdown).await;
                }
                .instrument(span),
            )
        }))
}
