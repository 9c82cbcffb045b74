//! Quick play across a cluster (protocol 26.4, docs/cluster.md): three instances on
//! one PostgreSQL form tables from one queue, players joining at any of them; one
//! instance is killed (SIGKILL) while some of its tables are gathering, and more
//! players join meanwhile. In the end every player sits in exactly one game that
//! started (nobody seated twice, nobody lost), nobody waits, and no table is left
//! gathering: the killed instance's started games were taken over, its gathering
//! tables' players were given back to the queue and seated anew.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use catan_e2e::{TestServer, fresh_postgres_url};
use catan_protocol::{QueueStatus, RoomInfo, RoomStatus, SignedIn};
use catan_server::store::SqlStore;
use reqwest::Method;
use serde_json::json;
use sqlx::Row;
use uuid::Uuid;

use crate::cluster::instance_at_with;

/// The queue's settings of every instance: quick formings, no bots, a minute to
/// connect, tables given up after 6 s (so a lost table's players are given back
/// 21 s after it formed).
const QUEUE_ENV: [(&str, &str); 4] = [
    ("CATAN_QUEUE_TICK_MS", "200"),
    ("CATAN_QUEUE_BOTS_AFTER_SECS", "3600"),
    ("CATAN_QUEUE_CONNECT_SECS", "60"),
    ("CATAN_QUEUE_GIVE_UP_SECS", "6"),
];

async fn status(server: &TestServer, p: &SignedIn) -> Option<QueueStatus> {
    let (code, body, _) = server
        .call(Method::GET, "/api/queue", Some(&p.token), None)
        .await;
    match code {
        200 => Some(serde_json::from_value(body).expect("QueueStatus")),
        404 => None,
        _ => panic!("{code}: {body}"),
    }
}

async fn join(server: &TestServer, p: &SignedIn) {
    let (code, body, _) = server
        .call(
            Method::POST,
            "/api/queue",
            Some(&p.token),
            Some(json!({ "seats": 3, "bots": false })),
        )
        .await;
    assert_eq!(code, 201, "{body}");
}

async fn room(server: &TestServer, id: Uuid) -> Option<RoomInfo> {
    let (code, body, _) = server
        .call(Method::GET, &format!("/api/rooms/{id}"), None, None)
        .await;
    (code == 200).then(|| serde_json::from_value(body).expect("RoomInfo"))
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens `p`'s seat through `server` (which forwards to the room's owner).
async fn open_seat(server: &TestServer, room: Uuid, token: &str) -> Option<Socket> {
    let url = format!("ws://{}/api/rooms/{room}/ws?token={token}", server.addr);
    tokio_tungstenite::connect_async(url)
        .await
        .ok()
        .map(|(ws, _)| ws)
}

