//! The store contract: one set of contract functions, generic over [`Store`], run
//! against every implementation: SQLite (a file, the embedded default, and
//! `sqlite::memory:`), PostgreSQL (a fresh database per contract, on the server
//! `.ci/run` provides), and the test harness's fault-injecting wrapper, each behind
//! the wrapper the server puts around every store (bounds, retries, write timings).

use catan_engine::{Action, FinalScore, Seat};
use catan_protocol::{BotKind, RoomOptions};
use std::sync::Arc;

use catan_server::metrics::Metrics;
use catan_server::store::{
    ActionRecord, Finish, GameQuery, GameStatus, Guarded, LobbyRecord, NewGame, PlayerRecord,
    SqlStore, Store, StoreError, seed_commitment, sha256_hex,
};
use uuid::Uuid;

use std::time::Duration;

use catan_e2e::{FaultyStore, TestServer, fresh_postgres_url, fresh_sqlite_url};

fn options() -> RoomOptions {
    RoomOptions {
        game: catan_engine::GameOptions::default()
            .with_players(3)
            .with_vp_target(10)
            .with_map(catan_engine::MapKind::Random)
            .with_turn_limit(250),
        turn_timer_secs: 0,
        trade_timeout_secs: 60,
        discard_timeout_secs: 60,
        listed: true,
        spectators: true,
        ..RoomOptions::default()
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
                rating: None,
                seat: Seat(i as u8),
                name: (*n).to_owned(),
                bot: (i == 2).then_some(BotKind::Random),
                token_hash: sha256_hex(n),
                final_vp: None,
                vp_cards: None,
                player_id: None,
            })
            .collect(),
    }
}

