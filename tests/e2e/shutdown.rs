//! Graceful shutdown: on SIGTERM the server tells every client (`closing`, then close
//! code 1001), finishes its pending database writes, and exits 0 within its bound;
//! the game it was hosting is intact after a restart.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use catan_e2e::{Client, FaultyStore, TestServer, fresh_sqlite_url, latest_legal};
use catan_protocol::{CloseCode, RoomInfo, RoomStatus, ServerMessage};
use catan_server::store::{SqlStore, Store};
use serde_json::json;
use uuid::Uuid;

use crate::admin::{alice_and_two_bots, until_only_this_client_may_act};

/// Reads until the server's `closing`; expects the shutdown reason and code 1001.
async fn expect_shutdown_close(client: &mut Client) {
    let m = client
        .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
        .await;
    let ServerMessage::Closing { code, .. } = m else {
        unreachable!()
    };
    assert_eq!(code, "shutting_down");
    assert!(client.recv().await.is_none(), "closed right after");
    assert_eq!(client.closed_with, Some(CloseCode::GoingAway.code()));
    // Answer the close, so the server is not left waiting for the handshake.
    let _ = futures_util::SinkExt::close(&mut client.ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_game_closes_clients_with_1001_exits_0_in_time_and_keeps_the_game() {
    let (url, _dir) = fresh_sqlite_url();
    let mut server = TestServer::spawn_process(&url);
    let (room, alice_token) = alice_and_two_bots(&server).await;
    let alice = server.connect(room, Some(&alice_token), None).await;
    let mut alice = until_only_this_client_may_act(alice).await;
    let mut spectator = server.connect(room, None, None).await;
    let Some(ServerMessage::Snapshot(before)) = spectator.recv().await else {
        panic!("snapshot")
    };
    let output = server.output.clone();

    let terminated = tokio::task::spawn_blocking(move || {
        let result = server.terminate(Duration::from_secs(20));
        (server, result)
    });
    expect_shutdown_close(&mut alice).await;
    expect_shutdown_close(&mut spectator).await;
    let (_server, (status, took)) = terminated.await.expect("terminate");
    assert!(status.success(), "exit status {status:?}");
    assert!(
        took < Duration::from_secs(10),
        "exited within the default 10 s bound: {took:?}"
    );
    assert!(
        output
            .lock()
            .expect("output")
            .iter()
            .any(|l| l.contains("shut down cleanly")),
        "nothing was left pending"
    );
    assert!(
        spectator.received[1..]
            .iter()
            .all(|(_, m)| !matches!(m, ServerMessage::Events { .. })),
        "the game stood still while it was Alice's turn"
    );

    // The same database, a new process: the game is there as it was.
    let server = TestServer::spawn_process(&url);
    let info: RoomInfo = server
        .http
        .get(server.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("room");
    assert_eq!(info.status, RoomStatus::Playing);
    let mut spectator = server.connect(room, None, None).await;
    let Some(ServerMessage::Snapshot(after)) = spectator.recv().await else {
        panic!("snapshot")
    };
    assert_eq!(
        after.view, before.view,
        "the restored game is the same game"
    );
    let mut back = server.connect(room, Some(&alice_token), None).await;
    let Some(ServerMessage::Snapshot(mine)) = back.recv().await else {
        panic!("snapshot")
    };
    assert_eq!(
        mine.legal,
        latest_legal(&alice),
        "Alice goes on where she was"
    );
}

/// A server on `store`; a bots' game played to its end while a spectator watches.
/// Returns the server, the game's id and the still-connected spectator.
async fn finished_bots_game(
    store: Arc<FaultyStore>,
    shutdown_timeout_secs: u64,
) -> (TestServer, Uuid, Client) {
    let server =
        TestServer::start_with_store(|c| c.shutdown_timeout_secs = shutdown_timeout_secs, store)
            .await;
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
    (server, created.room_id, watcher)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_waits_for_a_result_still_being_written() {
    let (url, _dir) = fresh_sqlite_url();
    let store = Arc::new({
        let mut s = FaultyStore::new(SqlStore::connect(&url).await.expect("store"));
        // Longer than any wait of the closing handshakes.
        s.finish_delay = Duration::from_secs(3);
        s.fail_finishes.store(0, Ordering::SeqCst);
        s
    });
    let (server, id, mut watcher) = finished_bots_game(store.clone(), 10).await;
    // The result write has just begun when the shutdown starts.
    let (took, ()) = tokio::join!(server.shutdown(), expect_shutdown_close(&mut watcher));
    let stored = store.inner.game(id).await.expect("the game is stored");
    assert!(
        stored.finished.is_some(),
        "the result was written before the server returned"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(store.finish_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_gives_up_on_a_write_that_never_succeeds_at_its_bound() {
    let (url, _dir) = fresh_sqlite_url();
    let store = Arc::new({
        let mut s = FaultyStore::new(SqlStore::connect(&url).await.expect("store"));
        s.finish_delay = Duration::from_millis(50);
        s.fail_finishes.store(u32::MAX, Ordering::SeqCst);
        s
    });
    let (server, id, mut watcher) = finished_bots_game(store.clone(), 1).await;
    let (took, ()) = tokio::join!(server.shutdown(), expect_shutdown_close(&mut watcher));
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(4),
        "returned at the 1 s bound: {took:?}"
    );
    assert!(
        store.finish_calls.load(Ordering::SeqCst) >= 3,
        "kept retrying, faster once shutting down"
    );
    let stored = store.inner.game(id).await.expect("the game is stored");
    assert!(stored.finished.is_none());
}
