//! Tables still gathering (protocol 26.4): who does not connect, and a table
//! whose instance died.

use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{QueueStatus, SignedIn};
use reqwest::Method;

use super::{call, join, playing, room_info, seated, sitting};

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

/// A server on `url` with quick formings, bots after 1 s, 1 s to connect.
async fn quick(url: &str) -> TestServer {
    TestServer::start_with(|c| {
        c.store.database_url = url.to_owned().into();
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 1;
        c.queue.queue_connect_secs = 1;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_does_not_connect_is_dropped_and_the_seat_refilled_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = quick(&url).await;
    drop_and_refill(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_does_not_connect_is_dropped_and_the_seat_refilled_on_postgres() {
    let server = quick(&fresh_postgres_url().await).await;
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
