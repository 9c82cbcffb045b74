//! The public HTTP API: rooms, seats, bots, start, and the WebSocket upgrade.

use axum::Json;
use axum::body::Bytes;
use std::net::IpAddr;
use std::time::Duration;

use axum::extract::{FromRequestParts, Path, State, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_engine::Seat;
use tracing::{Instrument, info_span};
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiBytes, ApiError, ApiQuery, LobbyError};
use crate::listen::PeerAddr;
use crate::token;
use crate::ws::{self, ConnLimits};
use catan_protocol::{
    AddBotRequest, CloseCode, CreateRoomRequest, CreateRoomResponse, RoomList, RoomListQuery,
    TakeSeatRequest, WsQuery, parse_body,
};

/// Largest WebSocket frame the transport accepts at all; bigger ones end the
/// connection. Messages between `max_message_bytes` and this get `message_too_large`.
pub(crate) const TRANSPORT_MAX_MESSAGE: usize = 64 * 1024;

/// Refuses a lobby call that reaches the server once it has begun to shut down (a
/// request whose head arrived before, and is let finish): `shutting_down`.
fn not_shutting_down(state: &AppState) -> Result<(), LobbyError> {
    if state.shutdown.is_cancelled() {
        Err(LobbyError::ShuttingDown)
    } else {
        Ok(())
    }
}

/// A room that ended under a call because the server is shutting down (rooms end
/// then) is reported as the shutdown, not as an unknown room.
fn during_shutdown(state: &AppState, e: LobbyError) -> LobbyError {
    if e == LobbyError::RoomNotFound && state.shutdown.is_cancelled() {
        LobbyError::ShuttingDown
    } else {
        e
    }
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

/// The client's address (see [`crate::address::ClientAddresses::client_ip`]); the
/// per-address limits count it under [`crate::address::limit_key`].
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

/// Counts a costly lobby call (creating a room, taking a seat, adding a bot) against
/// its client address: `rate_limited` beyond the configured rate.
fn costly(state: &AppState, ip: &ClientIp) -> Result<(), LobbyError> {
    state.lobby_limiter.check(ip.0)
}

/// `POST /api/rooms`
pub async fn create_room(
    State(state): State<AppState>,
    ip: ClientIp,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    create_room_in(&state, &ip, &body)
        .await
        .map_err(|e| during_shutdown(&state, e).into())
}

async fn create_room_in(
    state: &AppState,
    ip: &ClientIp,
    body: &Bytes,
) -> Result<Response, LobbyError> {
    not_shutting_down(state)?;
    costly(state, ip)?;
    let defaults = state.config.room_defaults();
    let req = CreateRoomRequest::parse(body, &defaults)?;
    let options = req.resolve(&defaults);
    options
        .validate()
        .map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
    let host_token = token::new_token();
    let room = state
        .rooms
        .create(state.room_context(), options, host_token.clone())?;
    // In a cluster the room is leased at once, so that every instance can pass its
    // lobby calls and sockets here.
    if let Some(cluster) = &state.cluster
        && let Err(e) = cluster.lease_room(room.id).await
    {
        tracing::warn!(room = %room.id, error = %e, "could not lease a new room");
        let _ = room.close("the room could not be registered".into()).await;
        return Err(LobbyError::StoreUnavailable);
    }
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
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<RoomListQuery>,
) -> Json<RoomList> {
    let limit = q.limit.unwrap_or(50).min(200);
    let mut rooms = Vec::new();
    for h in state.rooms.listed(limit) {
        if let Ok(info) = h.info().await {
            rooms.push(info);
        }
    }
    // In a cluster, the other instances' rooms too (unless another instance asks
    // for this one's own), newest first.
    if state.cluster.is_some() && crate::cluster::forwarded_client(&state, &headers).is_none() {
        rooms.extend(crate::cluster::other_rooms(&state, limit).await);
        rooms.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
        rooms.truncate(limit);
    }
    Json(RoomList { rooms })
}

/// `GET /api/rooms/{id}`
pub async fn get_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let info = async {
        let room = state.rooms.get(parse_room_id(&id)?)?;
        room.info().await
    };
    let info = info.await.map_err(|e| during_shutdown(&state, e))?;
    Ok(Json(info).into_response())
}

