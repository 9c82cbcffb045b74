//! The accept loop of a listener: HTTP/1.1 with a header-read timeout (which is also
//! the idle keep-alive timeout), caps on open sockets in all and per peer address
//! (a full listener closes its longest idle socket to take a new one), and each
//! request told the address of its peer.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tower_http::timeout::RequestBodyTimeoutLayer;
use tracing::{debug, warn};

use crate::address::{ClientAddresses, limit_key};

/// Where the server listens and who may reach it (flags of `catan-server`; see
/// docs/configuration.md).
#[derive(Clone, Debug, clap::Args)]
pub struct ListenConfig {
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
}

impl ListenConfig {
    /// Who a request is from: `--client-address-header` believed from
    /// `--trusted-proxies` only.
    #[must_use]
    pub fn client_addresses(&self) -> ClientAddresses {
        ClientAddresses::new(self.client_address_header.as_deref(), &self.trusted_proxies)
    }
}

/// One `--trusted-proxies` entry: an address (a one-address range) or a CIDR range.
fn parse_net(s: &str) -> Result<ipnet::IpNet, String> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("not an IP address or CIDR range: {s:?}"))
}

/// The peer address of the connection a request came on (an extension of every
/// request served by [`serve`]).
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// The local address a request's connection came in on (an extension of every
/// request served by [`serve`]): which of the server's own origins it was sent to.
#[derive(Debug, Clone, Copy)]
pub struct LocalAddr(pub SocketAddr);

/// How a listener treats its connections.
#[derive(Debug, Clone)]
pub struct ListenLimits {
    /// Most open sockets (upgraded WebSockets included). A new connection beyond it
    /// closes the socket idle longest (no request under way); only when none is idle
    /// does accepting wait.
    pub max_connections: usize,
    /// Most open sockets from one peer address (IPv6: one /64); more are closed at
    /// once. 0: no cap. Trusted proxies are exempt.
    pub max_per_address: usize,
    /// Time to send a whole request head, from connecting or from the last answer.
    pub header_timeout: Duration,
    /// The reverse proxies in front, exempt from the per-address cap.
    pub proxies: ClientAddresses,
    /// In a cluster, the other instances (which forward clients' calls and
    /// sockets here), exempt from the per-address cap too.
    pub peers: Option<Arc<crate::cluster::Peers>>,
}

/// How often accepting looks again for an idle socket to close while the listener
/// is full of busy ones.
const FULL_RETRY: Duration = Duration::from_millis(50);

/// Serves `router` on `listener` until `stop` is cancelled; then stops accepting and
/// waits for the open HTTP connections to finish their requests (upgraded
/// WebSockets are not waited for here: their tasks are the rooms' business).
///
/// Idle sockets cannot hold the listener: a peer address has at most
/// `max_per_address` open, and when the listener is full a new connection takes the
/// place of the socket idle longest (one that has sent no whole request since it
/// connected or since its last answer).
///
/// # Errors
/// None so far: accept errors (out of descriptors, for instance) are logged and
/// retried after a pause.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ListenLimits,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let sockets = Arc::new(Sockets::default());
    // A request whose body does not come keeps its socket busy (not closed to make
    // room): it gets as long for its body as for its head.
    let router = router.layer(RequestBodyTimeoutLayer::new(limits.header_timeout));
    let conns = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.cancelled() => break,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                // Out of descriptors, say: pause instead of spinning.
                warn!(error = %e, "accept failed; retrying in 1 s");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let key = limit_key(peer.ip());
        let cap = if limits.proxies.is_trusted(peer.ip())
            || limits.peers.as_ref().is_some_and(|p| p.contains(peer.ip()))
        {
            0
        } else {
            limits.max_per_address
        };
        if sockets.at_cap(key, cap) {
            debug!(%peer, cap, "socket refused: its address has as many open as it may");
            continue;
        }
        let permit = loop {
            if let Ok(p) = permits.clone().try_acquire_owned() {
                break Some(p);
            }
            sockets.close_oldest_idle();
            tokio::select! {
                p = permits.clone().acquire_owned() => break Some(p.expect("never closed")),
                () = tokio::time::sleep(FULL_RETRY) => {}
                () = stop.cancelled() => break None,
            }
        };
        let Some(permit) = permit else { break };
        // Game messages are small and latency-bound: send each at once (no Nagle).
        let _ = tcp.set_nodelay(true);
        let place = sockets.register(key);
        let io = Counted {
            tcp,
            _permit: permit,
            _place: place.clone(),
        };
        conns.spawn(connection(
            io,
            peer,
            place,
            router.clone(),
            limits.header_timeout,
            stop.clone(),
        ));
    }
    conns.close();
    conns.wait().await;
    Ok(())
}

fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// Serves one connection's requests (and hands an upgrade over) until it ends, the
/// header timeout passes, the listener closes it to make room, or the server stops
/// (then the request at hand finishes).
async fn connection(
    io: Counted,
    peer: SocketAddr,
    place: Place,
    router: Router,
    header_timeout: Duration,
    stop: CancellationToken,
) {
    let local = io.tcp.local_addr().ok();
    let closed = place.close.clone();
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(PeerAddr(peer));
        if let Some(local) = local {
            request.extensions_mut().insert(LocalAddr(local));
        }
        let busy = place.busy();
        let answer = router.clone().oneshot(request);
        async move {
            let response = match answer.await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            if response.status() == StatusCode::SWITCHING_PROTOCOLS {
                busy.upgraded();
                return Ok::<_, std::convert::Infallible>(response);
            }
            Ok(response.map(|body| Body::new(UntilSent { body, busy })))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        () = closed.cancelled() => {
            debug!(%peer, "idle socket closed to make room");
            return;
        }
        () = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        debug!(%peer, error = %e, "connection ended");
    }
}

/// The open sockets of one listener: how many each address has, and which are idle,
/// longest idle first.
#[derive(Debug, Default)]
struct Sockets {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    /// The id of the next socket.
    next: u64,
    /// Open sockets per address key.
    per_address: HashMap<IpAddr, usize>,
    /// The idle sockets, by when they became idle (and id): what closes each.
    idle: BTreeMap<(Instant, u64), CancellationToken>,
    /// Each open socket's key in `idle`, when idle; `None` while a request is under
    /// way or once it is a WebSocket.
    since: HashMap<u64, Option<Instant>>,
}

impl Sockets {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().expect("socket table lock")
    }

    /// Whether `key` has `cap` sockets open (never with a `cap` of 0).
    fn at_cap(&self, key: IpAddr, cap: usize) -> bool {
        cap > 0 && self.lock().per_address.get(&key).is_some_and(|n| *n >= cap)
    }

    /// A new socket from `key`, idle until its first request.
    fn register(self: &Arc<Self>, key: IpAddr) -> Place {
        let close = CancellationToken::new();
        let mut t = self.lock();
        let id = t.next;
        t.next += 1;
        *t.per_address.entry(key).or_default() += 1;
        let now = Instant::now();
        t.idle.insert((now, id), close.clone());
        t.since.insert(id, Some(now));
        Place {
            inner: Arc::new(PlaceInner {
                sockets: self.clone(),
                id,
                key,
            }),
            close,
        }
    }

    /// Closes the socket idle longest, if any is idle.
    fn close_oldest_idle(&self) {
        let mut t = self.lock();
        if let Some(((_, id), close)) = t.idle.pop_first() {
            t.since.insert(id, None);
            close.cancel();
        }
    }

    /// A request is under way on `id` (or it became a WebSocket): not idle.
    fn set_busy(&self, id: u64) {
        let mut t = self.lock();
        if let Some(Some(since)) = t.since.get(&id).copied() {
            t.idle.remove(&(since, id));
        }
        t.since.insert(id, None);
    }

    /// `id` answered its request and waits for the next one.
    fn set_idle(&self, id: u64, close: &CancellationToken) {
        let mut t = self.lock();
        if !t.since.contains_key(&id) || close.is_cancelled() {
            return;
        }
        let now = Instant::now();
        t.idle.insert((now, id), close.clone());
        t.since.insert(id, Some(now));
    }

    fn remove(&self, id: u64, key: IpAddr) {
        let mut t = self.lock();
        if let Some(Some(since)) = t.since.remove(&id) {
            t.idle.remove(&(since, id));
        }
        if let Some(n) = t.per_address.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                t.per_address.remove(&key);
            }
        }
    }
}

/// One socket's place in its listener's table, for as long as the socket lives
/// (through an upgrade to a WebSocket too).
#[derive(Debug, Clone)]
struct Place {
    inner: Arc<PlaceInner>,
    /// Cancelled when the listener closes the socket to make room.
    close: CancellationToken,
}

#[derive(Debug)]
struct PlaceInner {
    sockets: Arc<Sockets>,
    id: u64,
    key: IpAddr,
}

impl Drop for PlaceInner {
    fn drop(&mut self) {
        self.sockets.remove(self.id, self.key);
    }
}

impl Place {
    /// Marks a request under way, until the returned mark is dropped.
    fn busy(&self) -> Busy {
        self.inner.sockets.set_busy(self.inner.id);
        Busy {
            place: Some(self.clone()),
        }
    }
}

/// A request under way on a socket; when dropped (its answer sent, or given up) the
/// socket is idle again, unless it became a WebSocket.
#[derive(Debug)]
struct Busy {
    place: Option<Place>,
}

impl Busy {
    /// The socket is a WebSocket now: never idle again.
    fn upgraded(mut self) {
        self.place = None;
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(p) = self.place.take() {
            p.inner.sockets.set_idle(p.inner.id, &p.close);
        }
    }
}

/// A response body that keeps its socket busy until it is sent.
struct UntilSent {
    body: Body,
    busy: Busy,
}

impl http_body::Body for UntilSent {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let _ = &self.busy;
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A socket that holds its place under the listener's cap for as long as it lives,
/// through an upgrade to a WebSocket too.
struct Counted {
    tcp: TcpStream,
    _permit: OwnedSemaphorePermit,
    _place: Place,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

#[cfg(test)]
mod tests;
