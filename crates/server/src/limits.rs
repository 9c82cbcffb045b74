//! Abuse limits shared by the HTTP API and the WebSocket: token buckets (one per
//! connection, one per client address for costly lobby calls) and the count of open
//! WebSockets, in total and per client address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::address::limit_key;
use crate::error::LobbyError;

/// Abuse limits and per-connection budgets (flags of `catan-server`; see
/// docs/configuration.md).
#[derive(Clone, Debug, clap::Args)]
pub struct LimitsConfig {
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

    /// WebSocket read buffer per connection in bytes (memory per connection, all of
    /// it touched: every read fills it). A client's messages are small (an action is
    /// about 100 bytes); a larger one grows it while it is read.
    #[arg(long, env = "CATAN_WS_READ_BUFFER", default_value_t = 512)]
    pub ws_read_buffer: usize,
}

/// A token bucket: `rate` tokens per second, up to `burst`, full at first.
#[derive(Debug, Clone)]
pub struct Bucket {
    tokens: f64,
    burst: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket refilled at `rate` tokens per second (at least a little), holding
    /// at most `burst` (at least one).
    #[must_use]
    pub fn new(rate: f64, burst: f64) -> Bucket {
        let burst = burst.max(1.0);
        Bucket {
            tokens: burst,
            burst,
            rate: rate.max(1e-6),
            last: Instant::now(),
        }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
    }

    /// Takes one token, or says how long until one is there.
    ///
    /// # Errors
    /// The wait until the next token, when the bucket is empty.
    pub fn take(&mut self) -> Result<(), Duration> {
        self.refill();
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / self.rate))
        }
    }

    /// Empties the bucket so that its next token comes after `wait`.
    fn empty_for(&mut self, wait: Duration) {
        self.refill();
        self.tokens = self.tokens.min(1.0 - wait.as_secs_f64() * self.rate);
    }

    /// Whether the bucket has refilled to its burst (it then holds no information).
    fn is_full(&mut self) -> bool {
        self.refill();
        self.tokens >= self.burst
    }
}

/// Addresses tracked before full buckets are forgotten.
const PRUNE_ABOVE: usize = 4096;

/// One token bucket per key: `per_min` calls a minute on average per key, `burst`
/// at once. Client addresses ([`AddressLimiter`]) and account names (sign-in
/// attempts) are counted with it.
#[derive(Debug)]
pub struct KeyedLimiter<K> {
    /// Tokens per second; 0 turns the limit off.
    rate: f64,
    burst: u32,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: std::hash::Hash + Eq> KeyedLimiter<K> {
    /// `per_min` calls a minute on average per key, `burst` at once; a `per_min` of
    /// 0 turns the limit off.
    #[must_use]
    pub fn new(per_min: u32, burst: u32) -> KeyedLimiter<K> {
        KeyedLimiter {
            rate: f64::from(per_min) / 60.0,
            burst,
            buckets: Mutex::default(),
        }
    }

    /// `per_hour` calls an hour on average per key, `burst` at once; a `per_hour`
    /// of 0 turns the limit off.
    #[must_use]
    pub fn per_hour(per_hour: u32, burst: u32) -> KeyedLimiter<K> {
        KeyedLimiter {
            rate: f64::from(per_hour) / 3600.0,
            burst,
            buckets: Mutex::default(),
        }
    }

    fn off(&self) -> bool {
        self.rate <= 0.0
    }

    fn bucket<T>(&self, key: K, f: impl FnOnce(&mut Bucket) -> T) -> T {
        let mut buckets = self.buckets.lock().expect("rate limiter lock");
        if buckets.len() > PRUNE_ABOVE {
            buckets.retain(|_, b| !b.is_full());
        }
        let (rate, burst) = (self.rate, f64::from(self.burst));
        f(buckets
            .entry(key)
            .or_insert_with(|| Bucket::new(rate, burst)))
    }

    /// Counts one call of `key`.
    ///
    /// # Errors
    /// `rate_limited` with the whole seconds to wait, when `key` is over its rate.
    pub fn check(&self, key: K) -> Result<(), LobbyError> {
        if self.off() {
            return Ok(());
        }
        self.bucket(key, Bucket::take)
            .map_err(|wait| LobbyError::RateLimited {
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            })
    }

    /// Refuses `key` for `wait` from now: its bucket is emptied so that its next
    /// call is allowed only then. Nothing when the limit is off.
    pub fn cool_down(&self, key: K, wait: Duration) {
        if self.off() || wait.is_zero() {
            return;
        }
        self.bucket(key, |b| b.empty_for(wait));
    }
}

/// One token bucket per client address (protocol.md section 20), counted under
/// its [`limit_key`]: one limiter for the costly lobby calls (creating rooms,
/// taking seats, adding bots), another for WebSocket upgrades, another for
/// sign-in attempts.
#[derive(Debug)]
pub struct AddressLimiter(KeyedLimiter<IpAddr>);

impl AddressLimiter {
    /// `per_min` calls a minute on average per address, `burst` at once; a
    /// `per_min` of 0 turns the limit off.
    #[must_use]
    pub fn new(per_min: u32, burst: u32) -> AddressLimiter {
        AddressLimiter(KeyedLimiter::new(per_min, burst))
    }

    /// Counts one costly call from `addr` (under its [`limit_key`]).
    ///
    /// # Errors
    /// `rate_limited` with the whole seconds to wait, when `addr` is over its rate.
    pub fn check(&self, addr: IpAddr) -> Result<(), LobbyError> {
        self.0.check(limit_key(addr))
    }

