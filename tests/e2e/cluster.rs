//! Several instances on one PostgreSQL (docs/cluster.md): writes fenced by the lease's
//! epoch, a room taken over when its owner dies or shuts down, and SQLite refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use catan_e2e::{
    Client, Load, TestServer, fresh_postgres_url, fresh_sqlite_url, hold_cores, play_randomly,
};
use catan_engine::{Action, Seat};
use catan_protocol::{ClosingReason, ServerMessage};
use catan_server::store::{
    ActionRecord, Fence, NewGame, PlayerRecord, SqlStore, Store, StoreError,
};
use serde_json::json;
use sqlx::Row;
use uuid::Uuid;

use crate::persistence::wait_until_stored;

/// The lease row of `room`: the owner's address and the epoch.
async fn lease(store: &SqlStore, room: Uuid) -> Option<(String, i64)> {
    let row = sqlx::query(
        "SELECT i.address, l.epoch FROM room_leases l JOIN instances i ON i.id = l.owner \
         WHERE l.room_id = $1",
    )
    .bind(room.to_string())
    .fetch_optional(store.pool())
    .await
    .expect("lease query")?;
    Some((row.get("address"), row.get("epoch")))
}

/// Rows of the action log of `room`.
async fn stored_actions(store: &SqlStore, room: Uuid) -> i64 {
    sqlx::query("SELECT COUNT(*) AS n FROM game_actions WHERE game_id = $1")
        .bind(room.to_string())
        .fetch_one(store.pool())
        .await
        .expect("count")
        .get("n")
}

/// An instance of a cluster with `lease_secs` leases, registered as reached at
/// `address`, once it answers (it registers before it serves).
async fn instance(url: &str, address: &str, lease_secs: &str) -> TestServer {
    instance_with(url, address, lease_secs, &[]).await
}

/// [`instance`] with more variables in its environment.
async fn instance_with(
    url: &str,
    address: &str,
    lease_secs: &str,
    more: &[(&str, &str)],
) -> TestServer {
    let mut env = vec![
        ("CATAN_CLUSTER_ADDRESS", address),
        ("CATAN_CLUSTER_LEASE_SECS", lease_secs),
    ];
    env.extend_from_slice(more);
    let mut server = TestServer::spawn_process_with(url, &env);
    server
        .wait_ready(Duration::from_secs(20))
        .await
        .expect("the instance serves");
    server
}

