//! Idle rooms: a room with no game in progress, nobody connected and no request for
//! `--idle-room-secs` (a finished one: `--finished-room-secs`) is closed and
//! forgotten; the others stay.

use std::time::{Duration, Instant};

use catan_protocol::ServerStats;
use serde_json::json;
use uuid::Uuid;

use crate::admin::{admin_rooms, admin_server, alice_and_two_bots, public_room};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_without_a_game_or_a_person_for_the_idle_time_are_closed_and_forgotten() {
    let server = admin_server(|c| c.rooms.idle_room_secs = 1).await;
    // Bob took a seat and never connected; a room with only a bot; a room where
    // Carol is connected; a game in progress that nobody watches.
    let abandoned = server.create_room(json!({})).await.room_id;
    server.take_seat(abandoned, "Bob").await;
    let bots_only = server.create_room(json!({})).await;
    server
        .add_bot(bots_only.room_id, &bots_only.host_token)
        .await;
    let watched = server.create_room(json!({})).await.room_id;
    let carol = server.take_seat(watched, "Carol").await;
    let mut carol = server.connect(watched, Some(&carol.token), None).await;
    carol.recv().await.expect("snapshot");
    let (playing, _) = alice_and_two_bots(&server).await;

    let started = Instant::now();
    while public_room(&server, abandoned).await.status() != 404
        || public_room(&server, bots_only.room_id).await.status() != 404
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "idle rooms are closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let ids: Vec<Uuid> = admin_rooms(&server).await.iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        [playing, watched],
        "the others stay, past the idle time"
    );
    let stats: ServerStats = server
        .admin_get("/admin/stats")
        .await
        .json()
        .await
        .expect("json");
    assert_eq!((stats.rooms.lobby, stats.rooms.playing), (1, 1));

    // Once Carol leaves, her room goes too.
    drop(carol);
    let started = Instant::now();
    while public_room(&server, watched).await.status() != 404 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "closed after she left"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "not before the idle time"
    );
    assert_eq!(public_room(&server, playing).await.status(), 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_room_without_people_is_closed_after_the_shorter_finished_time() {
    let server = admin_server(|c| {
        c.rooms.idle_room_secs = 3600;
        c.rooms.finished_room_secs = 1;
    })
    .await;
    let created = server
        .create_room(json!({ "players": 3, "vp_target": 3 }))
        .await;
    for _ in 0..3 {
        server.add_bot(created.room_id, &created.host_token).await;
    }
    let room = created.room_id;
    let mut watcher = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;
    watcher
        .recv_until(|m| matches!(m, catan_protocol::ServerMessage::GameOver(_)))
        .await;
    // While a person (here a spectator) is connected, the finished room stays.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(public_room(&server, room).await.status(), 200);
    drop(watcher);
    let left = Instant::now();
    while public_room(&server, room).await.status() != 404 {
        assert!(
            left.elapsed() < Duration::from_secs(10),
            "closed after the finished time"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(left.elapsed() >= Duration::from_millis(800));
    // The game itself stays in the history.
    crate::persistence::wait_until_stored(&server, room).await;
    server.stop().await;
}

/// A game in which no person has been connected to a seat for
/// `--abandon-after-secs` is ended as abandoned: its room closed, the game stored as
/// `abandoned` with no winner, and not restored when the server starts again; a game
/// whose player is connected is restored.
async fn abandoned_games_are_not_restored(url: &str) {
    use catan_e2e::TestServer;
    use catan_protocol::{GameStatus, GameSummary};
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.into();
        c.rooms.abandon_after_secs = 1;
    })
    .await;
    let (left, alice) = alice_and_two_bots(&server).await;
    let mut alice = server.connect(left, Some(&alice), None).await;
    alice.recv().await.expect("snapshot");
    let (kept, bob) = alice_and_two_bots(&server).await;
    let mut bob = server.connect(kept, Some(&bob), None).await;
    bob.recv().await.expect("snapshot");
    drop(alice);
    let started = Instant::now();
    while public_room(&server, left).await.status() != 404 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the abandoned game's room is closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let closed_after = started.elapsed();
    assert!(
        closed_after >= Duration::from_millis(900),
        "closed {closed_after:?} after the player left"
    );
    let game = |server: &TestServer, id: Uuid| {
        let url = server.url(&format!("/api/games/{id}"));
        let http = server.http.clone();
        async move {
            let r = http.get(url).send().await.expect("http");
            assert_eq!(r.status(), 200);
            r.json::<GameSummary>().await.expect("summary")
        }
    };
    let g = game(&server, left).await;
    assert_eq!((g.status, g.winner), (GameStatus::Abandoned, None));
    assert_eq!(
        public_room(&server, kept).await.status(),
        200,
        "Bob is there"
    );
    drop(bob);
    server.stop().await;

    // The server starts again on the same database: the abandoned game stays
    // abandoned, the other one is restored.
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    assert_eq!(public_room(&server, kept).await.status(), 200, "restored");
    assert_eq!(
        public_room(&server, left).await.status(),
        404,
        "not restored"
    );
    let g = game(&server, left).await;
    assert_eq!((g.status, g.winner), (GameStatus::Abandoned, None));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_nobody_plays_is_abandoned_and_not_restored_sqlite() {
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    abandoned_games_are_not_restored(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_nobody_plays_is_abandoned_and_not_restored_postgres() {
    abandoned_games_are_not_restored(&catan_e2e::fresh_postgres_url().await).await;
}
