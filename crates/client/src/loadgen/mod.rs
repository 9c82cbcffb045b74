//! The load generator: R room slots, each driven by one tokio task that creates a
//! room over HTTP, takes its 4 seats, opens 4 real WebSockets, starts the game and
//! plays it to the end as 4 well-behaved random clients, then starts a new room,
//! until the measured window closes. The warm-up begins once every slot has its
//! first room started (or has failed to), so that the window measures the rooms
//! playing, not their setup beside the first ones' play. Loopback targets only;
//! every run is bounded.
//!
//! # Layout
//!
//! - this module: what to run ([`LoadConfig`], its caps) and the runner, which
//!   spawns the room slots and sums up what they counted;
//! - `play`: one room slot: setting rooms up over HTTP, and the play loop over the
//!   4 WebSockets of each game (or, in idle mode, holding the sockets open);
//! - `misbehave`: the misbehaving client of each room (`--misbehave`);
//! - `report`: what a slot counts, the server's resources sampled around the
//!   measured window, and the [`Report`] built from both;
//! - [`queue`]: the quick-play scenario, people arriving at a steady rate to
//!   join the queue (its own steps and report, not room slots).

mod misbehave;
mod play;
pub mod queue;
mod report;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, watch};

use crate::lobby::Lobby;
use crate::target::Target;
use play::{idle_slot, play_slot};
pub use report::Report;
use report::{SlotStats, monitor, report};

/// Most room slots one run may drive.
pub const MAX_ROOMS: usize = 10_000;
/// Longest measured window.
pub const MAX_DURATION: Duration = Duration::from_secs(600);
/// Longest warm-up.
pub const MAX_WARMUP: Duration = Duration::from_secs(120);
/// Seats per room.
const SEATS: usize = 4;

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server (checked to be loopback by [`LoadConfig::check`]).
    pub target: Target,
    /// Further instances of the same cluster (`--cluster-address`): room slots go to
    /// the instances in turn, `target` first.
    pub more_targets: Vec<Target>,
    /// With several instances: each room's WebSockets go to the next instance after
    /// the one its lobby calls went to (which owns the room), so that every socket
    /// is forwarded; for the cost of forwarding.
    pub forward: bool,
    /// Concurrent room slots.
    pub rooms: usize,
    /// Measured window.
    pub duration: Duration,
    /// Time before the window, not measured, from the moment every room slot has
    /// its first room started.
    pub warmup: Duration,
    /// Pause before a seat acts once it may.
    pub think: Duration,
    /// The server's process id, for its RSS and CPU time.
    pub server_pid: Option<u32>,
    /// An action not acknowledged within this is an error (the room is abandoned).
    pub action_timeout: Duration,
    /// Rooms being set up (HTTP calls, WebSocket upgrades) at once.
    pub setup_concurrency: usize,
    /// Idle mode: create the rooms, take and connect the seats, start the games, and
    /// hold them without playing.
    pub idle: bool,
    /// In idle mode, how many rooms get their 4 WebSockets (the rest are only
    /// created, seated and started): file descriptors are limited.
    pub idle_connect_rooms: usize,
    /// Interval of the server RSS samples.
    pub sample_every: Duration,
    /// Seed of the clients' random choices.
    pub seed: u64,
    /// Victory points to win (10 as in a real game; tests use fewer to end sooner).
    pub vp_target: u8,
    /// One misbehaving spectator per room beside the four seats (flooding, not
    /// reading, sending garbage or reconnecting without end, by slot in turn).
    pub misbehave: bool,
    /// Where the misbehaving clients run: a runtime of their own (the binary gives
    /// them one thread), so that on the load generator's side they take CPU time
    /// from the measured clients only as another process would, through the OS
    /// scheduler, and never hold a worker thread the measured clients wait for;
    /// `None`: the runner's own runtime.
    pub misbehave_runtime: Option<tokio::runtime::Handle>,
    /// Each room slot's clients connect from a loopback address of their own
    /// (127.1.x.y for the seats, 127.2.x.y for the misbehaving spectator), so the
    /// server's per-address limits apply to each room as to one household, as they
    /// would on the internet. Only for an IPv4 target; off: every client from the
    /// system's choice (then the server's per-address limits must be raised).
    pub spread_addresses: bool,
}

/// Why a configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Out of the hard caps.
    #[error("{0}")]
    OutOfBounds(String),
}

impl LoadConfig {
    /// Defaults for `target`: 10 rooms, 10 s after 2 s of warm-up, no think time.
    #[must_use]
    pub fn new(target: Target) -> LoadConfig {
        LoadConfig {
            target,
            more_targets: Vec::new(),
            forward: false,
            rooms: 10,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(2),
            think: Duration::ZERO,
            server_pid: None,
            action_timeout: Duration::from_secs(10),
            setup_concurrency: 64,
            idle: false,
            idle_connect_rooms: usize::MAX,
            sample_every: Duration::from_secs(10),
            seed: 1,
            vp_target: 10,
            misbehave: false,
            misbehave_runtime: None,
            spread_addresses: true,
        }
    }