fn action(seq: u64, seat: Option<u8>) -> ActionRecord {
    ActionRecord {
        stand_in: false,
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

/// A stored game whose log holds `action(0, Some(1))`.
async fn a_game_with_one_action<S: Store + ?Sized>(store: &S) -> NewGame {
    let g = new_game(["ann", "bob", "bot"], 1_000);
    store.create_game(&g).await.expect("create");
    store
        .append_action(g.id, &action(0, Some(1)))
        .await
        .expect("append");
    g
}

/// Rooms still gathering players come back as kept, replaced by a later write, gone
/// once dropped or once their game is created.
async fn contract_lobbies<S: Store + ?Sized>(store: &S) {
    assert!(store.lobbies().await.expect("lobbies").is_empty());
    let game = new_game(["ann", "bob", "bot"], 5_000);
    let mut lobby = LobbyRecord {
        id: game.id,
        options: game.options,
        host_token_hash: game.host_token_hash.clone(),
        created_at: game.created_at,
        players: game.players[..1].to_vec(),
        seq: 3,
    };
    store.save_lobby(&lobby).await.expect("kept");
    assert_eq!(store.lobbies().await.expect("lobbies"), vec![lobby.clone()]);
    // A bot sits down: the row is replaced, not doubled.
    lobby.players.push(game.players[2].clone());
    lobby.seq = 5;
    store.save_lobby(&lobby).await.expect("replaced");
    assert_eq!(store.lobbies().await.expect("lobbies"), vec![lobby.clone()]);
    // Another room, dropped again.
    let other = LobbyRecord {
        id: Uuid::new_v4(),
        created_at: 6_000,
        players: Vec::new(),
        ..lobby.clone()
    };
    store.save_lobby(&other).await.expect("kept");
    assert_eq!(store.lobbies().await.expect("lobbies").len(), 2);
    store.drop_lobby(other.id).await.expect("dropped");
    store
        .drop_lobby(other.id)
        .await
        .expect("dropping twice is nothing");
    // The first one starts: its game's row takes its place in one transaction.
    store.create_game(&game).await.expect("started");
    assert!(store.lobbies().await.expect("lobbies").is_empty());
}

/// Games, logs and results come back as stored.
async fn contract_games_logs_and_results<S: Store + ?Sized>(store: &S) {
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
    let dup = store.append_action(a.id, &action(3, Some(0))).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
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
    let records: Vec<ActionRecord> = (0..300).map(|i| action(i, Some(2))).collect();
    let appends = records.iter().map(|r| store.append_action(b.id, r));
    let again = action(0, Some(1));
    let duplicate = store.append_action(a.id, &again);
    let (results, dup) = tokio::join!(futures_util::future::join_all(appends), duplicate);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert!(
        matches!(dup, Err(StoreError::Conflict(_))),
        "the duplicate in the batch is refused: {dup:?}"
    );
    let log_b = store.actions(b.id).await.expect("actions");
    assert_eq!(
        log_b,
        (0..300).map(|i| action(i, Some(2))).collect::<Vec<_>>()
    );
    assert_eq!(store.actions(a.id).await.expect("actions").len(), 5);

    // Sequence numbers reserved for a room's broadcasts: never lowered.
    store.reserve_seq(a.id, 1_000).await.expect("reserve");
    store.reserve_seq(a.id, 500).await.expect("reserve less");
    let unfinished = store.unfinished_games().await.expect("unfinished");
    assert_eq!(unfinished.len(), 2);
    assert_eq!(
        (unfinished[0].seq_reserved, unfinished[1].seq_reserved),
        (Some(1_000), None)
    );
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
                rated: None,
                winner: Some(Seat(0)),
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
                rated: None,
                winner: Some(Seat(1)),
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
            player_id: None,
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
            player_id: None,
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
            player_id: None,
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

    let got = store.game(a.id).await.expect("get");
    assert_eq!(got.status, GameStatus::Finished);
    let fin = got.finished.expect("finished");
    assert_eq!(fin.winner, Some(Seat(0)));
    assert_eq!(fin.scores, scores(0));
    assert_eq!(got.players[0].final_vp, Some(10));
    assert_eq!(got.players[2].vp_cards, Some(2));
}

/// A game the turn limit ended (R-10.5) is finished with a NULL winner: listed among
/// the finished games, with its scores, and read back with no winner.
async fn contract_a_result_without_a_winner<S: Store + ?Sized>(store: &S) {
    let g = new_game(["ann", "bob", "bot"], 1_000);
    store.create_game(&g).await.expect("create");
    let scores: Vec<FinalScore> = (0..3)
        .map(|s| FinalScore {
            seat: Seat(s),
            points: 12 + s,
            vp_cards: s,
        })
        .collect();
    let finish = Finish {
        rated: None,
        winner: None,
        finished_at: 9_000,
        scores: scores.clone(),
    };
    store.finish_game(g.id, &finish).await.expect("finish");
    let got = store.game(g.id).await.expect("get");
    assert_eq!(got.status, GameStatus::Finished);
    assert_eq!(got.finished, Some(finish));
    assert_eq!(
        got.game.options.game.turn_limit, 250,
        "the option is stored"
    );
    assert_eq!(got.players[1].final_vp, Some(13));
    let listed = store
        .finished_games(&GameQuery {
            player_id: None,
            player: None,
            offset: 0,
            limit: 10,
        })
        .await
        .expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].finished.as_ref().map(|f| f.winner), Some(None));
    assert!(
        store
            .unfinished_games()
            .await
            .expect("unfinished")
            .is_empty()
    );
}

/// Reading what no game has is `NotFound`, with no error for an empty log.
async fn contract_a_missing_game_is_not_found<S: Store + ?Sized>(store: &S) {
    let missing = store.game(Uuid::new_v4()).await;
    assert!(
        matches!(missing, Err(StoreError::NotFound(_))),
        "{missing:?}"
    );
    assert_eq!(store.actions(Uuid::new_v4()).await.expect("log"), vec![]);
    // An action of a game that is not stored refers to nothing.
    let orphan = store.append_action(Uuid::new_v4(), &action(0, None)).await;
    assert!(matches!(orphan, Err(StoreError::NotFound(_))), "{orphan:?}");
}

