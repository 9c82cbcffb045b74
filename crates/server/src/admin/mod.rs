//! The admin API and `/metrics`, served only on the admin listener (`--admin-bind`,
//! loopback by default) and only when an admin token is configured. Every request
//! must carry `Authorization: Bearer <admin token>`, compared in constant time; every
//! call is logged with its method and path, never with the token.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use catan_engine::Seat;
use secrecy::{ExposeSecret, SecretString};
use tracing::{info, warn};
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiBytes, ApiError, ApiQuery, LobbyError};
use crate::store;
use crate::token;
use catan_protocol::{MAX_CHAT_CHARS, RoomStatus};

use catan_protocol::{
    AdminRoomDetail, AdminRoomList, CloseRoomRequest, CloseRoomResponse, InspectQuery, KickRequest,
    RoomCounts, ServerStats, StoreHealth,
};

/// Broadcasts an inspection returns when `?events=` is not given.
pub const DEFAULT_EVENTS: usize = 50;

/// What the admin handlers share.
#[derive(Clone)]
struct Admin {
    /// The server's state: rooms, store, metrics.
    app: AppState,
    /// SHA-256 of the admin token: comparing fixed-length digests in constant time
    /// reveals nothing, not even the token's length.
    token_hash: Arc<str>,
}

/// The admin router, guarded by `token`.
pub fn router(app: AppState, token: &SecretString) -> Router {
    let admin = Admin {
        app,
        token_hash: store::sha256_hex(token.expose_secret()).into(),
    };
    let routes = Router::new()
        .route("/admin/rooms", get(list_rooms))
        .route("/admin/rooms/{id}", get(inspect_room))
        .route("/admin/rooms/{id}/close", post(close_room))
        .route("/admin/rooms/{id}/seats/{seat}/kick", post(kick_seat))
        .route("/admin/stats", get(stats))
        .route("/metrics", get(metrics))
        .with_state(admin.clone());
    // The guard stands in front of the whole router, not of each route: without the
    // token every path and method is refused alike (no `404`, `405` or `Allow`
    // header tells a route exists).
    Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn_with_state(admin, guard))
}

/// Refuses a missing or wrong token with 401 `unauthorized`, and logs every call.
async fn guard(State(admin): State<Admin>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let given = crate::lobby::bearer(request.headers()).unwrap_or_default();
    if !token::matches(&admin.token_hash, &store::sha256_hex(&given)) {
        warn!(%method, %path, "admin call refused: missing or wrong admin token");
        return ApiError(LobbyError::Unauthorized).into_response();
    }
    let response = next.run(request).await;
    info!(%method, %path, status = response.status().as_u16(), "admin call");
    response
}

fn parse_room_id(id: &str) -> Result<Uuid, LobbyError> {
    Uuid::parse_str(id).map_err(|_| LobbyError::RoomNotFound)
}

/// Parses an optional JSON object body (empty means defaults), as the lobby does.
fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, LobbyError> {
    catan_protocol::parse_body(body)
}

/// A message for clients: the given one, trimmed and at most 500 characters, or
/// `default`.
fn message(given: Option<String>, default: &str) -> Result<String, LobbyError> {
    match given.map(|m| m.trim().to_owned()) {
        Some(m) if m.chars().count() > MAX_CHAT_CHARS => Err(LobbyError::BadRequest(format!(
            "message is at most {MAX_CHAT_CHARS} characters"
        ))),
        Some(m) if !m.is_empty() => Ok(m),
        _ => Ok(default.to_owned()),
    }
}

/// `GET /admin/rooms`
async fn list_rooms(State(admin): State<Admin>) -> Json<AdminRoomList> {
    let mut rooms = Vec::new();
    for h in admin.app.rooms.all() {
        if let Ok(summary) = h.admin_summary().await {
            rooms.push(summary);
        }
    }
    Json(AdminRoomList { rooms })
}

/// `GET /admin/rooms/{id}?events=n&view=seat&at_seq=s`
async fn inspect_room(
    State(admin): State<Admin>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<InspectQuery>,
) -> Result<Json<AdminRoomDetail>, ApiError> {
    let room = admin.app.rooms.get(parse_room_id(&id)?)?;
    let events = q.events.unwrap_or(DEFAULT_EVENTS);
    if q.at_seq.is_some() && q.view.is_none() {
        return Err(LobbyError::BadRequest("at_seq: only with view".to_owned()).into());
    }
    let view = q.view.map(|seat| (Seat(seat), q.at_seq));
    Ok(Json(room.admin_detail(events, view).await?))
}

/// `POST /admin/rooms/{id}/close`
async fn close_room(
    State(admin): State<Admin>,
    Path(id): Path<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Json<CloseRoomResponse>, ApiError> {
    let room = admin.app.rooms.get(parse_room_id(&id)?)?;
    let req: CloseRoomRequest = parse_body(&body)?;
    let text = message(req.message, "the room was closed by an administrator")?;
    let closed = room.close(text).await?;
    info!(room = %closed.room_id, status = ?closed.status, "room closed by an administrator");
    Ok(Json(closed))
}

/// `POST /admin/rooms/{id}/seats/{seat}/kick`
async fn kick_seat(
    State(admin): State<Admin>,
    Path((id, seat)): Path<(String, u8)>,
    ApiBytes(body): ApiBytes,
) -> Result<StatusCode, ApiError> {
    let room = admin.app.rooms.get(parse_room_id(&id)?)?;
    let req: KickRequest = parse_body(&body)?;
    let text = message(req.message, "disconnected by an administrator")?;
    room.kick(Seat(seat), text).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /admin/stats`
async fn stats(State(admin): State<Admin>) -> Json<ServerStats> {
    let m = &admin.app.metrics;
    let store = match admin.app.store.health().await {
        Ok(()) => StoreHealth::Ok,
        Err(e) => {
            warn!(error = %e, "store not healthy");
            StoreHealth::Unavailable
        }
    };
    Json(ServerStats {
        uptime_secs: m.uptime().as_secs(),
        rooms: RoomCounts {
            lobby: m.rooms(RoomStatus::Lobby),
            playing: m.rooms(RoomStatus::Playing),
            finished: m.rooms(RoomStatus::Finished),
        },
        connections: m.connections(),
        games_finished: m.games_finished(),
        actions_applied: m.actions_applied(),
        store,
    })
}

/// `GET /metrics`: Prometheus text format.
async fn metrics(State(admin): State<Admin>) -> Response {
    (
        [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        admin.app.metrics.render(),
    )
        .into_response()
}
