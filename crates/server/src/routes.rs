//! The public router: every path of the lobby, player, queue and history API, the
//! WebSocket upgrade, the browser client's files and the health checks, with the
//! origin check and (in a cluster) the forwarding to a room's owner as layers.

use axum::Router;
use axum::routing::{delete, get, post};

use crate::{AppState, cluster, error, history, listen, lobby, notify, players, queue, web};

/// The public router: lobby API, WebSocket and health check.
pub fn app(state: AppState) -> Router {
    let cors = state.origins.cors();
    let router = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/", get(web::index))
        .route("/sw.js", get(web::service_worker))
        .route("/manifest.webmanifest", get(web::manifest))
        .route("/web/{file}", get(web::asset))
        .route("/web/v/{version}/{file}", get(web::versioned_asset))
        .route("/api/board", get(web::board))
        .route("/api/schema.json", get(web::schema))
        .route("/api/games", get(history::list_games))
        .route("/api/games/{id}", get(history::get_game))
        .route("/api/games/{id}/replay", get(history::replay))
        .route(
            "/api/rooms",
            post(lobby::create_room).get(lobby::list_rooms),
        )
        .route("/api/rooms/{id}", get(lobby::get_room))
        .route("/api/rooms/{id}/seats", post(lobby::take_seat))
        .route("/api/rooms/{id}/seats/{seat}", delete(lobby::leave_seat))
        .route("/api/rooms/{id}/bots", post(lobby::add_bot))
        .route("/api/rooms/{id}/start", post(lobby::start))
        .route("/api/rooms/{id}/rematch", post(lobby::rematch))
        .route("/api/rooms/{id}/ws", get(lobby::websocket))
        .route("/api/guests", post(players::api::create_guest))
        .route("/api/players/{id}", get(players::ratings::profile))
        .route("/api/leaderboard", get(players::ratings::leaderboard))
        .route(
            "/api/me",
            get(players::api::me).delete(players::api::delete_me),
        )
        .route("/api/me/claim", post(players::api::claim))
        .route("/api/me/games", get(crate::days::mine::my_games))
        .route("/api/me/name", post(players::api::rename))
        .route(
            "/api/me/notifications",
            get(notify::api::list).post(notify::api::add),
        )
        .route("/api/me/notifications/{id}", delete(notify::api::delete))
        .route("/api/notifications/vapid", get(notify::api::vapid))
        .route(
            "/api/notifications/unsubscribe",
            get(notify::api::unsubscribe),
        )
        .route(
            "/api/sessions",
            post(players::api::sign_in)
                .get(players::api::sessions)
                .delete(players::api::end_sessions),
        )
        .route("/api/sessions/{id}", delete(players::api::end_session))
        .route(
            "/api/sessions/passkey/start",
            post(players::api::passkey_sign_in_start),
        )
        .route(
            "/api/sessions/passkey/finish",
            post(players::api::passkey_sign_in_finish),
        )
        .route(
            "/api/queue",
            post(queue::api::join)
                .get(queue::api::status)
                .delete(queue::api::leave),
        )
        .route(
            "/api/queue/party",
            post(queue::api::create_party)
                .get(queue::api::party)
                .delete(queue::api::leave_party),
        )
        .route("/api/queue/party/{code}", post(queue::api::join_party))
        .route("/api/queue/ws", get(queue::socket::websocket))
        .route("/api/queue/gathering/{player}", get(queue::api::gathering))
        .route("/api/me/passkeys", get(players::api::passkeys))
        .route(
            "/api/me/passkeys/start",
            post(players::api::passkey_register_start),
        )
        .route(
            "/api/me/passkeys/finish",
            post(players::api::passkey_register_finish),
        )
        .route(
            "/api/me/passkeys/{id}",
            delete(players::api::delete_passkey),
        )
        // In a cluster, a room another instance owns is served by it (after the
        // origin check here).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cluster::to_owner,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_origin,
        ))
        .layer(cors)
        .with_state(state);
    web::with_security_headers(router)
}

/// Refuses any request from a browser page whose origin is not allowed (so a
/// foreign page cannot even take seats), with `origin_not_allowed`.
async fn check_origin(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let local = request.extensions().get::<listen::LocalAddr>().map(|l| l.0);
    // A request another instance forwarded was checked there, against its address.
    let forwarded = cluster::forwarded_client(&state, request.headers()).is_some();
    // The client's own files are public and change nothing: a page opened at an
    // address the server refuses still loads (browsers send `Origin` with module
    // scripts) and can say why it may not play.
    let client_file =
        request.method() == axum::http::Method::GET && web::is_client_file(request.uri().path());
    if client_file || forwarded || state.origins.allows(request.headers(), local) {
        next.run(request).await
    } else {
        error::ApiError(error::LobbyError::OriginNotAllowed).into_response()
    }
}

/// `GET /readyz`: 200 when the store answers (migrations ran at start-up), else 503.
async fn readyz(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match state.store.health().await {
        Ok(()) => "ready".into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "store not ready");
            error::ApiError(error::LobbyError::StoreUnavailable).into_response()
        }
    }
}
