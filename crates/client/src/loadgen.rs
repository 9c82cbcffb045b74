//! The load generator: R room slots, each driven by one tokio task that creates a
//! room over HTTP, takes its 4 seats, opens 4 real WebSockets, starts the game and
//! plays it to the end as 4 well-behaved random clients, then starts a new room,
//! until the measured window closes. Loopback targets only; every run is bounded.

use std::sync::Arc;
use std::time::{Duration, Instant};

use catan_bots::{RandomBot, SeatDriver};
use catan_protocol::{ClientMessage, GameOverInfo, ServerMessage};
use futures_util::stream::{SplitSink, select_all};
use futures_util::{FutureExt, SinkExt, StreamExt};
use hdrhistogram::Histogram;
use rand::SeedableRng;
use serde::Serialize;
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;
use uuid::Uuid;

use crate::lobby::Lobby;
use crate::procfs;
use crate::seat::{self, Ws};
use crate::target::Target;

/// Most room slots one run may drive.
pub const MAX_ROOMS: usize = 10_000;
/// Longest measured window.
pub const MAX_DURATION: Duration = Duration::from_secs(600);
/// Longest warm-up.
pub const MAX_WARMUP: Duration = Duration::from_secs(120);
/// Seats per room.
const SEATS: usize = 4;
/// Error messages kept for the report.
const MAX_ERROR_SAMPLES: usize = 10;

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server (checked to be loopback by [`LoadConfig::check`]).
    pub target: Target,
    /// Concurrent room slots.
    pub rooms: usize,
    /// Measured window.
    pub duration: Duration,
    /// Time before the window, not measured.
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
        }
    }

    /// Checks the hard caps and that the target is loopback.
    ///
    /// # Errors
    /// [`ConfigError::OutOfBounds`] with the reason.
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::OutOfBounds(m));
        if crate::target::parse_loopback(&self.target.http).is_err() {
            return bad(format!("target {} is not loopback", self.target.host));
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

/// Everything a run measured. Counts are over the measured window unless named
/// `_total` (whole run, warm-up included).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// `play` or `idle`.
    pub mode: String,
    /// Room slots.
    pub rooms: usize,
    /// WebSockets held by the end of the warm-up.
    pub connections: usize,
    /// Think time, ms.
    pub think_ms: u64,
    /// Measured window, s.
    pub duration_s: f64,
    /// Games that ended (`game_over`) in the window.
    pub games_finished: u64,
    /// Games that ended in the whole run.
    pub games_finished_total: u64,
    /// Games whose result was wrong (winner below the target), should be 0.
    pub bad_results: u64,
    /// Actions acknowledged in the window.
    pub actions: u64,
    /// Actions acknowledged in the whole run (compare with the store's rows).
    pub actions_total: u64,
    /// `actions / duration_s`.
    pub actions_per_s: f64,
    /// Round trip (sent -> own acknowledgement) percentiles, ms.
    pub p50_ms: f64,
    /// 90th percentile, ms.
    pub p90_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// 99.9th percentile, ms.
    pub p999_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// Actions refused (0 for well-behaved clients).
    pub rejected: u64,
    /// Failures of any kind (HTTP, WebSocket, timeouts, `error` messages).
    pub errors: u64,
    /// Connections the server closed or lost before the end of their game.
    pub dropped: u64,
    /// A few error messages.
    pub error_samples: Vec<String>,
    /// Server RSS at the end of the window, KiB.
    pub server_rss_kib: Option<u64>,
    /// `server_rss_kib / connections`.
    pub rss_per_conn_kib: Option<f64>,
    /// `server_rss_kib / rooms`.
    pub rss_per_room_kib: Option<f64>,
    /// Server CPU (user + system) in the window, s.
    pub server_cpu_s: Option<f64>,
    /// Server CPU per acknowledged action in the window, µs.
    pub server_cpu_per_action_us: Option<f64>,
    /// Server CPU share of one core in the window, %.
    pub server_cpu_pct: Option<f64>,
    /// This load generator's CPU share of one core in the window, %.
    pub loadgen_cpu_pct: Option<f64>,
    /// Server RSS samples after the warm-up: (seconds since the window opened, KiB).
    pub rss_samples: Vec<(f64, u64)>,
    /// Least-squares slope of `rss_samples`, KiB per minute.
    pub rss_slope_kib_per_min: Option<f64>,
}

