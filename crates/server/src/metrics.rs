//! Operational metrics: a handful of counters, gauges and histograms over atomics,
//! updated by rooms, connections and the store, and rendered in the Prometheus text
//! exposition format (version 0.0.4) for `GET /metrics` on the admin listener. A
//! dozen series do not need a metrics framework, and each server (tests run several
//! in one process) owns its own set.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use catan_protocol::RoomStatus;

/// Upper bounds (seconds) of the latency histograms' buckets.
const LATENCY_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The `Content-Type` of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A latency histogram with fixed buckets.
#[derive(Debug)]
pub struct Histogram {
    /// Observations per bucket (not cumulative); the last entry is `+Inf`.
    buckets: [AtomicU64; LATENCY_BUCKETS.len() + 1],
    /// Sum of all observations, in nanoseconds.
    sum_nanos: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_nanos: AtomicU64::new(0),
        }
    }
}

impl Histogram {
    /// Records one duration.
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = LATENCY_BUCKETS
            .iter()
            .position(|le| secs <= *le)
            .unwrap_or(LATENCY_BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// Number of observations.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} histogram");
        let mut cumulative = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            cumulative += b.load(Ordering::Relaxed);
            match LATENCY_BUCKETS.get(i) {
                Some(le) => {
                    let _ = writeln!(out, "{name}_bucket{{le=\"{le}\"}} {cumulative}");
                }
                None => {
                    let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {cumulative}");
                }
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum {sum}");
        let _ = writeln!(out, "{name}_count {cumulative}");
    }
}

/// Every metric of one server.
#[derive(Debug)]
pub struct Metrics {
    /// When the server started, for uptime.
    started: Instant,
    /// Rooms held, by status: lobby, playing, finished.
    rooms: [AtomicI64; 3],
    /// Open WebSocket connections.
    connections: AtomicI64,
    /// Actions the engine accepted and the store recorded (players', bots' and timers').
    actions_applied: AtomicU64,
    /// `rejected` answers sent, by code.
    rejected: Mutex<BTreeMap<&'static str, u64>>,
    /// Games that reached a winner.
    games_finished: AtomicU64,
    /// From a room receiving a client's action to the broadcast of its events.
    pub action_latency: Histogram,
    /// Duration of each store write (create, append, finish, abandon).
    pub store_write: Histogram,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            started: Instant::now(),
            rooms: std::array::from_fn(|_| AtomicI64::new(0)),
            connections: AtomicI64::new(0),
            actions_applied: AtomicU64::new(0),
            rejected: Mutex::new(BTreeMap::new()),
            games_finished: AtomicU64::new(0),
            action_latency: Histogram::default(),
            store_write: Histogram::default(),
        }
    }
}

/// The room statuses in gauge order, with their label values.
const STATUSES: [(RoomStatus, &str); 3] = [
    (RoomStatus::Lobby, "lobby"),
    (RoomStatus::Playing, "playing"),
    (RoomStatus::Finished, "finished"),
];

fn status_index(s: RoomStatus) -> usize {
    match s {
        RoomStatus::Lobby => 0,
        RoomStatus::Playing => 1,
        RoomStatus::Finished => 2,
    }
}

