//! Games over days over real sockets (protocol 27): the room option and its
//! refusals, each seat's clock in the snapshot, a deadline that passed while the
//! server was down firing as soon as the game is restored, and a player's list of
//! their games on SQLite and PostgreSQL.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_engine::Seat;
use catan_protocol::{DaysOptions, MyGames, RoomStatus, ServerMessage};
use reqwest::Method;
use serde_json::json;
use sqlx::Connection;

/// A started room of three people (Ann, Bob, Cyd) playing over `days` (the room
/// option's JSON): its id and the seats.
async fn started_over_days(
    server: &TestServer,
    days: serde_json::Value,
) -> (uuid::Uuid, Vec<catan_protocol::TakeSeatResponse>) {
    let created = server
        .create_room(json!({ "players": 3, "days": days }))
        .await;
    let room = created.room_id;
    let mut seats = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        seats.push(server.take_seat(room, name).await);
    }
    server.start_game(room, &created.host_token).await;
    (room, seats)
}

/// A started room of three people playing over days with an hour a move and no
/// bank or vacation: its id and the seats.
pub(crate) async fn hour_a_move(
    server: &TestServer,
) -> (uuid::Uuid, Vec<catan_protocol::TakeSeatResponse>) {
    started_over_days(
        server,
        json!({ "move_hours": 1, "bank_hours": 0, "bank_cap_hours": 0, "vacation_days": 0 }),
    )
    .await
}

/// Connects to started `room` as `token`'s seat (a spectator: `None`) and reads
/// its snapshot: the client and the snapshot.
pub(crate) async fn joined(
    server: &TestServer,
    room: uuid::Uuid,
    token: Option<&str>,
) -> (catan_e2e::Client, catan_protocol::Snapshot) {
    let mut c = server.connect(room, token, None).await;
    let ServerMessage::Snapshot(s) = c
        .recv_until(|m| matches!(m, ServerMessage::Snapshot(s) if s.view.is_some()))
        .await
    else {
        unreachable!()
    };
    (c, *s)
}

/// Moves every stored time of the database at `url` two hours back, as if the
/// server (every instance) had been down that long.
pub(crate) async fn two_hours_back(url: &str) {
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.expect("connect");
    for sql in [
        "UPDATE games SET started_at = started_at - 7200000, created_at = created_at - 7200000, \
         next_deadline = next_deadline - 7200000",
        "UPDATE game_actions SET created_at = created_at - 7200000",
    ] {
        sqlx::query(sql)
            .execute(&mut conn)
            .await
            .expect("times moved back");
    }
}

/// Waits until `c` hears that `seat` (any seat: `None`) timed out once.
pub(crate) async fn a_time_out(c: &mut catan_e2e::Client, seat: Option<Seat>) {
    let timed_out = |m: &ServerMessage| {
        let clocks = match m {
            ServerMessage::Snapshot(s) => &s.clocks,
            ServerMessage::Events { clocks, .. } => clocks,
            _ => return false,
        };
        clocks
            .iter()
            .any(|k| seat.is_none_or(|s| k.seat == s) && k.time_outs == 1)
    };
    tokio::time::timeout(Duration::from_secs(10), c.recv_until(timed_out))
        .await
        .expect("the bot made the timed-out move within seconds of the restart");
}

/// Polls every `every_ms` until the server holds room `id` in memory (`held_now`)
/// or not; whether it came to that within `tries`.
pub(crate) async fn until_held(
    server: &TestServer,
    id: uuid::Uuid,
    held_now: bool,
    tries: u32,
    every_ms: u64,
) -> bool {
    for _ in 0..tries {
        if held(server, id).await == held_now {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(every_ms)).await;
    }
    false
}