/// What one room slot counted.
struct SlotStats {
    /// Round trips in the window, µs.
    hist: Histogram<u64>,
    actions: u64,
    actions_total: u64,
    games: u64,
    games_total: u64,
    bad_results: u64,
    rejected: u64,
    errors: u64,
    dropped: u64,
    samples: Vec<String>,
    connected: usize,
}

impl SlotStats {
    fn new() -> SlotStats {
        SlotStats {
            hist: Histogram::new_with_bounds(1, 120_000_000, 3).expect("histogram bounds"),
            actions: 0,
            actions_total: 0,
            games: 0,
            games_total: 0,
            bad_results: 0,
            rejected: 0,
            errors: 0,
            dropped: 0,
            samples: Vec::new(),
            connected: 0,
        }
    }

    fn error(&mut self, msg: impl Into<String>) {
        self.errors += 1;
        if self.samples.len() < 2 {
            self.samples.push(msg.into());
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

/// Runs the load described by `config` and reports what it measured.
///
/// # Errors
/// If the configuration is refused (caps, non-loopback target).
pub async fn run(config: LoadConfig) -> Result<Report, ConfigError> {
    config.check()?;
    let config = Arc::new(config);
    let lobby = Lobby::new(&config.target);
    let setup = Arc::new(Semaphore::new(config.setup_concurrency));
    let t0 = Instant::now();
    let window = Window {
        start: t0 + config.warmup,
        end: t0 + config.warmup + config.duration,
    };
    let connected_rooms = config.connected_rooms();
    let mut tasks = Vec::with_capacity(config.rooms);
    for slot in 0..config.rooms {
        let (config, lobby, setup) = (config.clone(), lobby.clone(), setup.clone());
        let connect = slot < connected_rooms;
        tasks.push(tokio::spawn(async move {
            let mut stats = SlotStats::new();
            if config.idle {
                idle_slot(&config, &lobby, &setup, window, connect, &mut stats).await;
            } else {
                play_slot(&config, &lobby, &setup, window, slot, &mut stats).await;
            }
            stats
        }));
    }
    let monitor = tokio::spawn(monitor(config.server_pid, window, config.sample_every));
    let mut total = SlotStats::new();
    for t in tasks {
        match t.await {
            Ok(s) => {
                total.hist.add(&s.hist).expect("same histogram bounds");
                total.actions += s.actions;
                total.actions_total += s.actions_total;
                total.games += s.games;
                total.games_total += s.games_total;
                total.bad_results += s.bad_results;
                total.rejected += s.rejected;
                total.errors += s.errors;
                total.dropped += s.dropped;
                total.connected += s.connected;
                for m in s.samples {
                    if total.samples.len() < MAX_ERROR_SAMPLES {
                        total.samples.push(m);
                    }
                }
            }
            Err(e) => total.error(format!("room task panicked: {e}")),
        }
    }
    let usage = monitor.await.unwrap_or_default();
    Ok(report(&config, &total, &usage))
}

/// Resource use sampled around the window.
#[derive(Debug, Default)]
struct Usage {
    server_cpu_s: Option<f64>,
    own_cpu_s: Option<f64>,
    rss_end: Option<u64>,
    rss_samples: Vec<(f64, u64)>,
}

async fn monitor(pid: Option<u32>, window: Window, every: Duration) -> Usage {
    let me = std::process::id();
    tokio::time::sleep_until(window.start.into()).await;
    let cpu0 = pid.and_then(procfs::cpu_secs);
    let own0 = procfs::cpu_secs(me);
    let mut samples = Vec::new();
    let every = every.max(Duration::from_millis(100));
    let mut next = window.start;
    while next < window.end {
        if let Some(kib) = pid.and_then(procfs::rss_kib) {
            samples.push(((next - window.start).as_secs_f64(), kib));
        }
        next += every;
        tokio::time::sleep_until(next.min(window.end).into()).await;
    }
    let cpu1 = pid.and_then(procfs::cpu_secs);
    let own1 = procfs::cpu_secs(me);
    let rss_end = pid.and_then(procfs::rss_kib);
    if let Some(kib) = rss_end {
        samples.push((window.end.duration_since(window.start).as_secs_f64(), kib));
    }
    Usage {
        server_cpu_s: cpu0.zip(cpu1).map(|(a, b)| b - a),
        own_cpu_s: own0.zip(own1).map(|(a, b)| b - a),
        rss_end,
        rss_samples: samples,
    }
}

fn report(config: &LoadConfig, s: &SlotStats, u: &Usage) -> Report {
    let secs = config.duration.as_secs_f64();
    let ms = |q: f64| s.hist.value_at_quantile(q) as f64 / 1000.0;
    let conns = s.connected;
    #[allow(clippy::cast_precision_loss)]
    let per = |kib: u64, n: usize| (n > 0).then(|| kib as f64 / n as f64);
    let points: Vec<(f64, f64)> = u
        .rss_samples
        .iter()
        .map(|(t, k)| (t / 60.0, *k as f64))
        .collect();
    Report {
        mode: if config.idle { "idle" } else { "play" }.to_owned(),
        rooms: config.rooms,
        connections: conns,
        think_ms: u64::try_from(config.think.as_millis()).unwrap_or(u64::MAX),
        duration_s: secs,
        games_finished: s.games,
        games_finished_total: s.games_total,
        bad_results: s.bad_results,
        actions: s.actions,
        actions_total: s.actions_total,
        actions_per_s: s.actions as f64 / secs,
        p50_ms: ms(0.5),
        p90_ms: ms(0.9),
        p99_ms: ms(0.99),
        p999_ms: ms(0.999),
        max_ms: s.hist.max() as f64 / 1000.0,
        rejected: s.rejected,
        errors: s.errors,
        dropped: s.dropped,
        error_samples: s.samples.clone(),
        server_rss_kib: u.rss_end,
        rss_per_conn_kib: u.rss_end.and_then(|k| per(k, conns)),
        rss_per_room_kib: u.rss_end.and_then(|k| per(k, config.rooms)),
        server_cpu_s: u.server_cpu_s,
        server_cpu_per_action_us: u
            .server_cpu_s
            .filter(|_| s.actions > 0)
            .map(|c| c * 1e6 / s.actions as f64),
        server_cpu_pct: u.server_cpu_s.map(|c| 100.0 * c / secs),
        loadgen_cpu_pct: u.own_cpu_s.map(|c| 100.0 * c / secs),
        rss_samples: u.rss_samples.clone(),
        rss_slope_kib_per_min: procfs::slope(&points),
    }
}

/// A room with its 4 seats taken and connected (and the host token to start it).
struct ReadyRoom {
    id: Uuid,
    host: String,
    sockets: Vec<Ws>,
}

/// Creates a room, takes its 4 seats over HTTP and (if `connect`) opens their
/// WebSockets; at most `setup_concurrency` rooms at a time.
async fn set_up(
    config: &LoadConfig,
    lobby: &Lobby,
    setup: &Semaphore,
    connect: bool,
) -> Result<ReadyRoom, String> {
    let _permit = setup.acquire().await.map_err(|e| e.to_string())?;
    let created = lobby
        .create_room(SEATS as u8, config.vp_target)
        .await
        .map_err(|e| e.to_string())?;
    let mut tokens = Vec::with_capacity(SEATS);
    for i in 0..SEATS {
        let seat = lobby
            .take_seat(created.room_id, &format!("load{i}"))
            .await
            .map_err(|e| e.to_string())?;
        tokens.push(seat.token);
    }
    let mut sockets = Vec::with_capacity(SEATS);
    if connect {
        for t in &tokens {
            sockets.push(
                seat::connect(&config.target, created.room_id, t)
                    .await
                    .map_err(|e| e.to_string())?,
            );
        }
    }
    Ok(ReadyRoom {
        id: created.room_id,
        host: created.host_token,
        sockets,
    })
}

/// Holds a set-up, started room until the window ends, reading whatever comes.
async fn idle_slot(
    config: &LoadConfig,
    lobby: &Lobby,
    setup: &Semaphore,
    window: Window,
    connect: bool,
    stats: &mut SlotStats,
) {
    let room = match set_up(config, lobby, setup, connect).await {
        Ok(r) => r,
        Err(e) => return stats.error(e),
    };
    if let Err(e) = lobby.start(room.id, &room.host).await {
        return stats.error(e.to_string());
    }
    stats.connected = room.sockets.len();
    let mut merged = select_all(room.sockets.into_iter().map(|ws| ws.map(|m| m.map(|_| ()))));
    let end = tokio::time::sleep_until(window.end.into());
    tokio::pin!(end);
    loop {
        tokio::select! {
            () = &mut end => break,
            m = merged.next(), if connect => match m {
                Some(Ok(())) => {}
                Some(Err(e)) => { stats.dropped += 1; stats.error(format!("idle socket: {e}")); break; }
                None => { stats.dropped += 1; stats.error("idle socket closed"); break; }
            },
        }
    }
}

/// Plays games in one room slot until the window ends.
async fn play_slot(
    config: &LoadConfig,
    lobby: &Lobby,
    setup: &Semaphore,
    window: Window,
    slot: usize,
    stats: &mut SlotStats,
) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(
        config.seed ^ (slot as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    );
    while Instant::now() < window.end {
        let room = match set_up(config, lobby, setup, true).await {
            Ok(r) => r,
            Err(e) => {
                stats.error(e);
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        stats.connected = SEATS;
        if let Err(e) = lobby.start(room.id, &room.host).await {
            stats.error(e.to_string());
            continue;
        }
        if !play_game(config, window, room.sockets, &mut rng, stats).await {
            return;
        }
    }
}

/// One seat of a room being played.
struct SeatState {
    sink: SplitSink<Ws, Message>,
    driver: SeatDriver,
    /// Request id and send time of the action in flight.
    pending: Option<(String, Instant)>,
    /// When this seat acts next (after its think time).
    due: Option<Instant>,
    over: bool,
}

/// Plays one game on 4 sockets. Returns false when the slot should stop (the window
/// ended or the room failed beyond use).
#[allow(clippy::too_many_lines)]
async fn play_game(
    config: &LoadConfig,
    window: Window,
    sockets: Vec<Ws>,
    rng: &mut rand::rngs::StdRng,
    stats: &mut SlotStats,
) -> bool {
    let mut seats = Vec::with_capacity(SEATS);
    let mut streams = Vec::with_capacity(SEATS);
    for (i, ws) in sockets.into_iter().enumerate() {
        let (sink, stream) = ws.split();
        seats.push(SeatState {
            sink,
            driver: SeatDriver::new(),
            pending: None,
            due: None,
            over: false,
        });
        streams.push(stream.map(move |m| (i, m)));
    }
    let mut merged = select_all(streams);
    let far = Instant::now() + Duration::from_secs(3600);
    let mut stopping = false;
    let result = 'game: loop {
        // When the next thing happens without a message: a seat's think time ends,
        // an acknowledgement is overdue, or the window closes.
        let now = Instant::now();
        if !stopping && now >= window.end {
            stopping = true;
            for s in &mut seats {
                s.due = None;
            }
        }
        if stopping && seats.iter().all(|s| s.pending.is_none()) {
            break 'game false;
        }
        let mut wake = if stopping { far } else { window.end };
        for s in &seats {
            if let Some(d) = s.due {
                wake = wake.min(d);
            }
            if let Some((_, at)) = &s.pending {
                wake = wake.min(*at + config.action_timeout);
            }
        }
        let first = tokio::select! {
            m = merged.next() => Some(m),
            () = tokio::time::sleep_until(wake.into()) => None,
        };
        let mut batch = Vec::new();
        if let Some(m) = first {
            batch.push(m);
            // Take in everything already received before acting, so each seat acts
            // on its newest legal list.
            while let Some(m) = merged.next().now_or_never() {
                batch.push(m);
            }
        }
        for m in batch {
            let Some((i, m)) = m else {
                if !seats.iter().all(|s| s.over) {
                    stats.dropped += 1;
                    stats.error("all sockets closed before the end of the game");
                }
                break 'game !stopping;
            };
            let text = match m {
                Ok(Message::Text(t)) => t,
                Ok(Message::Close(frame)) => {
                    if !seats[i].over {
                        stats.dropped += 1;
                        stats.error(format!("seat {i} closed by the server: {frame:?}"));
                        break 'game !stopping;
                    }
                    continue;
                }
                Ok(_) => continue,
                Err(e) => {
                    stats.dropped += 1;
                    stats.error(format!("seat {i}: {e}"));
                    break 'game !stopping;
                }
            };
            let msg: ServerMessage = match serde_json::from_str(&text) {
                Ok(m) => m,
                Err(e) => {
                    stats.error(format!("unparsable message: {e}"));
                    continue;
                }
            };
            let now = Instant::now();
            let seat = &mut seats[i];
            let pending = seat.pending.as_ref().map(|(id, _)| id.as_str());
            match &msg {
                ServerMessage::Events {
                    request_id: Some(id),
                    ..
                } if Some(id.as_str()) == pending => {
                    let (_, sent) = seat.pending.take().expect("pending");
                    stats.actions_total += 1;
                    if window.contains(now) {
                        stats.actions += 1;
                        let us = u64::try_from((now - sent).as_micros()).unwrap_or(u64::MAX);
                        stats.hist.saturating_record(us.max(1));
                    }
                }
                ServerMessage::Rejected { request_id, .. }
                    if Some(request_id.as_str()) == pending =>
                {
                    seat.pending = None;
                    stats.rejected += 1;
                    if stats.samples.len() < 2 {
                        stats.samples.push(format!("rejected: {text}"));
                    }
                }
                ServerMessage::Error { .. } => stats.error(format!("server error message: {text}")),
                ServerMessage::GameOver(GameOverInfo { winner, scores, .. }) => {
                    seat.over = true;
                    if i == 0 {
                        stats.games_total += 1;
                        if window.contains(now) {
                            stats.games += 1;
                        }
                        if !scores
                            .iter()
                            .any(|s| s.seat == *winner && s.points >= config.vp_target)
                        {
                            stats.bad_results += 1;
                        }
                    }
                }
                _ => {}
            }
            seat.driver.observe(&msg);
            if !stopping && seat.driver.ready() && seat.due.is_none() {
                seat.due = Some(now + config.think);
            }
        }
        if seats.iter().all(|s| s.over) {
            break 'game true;
        }
        let now = Instant::now();
        for (i, seat) in seats.iter_mut().enumerate() {
            if let Some((_, at)) = &seat.pending
                && now >= *at + config.action_timeout
            {
                stats.error(format!(
                    "seat {i}: no acknowledgement within {:?}",
                    config.action_timeout
                ));
                break 'game !stopping;
            }
            if seat.due.is_some_and(|d| d <= now) {
                seat.due = None;
                if stopping || !seat.driver.ready() {
                    continue;
                }
                let Some(msg) = seat.driver.decide(&mut RandomBot::new(), rng) else {
                    continue;
                };
                let ClientMessage::Action { request_id, .. } = &msg else {
                    // A `sync` after a refusal: its answer is a snapshot, not an ack.
                    let text = serde_json::to_string(&msg).expect("client messages serialize");
                    if let Err(e) = seat.sink.send(Message::Text(text.into())).await {
                        stats.dropped += 1;
                        stats.error(format!("seat {i}: send: {e}"));
                        break 'game !stopping;
                    }
                    continue;
                };
                seat.pending = Some((request_id.clone(), Instant::now()));
                let text = serde_json::to_string(&msg).expect("client messages serialize");
                if let Err(e) = seat.sink.send(Message::Text(text.into())).await {
                    stats.dropped += 1;
                    stats.error(format!("seat {i}: send: {e}"));
                    break 'game !stopping;
                }
            }
        }
    };
    for mut s in seats {
        let _ = s.sink.close().await;
    }
    result
}
