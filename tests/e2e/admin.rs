//! The admin API and `/metrics`: only on their own listener, only with the token,
//! and what they report is what the rooms really hold and what clients really see.

use std::time::{Duration, Instant};

use catan_e2e::{Client, Table, TestServer, latest_legal};
use catan_engine::{Action, Seat};
use catan_protocol::{
    AdminRoomDetail, AdminRoomList, AdminRoomSummary, CloseRoomResponse, ServerStats, StoreHealth,
};
use catan_protocol::{CloseCode, ErrorBody, RoomInfo, RoomStatus, ServerMessage};
use catan_server::store::GameStatus;
use serde_json::json;
use uuid::Uuid;

/// The admin token of these tests.
pub(crate) const TOKEN: &str = "admin-token-for-the-e2e-suite-0123";

pub(crate) async fn admin_server(tweak: impl FnOnce(&mut catan_server::Config)) -> TestServer {
    TestServer::start_with(|c| {
        c.admin_token = Some(TOKEN.into());
        tweak(c);
    })
    .await
}

/// A started three-seat room: "Alice" (seat 0, returned with her seat token) and two
/// bots.
pub(crate) async fn alice_and_two_bots(server: &TestServer) -> (Uuid, String) {
    let created = server.create_room(json!({ "players": 3 })).await;
    let room = created.room_id;
    let alice = server.take_seat(room, "Alice").await;
    assert_eq!(alice.seat, Seat(0));
    for _ in 0..2 {
        server.add_bot(room, &created.host_token).await;
    }
    server.start_game(room, &created.host_token).await;
    (room, alice.token)
}

/// Reads until only `client` may act (its turn, not a discard, where bots act too),
/// so the game stands still until it does.
pub(crate) async fn until_only_this_client_may_act(client: Client) -> Client {
    let mut table = Table::new(vec![client], 1);
    let started = Instant::now();
    loop {
        table.pump().await;
        let discarding = latest_legal(&table.clients[0])
            .iter()
            .any(|a| matches!(a, Action::Discard { .. }));
        if table.drivers[0].ready() && !discarding {
            return table.clients.pop().expect("the client");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the client's turn came"
        );
    }
}