#[tokio::test]
async fn a_room_over_days_takes_its_preset_and_refuses_a_field_out_of_range_by_name() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "days": { "move_hours": 72 } }))
        .await;
    assert_eq!(created.room.options.days, Some(DaysOptions::preset(72)));
    let live = server.create_room(json!({ "players": 3 })).await;
    assert_eq!(live.room.options.days, None);
    for (body, field) in [
        (json!({ "days": { "move_hours": 0 } }), "move_hours"),
        (
            json!({ "days": { "move_hours": 24, "vacation_days": 99 } }),
            "vacation_days",
        ),
        (json!({ "days": { "move_hours": "a day" } }), "days"),
    ] {
        let r = server
            .http
            .post(server.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(r.status().as_u16(), 400, "{body}");
        let e: serde_json::Value = r.json().await.expect("json");
        assert_eq!(e["error"]["code"], "invalid_options", "{e}");
        assert!(
            e["error"]["message"].as_str().unwrap_or("").contains(field),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passed_while_the_server_was_down_fires_on_restore() {
    let (db, _dir) = catan_e2e::fresh_sqlite_url();
    let mut server = TestServer::spawn_process(&db);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("up");
    let (room, seats) = hour_a_move(&server).await;
    let (c, s) = joined(&server, room, Some(&seats[0].token)).await;
    assert_eq!(s.clocks.len(), 3);
    let due: Vec<_> = s.clocks.iter().filter(|c| c.deadline.is_some()).collect();
    assert_eq!(due.len(), 1, "one move is due: {:?}", s.clocks);
    let mover = due[0].seat;
    assert_eq!(s.deadline, due[0].deadline);
    drop(c);

    // Down for two hours: the stored times are moved back by two hours, as if.
    server.kill();
    two_hours_back(&db).await;
    let mut server = TestServer::spawn_process(&db);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("back");
    // Restored at the start, the room finds the move's hour long gone: a bot
    // makes it at once, and the seat's clock counts the time-out.
    let mut c = server.connect(room, Some(&seats[1].token), None).await;
    a_time_out(&mut c, Some(mover)).await;
}

/// A player's list of games: a room over days they sit in shows while it gathers,
/// then with the seats' clocks once started, the one whose move it is marked; a
/// call without a session is refused.
async fn my_games_list_the_seats_and_mark_the_move(url: Option<String>) {
    let server = match url {
        Some(url) => {
            TestServer::start_with(move |c| c.store.database_url = url.clone().into()).await
        }
        None => TestServer::start().await,
    };
    let created = server
        .create_room(json!({ "players": 3, "days": { "move_hours": 24 } }))
        .await;
    let room = created.room_id;
    let mut people = Vec::new();
    for name in ["Ann", "Bob", "Cyd"] {
        let (me, _) = server.guest(name).await;
        let (status, body, _) = server
            .call(
                Method::POST,
                &format!("/api/rooms/{room}/seats"),
                Some(&me.token),
                Some(json!({ "name": name })),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        people.push(me.token);
    }
    let mine = |token: String| {
        let server = &server;
        async move {
            let (status, body, _) = server
                .call(Method::GET, "/api/me/games", Some(&token), None)
                .await;
            assert_eq!(status, 200, "{body}");
            serde_json::from_value::<MyGames>(body).expect("my games")
        }
    };
    let gathering = mine(people[1].clone()).await;
    assert_eq!(gathering.games.len(), 1, "{gathering:?}");
    let g = &gathering.games[0];
    assert_eq!(
        (g.room_id, g.status, g.seat),
        (room, RoomStatus::Lobby, Seat(1))
    );
    assert_eq!(g.options.days, Some(DaysOptions::preset(24)));

    server.start_game(room, &created.host_token).await;
    // The room keeps the clocks in the store in the background: a moment.
    let mut lists = Vec::new();
    for _ in 0..100 {
        lists.clear();
        for token in &people {
            lists.push(mine(token.clone()).await);
        }
        if lists
            .iter()
            .all(|l| l.games.first().is_some_and(|g| g.clock.is_some()))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let movers: Vec<_> = lists.iter().filter(|l| l.games[0].your_move).collect();
    assert_eq!(movers.len(), 1, "one seat's move: {lists:?}");
    for (i, l) in lists.iter().enumerate() {
        let g = &l.games[0];
        assert_eq!((g.room_id, g.status), (room, RoomStatus::Playing));
        assert_eq!(g.seat, Seat(u8::try_from(i).unwrap()));
        assert_eq!(g.names.len(), 3);
        assert_eq!(g.to_move.len(), 1);
        let clock = g.clock.expect("a clock");
        assert_eq!(clock.bank_ms, 48 * 3_600_000);
        assert_eq!(clock.deadline.is_some(), g.your_move);
    }
    let (status, body, _) = server.call(Method::GET, "/api/me/games", None, None).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("not_signed_in")),
        "{body}"
    );
}

#[tokio::test]
async fn my_games_on_sqlite() {
    my_games_list_the_seats_and_mark_the_move(None).await;
}

#[tokio::test]
async fn my_games_on_postgres() {
    my_games_list_the_seats_and_mark_the_move(Some(catan_e2e::fresh_postgres_url().await)).await;
}

/// Whether the server holds room `id` in memory (its administrators' list).
pub(crate) async fn held(server: &TestServer, id: uuid::Uuid) -> bool {
    let r = server
        .http
        .get(server.admin_url("/admin/rooms"))
        .bearer_auth(server.admin_token.as_deref().expect("admin token"))
        .send()
        .await
        .expect("http");
    let list: catan_protocol::AdminRoomList = r.json().await.expect("room list");
    list.rooms.iter().any(|r| r.id == id)
}

/// The snapshot a spectator gets on connecting to `room`.
pub(crate) async fn spectator_snapshot(
    server: &TestServer,
    room: uuid::Uuid,
) -> catan_protocol::Snapshot {
    joined(server, room, None).await.1
}

/// Connects seat `token` with `last_seq` and reads up to its `resumed` or its
/// `snapshot`: whether it resumed, and the chat lines it got again on the way.
async fn come_back(
    server: &TestServer,
    room: uuid::Uuid,
    token: &str,
    last_seq: u64,
) -> (bool, Vec<String>) {
    let mut c = server.connect(room, Some(token), Some(last_seq)).await;
    let mut chat = Vec::new();
    loop {
        match c.recv().await.expect("an answer") {
            ServerMessage::Resumed { .. } => return (true, chat),
            ServerMessage::Snapshot(_) => return (false, chat),
            ServerMessage::Chat { text, .. } => chat.push(text),
            _ => {}
        }
    }
}

/// A room over days sleeps once nobody is there (`--sleep-after-secs`), leaving
/// memory, and a connection wakes it as it was: the same numbers, view, clocks
/// and deadline, and a player who missed the last broadcasts before it slept gets
/// them on reconnecting (its backlog kept in the store); then the game goes on.
/// A room put to sleep by the previous version (no backlog kept) wakes all the
/// same, that player getting a snapshot instead.
async fn a_room_over_days_sleeps_when_nobody_is_there_and_wakes_as_it_was(url: String) {
    let db = url.clone();
    let server = TestServer::start_with(move |c| {
        c.store.database_url = url.into();
        c.rooms.sleep_after_secs = 1;
        c.admin_token = Some("admin-secret-for-tests".into());
    })
    .await;
    let (room, seats) = started_over_days(&server, json!({ "move_hours": 24 })).await;
    // Ann was there, then bob said something she missed (her app was closed
    // before it kept the number).
    let (ann, s) = joined(&server, room, Some(&seats[0].token)).await;
    let ann_seq = s.seq;
    let mut bob = server.connect(room, Some(&seats[1].token), None).await;
    bob.send_json(&json!({ "type": "chat", "text": "see you tomorrow" }))
        .await;
    bob.recv_until(|m| matches!(m, ServerMessage::Chat { .. }))
        .await;
    drop((ann, bob));
    // Nobody is connected now: the room falls asleep after a second.
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "the room left memory"
    );
    let before = spectator_snapshot(&server, room).await;
    assert!(before.view.is_some() && before.clocks.len() == 3);
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "asleep again"
    );
    // A connection wakes it, exactly as it was.
    let after = spectator_snapshot(&server, room).await;
    assert!(held(&server, room).await, "awake again");
    assert_eq!(after.seq, before.seq);
    assert_eq!(after.view, before.view);
    assert_eq!(after.clocks, before.clocks);
    assert_eq!(after.deadline, before.deadline);
    assert_eq!(after.room.options, before.room.options);
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "asleep again"
    );
    // Ann comes back with the number she had: the room wakes and she gets what
    // she missed, as from a room that never slept.
    let (resumed, chat) = come_back(&server, room, &seats[0].token, ann_seq).await;
    assert!(resumed, "resumed, not a snapshot");
    assert_eq!(chat, ["see you tomorrow"]);
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "asleep again"
    );
    // The person whose move it is plays on.
    let mover = before
        .clocks
        .iter()
        .find(|c| c.deadline.is_some())
        .expect("a move")
        .seat;
    let (mut c, s) = joined(&server, room, Some(&seats[mover.index()].token)).await;
    let action = *s.legal.first().expect("the mover may act");
    let msg = catan_protocol::ClientMessage::Action {
        request_id: "after-sleep".into(),
        action,
        expect_seq: Some(s.seq),
        offer_expires_secs: None,
    };
    c.send_json(&serde_json::to_value(&msg).expect("json"))
        .await;
    let m = c
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Events {
                    request_id: Some(_),
                    ..
                }
            )
        })
        .await;
    let ServerMessage::Events { seq, .. } = m else {
        unreachable!()
    };
    assert_eq!(seq, s.seq + 1, "numbered on");
    drop(c);

    // Asleep once more, as the previous version left a sleeping room: no backlog.
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "asleep again"
    );
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&db).await.expect("connect");
    sqlx::query("UPDATE games SET slept_backlog = NULL")
        .execute(&mut conn)
        .await
        .expect("backlog cleared");
    let (resumed, _) = come_back(&server, room, &seats[0].token, ann_seq).await;
    assert!(!resumed, "a snapshot, with no backlog to resume from");
    assert!(held(&server, room).await, "awake again");
}

