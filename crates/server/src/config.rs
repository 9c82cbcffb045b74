//! Server configuration: command-line flags, each also readable from an environment
//! variable (flags win). `catan-server --help` lists them all. The flags are
//! grouped by the part of the server that reads them, each group defined beside
//! it ([`crate::listen::ListenConfig`], [`crate::limits::LimitsConfig`],
//! [`crate::store::StoreConfig`], [`crate::cluster::ClusterConfig`],
//! [`crate::bot::BotConfig`], [`crate::room::RoomConfig`],
//! [`crate::players::PlayersConfig`], [`crate::notify::NotifyConfig`]); a room receives only
//! [`crate::room::RoomSettings`].

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
    /// Where the server listens and who may reach it.
    #[command(flatten)]
    pub listen: crate::listen::ListenConfig,

    /// Abuse limits and per-connection budgets.
    #[command(flatten)]
    pub limits: crate::limits::LimitsConfig,

    /// Where games are stored.
    #[command(flatten)]
    pub store: crate::store::StoreConfig,

    /// Running as one instance of several.
    #[command(flatten)]
    pub cluster: crate::cluster::ClusterConfig,

    /// How built-in bots play.
    #[command(flatten)]
    pub bots: crate::bot::BotConfig,

    /// The defaults of new rooms and how long rooms live.
    #[command(flatten)]
    pub rooms: crate::room::RoomConfig,

    /// Players' sessions and sign-in limits.
    #[command(flatten)]
    pub players: crate::players::PlayersConfig,

    /// Quick play's queue.
    #[command(flatten)]
    pub queue: crate::queue::QueueConfig,

    /// Notifications: links, SMTP, Web Push, webhooks.
    #[command(flatten)]
    pub notify: crate::notify::NotifyConfig,

    /// Bearer token for the admin API. Without one the admin API is disabled.
    #[arg(long, env = "CATAN_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<SecretString>,

    /// On SIGTERM or Ctrl-C, the longest wait in seconds for connections to close and
    /// pending database writes to finish before the process exits anyway.
    #[arg(long, env = "CATAN_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,

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
    /// Recomputes every player's rating from the stored rated games, in the order
    /// their updates were made, and compares it with the rating stored (the same to
    /// the last bit when nothing was lost or changed by hand). Prints one line per
    /// player that differs; exits 0 when none does, 1 otherwise. With `--write`,
    /// the recomputed ratings replace the stored ones (stop the server first).
    Ratings {
        /// Write the recomputed ratings (and rated games and wins).
        #[arg(long)]
        write: bool,
    },
}

impl Config {
    /// Defaults for tests: loopback on port 0, fast bots, no database file.
    #[must_use]
    pub fn for_tests() -> Config {
        let mut c = Config::parse_from(["catan-server"]);
        c.listen.bind = "127.0.0.1:0".parse().expect("addr");
        c.listen.admin_bind = "127.0.0.1:0".parse().expect("addr");
        c.store.database_url = "sqlite::memory:".into();
        c.bots.bot_think_ms = 0;
        // Test clients play at full speed on loopback.
        c.limits.rate_limit_per_sec = 100_000;
        // Every test client comes from loopback.
        c.limits.lobby_rate_per_min = 0;
        c.limits.websocket_rate_per_min = 0;
        c.limits.chat_per_min = 100_000;
        c.limits.max_websockets_per_address = c.limits.max_websockets;
        c.listen.max_connections_per_address = 0;
        c.players.sign_in_rate_per_min = 0;
        c.players.sign_in_per_account_per_hour = 0;
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
            self.listen.max_connections,
            self.limits.max_websockets,
            crate::limits::open_file_limit(),
        )
    }

    /// Whether games over days sleep (`--sleep-after-secs`; in a cluster too: a
    /// sleeping room's lease goes, and whichever instance wakes it claims it).
    #[must_use]
    pub fn rooms_sleep(&self) -> bool {
        self.rooms.sleep_after_secs > 0
    }

    /// What a room reads of the configuration, and nothing else.
    #[must_use]
    pub fn room_settings(&self) -> crate::room::RoomSettings {
        crate::room::RoomSettings {
            rooms: self.rooms.clone(),
            outbound_queue: self.limits.outbound_queue,
            store_timeout: self.store.store_timeout(),
            keep_lobbies: self.cluster.cluster_address.is_none(),
            sleeps: self.rooms_sleep(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let mut c = Config::for_tests();
        c.admin_token = Some("hunter2".into());
        c.store.database_url = "postgres://user:pw@db/catan".into();
        c.store.database_password = Some("s3cret".into());
        let s = format!("{c:?}");
        assert!(!s.contains("s3cret"));
        assert!(!s.contains("hunter2"));
        assert!(!s.contains("pw@"));
        assert!(!s.contains("user"));
        assert!(s.contains("[REDACTED]"));
    }

    #[test]
    fn every_flag_keeps_its_name_and_variable_in_its_group() {
        use clap::CommandFactory;
        let cmd = Config::command();
        let named = |long: &str, env: &str| {
            cmd.get_arguments().any(|a| {
                a.get_long() == Some(long) && a.get_env().and_then(|e| e.to_str()) == Some(env)
            })
        };
        for (long, env) in [
            ("bind", "CATAN_BIND"),
            ("trusted-proxies", "CATAN_TRUSTED_PROXIES"),
            ("lobby-rate-per-min", "CATAN_LOBBY_RATE_PER_MIN"),
            ("database-url", "DATABASE_URL"),
            ("cluster-lease-secs", "CATAN_CLUSTER_LEASE_SECS"),
            ("bot-think-ms", "CATAN_BOT_THINK_MS"),
            ("abandon-after-secs", "CATAN_ABANDON_AFTER_SECS"),
            ("admin-token", "CATAN_ADMIN_TOKEN"),
        ] {
            assert!(named(long, env), "--{long} / {env}");
        }
        let c = Config::parse_from(["catan-server", "--bind", "0.0.0.0:9", "--bot-think-ms", "7"]);
        assert_eq!(c.listen.bind.port(), 9);
        assert_eq!(c.bots.bot_think_ms, 7);
    }
}
