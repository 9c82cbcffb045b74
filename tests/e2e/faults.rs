//! Faults: what the server's own bots do when the database refuses their writes for
//! a while, or stops answering.
//!
//! A bot whose write was refused must not freeze: after the database refused action
//! writes for 5 s and recovered, every room of random and heuristic bots acts again
//! (before the fix 9 of 10 rooms of random bots and 5 of 10 of heuristic bots never
//! did). The built-in bots run `catan_bots::SeatDriver`, which asks for a snapshot
//! (`sync`) after any refusal and decides again, waiting longer after each refusal in
//! a row.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catan_e2e::{FaultyStore, TestServer, fresh_sqlite_url};
use catan_protocol::ServerMessage;
use catan_server::store::{SqlStore, Store};
use futures_util::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// Rooms of 4 built-in bots: half random, half heuristic.
const ROOMS: usize = 10;
/// Every game's log stops growing at this index (after the 16 initial placements,
/// a few turns in): each game stalls mid-game, however fast it ran until then.
const STALL_AT: u64 = 40;
/// The store comes back once the bots of every room have tried this many times to
/// act and been refused (each time after the room's own retries of the write, and
/// a backoff of 100 ms times the refusals in a row: about 2 s in all)...
const REFUSALS: u32 = 4;
/// ... or after this long, whichever comes first (a bot that gives up after a
/// refusal never makes the count; the rooms are then checked all the same).
const MAX_OUTAGE: Duration = Duration::from_secs(8);
/// After the store is back, every game must end within this.
const FINISH_WITHIN: Duration = Duration::from_secs(30);

