//! Conformance transcripts (`tests/fixtures/conformance/`, described in protocol.md
//! section 24): one whole game from a fixed seed, four seats played by the heuristic
//! bot's strategy and one spectator, every message each connection received, in
//! order. This test plays the recorded client messages again against the server,
//! from the same stored start, and checks that every connection receives exactly the
//! recorded messages: any change on the wire fails it. After a deliberate change,
//! `CATAN_BLESS=1` sends the recorded client messages again and rewrites what the
//! server sent; `CATAN_BLESS=fresh` plays a new game with the bots.
//! The Python client's unit tests fold every transcript and check the view
//! (tests/e2e/python_client.rs).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use catan_bots::{HeuristicBot, SeatDriver};
use catan_e2e::{Client, TestServer};
use catan_engine::{Event, GameOptions, MapKind, Seat};
use catan_protocol::{ClientMessage, RoomOptions, ServerMessage};
use catan_server::store::{NewGame, PlayerRecord, SqlStore, Store, seed_commitment, sha256_hex};
use rand::SeedableRng;
use serde_json::Value;
use uuid::Uuid;

/// The game's seed and salt, revealed in the transcripts' `game_over`.
const SEED: u64 = 20_261_201;
const SALT: &str = "0123456789abcdef0123456789abcdef";
/// The room (and game) id.
const ROOM: u128 = 0x0c0f_0a2e_0000_4000_8000_0000_0000_0001;
const SEATS: u8 = 4;
const HOST: &str = "00000000000000000000000000000000";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/conformance")
}

fn seat_token(seat: u8) -> String {
    format!("{:032x}", 0x5ea7_u128 * 1000 + u128::from(seat))
}

/// The stored start of the game: what a room that was started with this seed keeps,
/// so that the server restores it with this seed on start-up.
fn new_game() -> NewGame {
    NewGame {
        id: Uuid::from_u128(ROOM),
        options: RoomOptions {
            rated: false,
            days: None,
            game: GameOptions::default()
                .with_players(SEATS)
                .with_vp_target(10)
                .with_map(MapKind::Random)
                .with_turn_limit(catan_engine::DEFAULT_TURN_LIMIT),
            // No timers: nothing in the transcripts depends on the clock.
            turn_timer_secs: 0,
            trade_timeout_secs: 30,
            discard_timeout_secs: 0,
            listed: false,
            spectators: true,
            stand_in_secs: 0,
            stand_in_level: catan_protocol::BotKind::Medium,
        },
        seed: SEED,
        seed_salt: SALT.to_owned(),
        seed_commitment: seed_commitment(SEED, SALT),
        host_token_hash: sha256_hex(HOST),
        created_at: 1_767_225_600_000,
        started_at: 1_767_225_660_000,
        players: (0..SEATS)
            .map(|s| PlayerRecord {
                rating: None,
                seat: Seat(s),
                name: format!("seat {s}"),
                bot: None,
                token_hash: sha256_hex(&seat_token(s)),
                final_vp: None,
                vp_cards: None,
                player_id: None,
            })
            .collect(),
    }
}

/// The four seats and the spectator (last), each with the newest `seq` it received.
struct Table {
    clients: Vec<Client>,
    seqs: Vec<u64>,
}

impl Table {
    /// Reads client `i`'s next message.
    async fn recv(&mut self, i: usize) -> ServerMessage {
        let m = self.clients[i].recv().await.expect("connection open");
        if let Some(s) = m.seq() {
            self.seqs[i] = self.seqs[i].max(s);
        }
        m
    }

    /// Reads every connection up to broadcast `target`.
    async fn drain_to(&mut self, target: u64) {
        for i in 0..self.clients.len() {
            while self.seqs[i] < target {
                self.recv(i).await;
            }
        }
    }

