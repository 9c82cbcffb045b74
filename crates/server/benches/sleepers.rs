//! Sleeping games over days (protocol 27.5): how much memory a server holding many
//! of them takes, and how long waking one takes.
//!
//! Fills a fresh database (SQLite by default, or `--database URL`) through the
//! store with `--games` games of four over days (default 100,000), each started
//! with its first `--actions` random legal actions (default 40) and asleep with
//! their events as its reconnect backlog; starts
//! the release server on it; reads its resident memory; then wakes `--wakes` of the
//! games (default 300, chosen at random) one after the other by `GET
//! /api/rooms/{id}`, timing each call from the client, and reads the memory again.
//! Prints one JSON line.
//!
//! ```text
//! cargo bench -p catan-server --bench sleepers
//! cargo bench -p catan-server --bench sleepers -- --database postgres://postgres@127.0.0.1:5432/sleepers
//! ```

#![allow(missing_docs)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use catan_engine::playout::RandomPlayer;
use catan_engine::{Game, Seat};
use catan_protocol::{DaysOptions, RoomOptions};
use catan_server::store::{
    ActionRecord, DaysStore, NewGame, PlayerRecord, SqlStore, Store, seed_commitment,
};
use uuid::Uuid;

/// The command line.
struct Args {
    games: usize,
    actions: usize,
    wakes: usize,
    database: Option<String>,
}

fn args() -> Args {
    let mut a = Args {
        games: 100_000,
        actions: 40,
        wakes: 300,
        database: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--games" => a.games = value().parse().expect("--games N"),
            "--actions" => a.actions = value().parse().expect("--actions N"),
            "--wakes" => a.wakes = value().parse().expect("--wakes N"),
            "--database" => a.database = Some(value()),
            // cargo bench passes `--bench`.
            _ => {}
        }
    }
    a
}

/// One game over days of four, its first `actions` random actions, asleep.
async fn one_game(store: &SqlStore, i: usize, actions: usize) -> Uuid {
    let id = Uuid::new_v4();
    let seed = i as u64 + 1;
    let options = RoomOptions {
        days: Some(DaysOptions::preset(24)),
        ..RoomOptions::default()
    };
    let players = (0..4u8)
        .map(|s| PlayerRecord {
            seat: Seat(s),
            name: format!("p{s}"),
            bot: None,
            token_hash: catan_server::store::sha256_hex(&format!("{id}-{s}")),
            final_vp: None,
            vp_cards: None,
            player_id: None,
            rating: None,
        })
        .collect();
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis(),
    )
    .expect("ms");
    let game = NewGame {
        id,
        options,
        seed,
        seed_salt: "salt".into(),
        seed_commitment: seed_commitment(seed, "salt"),
        host_token_hash: catan_server::store::sha256_hex(&id.to_string()),
        created_at: now,
        started_at: now,
        players,
    };
    store.create_game(&game).await.expect("create");
    let mut g = Game::new(options.game, seed).expect("game");
    let mut random = RandomPlayer::new(seed);
    // The reconnect backlog the room keeps while it sleeps: each action's events
    // (the store's form of it, as `Outbox::to_keep` writes it).
    let mut backlog = Vec::new();
    for n in 0..actions {
        let mut events = Vec::new();
        let (seat, action) = random.step(&mut g, &mut events).expect("a step");
        backlog.push(serde_json::json!([n + 1, { "events": events }]));
        let record = ActionRecord {
            seq: n as u64,
            room_seq: n as u64 + 1,
            seat: Some(seat),
            action,
            at: now,
            stand_in: false,
        };
        store.append_action(id, &record).await.expect("append");
    }
    let seq = actions as u64 + 4;
    let backlog = serde_json::json!({
        "seq": seq, "game_seq": actions, "backlog": backlog, "chat": []
    });
    store
        .sleep_game(id, seq, &backlog.to_string())
        .await
        .expect("asleep");
    id
}

/// A free local port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let a = args();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = a
        .database
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("sleepers.db").display()));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let filled = Instant::now();
    let ids: Vec<Uuid> = rt.block_on(async {
        let store = std::sync::Arc::new(SqlStore::connect(&url).await.expect("store"));
        let mut ids = Vec::with_capacity(a.games);
        // Many games at once, so that the log's group commit batches them.
        for chunk in (0..a.games).collect::<Vec<_>>().chunks(256) {
            let tasks: Vec<_> = chunk
                .iter()
                .map(|&i| {
                    let store = store.clone();
                    let actions = a.actions;
                    tokio::spawn(async move { one_game(&store, i, actions).await })
                })
                .collect();
            for t in tasks {
                ids.push(t.await.expect("a game"));
            }
        }
        ids
    });
    let fill_secs = filled.elapsed().as_secs_f64();
    eprintln!("filled {} games in {fill_secs:.1} s", ids.len());

    let port = free_port();
    let started = Instant::now();
    let mut server: Child = Command::new(env!("CARGO_BIN_EXE_catan-server"))
        .env("DATABASE_URL", &url)
        .env("CATAN_BIND", format!("127.0.0.1:{port}"))
        .env("CATAN_ADMIN_BIND", "127.0.0.1:0")
        .env("CATAN_SLEEP_AFTER_SECS", "3600")
        .env("CATAN_LOBBY_RATE_PER_MIN", "0")
        .env("CATAN_RATE_LIMIT", "1000000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let (latencies, ready_secs, rss_asleep) = rt.block_on(async {
        loop {
            if let Ok(r) = http.get(format!("{base}/readyz")).send().await
                && r.status().is_success()
            {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(300),
                "the server is not ready"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let ready_secs = started.elapsed().as_secs_f64();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss_asleep = rss_kib(server.id());
        // A fixed spread over the games (a multiplicative step, coprime to most sizes).
        let mut latencies = Vec::with_capacity(a.wakes);
        for k in 0..a.wakes.min(ids.len()) {
            let id = ids[(k * 2_654_435_761) % ids.len()];
            let t = Instant::now();
            let r = http
                .get(format!("{base}/api/rooms/{id}"))
                .send()
                .await
                .expect("http");
            assert!(r.status().is_success(), "woke {id}: {}", r.status());
            let _ = r.bytes().await;
            latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        (latencies, ready_secs, rss_asleep)
    });
    let rss_woken = rss_kib(server.id());
    let _ = server.kill();
    let _ = server.wait();
    let mut sorted = latencies.clone();
    sorted.sort_by(f64::total_cmp);
    let store = if url.starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    };
    println!(
        "{{\"bench\":\"sleepers\",\"store\":\"{store}\",\"games\":{},\"actions_each\":{},\"fill_secs\":{fill_secs:.1},\"ready_secs\":{ready_secs:.2},\"rss_asleep_mib\":{:.1},\"wakes\":{},\"wake_p50_ms\":{:.2},\"wake_p99_ms\":{:.2},\"wake_max_ms\":{:.2},\"rss_after_wakes_mib\":{:.1}}}",
        ids.len(),
        a.actions,
        rss_asleep as f64 / 1024.0,
        sorted.len(),
        percentile(&sorted, 0.5),
        percentile(&sorted, 0.99),
        sorted.last().copied().unwrap_or(0.0),
        rss_woken as f64 / 1024.0,
    );
}
