//! The queue over its WebSocket (protocol 26.5).

use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::SignedIn;
use reqwest::Method;
use serde_json::{Value, json};

use super::{call, join};

/// Opens the queue's socket as `p` (protocol 26.5).
async fn queue_socket(
    server: &TestServer,
    p: &SignedIn,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = server
        .url("/api/queue/ws")
        .replacen("http", "ws", 1)
        .into_client_request()
        .expect("request");
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {}", p.token).parse().expect("header"),
    );
    tokio_tungstenite::connect_async(req)
        .await
        .expect("queue socket")
        .0
}

/// The next queue message on `ws` (within 10 s).
async fn next(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> catan_protocol::QueueServerMessage {
    use futures_util::StreamExt;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("open")
            .expect("no error");
        if let tokio_tungstenite::tungstenite::Message::Text(t) = msg {
            return serde_json::from_str(t.as_str()).expect("a QueueServerMessage");
        }
    }
}

/// Protocol 26.5: the queue over a WebSocket: told at once, joined and left with
/// messages, every refusal an `error` with its code and nothing changed, and the
/// seat pushed when the table forms (no polling).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_over_a_websocket() {
    use catan_protocol::QueueServerMessage as Q;
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;

    let server = TestServer::start_with(|c| {
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let ann = server.guest("Ann").await.0;
    let bob = server.guest("Bob").await.0;
    let cyd = server.guest("Cyd").await.0;

    // Not signed in: refused before the upgrade.
    let refused =
        tokio_tungstenite::connect_async(server.url("/api/queue/ws").replacen("http", "ws", 1))
            .await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 401),
        other => panic!("opened without a session: {:?}", other.map(|_| ())),
    }

    let mut ws = queue_socket(&server, &ann).await;
    assert_eq!(next(&mut ws).await, Q::NotQueued, "told at once");
    let text = |v: Value| Message::Text(v.to_string().into());
    ws.send(text(json!({ "type": "join", "seats": 3, "bots": false })))
        .await
        .expect("sent");
    let Q::Status(s) = next(&mut ws).await else {
        panic!("a status after joining")
    };
    assert_eq!(
        (s.seats, s.position, s.seated.is_some()),
        (3, Some(1), false)
    );
    // Refusals: an error each, the place kept.
    for (bad, want) in [
        (json!({ "type": "join", "seats": 3 }), "already_queued"),
        (
            json!({ "type": "join", "seats": 3, "colour": "red" }),
            "bad_request",
        ),
        (json!({ "type": "dance" }), "bad_request"),
        (json!("join"), "bad_request"),
    ] {
        ws.send(text(bad.clone())).await.expect("sent");
        match next(&mut ws).await {
            Q::Error { code, message } => {
                assert_eq!(code, want, "{bad}: {message}");
                assert!(!message.is_empty());
            }
            other => panic!("{bad}: {other:?}"),
        }
        let Q::Status(again) = next(&mut ws).await else {
            panic!("the status follows a refusal")
        };
        assert_eq!(again.since, s.since, "{bad} changed nothing");
    }
    ws.send(Message::Text("{not json".into()))
        .await
        .expect("sent");
    assert!(matches!(next(&mut ws).await, Q::Error { code, .. } if code == "bad_request"));
    let _ = next(&mut ws).await;

    // Leaving by message, then joining again.
    let mut bws = queue_socket(&server, &bob).await;
    assert_eq!(next(&mut bws).await, Q::NotQueued);
    bws.send(text(json!({ "type": "join", "seats": 3, "bots": false })))
        .await
        .expect("sent");
    assert!(matches!(next(&mut bws).await, Q::Status(s) if s.position == Some(2)));
    bws.send(text(json!({ "type": "leave" })))
        .await
        .expect("sent");
    assert_eq!(next(&mut bws).await, Q::NotQueued, "left at once");
    assert_eq!(call(&server, Method::GET, &bob, None).await.0, 404);
    bws.send(text(json!({ "type": "join", "seats": 3, "bots": false })))
        .await
        .expect("sent");
    assert!(matches!(next(&mut bws).await, Q::Status(_)));

    // A third over HTTP: the table forms and both sockets hear their seats.
    join(&server, &cyd, 3, false).await;
    let mut rooms = Vec::new();
    for ws in [&mut ws, &mut bws] {
        let seat = loop {
            match next(ws).await {
                Q::Status(s) if s.seated.is_some() => break s.seated.expect("seated"),
                Q::Status(_) => {}
                other => panic!("{other:?}"),
            }
        };
        rooms.push(seat.room_id);
    }
    assert_eq!(rooms[0], rooms[1], "one table");
    let _ = ws.close(None).await;
    let _ = bws.close(None).await;

    // A client that keeps sending refused messages is closed with 4008.
    let mut cws = queue_socket(&server, &cyd).await;
    for _ in 0..25 {
        if cws.send(Message::Text("nonsense".into())).await.is_err() {
            break;
        }
    }
    let code = loop {
        match tokio::time::timeout(
            Duration::from_secs(10),
            futures_util::StreamExt::next(&mut cws),
        )
        .await
        .expect("closed within 10 s")
        {
            Some(Ok(Message::Close(frame))) => break frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(code, Some(4008));
    server.stop().await;
}
