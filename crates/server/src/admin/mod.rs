//! The admin API and `/metrics`, served only on the admin listener (`--admin-bind`,
//! loopback by default) and only when an admin token is configured. Every request
//! must carry `Authorization: Bearer <admin token>`, compared in constant time; every
//! call is logged with its method and path, never with the token.
//!
//! # Layout
//!
//! - `mod.rs`: the router, its guard, and the rooms, statistics and metrics calls;
//!   the admin page (`/admin/ui`, `web/admin.js`), served without the guard.
//! - [`players`]: moderation: finding players, their record, bans and mutes.
//! - the delivery log of notifications is `crate::notify::api::delivery_log`.

mod players;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use catan_engine::Seat;
use secrecy::{ExposeSecret, SecretString};
use tracing::{info, warn};

use crate::AppState;
use crate::error::{ApiError, ApiQuery, LobbyError};
use crate::extract::{ApiJson, PathRoom};
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
    /// The admin token's digest.
    token_hash: Arc<token::TokenHash>,
}

/// The admin router, guarded by `token`.
pub fn router(app: AppState, token: &SecretString) -> Router {
    let admin = Admin {
        app,
        token_hash: Arc::new(token::TokenHash::of(token.expose_secret())),
    };
    let routes = Router::new()
        .route("/admin/rooms", get(list_rooms))
        .route("/admin/rooms/{id}", get(inspect_room))
        .route("/admin/rooms/{id}/close", post(close_room))
        .route("/admin/rooms/{id}/seats/{seat}/kick", post(kick_seat))
        .route("/admin/players", get(players::list))
        .route("/admin/players/{id}", get(players::detail))
        .route("/admin/players/{id}/{action}", post(players::moderate))
        .route("/admin/notifications", get(notifications))
        .route("/admin/stats", get(stats))
        .route("/metrics", get(metrics))
        .with_state(admin.clone());
    // The guard stands in front of the whole router, not of each route: without the
    // token every path and method is refused alike (no `404`, `405` or `Allow`
    // header tells a route exists).
    let guarded = Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn_with_state(admin, guard));
    // But the admin page and its files, which hold nothing secret: the page asks
    // for the token and sends it with each call.
    let page = Router::new()
        .route("/admin/ui", get(crate::web::admin_page))
        .route("/admin/ui/{file}", get(crate::web::admin_asset));
    crate::web::with_security_headers(page).fallback_service(guarded)
}

/// Refuses a missing or wrong token with 401 `unauthorized`, and logs every call.
async fn guard(State(admin): State<Admin>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let given = token::bearer(request.headers()).unwrap_or_default();
    if !admin.token_hash.verifies(&given) {
        warn!(%method, %path, "admin call refused: missing or wrong admin token");
        return ApiError(LobbyError::Unauthorized).into_response();
    }
    let response = next.run(request).await;
    info!(%method, %path, status = response.status().as_u16(), "admin call");
    response
}

impl axum::extract::FromRef<Admin> for AppState {
    fn from_ref(admin: &Admin) -> AppState {
        admin.app.clone()
    }
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
    PathRoom(room): PathRoom,
    ApiQuery(q): ApiQuery<InspectQuery>,
) -> Result<Json<AdminRoomDetail>, ApiError> {
    let events = q.events.unwrap_or(DEFAULT_EVENTS);
    if q.at_seq.is_some() && q.view.is_none() {
        return Err(LobbyError::BadRequest("at_seq: only with view".to_owned()).into());
    }
    let view = q.view.map(|seat| (Seat(seat), q.at_seq));
    Ok(Json(room.admin_detail(events, view).await?))
}

/// `POST /admin/rooms/{id}/close`
async fn close_room(
    PathRoom(room): PathRoom,
    ApiJson(req): ApiJson<CloseRoomRequest>,
) -> Result<Json<CloseRoomResponse>, ApiError> {
    let text = message(req.message, "the room was closed by an administrator")?;
    let closed = room.close(text).await?;
    info!(room = %closed.room_id, status = ?closed.status, "room closed by an administrator");
    Ok(Json(closed))
}

/// `POST /admin/rooms/{id}/seats/{seat}/kick`
async fn kick_seat(
    Path((_, seat)): Path<(String, u8)>,
    PathRoom(room): PathRoom,
    ApiJson(req): ApiJson<KickRequest>,
) -> Result<StatusCode, ApiError> {
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

/// `GET /admin/notifications?player=&limit=`: the notifications' delivery log.
async fn notifications(
    State(admin): State<Admin>,
    query: ApiQuery<crate::notify::api::LogQuery>,
) -> Result<Json<catan_protocol::AdminNoticeList>, ApiError> {
    crate::notify::api::delivery_log(&admin.app, query).await
}