    /// Refuses `addr` for `wait` from now: its bucket is emptied so that its next
    /// call is allowed only then (a connection it flooded was closed with 4008).
    /// Nothing when the limit is off.
    pub fn cool_down(&self, addr: IpAddr, wait: Duration) {
        self.0.cool_down(limit_key(addr), wait);
    }
}

/// Descriptors kept for the database, the admin listener, logs and files: the public
/// listener's cap stays this far below the process's open-file limit.
pub const DESCRIPTOR_RESERVE: usize = 128;

/// Sockets of the public listener kept for plain HTTP (`/healthz` among them): the
/// WebSocket cap stays this far below the listener's.
pub const HTTP_RESERVE: usize = 16;

/// The caps in force: `(max_connections, max_websockets)` as configured, lowered to
/// fit the open-file limit `nofile` (when known) less [`DESCRIPTOR_RESERVE`], with
/// WebSockets at least [`HTTP_RESERVE`] below the listener's cap.
#[must_use]
pub fn socket_budget(
    max_connections: usize,
    max_websockets: usize,
    nofile: Option<usize>,
) -> (usize, usize) {
    let connections = nofile
        .map_or(max_connections, |n| {
            max_connections.min(n.saturating_sub(DESCRIPTOR_RESERVE))
        })
        .max(1);
    let websockets = max_websockets.min(connections.saturating_sub(HTTP_RESERVE));
    (connections, websockets)
}

/// The soft limit on open files of this process, where the system says (Linux).
#[must_use]
pub fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// The open WebSockets, in total and per client address, with their caps.
#[derive(Debug)]
pub struct SocketCounts {
    max_total: usize,
    max_per_address: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One open WebSocket, counted until it is dropped.
#[derive(Debug)]
pub struct SocketSlot {
    counts: Arc<SocketCounts>,
    addr: IpAddr,
}

impl SocketCounts {
    /// Caps of `max_total` WebSockets and `max_per_address` from one address.
    #[must_use]
    pub fn new(max_total: usize, max_per_address: usize) -> SocketCounts {
        SocketCounts {
            max_total,
            max_per_address,
            open: Mutex::default(),
        }
    }

    /// Counts a new WebSocket from `addr` (under its [`limit_key`]), for as long as
    /// the slot lives.
    ///
    /// # Errors
    /// `too_many_connections` when `addr` has its share open, `server_busy` when the
    /// server has as many as it takes.
    pub fn open(self: &Arc<Self>, addr: IpAddr) -> Result<SocketSlot, LobbyError> {
        let addr = limit_key(addr);
        let mut open = self.open.lock().expect("socket count lock");
        let (total, per) = &mut *open;
        let mine = per.get(&addr).copied().unwrap_or(0);
        if mine >= self.max_per_address {
            return Err(LobbyError::TooManyConnections);
        }
        if *total >= self.max_total {
            return Err(LobbyError::ServerBusy);
        }
        *total += 1;
        per.insert(addr, mine + 1);
        Ok(SocketSlot {
            counts: self.clone(),
            addr,
        })
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut open = self.counts.open.lock().expect("socket count lock");
        let (total, per) = &mut *open;
        *total -= 1;
        if let Some(n) = per.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                per.remove(&self.addr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_bucket_gives_its_burst_then_its_rate() {
        let mut b = Bucket::new(2.0, 3.0);
        for _ in 0..3 {
            assert!(b.take().is_ok());
        }
        let wait = b.take().unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        tokio::time::advance(wait).await;
        assert!(b.take().is_ok());
        assert!(b.take().is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn addresses_have_their_own_buckets_and_are_told_when_to_retry() {
        let l = AddressLimiter::new(6, 2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(l.check(a).is_ok() && l.check(a).is_ok());
        assert_eq!(
            l.check(a),
            Err(LobbyError::RateLimited {
                retry_after_secs: 10
            })
        );
        assert!(l.check(b).is_ok());
        assert!(AddressLimiter::new(0, 0).check(a).is_ok(), "0 turns it off");
    }

    #[tokio::test(start_paused = true)]
    async fn the_addresses_of_one_ipv6_64_share_one_bucket_and_one_socket_count() {
        let l = AddressLimiter::new(6, 2);
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(l.check(a).is_ok() && l.check(b).is_ok());
        assert!(
            l.check(a).is_err() && l.check(b).is_err(),
            "one /64, one bucket"
        );
        assert!(l.check(other).is_ok(), "the next /64 is another client");
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        let v4: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(l.check(mapped).is_ok() && l.check(v4).is_ok());
        assert!(
            l.check(v4).is_err(),
            "an IPv4-mapped address is its IPv4 address"
        );
        let c = Arc::new(SocketCounts::new(10, 1));
        let _a = c.open(a).unwrap();
        assert_eq!(c.open(b).unwrap_err(), LobbyError::TooManyConnections);
        assert!(c.open(other).is_ok());
    }

    #[test]
    fn the_caps_fit_the_open_file_limit_and_leave_room_for_http() {
        assert_eq!(socket_budget(10_000, 9_000, None), (10_000, 9_000));
        assert_eq!(socket_budget(10_000, 9_000, Some(1024)), (896, 880));
        assert_eq!(socket_budget(100, 100, Some(1_000_000)), (100, 84));
        assert!(open_file_limit().is_some_and(|n| n > 0) || !cfg!(target_os = "linux"));
    }

    #[test]
    fn sockets_are_capped_per_address_and_in_total_and_freed_on_drop() {
        let c = Arc::new(SocketCounts::new(3, 2));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = c.open(a).unwrap();
        let _a2 = c.open(a).unwrap();
        assert_eq!(c.open(a).unwrap_err(), LobbyError::TooManyConnections);
        let _b1 = c.open(b).unwrap();
        assert_eq!(c.open(b).unwrap_err(), LobbyError::ServerBusy);
        drop(a1);
        assert!(c.open(b).is_ok());
    }
}