    /// The `i`-th instance, in turn over `target` and `more_targets`.
    fn instance(&self, i: usize) -> &Target {
        let n = 1 + self.more_targets.len();
        match i % n {
            0 => &self.target,
            k => &self.more_targets[k - 1],
        }
    }

    /// The target as room slot `slot`'s seats (or, if `misbehaving`, its
    /// misbehaving spectator) reach it for its lobby calls (see
    /// [`LoadConfig::spread_addresses`]): the slot's instance, in turn.
    #[must_use]
    pub fn slot_target(&self, slot: usize, misbehaving: bool) -> Target {
        self.seen_from_slot(self.instance(slot), slot, misbehaving)
    }

    /// Where room slot `slot`'s seats open their WebSockets: the slot's instance, or
    /// with [`LoadConfig::forward`] the next one.
    #[must_use]
    pub fn socket_target(&self, slot: usize) -> Target {
        let i = if self.forward { slot + 1 } else { slot };
        self.seen_from_slot(self.instance(i), slot, false)
    }

    /// `target` as reached from slot `slot`'s own address.
    fn seen_from_slot(&self, target: &Target, slot: usize, misbehaving: bool) -> Target {
        let ipv4 = target.host.parse::<std::net::Ipv4Addr>().is_ok();
        if !self.spread_addresses || !ipv4 {
            return target.clone();
        }
        // Slots are fewer than MAX_ROOMS < 65,535: two octets, never .0.0.
        let [_, _, hi, lo] = u32::try_from(slot + 1).unwrap_or(u32::MAX).to_be_bytes();
        let net = if misbehaving { 2 } else { 1 };
        target.from_source(std::net::Ipv4Addr::new(127, net, hi, lo).into())
    }

    /// Checks the hard caps and that the target is loopback.
    ///
    /// # Errors
    /// [`ConfigError::OutOfBounds`] with the reason.
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::OutOfBounds(m));
        for t in std::iter::once(&self.target).chain(&self.more_targets) {
            if crate::target::parse_loopback(&t.http).is_err() {
                return bad(format!("target {} is not loopback", t.host));
            }
        }
        if self.forward && self.more_targets.is_empty() {
            return bad("forwarding needs two instances or more".into());
        }
        if self.rooms == 0 || self.rooms > MAX_ROOMS {
            return bad(format!("rooms must be 1..={MAX_ROOMS}"));
        }
        if self.duration.is_zero() || self.duration > MAX_DURATION {
            return bad(format!("duration must be 1..={} s", MAX_DURATION.as_secs()));
        }
        if self.warmup > MAX_WARMUP {
            return bad(format!("warmup is at most {} s", MAX_WARMUP.as_secs()));
        }
        if self.think > Duration::from_secs(10) {
            return bad("think is at most 10 s".into());
        }
        if self.setup_concurrency == 0 || self.setup_concurrency > 1024 {
            return bad("setup concurrency must be 1..=1024".into());
        }
        Ok(())
    }

    /// Rooms whose seats get WebSockets.
    fn connected_rooms(&self) -> usize {
        if self.idle {
            self.rooms.min(self.idle_connect_rooms)
        } else {
            self.rooms
        }
    }
}

/// The measured window.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Instant,
    end: Instant,
}

impl Window {
    fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

/// The room slots' first setups: the window is known once the last slot has its
/// first room started (or failed to start one), and opens a warm-up after that.
struct Starting {
    /// Slots still setting up their first room.
    remaining: AtomicUsize,
    warmup: Duration,
    duration: Duration,
    window: watch::Sender<Option<Window>>,
}

impl Starting {
    fn new(slots: usize, warmup: Duration, duration: Duration) -> Starting {
        let starting = Starting {
            remaining: AtomicUsize::new(slots),
            warmup,
            duration,
            window: watch::Sender::new(None),
        };
        if slots == 0 {
            starting.open();
        }
        starting
    }

    fn open(&self) {
        let now = Instant::now();
        self.window.send_replace(Some(Window {
            start: now + self.warmup,
            end: now + self.warmup + self.duration,
        }));
    }

    /// A slot is done with its first setup (whatever came of it); its window, once
    /// every slot is.
    async fn arrive(&self) -> Window {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.open();
        }
        self.window().await
    }

    /// The window, once every slot has arrived.
    async fn window(&self) -> Window {
        let mut rx = self.window.subscribe();
        let window = *rx
            .wait_for(Option::is_some)
            .await
            .expect("the sender lives as long as the slots");
        window.expect("waited for a window")
    }
}