/// The highest `events` seq a client saw.
fn last_seq(c: &Client) -> u64 {
    c.received
        .iter()
        .filter_map(|(_, m)| match m {
            ServerMessage::Events { seq, .. } => Some(*seq),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A room on `server` to `vp_target` with two people (Ann's and Bob's seat tokens)
/// and two bots, not started: its id, host token and the two tokens.
async fn two_people_two_bots(server: &TestServer, vp_target: u8) -> (Uuid, String, [String; 2]) {
    let created = server
        .create_room(json!({ "players": 4, "vp_target": vp_target }))
        .await;
    let room = created.room_id;
    let a = server.take_seat(room, "ann").await;
    let b = server.take_seat(room, "bob").await;
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    (room, created.host_token, [a.token, b.token])
}

/// The two seats' players of a game: each plays randomly until its socket ends.
type Seats = [tokio::task::JoinHandle<(Client, usize)>; 2];

/// A room on `server` with two people (their tokens, and the tasks playing them) and
/// two bots, started, and a spectator that has seen `events` broadcasts of it.
async fn game_under_way(server: &TestServer, events: usize) -> (Uuid, Client, Seats, [String; 2]) {
    let (room, host, tokens) = two_people_two_bots(server, 6).await;
    let ca = server.connect(room, Some(&tokens[0]), None).await;
    let cb = server.connect(room, Some(&tokens[1]), None).await;
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &host).await;
    let seats = [
        tokio::spawn(play_randomly(ca, 1)),
        tokio::spawn(play_randomly(cb, 2)),
    ];
    let mut seen = 0;
    while seen < events {
        match spectator.recv().await.expect("spectator") {
            ServerMessage::Events { .. } => seen += 1,
            ServerMessage::GameOver(_) => panic!("the game ended too soon"),
            _ => {}
        }
    }
    (room, spectator, seats, tokens)
}

/// Waits for both seats' players to stop (their sockets ended); each seat's token
/// with the last seq it saw.
async fn stopped(seats: Seats, tokens: [String; 2]) -> [(String, u64); 2] {
    let [ta, tb] = seats;
    let [a, b] = tokens;
    let (ca, _) = ta.await.expect("seat a");
    let (cb, _) = tb.await.expect("seat b");
    [(a, last_seq(&ca)), (b, last_seq(&cb))]
}

/// Waits until `server` holds `room` (its lobby answers for it); how long that took.
async fn until_held(server: &TestServer, room: Uuid, within: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let r = server
            .http
            .get(server.url(&format!("/api/rooms/{room}")))
            .send()
            .await
            .expect("http");
        if r.status() == 200 {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "the room was not taken over within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Plays the two seats from the seq each saw to the end, the first through
/// `first`, the second through `second`; the first seat's client and the refusals
/// of both. Each resumed seat hears the game's events once each, in order, after
/// the last it saw.
async fn finish_on(
    first: &TestServer,
    second: &TestServer,
    room: Uuid,
    seats: &[(String, u64); 2],
) -> (Client, usize) {
    let ca = first
        .connect(room, Some(&seats[0].0), Some(seats[0].1))
        .await;
    let cb = second
        .connect(room, Some(&seats[1].0), Some(seats[1].1))
        .await;
    let ta = tokio::spawn(play_randomly(ca, 3));
    let tb = tokio::spawn(play_randomly(cb, 4));
    let (ca, ra) = ta.await.expect("seat a");
    let (cb, rb) = tb.await.expect("seat b");
    for (c, (_, from)) in [&ca, &cb].into_iter().zip(seats) {
        let seqs: Vec<u64> = c
            .received
            .iter()
            .filter_map(|(_, m)| match m {
                ServerMessage::Events { seq, .. } => Some(*seq),
                _ => None,
            })
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]) && seqs.iter().all(|s| s > from),
            "seqs after {from}: {seqs:?}"
        );
    }
    (ca, ra + rb)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_under_an_epoch_that_is_no_longer_the_leases_is_refused_and_stores_nothing() {
    let url = fresh_postgres_url().await;
    let fence = Arc::new(Fence::new("instance-a".into(), Duration::from_secs(30)));
    let store = SqlStore::connect_with(&url, Some(fence.clone()))
        .await
        .expect("store");
    let plain = SqlStore::connect(&url).await.expect("store");
    sqlx::query(
        "INSERT INTO instances (id, address, started_at, heartbeat_at, rooms, draining) \
         VALUES ('instance-a', 'http://a', 0, 0, 0, 0)",
    )
    .execute(plain.pool())
    .await
    .expect("instance row");
    let id = Uuid::new_v4();
    let players = (0..3)
        .map(|s| PlayerRecord {
            rating: None,
            seat: Seat(s),
            name: format!("p{s}"),
            bot: None,
            token_hash: String::new(),
            final_vp: None,
            vp_cards: None,
            player_id: None,
        })
        .collect();
    let game = NewGame {
        id,
        options: catan_protocol::RoomOptions::default(),
        seed: 1,
        seed_salt: "s".into(),
        seed_commitment: "c".into(),
        host_token_hash: "h".into(),
        created_at: 1,
        started_at: 2,
        players,
    };
    store.create_game(&game).await.expect("created");
    // The game takes its lease with it: epoch 1, this instance.
    assert_eq!(lease(&plain, id).await, Some(("http://a".into(), 1)));
    assert_eq!(fence.epoch(id), 1);
    let action = |seq| ActionRecord {
        stand_in: false,
        seq,
        room_seq: seq + 1,
        seat: Some(Seat(0)),
        action: Action::RollDice,
        at: 3,
    };
    store
        .append_action(id, &action(0))
        .await
        .expect("owner writes");
    // Another instance claims the room (as its claimer does): the epoch moves on.
    sqlx::query(
        "UPDATE room_leases SET owner = 'instance-b', epoch = epoch + 1 WHERE room_id = $1",
    )
    .bind(id.to_string())
    .execute(plain.pool())
    .await
    .expect("claim");
    let refused = store.append_action(id, &action(1)).await;
    assert!(matches!(refused, Err(StoreError::Fenced(_))), "{refused:?}");
    let finish = catan_server::store::Finish {
        rated: None,
        winner: Some(Seat(0)),
        finished_at: 4,
        scores: Vec::new(),
    };
    let refused = store.finish_game(id, &finish).await;
    assert!(matches!(refused, Err(StoreError::Fenced(_))), "{refused:?}");
    assert_eq!(
        stored_actions(&plain, id).await,
        1,
        "nothing written after the claim"
    );
    let record = plain.game(id).await.expect("game");
    assert_eq!(record.status, catan_server::store::GameStatus::Playing);
    // The room comes back to this instance under epoch 2: a write under the epoch it
    // held before (a stale copy of the room) is refused all the same.
    sqlx::query("UPDATE room_leases SET owner = 'instance-a' WHERE room_id = $1")
        .bind(id.to_string())
        .execute(plain.pool())
        .await
        .expect("back");
    let refused = store.append_action(id, &action(1)).await;
    assert!(matches!(refused, Err(StoreError::Fenced(_))), "{refused:?}");
    // Under the epoch it holds now it writes on; finishing the game ends the lease.
    fence.hold(id, 2);
    store
        .append_action(id, &action(1))
        .await
        .expect("new epoch writes");
    store.finish_game(id, &finish).await.expect("finished");
    assert_eq!(
        lease(&plain, id).await,
        None,
        "a finished game holds no lease"
    );
    assert_eq!(fence.epoch(id), catan_server::store::NO_EPOCH);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_whose_owner_is_killed_is_taken_over_by_another_instance_and_its_game_finishes() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut a = instance_at(&url, &plain, "a", "2").await;
    let b = instance_at(&url, &plain, "b", "2").await;
    let c = instance_at(&url, &plain, "c", "2").await;
    let (room, mut spectator, seats, tokens) = game_under_way(&a, 40).await;
    assert_eq!(
        lease(&plain, room).await,
        Some((format!("http://{}", a.addr), 1))
    );
    a.kill();
    let killed = Instant::now();
    let before = stored_actions(&plain, room).await;
    while spectator.recv().await.is_some() {}
    let seats = stopped(seats, tokens).await;
    // One of the two others claims it (epoch 2) and rebuilds the room.
    let owner = loop {
        if let Some((address, 2)) = lease(&plain, room).await {
            break address;
        }
        assert!(killed.elapsed() < Duration::from_secs(20), "not claimed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (owner, other) = if owner == format!("http://{}", b.addr) {
        (&b, &c)
    } else {
        assert_eq!(owner, format!("http://{}", c.addr));
        (&c, &b)
    };
    let took = killed.elapsed() + until_held(owner, room, Duration::from_secs(20)).await;
    eprintln!("taken over {took:?} after the kill (lease 2 s)");
    // One seat resumes through the instance that does not own the room (forwarded),
    // the other through the owner.
    let (ca, refused) = finish_on(other, owner, room, &seats).await;
    assert_eq!(refused, 0, "no action refused after the takeover");
    assert!(matches!(
        ca.received.last().map(|(_, m)| m),
        Some(ServerMessage::GameOver(_))
    ));
    wait_until_stored(owner, room).await;
    // A gapless log that holds every action stored before the kill.
    let log = plain.actions(room).await.expect("log");
    assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    assert!(i64::try_from(log.len()).unwrap() > before);
    assert_eq!(lease(&plain, room).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_whose_lease_another_instance_took_is_closed_with_4014_and_writes_nothing_more() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    // A long lease: the renewal (every 10 s) does not notice before the next write.
    let a = instance(&url, "http://a.invalid", "30").await;
    let (room, mut spectator, _seats, _tokens) = game_under_way(&a, 20).await;
    sqlx::query("UPDATE room_leases SET owner = 'elsewhere', epoch = epoch + 1 WHERE room_id = $1")
        .bind(room.to_string())
        .execute(plain.pool())
        .await
        .expect("claim");
    let stored = stored_actions(&plain, room).await;
    // The seats and bots keep acting: the next write is fenced and the room stops.
    let mut closing = None;
    while let Some(m) = spectator.recv().await {
        if let ServerMessage::Closing { code, .. } = m {
            closing = Some(code);
        }
    }
    assert_eq!(closing.as_deref(), Some(ClosingReason::RoomMoved.code()));
    assert_eq!(spectator.closed_with, Some(4014));
    // Nothing was written after the claim (at most the one write in flight at it).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = stored_actions(&plain, room).await;
    assert!(after <= stored + 1, "stored {stored} then {after}");
    let r = a
        .http
        .get(a.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 404, "the room left this instance");
    let log = a.output.lock().expect("output").join("\n");
    assert!(log.contains("the room is another instance's now"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_stopped_with_sigterm_hands_its_room_over_at_once() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    // A lease of 30 s: a takeover within a few seconds shows it was let go.
    let mut a = instance(&url, "http://a.invalid", "30").await;
    let b = instance(&url, "http://b.invalid", "30").await;
    let (room, mut spectator, seats, tokens) = game_under_way(&a, 30).await;
    let (status, _) = a.terminate(Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
    while spectator.recv().await.is_some() {}
    assert_eq!(spectator.closed_with, Some(1001));
    let seats = stopped(seats, tokens).await;
    // Told at once (NOTIFY), B claims the room without waiting for its next round
    // (every 10 s with this lease).
    let took = until_held(&b, room, Duration::from_secs(3)).await;
    eprintln!("taken over {took:?} after SIGTERM (lease 30 s, claims every 10 s)");
    assert_eq!(lease(&plain, room).await.map(|l| l.1), Some(2));
    let (_, refused) = finish_on(&b, &b, room, &seats).await;
    assert_eq!(refused, 0);
    wait_until_stored(&b, room).await;
    let log = plain.actions(room).await.expect("log");
    assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_instance_on_sqlite_refuses_to_start_and_says_why() {
    let (url, _dir) = fresh_sqlite_url();
    let mut config = catan_server::Config::for_tests();
    config.store.database_url = url.into();
    config.cluster.cluster_address = Some("http://a.invalid".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let refused = catan_server::run_with(listener, None, config, std::future::pending())
        .await
        .expect_err("refused");
    assert!(refused.to_string().contains("need PostgreSQL"), "{refused}");
}

/// Points the registered address of the instance registered as `placeholder` at
/// where `server` really listens (a child server's port is chosen when it binds,
/// after its configuration was fixed).
async fn listening_at(store: &SqlStore, placeholder: &str, server: &TestServer) {
    let done = sqlx::query("UPDATE instances SET address = $2 WHERE address = $1")
        .bind(placeholder)
        .bind(format!("http://{}", server.addr))
        .execute(store.pool())
        .await
        .expect("address");
    assert_eq!(done.rows_affected(), 1);
}

/// An instance named `name`, registered at the address it really listens at.
pub(crate) async fn instance_at(
    url: &str,
    plain: &SqlStore,
    name: &str,
    lease_secs: &str,
) -> TestServer {
    instance_at_with(url, plain, name, lease_secs, &[]).await
}

/// [`instance_at`] with more variables in its environment.
pub(crate) async fn instance_at_with(
    url: &str,
    plain: &SqlStore,
    name: &str,
    lease_secs: &str,
    more: &[(&str, &str)],
) -> TestServer {
    let placeholder = format!("http://{name}.invalid");
    let s = instance_with(url, &placeholder, lease_secs, more).await;
    listening_at(plain, &placeholder, &s).await;
    s
}

/// Instances named `names`, as [`instance_at`].
async fn instances(
    url: &str,
    plain: &SqlStore,
    names: &[&str],
    lease_secs: &str,
) -> Vec<TestServer> {
    let mut servers = Vec::new();
    for name in names {
        servers.push(instance_at(url, plain, name, lease_secs).await);
    }
    servers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_connected_through_an_instance_that_does_not_own_the_room_plays_to_the_end() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance_at(&url, &plain, "a", "9").await;
    let b = instance_at(&url, &plain, "b", "9").await;
    let created = a.create_room(json!({ "players": 3, "vp_target": 5 })).await;
    let room = created.room_id;
    let ann = a.take_seat(room, "ann").await;
    let bob = a.take_seat(room, "bob").await;
    a.add_bot(room, &created.host_token).await;
    a.start_game(room, &created.host_token).await;
    // B holds nothing: what it answers for the room comes from A.
    let via_b = b
        .http
        .get(b.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .expect("http");
    assert_eq!(via_b.status(), 200);
    let info: catan_protocol::RoomInfo = via_b.json().await.expect("room");
    assert_eq!(info.id, room);
    // A request with a body, and A's refusal of it, pass through unchanged.
    let refused = b
        .http
        .post(b.url(&format!("/api/rooms/{room}/seats")))
        .json(&json!({ "name": "carl" }))
        .send()
        .await
        .expect("http");
    assert_eq!(refused.status(), 409);
    let body: serde_json::Value = refused.json().await.expect("json");
    assert_eq!(body["error"]["code"], "already_started");
    // So does a refused upgrade.
    let bad =
        tokio_tungstenite::connect_async(format!("ws://{}/api/rooms/{room}/ws?token=nope", b.addr))
            .await;
    match bad {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 401),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
    // Ann plays through B, Bob through A, to the end of the game.
    let ca = b.connect(room, Some(&ann.token), None).await;
    let cb = a.connect(room, Some(&bob.token), None).await;
    let ta = tokio::spawn(play_randomly(ca, 5));
    let tb = tokio::spawn(play_randomly(cb, 6));
    let (ca, ra) = ta.await.expect("ann");
    let (cb, rb) = tb.await.expect("bob");
    assert_eq!(ra + rb, 0, "no action refused");
    let over = |c: &Client| match c.received.last().map(|(_, m)| m) {
        Some(ServerMessage::GameOver(o)) => o.clone(),
        other => panic!("not over: {other:?}"),
    };
    assert_eq!(over(&ca), over(&cb), "both hear the same end");
    // Once both were connected, Ann (through B) got the same numbered messages as
    // Bob (from A), in the same order: the relay adds, drops and reorders nothing.
    let seqs =
        |c: &Client| -> Vec<u64> { c.received.iter().filter_map(|(_, m)| m.seq()).collect() };
    let (sa, sb) = (seqs(&ca), seqs(&cb));
    let from = sa[0].max(sb[0]);
    let after = |s: &[u64]| -> Vec<u64> { s.iter().copied().filter(|&q| q > from).collect() };
    assert!(after(&sa).len() > 50, "{} messages", after(&sa).len());
    assert_eq!(after(&sa), after(&sb));
    wait_until_stored(&a, room).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_created_on_one_instance_is_listed_set_up_and_played_through_another() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance_at(&url, &plain, "a", "9").await;
    let b = instance_at(&url, &plain, "b", "9").await;
    let mine = a.create_room(json!({ "players": 3 })).await;
    // Listed newest first: a later millisecond for the second room.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let created = b.create_room(json!({ "players": 3, "vp_target": 5 })).await;
    let room = created.room_id;
    // Before its start the room is B's (a lease of epoch 1), and A lists it with its own.
    assert_eq!(
        lease(&plain, room).await,
        Some((format!("http://{}", b.addr), 1))
    );
    let list: catan_protocol::RoomList = a
        .http
        .get(a.url("/api/rooms"))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("list");
    let ids: Vec<Uuid> = list.rooms.iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        [room, mine.room_id],
        "newest first, from both instances"
    );
    // Seats, a bot and the start, all through A.
    let ann = a.take_seat(room, "ann").await;
    let bob = a.take_seat(room, "bob").await;
    a.add_bot(room, &created.host_token).await;
    a.start_game(room, &created.host_token).await;
    assert_eq!(
        lease(&plain, room).await.map(|l| l.1),
        Some(1),
        "kept at the start"
    );
    let seats = [(ann.token, 0), (bob.token, 0)];
    let (ca, refused) = finish_on(&a, &b, room, &seats).await;
    assert_eq!(refused, 0);
    assert!(matches!(
        ca.received.last().map(|(_, m)| m),
        Some(ServerMessage::GameOver(_))
    ));
    wait_until_stored(&a, room).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_paused_past_its_lease_writes_nothing_more_once_resumed_and_closes_with_4014() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance(&url, "http://a.invalid", "2").await;
    let b = instance(&url, "http://b.invalid", "2").await;
    // Four people and no bots: once B holds the room, nothing moves there until
    // someone connects to it, so every row written after the pause would be A's.
    let created = a.create_room(json!({ "players": 4 })).await;
    let room = created.room_id;
    let mut players = Vec::new();
    for (i, name) in ["ann", "bob", "cy", "di"].into_iter().enumerate() {
        let seat = a.take_seat(room, name).await;
        let client = a.connect(room, Some(&seat.token), None).await;
        players.push((client, i as u64));
    }
    let mut spectator = a.connect(room, None, None).await;
    a.start_game(room, &created.host_token).await;
    let seats: Vec<_> = players
        .into_iter()
        .map(|(c, i)| tokio::spawn(play_randomly(c, 10 + i)))
        .collect();
    let mut seen = 0;
    while seen < 30 {
        if let Some(ServerMessage::Events { .. }) = spectator.recv().await {
            seen += 1;
        }
    }
    a.signal("STOP");
    let paused = Instant::now();
    loop {
        if let Some((address, 2)) = lease(&plain, room).await {
            assert_eq!(address, "http://b.invalid");
            break;
        }
        assert!(paused.elapsed() < Duration::from_secs(15), "not claimed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    until_held(&b, room, Duration::from_secs(10)).await;
    let stored = stored_actions(&plain, room).await;
    a.signal("CONT");
    // A's clients are closed with 4014; the seats' actions in flight change nothing.
    let mut closing = None;
    while let Some(m) = spectator.recv().await {
        if let ServerMessage::Closing { code, .. } = m {
            closing = Some(code);
        }
    }
    assert_eq!(closing.as_deref(), Some(ClosingReason::RoomMoved.code()));
    assert_eq!(spectator.closed_with, Some(4014));
    for s in seats {
        let (c, _) = s.await.expect("seat");
        assert_eq!(c.closed_with, Some(4014));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        stored_actions(&plain, room).await,
        stored,
        "A wrote nothing more"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_rooms_of_bots_on_three_instances_all_finish_when_one_instance_is_killed() {
    // Bots with no think time: it plays as fast as the cores it is given.
    let _cores = hold_cores(
        Load::WholeMachine,
        "three server processes playing sixty rooms of bots as fast as they can",
    )
    .await;
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut servers = instances(&url, &plain, &["a", "b", "c"], "2").await;
    // 20 rooms of four random bots on each instance (random play to 15 points makes
    // games of thousands of actions).
    // Every room is made and filled first, then all are started together: started
    // one by one as they were made, the first games could end before the last room
    // was made (seen on a busy machine).
    let mut rooms = Vec::new();
    let mut hosts = Vec::new();
    for i in 0..60 {
        let s = &servers[i % 3];
        let created = s
            .create_room(json!({ "players": 4, "vp_target": 15 }))
            .await;
        for _ in 0..4 {
            s.add_bot_of_kind(created.room_id, &created.host_token, Some("random"))
                .await;
        }
        rooms.push((created.room_id, i % 3));
        hosts.push(created.host_token);
    }
    for ((room, owner), host) in rooms.iter().zip(&hosts) {
        servers[*owner].start_game(*room, host).await;
    }
    // A spectator in each of A's rooms keeps the events it was told of, and says
    // when it has seen its game under way (ten events).
    let mut told = Vec::new();
    let (under_way, mut going) = tokio::sync::mpsc::unbounded_channel();
    for (room, owner) in &rooms {
        if *owner == 0 {
            let mut c = servers[0].connect(*room, None, None).await;
            let under_way = under_way.clone();
            told.push((
                *room,
                tokio::spawn(async move {
                    let mut seqs = Vec::new();
                    while let Some(m) = c.recv().await {
                        match m {
                            ServerMessage::Events { seq, .. } => seqs.push(seq),
                            ServerMessage::GameOver(_) => panic!("a game ended before the kill"),
                            _ => {}
                        }
                        if seqs.len() == 10 {
                            let _ = under_way.send(());
                        }
                    }
                    seqs
                }),
            ));
        }
    }
    for _ in 0..told.len() {
        tokio::time::timeout(Duration::from_secs(60), going.recv())
            .await
            .expect("every game of A under way");
    }
    servers[0].kill();
    let killed = Instant::now();
    // Every one of A's rooms runs again on B or C within the lease (2 s) + 5 s.
    let mut last = Duration::ZERO;
    for (room, _) in &told {
        loop {
            if let Some((address, epoch)) = lease(&plain, *room).await
                && epoch >= 2
            {
                let owner = servers[1..]
                    .iter()
                    .find(|s| format!("http://{}", s.addr) == address)
                    .expect("owned by a live instance");
                until_held(owner, *room, Duration::from_secs(7)).await;
                break;
            }
            // A game may also have ended on B or C already.
            if lease(&plain, *room).await.is_none()
                && plain
                    .game(*room)
                    .await
                    .is_ok_and(|g| g.status == catan_server::store::GameStatus::Finished)
            {
                break;
            }
            assert!(
                killed.elapsed() < Duration::from_secs(7),
                "room {room} not back"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        last = last.max(killed.elapsed());
    }
    eprintln!(
        "all 20 rooms of the killed instance running again {last:?} after the kill (lease 2 s)"
    );
    assert!(last < Duration::from_secs(7));
    // Every game finishes.
    for (room, _) in &rooms {
        let started = Instant::now();
        loop {
            let g = plain.game(*room).await.expect("game");
            if g.status == catan_server::store::GameStatus::Finished {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(240),
                "room {room} never finished"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // Each stored log: gapless, and holding every action A announced before the kill.
    for (room, seen) in told {
        let seen = seen.await.expect("spectator");
        let log = plain.actions(room).await.expect("log");
        assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
        let stored: std::collections::BTreeSet<u64> = log.iter().map(|r| r.room_seq).collect();
        assert!(!seen.is_empty());
        for seq in seen {
            assert!(
                stored.contains(&seq),
                "room {room}: announced {seq} is not stored"
            );
        }
    }
    eprintln!(
        "all 60 games finished {:?} after the kill",
        killed.elapsed()
    );
}

/// Plays one seat to the end of its game at a person's pace, reconnecting with its
/// `last_seq` through one of the `live` instances (in turn) whenever its socket
/// ends; when each of its connections was made.
async fn keep_playing(
    live: Arc<std::sync::Mutex<Vec<std::net::SocketAddr>>>,
    room: Uuid,
    token: String,
    seed: u64,
) -> Vec<Instant> {
    let started = Instant::now();
    let mut last_seq = None;
    let mut connections = Vec::new();
    let mut turn = usize::try_from(seed).unwrap_or(0);
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "room {room}: the game did not finish"
        );
        let addr = {
            let live = live.lock().expect("live");
            live[turn % live.len()]
        };
        turn += 1;
        let mut url = format!("ws://{addr}/api/rooms/{room}/ws?token={token}");
        if let Some(s) = last_seq {
            url.push_str(&format!("&last_seq={s}"));
        }
        let Ok((ws, _)) = tokio_tungstenite::connect_async(url).await else {
            // Refused while the room changes hands (or the instance is going away).
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        connections.push(Instant::now());
        let client = Client {
            ws,
            received: Vec::new(),
            closed_with: None,
        };
        let (client, _) =
            catan_e2e::play_randomly_paced(client, seed, Duration::from_millis(40)).await;
        if matches!(
            client.received.last(),
            Some((_, ServerMessage::GameOver(_)))
        ) {
            return connections;
        }
        last_seq = Some(last_seq.unwrap_or(0).max(self::last_seq(&client)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_three_instances_costs_each_seat_at_most_one_reconnect_per_restart() {
    // About one core (6.8 s of CPU in 11 s, measured on two shared cores).
    let _cores = hold_cores(
        Load::Cores(1),
        "three server processes restarted in turn under six rooms of bots; each seat's \
         reconnects are counted, and a restart slowed by another heavy test costs more",
    )
    .await;
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut servers = instances(&url, &plain, &["a", "b", "c"], "3").await;
    let live = Arc::new(std::sync::Mutex::new(
        servers.iter().map(|s| s.addr).collect::<Vec<_>>(),
    ));
    // Six rooms, two on each instance: two people (at a person's pace, each through
    // some instance) and two bots.
    let mut seats = Vec::new();
    let mut rooms = Vec::new();
    for i in 0..6u64 {
        let s = &servers[usize::try_from(i % 3).unwrap()];
        let (room, host, tokens) = two_people_two_bots(s, 15).await;
        s.start_game(room, &host).await;
        rooms.push(room);
        for (k, token) in tokens.into_iter().enumerate() {
            let seed = i * 2 + k as u64;
            seats.push(tokio::spawn(keep_playing(live.clone(), room, token, seed)));
        }
    }
    // Restart each instance in turn: SIGTERM, then a new process in its place.
    let mut restarts = Vec::new();
    for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        restarts.push(Instant::now());
        let (status, took) = servers[i].terminate(Duration::from_secs(20));
        assert!(status.success(), "{name}: {status:?}");
        eprintln!("{name} stopped in {took:?}");
        let s = instance_at(&url, &plain, name, "3").await;
        live.lock().expect("live")[i] = s.addr;
        servers[i] = s;
    }
    // Every game was still being played through all three restarts.
    for room in &rooms {
        let g = plain.game(*room).await.expect("game");
        assert_eq!(g.status, catan_server::store::GameStatus::Playing, "{room}");
    }
    // One connection before the first restart, and at most one more after each.
    let mut most = 0;
    for s in seats {
        let connections = s.await.expect("seat");
        most = most.max(connections.len());
        assert!(connections[0] < restarts[0]);
        for (k, from) in restarts.iter().enumerate() {
            let until = restarts.get(k + 1);
            let during = connections
                .iter()
                .filter(|t| *t >= from && until.is_none_or(|u| *t < u))
                .count();
            assert!(
                during <= 1,
                "{during} reconnects for restart {k}: {connections:?}"
            );
        }
    }
    eprintln!("the most connections a seat needed: {most} (3 restarts)");
    for room in rooms {
        let g = plain.game(room).await.expect("game");
        assert_eq!(g.status, catan_server::store::GameStatus::Finished);
        let log = plain.actions(room).await.expect("log");
        assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_plays_a_whole_game_through_an_instance_that_does_not_own_the_room() {
    use catan_client::seat::SeatClient;
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance_at(&url, &plain, "a", "9").await;
    let b = instance_at(&url, &plain, "b", "9").await;
    // The room lives on A; the person's client knows only B.
    let created = a.create_room(json!({ "players": 3 })).await;
    let room = created.room_id;
    let target = catan_client::target::parse(&format!("ws://{}", b.addr)).expect("loopback target");
    let lobby = catan_client::lobby::Lobby::new(&target);
    let seat = lobby
        .take_seat(room, "person")
        .await
        .expect("seat through B");
    for _ in 0..2 {
        lobby
            .add_bot(room, &created.host_token)
            .await
            .expect("bot through B");
    }
    let mut client = SeatClient::connect(&target, room, &seat.token)
        .await
        .expect("socket through B");
    lobby
        .start(room, &created.host_token)
        .await
        .expect("start through B");
    let mut strategy = catan_bots::strategy(catan_protocol::BotKind::Medium);
    let outcome = client
        .play_to_end(strategy.as_mut(), 7)
        .await
        .expect("a whole game");
    assert_eq!(outcome.scores.len(), 3);
    assert!(outcome.actions > 20, "{} actions", outcome.actions);
    assert_eq!(outcome.rejected, 0, "no action refused");
    assert_eq!(lease(&plain, room).await, None, "the game ended on A");
    wait_until_stored(&a, room).await;
}