/// Counts one open WebSocket connection until dropped.
#[derive(Debug)]
pub struct ConnectionGuard(std::sync::Arc<Metrics>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// A room appeared (`from: None`), changed status, or ended (`to: None`).
    pub fn room_moved(&self, from: Option<RoomStatus>, to: Option<RoomStatus>) {
        if let Some(s) = from {
            self.rooms[status_index(s)].fetch_sub(1, Ordering::Relaxed);
        }
        if let Some(s) = to {
            self.rooms[status_index(s)].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Rooms with status `s`.
    #[must_use]
    pub fn rooms(&self, s: RoomStatus) -> u64 {
        u64::try_from(self.rooms[status_index(s)].load(Ordering::Relaxed)).unwrap_or(0)
    }

    /// Counts a WebSocket connection for as long as the guard lives.
    #[must_use]
    pub fn connection(self: &std::sync::Arc<Self>) -> ConnectionGuard {
        self.connections.fetch_add(1, Ordering::Relaxed);
        ConnectionGuard(self.clone())
    }

    /// Open WebSocket connections.
    #[must_use]
    pub fn connections(&self) -> u64 {
        u64::try_from(self.connections.load(Ordering::Relaxed)).unwrap_or(0)
    }

    /// One more action applied.
    pub fn action_applied(&self) {
        self.actions_applied.fetch_add(1, Ordering::Relaxed);
    }

    /// Actions applied so far.
    #[must_use]
    pub fn actions_applied(&self) -> u64 {
        self.actions_applied.load(Ordering::Relaxed)
    }

    /// One more `rejected` answer with `code`.
    pub fn action_rejected(&self, code: &'static str) {
        let mut map = self.rejected.lock().expect("metrics lock");
        *map.entry(code).or_default() += 1;
    }

    /// One more game won.
    pub fn game_finished(&self) {
        self.games_finished.fetch_add(1, Ordering::Relaxed);
    }

    /// Games won so far.
    #[must_use]
    pub fn games_finished(&self) -> u64 {
        self.games_finished.load(Ordering::Relaxed)
    }

    /// Time since start.
    #[must_use]
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Every metric in the Prometheus text format.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        let _ = writeln!(out, "# HELP catan_rooms Rooms held, by status.");
        let _ = writeln!(out, "# TYPE catan_rooms gauge");
        for (s, label) in STATUSES {
            let _ = writeln!(out, "catan_rooms{{status=\"{label}\"}} {}", self.rooms(s));
        }
        let _ = writeln!(
            out,
            "# HELP catan_connections Open WebSocket connections.\n\
             # TYPE catan_connections gauge\n\
             catan_connections {}",
            self.connections()
        );
        let _ = writeln!(
            out,
            "# HELP catan_actions_applied_total Actions accepted by the engine and stored.\n\
             # TYPE catan_actions_applied_total counter\n\
             catan_actions_applied_total {}",
            self.actions_applied()
        );
        let _ = writeln!(
            out,
            "# HELP catan_actions_rejected_total Actions refused, by code.\n\
             # TYPE catan_actions_rejected_total counter"
        );
        for (code, n) in self.rejected.lock().expect("metrics lock").iter() {
            let _ = writeln!(
                out,
                "catan_actions_rejected_total{{code=\"{}\"}} {n}",
                escape_label(code)
            );
        }
        self.action_latency.render(
            &mut out,
            "catan_action_latency_seconds",
            "From a room receiving a client's action to the broadcast of its events.",
        );
        self.store_write.render(
            &mut out,
            "catan_store_write_seconds",
            "Duration of each write to the game store.",
        );
        let _ = writeln!(
            out,
            "# HELP catan_games_finished_total Games that reached a winner.\n\
             # TYPE catan_games_finished_total counter\n\
             catan_games_finished_total {}",
            self.games_finished()
        );
        let _ = writeln!(
            out,
            "# HELP catan_uptime_seconds Seconds since the server started.\n\
             # TYPE catan_uptime_seconds gauge\n\
             catan_uptime_seconds {}",
            self.uptime().as_secs()
        );
        out
    }
}

/// Escapes a label value (backslash, double quote, newline).
fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(text: &'a str, series: &str) -> Option<&'a str> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
    }

    #[test]
    fn histograms_render_cumulative_buckets_sum_and_count() {
        let m = Metrics::default();
        m.action_latency.observe(Duration::from_micros(50));
        m.action_latency.observe(Duration::from_millis(3));
        m.action_latency.observe(Duration::from_secs(10));
        let t = m.render();
        let s = "catan_action_latency_seconds";
        assert_eq!(
            sample(&t, &format!("{s}_bucket{{le=\"0.0001\"}}")),
            Some("1")
        );
        assert_eq!(
            sample(&t, &format!("{s}_bucket{{le=\"0.0025\"}}")),
            Some("1")
        );
        assert_eq!(
            sample(&t, &format!("{s}_bucket{{le=\"0.005\"}}")),
            Some("2")
        );
        assert_eq!(sample(&t, &format!("{s}_bucket{{le=\"2.5\"}}")), Some("2"));
        assert_eq!(sample(&t, &format!("{s}_bucket{{le=\"+Inf\"}}")), Some("3"));
        assert_eq!(sample(&t, &format!("{s}_count")), Some("3"));
        let sum: f64 = sample(&t, &format!("{s}_sum")).unwrap().parse().unwrap();
        assert!((sum - 10.00305).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn gauges_follow_room_moves_and_connections_and_rejections_are_labelled() {
        let m = std::sync::Arc::new(Metrics::default());
        m.room_moved(None, Some(RoomStatus::Lobby));
        m.room_moved(None, Some(RoomStatus::Lobby));
        m.room_moved(Some(RoomStatus::Lobby), Some(RoomStatus::Playing));
        let guard = m.connection();
        m.action_rejected("not_your_turn");
        m.action_rejected("not_your_turn");
        let t = m.render();
        assert_eq!(sample(&t, "catan_rooms{status=\"lobby\"}"), Some("1"));
        assert_eq!(sample(&t, "catan_rooms{status=\"playing\"}"), Some("1"));
        assert_eq!(sample(&t, "catan_connections"), Some("1"));
        assert_eq!(
            sample(&t, "catan_actions_rejected_total{code=\"not_your_turn\"}"),
            Some("2")
        );
        drop(guard);
        assert_eq!(sample(&m.render(), "catan_connections"), Some("0"));
        // Every line is a comment or `name{labels} number`.
        for line in m.render().lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = line.rsplit_once(' ').expect("name and value");
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
