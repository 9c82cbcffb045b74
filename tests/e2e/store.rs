//! The store contract, run against both databases: SQLite (the embedded default) and
//! PostgreSQL (a fresh database per test, on the server `.ci/run` provides).

use catan_engine::{Action, FinalScore, Seat};
use catan_protocol::{BotKind, RoomOptions};
use catan_server::store::{
    ActionRecord, Finish, GameQuery, GameStatus, NewGame, PlayerRecord, SqlStore, Store,
    seed_commitment, sha256_hex,
};
use uuid::Uuid;

use catan_e2e::{fresh_postgres_url, fresh_sqlite_url};

fn options() -> RoomOptions {
    RoomOptions {
        game: catan_engine::GameOptions {
            players: 3,
            vp_target: 10,
            map: catan_engine::MapKind::Random,
        },
        turn_timer_secs: 0,
        trade_timeout_secs: 60,
        discard_timeout_secs: 60,
        listed: true,
        spectators: true,
    }
}

fn new_game(names: [&str; 3], started_at: u64) -> NewGame {
    NewGame {
        id: Uuid::new_v4(),
        options: options(),
        seed: 12_345_678_901_234,
        seed_salt: "salt".into(),
        seed_commitment: seed_commitment(12_345_678_901_234, "salt"),
        host_token_hash: sha256_hex("host"),
        created_at: started_at - 10,
        started_at,
        players: names
            .iter()
            .enumerate()
            .map(|(i, n)| PlayerRecord {
                seat: Seat(i as u8),
                name: (*n).to_owned(),
                bot: (i == 2).then_some(BotKind::Random),
                token_hash: sha256_hex(n),
                final_vp: None,
                vp_cards: None,
            })
            .collect(),
    }
}

fn action(seq: u64, seat: Option<u8>) -> ActionRecord {
    ActionRecord {
        seq,
        room_seq: seq * 2 + 1,
        seat: seat.map(Seat),
        action: if seat.is_some() {
            Action::RollDice
        } else {
            Action::TimeOut
        },
        at: 1_000 + seq,
    }
}

async fn contract(store: SqlStore) {
    store.health().await.expect("healthy");
    let a = new_game(["ann", "bob", "bot"], 1_000);
    let b = new_game(["cyd", "ann", "bot"], 2_000);
    store.create_game(&a).await.expect("create a");
    store.create_game(&b).await.expect("create b");

    for i in 0..5 {
        store
            .append_action(a.id, &action(i, (i % 2 == 0).then_some(1)))
            .await
            .expect("append");
    }
    // The log is append-only with a unique (game, seq): a duplicate is refused.
    assert!(
        store
            .append_action(a.id, &action(3, Some(0)))
            .await
            .is_err()
    );
    let log = store.actions(a.id).await.expect("actions");
    assert_eq!(
        log,
        (0..5)
            .map(|i| action(i, (i % 2 == 0).then_some(1)))
            .collect::<Vec<_>>()
    );

    // Appends from many rooms at once are written together (group commit, in
    // statements of several shapes inside one transaction); a duplicate among them is
    // refused on its own and every other one is stored exactly once.
    let appends = (0..300u64).map(|i| {
        let store = store.clone();
        async move { store.append_action(b.id, &action(i, Some(2))).await }
    });
    let again = action(0, Some(1));
    let duplicate = store.append_action(a.id, &again);
    let (results, dup) = tokio::join!(futures_util::future::join_all(appends), duplicate);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert!(dup.is_err(), "the duplicate in the batch is refused");
    let log_b = store.actions(b.id).await.expect("actions");
    assert_eq!(
        log_b,
        (0..300).map(|i| action(i, Some(2))).collect::<Vec<_>>()
    );
    assert_eq!(store.actions(a.id).await.expect("actions").len(), 5);

    let unfinished = store.unfinished_games().await.expect("unfinished");
    assert_eq!(unfinished.len(), 2);
    assert!(unfinished.iter().all(|g| g.status == GameStatus::Playing));
    assert_eq!(
        unfinished[0].game, a,
        "everything stored at the start comes back"
    );
    assert_eq!(unfinished[0].players[2].bot, Some(BotKind::Random));

    let scores = |w: u8| {
        (0..3)
            .map(|s| FinalScore {
                seat: Seat(s),
                points: if s == w { 10 } else { 4 },
                vp_cards: s,
            })
            .collect::<Vec<_>>()
    };
    store
        .finish_game(
            a.id,
            &Finish {
                winner: Seat(0),
                finished_at: 5_000,
                scores: scores(0),
            },
        )
        .await
        .expect("finish a");
    store
        .finish_game(
            b.id,
            &Finish {
                winner: Seat(1),
                finished_at: 6_000,
                scores: scores(1),
            },
        )
        .await
        .expect("finish b");
    assert!(
        store
            .unfinished_games()
            .await
            .expect("unfinished")
            .is_empty()
    );

    let all = store
        .finished_games(&GameQuery {
            player: None,
            offset: 0,
            limit: 10,
        })
        .await
        .expect("list");
    assert_eq!(
        all.iter().map(|g| g.game.id).collect::<Vec<_>>(),
        vec![b.id, a.id],
        "newest first"
    );
    let page2 = store
        .finished_games(&GameQuery {
            player: None,
            offset: 1,
            limit: 1,
        })
        .await
        .expect("page");
    assert_eq!(page2.len(), 1);
    assert_eq!(page2[0].game.id, a.id);
    let bobs = store
        .finished_games(&GameQuery {
            player: Some("bob".into()),
            offset: 0,
            limit: 10,
        })
        .await
        .expect("filter");
    assert_eq!(
        bobs.iter().map(|g| g.game.id).collect::<Vec<_>>(),
        vec![a.id]
    );

    let got = store.game(a.id).await.expect("get").expect("exists");
    assert_eq!(got.status, GameStatus::Finished);
    let fin = got.finished.expect("finished");
    assert_eq!(fin.winner, Seat(0));
    assert_eq!(fin.scores, scores(0));
    assert_eq!(got.players[0].final_vp, Some(10));
    assert_eq!(got.players[2].vp_cards, Some(2));
    assert!(store.game(Uuid::new_v4()).await.expect("get").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_store_keeps_games_logs_and_results() {
    let (url, _dir) = fresh_sqlite_url();
    contract(SqlStore::connect(&url).await.expect("sqlite")).await;
    // Reopening the same file applies no migration twice and finds the data.
    let again = SqlStore::connect(&url).await.expect("reopen");
    assert_eq!(
        again
            .finished_games(&GameQuery {
                player: None,
                offset: 0,
                limit: 10
            })
            .await
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_store_keeps_games_logs_and_results() {
    let url = fresh_postgres_url().await;
    contract(SqlStore::connect(&url).await.expect("postgres")).await;
    let again = SqlStore::connect(&url).await.expect("reopen");
    assert_eq!(
        again
            .finished_games(&GameQuery {
                player: None,
                offset: 0,
                limit: 10
            })
            .await
            .unwrap()
            .len(),
        2
    );
}