/// A person's client through `server`: in the queue until seated (joining again
/// if dropped), connected to their seat, until their game started: its room.
async fn play_through(server: &TestServer, p: &SignedIn, within: Duration) -> Uuid {
    let start = Instant::now();
    let mut open: Option<(Uuid, Socket)> = None;
    while start.elapsed() < within {
        match status(server, p).await {
            None => join(server, p).await,
            Some(QueueStatus {
                seated: Some(at), ..
            }) => {
                if open.as_ref().map(|(r, _)| *r) != Some(at.room_id) {
                    open = open_seat(server, at.room_id, &at.token)
                        .await
                        .map(|ws| (at.room_id, ws));
                }
                if open.is_some()
                    && room(server, at.room_id)
                        .await
                        .is_some_and(|r| r.status == RoomStatus::Playing)
                {
                    return at.room_id;
                }
            }
            Some(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{} had no game within {within:?}", p.player.name);
}

/// The instance's id (`instances.id`) that owns `room`'s lease.
async fn owner(plain: &SqlStore, room: Uuid) -> Option<String> {
    sqlx::query("SELECT owner FROM room_leases WHERE room_id = $1")
        .bind(room.to_string())
        .fetch_optional(plain.pool())
        .await
        .expect("lease")
        .map(|r| r.get("owner"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn quick_play_across_three_instances_loses_nobody_when_one_is_killed() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut servers = Vec::new();
    for name in ["a", "b", "c"] {
        servers.push(instance_at_with(&url, &plain, name, "2", &QUEUE_ENV).await);
    }
    // Thirty players join, ten at each instance: ten tables form.
    let mut people = Vec::new();
    for i in 0..30 {
        let s = &servers[i % 3];
        let p = s.guest(&format!("P{i}")).await.0;
        join(s, &p).await;
        people.push(p);
    }
    let mut seats = Vec::new();
    for p in &people {
        let deadline = Instant::now() + Duration::from_secs(20);
        let at = loop {
            if let Some(QueueStatus {
                seated: Some(at), ..
            }) = status(&servers[1], p).await
            {
                break at;
            }
            assert!(Instant::now() < deadline, "{} not seated", p.player.name);
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        seats.push(at);
    }
    let mut tables: BTreeMap<Uuid, Vec<usize>> = BTreeMap::new();
    for (i, at) in seats.iter().enumerate() {
        tables.entry(at.room_id).or_default().push(i);
    }
    assert_eq!(tables.len(), 10, "ten tables of three");
    // The players of every other table connect (their games start); the rest
    // gather. The victim is an instance that holds a gathering table.
    let mut held = Vec::new();
    let mut gathering_owners = BTreeSet::new();
    let mut sockets = Vec::new();
    for (n, (room, members)) in tables.iter().enumerate() {
        if n % 2 == 0 {
            for &i in members {
                let ws = open_seat(&servers[1], *room, &seats[i].token)
                    .await
                    .expect("seat opens");
                sockets.push(ws);
            }
        } else {
            held.push(*room);
            gathering_owners.insert(owner(&plain, *room).await.expect("leased"));
        }
    }
    let ids: Vec<String> = sqlx::query("SELECT id, address FROM instances ORDER BY address")
        .fetch_all(plain.pool())
        .await
        .expect("instances")
        .iter()
        .map(|r| {
            let (id, address): (String, String) = (r.get("id"), r.get("address"));
            let i = servers
                .iter()
                .position(|s| address == format!("http://{}", s.addr))
                .expect("an instance of the test");
            (i, id)
        })
        .collect::<BTreeMap<usize, String>>()
        .into_values()
        .collect();
    let victim = (0..3)
        .find(|i| gathering_owners.contains(&ids[*i]))
        .expect("some instance holds a gathering table");
    let mut victim_server = servers.remove(victim);
    victim_server.kill();
    let killed = Instant::now();
    eprintln!(
        "killed instance {victim} holding {} gathering table(s)",
        held.len()
    );

    // Fifteen more join at the survivors while everyone plays on through them.
    let servers = std::sync::Arc::new(servers);
    let mut tasks = Vec::new();
    for (i, p) in people.iter().cloned().enumerate() {
        let servers = servers.clone();
        tasks.push(tokio::spawn(async move {
            let s = &servers[i % 2];
            (
                p.player.id,
                play_through(s, &p, Duration::from_secs(90)).await,
            )
        }));
    }
    for i in 30..45 {
        let servers = servers.clone();
        tasks.push(tokio::spawn(async move {
            let s = &servers[i % 2];
            let p = s.guest(&format!("P{i}")).await.0;
            join(s, &p).await;
            (
                p.player.id,
                play_through(s, &p, Duration::from_secs(90)).await,
            )
        }));
    }
    let mut game_of = BTreeMap::new();
    for t in tasks {
        let (player, room) = t.await.expect("a player's client");
        game_of.insert(player, room);
    }
    eprintln!(
        "every player in a game {:?} after the kill",
        killed.elapsed()
    );
    drop(sockets);

    // Each player sits in exactly one game, the one their client reached.
    let rows =
        sqlx::query("SELECT game_id, player_id FROM game_players WHERE player_id IS NOT NULL")
            .fetch_all(plain.pool())
            .await
            .expect("games");
    let mut games: BTreeMap<Uuid, Vec<Uuid>> = BTreeMap::new();
    for r in &rows {
        let player = Uuid::parse_str(&r.get::<String, _>("player_id")).expect("uuid");
        let game = Uuid::parse_str(&r.get::<String, _>("game_id")).expect("uuid");
        games.entry(player).or_default().push(game);
    }
    assert_eq!(game_of.len(), 45);
    for (player, room) in &game_of {
        assert_eq!(
            games.get(player).map(Vec::as_slice),
            Some(&[*room][..]),
            "{player} in exactly one game"
        );
    }
    let waiting: i64 = sqlx::query("SELECT COUNT(*) AS n FROM queue_tickets WHERE room_id IS NULL")
        .fetch_one(plain.pool())
        .await
        .expect("count")
        .get("n");
    assert_eq!(waiting, 0, "nobody left waiting");
    let gathering: i64 = sqlx::query("SELECT COUNT(*) AS n FROM queue_tables WHERE started = 0")
        .fetch_one(plain.pool())
        .await
        .expect("count")
        .get("n");
    assert_eq!(gathering, 0, "no table left gathering");
    // The killed instance's gathering tables never started: their players sit
    // elsewhere now.
    for room in &held {
        if owner(&plain, *room).await.as_deref() == Some(ids[victim].as_str()) {
            assert!(
                !game_of.values().any(|r| r == room),
                "a lost table's room never started"
            );
        }
    }
}

/// Never in the queue and a room's lobby at once, across instances: a player
/// holding a seat in a room not yet started on one instance is refused the queue
/// at another (`seated_elsewhere`), and may join once they left the seat; the
/// question one instance asks another is refused to anyone else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_in_a_room_of_another_instance_keeps_a_player_out_of_the_queue() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let a = instance_at_with(&url, &plain, "a", "2", &QUEUE_ENV).await;
    let b = instance_at_with(&url, &plain, "b", "2", &QUEUE_ENV).await;
    let ann = a.guest("Ann").await.0;
    let room = a.create_room(json!({ "players": 4 })).await;
    let (code, seat, _) = a
        .call(
            Method::POST,
            &format!("/api/rooms/{}/seats", room.room_id),
            Some(&ann.token),
            Some(json!({ "name": "Ann" })),
        )
        .await;
    assert_eq!(code, 201, "{seat}");
    let (code, body, _) = b
        .call(
            Method::POST,
            "/api/queue",
            Some(&ann.token),
            Some(json!({ "seats": 4 })),
        )
        .await;
    assert_eq!(
        (code, body["error"]["code"].as_str()),
        (409, Some("seated_elsewhere")),
        "{body}"
    );
    assert!(status(&b, &ann).await.is_none(), "nothing queued");
    // The instances' own question, asked by someone else: refused.
    let (code, body, _) = b
        .call(
            Method::GET,
            &format!("/api/queue/gathering/{}", ann.player.id),
            Some(&ann.token),
            None,
        )
        .await;
    assert_eq!(code, 401, "{body}");
    // Left, the queue.
    let (code, body, _) = a
        .call(
            Method::DELETE,
            &format!("/api/rooms/{}/seats/{}", room.room_id, seat["seat"]),
            seat["token"].as_str(),
            None,
        )
        .await;
    assert_eq!(code, 204, "{body}");
    join(&b, &ann).await;
}
