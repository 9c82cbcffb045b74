//! Quick play's queue (protocol 26) over real sockets: three players queued for a
//! table of three are seated together in a new room whose game has started, each
//! told their seat and token, which connect; one player who allows bots waits the
//! configured time and is seated with bots of the level nearest their rating;
//! leaving is instant and a player who left is not seated; every refusal has its
//! code and changes nothing; joins and leaves are limited per player. On SQLite and
//! PostgreSQL.

use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{QueueStatus, RoomInfo, ServerMessage, SignedIn};
use reqwest::Method;
use serde_json::{Value, json};

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

async fn call(
    server: &TestServer,
    method: Method,
    p: &SignedIn,
    body: Option<Value>,
) -> (u16, Value) {
    let (status, body, _) = server
        .call(method, "/api/queue", Some(&p.token), body)
        .await;
    (status, body)
}

async fn room_info(server: &TestServer, room: uuid::Uuid) -> RoomInfo {
    let (status, body, _) = server
        .call(Method::GET, &format!("/api/rooms/{room}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("RoomInfo")
}

/// Polls the room until its game started (at most 15 s).
async fn playing(server: &TestServer, room: uuid::Uuid) -> RoomInfo {
    for _ in 0..150 {
        let info = room_info(server, room).await;
        if info.status == catan_protocol::RoomStatus::Playing {
            return info;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the game of {room} did not start within 15 s");
}

/// Polls `p`'s status until seated (at most 15 s).
async fn seated(server: &TestServer, p: &SignedIn) -> QueueStatus {
    for _ in 0..150 {
        let (status, body) = call(server, Method::GET, p, None).await;
        assert_eq!(status, 200, "{body}");
        let s: QueueStatus = serde_json::from_value(body).expect("QueueStatus");
        if s.seated.is_some() {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} was not seated within 15 s", p.player.name);
}

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
    for p in [&ann, &bob, &cyd] {
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
    }
    assert_eq!(
        positions[0],
        Some(1),
        "the first waits first: {positions:?}"
    );
    let (status, body) = call(server, Method::POST, &ann, Some(json!({ "seats": 4 }))).await;
    assert_eq!(
        (status, code(&body)),
        (409, "already_queued"),
        "in one queue at most: {body}"
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

/// Nobody is seated twice, whichever forming wins: 40 players queued, then 24
/// tables of 3 drawn from them at random, overlapping, seated by concurrent
/// transactions (as instances of a cluster forming tables at once would). Every
/// player is seated at most once, the tables that won are disjoint, and each
/// player's row names the table that won them. On PostgreSQL, whose transactions
/// really run at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_formings_never_seat_a_player_twice() {
    use catan_server::store::{
        PlayerRow, QueueRow, QueueSeat, QueueStore, QueueTable, SqlStore, Store,
    };
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    use uuid::Uuid;

    let url = fresh_postgres_url().await;
    let store = Arc::new(SqlStore::connect(&url).await.expect("store"));
    let mut players = Vec::new();
    for i in 0..40u64 {
        let id = Uuid::new_v4();
        store
            .create_player(&PlayerRow {
                id,
                name: format!("P{i}"),
                password_hash: None,
                created_at: i,
                deleted: false,
            })
            .await
            .expect("player");
        let row = QueueRow {
            player_id: id,
            ticket: Uuid::new_v4(),
            name: format!("P{i}"),
            seats: 3,
            rated: false,
            bots_ok: false,
            rating: 1000,
            since: i,
            seated: None,
        };
        assert!(store.queue_join(&[row]).await.expect("queued"));
        players.push(id);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(28);
    let tables: Vec<(Uuid, Vec<Uuid>)> = (0..24)
        .map(|_| {
            let mut at = Vec::new();
            while at.len() < 3 {
                let p = players[rng.random_range(0..players.len())];
                if !at.contains(&p) {
                    at.push(p);
                }
            }
            (Uuid::new_v4(), at)
        })
        .collect();
    let tasks: Vec<_> = tables
        .iter()
        .cloned()
        .map(|(room, at)| {
            let store = store.clone();
            tokio::spawn(async move {
                let seats: Vec<(Uuid, QueueSeat)> = at
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        (
                            *p,
                            QueueSeat {
                                room_id: room,
                                seat: u8::try_from(i).expect("seat"),
                                token: format!("t{i}"),
                                at: 1,
                            },
                        )
                    })
                    .collect();
                // (The seats are written in the players' order: two formings
                // sharing players do not deadlock, so no error is expected.)
                let table = QueueTable {
                    room_id: room,
                    host_token: "h".into(),
                    seats: 3,
                    rated: false,
                    formed_at: 1,
                };
                let won = store
                    .queue_seat(&table, &seats)
                    .await
                    .expect("no error, no deadlock");
                (room, at, won)
            })
        })
        .collect();
    let mut won = Vec::new();
    for t in tasks {
        let (room, at, ok) = t.await.expect("task");
        if ok {
            won.push((room, at));
        }
    }
    assert!(!won.is_empty(), "some table won");
    let mut seated = std::collections::HashMap::new();
    for (room, at) in &won {
        for p in at {
            assert!(seated.insert(*p, *room).is_none(), "{p} seated twice");
        }
    }
    for p in &players {
        let row = store.queued(*p).await.expect("read").expect("still a row");
        assert_eq!(
            row.seated.map(|s| s.room_id),
            seated.get(p).copied(),
            "{p}'s row names the table that won them"
        );
    }
}

/// Parties (protocol 26.3): a code made and joined (in any case) up to three
/// members; the refusals (full, unknown, already in one, a member queueing, not in
/// one); the leader queues everyone with one ticket, the party ends, and the three
/// are seated at one table with a fourth player; a leader who leaves ends the
/// party for its members.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_party_queues_together_and_is_seated_at_one_table() {
    let server = TestServer::start_with(|c| {
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let mut people = Vec::new();
    for n in ["Ann", "Bob", "Cyd", "Dan", "Eve"] {
        people.push(server.guest(n).await.0);
    }
    let [ann, bob, cyd, dan, eve]: [SignedIn; 5] = people.try_into().expect("five");
    let party = |method: Method, path: String, p: &SignedIn| {
        let token = p.token.clone();
        let server = &server;
        async move {
            let (status, body, _) = server.call(method, &path, Some(&token), None).await;
            (status, body)
        }
    };
    let (status, made) = party(Method::POST, "/api/queue/party".into(), &ann).await;
    assert_eq!(status, 201, "{made}");
    let party_code = made["code"].as_str().expect("code").to_owned();
    assert_eq!(party_code.len(), 6);
    let (status, body) = party(
        Method::POST,
        format!("/api/queue/party/{}", party_code.to_lowercase()),
        &bob,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = party(Method::POST, format!("/api/queue/party/{party_code}"), &cyd).await;
    assert_eq!(status, 200, "{body}");
    let names: Vec<&str> = body["members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Ann", "Bob", "Cyd"],
        "the leader first, then in order"
    );
    let (status, body) = party(Method::POST, format!("/api/queue/party/{party_code}"), &dan).await;
    assert_eq!((status, code(&body)), (409, "party_full"), "{body}");
    let (status, body) = party(Method::POST, "/api/queue/party/ZZZZZZ".into(), &dan).await;
    assert_eq!((status, code(&body)), (404, "party_not_found"), "{body}");
    let (status, body) = party(Method::POST, "/api/queue/party".into(), &bob).await;
    assert_eq!((status, code(&body)), (409, "already_in_party"), "{body}");
    let (status, body) = call(
        &server,
        Method::POST,
        &bob,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!((status, code(&body)), (403, "not_party_leader"), "{body}");
    assert_eq!(
        call(&server, Method::GET, &bob, None).await.0,
        404,
        "nothing queued"
    );

    // The leader queues the party: everyone waits, one ticket, the party ends.
    let (status, body) = call(
        &server,
        Method::POST,
        &ann,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, bob_status) = call(&server, Method::GET, &bob, None).await;
    assert_eq!(status, 200, "{bob_status}");
    assert_eq!(bob_status["since"], body["since"], "queued together");
    let (status, body) = party(Method::GET, "/api/queue/party".into(), &cyd).await;
    assert_eq!((status, code(&body)), (404, "not_in_party"), "{body}");

    // With a fourth, one table.
    let (status, body) = call(
        &server,
        Method::POST,
        &eve,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let at =
        futures_util::future::join_all([&ann, &bob, &cyd, &eve].map(|p| seated(&server, p))).await;
    let rooms: std::collections::BTreeSet<_> = at
        .iter()
        .map(|s| s.seated.as_ref().expect("seated").room_id)
        .collect();
    assert_eq!(rooms.len(), 1, "one table: {at:?}");

    // A leader who leaves ends the party.
    let (status, made) = party(Method::POST, "/api/queue/party".into(), &dan).await;
    assert_eq!(status, 201, "{made}");
    let party_code = made["code"].as_str().expect("code").to_owned();
    assert_eq!(
        party(Method::POST, format!("/api/queue/party/{party_code}"), &ann)
            .await
            .0,
        200
    );
    assert_eq!(
        party(Method::DELETE, "/api/queue/party".into(), &dan)
            .await
            .0,
        204
    );
    let (status, body) = party(Method::GET, "/api/queue/party".into(), &ann).await;
    assert_eq!((status, code(&body)), (404, "not_in_party"), "{body}");
    server.stop().await;
}

/// Joins `p` to the queue for `seats` with or without bots.
async fn join(server: &TestServer, p: &SignedIn, seats: u8, bots: bool) {
    let (status, body) = call(
        server,
        Method::POST,
        p,
        Some(json!({ "seats": seats, "bots": bots })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

/// The names at `room`'s seats and how many bots.
fn sitting(room: &RoomInfo) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut bots = 0;
    for o in room.seats.iter().filter_map(|s| s.occupant.as_ref()) {
        if o.bot.is_some() {
            bots += 1;
        } else {
            names.push(o.name.clone());
        }
    }
    names.sort();
    (names, bots)
}

/// Protocol 26.4: a player seated who does not connect within the connect time is
/// dropped (out of the queue, their token refused) and the seat is filled from the
/// queue, the table kept; at a table that allows bots, by a bot; the game starts
/// once everyone at the table is connected.
async fn drop_and_refill(server: &TestServer) {
    let [ann, bob, cyd, dan, eve, fay] = {
        let mut v = Vec::new();
        for n in ["Ann", "Bob", "Cyd", "Dan", "Eve", "Fay"] {
            v.push(server.guest(n).await.0);
        }
        <[SignedIn; 6]>::try_from(v).expect("six")
    };
    for p in [&ann, &bob, &cyd] {
        join(server, p, 3, false).await;
    }
    let at: Vec<QueueStatus> =
        futures_util::future::join_all([&ann, &bob, &cyd].map(|p| seated(server, p))).await;
    let seat_of = |s: &QueueStatus| s.seated.clone().expect("seated");
    let room_id = seat_of(&at[0]).room_id;
    // Ann and Bob connect; Cyd does not.
    let mut clients = Vec::new();
    for s in &at[..2] {
        let s = seat_of(s);
        clients.push(server.connect(s.room_id, Some(&s.token), None).await);
    }
    // Cyd is dropped after the connect time: out of the queue.
    let mut dropped = false;
    for _ in 0..100 {
        if call(server, Method::GET, &cyd, None).await.0 == 404 {
            dropped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(dropped, "Cyd, who never connected, is dropped");
    let info = room_info(server, room_id).await;
    assert_eq!(info.status, catan_protocol::RoomStatus::Lobby);
    assert_eq!(sitting(&info), (vec!["Ann".into(), "Bob".into()], 0));
    let cyd_seat = seat_of(&at[2]);
    let refused = tokio_tungstenite::connect_async(
        server
            .url(&format!("/api/rooms/{room_id}/ws?token={}", cyd_seat.token))
            .replacen("http", "ws", 1),
    )
    .await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            assert_eq!(r.status(), 401, "Cyd's token no longer opens the seat");
        }
        other => panic!("Cyd's token still opens a seat: {:?}", other.map(|_| ())),
    }
    // Dan queues: his seat is Cyd's, at the same table.
    join(server, &dan, 3, false).await;
    let d = seat_of(&seated(server, &dan).await);
    assert_eq!(d.room_id, room_id, "the table is filled again, not lost");
    clients.push(server.connect(d.room_id, Some(&d.token), None).await);
    let info = playing(server, room_id).await;
    assert_eq!(
        sitting(&info),
        (vec!["Ann".into(), "Bob".into(), "Dan".into()], 0)
    );

    // At a table that allows bots, a bot fills the seat of who did not come.
    join(server, &eve, 3, true).await;
    join(server, &fay, 3, true).await;
    let e = seat_of(&seated(server, &eve).await);
    let f = seat_of(&seated(server, &fay).await);
    assert_eq!(e.room_id, f.room_id);
    let before = sitting(&room_info(server, e.room_id).await);
    assert_eq!(
        before,
        (vec!["Eve".into(), "Fay".into()], 1),
        "after the wait, a bot"
    );
    clients.push(server.connect(e.room_id, Some(&e.token), None).await);
    let info = playing(server, e.room_id).await;
    assert_eq!(
        sitting(&info),
        (vec!["Eve".into()], 2),
        "Fay's seat to a bot"
    );
    assert_eq!(call(server, Method::GET, &fay, None).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_does_not_connect_is_dropped_and_the_seat_refilled_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
        c.queue.queue_connect_secs = 1;
    })
    .await;
    drop_and_refill(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_does_not_connect_is_dropped_and_the_seat_refilled_on_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
        c.queue.queue_connect_secs = 1;
    })
    .await;
    drop_and_refill(&server).await;
    server.stop().await;
}

/// A table whose room is on no instance (the one that formed it was killed before
/// its game started) gives its players back to the queue, where they waited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_that_lost_its_instance_gives_its_players_back() {
    use catan_server::store::{QueueSeat, QueueStore, QueueTable, SqlStore};

    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let store = SqlStore::connect(&url).await.expect("store");
    let orphan_ms = catan_server::Config::for_tests().queue.orphan_ms();
    let ann = server.guest("Ann").await.0;
    let bob = server.guest("Bob").await.0;
    join(&server, &ann, 4, false).await;
    join(&server, &bob, 4, false).await;
    let since = call(&server, Method::GET, &ann, None).await.1["since"].clone();
    // As an instance that died would have left it: a table of a room nowhere.
    let room_id = uuid::Uuid::new_v4();
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis(),
    )
    .expect("ms");
    let table = QueueTable {
        room_id,
        host_token: "gone".into(),
        seats: 4,
        rated: false,
        formed_at: now - orphan_ms - 1000,
    };
    let seats: Vec<_> = [&ann, &bob]
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                p.player.id,
                QueueSeat {
                    room_id,
                    seat: u8::try_from(i).expect("seat"),
                    token: format!("t{i}"),
                    at: now - orphan_ms - 1000,
                },
            )
        })
        .collect();
    assert!(store.queue_seat(&table, &seats).await.expect("written"));
    let mut back = false;
    for _ in 0..100 {
        let (status, body) = call(&server, Method::GET, &ann, None).await;
        assert_eq!(status, 200, "{body}");
        if body["seated"].is_null() {
            assert_eq!(body["since"], since, "where Ann waited before");
            assert_eq!(body["position"], 1);
            back = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(back, "the lost table's players wait again");
    assert!(store.queue_pending().await.expect("read").is_empty());
    server.stop().await;
}

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

/// Many joining one party at the same moment: it never holds more than three
/// (each join waits for the one before it in the database), on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_party_joined_by_many_at_once_holds_three() {
    use catan_server::store::{PartyJoin, PlayerRow, QueueStore, SqlStore, Store};
    use std::sync::Arc;
    use uuid::Uuid;

    let url = fresh_postgres_url().await;
    let store = Arc::new(SqlStore::connect(&url).await.expect("store"));
    // Five parties, each joined by eleven at once (without the party's row held,
    // three runs of three failed).
    for round in 0..5u64 {
        let mut players = Vec::new();
        for i in 0..12u64 {
            let id = Uuid::new_v4();
            store
                .create_player(&PlayerRow {
                    id,
                    name: format!("P{round}-{i}"),
                    password_hash: None,
                    created_at: i,
                    deleted: false,
                })
                .await
                .expect("player");
            players.push(id);
        }
        let code = format!("PARTY{round}");
        store
            .party_create(&code, players[0], "P0", 1)
            .await
            .expect("party");
        let joins: Vec<_> = players[1..]
            .iter()
            .map(|p| {
                let (store, p, code) = (store.clone(), *p, code.clone());
                tokio::spawn(async move { store.party_join(&code, p, "x", 2, 3).await })
            })
            .collect();
        let mut joined = 0;
        for j in joins {
            match j.await.expect("task").expect("no error") {
                PartyJoin::Joined => joined += 1,
                PartyJoin::Full => {}
                PartyJoin::NotFound => panic!("the party exists"),
            }
        }
        assert_eq!(joined, 2, "round {round}: the leader and two more");
        let party = store
            .party_of(players[0])
            .await
            .expect("read")
            .expect("party");
        assert_eq!(party.members.len(), 3);
    }
}

/// Many joining at one moment on SQLite: every join lands (a join's transaction
/// writes first, so SQLite's one writer lock is waited for, not failed on; seen
/// as `store_unavailable` under the load generator's 20 joins a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn joins_at_one_moment_all_land_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let mut people = Vec::new();
    for i in 0..40 {
        people.push(server.guest(&format!("P{i}")).await.0);
    }
    let joins = futures_util::future::join_all(people.iter().map(|p| {
        call(
            &server,
            Method::POST,
            p,
            Some(json!({ "seats": 4, "bots": false })),
        )
    }))
    .await;
    for (status, body) in &joins {
        assert_eq!(*status, 201, "{body}");
    }
    server.stop().await;
}
