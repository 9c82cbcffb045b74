//! The public HTTP API: rooms, seats, bots, start, and the WebSocket upgrade.

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use catan_engine::Seat;
use tracing::{Instrument, info_span};

use crate::AppState;
use crate::error::{ApiBytes, ApiError, ApiQuery, LobbyError};
use crate::extract::{ApiJson, ClientIp, Costly, HostToken, Open, PathRoom, SeatToken};
use crate::players::api::MaybePlayer;
use crate::token;
use crate::ws::{self, ConnLimits};
use catan_protocol::{
    AddBotRequest, CloseCode, CreateRoomRequest, CreateRoomResponse, RoomInfo, RoomList,
    RoomListQuery, TakeSeatRequest, WsQuery,
};

/// Largest WebSocket frame the transport accepts at all; bigger ones end the
/// connection. Messages between `max_message_bytes` and this get `message_too_large`.
pub(crate) const TRANSPORT_MAX_MESSAGE: usize = 64 * 1024;

/// `POST /api/rooms`
pub async fn create_room(
    State(state): State<AppState>,
    _: Open,
    _: Costly,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let defaults = state.config.rooms.room_defaults();
    let req = CreateRoomRequest::parse(&body, &defaults)?;
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
        return Err(LobbyError::StoreUnavailable.into());
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
pub async fn get_room(PathRoom(room): PathRoom) -> Result<Json<RoomInfo>, ApiError> {
    Ok(Json(room.info().await?))
}

/// `POST /api/rooms/{id}/seats`
pub async fn take_seat(
    State(state): State<AppState>,
    _: Open,
    _: Costly,
    PathRoom(room): PathRoom,
    MaybePlayer(player): MaybePlayer,
    ApiJson(req): ApiJson<TakeSeatRequest>,
) -> Result<Response, ApiError> {
    // A player waiting in quick play's queue takes no other seat meanwhile (the
    // queue may seat them at any moment). A store that cannot say does not stop
    // the seat.
    if let Some(id) = player
        && let Ok(Some(queued)) = state.store.queued(id).await
        && queued.seated.is_none()
    {
        return Err(LobbyError::AlreadyQueued.into());
    }
    let resp = room.take_seat(req.name, req.seat, player).await?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `DELETE /api/rooms/{id}/seats/{seat}` with the seat token as bearer.
pub async fn leave_seat(
    Path((_, seat)): Path<(String, u8)>,
    _: Open,
    PathRoom(room): PathRoom,
    SeatToken(token): SeatToken,
) -> Result<StatusCode, ApiError> {
    room.leave_seat(Seat(seat), token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/rooms/{id}/bots` with the host token as bearer.
pub async fn add_bot(
    _: Open,
    _: Costly,
    PathRoom(room): PathRoom,
    HostToken(token): HostToken,
    ApiJson(req): ApiJson<AddBotRequest>,
) -> Result<Response, ApiError> {
    let resp = room.add_bot(token, req).await?;
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

/// `POST /api/rooms/{id}/start` with the host token as bearer.
pub async fn start(
    _: Open,
    PathRoom(room): PathRoom,
    HostToken(token): HostToken,
) -> Result<Json<RoomInfo>, ApiError> {
    Ok(Json(room.start(token).await?))
}

/// `POST /api/rooms/{id}/rematch` with the host's or a seated person's token as
/// bearer: the room of the next game, with the same options and bots.
pub async fn rematch(
    _: Open,
    PathRoom(room): PathRoom,
    SeatToken(token): SeatToken,
    _: Costly,
) -> Result<Response, ApiError> {
    let resp = room.rematch(token).await?;
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
    _: Open,
    ip: ClientIp,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<WsQuery>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
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
    // After the version check: a refused version does not depend on the room.
    let room = state.room(&id).await?;
    let conn = room
        .connect(q.token.filter(|t| !t.is_empty()), q.last_seq)
        .await?;
    let limits = ConnLimits {
        max_message_bytes: state.config.limits.max_message_bytes,
        rate_per_sec: state.config.limits.rate_limit_per_sec,
        ping_every: Duration::from_secs(state.config.limits.ws_ping_secs.max(1)),
        silent_for: Duration::from_secs(state.config.limits.ws_timeout_secs.max(1)),
        chat_per_min: state.config.limits.chat_per_min,
    };
    let span =
        info_span!("conn", room = %room.id, seat = conn.seat.map(|s| i16::from(s.0)).unwrap_or(-1));
    let shutdown = state.shutdown.clone();
    let counted = state.metrics.connection();
    // Tracked, so that a shutdown waits for each socket's closing handshake.
    let tasks = state.tasks.clone();
    let limiter = state.websocket_limiter.clone();
    let cool_down = Duration::from_secs(state.config.limits.websocket_cool_down_secs);
    Ok(upgrade
        .read_buffer_size(state.config.limits.ws_read_buffer)
        .max_message_size(TRANSPORT_MAX_MESSAGE)
        .max_frame_size(TRANSPORT_MAX_MESSAGE)
        .on_upgrade(move |socket| {
            // The connection gets a task of its own, axum's upgrade task (the
            // upgrade's state beside this closure's) ending at once: a connection
            // holds about 1 KiB less for as long as it is open.
            tasks.spawn(
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
            );
            std::future::ready(())
        }))
}
