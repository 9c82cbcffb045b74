//! Operational metrics: a handful of counters, gauges and histograms, updated by
//! rooms, connections and the store, and rendered by `prometheus-client` in the
//! Prometheus text exposition format (version 0.0.4) for `GET /metrics` on the admin
//! listener. Each server (tests run several in one process) owns its own registry.

use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, prometheus_text};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use catan_protocol::RoomStatus;

/// Upper bounds (seconds) of the latency histograms' buckets.
const LATENCY_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The `Content-Type` of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// A latency histogram with fixed buckets, observed as a [`Duration`].
#[derive(Debug, Clone)]
pub struct Histogram(prometheus_client::metrics::histogram::Histogram);

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram(prometheus_client::metrics::histogram::Histogram::new(
            LATENCY_BUCKETS,
        ))
    }
}

impl Histogram {
    /// Records one duration.
    pub fn observe(&self, d: Duration) {
        self.0.observe(d.as_secs_f64());
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

/// `catan_rooms{status}`: one gauge per status, in [`STATUSES`] order. A
/// [`Family`] would look each one up under a lock on every room move, and list them
/// in hash order.
#[derive(Debug, Clone, Default)]
struct RoomGauges([Gauge; 3]);

impl EncodeMetric for RoomGauges {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for ((_, label), gauge) in STATUSES.iter().zip(&self.0) {
            gauge.encode(encoder.encode_family(&[("status", *label)])?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

/// Every metric of one server.
#[derive(Debug)]
pub struct Metrics {
    /// When the server started, for uptime.
    started: Instant,
    /// Every metric below, registered once under its exposed name and help text.
    registry: Registry,
    /// Rooms held, by status: lobby, playing, finished.
    rooms: RoomGauges,
    /// Open WebSocket connections.
    connections: Gauge,
    /// Actions the engine accepted and the store recorded (players', bots' and timers').
    actions_applied: Counter,
    /// `rejected` answers sent, by code.
    rejected: Family<[(&'static str, &'static str); 1], Counter>,
    /// Games that ended: won, or at the turn limit (R-10.5).
    games_finished: Counter,
    /// Seconds since start, set from `started` at each rendering.
    uptime: Gauge,
    /// From a room receiving a client's action to the broadcast of its events.
    pub action_latency: Histogram,
    /// Duration of each store write (create, append, finish, abandon).
    pub store_write: Histogram,
    /// Notices queued, by channel kind.
    notices_queued: Family<[(&'static str, &'static str); 1], Counter>,
    /// Notices delivered, by channel kind.
    notices_sent: Family<[(&'static str, &'static str); 1], Counter>,
    /// Failed delivery attempts, by channel kind and error code.
    notice_failures: Family<[(&'static str, &'static str); 2], Counter>,
    /// Notices rooms handed over that were lost to a full queue.
    notices_lost: Counter,
}

/// The notices' series exported from the start: each channel kind (as
/// `catan_notify::ChannelKind::code` names it) with the failure codes it can have
/// (`catan_notify::SendError::code`; others appear when they happen).
const NOTICE_SERIES: [(&str, &[&str]); 3] = [
    ("web_push", &["push_status", "timeout", "network"]),
    ("email", &["smtp", "timeout", "network"]),
    (
        "webhook",
        &["webhook_status", "bot_rejected", "timeout", "network"],
    ),
];

impl Default for Metrics {
    fn default() -> Metrics {
        let m = Metrics {
            started: Instant::now(),
            registry: Registry::default(),
            rooms: RoomGauges::default(),
            connections: Gauge::default(),
            actions_applied: Counter::default(),
            rejected: Family::default(),
            games_finished: Counter::default(),
            uptime: Gauge::default(),
            action_latency: Histogram::default(),
            store_write: Histogram::default(),
            notices_queued: Family::default(),
            notices_sent: Family::default(),
            notice_failures: Family::default(),
            notices_lost: Counter::default(),
        };
        // Every channel kind's series from the start, at zero (a rate needs a first
        // sample; a dashboard's panel needs the family exported before any notice).
        for (channel, codes) in NOTICE_SERIES {
            let _ = m.notices_queued.get_or_create(&[("channel", channel)]);
            let _ = m.notices_sent.get_or_create(&[("channel", channel)]);
            for code in codes {
                let _ = m
                    .notice_failures
                    .get_or_create(&[("channel", channel), ("code", code)]);
            }
        }
        // The registry adds the full stop to each help text, and `_total` to the
        // names of counters.
        let mut r = Registry::default();
        r.register("catan_rooms", "Rooms held, by status", m.rooms.clone());
        r.register(
            "catan_connections",
            "Open WebSocket connections",
            m.connections.clone(),
        );
        r.register(
            "catan_actions_applied",
            "Actions accepted by the engine and stored",
            m.actions_applied.clone(),
        );
        r.register(
            "catan_actions_rejected",
            "Actions refused, by code",
            m.rejected.clone(),
        );
        r.register(
            "catan_action_latency_seconds",
            "From a room receiving a client's action to the broadcast of its events",
            m.action_latency.0.clone(),
        );
        r.register(
            "catan_store_write_seconds",
            "Duration of each write to the game store",
            m.store_write.0.clone(),
        );
        r.register(
            "catan_games_finished",
            "Games that ended, won or at the turn limit",
            m.games_finished.clone(),
        );
        r.register(
            "catan_uptime_seconds",
            "Seconds since the server started",
            m.uptime.clone(),
        );
        r.register(
            "catan_notices_queued",
            "Notices queued for delivery, by channel",
            m.notices_queued.clone(),
        );
        r.register(
            "catan_notices_sent",
            "Notices delivered, by channel",
            m.notices_sent.clone(),
        );
        r.register(
            "catan_notice_failures",
            "Failed notice delivery attempts, by channel and error code",
            m.notice_failures.clone(),
        );
        r.register(
            "catan_notices_lost",
            "Notices rooms handed over that a full queue lost",
            m.notices_lost.clone(),
        );
        Metrics { registry: r, ..m }
    }
}

/// Counts one open WebSocket connection until dropped.
#[derive(Debug)]
pub struct ConnectionGuard(Arc<Metrics>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.dec();
    }
}

impl Metrics {
    /// A room appeared (`from: None`), changed status, or ended (`to: None`).
    pub fn room_moved(&self, from: Option<RoomStatus>, to: Option<RoomStatus>) {
        if let Some(s) = from {
            self.rooms.0[status_index(s)].dec();
        }
        if let Some(s) = to {
            self.rooms.0[status_index(s)].inc();
        }
    }

    /// Rooms with status `s`.
    #[must_use]
    pub fn rooms(&self, s: RoomStatus) -> u64 {
        u64::try_from(self.rooms.0[status_index(s)].get()).unwrap_or(0)
    }

    /// Counts a WebSocket connection for as long as the guard lives.
    #[must_use]
    pub fn connection(self: &Arc<Self>) -> ConnectionGuard {
        self.connections.inc();
        ConnectionGuard(self.clone())
    }

    /// Open WebSocket connections.
    #[must_use]
    pub fn connections(&self) -> u64 {
        u64::try_from(self.connections.get()).unwrap_or(0)
    }

    /// One more action applied.
    pub fn action_applied(&self) {
        self.actions_applied.inc();
    }

    /// Actions applied so far.
    #[must_use]
    pub fn actions_applied(&self) -> u64 {
        self.actions_applied.get()
    }

    /// One more `rejected` answer with `code`.
    pub fn action_rejected(&self, code: &'static str) {
        self.rejected.get_or_create(&[("code", code)]).inc();
    }

    /// One more game ended (won, or at the turn limit).
    pub fn game_finished(&self) {
        self.games_finished.inc();
    }

    /// Games ended so far.
    #[must_use]
    pub fn games_finished(&self) -> u64 {
        self.games_finished.get()
    }

    /// One notice queued on a channel of kind `channel`.
    pub fn notice_queued(&self, channel: &'static str) {
        self.notices_queued
            .get_or_create(&[("channel", channel)])
            .inc();
    }

    /// One notice delivered on a channel of kind `channel`.
    pub fn notice_sent(&self, channel: &'static str) {
        self.notices_sent
            .get_or_create(&[("channel", channel)])
            .inc();
    }

    /// One failed delivery attempt on a channel of kind `channel`, with `code`.
    pub fn notice_failed(&self, channel: &'static str, code: &'static str) {
        self.notice_failures
            .get_or_create(&[("channel", channel), ("code", code)])
            .inc();
    }

    /// One handover lost to a full queue.
    pub fn notice_lost(&self) {
        self.notices_lost.inc();
    }

    /// Time since start.
    #[must_use]
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Every metric in the Prometheus text format.
    #[must_use]
    pub fn render(&self) -> String {
        self.uptime
            .set(i64::try_from(self.uptime().as_secs()).unwrap_or(i64::MAX));
        let mut out = String::with_capacity(4096);
        // Writing to a `String` cannot fail.
        let _ = prometheus_text::encode(&mut out, &self.registry);
        out
    }
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
    }

    /// The output of the hand-written encoder this module had before
    /// `prometheus-client`, for the state built in the test below.
    const BEFORE: &str = r#"# HELP catan_rooms Rooms held, by status.
# TYPE catan_rooms gauge
catan_rooms{status="lobby"} 1
catan_rooms{status="playing"} 1
catan_rooms{status="finished"} 0
# HELP catan_connections Open WebSocket connections.
# TYPE catan_connections gauge
catan_connections 1
# HELP catan_actions_applied_total Actions accepted by the engine and stored.
# TYPE catan_actions_applied_total counter
catan_actions_applied_total 7
# HELP catan_actions_rejected_total Actions refused, by code.
# TYPE catan_actions_rejected_total counter
catan_actions_rejected_total{code="not_your_turn"} 2
# HELP catan_action_latency_seconds From a room receiving a client's action to the broadcast of its events.
# TYPE catan_action_latency_seconds histogram
catan_action_latency_seconds_bucket{le="0.0001"} 1
catan_action_latency_seconds_bucket{le="0.00025"} 1
catan_action_latency_seconds_bucket{le="0.0005"} 1
catan_action_latency_seconds_bucket{le="0.001"} 1
catan_action_latency_seconds_bucket{le="0.0025"} 1
catan_action_latency_seconds_bucket{le="0.005"} 2
catan_action_latency_seconds_bucket{le="0.01"} 2
catan_action_latency_seconds_bucket{le="0.025"} 2
catan_action_latency_seconds_bucket{le="0.05"} 2
catan_action_latency_seconds_bucket{le="0.1"} 2
catan_action_latency_seconds_bucket{le="0.25"} 2
catan_action_latency_seconds_bucket{le="0.5"} 2
catan_action_latency_seconds_bucket{le="1"} 2
catan_action_latency_seconds_bucket{le="2.5"} 2
catan_action_latency_seconds_bucket{le="+Inf"} 3
catan_action_latency_seconds_sum 10.00305
catan_action_latency_seconds_count 3
# HELP catan_store_write_seconds Duration of each write to the game store.
# TYPE catan_store_write_seconds histogram
catan_store_write_seconds_bucket{le="0.0001"} 0
catan_store_write_seconds_bucket{le="0.00025"} 0
catan_store_write_seconds_bucket{le="0.0005"} 0
catan_store_write_seconds_bucket{le="0.001"} 0
catan_store_write_seconds_bucket{le="0.0025"} 1
catan_store_write_seconds_bucket{le="0.005"} 1
catan_store_write_seconds_bucket{le="0.01"} 1
catan_store_write_seconds_bucket{le="0.025"} 1
catan_store_write_seconds_bucket{le="0.05"} 1
catan_store_write_seconds_bucket{le="0.1"} 1
catan_store_write_seconds_bucket{le="0.25"} 1
catan_store_write_seconds_bucket{le="0.5"} 1
catan_store_write_seconds_bucket{le="1"} 1
catan_store_write_seconds_bucket{le="2.5"} 1
catan_store_write_seconds_bucket{le="+Inf"} 1
catan_store_write_seconds_sum 0.0012
catan_store_write_seconds_count 1
# HELP catan_games_finished_total Games that ended, won or at the turn limit.
# TYPE catan_games_finished_total counter
catan_games_finished_total 1
# HELP catan_uptime_seconds Seconds since the server started.
# TYPE catan_uptime_seconds gauge
catan_uptime_seconds 0
"#;

    #[test]
    fn the_exposition_is_the_one_the_hand_written_encoder_produced() {
        let m = std::sync::Arc::new(Metrics::default());
        m.room_moved(None, Some(RoomStatus::Lobby));
        m.room_moved(None, Some(RoomStatus::Lobby));
        m.room_moved(Some(RoomStatus::Lobby), Some(RoomStatus::Playing));
        let _guard = m.connection();
        for _ in 0..7 {
            m.action_applied();
        }
        m.action_rejected("not_your_turn");
        m.action_rejected("not_your_turn");
        m.game_finished();
        m.action_latency.observe(Duration::from_micros(50));
        m.action_latency.observe(Duration::from_millis(3));
        m.action_latency.observe(Duration::from_secs(10));
        m.store_write.observe(Duration::from_micros(1200));
        // The metrics added since (notifications) follow.
        let text = m.render();
        assert!(text.starts_with(BEFORE), "{text}");
        m.notice_failed("webhook", "webhook_status");
        m.notice_failed("webhook", "webhook_status");
        let text = m.render();
        assert_eq!(
            sample(
                &text,
                "catan_notice_failures_total{channel=\"webhook\",code=\"webhook_status\"}"
            ),
            Some("2")
        );
        assert_eq!(sample(&text, "catan_notices_lost_total"), Some("0"));
    }
}
