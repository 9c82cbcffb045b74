//! The listener's caps and timeouts, over real sockets.

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn limits(max_connections: usize, max_per_address: usize) -> ListenLimits {
    ListenLimits {
        max_connections,
        max_per_address,
        header_timeout: Duration::from_secs(10),
        proxies: ClientAddresses::default(),
        peers: None,
    }
}

async fn start(limits: ListenLimits) -> (SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new().route("/healthz", axum::routing::get(|| async { "ok" }));
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, router, limits, stop.clone()));
    (addr, stop)
}

/// Sends `GET /healthz` on `tcp` and says whether it was answered 200.
async fn healthz(tcp: &mut TcpStream) -> bool {
    if tcp
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .is_err()
    {
        return false;
    }
    let mut buf = [0u8; 512];
    let n = tcp.read(&mut buf).await.unwrap_or(0);
    buf[..n].starts_with(b"HTTP/1.1 200")
}

/// Whether the server closed `tcp` (end of stream or reset), within a second.
async fn closed(tcp: &mut TcpStream) -> bool {
    let mut buf = [0u8; 16];
    matches!(
        tokio::time::timeout(Duration::from_secs(1), tcp.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn a_full_listener_closes_its_longest_idle_socket_for_a_new_one() {
    let (addr, _stop) = start(limits(2, 0)).await;
    let mut first = TcpStream::connect(addr).await.unwrap();
    assert!(
        healthz(&mut first).await,
        "answered, then idle (keep-alive)"
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut second = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Full: the third takes the place of the first, idle longest.
    let mut third = TcpStream::connect(addr).await.unwrap();
    assert!(
        healthz(&mut third).await,
        "the new socket is served at once"
    );
    assert!(
        closed(&mut first).await,
        "the longest idle socket was closed"
    );
    assert!(healthz(&mut second).await, "the other one is still open");
}

#[tokio::test]
async fn one_address_has_at_most_its_share_of_sockets() {
    let (addr, _stop) = start(limits(100, 3)).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut fourth = TcpStream::connect(addr).await.unwrap();
    assert!(closed(&mut fourth).await, "over the address's cap: closed");
    assert!(healthz(&mut held[0]).await, "those within it are served");
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut again = TcpStream::connect(addr).await.unwrap();
    assert!(healthz(&mut again).await, "a place freed is taken again");
}

#[tokio::test(start_paused = true)]
async fn a_request_head_not_sent_in_time_ends_the_connection() {
    let (addr, _stop) = start(limits(8, 0)).await;
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