    /// Sends `msg` from seat `i` and reads until every answer and broadcast it caused
    /// has reached every connection, so the next message starts from a still room.
    async fn send(&mut self, i: usize, msg: &ClientMessage) {
        let text = serde_json::to_string(msg).expect("json");
        self.clients[i].send_text(&text).await;
        let mut target = self.seqs[i];
        loop {
            match (self.recv(i).await, msg) {
                (ServerMessage::Snapshot(_), ClientMessage::Sync) => break,
                (
                    ServerMessage::Rejected { request_id, .. },
                    ClientMessage::Action { request_id: r, .. },
                ) if &request_id == r => {
                    break;
                }
                (
                    ServerMessage::Events {
                        seq,
                        request_id: Some(id),
                        events,
                        ..
                    },
                    ClientMessage::Action { request_id: r, .. },
                ) if &id == r => {
                    let over = events.iter().any(|e| {
                        matches!(e, Event::GameWon { .. } | Event::TurnLimitReached { .. })
                    });
                    // `game_over` and the finished `room` follow the last events.
                    target = if over { seq + 2 } else { seq };
                    break;
                }
                _ => {}
            }
        }
        self.drain_to(target).await;
    }
}

/// Restores the stored start, connects the seats in order and then the spectator.
async fn open_table(server: &TestServer) -> Table {
    let mut t = Table {
        clients: Vec::new(),
        seqs: Vec::new(),
    };
    let room = Uuid::from_u128(ROOM);
    for s in 0..=SEATS {
        let token = (s < SEATS).then(|| seat_token(s));
        t.clients
            .push(server.connect(room, token.as_deref(), None).await);
        t.seqs.push(0);
        let i = t.clients.len() - 1;
        t.recv(i).await;
        let target = t.seqs[i];
        t.drain_to(target).await;
    }
    t
}

/// The client messages to send: recorded, or chosen afresh by the bots (blessing).
async fn play(
    t: &mut Table,
    recorded: Option<Vec<(usize, ClientMessage)>>,
) -> Vec<(usize, ClientMessage)> {
    let mut sent = Vec::new();
    if let Some(script) = recorded {
        for (i, msg) in script {
            t.send(i, &msg).await;
            sent.push((i, msg));
        }
        return sent;
    }
    let mut drivers: Vec<SeatDriver> = (0..SEATS).map(|_| SeatDriver::new()).collect();
    let mut seen = vec![0usize; usize::from(SEATS)];
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
    let mut actions = 0;
    loop {
        for (i, d) in drivers.iter_mut().enumerate() {
            for (_, m) in &t.clients[i].received[seen[i]..] {
                d.observe(m);
            }
            seen[i] = t.clients[i].received.len();
        }
        if drivers.iter().all(SeatDriver::over) {
            sync_all(t, &mut sent).await;
            return sent;
        }
        let next = (0..drivers.len()).find_map(|i| {
            drivers[i]
                .decide(&mut HeuristicBot::new(), &mut rng)
                .map(|m| (i, m))
        });
        let (i, msg) = next.expect("someone can act until the game is over");
        t.send(i, &msg).await;
        sent.push((i, msg));
        actions += 1;
        if actions % SYNC_EVERY == 0 {
            sync_all(t, &mut sent).await;
        }
        assert!(actions < 20_000, "the game does not end");
    }
}

/// Every connection, the spectator too, asks for a snapshot every this many actions
/// (and once more at the end): the snapshots a folded view is checked against.
const SYNC_EVERY: usize = 10;

async fn sync_all(t: &mut Table, sent: &mut Vec<(usize, ClientMessage)>) {
    for i in 0..t.clients.len() {
        t.send(i, &ClientMessage::Sync).await;
        sent.push((i, ClientMessage::Sync));
    }
}

fn file_name(i: usize) -> String {
    if i < usize::from(SEATS) {
        format!("seat{i}.jsonl")
    } else {
        "spectator.jsonl".to_owned()
    }
}

fn read_lines(name: &str) -> Vec<String> {
    let path = fixtures().join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e} (record with CATAN_BLESS=1)", path.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The replay without what depends on the clock (`at` of each step, `finished_at`).
fn timeless(mut replay: Value) -> Value {
    replay["game"]["finished_at"] = Value::Null;
    for step in replay["actions"].as_array_mut().expect("actions") {
        step["at"] = Value::Null;
    }
    replay
}

/// The client messages of `actions.jsonl`, by connection.
fn recorded_script() -> Vec<(usize, ClientMessage)> {
    read_lines("actions.jsonl")
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("action line");
            let conn = usize::try_from(v["conn"].as_u64().expect("conn")).expect("conn");
            let msg = serde_json::from_value(v["message"].clone()).expect("client message");
            (conn, msg)
        })
        .collect()
}

