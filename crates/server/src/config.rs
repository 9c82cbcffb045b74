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
    #[arg(
        long,
        env = "CATAN_BIND",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub bind: SocketAddr,

    /// Address of the admin listener (admin API and metrics); keep it on loopback.
    #[arg(long, env = "CATAN_ADMIN_BIND", default_value = "127.0.0.1:8081")]
    pub admin_bind: SocketAddr,

    /// Database URL: `postgres://...` for PostgreSQL, `sqlite://FILE` for the embedded
    /// store. Default: an SQLite file `catan.db` in the working directory.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://catan.db")]
    pub database_url: SecretString,

    /// Password for a `postgres://` database URL, given apart from it so that any
    /// password works as it is (`/`, `@`, `:`, `%`... need no escaping): it replaces
    /// the URL's password, if the URL has one. Empty means none.
    #[arg(long, env = "CATAN_DATABASE_PASSWORD", hide_env_values = true)]
    pub database_password: Option<SecretString>,

    /// Bearer token for the admin API. Without one the admin API is disabled.
    #[arg(long, env = "CATAN_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<SecretString>,

    /// Origins allowed to call the HTTP API (CORS) and to open WebSockets, comma
    /// separated, e.g. `https://catan.example.org`; `*` allows any. Requests without
    /// an `Origin` header (non-browser clients) are always allowed, and so are the
    /// server's own pages (see `--public-origins`).
    #[arg(long, env = "CATAN_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// The origins under which this server's own pages are reached, comma separated,
    /// e.g. `https://catan.example.org` behind a proxy. Unset, they are `http://` and
    /// `https://` with the address a connection came in on (and `localhost` on
    /// loopback). The `Host` header is never trusted for this (DNS rebinding).
    #[arg(long, env = "CATAN_PUBLIC_ORIGINS", value_delimiter = ',')]
    pub public_origins: Vec<String>,

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

    /// Costly lobby calls (creating a room, taking a seat, adding a bot) a client
    /// address may make per minute on average; beyond it they are refused with `429`
    /// `rate_limited` and a `Retry-After` header. 0 turns the limit off.
    #[arg(long, env = "CATAN_LOBBY_RATE_PER_MIN", default_value_t = 30)]
    pub lobby_rate_per_min: u32,

    /// Costly lobby calls a client address may make at once (the bucket's size).
    #[arg(long, env = "CATAN_LOBBY_BURST", default_value_t = 10)]
    pub lobby_burst: u32,

    /// WebSocket upgrades (connections and reconnections) a client address may make
    /// per minute on average; beyond it the upgrade is refused with `429`
    /// `rate_limited` and a `Retry-After` header, before any room is involved.
    /// 0 turns the limit off.
    #[arg(long, env = "CATAN_WEBSOCKET_RATE_PER_MIN", default_value_t = 60)]
    pub websocket_rate_per_min: u32,

    /// WebSocket upgrades a client address may make at once (the bucket's size).
    #[arg(long, env = "CATAN_WEBSOCKET_BURST", default_value_t = 20)]
    pub websocket_burst: u32,

    /// Seconds a client address is refused new WebSockets (`429` `rate_limited`)
    /// after one of its connections was closed for flooding (4008). 0 turns the
    /// cool-down off; so does a `websocket_rate_per_min` of 0.
    #[arg(long, env = "CATAN_WEBSOCKET_COOL_DOWN_SECS", default_value_t = 60)]
    pub websocket_cool_down_secs: u64,

    /// HTTP header naming the client's address when the server runs behind a reverse
    /// proxy that sets it, e.g. `X-Forwarded-For`. It is believed only from the
    /// proxies of `--trusted-proxies` (the right-most entry no trusted proxy added is
    /// the client); from anyone else, and when no proxy is trusted, it is ignored and
    /// the peer's own address is the client's.
    #[arg(long, env = "CATAN_CLIENT_ADDRESS_HEADER")]
    pub client_address_header: Option<String>,

    /// The reverse proxies whose `--client-address-header` is believed: IP addresses
    /// or CIDR ranges, comma separated, e.g. `172.28.0.10` or `10.0.0.0/8,fd00::/8`.
    /// Default none. A trusted proxy is also exempt from the per-address socket cap
    /// (every client behind it shares its address).
    #[arg(long, env = "CATAN_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_net)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Seconds a client connection may take to send a whole request head, counted
    /// from when it connects or from the answer to its previous request (so this is
    /// also how long an idle keep-alive connection stays open).
    #[arg(long, env = "CATAN_HEADER_TIMEOUT_SECS", default_value_t = 10)]
    pub header_timeout_secs: u64,

    /// Most open sockets (HTTP and WebSocket) on the public listener; above it the
    /// listener stops accepting until some close. Lowered, if need be, to the
    /// open-file limit (`ulimit -n`) less 128 descriptors kept for the database, the
    /// admin listener and files.
    #[arg(long, env = "CATAN_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Most open sockets (HTTP and WebSocket) on the public listener from one client
    /// address (IPv6: one /64), counted by the peer's address; more are closed at
    /// once. Trusted proxies are exempt. 0 turns the cap off.
    #[arg(long, env = "CATAN_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 64)]
    pub max_connections_per_address: usize,

    /// Most WebSockets open at once; more are refused with `503` `server_busy`. It
    /// stays at least 16 below `--max-connections` (lowered if need be): the
    /// difference is held for plain HTTP calls (`/healthz` included).
    #[arg(long, env = "CATAN_MAX_WEBSOCKETS", default_value_t = 9_000)]
    pub max_websockets: usize,

    /// Most WebSockets open at once from one client address; more are refused with
    /// `429` `too_many_connections`.
    #[arg(long, env = "CATAN_MAX_WEBSOCKETS_PER_ADDRESS", default_value_t = 20)]
    pub max_websockets_per_address: usize,

    /// Seconds between the server's WebSocket pings.
    #[arg(long, env = "CATAN_WS_PING_SECS", default_value_t = 15)]
    pub ws_ping_secs: u64,

    /// Seconds a WebSocket may stay silent (no message, pong or other frame) before
    /// the server closes it with close code 4013.
    #[arg(long, env = "CATAN_WS_TIMEOUT_SECS", default_value_t = 45)]
    pub ws_timeout_secs: u64,

    /// Chat messages a connection may send per minute on average (bursts of 5),
    /// within `--rate-limit-per-sec`; beyond it they are refused with `rate_limited`
    /// and count towards the flood rule (4008).
    #[arg(long, env = "CATAN_CHAT_PER_MIN", default_value_t = 20)]
    pub chat_per_min: u32,

    /// Most rooms held at once; creating more is refused with `too_many_rooms`.
    #[arg(long, env = "CATAN_MAX_ROOMS", default_value_t = 20_000)]
    pub max_rooms: usize,

    /// Messages queued for one connection before it is dropped as too slow.
    #[arg(long, env = "CATAN_OUTBOUND_QUEUE", default_value_t = 256)]
    pub outbound_queue: usize,

    /// Pause of built-in bots before each action, in milliseconds.
    #[arg(long, env = "CATAN_BOT_THINK_MS", default_value_t = 500)]
    pub bot_think_ms: u64,

    /// Search time of a `hard` bot per decision, in milliseconds.
    #[arg(long, env = "CATAN_BOT_SEARCH_MS", default_value_t = 200)]
    pub bot_search_ms: u64,

    /// Blocking threads that run `hard` bots' searches at once (a decision waits for
    /// a free one); 0: one per CPU core.
    #[arg(long, env = "CATAN_BOT_SEARCH_THREADS", default_value_t = 0)]
    pub bot_search_threads: usize,

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

    /// The same, sooner, for a room in the lobby whose seats are all free (nobody
    /// joined it): seconds before it is closed; 0 leaves such rooms to
    /// `--idle-room-secs`. Keeps rooms made and left at once from holding slots.
    #[arg(long, env = "CATAN_EMPTY_ROOM_SECS", default_value_t = 120)]
    pub empty_room_secs: u64,

    /// The same for a room whose game is over: seconds without any person connected
    /// and without any request before it is closed (the game stays in `/api/games`);
    /// 0 keeps finished rooms forever.
    #[arg(long, env = "CATAN_FINISHED_ROOM_SECS", default_value_t = 60)]
    pub finished_room_secs: u64,

    /// Seconds a game in progress may go on with no person in a seat connected (bots
    /// and spectators do not count) before it is ended as abandoned: stored as
    /// `abandoned` (no winner, not restored after a restart) and its room closed;
    /// 0 never ends a game so.
    #[arg(long, env = "CATAN_ABANDON_AFTER_SECS", default_value_t = 3600)]
    pub abandon_after_secs: u64,

    /// Longest wait for any one call to the database, in milliseconds (ten times
    /// that for the start-up read of the games to restore); past it the call fails
    /// as `store_unavailable`. An action whose write is not stored within
    /// this (retries included) is refused, and `/readyz` answers 503 within it.
    #[arg(long, env = "CATAN_STORE_TIMEOUT_MS", default_value_t = 2000)]
    pub store_timeout_ms: u64,

    /// On SIGTERM or Ctrl-C, the longest wait in seconds for connections to close and
    /// pending database writes to finish before the process exits anyway.
    #[arg(long, env = "CATAN_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,

    /// Run as one instance of several sharing one PostgreSQL (docs/cluster.md): the
    /// address the other instances reach this one at, e.g. `http://10.0.0.7:8080`.
    /// Each started game's room is then owned by one instance at a time under a
    /// lease; an instance that dies has its rooms claimed by the others. Unset, the
    /// server is the only one (any database). Needs PostgreSQL.
    #[arg(long, env = "CATAN_CLUSTER_ADDRESS")]
    pub cluster_address: Option<String>,

    /// In a cluster, how long a room's lease lasts from its owner's last renewal, in
    /// seconds (renewed every third of it): how long a room waits before another
    /// instance takes over from one that died.
    #[arg(long, env = "CATAN_CLUSTER_LEASE_SECS", default_value_t = 9)]
    pub cluster_lease_secs: u64,

    /// Log format on stderr: `text` (human-readable; coloured only when stderr is a
    /// terminal and `NO_COLOR` is unset) or `json` (one JSON object per line).
    #[arg(long, env = "CATAN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Something to do instead of serving.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `fields` (with
    /// `message`), and the spans (`span`, `spans`).
    Json,
}

