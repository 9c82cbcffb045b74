//! The authoritative Catan game server: hosts rooms, lets clients take seats over
//! HTTP and play over WebSocket, validates every action through `catan-engine`, and
//! sends each seat exactly what the engine's redaction lets it see.
//!
//! # Layout
//!
//! - [`config`]: flags and environment variables (clap).
//! - [`protocol`]: every wire message, one enum per direction (see protocol.md).
//! - [`lobby`]: the HTTP API (rooms, seats, bots, start) and the WebSocket upgrade.
//! - [`ws`]: one connection's loop: limits, parsing, writing its queue.
//! - [`room`]: rooms as actors; [`room::RoomTask`] owns a game, its timers and its
//!   connections; [`room::RoomHandle`] is the cloneable way in.
//! - [`registry`]: the rooms by id. [`bot`]: built-in bots, clients like any other.
//! - [`origin`]: CORS and WebSocket origin checks. [`token`]: secrets.
//! - [`error`]: lobby errors with stable codes.
//! - [`web`]: the embedded browser client (`/`, `/web/...`) and `GET /api/board`.
//!
//! [`run`] takes its listener and shutdown signal from outside, so tests bind port 0.

pub mod bot;
pub mod config;
pub mod error;
pub mod history;
pub mod lobby;
pub mod origin;
pub mod protocol;
pub mod registry;
pub mod room;
pub mod store;
pub mod token;
pub mod web;
pub mod ws;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, post};
use tokio::net::TcpListener;
use tokio::sync::watch;

pub use config::Config;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState {
    /// Where games are kept.
    pub store: Arc<dyn store::Store>,
    /// Server configuration.
    pub config: Arc<Config>,
    /// The rooms.
    pub rooms: Arc<registry::Rooms>,
    /// Allowed origins for CORS and WebSockets.
    pub origins: Arc<origin::OriginPolicy>,
    /// Becomes `true` when the server shuts down; connections then close.
    pub shutdown: watch::Receiver<bool>,
    /// Keeps the shutdown channel open for as long as the state lives.
    shutdown_tx: Arc<watch::Sender<bool>>,
}

impl AppState {
    /// Fresh state for `config`.
    #[must_use]
    pub fn new(config: Config, store: Arc<dyn store::Store>) -> AppState {
        let (tx, rx) = watch::channel(false);
        AppState {
            store,
            origins: Arc::new(origin::OriginPolicy::new(&config.allowed_origins)),
            config: Arc::new(config),
            rooms: Arc::new(registry::Rooms::default()),
            shutdown: rx,
            shutdown_tx: Arc::new(tx),
        }
    }

    /// Tells every connection that the server is going away.
    pub fn begin_shutdown(&self) {
        self.shutdown_tx.send_replace(true);
    }
}

/// The public router: lobby API, WebSocket and health check.
pub fn app(state: AppState) -> Router {
    let cors = state.origins.cors();
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/", get(web::index))
        .route("/web/{file}", get(web::asset))
        .route("/api/board", get(web::board))
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
        .route("/api/rooms/{id}/ws", get(lobby::websocket))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_origin,
        ))
        .layer(cors)
        .with_state(state)
}

/// Refuses any request from a browser page whose origin is not allowed (so a
/// foreign page cannot even take seats), with `origin_not_allowed`.
async fn check_origin(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if state.origins.allows(request.headers()) {
        next.run(request).await
    } else {
        error::LobbyError::OriginNotAllowed.into_response()
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
            error::LobbyError::StoreUnavailable.into_response()
        }
    }
}

/// Opens the store named by the configuration (applying migrations), restores the
/// unfinished games it holds, and serves until `shutdown` completes.
///
/// # Errors
/// If the store cannot be opened, or I/O errors of the listener.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let store = store::SqlStore::connect(&config.database_url)
        .await
        .map_err(std::io::Error::other)?;
    serve(listener, AppState::new(config, Arc::new(store)), shutdown).await
}

/// Restores the store's unfinished games as rooms, then serves `state` on
/// `listener` until `shutdown` completes; then closes every WebSocket with code 1001
/// and returns once connections have drained.
///
/// # Errors
/// If the store cannot list games, or I/O errors of the listener.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    restore_rooms(&state).await.map_err(std::io::Error::other)?;
    let router = app(state.clone());
    let stopper = state.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            tracing::info!("shutting down");
            stopper.begin_shutdown();
        })
        .await
}

/// Brings back every unfinished game of the store as a live room.
async fn restore_rooms(state: &AppState) -> Result<(), store::StoreError> {
    let games = state.store.unfinished_games().await?;
    for record in games {
        let id = record.game.id;
        let actions = state.store.actions(id).await?;
        let n = actions.len();
        match room::RoomHandle::restore(state.config.clone(), state.store.clone(), record, &actions)
        {
            Ok(handle) => {
                state.rooms.insert(handle);
                tracing::info!(room = %id, actions = n, "restored game");
            }
            Err(e) => tracing::error!(room = %id, error = %e, "could not restore game"),
        }
    }
    Ok(())
}
