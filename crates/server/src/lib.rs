//! The authoritative Catan game server: hosts rooms, lets clients take seats over
//! HTTP and play over WebSocket, validates every action through `catan-engine`, and
//! sends each seat exactly what the engine's redaction lets it see.
//!
//! # Layout
//!
//! - [`config`]: flags and environment variables (clap); [`cli`]: the command line
//!   the `catan-server` binary runs.
//! - the wire vocabulary is the `catan-protocol` crate (see protocol.md).
//! - [`lobby`]: the HTTP API (rooms, seats, bots, start) and the WebSocket upgrade.
//! - [`ws`]: one connection's loop: limits, parsing, writing its queue.
//! - [`room`]: rooms as actors. Its `state` module is the room's rules of play, a
//!   synchronous state machine (lobby, playing, finished) unit-tested without a
//!   runtime; [`room::RoomTask`] drives it (commands, deadlines, store writes, socket
//!   queues); [`room::RoomHandle`] is the cloneable way in.
//! - [`routes`]: the public router ([`app`]): every path and its handler, the
//!   origin check and the cluster's forwarding as layers, `/readyz`.
//! - [`registry`]: the rooms by id; [`restore`]: the one path that brings stored
//!   games back as rooms (start-up, cluster takeover). [`bot`]: built-in bots,
//!   clients like any other.
//! - [`listen`]: the accept loop (header timeout, socket caps, peer addresses);
//!   [`address`]: the client's address behind trusted proxies, and the key
//!   per-address limits count it under; [`limits`]: token buckets and WebSocket
//!   counts per client address.
//! - [`origin`]: CORS and WebSocket origin checks. [`token`]: secrets.
//! - [`error`]: lobby errors with stable codes; [`extract`]: what handlers take from
//!   a request (the room of the path, tokens, bodies, the client address, the
//!   refusal during shutdown), each step written once.
//! - [`web`]: the embedded browser client (`/`, `/web/...`), `GET /api/board` and the
//!   protocol's JSON Schema, `GET /api/schema.json`.
//! - [`admin`]: the admin API and `/metrics`, on their own listener, behind a token;
//!   moderation of players (bans, mutes, their audit log).
//! - [`metrics`]: counters, gauges and histograms in the Prometheus text format.
//! - [`store`]: persistence (SQLite or PostgreSQL); [`history`]: finished games.
//! - [`players`]: people who last beyond one room: guests, accounts, sessions,
//!   ratings, and the bans and mutes the rooms enforce.
//! - [`days`]: games over days beyond one room: a player's list of their games.
//! - [`notify`]: notifications: the channels players opt into, what rooms hand
//!   over (a move or an offer is someone's, time runs low), the outbox and the
//!   worker that delivers it with `catan-notify`.
//! - [`queue`]: quick play: a queue, kept in the store, whose tables form by rating
//!   and are seated in new rooms.
//! - [`cluster`]: several instances on one PostgreSQL (docs/cluster.md): leases,
//!   takeover of a dead instance's rooms, forwarding to a room's owner.
//!
//! [`run`] takes its listener and shutdown signal from outside, so tests bind port 0.
//! On shutdown the server stops accepting, tells every client (`closing`, then close
//! code 1001), lets each room finish what it is doing, waits for pending database
//! writes, and returns within `--shutdown-timeout-secs`.

pub mod address;
pub mod admin;
pub mod bot;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod days;
pub mod error;
pub mod extract;
pub mod history;
pub mod limits;
pub mod listen;
pub mod lobby;
pub mod metrics;
pub mod notify;
pub mod origin;
pub mod players;
pub mod queue;
pub mod registry;
pub mod restore;
pub mod room;
pub mod routes;
pub mod store;
pub mod token;
pub mod web;
pub mod ws;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use secrecy::ExposeSecret;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

pub use config::Config;
pub use routes::app;

