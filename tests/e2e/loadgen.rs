//! The reference client and the load generator against an in-process server: the
//! tools that measure the server are themselves tested.

use std::time::Duration;

use catan_client::loadgen::{self, LoadConfig};
use catan_client::lobby::Lobby;
use catan_client::seat::SeatClient;
use catan_client::target::{self, TargetError};
use catan_e2e::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_generator_finishes_games_without_rejections_or_errors() {
    let server = TestServer::start().await;
    let target = target::parse_loopback(&format!("ws://{}", server.addr)).expect("loopback");
    let mut config = LoadConfig::new(target);
    config.rooms = 4;
    config.warmup = Duration::from_millis(200);
    config.duration = Duration::from_secs(4);
    // Short games, so that some finish within the window even in a debug build.
    config.vp_target = 3;
    config.server_pid = Some(std::process::id());
    let report = loadgen::run(config).await.expect("valid configuration");
    assert!(report.games_finished_total > 0, "{report:?}");
    assert!(report.actions > 0, "{report:?}");
    assert_eq!(report.rejected, 0, "{report:?}");
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(report.dropped, 0, "{report:?}");
    assert_eq!(report.bad_results, 0, "{report:?}");
    assert_eq!(report.connections, 16);
    assert!(report.p50_ms > 0.0 && report.p50_ms <= report.p999_ms);
    assert!(report.server_rss_kib.is_some() && report.server_cpu_s.is_some());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misbehaving_spectators_stall_no_room_and_the_well_behaved_seats_see_no_error() {
    let server = TestServer::start().await;
    let target = target::parse_loopback(&format!("ws://{}", server.addr)).expect("loopback");
    let mut config = LoadConfig::new(target);
    config.rooms = 4; // one of each misbehaviour
    config.misbehave = true;
    config.warmup = Duration::from_millis(200);
    config.duration = Duration::from_secs(4);
    config.vp_target = 3;
    // At full speed: a loaded machine (CI) still finishes a game within the window.
    config.think = Duration::ZERO;
    let report = loadgen::run(config).await.expect("valid configuration");
    assert!(report.games_finished_total > 0, "{report:?}");
    assert_eq!(report.stalled_rooms, 0, "{report:?}");
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(report.rejected, 0, "{report:?}");
    assert_eq!(report.dropped, 0, "{report:?}");
    // The misbehaving clients ran: churn alone reconnects every ~50 ms.
    assert!(report.misbehaving_connections > 20, "{report:?}");
    assert!(report.misbehaving_sent > 100, "{report:?}");
    server.stop().await;
}

/// Idle mode holds rooms that wait: no bot may stand in for their seats, connected
/// or not (beyond the open-file limit most are not), or the rooms would be played
/// and the memory measured no longer that of waiting rooms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_idle_scenario_holds_its_rooms_waiting_with_no_stand_ins() {
    let server = crate::admin::admin_server(|_| {}).await;
    let target = target::parse_loopback(&format!("ws://{}", server.addr)).expect("loopback");
    let mut config = LoadConfig::new(target);
    config.idle = true;
    config.rooms = 3;
    config.idle_connect_rooms = 1;
    config.warmup = Duration::from_millis(200);
    config.duration = Duration::from_millis(500);
    let report = loadgen::run(config).await.expect("valid configuration");
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(report.connections, 4, "only the first room's seats connect");
    let rooms = crate::admin::admin_rooms(&server).await;
    assert_eq!(rooms.len(), 3);
    for room in &rooms {
        assert_eq!(room.options.stand_in_secs, 0, "{room:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_load_generator_refuses_targets_that_are_not_loopback() {
    for url in [
        "ws://10.1.2.3:8080",
        "ws://192.168.0.1:8080",
        "ws://example.org:8080",
        "ws://0.0.0.0:8080",
    ] {
        assert!(
            matches!(
                target::parse_loopback(url),
                Err(TargetError::NotLoopback(_))
            ),
            "{url} must be refused"
        );
    }
    // Even a target parsed without the check is refused by the run itself.
    let remote = target::parse("ws://10.1.2.3:8080").expect("url");
    let err = loadgen::run(LoadConfig::new(remote)).await.unwrap_err();
    assert!(err.to_string().contains("not loopback"), "{err}");
}

#[tokio::test]
async fn the_load_generator_refuses_runs_beyond_its_caps() {
    let t = target::parse_loopback("ws://127.0.0.1:1").expect("loopback");
    let mut c = LoadConfig::new(t.clone());
    c.rooms = 10_001;
    assert!(c.check().is_err());
    let mut c = LoadConfig::new(t);
    c.duration = Duration::from_secs(601);
    assert!(c.check().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_plays_a_full_game_against_built_in_bots() {
    let server = TestServer::start().await;
    let target = target::parse(&format!("ws://{}", server.addr)).expect("url");
    let lobby = Lobby::new(&target);
    let created = lobby.create_room(4, 10, None).await.expect("room");
    let seat = lobby.take_seat(created.room_id, "ref").await.expect("seat");
    for _ in 0..3 {
        lobby
            .add_bot(created.room_id, &created.host_token)
            .await
            .expect("bot");
    }
    let mut client = SeatClient::connect(&target, created.room_id, &seat.token)
        .await
        .expect("connect");
    lobby
        .start(created.room_id, &created.host_token)
        .await
        .expect("start");
    let outcome = tokio::time::timeout(
        Duration::from_secs(120),
        client.play_to_end(&mut catan_bots::RandomBot::new(), 7),
    )
    .await
    .expect("game ends in time")
    .expect("game played");
    assert_eq!(outcome.seat, Some(seat.seat));
    assert_eq!(
        outcome.rejected, 0,
        "a well-behaved client is never rejected"
    );
    assert!(outcome.actions > 0);
    let top = outcome
        .scores
        .iter()
        .find(|s| Some(s.seat) == outcome.winner)
        .expect("winner's score");
    assert!(top.points >= 10, "R-1.1: the winner reached the target");
    assert!(outcome.own_points().is_some());
    server.stop().await;
}

/// The quick-play scenario end to end on a small scale: guests made and rated,
/// every person seated over the queue's socket and their game started, the
/// figures consistent (bots complete the tables people cannot fill).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_quick_play_scenario_seats_everyone_and_reports_its_figures() {
    use catan_client::loadgen::queue;
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
    })
    .await;
    let target = target::parse_loopback(&format!("ws://{}", server.addr)).expect("loopback");
    let dir = tempfile::tempdir().expect("dir");
    queue::prepare(std::slice::from_ref(&target), 10, 7, dir.path())
        .await
        .expect("prepared");
    let sql = std::fs::read_to_string(dir.path().join("ratings.sql")).expect("sql");
    assert_eq!(sql.matches("UPDATE players SET rating_mu").count(), 10);
    let store = catan_server::store::SqlStore::connect(&url)
        .await
        .expect("store");
    sqlx::raw_sql(&sql)
        .execute(store.pool())
        .await
        .expect("ratings applied");
    let people = queue::read_people(dir.path()).expect("people");
    assert_eq!(people.len(), 10);
    let load = queue::QueueLoad {
        targets: vec![target],
        per_sec: 50.0,
        grace: Duration::from_secs(30),
    };
    let r = queue::run(&load, &people).await;
    assert_eq!((r.seated, r.unseated, r.errors), (10, 0, 0), "{r:?}");
    assert!(r.tables >= 3, "ten people at tables of four: {r:?}");
    assert!(r.bot_seats > 0.0 && r.tables_with_bots > 0.0, "{r:?}");
    assert!(r.wait_p50_s > 0.0 && r.wait_p50_s <= r.wait_p99_s && r.wait_p99_s <= r.wait_max_s);
    assert!(r.spread_max <= 600.0, "within the widest window: {r:?}");
    assert!(r.rating_sd > 50.0, "{r:?}");
    server.stop().await;
}
