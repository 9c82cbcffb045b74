//! What a run measured: the counts of each room slot, the server's memory and CPU
//! sampled around the measured window, and the [`Report`] made of both.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::misbehave::MisbehaviourStats;
use super::{LoadConfig, Window};
use crate::procfs;

/// Error messages kept for the report.
const MAX_ERROR_SAMPLES: usize = 10;

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
    /// Games whose result was wrong (a winner below the target), should be 0; a game
    /// the turn limit ended with no winner is not wrong.
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
    /// Games abandoned because an action was not acknowledged within the action
    /// time-out: stalled rooms (0 is the target, misbehaving clients or not).
    pub stalled_rooms: u64,
    /// A few error messages.
    pub error_samples: Vec<String>,
    /// With `--misbehave`: connections the misbehaving clients opened.
    pub misbehaving_connections: u64,
    /// With `--misbehave`: their upgrades the server refused.
    pub misbehaving_refused: u64,
    /// With `--misbehave`: frames they sent.
    pub misbehaving_sent: u64,
    /// With `--misbehave`: how the server closed them, by close code (1006: no close
    /// frame).
    pub misbehaving_closes: BTreeMap<u16, u64>,
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
pub(super) struct SlotStats {
    /// Round trips in the window, µs.
    pub(super) hist: Histogram<u64>,
    pub(super) actions: u64,
    pub(super) actions_total: u64,
    pub(super) games: u64,
    pub(super) games_total: u64,
    pub(super) bad_results: u64,
    pub(super) rejected: u64,
    pub(super) errors: u64,
    pub(super) dropped: u64,
    pub(super) samples: Vec<String>,
    pub(super) connected: usize,
    /// Games abandoned because an action was not acknowledged in time.
    pub(super) stalled: u64,
    /// What this slot's misbehaving clients saw (`--misbehave`).
    pub(super) misbehaviour: Arc<Mutex<MisbehaviourStats>>,
}

impl SlotStats {
    pub(super) fn new() -> SlotStats {
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
            stalled: 0,
            misbehaviour: Arc::default(),
        }
    }

    pub(super) fn error(&mut self, msg: impl Into<String>) {
        self.errors += 1;
        if self.samples.len() < 2 {
            self.samples.push(msg.into());
        }
    }

    /// Adds what another slot counted (error samples up to [`MAX_ERROR_SAMPLES`]).
    pub(super) fn absorb(&mut self, s: SlotStats) {
        self.hist.add(&s.hist).expect("same histogram bounds");
        self.actions += s.actions;
        self.actions_total += s.actions_total;
        self.games += s.games;
        self.games_total += s.games_total;
        self.bad_results += s.bad_results;
        self.rejected += s.rejected;
        self.errors += s.errors;
        self.dropped += s.dropped;
        self.connected += s.connected;
        self.stalled += s.stalled;
        self.misbehaviour
            .lock()
            .expect("stats")
            .absorb(&s.misbehaviour.lock().expect("stats"));
        for m in s.samples {
            if self.samples.len() < MAX_ERROR_SAMPLES {
                self.samples.push(m);
            }
        }
    }
}

/// Resource use sampled around the window.
#[derive(Debug, Default)]
pub(super) struct Usage {
    server_cpu_s: Option<f64>,
    own_cpu_s: Option<f64>,
    rss_end: Option<u64>,
    rss_samples: Vec<(f64, u64)>,
}

pub(super) async fn monitor(pid: Option<u32>, window: Window, every: Duration) -> Usage {
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

pub(super) fn report(config: &LoadConfig, s: &SlotStats, u: &Usage) -> Report {
    let secs = config.duration.as_secs_f64();
    let bad = s.misbehaviour.lock().expect("stats").clone();
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
        stalled_rooms: s.stalled,
        error_samples: s.samples.clone(),
        misbehaving_connections: bad.connections,
        misbehaving_refused: bad.refused,
        misbehaving_sent: bad.sent,
        misbehaving_closes: bad.closes.clone(),
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
