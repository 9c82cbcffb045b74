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
//!
//! [`run`] takes its listener and shutdown signal from outside, so tests bind port 0.

pub mod bot;
pub mod config;
pub mod error;
pub mod lobby;
pub mod origin;
pub mod protocol;
pub mod registry;
pub mod room;
pub mod token;
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
    pub fn new(config: Config) -> AppState {
        let (tx, rx) = watch::channel(false);
        AppState {
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
        .layer(cors)
        .with_state(state)
}

/// Serves `app` on `listener` until `shutdown` completes, then closes every
/// WebSocket with code 1001 and returns once connections have drained.
///
/// # Errors
/// I/O errors of the listener.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let state = AppState::new(config);
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
