//! Connection-level abuse limits (protocol.md sections 9 and 20): costly lobby calls
//! and WebSocket upgrades per client address, WebSocket caps, the header timeout, silent WebSockets, and
//! control and binary frames under the rate limit.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{CloseCode, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// An HTTP client whose connections come from `ip` (any 127.x.y.z is loopback).
fn http_from(ip: &str) -> reqwest::Client {
    let ip: IpAddr = ip.parse().expect("ip");
    reqwest::Client::builder()
        .local_address(ip)
        .build()
        .expect("client")
}

async fn create(
    http: &reqwest::Client,
    server: &TestServer,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut r = http.post(server.url("/api/rooms")).json(&json!({}));
    for (k, v) in extra {
        r = r.header(*k, *v);
    }
    r.send().await.expect("http")
}

async fn code_of(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    let body: Value = r.json().await.expect("json");
    (
        status,
        body["error"]["code"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_creating_rooms_is_refused_after_the_burst_and_another_is_not() {
    let server = TestServer::start_with(|c| {
        c.limits.lobby_rate_per_min = 6;
        c.limits.lobby_burst = 3;
    })
    .await;
    let a = http_from("127.0.0.1");
    for i in 0..3 {
        assert_eq!(create(&a, &server, &[]).await.status(), 201, "room {i}");
    }
    let refused = create(&a, &server, &[]).await;
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&retry), "Retry-After {retry}");
    assert_eq!(code_of(refused).await, (429, "rate_limited".into()));
    // Taking seats counts as well.
    let r = a
        .post(server.url(&format!("/api/rooms/{}/seats", uuid::Uuid::nil())))
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(code_of(r).await, (429, "rate_limited".into()));
    // Another address has its own allowance.
    let b = http_from("127.0.0.2");
    assert_eq!(create(&b, &server, &[]).await.status(), 201);
    // Without a configured header, a forwarded address is not believed.
    let spoof = [("x-forwarded-for", "198.51.100.1")];
    assert_eq!(code_of(create(&a, &server, &spoof).await).await.0, 429);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_header_names_the_client_and_from_anyone_else_it_is_ignored() {
    let server = TestServer::start_with(|c| {
        c.limits.lobby_rate_per_min = 6;
        c.limits.lobby_burst = 1;
        c.listen.client_address_header = Some("X-Forwarded-For".into());
        c.listen.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    let proxy = http_from("127.0.0.1");
    let one = [("x-forwarded-for", "203.0.113.9, 198.51.100.1")];
    let two = [("x-forwarded-for", "203.0.113.9, 198.51.100.2")];
    assert_eq!(create(&proxy, &server, &one).await.status(), 201);
    assert_eq!(code_of(create(&proxy, &server, &one).await).await.0, 429);
    assert_eq!(create(&proxy, &server, &two).await.status(), 201);
    // A client that talks to the server directly, past the proxy, and writes the
    // header itself is its own address: its inventions are ignored.
    let direct = http_from("127.0.0.2");
    let three = [("x-forwarded-for", "198.51.100.3")];
    let four = [("x-forwarded-for", "198.51.100.4")];
    assert_eq!(create(&direct, &server, &three).await.status(), 201);
    assert_eq!(code_of(create(&direct, &server, &four).await).await.0, 429);
    // Behind the proxy, the addresses of one IPv6 /64 are one client; the next /64
    // is another.
    let v6a = [("x-forwarded-for", "2001:db8:1:2::1")];
    let v6b = [("x-forwarded-for", "2001:db8:1:2:ffff::2")];
    let v6c = [("x-forwarded-for", "2001:db8:1:3::1")];
    assert_eq!(create(&proxy, &server, &v6a).await.status(), 201);
    assert_eq!(code_of(create(&proxy, &server, &v6b).await).await.0, 429);
    assert_eq!(create(&proxy, &server, &v6c).await.status(), 201);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_address_header_without_a_trusted_proxy_is_ignored() {
    let server = TestServer::start_with(|c| {
        c.limits.lobby_rate_per_min = 6;
        c.limits.lobby_burst = 1;
        c.listen.client_address_header = Some("X-Forwarded-For".into());
    })
    .await;
    let a = http_from("127.0.0.1");
    let one = [("x-forwarded-for", "198.51.100.1")];
    let two = [("x-forwarded-for", "198.51.100.2")];
    assert_eq!(create(&a, &server, &one).await.status(), 201);
    assert_eq!(code_of(create(&a, &server, &two).await).await.0, 429);
    server.stop().await;
}

/// An upgrade's refusal: its HTTP status, error code and `Retry-After`.
#[derive(Debug, PartialEq, Eq)]
struct Refusal {
    status: u16,
    code: String,
    retry_after: Option<u64>,
}

/// A WebSocket from `ip`, or its refusal.
async fn ws_from(
    server: &TestServer,
    ip: &str,
    room: uuid::Uuid,
) -> Result<catan_e2e::Client, Refusal> {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::new(ip.parse().expect("ip"), 0))
        .expect("bind");
    let tcp = socket.connect(server.addr).await.expect("connect");
    let url = format!("ws://{}/api/rooms/{room}/ws", server.addr);
    match tokio_tungstenite::client_async(url, tokio_tungstenite::MaybeTlsStream::Plain(tcp)).await
    {
        Ok((ws, _)) => Ok(catan_e2e::Client {
            ws,
            received: Vec::new(),
            closed_with: None,
        }),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            let body: Value = serde_json::from_slice(r.body().as_deref().unwrap_or(b"{}"))
                .expect("a JSON refusal");
            Err(Refusal {
                status: r.status().as_u16(),
                code: body["error"]["code"].as_str().unwrap_or("").to_owned(),
                retry_after: r
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.parse().ok()),
            })
        }
        Err(e) => panic!("websocket: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_are_capped_per_address_and_in_total_while_healthz_answers() {
    let server = TestServer::start_with(|c| {
        c.limits.max_websockets = 3;
        c.limits.max_websockets_per_address = 2;
        c.admin_token = Some("admin-secret".into());
    })
    .await;
    let room = server.create_room(json!({})).await.room_id;
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut c = ws_from(&server, "127.0.0.1", room)
            .await
            .expect("under the cap");
        c.recv().await.expect("snapshot");
        open.push(c);
    }
    assert_eq!(
        ws_from(&server, "127.0.0.1", room)
            .await
            .err()
            .map(|r| r.status),
        Some(429),
        "the 3rd"
    );
    open.push(
        ws_from(&server, "127.0.0.2", room)
            .await
            .expect("another address"),
    );
    assert_eq!(
        ws_from(&server, "127.0.0.3", room)
            .await
            .err()
            .map(|r| r.status),
        Some(503),
        "full"
    );
    // Plain HTTP and the admin listener still answer.
    let health = server
        .http
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(server.admin_get("/admin/stats").await.status(), 200);
    // A closed socket frees its place.
    let mut first = open.remove(0);
    first.ws.close(None).await.unwrap();
    while first.recv().await.is_some() {}
    let mut back = None;
    for _ in 0..50 {
        if let Ok(c) = ws_from(&server, "127.0.0.1", room).await {
            back = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(back.is_some(), "the freed place is taken again");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_reconnecting_without_pause_is_refused_after_the_burst_and_another_is_not() {
    let server = TestServer::start_with(|c| {
        c.limits.websocket_rate_per_min = 6;
        c.limits.websocket_burst = 3;
    })
    .await;
    let room = server.create_room(json!({})).await.room_id;
    for i in 0..3 {
        let mut c = ws_from(&server, "127.0.0.1", room)
            .await
            .unwrap_or_else(|r| panic!("upgrade {i}: {r:?}"));
        c.recv().await.expect("snapshot");
        c.ws.close(None).await.expect("close");
    }
    let refused = ws_from(&server, "127.0.0.1", room)
        .await
        .expect_err("the 4th upgrade in a row is refused");
    assert_eq!(
        (refused.status, refused.code.as_str()),
        (429, "rate_limited")
    );
    assert!(
        refused.retry_after.is_some_and(|s| (1..=10).contains(&s)),
        "{refused:?}"
    );
    // Another address has its own allowance, and the lobby's is separate.
    let mut other = ws_from(&server, "127.0.0.2", room)
        .await
        .expect("another address");
    other.recv().await.expect("snapshot");
    assert_eq!(
        create(&http_from("127.0.0.1"), &server, &[]).await.status(),
        201
    );
    server.stop().await;
}

/// A connection closed for flooding (4008) costs its address new sockets for the
/// cool-down (`--websocket-cool-down-secs`), however full its upgrade allowance was;
/// another address is not touched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_whose_socket_was_closed_for_flooding_is_refused_new_ones_for_the_cool_down() {
    let server = TestServer::start_with(|c| {
        // An allowance the retries below cannot use up: only the cool-down refuses.
        c.limits.websocket_rate_per_min = 60_000;
        c.limits.websocket_burst = 1000;
        c.limits.websocket_cool_down_secs = 60;
        c.limits.rate_limit_per_sec = 20;
    })
    .await;
    let room = server.create_room(json!({})).await.room_id;
    let mut flooder = ws_from(&server, "127.0.0.3", room)
        .await
        .expect("the first socket");
    flooder.recv().await.expect("snapshot");
    for _ in 0..400 {
        if flooder.ws_send_ok(r#"{"type":"ping"}"#).await.is_err() {
            break;
        }
    }
    while flooder.recv().await.is_some() {}
    assert_eq!(flooder.closed_with, Some(CloseCode::RateLimited.code()));
    drop(flooder);
    // The server counts the close after its closing handshake: wait for it.
    let mut refused = None;
    for _ in 0..100 {
        match ws_from(&server, "127.0.0.3", room).await {
            Err(r) => {
                refused = Some(r);
                break;
            }
            Ok(mut c) => {
                c.ws.close(None).await.ok();
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    let refused = refused.expect("a new socket from the flooding address is refused");
    assert_eq!(
        (refused.status, refused.code.as_str()),
        (429, "rate_limited")
    );
    assert!(
        refused.retry_after.is_some_and(|s| (50..=60).contains(&s)),
        "Retry-After is the cool-down: {refused:?}"
    );
    let mut other = ws_from(&server, "127.0.0.4", room)
        .await
        .expect("another address connects");
    other.recv().await.expect("snapshot");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn above_the_socket_cap_the_public_listener_waits_for_busy_sockets_and_the_admin_one_answers()
{
    let server = TestServer::start_with(|c| {
        c.listen.max_connections = 2;
        c.admin_token = Some("admin-secret".into());
    })
    .await;
    // Two requests under way (their bodies still coming): busy sockets, never
    // closed to make room.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut t = TcpStream::connect(server.addr).await.unwrap();
        t.write_all(
            b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
        held.push(t);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::spawn({
        let http = reqwest::Client::new();
        let url = server.url("/healthz");
        async move { http.get(url).send().await.map(|r| r.status().as_u16()) }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "not served while two busy sockets are open"
    );
    assert_eq!(server.admin_get("/admin/stats").await.status(), 200);
    drop(held.pop());
    let status = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("accepted once a socket closed")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn a_request_body_not_sent_in_time_is_refused() {
    let server = TestServer::start_with(|c| c.listen.header_timeout_secs = 5).await;
    ready(&server).await;
    tokio::time::pause();
    let begun = tokio::time::Instant::now();
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{",
    )
    .await
    .unwrap();
    let mut answer = Vec::new();
    while !answer.ends_with(b"}}") {
        let mut buf = [0u8; 1024];
        let n = tokio::time::timeout(Duration::from_secs(60), slow.read(&mut buf))
            .await
            .expect("answered by the server")
            .unwrap_or(0);
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let waited = begun.elapsed();
    let head = String::from_utf8_lossy(&answer);
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(
        head.contains("\"bad_request\""),
        "the usual error body: {head}"
    );
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(6),
        "answered after {waited:?}: {head}"
    );
    tokio::time::resume();
    server.stop().await;
}

/// Opens `n` sockets to `addr` from `from` that never send a byte.
async fn idle_sockets(addr: SocketAddr, from: &str, n: usize) -> Vec<TcpStream> {
    let ip: IpAddr = from.parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..n {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(ip, 0)).unwrap();
        if let Ok(Ok(t)) = tokio::time::timeout(Duration::from_secs(2), socket.connect(addr)).await
        {
            held.push(t);
        }
    }
    held
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_starve_neither_listener() {
    let server = TestServer::start_with(|c| {
        c.admin_token = Some("admin-secret".into());
        c.listen.max_connections_per_address = 64;
        c.listen.header_timeout_secs = 60;
    })
    .await;
    let admin = server.admin_addr.expect("admin listener");
    // 500 idle sockets to each listener, from one address and from many.
    let mut held = idle_sockets(server.addr, "127.0.0.9", 500).await;
    held.extend(idle_sockets(admin, "127.0.0.9", 500).await);
    for i in 0..50 {
        held.extend(idle_sockets(admin, &format!("127.0.1.{}", i + 1), 10).await);
    }
    // The authenticated admin call and the public health check answer within 1 s.
    let begun = std::time::Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(1), server.admin_get("/admin/stats"))
        .await
        .expect("the admin call answered within 1 s");
    assert_eq!(r.status(), 200);
    let healthz = tokio::time::timeout(
        Duration::from_secs(1),
        http_from("127.0.0.1").get(server.url("/healthz")).send(),
    )
    .await
    .expect("/healthz answered within 1 s")
    .unwrap();
    assert_eq!(healthz.status(), 200);
    assert!(begun.elapsed() < Duration::from_secs(2));
    // The address that opened them holds at most its share of the public listener:
    // the rest were closed at once.
    let mut open = 0;
    for t in held.iter_mut().take(500) {
        let mut buf = [0u8; 1];
        if tokio::time::timeout(Duration::from_millis(5), t.read(&mut buf))
            .await
            .is_err()
        {
            open += 1;
        }
    }
    assert!(
        open <= 64,
        "{open} idle sockets from one address still open"
    );
    server.stop().await;
}

/// Waits (in real time, on this runtime) until the server answers `/healthz`.
async fn ready(server: &TestServer) {
    for _ in 0..100 {
        if let Ok(r) = server.http.get(server.url("/healthz")).send().await
            && r.status() == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("server not ready");
}

#[tokio::test]
async fn a_partial_request_head_is_cut_off_after_the_header_timeout() {
    let server = TestServer::start_with(|c| c.listen.header_timeout_secs = 5).await;
    ready(&server).await;
    // From here the clock moves only when every task waits (paused time).
    tokio::time::pause();
    let begun = tokio::time::Instant::now();
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHo")
        .await
        .unwrap();
    let mut buf = [0u8; 256];
    let n = tokio::time::timeout(Duration::from_secs(60), slow.read(&mut buf))
        .await
        .expect("closed by the server")
        .unwrap_or(0);
    let waited = begun.elapsed();
    assert!(!buf[..n].starts_with(b"HTTP/1.1 200"));
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(6),
        "closed after {waited:?}"
    );
    tokio::time::resume();
    server.stop().await;
}

/// Reads one server frame of a raw WebSocket: (opcode, payload).
async fn raw_frame(tcp: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 2];
    tcp.read_exact(&mut head).await.ok()?;
    let len = match head[1] & 0x7f {
        126 => usize::from(tcp.read_u16().await.ok()?),
        127 => usize::try_from(tcp.read_u64().await.ok()?).ok()?,
        n => usize::from(n),
    };
    let mut payload = vec![0u8; len];
    tcp.read_exact(&mut payload).await.ok()?;
    Some((head[0] & 0x0f, payload))
}

/// A WebSocket opened by hand, which never answers anything.
async fn silent_socket(server: &TestServer, room: uuid::Uuid) -> TcpStream {
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "GET /api/rooms/{room}/ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n",
        server.addr
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(tcp.read_u8().await.unwrap());
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tcp
}

#[tokio::test]
async fn a_silent_websocket_is_pinged_then_closed_with_4013() {
    let server = TestServer::start_with(|c| {
        c.limits.ws_ping_secs = 5;
        c.limits.ws_timeout_secs = 12;
    })
    .await;
    ready(&server).await;
    let room = server.create_room(json!({})).await.room_id;
    let mut silent = silent_socket(&server, room).await;
    let mut answering = server.connect(room, None, None).await;
    // A client that answers the pings (its library does, while it reads) stays.
    let answering = tokio::spawn(async move {
        loop {
            match answering.ws.next().await {
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                Some(Ok(_)) => {}
            }
        }
    });
    tokio::time::pause();
    let begun = tokio::time::Instant::now();
    let (mut pings, mut close) = (0, None);
    while let Some((op, payload)) = raw_frame(&mut silent).await {
        match op {
            0x9 => pings += 1,
            0x8 => {
                close = Some(u16::from_be_bytes([payload[0], payload[1]]));
                break;
            }
            _ => {}
        }
    }
    let waited = begun.elapsed();
    assert_eq!(close, Some(CloseCode::Unresponsive.code()));
    assert!(pings >= 2, "pinged first ({pings})");
    assert!(
        // At the first ping tick once 12 s of silence are over.
        waited >= Duration::from_secs(12) && waited < Duration::from_secs(18),
        "closed after {waited:?}"
    );
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(
        !answering.is_finished(),
        "the answering client was not closed"
    );
    tokio::time::resume();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_and_binary_frames_count_against_the_rate_limit() {
    let server = TestServer::start_with(|c| c.limits.rate_limit_per_sec = 20).await;
    let room = server.create_room(json!({})).await.room_id;
    for flood in [
        Message::Ping(vec![1].into()),
        Message::Binary(vec![1].into()),
    ] {
        let mut c = server.connect(room, None, None).await;
        c.recv().await.expect("snapshot");
        let mut sent = 0;
        while sent < 5000 && c.ws.feed(flood.clone()).await.is_ok() {
            sent += 1;
        }
        let _ = c.ws.flush().await;
        let (mut pongs, mut errors) = (0, 0);
        let code = loop {
            match c.ws.next().await {
                Some(Ok(Message::Pong(_))) => pongs += 1,
                Some(Ok(Message::Text(_))) => errors += 1,
                Some(Ok(Message::Close(f))) => break f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break None,
            }
        };
        assert_eq!(code, Some(CloseCode::RateLimited.code()), "{flood:?}");
        // The burst (40) and the 50 strikes: pings are answered by the library
        // until the close, binary frames only within the rate.
        assert!(
            pongs <= 91 && errors <= 41,
            "{pongs} pongs, {errors} errors for {sent}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_message_is_answered_with_its_request_id() {
    let server = TestServer::start_with(|c| c.limits.rate_limit_per_sec = 10).await;
    let room = server.create_room(json!({})).await.room_id;
    let mut c = server.connect(room, None, None).await;
    c.recv().await.expect("snapshot");
    for i in 0..60 {
        let ping = json!({"type": "ping", "request_id": format!("p-{i}")});
        c.ws.feed(Message::Text(ping.to_string().into()))
            .await
            .unwrap();
    }
    c.ws.feed(Message::Text(r#"{"type":"sync"}"#.into()))
        .await
        .unwrap();
    c.ws.flush().await.unwrap();
    // The sync comes last: its answer (a snapshot, or rate_limited without an id)
    // ends the reading.
    let mut limited = Vec::new();
    loop {
        match c.recv().await.expect("open") {
            ServerMessage::Error {
                code, request_id, ..
            } if code == "rate_limited" => match request_id {
                Some(r) => limited.push(r),
                None => break,
            },
            ServerMessage::Snapshot(_) => break,
            _ => {}
        }
    }
    assert!(limited.len() >= 30, "{limited:?}");
    assert!(limited.iter().all(|r| r.starts_with("p-")), "{limited:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_the_api_carry_security_headers() {
    let server = TestServer::start().await;
    for path in [
        "/",
        "/web/app.js",
        "/api/rooms",
        "/api/rooms/nope",
        "/healthz",
    ] {
        let r = server.http.get(server.url(path)).send().await.unwrap();
        let h = r.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        for part in [
            "default-src 'none'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(part), "{path}: {csp}");
        }
        let script = csp.split(';').find(|d| d.contains("script-src")).unwrap();
        assert!(!script.contains("unsafe"), "{path}: {csp}");
        assert_eq!(csp, catan_server::web::CONTENT_SECURITY_POLICY);
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{path}");
    }
    let doc = include_str!("../../docs/protocol/02-transport.md");
    for (name, value) in catan_server::web::SECURITY_HEADERS {
        let line = format!("{name}: {value}").to_ascii_lowercase();
        assert!(
            doc.to_ascii_lowercase().contains(&line),
            "protocol.md 2.2 (docs/protocol/02-transport.md) must show {line}"
        );
    }
    server.stop().await;
}
