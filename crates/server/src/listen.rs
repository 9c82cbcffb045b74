//! The accept loop of a listener: HTTP/1.1 with a header-read timeout (which is also
//! the idle keep-alive timeout), a cap on open sockets above which the listener
//! stops accepting, and each request told the address of its peer.

use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, Request};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tracing::{debug, warn};

/// The peer address of the connection a request came on (an extension of every
/// request served by [`serve`]).
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// The local address a request's connection came in on (an extension of every
/// request served by [`serve`]): which of the server's own origins it was sent to.
#[derive(Debug, Clone, Copy)]
pub struct LocalAddr(pub SocketAddr);

/// The address a request counts against for the per-address limits: the peer's, or,
/// when `header` is configured (behind a reverse proxy), the last entry of that
/// header when it parses as an address. Without a peer address (a request not
/// served by [`serve`], in tests) it is the unspecified address.
#[must_use]
pub fn client_ip(header: Option<&str>, headers: &HeaderMap, peer: Option<PeerAddr>) -> IpAddr {
    let forwarded = header.and_then(|name| {
        let value = headers.get_all(name).iter().next_back()?.to_str().ok()?;
        let last = value.rsplit(',').next()?.trim();
        last.parse::<IpAddr>()
            .ok()
            .or_else(|| last.parse::<SocketAddr>().ok().map(|a| a.ip()))
    });
    forwarded
        .or(peer.map(|p| p.0.ip()))
        .unwrap_or(IpAddr::from([0, 0, 0, 0]))
}

/// How a listener treats its connections.
#[derive(Debug, Clone, Copy)]
pub struct ListenLimits {
    /// Most open sockets (upgraded WebSockets included); above it accepting waits.
    pub max_connections: usize,
    /// Time to send a whole request head, from connecting or from the last answer.
    pub header_timeout: Duration,
}

/// Serves `router` on `listener` until `stop` turns `true`; then stops accepting and
/// waits for the open HTTP connections to finish their requests (upgraded
/// WebSockets are not waited for here: their tasks are the rooms' business).
///
/// # Errors
/// None so far: accept errors (out of descriptors, for instance) are logged and
/// retried after a pause.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ListenLimits,
    mut stop: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let conns = TaskTracker::new();
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            () = stopped(&mut stop) => break,
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stopped(&mut stop) => break,
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
        // Game messages are small and latency-bound: send each at once (no Nagle).
        let _ = tcp.set_nodelay(true);
        let io = Counted {
            tcp,
            _permit: permit,
        };
        conns.spawn(connection(io, peer, router.clone(), limits, stop.clone()));
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
/// header timeout passes, or the server stops (then the request at hand finishes).
async fn connection(
    io: Counted,
    peer: SocketAddr,
    router: Router,
    limits: ListenLimits,
    mut stop: watch::Receiver<bool>,
) {
    let local = io.tcp.local_addr().ok();
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(PeerAddr(peer));
        if let Some(local) = local {
            request.extensions_mut().insert(LocalAddr(local));
        }
        router.clone().oneshot(request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        () = stopped(&mut stop) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        debug!(%peer, error = %e, "connection ended");
    }
}

/// Completes when the server begins to stop (or the signal is gone).
async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// A socket that holds its place under the listener's cap for as long as it lives,
/// through an upgrade to a WebSocket too.
struct Counted {
    tcp: TcpStream,
    _permit: OwnedSemaphorePermit,
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
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_client_address_is_the_peers_unless_a_trusted_header_is_configured() {
        let peer = Some(PeerAddr("192.0.2.9:5000".parse().unwrap()));
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("203.0.113.1, 198.51.100.7"),
        );
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(client_ip(None, &h, peer), ip("192.0.2.9"), "off: ignored");
        assert_eq!(
            client_ip(Some("X-Forwarded-For"), &h, peer),
            ip("198.51.100.7"),
            "the entry the proxy added"
        );
        h.insert("x-forwarded-for", HeaderValue::from_static("junk"));
        assert_eq!(
            client_ip(Some("X-Forwarded-For"), &h, peer),
            ip("192.0.2.9")
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_head_not_sent_in_time_ends_the_connection() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route("/healthz", axum::routing::get(|| async { "ok" }));
        let limits = ListenLimits {
            max_connections: 8,
            header_timeout: Duration::from_secs(10),
        };
        let (_stop_tx, stop) = watch::channel(false);
        tokio::spawn(serve(listener, router, limits, stop));
        // A whole request is answered, and the connection kept alive.
        let mut ok = TcpStream::connect(addr).await.unwrap();
        ok.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 512];
        let n = ok.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        // A partial head is cut off after the timeout, not before.
        let begun = tokio::time::Instant::now();
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET /healthz HTTP/1.1\r\nHos")
            .await
            .unwrap();
        let n = slow.read(&mut buf).await.unwrap_or(0);
        let waited = begun.elapsed();
        assert!(
            waited >= Duration::from_secs(10) && waited < Duration::from_secs(11),
            "closed after {waited:?}"
        );
        assert!(!buf[..n].starts_with(b"HTTP/1.1 200"), "not answered");
        // And an idle keep-alive connection goes the same way.
        let n = ok.read(&mut buf).await.unwrap_or(0);
        assert_eq!(n, 0, "the idle connection was closed");
    }
}
