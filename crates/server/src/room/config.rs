//! What a room is told of the server's configuration: the defaults of new rooms and
//! how long rooms live ([`RoomConfig`], flags), and [`RoomSettings`], everything a
//! room task reads, so that nothing else of the configuration reaches a room.

use std::time::Duration;

/// The defaults of new rooms and how long rooms live (flags of `catan-server`).
#[derive(Clone, Debug, clap::Args)]
pub struct RoomConfig {
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

    /// Events kept per room for reconnects; a client further behind gets a snapshot.
    #[arg(long, env = "CATAN_EVENT_BACKLOG", default_value_t = 128)]
    pub event_backlog: usize,

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

    /// Seconds a game over days may go without a person or spectator connected and
    /// without any request before its room sleeps: unloaded from memory (the store
    /// holds it all) and woken by the next call, connection or deadline; only when
    /// no move is due within the next 10 minutes. 0 keeps every room awake. In a
    /// cluster a sleeping room has no owner; the instance that wakes it claims it.
    #[arg(long, env = "CATAN_SLEEP_AFTER_SECS", default_value_t = 300)]
    pub sleep_after_secs: u64,
}

impl RoomConfig {
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
}

/// Everything a room reads of the server's configuration.
#[derive(Clone, Debug)]
pub struct RoomSettings {
    /// Room lifetimes and the reconnect backlog.
    pub rooms: RoomConfig,
    /// Messages queued per connection before a slow client is dropped.
    pub outbound_queue: usize,
    /// The bound on an action's store write, retries included.
    pub store_timeout: Duration,
    /// Whether rooms still gathering players are kept in the store (a single
    /// instance), so that they survive a restart; in a cluster they live with the
    /// instance that made them.
    pub keep_lobbies: bool,
    /// Whether games over days sleep (`--sleep-after-secs`).
    pub sleeps: bool,
}
