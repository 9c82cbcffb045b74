//! Games over days in a cluster (docs/cluster.md, "Games over days that sleep";
//! protocol 27.5): a room that falls asleep lets its lease go and is taken over by
//! nobody; the instance a call reaches wakes it and claims it; a sleeping game's
//! deadline that comes while its last owner is dead fires on one instance, once;
//! and an awake room's deadline that passed while its owner was dead fires once on
//! the instance that takes it over.

use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url};
use catan_protocol::ServerMessage;
use catan_server::store::SqlStore;
use sqlx::Row;
use uuid::Uuid;

use crate::cluster::instance_at_with;
use crate::days::{a_time_out, held, hour_a_move, joined, two_hours_back, until_held};

/// The environment of the instances here: rooms sleep a second after everyone
/// left; leases of two seconds.
const ENV: [(&str, &str); 2] = [
    ("CATAN_SLEEP_AFTER_SECS", "1"),
    ("CATAN_ADMIN_TOKEN", "admin-secret-for-tests"),
];

/// An instance named `name` of the cluster on `url`.
async fn instance(url: &str, plain: &SqlStore, name: &str) -> TestServer {
    instance_at_with(url, plain, name, "2", &ENV).await
}

/// The lease row of `room`: its owner's id, epoch, and whether it is unexpired.
async fn lease(plain: &SqlStore, room: Uuid) -> (String, i64, bool) {
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis(),
    )
    .expect("ms");
    let row = sqlx::query("SELECT owner, epoch, expires_at FROM room_leases WHERE room_id = $1")
        .bind(room.to_string())
        .fetch_one(plain.pool())
        .await
        .expect("a lease row");
    let expires: i64 = row.get("expires_at");
    (row.get("owner"), row.get("epoch"), expires >= now)
}

/// Whether the store marks `room`'s game asleep.
async fn asleep(plain: &SqlStore, room: Uuid) -> bool {
    let row = sqlx::query("SELECT slept_seq FROM games WHERE id = $1")
        .bind(room.to_string())
        .fetch_one(plain.pool())
        .await
        .expect("the game");
    row.get::<Option<i64>, _>("slept_seq").is_some()
}

