//! Server configuration: command-line flags, each also readable from an environment
//! variable (flags win). `catan-server --help` lists them all.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use secrecy::{ExposeSecret, SecretString};

/// Everything the server can be told at start-up.
/// Secrets (the database URL, which may hold a password, and the admin token) are
/// [`SecretString`]s: their `Debug` says `[REDACTED]`, and reading them takes an
/// explicit `expose_secret()` where they are used.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "catan-server",
    version,
    about = "Authoritative WebSocket game server for Catan"
)]
pub struct Config {
    /// Address of the public listener (lobby HTTP API and WebSocket).
    #[arg(long, env = "CATAN_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Address of the admin listener (admin API and metrics); keep it on loopback.
    #[arg(long, env = "CATAN_ADMIN_BIND", default_value = "127.0.0.1:8081")]
    pub admin_bind: SocketAddr,

    /// Database URL: `postgres://...` for PostgreSQL, `sqlite://FILE` for the embedded
    /// store. Default: an SQLite file `catan.db` in the working directory.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://catan.db")]
    pub database_url: SecretString,

    /// Bearer token for the admin API. Without one the admin API is disabled.
    #[arg(long, env = "CATAN_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<SecretString>,

    /// Origins allowed to call the HTTP API (CORS) and to open WebSockets, comma
    /// separated, e.g. `https://catan.example.org`; `*` allows any. Requests without
    /// an `Origin` header (non-browser clients) are always allowed, and so are
    /// same-origin requests (`Origin` equal to `http(s)://` + the `Host` header).
    #[arg(long, env = "CATAN_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Default turn timer in seconds per phase for new rooms; 0 turns it off. A room
    /// may choose its own when created.
    #[arg(long, env = "CATAN_TURN_TIMER_SECS", default_value_t = catan_protocol::DEFAULT_TURN_TIMER_SECS)]
    pub turn_timer_secs: u32,

    /// Default trade offer timeout in seconds for new rooms.
    #[arg(long, env = "CATAN_TRADE_TIMEOUT_SECS", default_value_t = catan_protocol::DEFAULT_TRADE_TIMEOUT_SECS)]
    pub trade_timeout_secs: u32,

    /// Default discard timeout in seconds after a 7 for new rooms; 0 turns it off.
    #[arg(long, env = "CATAN_DISCARD_TIMEOUT_SECS", default_value_t = catan_protocol::DEFAULT_DISCARD_TIMEOUT_SECS)]
    pub discard_timeout_secs: u32,

    /// Largest WebSocket text message accepted, in bytes; larger ones are refused with
    /// `message_too_large` (the connection stays up).
    #[arg(long, env = "CATAN_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,

    /// Messages per second a connection may send on average (burst: twice that).
    /// Beyond it messages are refused with `rate_limited`; a client that keeps
    /// flooding is disconnected with close code 4008.
    #[arg(long, env = "CATAN_RATE_LIMIT", default_value_t = 100)]
    pub rate_limit_per_sec: u32,

    /// Most rooms held at once; creating more is refused with `too_many_rooms`.
    #[arg(long, env = "CATAN_MAX_ROOMS", default_value_t = 20_000)]
    pub max_rooms: usize,

    /// Messages queued for one connection before it is dropped as too slow.
    #[arg(long, env = "CATAN_OUTBOUND_QUEUE", default_value_t = 256)]
    pub outbound_queue: usize,

    /// Pause of built-in bots before each action, in milliseconds.
    #[arg(long, env = "CATAN_BOT_THINK_MS", default_value_t = 500)]
    pub bot_think_ms: u64,

    /// Events kept per room for reconnects; a client further behind gets a snapshot.
    #[arg(long, env = "CATAN_EVENT_BACKLOG", default_value_t = 128)]
    pub event_backlog: usize,

    /// WebSocket read buffer per connection in bytes (memory per connection).
    #[arg(long, env = "CATAN_WS_READ_BUFFER", default_value_t = 4096)]
    pub ws_read_buffer: usize,

    /// Seconds a room without a game in progress (in the lobby, or finished) may stay
    /// without any person connected and without any request before it is closed and
    /// forgotten; 0 keeps such rooms forever.
    #[arg(long, env = "CATAN_IDLE_ROOM_SECS", default_value_t = 1800)]
    pub idle_room_secs: u64,

    /// The same for a room whose game is over: seconds without any person connected
    /// and without any request before it is closed (the game stays in `/api/games`);
    /// 0 keeps finished rooms forever.
    #[arg(long, env = "CATAN_FINISHED_ROOM_SECS", default_value_t = 60)]
    pub finished_room_secs: u64,

    /// On SIGTERM or Ctrl-C, the longest wait in seconds for connections to close and
    /// pending database writes to finish before the process exits anyway.
    #[arg(long, env = "CATAN_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,
}

impl Config {
    /// Defaults for tests: loopback on port 0, fast bots, no database file.
    #[must_use]
    pub fn for_tests() -> Config {
        let mut c = Config::parse_from(["catan-server"]);
        c.bind = "127.0.0.1:0".parse().expect("addr");
        c.admin_bind = "127.0.0.1:0".parse().expect("addr");
        c.database_url = "sqlite::memory:".into();
        c.bot_think_ms = 0;
        // Test clients play at full speed on loopback.
        c.rate_limit_per_sec = 100_000;
        c
    }

    /// The admin token, when one is set and not empty (an empty one disables the
    /// admin API rather than accepting an empty bearer token).
    #[must_use]
    pub fn admin_token(&self) -> Option<&SecretString> {
        self.admin_token
            .as_ref()
            .filter(|t| !t.expose_secret().trim().is_empty())
    }

    /// The options a new room gets for every field its creator leaves out: the
    /// protocol's defaults, with the timers this server was started with.
    #[must_use]
    pub fn room_defaults(&self) -> catan_protocol::RoomOptions {
        catan_protocol::RoomOptions {
            turn_timer_secs: self.turn_timer_secs,
            trade_timeout_secs: self.trade_timeout_secs,
            discard_timeout_secs: self.discard_timeout_secs,
            ..catan_protocol::RoomOptions::default()
        }
    }

    /// The shutdown bound.
    #[must_use]
    pub fn shutdown_timeout(&self) -> Duration {
        Duration::from_secs(self.shutdown_timeout_secs)
    }

    /// The bot think delay.
    #[must_use]
    pub fn bot_think(&self) -> Duration {
        Duration::from_millis(self.bot_think_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let mut c = Config::for_tests();
        c.admin_token = Some("hunter2".into());
        c.database_url = "postgres://user:pw@db/catan".into();
        let s = format!("{c:?}");
        assert!(!s.contains("hunter2"));
        assert!(!s.contains("pw@"));
        assert!(!s.contains("user"));
        assert!(s.contains("[REDACTED]"));
    }
}