/// Most open sockets on the admin listener, apart from the public listener's cap, so
/// that it answers even when the public listener is full.
const ADMIN_CONNECTIONS: usize = 64;

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
    /// Cancelled when the server shuts down: listeners stop accepting, connections
    /// close, rooms end (each room watches a child of it).
    pub shutdown: CancellationToken,
    /// Counters, gauges and histograms for `/metrics` and `/admin/stats`.
    pub metrics: Arc<metrics::Metrics>,
    /// Room tasks, WebSocket connections and background store writes: shutdown
    /// waits for them.
    pub tasks: TaskTracker,
    /// Costly lobby calls per client address.
    pub lobby_limiter: Arc<limits::AddressLimiter>,
    /// WebSocket upgrades per client address.
    pub websocket_limiter: Arc<limits::AddressLimiter>,
    /// Open WebSockets, in total and per client address.
    pub sockets: Arc<limits::SocketCounts>,
    /// Who a request is from, behind the trusted proxies.
    pub client_addresses: Arc<address::ClientAddresses>,
    /// In a cluster (`--cluster-address`): this instance and its leases.
    pub cluster: Option<Arc<cluster::Cluster>>,
    /// Players, accounts and sessions.
    pub players: Arc<players::Players>,
    /// Quick play's queue.
    pub queue: Arc<queue::service::Queue>,
    /// Notifications: players' channels, the rooms' handovers, delivery.
    pub notify: Arc<notify::Notify>,
    /// What every room reads of the configuration (shared by all rooms).
    room_settings: Arc<room::RoomSettings>,
    /// The built-in bots, with the slots bounding their searches.
    bots: Arc<bot::Bots>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("rooms", &self.rooms.len())
            .field("cluster", &self.cluster.is_some())
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Fresh state for `config`; every call to `store` is bounded by
    /// `--store-timeout-ms`, and every write timed for the metrics.
    #[must_use]
    pub fn new(config: Config, store: Arc<dyn store::Store>) -> AppState {
        let metrics = Arc::new(metrics::Metrics::default());
        let store: Arc<dyn store::Store> = Arc::new(store::Guarded::new(
            store,
            config.store.store_timeout(),
            metrics.clone(),
        ));
        let players = Arc::new(players::Players::new(
            store.clone(),
            config.players.clone(),
            &config.listen.public_origins,
        ));
        let rooms = Arc::new(registry::Rooms::new(config.limits.max_rooms));
        let notify = Arc::new(notify::Notify::new(&config, store.clone(), metrics.clone()));
        AppState {
            notify,
            queue: Arc::new(queue::service::Queue::new(
                store.clone(),
                players.sanctions().clone(),
                rooms.clone(),
                &config.queue,
            )),
            players,
            lobby_limiter: Arc::new(limits::AddressLimiter::new(
                config.limits.lobby_rate_per_min,
                config.limits.lobby_burst,
            )),
            websocket_limiter: Arc::new(limits::AddressLimiter::new(
                config.limits.websocket_rate_per_min,
                config.limits.websocket_burst,
            )),
            sockets: Arc::new(limits::SocketCounts::new(
                config.socket_budget().1,
                config.limits.max_websockets_per_address,
            )),
            client_addresses: Arc::new(config.listen.client_addresses()),
            store,
            origins: Arc::new(origin::OriginPolicy::new(
                &config.listen.allowed_origins,
                &config.listen.public_origins,
            )),
            rooms,
            room_settings: Arc::new(config.room_settings()),
            bots: Arc::new(bot::Bots::new(config.bots.settings())),
            config: Arc::new(config),
            shutdown: CancellationToken::new(),
            metrics,
            tasks: TaskTracker::new(),
            cluster: None,
        }
    }

    /// The state of one instance of a cluster.
    #[must_use]
    pub fn with_cluster(mut self, cluster: Option<Arc<cluster::Cluster>>) -> AppState {
        if let Some(c) = &cluster {
            self.queue.join_cluster(c.clone());
        }
        self.cluster = cluster;
        self
    }

    /// What a new or restored room needs from the server.
    #[must_use]
    pub fn room_context(&self) -> room::RoomContext {
        room::RoomContext {
            settings: self.room_settings.clone(),
            store: self.store.clone(),
            metrics: self.metrics.clone(),
            tasks: self.tasks.clone(),
            shutdown: self.shutdown.child_token(),
            bots: self.bots.clone(),
            rooms: Arc::downgrade(&(self.rooms.clone() as Arc<dyn room::Directory>)),
            sanctions: self.players.sanctions().clone(),
            notices: self.notify.handovers(),
        }
    }

    /// What brings stored games back as rooms of this server.
    #[must_use]
    pub fn restorer(&self) -> restore::Restorer {
        restore::Restorer::new(self.store.clone(), self.rooms.clone(), self.room_context())
    }

    /// The room with this id (as a path gives it), woken if it sleeps:
    /// `room_not_found` when the id is malformed or no room has it,
    /// `shutting_down` when rooms are ending with the server, `store_unavailable`
    /// when a sleeping room cannot be read, `server_busy` when another instance of
    /// a cluster woke it at the same moment (asked again, the call is passed on).
    ///
    /// # Errors
    /// As said.
    pub async fn room(&self, id: &str) -> Result<room::RoomHandle, error::LobbyError> {
        let gone = || {
            if self.shutdown.is_cancelled() {
                error::LobbyError::ShuttingDown
            } else {
                error::LobbyError::RoomNotFound
            }
        };
        let id = uuid::Uuid::parse_str(id).map_err(|_| gone())?;
        if let Ok(room) = self.rooms.get(id) {
            return Ok(room);
        }
        // A game over days whose room sleeps wakes for the call (protocol 27.5).
        if !self.config.rooms_sleep() || self.shutdown.is_cancelled() {
            return Err(gone());
        }
        match self.restorer().wake(id).await {
            Ok(restore::Woken::Here(room)) => Ok(room),
            Ok(restore::Woken::NotAsleep) => self.rooms.get(id).map_err(|_| gone()),
            // Asked again, the call goes to the instance that woke it.
            Ok(restore::Woken::Elsewhere) => Err(error::LobbyError::ServerBusy),
            Err(e) => {
                tracing::warn!(room = %id, error = %e, "could not wake a sleeping room");
                Err(error::LobbyError::StoreUnavailable)
            }
        }
    }

    /// Tells every connection that the server is going away.
    pub fn begin_shutdown(&self) {
        self.shutdown.cancel();
    }
}