/// The subcommands of `catan-server`; without one it serves.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum Command {
    /// Checks a running server: `GET /healthz` on the `--bind` address (on loopback
    /// when that is 0.0.0.0 or ::). Exits 0 if it answers 200, else 1, with one short
    /// line. Needs nothing but this binary (Docker's HEALTHCHECK runs it).
    Healthcheck {
        /// Seconds to wait for the connection and for the answer.
        #[arg(long, default_value_t = 3)]
        timeout_secs: u64,
    },
}

/// A configuration the server cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--database-url` does not parse as a URL.
    #[error("--database-url / DATABASE_URL is not a valid URL: {0}")]
    DatabaseUrl(String),
    /// A database password was given for a database that is not PostgreSQL.
    #[error("--database-password / CATAN_DATABASE_PASSWORD is for a postgres:// DATABASE_URL")]
    PasswordWithoutPostgres,
}

/// One `--trusted-proxies` entry: an address (a one-address range) or a CIDR range.
fn parse_net(s: &str) -> Result<ipnet::IpNet, String> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("not an IP address or CIDR range: {s:?}"))
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
        // Every test client comes from loopback.
        c.lobby_rate_per_min = 0;
        c.websocket_rate_per_min = 0;
        c.chat_per_min = 100_000;
        c.max_websockets_per_address = c.max_websockets;
        c.max_connections_per_address = 0;
        c
    }

    /// Who a request is from: `--client-address-header` believed from
    /// `--trusted-proxies` only.
    #[must_use]
    pub fn client_addresses(&self) -> crate::address::ClientAddresses {
        crate::address::ClientAddresses::new(
            self.client_address_header.as_deref(),
            &self.trusted_proxies,
        )
    }

    /// The lease of a room in a cluster (`--cluster-lease-secs`, at least 1 s).
    #[must_use]
    pub fn cluster_lease(&self) -> Duration {
        Duration::from_secs(self.cluster_lease_secs.max(1))
    }

    /// The bound on each store call (`--store-timeout-ms`, at least 1 ms).
    #[must_use]
    pub fn store_timeout(&self) -> Duration {
        Duration::from_millis(self.store_timeout_ms.max(1))
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

    /// The URL the store connects to: `--database-url`, with `--database-password`
    /// (when set) put in as the URL's password, percent-encoded.
    ///
    /// # Errors
    /// If a password is set but the URL is not a `postgres://` URL with a host.
    pub fn database_connect_url(&self) -> Result<SecretString, ConfigError> {
        let raw = self.database_url.expose_secret();
        let Some(password) = self
            .database_password
            .as_ref()
            .map(ExposeSecret::expose_secret)
            .filter(|p| !p.is_empty())
        else {
            return Ok(raw.into());
        };
        // The parse error says where the URL is broken, never what it holds.
        let mut url = url::Url::parse(raw).map_err(|e| ConfigError::DatabaseUrl(e.to_string()))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(ConfigError::PasswordWithoutPostgres);
        }
        // Every byte but letters and digits percent-encoded (`set_password` alone
        // would leave `%` as it is, and sqlx decodes `%41` to `A`).
        let encoded =
            percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC)
                .to_string();
        url.set_password(Some(&encoded))
            .map_err(|()| ConfigError::DatabaseUrl("no host to log in to".into()))?;
        Ok(String::from(url).into())
    }

    /// The shutdown bound.
    #[must_use]
    pub fn shutdown_timeout(&self) -> Duration {
        Duration::from_secs(self.shutdown_timeout_secs)
    }

    /// `(max_connections, max_websockets)` in force: as configured, within the
    /// process's open-file limit ([`crate::limits::socket_budget`]).
    #[must_use]
    pub fn socket_budget(&self) -> (usize, usize) {
        crate::limits::socket_budget(
            self.max_connections,
            self.max_websockets,
            crate::limits::open_file_limit(),
        )
    }

    /// The bot think delay.
    #[must_use]
    pub fn bot_think(&self) -> Duration {
        Duration::from_millis(self.bot_think_ms)
    }

    /// What built-in bots are started with.
    #[must_use]
    pub fn bot_settings(&self) -> crate::bot::BotSettings {
        crate::bot::BotSettings {
            think: self.bot_think(),
            search: catan_bots::Budget {
                time: Some(Duration::from_millis(self.bot_search_ms.max(1))),
                ..catan_bots::Budget::default()
            },
            search_threads: self.bot_search_threads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_password_goes_into_the_url_percent_encoded() {
        let mut c = Config::for_tests();
        c.database_url = "postgres://catan@db:5432/catan?sslmode=prefer".into();
        assert_eq!(
            c.database_connect_url().unwrap().expose_secret(),
            "postgres://catan@db:5432/catan?sslmode=prefer",
            "without a password the URL is used as it is"
        );
        c.database_password = Some("a/b+c=d@e:f%41%g h'\"#?".into());
        let url = c.database_connect_url().unwrap();
        let parsed = url::Url::parse(url.expose_secret()).unwrap();
        assert_eq!(parsed.host_str(), Some("db"));
        assert_eq!(parsed.port(), Some(5432));
        assert_eq!(parsed.username(), "catan");
        assert_eq!(parsed.path(), "/catan");
        assert_eq!(parsed.query(), Some("sslmode=prefer"));
        assert_eq!(
            percent_decode(parsed.password().unwrap()),
            "a/b+c=d@e:f%41%g h'\"#?"
        );
        // It replaces a password in the URL.
        c.database_url = "postgres://catan:old@db/catan".into();
        let url = c.database_connect_url().unwrap();
        assert!(!url.expose_secret().contains("old"));
        // An empty one is none.
        c.database_password = Some("".into());
        assert_eq!(
            c.database_connect_url().unwrap().expose_secret(),
            "postgres://catan:old@db/catan"
        );
        c.database_password = Some("pw".into());
        c.database_url = "sqlite://catan.db".into();
        assert!(matches!(
            c.database_connect_url(),
            Err(ConfigError::PasswordWithoutPostgres)
        ));
    }

    /// As sqlx decodes the URL's password.
    fn percent_decode(s: &str) -> String {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .unwrap()
            .into_owned()
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let mut c = Config::for_tests();
        c.admin_token = Some("hunter2".into());
        c.database_url = "postgres://user:pw@db/catan".into();
        c.database_password = Some("s3cret".into());
        let s = format!("{c:?}");
        assert!(!s.contains("s3cret"));
        assert!(!s.contains("hunter2"));
        assert!(!s.contains("pw@"));
        assert!(!s.contains("user"));
        assert!(s.contains("[REDACTED]"));
    }
}
