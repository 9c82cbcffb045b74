//! Nothing lost: actions stored before they are announced, games restored after a
//! crash, results stored once the database is back, replays that rebuild the game.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use catan_e2e::{FaultyStore, TestServer, fresh_postgres_url, fresh_sqlite_url, play_randomly};
use catan_engine::{Event, Game};
use catan_protocol::GameStatus;
use catan_protocol::{GameList, GameSummary, Replay};
use catan_protocol::{GameOverInfo, ServerMessage};
use catan_server::store::{SqlStore, Store};
use serde_json::json;
use uuid::Uuid;

/// Not a test of its own: the server process that `TestServer::spawn_process`
/// starts by re-running this binary. Does nothing unless `CATAN_E2E_CHILD` is set.
#[test]
#[ignore = "run only as a child process by the crash test"]
fn child_server() {
    if std::env::var("CATAN_E2E_CHILD").is_err() {
        return;
    }
    let config = <catan_server::Config as clap::Parser>::parse_from(["catan-server"]);
    // The server's log goes to stdout, where the parent test can read it.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .init();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.listen.bind)
            .await
            .expect("bind");
        let admin = catan_server::bind_admin(&config).await.expect("bind admin");
        if let Some(a) = &admin {
            println!("ADMIN LISTENING {}", a.local_addr().expect("addr"));
        }
        println!("LISTENING {}", listener.local_addr().expect("addr"));
        // Like the `catan-server` binary: SIGTERM or Ctrl-C shut it down gracefully.
        // As the binary says it: the error's message.
        if let Err(e) =
            catan_server::run_with(listener, admin, config, catan_server::shutdown_signal()).await
        {
            panic!("serve: {e}");
        }
    });
}