#[tokio::test]
async fn sleep_and_wake_on_sqlite() {
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    a_room_over_days_sleeps_when_nobody_is_there_and_wakes_as_it_was(url).await;
}

#[tokio::test]
async fn sleep_and_wake_on_postgres() {
    a_room_over_days_sleeps_when_nobody_is_there_and_wakes_as_it_was(
        catan_e2e::fresh_postgres_url().await,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_games_deadline_fires_after_its_server_is_killed_and_restarted() {
    // The instance holding a sleeping game's deadline dies with SIGKILL; it comes
    // back, and the deadline (passed meanwhile) wakes the room and fires.
    let env = [
        ("CATAN_SLEEP_AFTER_SECS", "1"),
        ("CATAN_ADMIN_TOKEN", "admin-secret-for-tests"),
    ];
    let (db, _dir) = catan_e2e::fresh_sqlite_url();
    let mut server = TestServer::spawn_process_with(&db, &env);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("up");
    let (room, seats) = hour_a_move(&server).await;
    assert!(
        until_held(&server, room, false, 100, 100).await,
        "the room fell asleep"
    );
    server.kill();
    // Down for two hours, as if: the move's hour is long gone.
    two_hours_back(&db).await;
    let mut server = TestServer::spawn_process_with(&db, &env);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("back");
    let ready = std::time::Instant::now();
    assert!(
        until_held(&server, room, true, 50, 50).await,
        "the deadline woke the room"
    );
    assert!(
        ready.elapsed() < Duration::from_secs(2),
        "woken {:?} after the start",
        ready.elapsed()
    );
    let mut c = server.connect(room, Some(&seats[0].token), None).await;
    a_time_out(&mut c, None).await;
}
