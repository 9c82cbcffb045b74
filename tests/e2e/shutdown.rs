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
        // Longer than any wait of the closing handshakes, within the store bound.
        s.finish_delay = Duration::from_millis(1500);
        // The room's own write (before `game_over`) fails: the result is then
        // written in the background.
        s.fail_finishes.store(1, Ordering::SeqCst);
        s
    });
    let (server, id, mut watcher) = finished_bots_game(store.clone(), 10).await;
    // The background write of the result begins when the shutdown starts.
    let (took, ()) = tokio::join!(server.shutdown(), expect_shutdown_close(&mut watcher));
    let stored = store.inner.game(id).await.expect("the game is stored");
    assert!(
        stored.finished.is_some(),
        "the result was written before the server returned"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(store.finish_calls.load(Ordering::SeqCst), 2);
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

/// Sends `head` (a request with a `Content-Length`) and the first part of its body,
/// starts the shutdown, then sends the rest: the handler runs after the shutdown has
/// begun. Returns the status and the body of the answer.
async fn request_finished_during_shutdown(head: &str, body: &str, split: usize) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start().await;
    // `{room}` in the head stands for a room created first.
    let head = if head.contains("{room}") {
        let created = server.create_room(serde_json::json!({})).await;
        head.replace("{room}", &created.room_id.to_string())
    } else {
        head.to_owned()
    };
    let mut tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let head = format!(
        "{head}\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.expect("head");
    tcp.write_all(&body.as_bytes()[..split])
        .await
        .expect("body");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stopping = tokio::spawn(server.shutdown());
    tokio::time::sleep(Duration::from_millis(300)).await;
    tcp.write_all(&body.as_bytes()[split..])
        .await
        .expect("body");
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_string(&mut answer))
        .await
        .expect("answered")
        .expect("read");
    stopping.await.expect("shut down");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_calls_that_reach_a_server_shutting_down_get_shutting_down() {
    // The request's head arrives before the shutdown, the rest of its body after:
    // the server lets it finish, and says why it does not create the room.
    let (status, body) =
        request_finished_during_shutdown("POST /api/rooms HTTP/1.1", r#"{"players": 3}"#, 5).await;
    assert_eq!(status, 503, "{body}");
    let err: catan_protocol::ErrorBody = serde_json::from_str(&body).expect("error body");
    assert_eq!(err.error.code, "shutting_down");
    // An existing room's calls alike (its task ends with the shutdown).
    let (status, body) = request_finished_during_shutdown(
        "POST /api/rooms/{room}/seats HTTP/1.1",
        r#"{"name": "ann"}"#,
        5,
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("shutting_down"), "{body}");
}