pub(crate) async fn wait_until_stored(server: &TestServer, id: Uuid) -> GameSummary {
    let started = Instant::now();
    loop {
        let r = server
            .http
            .get(server.url(&format!("/api/games/{id}")))
            .send()
            .await
            .expect("http");
        if r.status() == 200 {
            let g: GameSummary = r.json().await.expect("json");
            if g.status == GameStatus::Finished {
                return g;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "result never stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Plays a bots-only game and returns the room id, the published commitment and
/// the game-over message.
pub(crate) async fn bots_game(server: &TestServer, players: u8) -> (Uuid, String, GameOverInfo) {
    let created = server
        .create_room(json!({ "players": players, "vp_target": 6 }))
        .await;
    for _ in 0..players {
        server.add_bot(created.room_id, &created.host_token).await;
    }
    let mut spectator = server.connect(created.room_id, None, None).await;
    let info = server
        .start_game(created.room_id, &created.host_token)
        .await;
    let commitment = info
        .seed_commitment
        .expect("a commitment is published at the start");
    let ServerMessage::GameOver(over) = spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await
    else {
        unreachable!()
    };
    (created.room_id, commitment, over)
}

fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn replay_checks(server: &TestServer, players: u8) {
    let (id, commitment, over) = bots_game(server, players).await;
    let stored = wait_until_stored(server, id).await;
    assert!(over.winner.is_some(), "a game to 6 VP is won");
    assert_eq!(stored.winner, over.winner);
    // Fairness: the revealed seed and salt match the commitment published at the start.
    assert_eq!(
        sha256_hex(&format!("{}:{}", over.seed, over.seed_salt)),
        commitment
    );
    assert_eq!(stored.seed.as_deref(), Some(over.seed.as_str()));

    let replay: Replay = server
        .http
        .get(server.url(&format!("/api/games/{id}/replay")))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("replay json");
    assert_eq!(replay.final_scores, over.scores);
    // Anyone can re-run it: options + seed + log rebuild the same game and events.
    let mut game =
        Game::new(replay.engine_options, over.seed.parse().expect("seed")).expect("game");
    // Self-contained: the map, robber start, first player and seat order the seed dealt
    //
    assert_eq!(&replay.map, game.map());
    assert_eq!(replay.robber_start, game.robber());
    assert_eq!(replay.first, game.first());
    let order: Vec<u8> = replay.seat_order.iter().map(|s| s.0).collect();
    let expected: Vec<u8> = (0..players)
        .map(|i| (game.first().0 + i) % players)
        .collect();
    assert_eq!(order, expected);
    for (i, step) in replay.actions.iter().enumerate() {
        assert_eq!(step.seq, i as u64);
        let actor = step
            .seat
            .map_or(catan_engine::Actor::System, catan_engine::Actor::Seat);
        let events = game
            .apply(actor, step.action)
            .expect("stored actions replay");
        assert_eq!(events, step.events, "every event reproduced");
    }
    assert_eq!(game.winner(), over.winner);
    assert_eq!(game.final_scores(), over.scores);
    assert!(
        replay
            .actions
            .last()
            .expect("actions")
            .events
            .iter()
            .any(|e| matches!(e, Event::GameWon { .. }))
    );

    let list: GameList = server
        .http
        .get(server.url("/api/games?per_page=5"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.games[0].id, id, "newest first");
    let name = &stored.players[0].name;
    let filtered: GameList = server
        .http
        .get(server.url(&format!("/api/games?player={}", name.replace(' ', "%20"))))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        filtered
            .games
            .iter()
            .all(|g| g.players.iter().any(|p| &p.name == name))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_stored_in_sqlite_and_its_replay_rebuilds_it_exactly() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    replay_checks(&server, 3).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_stored_in_postgres_and_its_replay_rebuilds_it_exactly() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    replay_checks(&server, 4).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_of_an_unfinished_or_unknown_game_is_refused() {
    let server = TestServer::start().await;
    let r = server
        .http
        .get(server.url(&format!("/api/games/{}/replay", Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let created = server.create_room(json!({ "players": 3 })).await;
    for _ in 0..3 {
        server.add_bot(created.room_id, &created.host_token).await;
    }
    server
        .start_game(created.room_id, &created.host_token)
        .await;
    // Usually still running a moment after the start (bots need hundreds of actions).
    let r = server
        .http
        .get(server.url(&format!("/api/games/{}/replay", created.room_id)))
        .send()
        .await
        .unwrap();
    assert!(
        r.status() == 409 || r.status() == 200,
        "status {}",
        r.status()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_game_restores_the_room_and_the_game_finishes_with_every_action_once() {
    let (url, _dir) = fresh_sqlite_url();
    let mut server = TestServer::spawn_process(&url);
    let created = server
        .create_room(json!({ "players": 4, "vp_target": 7 }))
        .await;
    let room = created.room_id;
    let a = server.take_seat(room, "ann").await;
    let b = server.take_seat(room, "bob").await;
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    let ca = server.connect(room, Some(&a.token), None).await;
    let cb = server.connect(room, Some(&b.token), None).await;
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;
    let ta = tokio::spawn(play_randomly(ca, 1));
    let tb = tokio::spawn(play_randomly(cb, 2));

    // Let the game run a while, then kill the process outright.
    let mut seen_events = Vec::new();
    while seen_events.len() < 60 {
        match spectator.recv().await.expect("spectator") {
            ServerMessage::Events { seq, .. } => seen_events.push(seq),
            ServerMessage::GameOver(_) => panic!("the game ended before the crash"),
            _ => {}
        }
    }
    server.kill();
    let (ca, _) = ta.await.expect("client a");
    let (cb, _) = tb.await.expect("client b");
    let last_seq = |c: &catan_e2e::Client| {
        c.received
            .iter()
            .filter_map(|(_, m)| match m {
                ServerMessage::Events { seq, .. } => Some(*seq),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    };
    let acked = |c: &catan_e2e::Client| {
        c.received
            .iter()
            .filter(|(_, m)| {
                matches!(
                    m,
                    ServerMessage::Events {
                        request_id: Some(_),
                        ..
                    }
                )
            })
            .count()
    };
    let (seq_a, seq_b) = (last_seq(&ca), last_seq(&cb));
    let acked_before = acked(&ca) + acked(&cb);

    // Same database, new process: the room is back and the same tokens work.
    let server = TestServer::spawn_process(&url);
    let ca = server.connect(room, Some(&a.token), Some(seq_a)).await;
    let cb = server.connect(room, Some(&b.token), Some(seq_b)).await;
    let ta = tokio::spawn(play_randomly(ca, 3));
    let tb = tokio::spawn(play_randomly(cb, 4));
    let (ca, ra) = ta.await.expect("client a");
    let (cb, rb) = tb.await.expect("client b");
    assert_eq!(ra + rb, 0, "no action refused after the restart");
    let over = |c: &catan_e2e::Client| match &c.received.last().expect("messages").1 {
        ServerMessage::GameOver(o) => o.clone(),
        other => panic!("not over: {other:?}"),
    };
    let over_a = over(&ca);
    assert_eq!(over_a, over(&cb));

    wait_until_stored(&server, room).await;
    let replay: Replay = server
        .http
        .get(server.url(&format!("/api/games/{room}/replay")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // Every action exactly once: a gapless log whose broadcasts were strictly ordered,
    // including every action announced before the crash.
    assert!(
        replay
            .actions
            .iter()
            .enumerate()
            .all(|(i, s)| s.seq == i as u64)
    );
    let stored = SqlStore::connect(&url).await.expect("store");
    let log = stored.actions(room).await.expect("log");
    assert!(
        log.windows(2).all(|w| w[0].room_seq < w[1].room_seq),
        "no duplicate broadcast"
    );
    let room_seqs: std::collections::HashSet<u64> = log.iter().map(|a| a.room_seq).collect();
    assert!(
        seen_events.iter().all(|s| room_seqs.contains(s)),
        "every announced action is stored"
    );
    let acked_after = acked(&ca) + acked(&cb);
    let people = [a.seat, b.seat];
    let by_people = log
        .iter()
        .filter(|r| r.seat.is_some_and(|s| people.contains(&s)))
        .count();
    assert!(
        acked_before + acked_after <= by_people,
        "every acknowledged action is in the log"
    );
    assert_eq!(replay.final_scores, over_a.scores);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_database_is_down_at_the_end_the_server_keeps_running_and_stores_the_result_later()
{
    let (url, _dir) = fresh_sqlite_url();
    let flaky = Arc::new({
        let s = FaultyStore::new(SqlStore::connect(&url).await.expect("store"));
        s.fail_finishes.store(3, Ordering::SeqCst);
        s
    });
    let server = TestServer::start_with_store(|_| {}, flaky.clone()).await;
    let (id, _, over) = bots_game(&server, 3).await;
    // The server keeps serving while the write is retried with backoff.
    let r = server
        .http
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let stored = wait_until_stored(&server, id).await;
    assert_eq!(stored.winner, over.winner);
    assert_eq!(
        flaky.finish_calls.load(Ordering::SeqCst),
        4,
        "three failures, then stored"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_that_cannot_be_stored_is_refused_and_changes_nothing() {
    let (url, _dir) = fresh_sqlite_url();
    let flaky = Arc::new({
        let s = FaultyStore::new(SqlStore::connect(&url).await.expect("store"));
        s.fail_finishes.store(0, Ordering::SeqCst);
        s
    });
    let server = TestServer::start_with_store(|_| {}, flaky.clone()).await;
    let created = server.create_room(json!({ "players": 3 })).await;
    let seats = [
        server.take_seat(created.room_id, "a").await,
        server.take_seat(created.room_id, "b").await,
        server.take_seat(created.room_id, "c").await,
    ];
    server
        .start_game(created.room_id, &created.host_token)
        .await;
    let mut probe = server.connect(created.room_id, None, None).await;
    let ServerMessage::Snapshot(first) = probe.recv().await.unwrap() else {
        panic!("snapshot")
    };
    let current = first.view.clone().unwrap().current;
    let mut c = server
        .connect(created.room_id, Some(&seats[current.index()].token), None)
        .await;
    let ServerMessage::Snapshot(mine) = c.recv().await.unwrap() else {
        panic!("snapshot")
    };
    let action = mine.legal[0];
    let mut watcher = server.connect(created.room_id, None, None).await;
    let ServerMessage::Snapshot(before) = watcher.recv().await.unwrap() else {
        panic!("snapshot")
    };

    flaky.fail_appends.store(true, Ordering::SeqCst);
    c.send_json(&json!({"type": "action", "request_id": "s1", "action": action}))
        .await;
    let m = c
        .recv_until(|m| matches!(m, ServerMessage::Rejected { .. }))
        .await;
    let ServerMessage::Rejected {
        code, request_id, ..
    } = m
    else {
        unreachable!()
    };
    assert_eq!(
        (code.as_str(), request_id.as_str()),
        ("store_unavailable", "s1")
    );
    let mut w2 = server.connect(created.room_id, None, None).await;
    let ServerMessage::Snapshot(after) = w2.recv().await.unwrap() else {
        panic!("snapshot")
    };
    assert_eq!(after.view, before.view, "nothing changed");
    assert_eq!(after.seq, before.seq, "nothing was announced");

    flaky.fail_appends.store(false, Ordering::SeqCst);
    c.send_json(&json!({"type": "action", "request_id": "s2", "action": action}))
        .await;
    c.recv_until(|m| matches!(m, ServerMessage::Events { request_id: Some(r), .. } if r == "s2"))
        .await;
    assert_eq!(flaky.inner.actions(created.room_id).await.unwrap().len(), 1);
    server.stop().await;
}