/// A taken key is a `Conflict`: the same game twice, the same action index twice.
async fn contract_duplicates_conflict<S: Store + ?Sized>(store: &S) {
    let g = new_game(["ann", "bob", "bot"], 1_000);
    store.create_game(&g).await.expect("create");
    let again = store.create_game(&g).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    store
        .append_action(g.id, &action(0, Some(1)))
        .await
        .expect("append");
    let dup = store.append_action(g.id, &action(0, Some(2))).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    assert_eq!(
        store.actions(g.id).await.expect("log"),
        vec![action(0, Some(1))]
    );
}

/// A stored value that does not decode is `Corrupt`, not a missing game or an
/// unreachable database. `url` reaches the store's database directly.
async fn contract_a_corrupt_row_is_corrupt<S: Store + ?Sized>(store: &S, url: &str) {
    use sqlx::Connection;
    let g = a_game_with_one_action(store).await;
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(url)
        .await
        .expect("direct connection");
    sqlx::query("UPDATE game_actions SET action = '{\"not an action' WHERE game_id = $1")
        .bind(g.id.to_string())
        .execute(&mut db)
        .await
        .expect("garbage action");
    let log = store.actions(g.id).await;
    assert!(matches!(log, Err(StoreError::Corrupt(_))), "{log:?}");
    sqlx::query("UPDATE games SET options = 'garbage' WHERE id = $1")
        .bind(g.id.to_string())
        .execute(&mut db)
        .await
        .expect("garbage options");
    let game = store.game(g.id).await;
    assert!(matches!(game, Err(StoreError::Corrupt(_))), "{game:?}");
    let unfinished = store.unfinished_games().await;
    assert!(
        matches!(unfinished, Err(StoreError::Corrupt(_))),
        "{unfinished:?}"
    );
}

/// A store whose database is gone answers `Unavailable` to every call.
async fn contract_a_gone_database_is_unavailable<S: Store + ?Sized>(gone: &S) {
    fn unavailable<T: std::fmt::Debug>(r: Result<T, StoreError>, call: &str) {
        assert!(
            matches!(r, Err(StoreError::Unavailable(_))),
            "{call}: {r:?}"
        );
    }
    let g = new_game(["ann", "bob", "bot"], 1_000);
    unavailable(gone.health().await, "health");
    unavailable(gone.create_game(&g).await, "create_game");
    unavailable(
        gone.append_action(g.id, &action(0, None)).await,
        "append_action",
    );
    unavailable(gone.game(g.id).await, "game");
    unavailable(gone.actions(g.id).await, "actions");
    unavailable(gone.unfinished_games().await, "unfinished_games");
    unavailable(gone.abandon_game(g.id).await, "abandon_game");
    unavailable(gone.reserve_seq(g.id, 1).await, "reserve_seq");
}

/// One implementation under test, on a fresh database.
struct Subject {
    /// The store, as the server sees it (behind its wrapper).
    store: Arc<dyn Store>,
    /// The SQL store underneath, to close it.
    sql: SqlStore,
    /// Its database's URL, when another connection can reach it.
    url: Option<String>,
    /// Keeps an SQLite file's directory.
    _dir: Option<tempfile::TempDir>,
}

/// The implementations.
#[derive(Debug, Clone, Copy)]
enum Kind {
    SqliteFile,
    SqliteMemory,
    Postgres,
    Faulty,
}

async fn open(kind: Kind) -> Subject {
    let (url, dir) = match kind {
        Kind::SqliteFile | Kind::Faulty => {
            let (url, dir) = fresh_sqlite_url();
            (url, Some(dir))
        }
        Kind::SqliteMemory => ("sqlite::memory:".to_owned(), None),
        Kind::Postgres => (fresh_postgres_url().await, None),
    };
    let sql = SqlStore::connect(&url).await.expect("connect");
    let inner: Arc<dyn Store> = match kind {
        Kind::Faulty => Arc::new(FaultyStore::new(sql.clone())),
        _ => Arc::new(sql.clone()),
    };
    Subject {
        store: Arc::new(Guarded::new(
            inner,
            catan_server::Config::for_tests().store.store_timeout(),
            Arc::new(Metrics::default()),
        )),
        sql,
        url: (!matches!(kind, Kind::SqliteMemory)).then_some(url),
        _dir: dir,
    }
}

