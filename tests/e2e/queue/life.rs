//! A table's life over HTTP, and the limit on joins and leaves.

use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{QueueStatus, ServerMessage};
use reqwest::Method;
use serde_json::json;

use super::{call, code, playing, room_info, seated};

async fn queue_life(server: &TestServer) {
    let ann = server.guest("Ann").await.0;
    let bob = server.guest("Bob").await.0;
    let cyd = server.guest("Cyd").await.0;

    // Refusals, nothing queued.
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/queue",
            None,
            Some(json!({ "seats": 3 })),
        )
        .await;
    assert_eq!((status, code(&body)), (401, "not_signed_in"), "{body}");
    for bad in [
        json!({ "seats": 5 }),
        json!({ "seats": 3, "colour": "red" }),
        json!({}),
    ] {
        let (status, body) = call(server, Method::POST, &ann, Some(bad.clone())).await;
        assert_eq!((status, code(&body)), (400, "bad_request"), "{bad}: {body}");
    }
    let (status, body) = call(server, Method::GET, &ann, None).await;
    assert_eq!((status, code(&body)), (404, "not_queued"), "{body}");
    let (status, body) = call(server, Method::DELETE, &ann, None).await;
    assert_eq!((status, code(&body)), (404, "not_queued"), "{body}");

    // Leaving is instant: a player who left is not seated.
    let (status, body) = call(
        server,
        Method::POST,
        &cyd,
        Some(json!({ "seats": 3, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // While waiting, no other seat: taking one in a room is refused, and works
    // once the player left the queue.
    let room = server.create_room(json!({ "players": 4 })).await;
    let seat_path = format!("/api/rooms/{}/seats", room.room_id);
    let (status, body, _) = server
        .call(
            Method::POST,
            &seat_path,
            Some(&cyd.token),
            Some(json!({ "name": "Cyd" })),
        )
        .await;
    assert_eq!((status, code(&body)), (409, "already_queued"), "{body}");
    let (status, _) = call(server, Method::DELETE, &cyd, None).await;
    assert_eq!(status, 204);
    assert_eq!(call(server, Method::GET, &cyd, None).await.0, 404);
    let (status, body, _) = server
        .call(
            Method::POST,
            &seat_path,
            Some(&cyd.token),
            Some(json!({ "name": "Cyd" })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    // Holding that seat while the room gathers, no queue; once left, the queue.
    let (status, refused) = call(
        server,
        Method::POST,
        &cyd,
        Some(json!({ "seats": 3, "bots": false })),
    )
    .await;
    assert_eq!(
        (status, code(&refused)),
        (409, "seated_elsewhere"),
        "{refused}"
    );
    assert_eq!(
        call(server, Method::GET, &cyd, None).await.0,
        404,
        "nothing queued"
    );
    let (status, left, _) = server
        .call(
            Method::DELETE,
            &format!("{seat_path}/{}", body["seat"]),
            body["token"].as_str(),
            None,
        )
        .await;
    assert_eq!(status, 204, "{left}");

    // Three for a table of three, without bots: seated together.
    let mut positions = Vec::new();
    for (i, p) in [&ann, &bob, &cyd].into_iter().enumerate() {
        let (status, body) = call(
            server,
            Method::POST,
            p,
            Some(json!({ "seats": 3, "bots": false })),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let s: QueueStatus = serde_json::from_value(body).expect("QueueStatus");
        assert!(s.seated.is_none() || s.position.is_none());
        positions.push(s.position);
        if i == 1 {
            // Two of three waiting (nobody can be seated yet: no bots): Ann is in
            // one queue at most. (Asked after the third came, she may be seated
            // already, and is then refused as seated elsewhere.)
            let (status, body) =
                call(server, Method::POST, &ann, Some(json!({ "seats": 4 }))).await;
            assert_eq!(
                (status, code(&body)),
                (409, "already_queued"),
                "in one queue at most: {body}"
            );
        }
    }
    assert_eq!(
        positions[0],
        Some(1),
        "the first waits first: {positions:?}"
    );
    let seats: Vec<QueueStatus> =
        futures_util::future::join_all([&ann, &bob, &cyd].map(|p| seated(server, p))).await;
    let at: Vec<_> = seats
        .iter()
        .map(|s| s.seated.clone().expect("seated"))
        .collect();
    assert!(
        at.iter().all(|s| s.room_id == at[0].room_id),
        "one table: {:?}",
        seats
    );
    let mut numbers: Vec<u8> = at.iter().map(|s| s.seat).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, vec![0, 1, 2]);
    assert!(seats.iter().all(|s| s.position.is_none()));
    let room = room_info(server, at[0].room_id).await;
    assert_eq!(
        room.status,
        catan_protocol::RoomStatus::Lobby,
        "the game waits for everyone to connect"
    );
    assert_eq!(room.seats.len(), 3);
    assert!(!room.options.listed, "not in the public list");
    let names: Vec<String> = room
        .seats
        .iter()
        .filter_map(|s| s.occupant.as_ref().map(|o| o.name.clone()))
        .collect();
    for n in ["Ann", "Bob", "Cyd"] {
        assert!(names.iter().any(|x| x == n), "{n} seated: {names:?}");
    }
    // At a table still gathering, a player is in its room's lobby: no queue.
    let (status, body) = call(server, Method::POST, &bob, Some(json!({ "seats": 4 }))).await;
    assert_eq!((status, code(&body)), (409, "seated_elsewhere"), "{body}");
    // The tokens connect to the seats; once all three are, the game starts.
    let mut clients = Vec::new();
    for s in &at {
        let mut c = server.connect(s.room_id, Some(&s.token), None).await;
        let welcome = c.recv().await.expect("a first message");
        assert!(matches!(welcome, ServerMessage::Snapshot(_)), "{welcome:?}");
        clients.push(c);
    }
    let room = playing(server, at[0].room_id).await;
    assert_eq!(room.seats.len(), 3);
    // (The start is written to the queue right after the room's: a moment.)
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Seated, a player may queue again at once (the old seat's row goes).
    let (status, body) = call(
        server,
        Method::POST,
        &bob,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = call(server, Method::DELETE, &bob, None).await;
    assert_eq!(status, 204);

    // Alone, allowing bots: seated with bots after the configured wait, at the
    // level nearest a new player's rating (medium).
    let dan = server.guest("Dan").await.0;
    let (status, body) = call(
        server,
        Method::POST,
        &dan,
        Some(json!({ "seats": 4, "rated": true })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let s = seated(server, &dan).await;
    assert!(s.waited_ms >= 1000, "bots only after the wait: {s:?}");
    let room = room_info(server, s.seated.expect("seated").room_id).await;
    let bots = room
        .seats
        .iter()
        .filter(|seat| seat.occupant.as_ref().is_some_and(|o| o.bot.is_some()))
        .count();
    assert_eq!(bots, 3, "{room:?}");
    assert!(room.options.rated);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_play_seats_tables_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
    })
    .await;
    queue_life(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_play_seats_tables_on_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
    })
    .await;
    queue_life(&server).await;
    server.stop().await;
}

/// Joins and leaves are limited per player: with 1 a minute (bursts of 5), the
/// sixth call in a row is refused.
#[tokio::test]
async fn joining_and_leaving_are_limited_per_player() {
    let server = TestServer::start_with(|c| {
        c.queue.queue_rate_per_min = 1;
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let ann = server.guest("Ann").await.0;
    let mut seen = Vec::new();
    for i in 0..6 {
        let (method, body) = if i % 2 == 0 {
            (Method::POST, Some(json!({ "seats": 4 })))
        } else {
            (Method::DELETE, None)
        };
        let (status, body) = call(&server, method, &ann, body).await;
        seen.push((status, code(&body).to_owned()));
    }
    assert_eq!(seen[5], (429, "rate_limited".to_owned()), "{seen:?}");
    assert!(
        seen[..5].iter().all(|(s, _)| *s == 201 || *s == 204),
        "{seen:?}"
    );
    server.stop().await;
}
