//! A room still gathering players survives a restart of its server (SIGKILL or a
//! graceful stop): the same id, options and seats; a person's token still opens
//! their seat, the host token still starts the game, and the bots come back to
//! their seats. Once started it is a game like any other: restored once, not twice.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{RoomInfo, RoomStatus, ServerMessage};
use serde_json::json;
use uuid::Uuid;

async fn room_info(server: &TestServer, id: Uuid) -> (u16, Option<RoomInfo>) {
    let r = server
        .http
        .get(server.url(&format!("/api/rooms/{id}")))
        .send()
        .await
        .expect("http");
    let status = r.status().as_u16();
    (
        status,
        if status == 200 {
            r.json().await.ok()
        } else {
            None
        },
    )
}

async fn restarted(db: &str) -> TestServer {
    let mut server = TestServer::spawn_process(db);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("the server comes back");
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_gathering_players_survives_a_kill_and_a_restart_and_then_starts() {
    let (db, _dir) = catan_e2e::fresh_sqlite_url();
    let mut server = restarted(&db).await;
    let created = server
        // A person away on their turn is stood in for after a second, so the game
        // moves whoever's turn it is (the first player comes from the seed).
        .create_room(json!({ "players": 3, "vp_target": 5, "listed": false, "stand_in_secs": 1 }))
        .await;
    let room = created.room_id;
    let ann = server.take_seat(room, "ann").await;
    server
        .add_bot_of_kind(room, &created.host_token, Some("easy"))
        .await;
    let (_, before) = room_info(&server, room).await;
    let before = before.expect("the room");

    // Killed without warning: nothing but the store is left.
    server.kill();
    let mut server = restarted(&db).await;
    let (status, after) = room_info(&server, room).await;
    assert_eq!(status, 200, "the room is back");
    let after = after.expect("the room");
    assert_eq!(after.status, RoomStatus::Lobby);
    assert_eq!(after.options, before.options, "with its options");
    assert_eq!(after.created_at, before.created_at);
    let occupants =
        |i: &RoomInfo| -> Vec<_> { i.seats.iter().map(|s| s.occupant.clone()).collect() };
    assert_eq!(occupants(&after), occupants(&before), "and its seats");

    // Ann's token opens her seat; a third person sits down; the host starts.
    let mut client = server.connect(room, Some(&ann.token), None).await;
    let first = client.recv().await.expect("a message");
    assert!(
        matches!(&first, ServerMessage::Snapshot(s) if s.you == Some(ann.seat)),
        "ann's seat: {first:?}"
    );
    let _carl = server.take_seat(room, "carl").await;
    // Stopped gracefully this time, then back: still the same three seats.
    server.terminate(Duration::from_secs(20));
    let server = restarted(&db).await;
    let (_, info) = room_info(&server, room).await;
    let info = info.expect("the room");
    assert!(info.seats.iter().all(|s| s.occupant.is_some()), "{info:?}");
    let started = server.start_game(room, &created.host_token).await;
    assert_eq!(
        started.status,
        RoomStatus::Playing,
        "the host token starts it"
    );
    // The restored bot plays its seat: a spectator sees it place its settlement
    // whoever moves first (Ann plays; Carl, away, is stood in for).
    let bot = info
        .seats
        .iter()
        .find(|s| s.occupant.as_ref().is_some_and(|o| o.bot.is_some()))
        .expect("the bot's seat")
        .seat;
    let mut spectator = server.connect(room, None, None).await;
    let ann_plays = tokio::spawn(catan_e2e::play_randomly(
        server.connect(room, Some(&ann.token), None).await,
        1,
    ));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the restored bot did not play within 30 s"
        );
        let m = spectator.recv().await.expect("the spectator's socket");
        if matches!(&m, ServerMessage::Events { events, .. } if events.iter().any(|e| matches!(e, catan_engine::Event::SettlementBuilt { seat, .. } if *seat == bot)))
        {
            break;
        }
    }
    ann_plays.abort();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_started_game_is_restored_once_beside_a_room_gathering_players() {
    let (db, _dir) = catan_e2e::fresh_sqlite_url();
    let server = restarted(&db).await;
    let started = server.create_room(json!({ "players": 3 })).await;
    for _ in 0..3 {
        server.add_bot(started.room_id, &started.host_token).await;
    }
    server
        .start_game(started.room_id, &started.host_token)
        .await;
    let gathering = server.create_room(json!({ "players": 3 })).await;
    server.take_seat(gathering.room_id, "dora").await;
    server.stop().await;
    let server = restarted(&db).await;
    let listed: serde_json::Value = server
        .http
        .get(server.url("/api/rooms"))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("json");
    let ids: Vec<&str> = listed["rooms"]
        .as_array()
        .expect("rooms")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    let started_id = started.room_id.to_string();
    let gathering_id = gathering.room_id.to_string();
    assert_eq!(
        ids.iter().filter(|i| **i == started_id).count(),
        1,
        "the started game once: {ids:?}"
    );
    assert_eq!(
        ids.iter().filter(|i| **i == gathering_id).count(),
        1,
        "{ids:?}"
    );
    let (_, info) = room_info(&server, started.room_id).await;
    assert_eq!(info.expect("the game").status, RoomStatus::Playing);
    server.stop().await;
}