/// What a room's spectator has seen.
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    /// Game messages (`events`) seen.
    events: u64,
    /// The last sequence number seen.
    seq: u64,
    /// `game_over` seen.
    over: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_play_on_to_the_end_after_the_store_refused_their_writes_for_a_while() {
    let (url, _dir) = fresh_sqlite_url();
    let store = Arc::new(FaultyStore::new(
        SqlStore::connect(&url).await.expect("store"),
    ));
    store
        .fail_appends_from_seq
        .store(STALL_AT, Ordering::SeqCst);
    let server = TestServer::start_with_store(|_| {}, store.clone()).await;

    let mut rooms = Vec::new();
    let mut watchers = Vec::new();
    let progress = Arc::new(Mutex::new(vec![Progress::default(); ROOMS]));
    for i in 0..ROOMS {
        let kind = if i % 2 == 0 { "random" } else { "heuristic" };
        let created = server
            .create_room(json!({ "players": 4, "vp_target": 6 }))
            .await;
        let room = created.room_id;
        for _ in 0..4 {
            server
                .add_bot_of_kind(room, &created.host_token, Some(kind))
                .await;
        }
        let mut spectator = server.connect(room, None, None).await;
        let progress = progress.clone();
        watchers.push(tokio::spawn(async move {
            while let Some(Ok(m)) = spectator.ws.next().await {
                let Message::Text(t) = m else { continue };
                let msg: ServerMessage = serde_json::from_str(&t).expect("server message");
                let mut p = progress.lock().expect("progress");
                match msg {
                    ServerMessage::Events { seq, .. } => {
                        p[i].events += 1;
                        p[i].seq = seq;
                    }
                    ServerMessage::GameOver(_) => {
                        p[i].over = true;
                        return;
                    }
                    _ => {}
                }
            }
        }));
        server.start_game(room, &created.host_token).await;
        rooms.push((room, kind));
    }

    // The database refuses every write from each game's STALL_AT-th action on.
    let outage = Instant::now();
    let refused = |store: &FaultyStore| -> Vec<u32> {
        rooms
            .iter()
            .map(|(id, _)| store.refused_actions(*id))
            .collect()
    };
    while refused(&store).iter().any(|n| *n < REFUSALS) && outage.elapsed() < MAX_OUTAGE {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let during = refused(&store);
    let outage = outage.elapsed();
    let stalled: Vec<Progress> = progress.lock().expect("progress").clone();
    store
        .fail_appends_from_seq
        .store(u64::MAX, Ordering::SeqCst);

    // Back: every game must end.
    let back = Instant::now();
    while back.elapsed() < FINISH_WITHIN
        && !progress.lock().expect("progress").iter().all(|p| p.over)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let after: Vec<Progress> = progress.lock().expect("progress").clone();
    for w in &watchers {
        w.abort();
    }
    let report: Vec<String> = rooms
        .iter()
        .enumerate()
        .map(|(i, (id, kind))| {
            format!(
                "room {i} ({kind}, {id}): {} actions refused ({} writes), {} events before \
                 the store came back, {} after ({}), last seq {}",
                during[i],
                store.refused_appends(*id),
                stalled[i].events,
                after[i].events - stalled[i].events,
                if after[i].over { "over" } else { "NOT OVER" },
                after[i].seq,
            )
        })
        .collect();
    let report = report.join("\n");
    eprintln!(
        "outage {outage:?}, then waited {:?} for the ends:\n{report}",
        back.elapsed()
    );
    assert!(
        stalled.iter().all(|p| !p.over),
        "every game was still on when the store came back:\n{report}"
    );
    assert!(
        after.iter().all(|p| p.over),
        "every game reached game_over within {FINISH_WITHIN:?} of the store coming back \
         (outage {outage:?}):\n{report}"
    );
    assert!(
        during.iter().all(|n| *n >= 2),
        "every room's bots tried again after a refusal:\n{report}"
    );
    // A refused action changed nothing: each game's log holds exactly the actions
    // whose events were announced.
    for (i, (id, _)) in rooms.iter().enumerate() {
        let log = store.inner.actions(*id).await.expect("log");
        assert_eq!(log.len() as u64, after[i].events, "room {i}'s log");
    }
    server.stop().await;
}

/// A database that accepts connections and never answers. Each call is bounded
/// (`--store-timeout-ms`, 2 s by default): an action is refused with
/// `store_unavailable` within the bound, retries included; the room lists and
/// administrators' inspection answer from the rooms themselves in milliseconds
/// meanwhile; `/readyz` says not ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_store_refuses_actions_within_the_bound_and_holds_up_no_listing() {
    const TOKEN: &str = "admin-secret";
    let (url, _dir) = fresh_sqlite_url();
    let store = Arc::new(FaultyStore::new(
        SqlStore::connect(&url).await.expect("store"),
    ));
    let server =
        TestServer::start_with_store(|c| c.admin_token = Some(TOKEN.into()), store.clone()).await;
    let limit = catan_server::Config::for_tests().store.store_timeout();
    let created = server.create_room(json!({ "players": 3 })).await;
    let room = created.room_id;
    let mut clients = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        let seat = server.take_seat(room, name).await;
        clients.push(server.connect(room, Some(&seat.token), None).await);
    }
    server.start_game(room, &created.host_token).await;
    let mut first = None;
    for (i, c) in clients.iter_mut().enumerate() {
        let m = c
            .recv_until(|m| matches!(m, ServerMessage::Snapshot(s) if s.view.is_some()))
            .await;
        if let ServerMessage::Snapshot(s) = m
            && let Some(a) = s.legal.first()
        {
            first = Some((i, *a));
        }
    }
    let (i, action) = first.expect("someone acts first");

    store.hang.store(true, Ordering::SeqCst);
    let sent = Instant::now();
    clients[i]
        .send_json(&json!({ "type": "action", "request_id": "hung-1", "action": action }))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut figures = Vec::new();
    for path in ["/api/rooms".to_owned(), format!("/api/rooms/{room}")] {
        let t = Instant::now();
        let r = server
            .http
            .get(server.url(&path))
            .send()
            .await
            .expect("http");
        assert_eq!(r.status(), 200, "{path}");
        figures.push((path, t.elapsed()));
    }
    for path in ["/admin/rooms".to_owned(), format!("/admin/rooms/{room}")] {
        let t = Instant::now();
        let r = server.admin_get(&path).await;
        assert_eq!(r.status(), 200, "{path}");
        figures.push((path, t.elapsed()));
    }
    let t = Instant::now();
    let ready = server
        .http
        .get(server.url("/readyz"))
        .send()
        .await
        .expect("http");
    let readyz = t.elapsed();
    assert_eq!(ready.status(), 503, "not ready while the store hangs");
    let refused = clients[i]
        .recv_until(|m| matches!(m, ServerMessage::Rejected { .. }))
        .await;
    let refused_after = sent.elapsed();
    eprintln!(
        "while the store hangs: {figures:?}; /readyz 503 after {readyz:?}; \
         action refused after {refused_after:?}"
    );
    assert!(
        matches!(&refused, ServerMessage::Rejected { code, request_id, .. }
            if code == "store_unavailable" && request_id == "hung-1"),
        "{refused:?}"
    );
    for (path, took) in &figures {
        assert!(
            *took < Duration::from_millis(250),
            "{path} answered in {took:?} while the room waited for the store"
        );
    }
    assert!(
        readyz >= limit && readyz < limit + Duration::from_secs(1),
        "/readyz answered after {readyz:?}"
    );
    assert!(
        refused_after >= limit && refused_after < limit + Duration::from_secs(1),
        "refused after {refused_after:?}, the bound is {limit:?}"
    );

    store.hang.store(false, Ordering::SeqCst);
    let ready = server
        .http
        .get(server.url("/readyz"))
        .send()
        .await
        .expect("http");
    assert_eq!(ready.status(), 200, "ready once the store answers");
    clients[i]
        .send_json(&json!({ "type": "action", "request_id": "back-1", "action": action }))
        .await;
    let done = clients[i]
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Events {
                    request_id: Some(_),
                    ..
                } | ServerMessage::Rejected { .. }
            )
        })
        .await;
    assert!(
        matches!(&done, ServerMessage::Events { request_id: Some(r), .. } if r == "back-1"),
        "{done:?}"
    );
    server.stop().await;
}