/// Every contract against `kind`, each on a fresh database.
async fn every_contract(kind: Kind) {
    contract_games_logs_and_results(&*open(kind).await.store).await;
    contract_a_missing_game_is_not_found(&*open(kind).await.store).await;
    contract_duplicates_conflict(&*open(kind).await.store).await;
    contract_a_result_without_a_winner(&*open(kind).await.store).await;
    contract_lobbies(&*open(kind).await.store).await;
    let s = open(kind).await;
    if let Some(url) = &s.url {
        contract_a_corrupt_row_is_corrupt(&*s.store, url).await;
    }
    let s = open(kind).await;
    s.sql.close();
    contract_a_gone_database_is_unavailable(&*s.store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_file_store_keeps_the_contract() {
    every_contract(Kind::SqliteFile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_sqlite_store_keeps_the_contract() {
    every_contract(Kind::SqliteMemory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_store_keeps_the_contract() {
    every_contract(Kind::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fault_injecting_store_keeps_the_contract_when_it_injects_nothing() {
    every_contract(Kind::Faulty).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_cannot_be_reached_at_start_up_is_unavailable() {
    // Nothing listens on port 1.
    let pg = SqlStore::connect("postgres://postgres@127.0.0.1:1/catan").await;
    assert!(matches!(pg, Err(StoreError::Unavailable(_))), "{pg:?}");
    let sqlite = SqlStore::connect("sqlite:///nonexistent-catan-dir/catan.db").await;
    assert!(
        matches!(sqlite, Err(StoreError::Unavailable(_))),
        "{sqlite:?}"
    );
}

/// Forwards every connection to `port` on 127.0.0.1 to `to`, once `listener` is
/// handed in (until then the port refuses connections).
async fn forward(listener: tokio::net::TcpListener, to: std::net::SocketAddr) {
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else {
            return;
        };
        tokio::spawn(async move {
            if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            }
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_before_its_postgres_waits_for_it_instead_of_exiting() {
    let url = fresh_postgres_url().await;
    let parsed = url::Url::parse(&url).expect("url");
    let real: std::net::SocketAddr = format!(
        "{}:{}",
        parsed.host_str().expect("host"),
        parsed.port().unwrap_or(5432)
    )
    .parse()
    .expect("address");
    // A port where nothing listens yet: the database "starts" only in 7 s, past the
    // pool's own 5 s of trying.
    let port = {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        l.local_addr().unwrap().port()
    };
    let mut late = parsed.clone();
    late.set_port(Some(port)).unwrap();
    let mut server = TestServer::spawn_process(late.as_str());
    tokio::time::sleep(Duration::from_secs(7)).await;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("the port is still free");
    tokio::spawn(forward(listener, real));
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .unwrap_or_else(|out| {
            panic!(
                "the server did not wait for its database:\n{}",
                out.join("\n")
            )
        });
    let out = server.output.lock().unwrap().join("\n");
    assert!(
        out.contains("database not reachable yet; retrying"),
        "each failed attempt is logged with its wait:\n{out}"
    );
    let room = server.create_room(serde_json::json!({})).await;
    assert!(!room.host_token.is_empty(), "the server serves");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reopened_sqlite_file_applies_no_migration_twice_and_finds_the_data() {
    let (url, _dir) = fresh_sqlite_url();
    contract_games_logs_and_results(&SqlStore::connect(&url).await.expect("sqlite")).await;
    // Reopening the same file applies no migration twice and finds the data.
    let again = SqlStore::connect(&url).await.expect("reopen");
    assert_eq!(
        again
            .finished_games(&GameQuery {
                player_id: None,
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
async fn a_reopened_postgres_database_applies_no_migration_twice_and_finds_the_data() {
    let url = fresh_postgres_url().await;
    contract_games_logs_and_results(&SqlStore::connect(&url).await.expect("postgres")).await;
    let again = SqlStore::connect(&url).await.expect("reopen");
    assert_eq!(
        again
            .finished_games(&GameQuery {
                player_id: None,
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

/// The SQLite file's action log is written on a connection of the writer's own with
/// a prepared statement (before: through sqlx, the batch as one JSON array taken
/// apart by SQLite). The rows must be those the previous statement stored, value
/// and type alike: here the same actions go to one game through the store and to
/// another through the previous release's statement, and the rows are compared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_file_writer_stores_the_rows_the_previous_statement_stored() {
    use sqlx::Row as _;
    let s = open(Kind::SqliteFile).await;
    let (ours, previous) = (
        new_game(["ann", "bob", "bot"], 1_000),
        new_game(["cy", "di", "bot"], 1_000),
    );
    s.store.create_game(&ours).await.expect("create");
    s.store.create_game(&previous).await.expect("create");
    let mut actions = vec![action(0, Some(1)), action(1, None), action(2, Some(0))];
    actions[2].stand_in = true;
    actions[2].action = Action::BuildRoad {
        edge: catan_engine::EdgeId(17),
    };
    // One at a time and all at once (a batch of one and a batch of several).
    s.store
        .append_action(ours.id, &actions[0])
        .await
        .expect("append");
    let rest = futures_util::future::join_all(
        actions[1..]
            .iter()
            .map(|a| s.store.append_action(ours.id, a)),
    )
    .await;
    assert!(rest.iter().all(Result::is_ok), "{rest:?}");
    // The statement of the previous release, as it ran.
    let rows: Vec<serde_json::Value> = actions
        .iter()
        .map(|a| {
            serde_json::json!({
                "game_id": previous.id, "seq": a.seq, "room_seq": a.room_seq,
                "seat": a.seat.map(|s| s.0), "action": serde_json::to_string(&a.action).unwrap(),
                "created_at": a.at, "stand_in": i64::from(a.stand_in),
            })
        })
        .collect();
    sqlx::query(
        "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at, stand_in) \
         SELECT json_extract(value, '$.game_id'), json_extract(value, '$.seq'), \
         json_extract(value, '$.room_seq'), json_extract(value, '$.seat'), \
         json_extract(value, '$.action'), json_extract(value, '$.created_at'), \
         json_extract(value, '$.stand_in') FROM json_each($1)",
    )
    .bind(serde_json::to_string(&rows).unwrap())
    .execute(s.sql.pool())
    .await
    .expect("the previous statement");
    let read = |game: Uuid| {
        let pool = s.sql.pool().clone();
        async move {
            sqlx::query(
                "SELECT typeof(game_id) || ' ' || seq || ' ' || typeof(seq) || ' ' || room_seq \
                 || ' ' || typeof(room_seq) || ' ' || coalesce(seat, 'null') || ' ' || typeof(seat) \
                 || ' ' || action || ' ' || typeof(action) || ' ' || created_at || ' ' \
                 || typeof(created_at) || ' ' || stand_in || ' ' || typeof(stand_in) AS r \
                 FROM game_actions WHERE game_id = $1 ORDER BY seq",
            )
            .bind(game.to_string())
            .fetch_all(&pool)
            .await
            .expect("rows")
            .iter()
            .map(|r| r.get::<String, _>("r"))
            .collect::<Vec<_>>()
        }
    };
    let (mine, theirs) = (read(ours.id).await, read(previous.id).await);
    assert_eq!(mine.len(), 3, "{mine:?}");
    assert_eq!(mine, theirs);
    assert!(mine[1].contains(" null null "), "no seat: {}", mine[1]);
    assert_eq!(s.store.actions(ours.id).await.expect("log"), actions);
}

/// A file name written with `%XX` in the URL (as sqlx reads it) is the one file the
/// whole store uses: the action log's writer (a connection of its own) and the lock
/// name the file the pool opened, not a second one spelled as in the URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sqlite_file_named_with_an_escape_holds_the_action_log() {
    let dir = tempfile::TempDir::new().expect("dir");
    let url = format!("sqlite://{}/my%20games.db", dir.path().display());
    let store = SqlStore::connect(&url).await.expect("connect");
    let g = a_game_with_one_action(&store).await;
    assert_eq!(
        store.actions(g.id).await.expect("log"),
        vec![action(0, Some(1))]
    );
    assert!(dir.path().join("my games.db").exists());
    assert!(!dir.path().join("my%20games.db").exists());
}
