//! Upgrades: a whole database as an earlier release made it (its schema, its
//! `_sqlx_migrations` table and its rows, committed as `tests/fixtures/upgrade_v1/`
//! in the dump format of each database's own tool) is loaded with that tool into a
//! fresh database, and this version starts on it. Whatever migrations came later
//! apply on top; the finished game is listed with its result and replays, and the
//! game in progress comes back with its person and its bots and plays to the end.
//!
//! Unlike `stored_game.rs`, which inserts rows into the current schema, nothing here
//! is made by this version before it starts: the schema is the old one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url, play_randomly};
use catan_engine::Seat;
use catan_protocol::{
    BotKind, GameList, GameStatus, GameSummary, Replay, RoomInfo, RoomStatus, ServerMessage,
};
use uuid::Uuid;

/// What a fixture's header says: the two games and the person's seat token.
struct Header {
    finished: Uuid,
    playing: Uuid,
    seat0_token: String,
}

fn fixture_path(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/upgrade_v1/{kind}.sql"))
}

fn header(path: &Path) -> Header {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let field = |prefix: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{}: no `{prefix}` line", path.display()))
            .to_owned()
    };
    Header {
        finished: field("-- finished ").parse().expect("finished id"),
        playing: field("-- playing ").parse().expect("playing id"),
        seat0_token: field("-- token seat0 "),
    }
}

/// Runs `program args` with `input` on stdin; panics with its output on failure.
pub(crate) fn run_tool(program: &str, args: &[&str], input: Option<&Path>) {
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    if let Some(p) = input {
        cmd.stdin(std::fs::File::open(p).unwrap_or_else(|e| panic!("open {}: {e}", p.display())));
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {program} (is it installed?): {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn get<T: serde::de::DeserializeOwned>(server: &TestServer, path: &str) -> T {
    let r = server
        .http
        .get(server.url(path))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200, "GET {path}");
    r.json().await.unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// The checks, on a server started on the loaded database.
async fn the_old_games_come_back(server: &TestServer, h: &Header) {
    // The finished game: listed, with its result, its seed revealed, replayable.
    let list: GameList = get(server, "/api/games").await;
    assert!(
        list.games.iter().any(|g| g.id == h.finished),
        "the finished game is listed: {:?}",
        list.games.iter().map(|g| g.id).collect::<Vec<_>>()
    );
    let done: GameSummary = get(server, &format!("/api/games/{}", h.finished)).await;
    assert_eq!(done.status, GameStatus::Finished);
    assert!(done.winner.is_some());
    assert!(done.seed.is_some() && done.seed_salt.is_some());
    assert_eq!(done.players.len(), 4);
    let replay: Replay = get(server, &format!("/api/games/{}/replay", h.finished)).await;
    assert!(replay.actions.len() > 16, "the whole log replays");

    // The game in progress: restored with its person and its bots.
    let room: RoomInfo = get(server, &format!("/api/rooms/{}", h.playing)).await;
    assert_eq!(room.status, RoomStatus::Playing);
    let who: Vec<_> = room
        .seats
        .iter()
        .map(|s| {
            let o = s.occupant.as_ref().expect("every seat taken");
            (o.name.as_str(), o.bot)
        })
        .collect();
    assert_eq!(who[0], ("Ada 阿达", None));
    assert!(
        who[1..]
            .iter()
            .all(|(_, bot)| *bot == Some(BotKind::Random))
    );

    // The person reconnects with the token of the old release and plays to the end.
    let mut c = server.connect(h.playing, Some(&h.seat0_token), None).await;
    let Some(ServerMessage::Snapshot(snap)) = c.recv().await else {
        panic!("a snapshot first")
    };
    assert_eq!(snap.you, Some(Seat(0)));
    let (c, rejections) = tokio::time::timeout(Duration::from_secs(120), play_randomly(c, 5))
        .await
        .expect("the restored game plays to its end");
    assert_eq!(rejections, 0);
    assert!(
        c.received
            .iter()
            .any(|(_, m)| matches!(m, ServerMessage::GameOver(_))),
        "game over"
    );
}

#[tokio::test]
async fn an_sqlite_database_of_the_previous_release_migrates_and_its_games_come_back() {
    let path = fixture_path("sqlite");
    let h = header(&path);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("catan.db");
    run_tool(
        "sqlite3",
        &[file.to_str().expect("utf-8 path")],
        Some(&path),
    );
    let url = format!("sqlite://{}", file.display());
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    the_old_games_come_back(&server, &h).await;
    server.stop().await;
}

#[tokio::test]
async fn a_postgres_database_of_the_previous_release_migrates_and_its_games_come_back() {
    let path = fixture_path("postgres");
    let h = header(&path);
    let url = fresh_postgres_url().await;
    let file = path.to_str().expect("utf-8 path");
    run_tool(
        "psql",
        &["-q", "-v", "ON_ERROR_STOP=1", "-d", &url, "-f", file],
        None,
    );
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    the_old_games_come_back(&server, &h).await;
    server.stop().await;
}
