//! The reference client for `catan-server`: what an app author needs to play a seat
//! over the real protocol, and the load generator built on the same code.
//!
//! # Layout
//!
//! - [`target`]: parses a server URL; the load generator refuses non-loopback hosts.
//! - [`lobby`]: the HTTP lobby calls (create a room, take a seat, add a bot, start).
//! - [`seat`]: one seat's WebSocket: parses each
//!   [`ServerMessage`](catan_protocol::ServerMessage) and plays it with the one bot
//!   driver, [`SeatDriver`](catan_bots::SeatDriver) (act only on the newest `legal`
//!   list, one action in flight until its acknowledgement or rejection, the view kept
//!   current from the events).
//!
//! It depends on the wire vocabulary (`catan-protocol`), the engine and the bots,
//! never on the server: `cargo tree -p catan-client` shows no axum, sqlx or tower.
//! - [`loadgen`]: many rooms of four seats over real WebSockets, one tokio task per
//!   room, with latency histograms and the server's RSS and CPU.
//! - [`procfs`]: a process's resident memory and CPU time from `/proc`.
//!
//! The binaries are `catan-bot` (plays one seat on any server) and `catan-loadgen`.

pub mod loadgen;
pub mod lobby;
pub mod procfs;
pub mod seat;
pub mod target;

/// Any failure of the client, with enough context to print.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// An HTTP call failed or was refused.
    #[error("http: {0}")]
    Http(String),
    /// The WebSocket failed.
    #[error("websocket: {0}")]
    WebSocket(String),
    /// The server sent something this client cannot read.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The URL is unusable (or not loopback where that is required).
    #[error(transparent)]
    Target(#[from] target::TargetError),
}