/// `POST /api/rooms/{id}/seats`
pub async fn take_seat(
    State(state): State<AppState>,
    ip: ClientIp,
    Path(id): Path<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let resp = async {
        not_shutting_down(&state)?;
        costly(&state, &ip)?;
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let req: TakeSeatRequest = parse_body(&body)?;
        room.take_seat(req.name, req.seat).await
    };
    let resp = resp.await.map_err(|e| during_shutdown(&state, e))?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `DELETE /api/rooms/{id}/seats/{seat}` with the seat token as bearer.
pub async fn leave_seat(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, u8)>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let left = async {
        not_shutting_down(&state)?;
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let token = bearer(&headers).ok_or(LobbyError::InvalidToken)?;
        room.leave_seat(Seat(seat), token).await
    };
    left.await.map_err(|e| during_shutdown(&state, e))?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/rooms/{id}/bots` with the host token as bearer.
pub async fn add_bot(
    State(state): State<AppState>,
    ip: ClientIp,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let resp = async {
        not_shutting_down(&state)?;
        costly(&state, &ip)?;
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let token = bearer(&headers).ok_or(LobbyError::NotHost)?;
        let req: AddBotRequest = parse_body(&body)?;
        room.add_bot(token, req).await
    };
    let resp = resp.await.map_err(|e| during_shutdown(&state, e))?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `POST /api/rooms/{id}/start` with the host token as bearer.
pub async fn start(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let info = async {
        not_shutting_down(&state)?;
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let token = bearer(&headers).ok_or(LobbyError::NotHost)?;
        room.start(token).await
    };
    let info = info.await.map_err(|e| during_shutdown(&state, e))?;
    Ok(Json(info).into_response())
}

/// `POST /api/rooms/{id}/rematch` with the host's or a seated person's token as
/// bearer: the room of the next game, with the same options and bots.
pub async fn rematch(
    State(state): State<AppState>,
    ip: ClientIp,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let resp = async {
        not_shutting_down(&state)?;
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let token = bearer(&headers).ok_or(LobbyError::InvalidToken)?;
        costly(&state, &ip)?;
        room.rematch(token).await
    };
    let resp = resp.await.map_err(|e| during_shutdown(&state, e))?;
    let status = if resp.host_token.is_some() {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(resp)).into_response())
}

/// `GET /api/rooms/{id}/ws?token=...&last_seq=...&protocol=...`: the WebSocket.
pub async fn websocket(
    State(state): State<AppState>,
    ip: ClientIp,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<WsQuery>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    not_shutting_down(&state)?;
    // A client reconnecting without pause is refused here, before it costs a
    // room a snapshot.
    state.websocket_limiter.check(ip.0)?;
    // Counted from here until the socket closes (a refused version included).
    let slot = state.sockets.open(ip.0)?;
    if let Some(asked) = q.protocol.filter(|_| !q.protocol_supported()) {
        // Told over the socket, which a browser can read (an HTTP refusal of the
        // upgrade it cannot): `closing`, then 4012. The room is not involved.
        let tasks = state.tasks.clone();
        return Ok(upgrade
            .max_message_size(TRANSPORT_MAX_MESSAGE)
            .max_frame_size(TRANSPORT_MAX_MESSAGE)
            .on_upgrade(move |socket| {
                tasks.track_future(async move {
                    let _slot = slot;
                    ws::refuse_version(socket, asked).await;
                })
            }));
    }
    let connected = async {
        let room = state.rooms.get(parse_room_id(&id)?)?;
        let conn = room
            .connect(q.token.filter(|t| !t.is_empty()), q.last_seq)
            .await?;
        Ok((room, conn))
    };
    let (room, conn) = connected.await.map_err(|e| during_shutdown(&state, e))?;
    let limits = ConnLimits {
        max_message_bytes: state.config.max_message_bytes,
        rate_per_sec: state.config.rate_limit_per_sec,
        ping_every: Duration::from_secs(state.config.ws_ping_secs.max(1)),
        silent_for: Duration::from_secs(state.config.ws_timeout_secs.max(1)),
        chat_per_min: state.config.chat_per_min,
    };
    let span =
        info_span!("conn", room = %room.id, seat = conn.seat.map(|s| i16::from(s.0)).unwrap_or(-1));
    let shutdown = state.shutdown.clone();
    let counted = state.metrics.connection();
    // Tracked, so that a shutdown waits for each socket's closing handshake.
    let tasks = state.tasks.clone();
    let limiter = state.websocket_limiter.clone();
    let cool_down = Duration::from_secs(state.config.websocket_cool_down_secs);
    Ok(upgrade
        .read_buffer_size(state.config.ws_read_buffer)
        .max_message_size(TRANSPORT_MAX_MESSAGE)
        .max_frame_size(TRANSPORT_MAX_MESSAGE)
        .on_upgrade(move |socket| {
            tasks.track_future(
                async move {
                    let _counted = (counted, slot);
                    let code = ws::serve(socket, room, conn, limits, shutdown).await;
                    // A flooder is refused new sockets for a while: reconnecting at
                    // once would cost the server a snapshot and a flood again.
                    if code == Some(CloseCode::RateLimited) {
                        limiter.cool_down(ip.0, cool_down);
                    }
                }
                .instrument(span),
            )
        }))
}