/// A lease let go (a room put to sleep) is not renewed by a beat that listed the
/// room before it went: the beat's renewal used to bring the sleeping room's lease
/// back to life for a lease (seen as a failure of the test below, now and then).
#[tokio::test]
async fn a_lease_let_go_is_not_renewed_by_a_beat_that_listed_it_before() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let fence = std::sync::Arc::new(catan_server::store::Fence::new(
        "instance-a".into(),
        Duration::from_secs(3),
    ));
    let leases = catan_server::store::Leases::new(
        plain.pool().clone(),
        secrecy::SecretString::from(url.clone()),
        fence,
    );
    let room = Uuid::new_v4();
    leases.lease_room(room).await.expect("leased");
    let renewed = leases.renew(&[room]).await.expect("renewed");
    assert_eq!(renewed.get(&room), Some(&1), "a lease held is renewed");
    leases.release(room, 1).await.expect("let go");
    let renewed = leases.renew(&[room]).await.expect("renewed");
    assert_eq!(renewed.get(&room), None, "a lease let go is not renewed");
    let (_, _, live) = lease(&plain, room).await;
    assert!(!live, "it stays let go");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_room_has_no_owner_and_wakes_on_the_instance_a_call_reaches() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance(&url, &plain, "a").await;
    let b = instance(&url, &plain, "b").await;
    let (room, seats) = hour_a_move(&a).await;
    let (_, epoch, live) = lease(&plain, room).await;
    assert!(live, "A owns the started room");
    // Ann was there, then left; the room falls asleep on A and lets its lease go.
    let (ann, s) = joined(&a, room, Some(&seats[0].token)).await;
    drop(ann);
    assert!(until_held(&a, room, false, 100, 100).await, "asleep on A");
    assert!(asleep(&plain, room).await);
    let (_, _, live) = lease(&plain, room).await;
    assert!(!live, "a sleeping room's lease is let go");
    // Three leases later nobody has taken it over: claims pass sleeping games by.
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(
        !held(&a, room).await && !held(&b, room).await,
        "nobody woke it"
    );
    assert!(asleep(&plain, room).await, "still asleep");

    // A call reaches B: B wakes the room and owns it, under a new epoch.
    let r = b
        .http
        .get(b.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200);
    assert!(held(&b, room).await && !held(&a, room).await, "awake on B");
    let (owner, woken_epoch, live) = lease(&plain, room).await;
    assert!(
        live && woken_epoch > epoch,
        "B claimed it: epoch {woken_epoch}"
    );
    assert!(!asleep(&plain, room).await);
    // Ann reconnects through A (passed on to B) with the number she had, and
    // resumes as if the room had never slept; her move is numbered on.
    let mut ann = a.connect(room, Some(&seats[0].token), Some(s.seq)).await;
    let ServerMessage::Resumed { seq, .. } = ann
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Resumed { .. } | ServerMessage::Snapshot(_)
            )
        })
        .await
    else {
        panic!("a snapshot instead of resumed: {:?}", ann.received);
    };
    assert!(seq > s.seq);
    let stays = lease(&plain, room).await;
    assert_eq!((stays.0, stays.1), (owner, woken_epoch), "one owner since");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_games_deadline_fires_once_on_the_cluster_when_its_last_owner_is_dead() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut a = instance(&url, &plain, "a").await;
    let (room, seats) = hour_a_move(&a).await;
    assert!(until_held(&a, room, false, 100, 100).await, "asleep on A");
    // A dies; the move's hour passes meanwhile (the stored times moved back).
    a.kill();
    two_hours_back(&url).await;
    // Two instances look for the deadline: one claims the room and fires it.
    let b = instance(&url, &plain, "b").await;
    let c = instance(&url, &plain, "c").await;
    let (on_b, on_c) = tokio::join!(
        until_held(&b, room, true, 100, 50),
        until_held(&c, room, true, 100, 50)
    );
    assert!(on_b || on_c, "a deadline woke the room");
    let other = if held(&b, room).await { &c } else { &b };
    assert!(!held(other, room).await, "on one instance only");
    // Through the other instance (passed on to the owner): one seat timed out,
    // once, and only that seat's move was made by a stand-in.
    let mut ann = other.connect(room, Some(&seats[0].token), None).await;
    a_time_out(&mut ann, None).await;
    drop(ann);
    let s = crate::days::spectator_snapshot(other, room).await;
    let timed_out: Vec<_> = s.clocks.iter().filter(|k| k.time_outs > 0).collect();
    assert_eq!(timed_out.len(), 1, "{:?}", s.clocks);
    assert_eq!(timed_out[0].time_outs, 1, "fired once");
    let seats_standing_in: Vec<i64> =
        sqlx::query("SELECT DISTINCT seat FROM game_actions WHERE game_id = $1 AND stand_in <> 0")
            .bind(room.to_string())
            .fetch_all(plain.pool())
            .await
            .expect("stand-ins")
            .iter()
            .map(|r| r.get("seat"))
            .collect();
    assert_eq!(
        seats_standing_in,
        [i64::from(timed_out[0].seat.0)],
        "only the timed-out seat's move was made for it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_awake_days_rooms_passed_deadline_fires_once_on_the_instance_that_takes_it_over() {
    // Rooms kept awake here (no sleep): the room is taken over by the lease's
    // expiry, as any room of a dead owner, and its clock comes from the log.
    let env = [
        ("CATAN_SLEEP_AFTER_SECS", "0"),
        ("CATAN_ADMIN_TOKEN", "admin-secret-for-tests"),
    ];
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut a = instance_at_with(&url, &plain, "a", "2", &env).await;
    let (room, seats) = hour_a_move(&a).await;
    let (_, epoch, _) = lease(&plain, room).await;
    a.kill();
    two_hours_back(&url).await;
    let b = instance_at_with(&url, &plain, "b", "2", &env).await;
    assert!(
        until_held(&b, room, true, 200, 50).await,
        "B took the room over once its lease expired"
    );
    let (_, taken, _) = lease(&plain, room).await;
    assert!(taken > epoch);
    let mut ann = b.connect(room, Some(&seats[0].token), None).await;
    a_time_out(&mut ann, None).await;
    drop(ann);
    let s = crate::days::spectator_snapshot(&b, room).await;
    let time_outs: u32 = s.clocks.iter().map(|k| k.time_outs).sum();
    assert_eq!(
        time_outs, 1,
        "the passed deadline fired once: {:?}",
        s.clocks
    );
}
