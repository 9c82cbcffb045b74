//! Players, ratings and moderation as an earlier version stored them, read by this
//! one: the rows of `tests/fixtures/stored_players_v2.sql` (an account and a guest
//! with their sessions, a finished rated game with its rating changes, a rated game
//! in progress whose seats are the two players', a mute and its audit row) are
//! loaded into a fresh database of the current schema (SQLite, and PostgreSQL); the
//! server starts on it and everything is as it was: the finished game lists with its
//! players and rating changes, the profile shows the rating, the account signs in
//! with its password and the guest's session still works, the mute still holds, and
//! the game in progress comes back with its players' seats and plays to its end,
//! rated once more.
//!
//! The fixture is written by the ignored test below from the current code; a
//! committed fixture is never rewritten (a later version's goes to a new file).

use std::collections::HashMap;
use std::time::Duration;

use catan_e2e::{Client, TestServer, fresh_postgres_url, fresh_sqlite_url, play_randomly};
use catan_protocol::{GameStatus, GameSummary, PlayerProfile, ServerMessage};
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::{Column, Connection, Row};
use uuid::Uuid;

/// The fixture, relative to this crate (`tests/`).
const FIXTURE: &str = "fixtures/stored_players_v2.sql";

/// The account's password (the fixture stores only its Argon2id hash).
const PASSWORD: &str = "correct horse battery";

/// The admin token of the servers here.
const ADMIN: &str = "stored-players-admin";

/// The tables the fixture holds, in an order their references allow.
const TABLES: [&str; 8] = [
    "players",
    "sessions",
    "games",
    "game_players",
    "game_actions",
    "rating_changes",
    "sanctions",
    "moderation_log",
];

/// The fixture: its statements and the secrets and ids its header names.
struct Fixture {
    statements: Vec<String>,
    header: HashMap<String, String>,
}

impl Fixture {
    fn read() -> Fixture {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let mut f = Fixture {
            statements: Vec::new(),
            header: HashMap::new(),
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("-- value ") {
                let (k, v) = rest.split_once(' ').expect("-- value KEY VALUE");
                f.header.insert(k.to_owned(), v.to_owned());
            } else if line.starts_with("INSERT ") || line.starts_with("UPDATE ") {
                f.statements.push(line.trim_end_matches(';').to_owned());
            }
        }
        f
    }

    fn get(&self, key: &str) -> &str {
        self.header
            .get(key)
            .unwrap_or_else(|| panic!("the fixture names no {key}"))
    }

    fn id(&self, key: &str) -> Uuid {
        Uuid::parse_str(self.get(key)).expect("a uuid")
    }
}

