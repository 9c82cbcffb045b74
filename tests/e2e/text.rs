//! Names and chat (protocol.md section 20): normalized to NFC, and refused with
//! `invalid_name` / `invalid_chat` when they hold control or bidirectional formatting
//! characters, show nothing, or (names) pose as a bot.

use catan_e2e::TestServer;
use catan_protocol::{CloseCode, RoomInfo, ServerMessage};
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_are_normalized_and_impostors_and_invisible_ones_refused() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let room = created.room_id;
    let url = server.url(&format!("/api/rooms/{room}/seats"));
    for bad in [
        "\u{202E}nimda",
        "\u{200B}\u{200B}",
        "   ",
        "ann (random bot)",
        "bo\u{7}b",
        "line\nbreak",
    ] {
        let r = server
            .http
            .post(&url)
            .json(&json!({ "name": bad }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{bad:?}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_name", "{bad:?}");
    }
    let seated = server.take_seat(room, " Zoe\u{0301} ").await;
    server.add_bot(room, &created.host_token).await;
    let info: RoomInfo = server
        .http
        .get(server.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let occupants: Vec<_> = info
        .seats
        .iter()
        .filter_map(|s| s.occupant.clone())
        .collect();
    assert_eq!(occupants.len(), 2, "nothing else was seated");
    let person = &occupants[seated.seat.index()];
    assert_eq!(person.name, "Zo\u{e9}", "NFC, trimmed");
    assert!(person.bot.is_none());
    assert!(
        occupants.iter().any(|o| o.bot.is_some()),
        "bots carry their kind"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_with_line_breaks_escapes_or_bidi_overrides_is_refused() {
    let server = TestServer::start().await;
    let room = server.create_room(json!({"players": 3})).await.room_id;
    let ann = server.take_seat(room, "ann").await;
    let mut a = server.connect(room, Some(&ann.token), None).await;
    a.recv().await.expect("snapshot");
    for bad in [
        "two\nlines",
        "cr\rhere",
        "nul\u{0}",
        "\u{1b}[2Jwiped",
        "\u{202E}txet",
    ] {
        a.send_json(&json!({"type": "chat", "text": bad})).await;
        let m = a
            .recv_until(|m| matches!(m, ServerMessage::Error { .. } | ServerMessage::Chat { .. }))
            .await;
        assert!(
            matches!(&m, ServerMessage::Error { code, .. } if code == "invalid_chat"),
            "{bad:?}: {m:?}"
        );
    }
    a.send_json(&json!({"type": "chat", "text": "cafe\u{0301}"}))
        .await;
    let m = a
        .recv_until(|m| matches!(m, ServerMessage::Chat { .. }))
        .await;
    assert!(matches!(m, ServerMessage::Chat { text, .. } if text == "caf\u{e9}"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_has_its_own_rate_and_a_flooding_spectator_gets_no_player_dropped() {
    let server = TestServer::start_with(|c| {
        c.limits.chat_per_min = 6;
        c.limits.outbound_queue = 16;
    })
    .await;
    let room = server.create_room(json!({"players": 3})).await.room_id;
    let ann = server.take_seat(room, "ann").await;
    let mut player = server.connect(room, Some(&ann.token), None).await;
    player.recv().await.expect("snapshot");
    let mut spectator = server.connect(room, None, None).await;
    spectator.recv().await.expect("snapshot");
    // The player reads nothing while the spectator floods the room with chat.
    let line = json!({"type": "chat", "text": "x".repeat(400)}).to_string();
    let mut sent = 0;
    while sent < 40_000
        && spectator
            .ws
            .feed(Message::Text(line.clone().into()))
            .await
            .is_ok()
    {
        sent += 1;
    }
    let _ = spectator.ws.flush().await;
    let mut refused = 0;
    while let Some(m) = spectator.recv().await {
        if matches!(&m, ServerMessage::Error { code, .. } if code == "rate_limited") {
            refused += 1;
        }
    }
    assert!(refused > 0, "chat over its rate is refused");
    assert_eq!(spectator.closed_with, Some(CloseCode::RateLimited.code()));
    // The player is still there, with no more chat than the burst (and the refill).
    player
        .send_json(&json!({"type": "ping", "request_id": "alive"}))
        .await;
    let mut chats = 0;
    loop {
        match player.recv().await.expect("the player was not dropped") {
            ServerMessage::Chat { .. } => chats += 1,
            ServerMessage::Pong { .. } => break,
            _ => {}
        }
    }
    assert!(chats <= 6, "{chats} chats got through");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_does_not_push_room_broadcasts_out_of_the_reconnect_backlog() {
    let server = TestServer::start_with(|c| c.rooms.event_backlog = 4).await;
    let room = server.create_room(json!({"players": 3})).await.room_id;
    let ann = server.take_seat(room, "ann").await;
    let mut watcher = server.connect(room, None, None).await;
    let Some(ServerMessage::Snapshot(s)) = watcher.recv().await else {
        panic!("snapshot first")
    };
    let from = s.seq;
    server.take_seat(room, "bob").await;
    server.take_seat(room, "cy").await;
    let mut a = server.connect(room, Some(&ann.token), None).await;
    a.recv().await.expect("snapshot");
    for i in 0..40 {
        a.send_json(&json!({"type": "chat", "text": format!("line {i}")}))
            .await;
    }
    let last = loop {
        if let Some(ServerMessage::Chat { seq, text, .. }) = watcher.recv().await
            && text == "line 39"
        {
            break seq;
        }
    };
    let mut back = server.connect(room, None, Some(from)).await;
    let mut seqs = Vec::new();
    let (mut rooms, mut texts) = (0, Vec::new());
    loop {
        match back.recv().await.expect("open") {
            ServerMessage::Snapshot(_) => panic!("a snapshot instead of a replay"),
            ServerMessage::Resumed { seq, .. } => {
                assert_eq!(seq, last);
                break;
            }
            ServerMessage::Chat { seq, text, .. } => {
                seqs.push(seq);
                texts.push(text);
            }
            m => {
                rooms += usize::from(matches!(m, ServerMessage::Room { .. }));
                seqs.push(m.seq().expect("a broadcast"));
            }
        }
    }
    let expected: Vec<u64> = (from + 1..=last).collect();
    assert_eq!(seqs, expected, "no gap");
    assert_eq!(rooms, 2, "both seat changes were replayed");
    assert_eq!(texts.len(), 40);
    assert!(
        texts[..8].iter().all(String::is_empty),
        "older chats lose their text"
    );
    assert!(
        texts[8..].iter().all(|t| t.starts_with("line ")),
        "the last 32 keep it"
    );
    server.stop().await;
}
