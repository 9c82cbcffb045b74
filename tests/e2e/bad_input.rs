//! Bad input: each gets a clear error with a stable code, nothing changes, and the
//! connection stays up unless the client is abusive.

use catan_e2e::TestServer;
use catan_protocol::{CloseCode, ServerMessage};
use serde_json::json;

async fn error_code(c: &mut catan_e2e::Client) -> String {
    match c
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Error { .. } | ServerMessage::Rejected { .. }
            )
        })
        .await
    {
        ServerMessage::Error { code, .. } | ServerMessage::Rejected { code, .. } => code,
        _ => unreachable!(),
    }
}

async fn still_up(c: &mut catan_e2e::Client) {
    c.send_json(&json!({"type": "ping", "request_id": "alive"}))
        .await;
    c.recv_until(|m| matches!(m, ServerMessage::Pong { request_id: Some(r) } if r == "alive"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_unknown_incomplete_oversized_and_illegal_messages_are_refused_without_effect() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({ "players": 3 })).await;
    let room = created.room_id;
    let seats = [
        server.take_seat(room, "a").await,
        server.take_seat(room, "b").await,
        server.take_seat(room, "c").await,
    ];
    let mut a = server.connect(room, Some(&seats[0].token), None).await;
    let mut b = server.connect(room, Some(&seats[1].token), None).await;
    a.recv().await.expect("snapshot");
    b.recv().await.expect("snapshot");

    a.send_json(&json!({"type": "action", "request_id": "early", "action": {"type": "roll_dice"}}))
        .await;
    assert_eq!(error_code(&mut a).await, "not_started");

    server.start_game(room, &created.host_token).await;
    let snapshot_of = |m: ServerMessage| match m {
        ServerMessage::Snapshot(s) => s,
        other => panic!("expected a snapshot, got {other:?}"),
    };
    let mut watcher = server.connect(room, None, None).await;
    let before = snapshot_of(watcher.recv().await.expect("snapshot"));

    a.send_text("{not json").await;
    assert_eq!(error_code(&mut a).await, "malformed_json");
    a.send_json(&json!({"type": "teleport"})).await;
    assert_eq!(error_code(&mut a).await, "unknown_message_type");
    a.send_json(&json!({"type": "action", "request_id": "x"}))
        .await;
    assert_eq!(error_code(&mut a).await, "invalid_message");
    a.send_json(&json!({"type": "action", "request_id": "x", "action": {"type": "build_road"}}))
        .await;
    assert_eq!(error_code(&mut a).await, "invalid_message");
    // Messages and actions without fields refuse unknown ones too.
    a.send_json(&json!({"type": "sync", "x": 1})).await;
    assert_eq!(error_code(&mut a).await, "invalid_message");
    a.send_json(
        &json!({"type": "action", "request_id": "x", "action": {"type": "roll_dice", "x": 1}}),
    )
    .await;
    assert_eq!(error_code(&mut a).await, "invalid_message");
    let big = format!(r#"{{"type":"chat","text":"{}"}}"#, "x".repeat(5000));
    a.send_text(&big).await;
    assert_eq!(error_code(&mut a).await, "message_too_large");
    a.send_json(&json!({"type": "chat", "text": "y".repeat(600)}))
        .await;
    assert_eq!(error_code(&mut a).await, "invalid_chat");

    // Out of turn and wrong phase: whoever is not first may not act; the first
    // player may not roll during setup.
    let current = before.view.as_ref().expect("view").current;
    for (i, c) in [&mut a, &mut b].into_iter().enumerate() {
        c.send_json(
            &json!({"type": "action", "request_id": "r1", "action": {"type": "roll_dice"}}),
        )
        .await;
        let m = c
            .recv_until(|m| matches!(m, ServerMessage::Rejected { .. }))
            .await;
        let ServerMessage::Rejected {
            request_id,
            code,
            message,
            ..
        } = m
        else {
            unreachable!()
        };
        assert_eq!(request_id, "r1");
        assert!(!message.is_empty());
        if current.index() == i {
            assert_eq!(code, "wrong_phase");
        } else {
            assert_eq!(code, "not_your_turn");
        }
    }
    still_up(&mut a).await;
    still_up(&mut b).await;

    // Nothing changed: a new spectator sees exactly the same game.
    let mut watcher2 = server.connect(room, None, None).await;
    let after = snapshot_of(watcher2.recv().await.expect("snapshot"));
    assert_eq!(before.view, after.view);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_tokens_and_unknown_rooms_are_refused_before_the_upgrade() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "spectators": false }))
        .await;
    let room = created.room_id;
    let base = format!("ws://{}/api/rooms", server.addr);
    let status = |r: Result<_, tokio_tungstenite::tungstenite::Error>| match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Ok(_) => 101,
        Err(e) => panic!("unexpected error {e}"),
    };
    let r = tokio_tungstenite::connect_async(format!(
        "{base}/{room}/ws?token=00000000000000000000000000000000"
    ))
    .await;
    assert_eq!(status(r.map(|_| ())), 401);
    let r = tokio_tungstenite::connect_async(format!("{base}/{}/ws", uuid::Uuid::new_v4())).await;
    assert_eq!(status(r.map(|_| ())), 404);
    let r = tokio_tungstenite::connect_async(format!("{base}/{room}/ws")).await;
    assert_eq!(
        status(r.map(|_| ())),
        403,
        "spectators are not allowed in this room"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_flood_is_throttled_then_closed_with_the_documented_code() {
    let server = TestServer::start_with(|c| c.limits.rate_limit_per_sec = 20).await;
    let created = server.create_room(json!({ "players": 3 })).await;
    let mut c = server.connect(created.room_id, None, None).await;
    c.recv().await.expect("snapshot");
    for _ in 0..200 {
        if c.ws_send_ok(r#"{"type":"ping"}"#).await.is_err() {
            break;
        }
    }
    let mut limited = 0;
    loop {
        match c.recv().await {
            Some(ServerMessage::Error { code, .. }) if code == "rate_limited" => limited += 1,
            Some(_) => {}
            None => break,
        }
    }
    assert!(
        limited > 0,
        "the flood was answered with rate_limited errors first"
    );
    assert_eq!(c.closed_with, Some(CloseCode::RateLimited.code()));
    server.stop().await;
}