/// Loads the fixture into the fresh database at `url` (as `stored_game.rs` does),
/// then moves the end of its sessions: they end 180 days after the fixture was
/// written (`--session-days`), and the stored session must still be read in years.
async fn load(url: &str, statements: &[String]) {
    crate::stored_game::load(url, statements).await;
    let mut conn = sqlx::AnyConnection::connect(url).await.expect("connect");
    sqlx::query("UPDATE sessions SET expires_at = 32503680000000")
        .execute(&mut conn)
        .await
        .expect("sessions");
    conn.close().await.expect("close");
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

async fn get<T: serde::de::DeserializeOwned>(server: &TestServer, path: &str) -> T {
    let (status, body, _) = server.call(Method::GET, path, None, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_value(body).expect(path)
}

/// `GET /api/games/{id}` once its result is stored.
async fn finished(server: &TestServer, id: Uuid) -> GameSummary {
    for _ in 0..400 {
        let game: GameSummary = get(server, &format!("/api/games/{id}")).await;
        if game.status == GameStatus::Finished {
            return game;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("game {id} was not stored as finished");
}

/// Sends a chat line and a ping on `c`: the `error` code the chat got, if any.
async fn chat_refusal(c: &mut Client, text: &str) -> Option<String> {
    c.send_json(&json!({ "type": "chat", "text": text })).await;
    c.send_json(&json!({ "type": "ping", "request_id": "after" }))
        .await;
    let mut refused = None;
    loop {
        match c.recv().await.expect("socket open") {
            ServerMessage::Error { code, .. } => refused = Some(code),
            ServerMessage::Pong { .. } => return refused,
            _ => {}
        }
    }
}

async fn the_stored_players_come_back(url: &str) {
    let f = Fixture::read();
    load(url, &f.statements).await;
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.to_owned().into();
        c.admin_token = Some(ADMIN.into());
    })
    .await;
    let (ann, bob) = (f.id("ann"), f.id("bob"));

    // The finished rated game: its seats name their players and rating changes.
    let done = finished(&server, f.id("finished")).await;
    for (player, name) in [(ann, "Ann"), (bob, "Bob")] {
        let seat = done
            .players
            .iter()
            .find(|p| p.player_id == Some(player))
            .unwrap_or_else(|| panic!("{name}'s seat in {:?}", done.players));
        assert_eq!(seat.name, name);
        assert!(seat.rating.is_some(), "{name}'s rating change");
    }
    let profile: PlayerProfile = get(&server, &format!("/api/players/{ann}")).await;
    assert!(profile.account);
    assert_eq!(profile.rating.games, 1);
    assert!(profile.recent.iter().any(|g| g.id == done.id));

    // The account signs in; the guest's session still works.
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/sessions",
            None,
            Some(json!({ "name": "ann", "password": PASSWORD })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    // The tables this version added (migrations 0009 and 0010) work for the players
    // of the previous one: the account starts a passkey registration, the guest
    // joins the queue and leaves it.
    let ann_token = body["token"].as_str().expect("token").to_owned();
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/me/passkeys/start",
            Some(&ann_token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/queue",
            Some(f.get("session_bob")),
            Some(json!({ "seats": 4, "bots": false })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let (status, body, _) = server
        .call(
            Method::DELETE,
            "/api/queue",
            Some(f.get("session_bob")),
            None,
        )
        .await;
    assert_eq!(status, 204, "{body}");
    let (status, body, _) = server
        .call(Method::GET, "/api/me", Some(f.get("session_bob")), None)
        .await;
    assert_eq!(
        (status, body["name"].as_str()),
        (200, Some("Bob")),
        "{body}"
    );

    // A player's list of games (migration 0013 came after these rows): the game
    // in progress, live (no clocks), on Bob's seat.
    let playing = f.id("playing");
    let (status, body, _) = server
        .call(
            Method::GET,
            "/api/me/games",
            Some(f.get("session_bob")),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let mine: catan_protocol::MyGames = serde_json::from_value(body).expect("my games");
    assert_eq!(mine.games.len(), 1, "{mine:?}");
    let g = &mine.games[0];
    assert_eq!(g.room_id, playing);
    assert_eq!(g.names[usize::from(g.seat.0)].as_deref(), Some("Bob"));
    assert!(g.clock.is_none() && g.to_move.is_empty() && !g.your_move);

    // The game in progress is back with both players' seats; Bob is still muted.
    let mut ann_ws = server.connect(playing, Some(f.get("seat_ann")), None).await;
    let mut bob_ws = server.connect(playing, Some(f.get("seat_bob")), None).await;
    assert_eq!(
        chat_refusal(&mut bob_ws, "hello").await.as_deref(),
        Some("muted")
    );
    assert_eq!(chat_refusal(&mut ann_ws, "hello").await, None);
    let (status, body, _) = server
        .call(
            Method::POST,
            &format!("/api/rooms/{playing}/seats"),
            Some(f.get("session_bob")),
            Some(json!({ "name": "Bob" })),
        )
        .await;
    assert_eq!(
        (status, code(&body)),
        (409, "already_started"),
        "the restored room is the started game: {body}"
    );
    let record = server
        .http
        .get(server.admin_url(&format!("/admin/players/{bob}")))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect("http");
    let record: catan_protocol::AdminPlayerDetail = record.json().await.expect("detail");
    assert_eq!(record.moderation.len(), 1);
    assert!(record.player.muted.is_some());

    // Played to its end, and rated once more.
    let a = tokio::spawn(play_randomly(ann_ws, 71));
    let b = tokio::spawn(play_randomly(bob_ws, 72));
    a.await.expect("ann");
    b.await.expect("bob");
    let game = finished(&server, playing).await;
    assert!(
        game.players
            .iter()
            .filter(|p| p.player_id == Some(ann) || p.player_id == Some(bob))
            .all(|p| p.rating.is_some()),
        "{:?}",
        game.players
    );
    let profile: PlayerProfile = get(&server, &format!("/api/players/{ann}")).await;
    assert_eq!(profile.rating.games, 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_players_ratings_and_a_mute_come_back_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    the_stored_players_come_back(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_players_ratings_and_a_mute_come_back_on_postgres() {
    let url = fresh_postgres_url().await;
    the_stored_players_come_back(&url).await;
}

/// A column's value as an SQL literal both databases read: a number, text quoted,
/// a float in its shortest exact form, `NULL`.
fn literal(row: &sqlx::any::AnyRow, i: usize) -> String {
    if let Ok(v) = row.try_get::<Option<i64>, _>(i) {
        return v.map_or_else(|| "NULL".to_owned(), |n| n.to_string());
    }
    if let Ok(v) = row.try_get::<Option<f64>, _>(i) {
        return v.map_or_else(|| "NULL".to_owned(), |x| format!("{x:?}"));
    }
    let v: Option<String> = row.try_get(i).expect("text");
    v.map_or_else(
        || "NULL".to_owned(),
        |s| format!("'{}'", s.replace('\'', "''")),
    )
}

/// Not a test of its own: writes the fixture from the current code to the path in
/// `CATAN_WRITE_STORED_PLAYERS` (relative to this crate), e.g.
/// `CATAN_WRITE_STORED_PLAYERS=fixtures/stored_players_v3.sql cargo test ... --ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes a new fixture: CATAN_WRITE_STORED_PLAYERS=fixtures/stored_players_vN.sql"]
async fn write_a_stored_players_fixture() {
    let Ok(out) = std::env::var("CATAN_WRITE_STORED_PLAYERS") else {
        return;
    };
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(out);
    assert!(
        !out.exists(),
        "{} exists: write a new version",
        out.display()
    );
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.admin_token = Some(ADMIN.into());
    })
    .await;
    let ann = server.guest("Ann").await.0;
    server.claim(&ann, PASSWORD).await;
    let bob = server.guest("Bob").await.0;
    let options = json!({
        "players": 3, "vp_target": 5, "turn_limit": 200, "rated": true, "stand_in_secs": 0
    });

    // A rated game played to its end.
    let created = server.create_room(options.clone()).await;
    let first = created.room_id;
    let a = server.seat_as(first, &ann).await;
    let b = server.seat_as(first, &bob).await;
    let clients = [
        server.connect(first, Some(&a), None).await,
        server.connect(first, Some(&b), None).await,
    ];
    server
        .add_bot_of_kind(first, &created.host_token, Some("medium"))
        .await;
    server.start_game(first, &created.host_token).await;
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(play_randomly(c, 40 + i as u64)))
        .collect();
    for t in tasks {
        t.await.expect("a player");
    }
    finished(&server, first).await;

    // A rated game in progress, a few turns in, stopped at the start of a turn.
    let created = server.create_room(options).await;
    let second = created.room_id;
    let seat_ann = server.seat_as(second, &ann).await;
    let seat_bob = server.seat_as(second, &bob).await;
    let clients = vec![
        server.connect(second, Some(&seat_ann), None).await,
        server.connect(second, Some(&seat_bob), None).await,
    ];
    server
        .add_bot_of_kind(second, &created.host_token, Some("medium"))
        .await;
    server.start_game(second, &created.host_token).await;
    let mut table = catan_e2e::Table::new(clients, 5);
    table
        .play_until(3000, |t| {
            t.drivers.iter().all(|d| {
                d.view().is_some_and(|v| {
                    v.turn >= 6 && v.phase == catan_engine::Phase::PreRoll && v.offers.is_empty()
                })
            })
        })
        .await;
    drop(table);

    // Bob muted, until lifted.
    let r = server
        .admin_post(
            &format!("/admin/players/{}/mute", bob.player.id),
            &json!({ "reason": "spam in chat", "by": "Mei" }),
        )
        .await;
    assert_eq!(r.status(), 200);
    server.shutdown().await;

    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&url).await.expect("connect");
    let mut text = format!(
        "-- Players, ratings and moderation as catan-server {} stored them (schema: the\n\
         -- migrations up to 0008): written by tests/e2e/stored_players.rs\n\
         -- (write_a_stored_players_fixture), loaded by the tests there into SQLite and\n\
         -- PostgreSQL. One statement a line, plain SQL both databases run. Never edit\n\
         -- it: a later version's rows go to a new file. The ids and secrets the tests\n\
         -- use (only digests and hashes are stored):\n",
        env!("CARGO_PKG_VERSION")
    );
    for (k, v) in [
        ("ann", ann.player.id.to_string()),
        ("bob", bob.player.id.to_string()),
        ("finished", first.to_string()),
        ("playing", second.to_string()),
        ("session_bob", bob.token.clone()),
        ("seat_ann", seat_ann),
        ("seat_bob", seat_bob),
    ] {
        text.push_str(&format!("-- value {k} {v}\n"));
    }
    for table in TABLES {
        let rows = sqlx::query(&format!("SELECT * FROM {table}"))
            .fetch_all(&mut conn)
            .await
            .expect("select");
        for r in &rows {
            let names: Vec<&str> = r.columns().iter().map(Column::name).collect();
            let values: Vec<String> = (0..names.len()).map(|i| literal(r, i)).collect();
            text.push_str(&format!(
                "INSERT INTO {table} ({}) VALUES ({});\n",
                names.join(", "),
                values.join(", ")
            ));
        }
    }
    let last: i64 = sqlx::query("SELECT last FROM rating_seq WHERE id = 1")
        .fetch_one(&mut conn)
        .await
        .expect("rating_seq")
        .get("last");
    text.push_str(&format!(
        "UPDATE rating_seq SET last = {last} WHERE id = 1;\n"
    ));
    conn.close().await.expect("close");
    std::fs::write(&out, text).expect("write fixture");
    println!("wrote {}", out.display());
}
