//! Quick play (docs/protocol/26-quick-play.md): signed-in players queue for a table
//! of three or four, rated or not, with or without bots; tables form by rating, the
//! longest waiting first, and each is seated in a new room whose game starts once
//! every person at it is connected; a person who does not connect in time is
//! dropped and their seat filled again from the queue or by a bot. The queue and
//! its gathering tables are kept in the store, so that a player is never seated
//! twice even when several instances form tables from it, and a table whose
//! instance died gives its players back to the queue.
//!
//! # Layout
//!
//! - [`matcher`]: how tables form from the tickets waiting: the rating window that
//!   widens with the wait, the longest waiting first, parties seated together, bots
//!   after a wait. Pure: no runtime, store or clock.
//! - [`service`]: joining, leaving and the status of a player ([`service::Queue`]).
//! - [`party`]: friends who queue together ([`party::Parties`]).
//! - [`api`]: the HTTP handlers (`/api/queue`, `/api/queue/party`).
//! - [`socket`]: the queue over a WebSocket (`/api/queue/ws`).
//! - [`tables`]: the loop that forms tables and seats them in rooms.
//! - [`gather`]: the tables whose game has not started: started once everyone is
//!   connected, absent players dropped and their seats filled again.

pub mod api;
pub mod gather;
pub mod matcher;
pub mod party;
pub mod service;
pub mod socket;
pub mod tables;
#[cfg(test)]
mod tests;

/// How long after a table's give-up any instance takes it for lost (ms).
pub const ORPHAN_MARGIN_MS: u64 = 15_000;

/// How the queue works (flags and variables of the server).
#[derive(Clone, Debug, clap::Args)]
pub struct QueueConfig {
    /// Seconds the longest waiting player of a table waits before bots may complete
    /// it (when everyone at it allows bots).
    #[arg(long, env = "CATAN_QUEUE_BOTS_AFTER_SECS", default_value_t = 60)]
    pub queue_bots_after_secs: u64,

    /// Seconds a player seated by the queue has to connect to the table's room;
    /// one who has not by then is dropped from it and the seat filled again (the
    /// game starts once every person at the table is connected).
    #[arg(long, env = "CATAN_QUEUE_CONNECT_SECS", default_value_t = 30)]
    pub queue_connect_secs: u64,

    /// Seconds a table of quick play may gather (from when it formed) before it is
    /// given up: its room closes and its players leave the queue. A table still
    /// gathering 15 s after that has lost its instance, and any instance gives its
    /// players back to the queue.
    #[arg(long, env = "CATAN_QUEUE_GIVE_UP_SECS", default_value_t = 180)]
    pub queue_give_up_secs: u64,

    /// Milliseconds between two formings of tables.
    #[arg(long, env = "CATAN_QUEUE_TICK_MS", default_value_t = 1000)]
    pub queue_tick_ms: u64,

    /// Joins and leaves a player may make per minute on average (bursts of 5);
    /// beyond it they are refused with `429` `rate_limited`. 0 turns it off.
    #[arg(long, env = "CATAN_QUEUE_RATE_PER_MIN", default_value_t = 10)]
    pub queue_rate_per_min: u32,
}

impl QueueConfig {
    /// How long a table may gather before it is given up (ms).
    #[must_use]
    pub fn give_up_ms(&self) -> u64 {
        self.queue_give_up_secs.saturating_mul(1000)
    }

    /// How old a gathering table is when any instance takes it for lost (ms): its
    /// own instance gives it up at [`QueueConfig::give_up_ms`].
    #[must_use]
    pub fn orphan_ms(&self) -> u64 {
        self.give_up_ms().saturating_add(ORPHAN_MARGIN_MS)
    }

    /// The matcher's schedule, with the configured wait before bots.
    #[must_use]
    pub fn schedule(&self) -> matcher::Schedule {
        matcher::Schedule {
            bots_after_ms: self.queue_bots_after_secs.saturating_mul(1000),
            ..matcher::Schedule::default()
        }
    }
}