async fn get_json(server: &TestServer, path: &str) -> Option<Value> {
    let r = server
        .http
        .get(server.url(path))
        .send()
        .await
        .expect("http");
    if r.status().is_success() {
        Some(r.json().await.expect("json"))
    } else {
        None
    }
}

/// The finished game's replay, once the store has the result.
async fn finished_replay(server: &TestServer) -> Value {
    let path = format!("/api/games/{}/replay", Uuid::from_u128(ROOM));
    for _ in 0..200 {
        if let Some(replay) = get_json(server, &path).await {
            return replay;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the finished game's replay never came");
}

/// Rewrites every file of the fixture from this run.
fn bless(table: &Table, sent: &[(usize, ClientMessage)], board: &Value, replay: &Value) {
    let dir = fixtures();
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (i, c) in table.clients.iter().enumerate() {
        let text: String = c.received.iter().map(|(t, _)| format!("{t}\n")).collect();
        std::fs::write(dir.join(file_name(i)), text).expect("write");
    }
    let actions: String = sent
        .iter()
        .map(|(i, m)| format!("{}\n", serde_json::json!({"conn": i, "message": m})))
        .collect();
    std::fs::write(dir.join("actions.jsonl"), actions).expect("write");
    std::fs::write(dir.join("board.json"), format!("{board}\n")).expect("write");
    // The clock's `at` and `finished_at` aside, an unchanged replay keeps its file.
    let old = std::fs::read_to_string(dir.join("replay.json")).ok();
    let old: Option<Value> = old.and_then(|t| serde_json::from_str(&t).ok());
    if old.map(timeless) != Some(timeless(replay.clone())) {
        std::fs::write(dir.join("replay.json"), format!("{replay}\n")).expect("write");
    }
}

/// Connection `i` received exactly its transcript: a whole game, `game_over` and a
/// last snapshot that repeats it.
fn check_transcript(i: usize, c: &Client) {
    let name = file_name(i);
    let want = read_lines(&name);
    let got: Vec<&str> = c.received.iter().map(|(t, _)| t.as_str()).collect();
    for (n, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "{name} line {}: the server sent something else",
            n + 1
        );
    }
    assert_eq!(got.len(), want.len(), "{name}: number of messages");
    let over = |m: &ServerMessage| matches!(m, ServerMessage::GameOver(_));
    assert!(
        c.received.iter().any(|(_, m)| over(m)),
        "{name} has the game_over"
    );
    assert!(
        matches!(c.received.last().map(|(_, m)| m), Some(ServerMessage::Snapshot(s)) if s.game_over.is_some()),
        "{name} ends with a snapshot of the finished game"
    );
}

fn read_json(name: &str) -> Value {
    serde_json::from_str(&read_lines(name).join("\n")).expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_sends_exactly_the_recorded_transcripts() {
    // CATAN_BLESS=1: the recorded client messages again, the server's answers
    // re-recorded (a change on the wire); CATAN_BLESS=fresh: a new game chosen by
    // the bots (when the recorded messages no longer make a game).
    let asked = std::env::var("CATAN_BLESS").unwrap_or_default();
    let blessing = !asked.is_empty();
    let script = (asked != "fresh").then(recorded_script);
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    let store = SqlStore::connect(&url).await.expect("store");
    store.create_game(&new_game()).await.expect("stored start");
    let server = TestServer::start_with_store(|_| {}, Arc::new(store)).await;
    let mut table = open_table(&server).await;
    let sent = play(&mut table, script).await;
    let board = get_json(&server, "/api/board").await.expect("board");
    let replay = finished_replay(&server).await;
    if blessing {
        bless(&table, &sent, &board, &replay);
    }
    for (i, c) in table.clients.iter().enumerate() {
        check_transcript(i, c);
    }
    assert_eq!(
        board,
        read_json("board.json"),
        "board.json is the server's geometry"
    );
    assert_eq!(
        timeless(replay),
        timeless(read_json("replay.json")),
        "replay.json is the game's replay"
    );
    server.stop().await;
}