/// Runs the load described by `config` and reports what it measured.
///
/// # Errors
/// If the configuration is refused (caps, non-loopback target).
pub async fn run(config: LoadConfig) -> Result<Report, ConfigError> {
    config.check()?;
    let config = Arc::new(config);
    let setup = Arc::new(Semaphore::new(config.setup_concurrency));
    let starting = Arc::new(Starting::new(config.rooms, config.warmup, config.duration));
    let connected_rooms = config.connected_rooms();
    let mut tasks = Vec::with_capacity(config.rooms);
    for slot in 0..config.rooms {
        let (config, setup, starting) = (config.clone(), setup.clone(), starting.clone());
        let lobby = Lobby::new(&config.slot_target(slot, false));
        let sockets = config.socket_target(slot);
        let connect = slot < connected_rooms;
        tasks.push(tokio::spawn(async move {
            let mut stats = SlotStats::new();
            let at = (&lobby, &sockets);
            if config.idle {
                idle_slot(&config, at, &setup, &starting, connect, &mut stats).await;
            } else {
                play_slot(&config, at, &setup, &starting, slot, &mut stats).await;
            }
            stats
        }));
    }
    let (pid, every) = (config.server_pid, config.sample_every);
    let monitor = tokio::spawn(async move { monitor(pid, starting.window().await, every).await });
    let mut total = SlotStats::new();
    for t in tasks {
        match t.await {
            Ok(s) => total.absorb(s),
            Err(e) => total.error(format!("room task panicked: {e}")),
        }
    }
    let usage = monitor.await.unwrap_or_default();
    Ok(report(&config, &total, &usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_window_opens_a_warm_up_after_the_last_slot_has_its_first_room() {
        let (warmup, duration) = (Duration::from_secs(5), Duration::from_secs(10));
        let starting = Arc::new(Starting::new(2, warmup, duration));
        let early = tokio::spawn({
            let starting = starting.clone();
            async move { starting.arrive().await }
        });
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(
            !early.is_finished(),
            "one slot is still setting up its first room"
        );
        let before = Instant::now();
        let window = starting.arrive().await;
        assert_eq!(early.await.expect("the early slot").start, window.start);
        assert!(
            window.start >= before + warmup,
            "the warm-up begins with the last slot"
        );
        assert_eq!(window.end, window.start + duration);
        // No slots at all: the window is there at once.
        let none = Starting::new(0, warmup, duration);
        assert!(none.window().await.end > none.window().await.start);
    }

    #[test]
    fn each_room_slot_connects_from_its_own_loopback_address() {
        let config = LoadConfig::new(crate::target::parse_loopback("ws://127.0.0.1:9").unwrap());
        let ip = |slot, bad| config.slot_target(slot, bad).source.map(|a| a.to_string());
        assert_eq!(ip(0, false).as_deref(), Some("127.1.0.1"));
        assert_eq!(ip(300, false).as_deref(), Some("127.1.1.45"));
        assert_eq!(ip(300, true).as_deref(), Some("127.2.1.45"));
        assert_eq!(ip(MAX_ROOMS - 1, false).as_deref(), Some("127.1.39.16"));
        // Not for a name or IPv6, and not when turned off.
        for url in ["ws://localhost:9", "ws://[::1]:9"] {
            let c = LoadConfig::new(crate::target::parse_loopback(url).unwrap());
            assert_eq!(c.slot_target(3, false).source, None, "{url}");
        }
        let mut one = config.clone();
        one.spread_addresses = false;
        assert_eq!(one.slot_target(3, true).source, None);
    }

    #[test]
    fn slots_go_to_the_instances_in_turn_and_forwarded_sockets_to_the_next() {
        let t =
            |port: u16| crate::target::parse_loopback(&format!("ws://127.0.0.1:{port}")).unwrap();
        let mut c = LoadConfig::new(t(1));
        c.more_targets = vec![t(2), t(3)];
        let at = |x: Target| x.authority;
        assert_eq!(at(c.slot_target(0, false)), "127.0.0.1:1");
        assert_eq!(at(c.slot_target(4, false)), "127.0.0.1:2");
        assert_eq!(at(c.socket_target(4)), "127.0.0.1:2");
        assert_eq!(c.socket_target(4).source, c.slot_target(4, false).source);
        c.forward = true;
        assert_eq!(at(c.socket_target(4)), "127.0.0.1:3");
        assert_eq!(at(c.socket_target(5)), "127.0.0.1:1");
        assert!(c.check().is_ok());
        let mut alone = LoadConfig::new(t(1));
        alone.forward = true;
        assert!(alone.check().is_err(), "forwarding needs another instance");
    }
}
