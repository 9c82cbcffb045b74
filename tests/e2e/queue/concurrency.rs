//! Formings, joins and party joins at one moment: nobody seated twice, every
//! join landing, a party never past three.

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use reqwest::Method;
use serde_json::json;

use super::call;

/// Nobody is seated twice, whichever forming wins: 40 players queued, then 24
/// tables of 3 drawn from them at random, overlapping, seated by concurrent
/// transactions (as instances of a cluster forming tables at once would). Every
/// player is seated at most once, the tables that won are disjoint, and each
/// player's row names the table that won them. On PostgreSQL, whose transactions
/// really run at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_formings_never_seat_a_player_twice() {
    use catan_server::store::{
        PlayerRow, QueueRow, QueueSeat, QueueStore, QueueTable, SqlStore, Store,
    };
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    use uuid::Uuid;

    let url = fresh_postgres_url().await;
    let store = Arc::new(SqlStore::connect(&url).await.expect("store"));
    let mut players = Vec::new();
    for i in 0..40u64 {
        let id = Uuid::new_v4();
        store
            .create_player(&PlayerRow {
                id,
                name: format!("P{i}"),
                password_hash: None,
                created_at: i,
                deleted: false,
            })
            .await
            .expect("player");
        let row = QueueRow {
            player_id: id,
            ticket: Uuid::new_v4(),
            name: format!("P{i}"),
            seats: 3,
            rated: false,
            bots_ok: false,
            rating: 1000,
            since: i,
            seated: None,
        };
        assert!(store.queue_join(&[row]).await.expect("queued"));
        players.push(id);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(28);
    let tables: Vec<(Uuid, Vec<Uuid>)> = (0..24)
        .map(|_| {
            let mut at = Vec::new();
            while at.len() < 3 {
                let p = players[rng.random_range(0..players.len())];
                if !at.contains(&p) {
                    at.push(p);
                }
            }
            (Uuid::new_v4(), at)
        })
        .collect();
    let tasks: Vec<_> = tables
        .iter()
        .cloned()
        .map(|(room, at)| {
            let store = store.clone();
            tokio::spawn(async move {
                let seats: Vec<(Uuid, QueueSeat)> = at
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        (
                            *p,
                            QueueSeat {
                                room_id: room,
                                seat: u8::try_from(i).expect("seat"),
                                token: format!("t{i}"),
                                at: 1,
                            },
                        )
                    })
                    .collect();
                // (The seats are written in the players' order: two formings
                // sharing players do not deadlock, so no error is expected.)
                let table = QueueTable {
                    room_id: room,
                    host_token: "h".into(),
                    seats: 3,
                    rated: false,
                    formed_at: 1,
                };
                let won = store
                    .queue_seat(&table, &seats)
                    .await
                    .expect("no error, no deadlock");
                (room, at, won)
            })
        })
        .collect();
    let mut won = Vec::new();
    for t in tasks {
        let (room, at, ok) = t.await.expect("task");
        if ok {
            won.push((room, at));
        }
    }
    assert!(!won.is_empty(), "some table won");
    let mut seated = std::collections::HashMap::new();
    for (room, at) in &won {
        for p in at {
            assert!(seated.insert(*p, *room).is_none(), "{p} seated twice");
        }
    }
    for p in &players {
        let row = store.queued(*p).await.expect("read").expect("still a row");
        assert_eq!(
            row.seated.map(|s| s.room_id),
            seated.get(p).copied(),
            "{p}'s row names the table that won them"
        );
    }
}

/// Many joining one party at the same moment: it never holds more than three
/// (each join waits for the one before it in the database), on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_party_joined_by_many_at_once_holds_three() {
    use catan_server::store::{PartyJoin, PlayerRow, QueueStore, SqlStore, Store};
    use std::sync::Arc;
    use uuid::Uuid;

    let url = fresh_postgres_url().await;
    let store = Arc::new(SqlStore::connect(&url).await.expect("store"));
    // Five parties, each joined by eleven at once (without the party's row held,
    // three runs of three failed).
    for round in 0..5u64 {
        let mut players = Vec::new();
        for i in 0..12u64 {
            let id = Uuid::new_v4();
            store
                .create_player(&PlayerRow {
                    id,
                    name: format!("P{round}-{i}"),
                    password_hash: None,
                    created_at: i,
                    deleted: false,
                })
                .await
                .expect("player");
            players.push(id);
        }
        let code = format!("PARTY{round}");
        store
            .party_create(&code, players[0], "P0", 1)
            .await
            .expect("party");
        let joins: Vec<_> = players[1..]
            .iter()
            .map(|p| {
                let (store, p, code) = (store.clone(), *p, code.clone());
                tokio::spawn(async move { store.party_join(&code, p, "x", 2, 3).await })
            })
            .collect();
        let mut joined = 0;
        for j in joins {
            match j.await.expect("task").expect("no error") {
                PartyJoin::Joined => joined += 1,
                PartyJoin::Full => {}
                PartyJoin::NotFound => panic!("the party exists"),
            }
        }
        assert_eq!(joined, 2, "round {round}: the leader and two more");
        let party = store
            .party_of(players[0])
            .await
            .expect("read")
            .expect("party");
        assert_eq!(party.members.len(), 3);
    }
}

/// Many joining at one moment on SQLite: every join lands (a join's transaction
/// writes first, so SQLite's one writer lock is waited for, not failed on; seen
/// as `store_unavailable` under the load generator's 20 joins a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn joins_at_one_moment_all_land_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let mut people = Vec::new();
    for i in 0..40 {
        people.push(server.guest(&format!("P{i}")).await.0);
    }
    let joins = futures_util::future::join_all(people.iter().map(|p| {
        call(
            &server,
            Method::POST,
            p,
            Some(json!({ "seats": 4, "bots": false })),
        )
    }))
    .await;
    for (status, body) in &joins {
        assert_eq!(*status, 201, "{body}");
    }
    server.stop().await;
}