pub(crate) async fn public_room(server: &TestServer, room: Uuid) -> reqwest::Response {
    server
        .http
        .get(server.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .expect("http")
}

pub(crate) async fn admin_rooms(server: &TestServer) -> Vec<AdminRoomSummary> {
    let r = server.admin_get("/admin/rooms").await;
    assert_eq!(r.status(), 200);
    r.json::<AdminRoomList>().await.expect("room list").rooms
}

async fn inspect(server: &TestServer, room: Uuid, query: &str) -> AdminRoomDetail {
    let r = server
        .admin_get(&format!("/admin/rooms/{room}{query}"))
        .await;
    assert_eq!(r.status(), 200);
    r.json().await.expect("room detail")
}

/// The value of one sample line of a Prometheus text page.
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.parse().expect("a number"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_api_refuses_missing_and_wrong_tokens_and_is_not_on_the_public_port() {
    let server = admin_server(|_| {}).await;
    let room = Uuid::new_v4();
    for path in [
        "/admin/rooms".to_owned(),
        format!("/admin/rooms/{room}"),
        "/admin/stats".to_owned(),
        "/metrics".to_owned(),
        "/api/rooms".to_owned(),
    ] {
        let url = server.admin_url(&path);
        let wrong = [
            None,
            Some(format!("Bearer {}", &TOKEN[1..])),
            Some(format!("Bearer {TOKEN}x")),
            Some("Bearer ".to_owned()),
            Some(format!("Basic {TOKEN}")),
            Some(TOKEN.to_owned()),
        ];
        for auth in wrong {
            let mut req = server.http.get(&url);
            if let Some(a) = &auth {
                req = req.header("authorization", a);
            }
            let r = req.send().await.expect("http");
            assert_eq!(r.status(), 401, "{path} with {auth:?}");
            let body: ErrorBody = r.json().await.expect("error body");
            assert_eq!(body.error.code, "unauthorized");
        }
    }
    // With the token: served, except the public API, which is not on this port.
    for (path, status) in [
        ("/admin/rooms", 200),
        ("/admin/stats", 200),
        ("/metrics", 200),
        ("/api/rooms", 404),
    ] {
        assert_eq!(server.admin_get(path).await.status(), status, "{path}");
    }
    // And the admin API is not on the public port, token or not.
    for path in ["/admin/rooms", "/admin/stats", "/metrics"] {
        let r = server
            .http
            .get(server.url(path))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("http");
        assert_eq!(r.status(), 404, "{path} on the public port");
    }
    server.stop().await;
}

/// Everything a refusal shows a client: status, headers but the date, body.
async fn refusal(r: reqwest::Response) -> (u16, Vec<(String, String)>, String) {
    let status = r.status().as_u16();
    let mut headers: Vec<(String, String)> = r
        .headers()
        .iter()
        .filter(|(k, _)| *k != "date")
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    headers.sort();
    (status, headers, r.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_token_every_admin_path_and_method_is_refused_alike() {
    let server = admin_server(|_| {}).await;
    let room = Uuid::new_v4();
    let mut seen = std::collections::BTreeMap::new();
    let paths = [
        "/admin/rooms".to_owned(),
        format!("/admin/rooms/{room}"),
        "/admin/rooms/not-a-uuid".to_owned(),
        format!("/admin/rooms/{room}/close"),
        format!("/admin/rooms/{room}/seats/1/kick"),
        format!("/admin/rooms/{room}/seats/999/kick"),
        format!("/admin/rooms/{room}/seats/x/kick"),
        "/admin/stats".to_owned(),
        "/admin/stats/".to_owned(),
        "/admin/players".to_owned(),
        "/admin/nothing-here".to_owned(),
        "/metrics".to_owned(),
        "/".to_owned(),
        "/api/rooms".to_owned(),
    ];
    for path in &paths {
        for method in [
            reqwest::Method::GET,
            reqwest::Method::POST,
            reqwest::Method::DELETE,
            reqwest::Method::PUT,
        ] {
            let r = server
                .http
                .request(method.clone(), server.admin_url(path))
                .header("authorization", "Bearer not-the-token")
                .body("{}")
                .send()
                .await
                .expect("http");
            seen.entry(refusal(r).await)
                .or_insert_with(Vec::new)
                .push(format!("{method} {path}"));
        }
    }
    assert_eq!(
        seen.len(),
        1,
        "refusals differ before authentication: {seen:#?}"
    );
    let (status, _, body) = seen.keys().next().expect("one");
    assert_eq!(*status, 401);
    assert!(body.contains("\"unauthorized\""), "{body}");
    // With the token an unknown path is an ordinary 404.
    assert_eq!(server.admin_get("/admin/nothing-here").await.status(), 404);
    server.stop().await;
}

/// A loopback port that was free a moment ago.
async fn free_port() -> std::net::SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    l.local_addr().expect("addr")
}

/// Runs `catan_server::run` (which binds the admin listener itself) with `token`;
/// answers whether something listens on `--admin-bind` once the server is up.
async fn admin_port_open_with(token: Option<&str>) -> bool {
    let admin = free_port().await;
    let mut config = catan_server::Config::for_tests();
    config.listen.admin_bind = admin;
    config.admin_token = token.map(Into::into);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let public = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(catan_server::run(listener, config, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http
        .get(format!("http://{public}/healthz"))
        .send()
        .await
        .is_err()
    {
        assert!(started.elapsed() < Duration::from_secs(10), "server up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let open = tokio::net::TcpStream::connect(admin).await.is_ok();
    let _ = stop.send(());
    task.await.expect("task").expect("run");
    open
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_admin_token_the_admin_listener_is_not_started_and_the_server_says_so() {
    assert!(!admin_port_open_with(None).await, "no token: no listener");
    assert!(
        !admin_port_open_with(Some("  ")).await,
        "a blank token disables it too"
    );
    assert!(
        admin_port_open_with(Some(TOKEN)).await,
        "with a token it runs"
    );

    // The real process warns at start-up.
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    let mut server = TestServer::spawn_process(&url);
    assert!(server.admin_addr.is_none());
    let said = server
        .output
        .lock()
        .expect("output")
        .iter()
        .any(|l| l.contains("WARN") && l.contains("admin API disabled"));
    assert!(
        said,
        "start-up log: {:?}",
        server.output.lock().expect("output")
    );
    server.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_room_list_and_inspection_show_what_the_rooms_hold_and_clients_see() {
    let server = admin_server(|_| {}).await;
    let (playing, alice_token) = alice_and_two_bots(&server).await;
    let lobby = server
        .create_room(json!({ "players": 4, "listed": false }))
        .await;
    server.take_seat(lobby.room_id, "Bob").await;

    let alice = server.connect(playing, Some(&alice_token), None).await;
    let mut alice = until_only_this_client_may_act(alice).await;
    alice
        .send_json(&json!({ "type": "chat", "text": "hello admin" }))
        .await;
    alice
        .recv_until(|m| matches!(m, ServerMessage::Chat { .. }))
        .await;
    let mut spectator = server.connect(playing, None, None).await;
    let Some(ServerMessage::Snapshot(seen_by_spectator)) = spectator.recv().await else {
        panic!("a spectator starts with a snapshot")
    };

    let rooms = admin_rooms(&server).await;
    assert_eq!(rooms.len(), 2, "listed or not, every room");
    assert_eq!(rooms[0].id, lobby.room_id, "newest first");
    for summary in &rooms {
        let public: RoomInfo = public_room(&server, summary.id)
            .await
            .json()
            .await
            .expect("room");
        assert_eq!(summary.seats, public.seats, "seats as clients see them");
        assert_eq!(summary.status, public.status);
        assert_eq!(summary.created_at, public.created_at);
        assert_eq!(summary.options, public.options);
        assert!(summary.last_activity >= summary.created_at);
    }
    let lobby_row = &rooms[0];
    assert_eq!(lobby_row.status, RoomStatus::Lobby);
    assert_eq!(lobby_row.phase, None);
    assert_eq!(lobby_row.seats[0].occupant.as_ref().unwrap().name, "Bob");
    assert!(!lobby_row.seats[0].connected);
    assert!(lobby_row.seats[1].occupant.is_none());
    let row = &rooms[1];
    assert_eq!(row.status, RoomStatus::Playing);
    assert_eq!(row.spectators, 1);
    let names: Vec<_> = row
        .seats
        .iter()
        .map(|s| {
            let o = s.occupant.as_ref().expect("taken");
            (o.name.as_str(), o.bot.is_some(), s.connected)
        })
        .collect();
    assert_eq!(
        names,
        [
            ("Alice", false, true),
            ("Bot 2", true, true),
            ("Bot 3", true, true)
        ]
    );

    // The unredacted game, seen through the engine's own redaction, is exactly what
    // the spectator and Alice (reconnecting for a fresh snapshot) were sent.
    let detail = inspect(&server, playing, "").await;
    let game = detail.game.as_deref().expect("started");
    assert_eq!(detail.room.phase, Some(game.phase()));
    assert_eq!(Some(game.view(None)), seen_by_spectator.view);
    let mut again = server.connect(playing, Some(&alice_token), None).await;
    let Some(ServerMessage::Snapshot(seen_by_alice)) = again.recv().await else {
        panic!("snapshot")
    };
    assert_eq!(Some(game.view(Some(Seat(0)))), seen_by_alice.view);
    assert_eq!(game.legal_actions(Seat(0)), seen_by_alice.legal);
    assert_eq!(detail.offers, game.offers());
    assert_eq!(
        detail.room.seq, seen_by_alice.seq,
        "nothing happened meanwhile"
    );
    assert_eq!(detail.seed_commitment, seen_by_alice.room.seed_commitment);
    assert!(detail.view.is_none(), "no view unless asked for");

    // `?view=N`: the engine's view of seat N, what that seat's client was sent.
    let with_view = inspect(&server, playing, "?events=0&view=0").await;
    assert_eq!(with_view.view.as_deref(), seen_by_alice.view.as_ref());
    let bot_view = inspect(&server, playing, "?events=0&view=2").await;
    assert_eq!(bot_view.view.as_deref(), Some(&game.view(Some(Seat(2)))));
    // `&at_seq=S`: the view as of broadcast S, the game replayed to it: before any
    // action the empty board, at the room's seq the view now.
    let at_start = inspect(&server, playing, "?events=0&view=0&at_seq=0").await;
    let start = at_start.view.expect("a view");
    assert!(
        start.buildings.is_empty() && start.roads.is_empty(),
        "nothing placed at seq 0"
    );
    assert_eq!(start.me.map(|m| m.seat), Some(Seat(0)));
    let now = inspect(
        &server,
        playing,
        &format!("?events=0&view=0&at_seq={}", detail.room.seq),
    )
    .await;
    assert_eq!(now.view.as_deref(), seen_by_alice.view.as_ref());
    for (query, status, code) in [
        ("?view=3", 400, "no_such_seat"),
        ("?view=x", 400, "bad_request"),
        ("?at_seq=5", 400, "bad_request"),
    ] {
        let r = server
            .admin_get(&format!("/admin/rooms/{playing}{query}"))
            .await;
        assert_eq!(r.status(), status, "{query}");
        let body: ErrorBody = r.json().await.expect("error body");
        assert_eq!(body.error.code, code, "{query}");
    }

    // The last broadcasts: 50 by default, as many as asked, never more than kept;
    // the chat line is there exactly as Alice received it.
    let seq = detail.room.seq;
    let seqs = |d: &AdminRoomDetail| -> Vec<u64> {
        d.events
            .iter()
            .map(|m| m.seq().expect("broadcast"))
            .collect()
    };
    assert_eq!(
        seqs(&detail),
        (seq.saturating_sub(49).max(1)..=seq).collect::<Vec<_>>()
    );
    let three = inspect(&server, playing, "?events=3").await;
    assert_eq!(seqs(&three), [seq - 2, seq - 1, seq]);
    let all = inspect(&server, playing, "?events=100000").await;
    assert_eq!(seqs(&all), (1..=seq).collect::<Vec<_>>());
    let chat = alice
        .received
        .iter()
        .find(|(_, m)| matches!(m, ServerMessage::Chat { .. }))
        .map(|(_, m)| m.clone())
        .expect("chat");
    assert!(all.events.contains(&chat));

    let lobby_detail = inspect(&server, lobby.room_id, "").await;
    assert!(lobby_detail.game.is_none() && lobby_detail.room.phase.is_none());
    let r = server
        .admin_get(&format!("/admin/rooms/{}?view=0", lobby.room_id))
        .await;
    assert_eq!(r.status(), 400, "no view before the start");
    let body: ErrorBody = r.json().await.expect("error body");
    assert_eq!(body.error.code, "bad_request");
    let r = server
        .admin_get(&format!("/admin/rooms/{}", Uuid::new_v4()))
        .await;
    assert_eq!(r.status(), 404);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kicked_client_is_told_closed_with_4011_and_may_reconnect_to_its_seat() {
    let server = admin_server(|_| {}).await;
    let (room, alice_token) = alice_and_two_bots(&server).await;
    let alice = server.connect(room, Some(&alice_token), None).await;
    let mut alice = until_only_this_client_may_act(alice).await;
    let mut spectator = server.connect(room, None, None).await;
    spectator.recv().await.expect("snapshot");

    let r = server
        .admin_post(
            &format!("/admin/rooms/{room}/seats/0/kick"),
            &json!({ "message": "please reconnect" }),
        )
        .await;
    assert_eq!(r.status(), 204);
    let told = alice
        .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
        .await;
    assert_eq!(
        told,
        ServerMessage::Closing {
            code: "kicked".into(),
            message: "please reconnect".into()
        }
    );
    assert!(alice.recv().await.is_none(), "closed right after");
    assert_eq!(alice.closed_with, Some(CloseCode::Kicked.code()));
    spectator
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Presence {
                    seat: Seat(0),
                    connected: false,
                    ..
                }
            )
        })
        .await;
    let rooms = admin_rooms(&server).await;
    assert!(!rooms[0].seats[0].connected);
    assert_eq!(rooms[0].seats[0].occupant.as_ref().unwrap().name, "Alice");

    // Nobody on the seat now; no such seat; no such room.
    let kick = |path: String| {
        let server = &server;
        async move { server.admin_post(&path, &json!({})).await }
    };
    let r = kick(format!("/admin/rooms/{room}/seats/0/kick")).await;
    assert_eq!(r.status(), 409);
    assert_eq!(
        r.json::<ErrorBody>().await.unwrap().error.code,
        "not_connected"
    );
    let r = kick(format!("/admin/rooms/{room}/seats/7/kick")).await;
    assert_eq!(
        r.json::<ErrorBody>().await.unwrap().error.code,
        "no_such_seat"
    );
    let r = kick(format!("/admin/rooms/{}/seats/0/kick", Uuid::new_v4())).await;
    assert_eq!(r.status(), 404);

    // The seat is still Alice's: she comes back where she was.
    let mut back = server.connect(room, Some(&alice_token), None).await;
    let Some(ServerMessage::Snapshot(s)) = back.recv().await else {
        panic!("snapshot")
    };
    assert_eq!(s.you, Some(Seat(0)));
    assert!(s.room.seats[0].connected);
    assert_eq!(s.legal, latest_legal(&alice), "her turn waited for her");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_room_tells_every_client_and_the_room_is_gone_and_not_restored() {
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    let store = std::sync::Arc::new(
        catan_server::store::SqlStore::connect(&url)
            .await
            .expect("store"),
    );
    let server =
        TestServer::start_with_store(|c| c.admin_token = Some(TOKEN.into()), store.clone()).await;
    let (room, alice_token) = alice_and_two_bots(&server).await;
    let alice = server.connect(room, Some(&alice_token), None).await;
    let mut alice = until_only_this_client_may_act(alice).await;
    let mut spectator = server.connect(room, None, None).await;
    spectator.recv().await.expect("snapshot");
    let lobby = server.create_room(json!({})).await;

    let r = server
        .admin_post(
            &format!("/admin/rooms/{room}/close"),
            &json!({ "message": "maintenance at noon" }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let closed: CloseRoomResponse = r.json().await.expect("json");
    assert_eq!(closed.room_id, room);
    assert_eq!(closed.status, RoomStatus::Playing);
    assert_eq!(
        closed.connections_closed, 4,
        "Alice, the spectator, two bots"
    );
    assert!(closed.game_abandoned);
    let told = ServerMessage::Closing {
        code: "room_closed".into(),
        message: "maintenance at noon".into(),
    };
    for client in [&mut alice, &mut spectator] {
        let m = client
            .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
            .await;
        assert_eq!(m, told);
        assert!(client.recv().await.is_none());
        assert_eq!(client.closed_with, Some(CloseCode::RoomClosed.code()));
    }

    // Gone from the public API and the admin API.
    assert_eq!(public_room(&server, room).await.status(), 404);
    let listed: catan_protocol::RoomList = server
        .http
        .get(server.url("/api/rooms"))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("json");
    assert!(listed.rooms.iter().all(|r| r.id != room));
    let ids: Vec<Uuid> = admin_rooms(&server).await.iter().map(|r| r.id).collect();
    assert_eq!(ids, [lobby.room_id]);
    let again = server
        .admin_post(&format!("/admin/rooms/{room}/close"), &json!({}))
        .await;
    assert_eq!(again.status(), 404);
    let ws = tokio_tungstenite::connect_async(format!(
        "ws://{}/api/rooms/{room}/ws?token={alice_token}",
        server.addr
    ))
    .await;
    assert!(ws.is_err(), "no socket to a closed room");
    // The stored game is not brought back by a restart.
    use catan_server::store::Store;
    let unfinished = store.unfinished_games().await.expect("unfinished");
    assert!(unfinished.iter().all(|g| g.game.id != room));
    let kept = store.game(room).await.expect("the game itself is kept");
    assert_eq!(kept.status, GameStatus::Abandoned);
    assert!(kept.finished.is_none());
    // ... and the history API says so, rather than "playing".
    let summary: serde_json::Value = server
        .http
        .get(server.url(&format!("/api/games/{room}")))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("json");
    assert_eq!(summary["status"], "abandoned");

    // A lobby closes the same way, with no game to abandon.
    let r = server
        .admin_post(&format!("/admin/rooms/{}/close", lobby.room_id), &json!({}))
        .await;
    let closed: CloseRoomResponse = r.json().await.expect("json");
    assert_eq!(closed.status, RoomStatus::Lobby);
    assert!(!closed.game_abandoned);
    assert!(admin_rooms(&server).await.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_and_stats_count_what_happened() {
    let server = admin_server(|_| {}).await;
    // A room of bots plays to the end while a spectator watches.
    let created = server
        .create_room(json!({ "players": 3, "vp_target": 5 }))
        .await;
    for _ in 0..3 {
        server.add_bot(created.room_id, &created.host_token).await;
    }
    let mut watcher = server.connect(created.room_id, None, None).await;
    server
        .start_game(created.room_id, &created.host_token)
        .await;
    watcher
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    // In another room, not started, Alice acts anyway: one rejection.
    let other = server.create_room(json!({ "players": 3 })).await;
    let alice = server.take_seat(other.room_id, "Alice").await;
    let mut client = server
        .connect(other.room_id, Some(&alice.token), None)
        .await;
    client
        .send_json(
            &json!({ "type": "action", "request_id": "r1", "action": { "type": "roll_dice" } }),
        )
        .await;
    let m = client
        .recv_until(|m| matches!(m, ServerMessage::Rejected { .. }))
        .await;
    assert!(matches!(m, ServerMessage::Rejected { code, .. } if code == "not_started"));

    let actions = inspect(&server, created.room_id, "").await.room.actions;
    assert!(actions > 20, "a whole game: {actions} actions");
    let r = server.admin_get("/metrics").await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let page = r.text().await.expect("text");
    #[allow(clippy::cast_precision_loss)]
    let actions_f = actions as f64;
    assert_eq!(
        sample(&page, "catan_actions_applied_total"),
        Some(actions_f)
    );
    assert_eq!(sample(&page, "catan_games_finished_total"), Some(1.0));
    assert_eq!(
        sample(&page, "catan_actions_rejected_total{code=\"not_started\"}"),
        Some(1.0)
    );
    assert_eq!(sample(&page, "catan_rooms{status=\"finished\"}"), Some(1.0));
    assert_eq!(sample(&page, "catan_rooms{status=\"lobby\"}"), Some(1.0));
    assert_eq!(sample(&page, "catan_rooms{status=\"playing\"}"), Some(0.0));
    assert_eq!(
        sample(&page, "catan_connections"),
        Some(2.0),
        "watcher and Alice"
    );
    // Every bot action went through the room's queue and was timed to its broadcast;
    // every action was written (plus the game's creation).
    let timed = sample(&page, "catan_action_latency_seconds_count").expect("latency");
    assert!(timed > 0.0 && timed <= actions_f, "{timed} of {actions}");
    assert_eq!(
        sample(&page, "catan_action_latency_seconds_bucket{le=\"+Inf\"}"),
        Some(timed)
    );
    let sum = sample(&page, "catan_action_latency_seconds_sum").expect("sum");
    assert!(
        sum > 0.0 && sum / timed < 1.0,
        "mean latency {}",
        sum / timed
    );
    let writes = sample(&page, "catan_store_write_seconds_count").expect("writes");
    assert!(writes > actions_f, "{writes} writes for {actions} actions");

    let stats: ServerStats = server
        .admin_get("/admin/stats")
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(stats.games_finished, 1);
    assert_eq!(stats.actions_applied, actions);
    assert_eq!(
        (stats.rooms.lobby, stats.rooms.playing, stats.rooms.finished),
        (1, 0, 1)
    );
    assert_eq!(stats.connections, 2);
    assert_eq!(stats.store, StoreHealth::Ok);
    drop(client);
    drop(watcher);
    let started = Instant::now();
    loop {
        let page = server
            .admin_get("/metrics")
            .await
            .text()
            .await
            .expect("text");
        if sample(&page, "catan_connections") == Some(0.0) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "connections gauge falls"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}