/// Why the server could not start, or stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database URL or password cannot be used.
    #[error(transparent)]
    Config(#[from] store::ConfigError),
    /// Another server holds the SQLite database.
    #[error(transparent)]
    Locked(#[from] store::LockError),
    /// The store refused (migrations, a refused password, an unreadable game list).
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A listener could not be bound or failed.
    #[error("listener: {0}")]
    Listener(#[from] std::io::Error),
    /// A listener's task ended abnormally.
    #[error("a listener's task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Opens the store named by the configuration (applying migrations), restores the
/// unfinished games it holds, and serves on `listener` (and on the admin listener
/// when an admin token is configured) until `shutdown` completes.
///
/// # Errors
/// [`ServeError`]: the store cannot be opened, the admin listener cannot be bound,
/// or a listener failed.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let admin = bind_admin(&config).await?;
    run_with(listener, admin, config, shutdown).await
}

/// Binds the admin listener at `--admin-bind` when an admin token is configured;
/// without one the admin API is disabled, and this says so.
///
/// # Errors
/// If the address cannot be bound.
pub async fn bind_admin(config: &Config) -> std::io::Result<Option<TcpListener>> {
    if config.admin_token().is_none() {
        warn!(
            "admin API disabled: no admin token (--admin-token / CATAN_ADMIN_TOKEN); \
             the admin listener and /metrics are not started"
        );
        return Ok(None);
    }
    let listener = TcpListener::bind(config.listen.admin_bind).await?;
    info!(addr = %listener.local_addr()?, "listening (admin API and metrics)");
    Ok(Some(listener))
}

/// [`run`] with an admin listener bound by the caller (ignored without a token).
///
/// # Errors
/// As [`run`].
pub async fn run_with(
    listener: TcpListener,
    admin: Option<TcpListener>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let url = config.store.database_connect_url()?;
    // Held until the server has stopped: one server per SQLite file.
    let _single = store::lock_sqlite(url.expose_secret())?;
    // In a cluster every write of a room is fenced by the lease this instance holds.
    let fence = config.cluster.cluster_address.as_ref().map(|_| {
        Arc::new(store::Fence::new(
            uuid::Uuid::new_v4().to_string(),
            config.cluster.cluster_lease(),
        ))
    });
    let mut shutdown = Box::pin(shutdown);
    // A signal during the first attempt is kept (the server serves, then shuts down
    // gracefully); while an unreachable database is waited for, it stops the wait.
    let store = match store::SqlStore::connect_with(url.expose_secret(), fence.clone()).await {
        Ok(s) => s,
        Err(e) if e.is_transient() => {
            warn!(error = %e, "database not reachable yet; retrying");
            tokio::select! {
                s = store::connect_at_start(url.expose_secret(), fence.clone()) => s?,
                () = &mut shutdown => {
                    info!("stopped while waiting for the database");
                    return Ok(());
                }
            }
        }
        Err(e) => return Err(e.into()),
    };
    let cluster = fence
        .zip(config.cluster.cluster_address.clone())
        .map(|(f, address)| {
            let leases = store::Leases::new(store.pool().clone(), url.clone(), f.clone());
            Arc::new(cluster::Cluster::new(f, address, leases))
        });
    let state = AppState::new(config, Arc::new(store)).with_cluster(cluster);
    serve(listener, admin, state, shutdown).await
}

/// Restores the store's unfinished games as rooms, then serves `state` on
/// `listener`, and the admin API on `admin` when given and a token is configured,
/// until `shutdown` completes. Then it stops accepting, closes every WebSocket with
/// a `closing` message and code 1001, lets rooms finish the command at hand, waits
/// for pending store writes, and returns, all within `--shutdown-timeout-secs`.
///
/// # Errors
/// [`ServeError`]: the store cannot list games, or a listener failed.
pub async fn serve(
    listener: TcpListener,
    admin: Option<TcpListener>,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    // The bans and mutes in force, before any room takes a connection; then kept
    // current (an administrator of another instance of a cluster may change them).
    let sanctions = state.players.sanctions().clone();
    players::enforce::reload(state.store.as_ref(), &sanctions, &state.rooms).await;
    tokio::spawn(players::enforce::keep_reloading(
        state.store.clone(),
        sanctions,
        state.rooms.clone(),
        state.shutdown.clone(),
    ));
    tokio::spawn(queue::tables::run(state.clone()));
    state.notify.start(&state.tasks, &state.shutdown);
    match &state.cluster {
        // One instance: it holds every unfinished game.
        None => {
            let (games, lobbies) = state.restorer().all().await?;
            info!(
                games,
                lobbies, "unfinished games and rooms gathering players restored"
            );
        }
        // Several: the games are claimed, a share each, as their leases expire.
        Some(c) => {
            c.register().await?;
            tokio::spawn(cluster::run(
                c.clone(),
                state.restorer(),
                state.rooms.clone(),
                state.shutdown.clone(),
            ));
        }
    }
    // Sleeping games whose deadline comes are woken (in a cluster by whichever
    // instance claims them first).
    if state.config.rooms_sleep() {
        tokio::spawn(days::wake::run(state.restorer(), state.shutdown.clone()));
    }
    if state.client_addresses.header_without_proxies() {
        warn!(
            "--client-address-header / CATAN_CLIENT_ADDRESS_HEADER is set but no proxy is \
             trusted to send it: it is ignored; set --trusted-proxies / CATAN_TRUSTED_PROXIES \
             to the proxy's address"
        );
    }
    let mut servers: Vec<JoinHandle<std::io::Result<()>>> = Vec::new();
    let public = app(state.clone());
    let (connections, websockets) = state.config.socket_budget();
    info!(
        connections,
        websockets, "socket caps of the public listener"
    );
    let per_address = state.config.listen.max_connections_per_address;
    servers.push(spawn_server(
        listener,
        public,
        &state,
        connections,
        per_address,
    ));
    match (admin, state.config.admin_token()) {
        (Some(l), Some(token)) => {
            let router = admin::router(state.clone(), token);
            // Every admin call comes from the operator's few addresses (one, through
            // a container's published port): no per-address cap, only the total.
            servers.push(spawn_server(l, router, &state, ADMIN_CONNECTIONS, 0));
        }
        (Some(_), None) => warn!("admin API disabled: no admin token"),
        (None, _) => {}
    }
    let failed = tokio::select! {
        () = shutdown => None,
        (result, _, _) = futures_util::future::select_all(servers.iter_mut()) => Some(result),
    };
    info!("shutting down");
    state.begin_shutdown();
    state.tasks.close();
    let drained = tokio::time::timeout(state.config.shutdown_timeout(), async {
        for s in servers {
            let _ = s.await;
        }
        state.tasks.wait().await;
    })
    .await;
    // Every write is flushed: the other instances may take the rooms over now.
    if let Some(c) = &state.cluster
        && drained.is_ok()
        && let Err(e) = c.release_all().await
    {
        warn!(error = %e, "could not let the leases go; they expire by themselves");
    }
    match drained {
        Ok(()) => info!("shut down cleanly"),
        Err(_) => warn!(
            pending = state.tasks.len(),
            timeout_secs = state.config.shutdown_timeout_secs,
            "shutdown timed out; exiting with tasks still running"
        ),
    }
    match failed {
        Some(Ok(Err(e))) => Err(ServeError::Listener(e)),
        Some(Err(e)) => Err(ServeError::Task(e)),
        _ => Ok(()),
    }
}

/// Serves `router` on `listener` until the server begins to shut down, with at most
/// `max_connections` sockets open, `max_per_address` from one peer address (0: no cap).
fn spawn_server(
    listener: TcpListener,
    router: Router,
    state: &AppState,
    max_connections: usize,
    max_per_address: usize,
) -> JoinHandle<std::io::Result<()>> {
    let limits = listen::ListenLimits {
        max_connections,
        max_per_address,
        header_timeout: std::time::Duration::from_secs(state.config.listen.header_timeout_secs),
        proxies: (*state.client_addresses).clone(),
        peers: state.cluster.as_ref().map(|c| c.peers()),
    };
    tokio::spawn(listen::serve(
        listener,
        router,
        limits,
        state.shutdown.clone(),
    ))
}

/// Completes on Ctrl-C or, on Unix, SIGTERM: the signals that start a graceful
/// shutdown. On Unix the handlers are installed when this is called (inside a Tokio
/// runtime), not when the future is first polled, so a signal that comes while the
/// server is still starting is kept for then instead of killing the process.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        async fn next(s: &mut Option<Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        async move {
            tokio::select! {
                () = next(&mut interrupt) => info!("Ctrl-C received"),
                () = next(&mut terminate) => info!("SIGTERM received"),
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
        info!("Ctrl-C received");
    }
}
