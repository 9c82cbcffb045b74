//! The Python example client (`examples/python`, package `catan_client`) against the
//! real server: it plays whole games against built-in bots following protocol.md
//! (request ids, acknowledgements, `seq`, `expect_seq`, its view folded from events
//! and checked against every snapshot), and re-derives every random outcome of
//! finished games from their revealed seeds by the procedure of protocol.md section 23
//! (map, first player, deck, dice, steals, time-out choices). Its unit tests, run
//! here too, check the fold against the conformance transcripts and the derivation
//! against their replay.
//!
//! It is also a package (`pyproject.toml`, `catan-server-client`, typed models of
//! every message generated from the JSON Schema, `py.typed`): installed into a fresh
//! virtual environment, its `catan-play` command plays a game.
//!
//! Needs `examples/python/.venv` with `requirements.txt` installed (`.ci/run` makes
//! it). Skipped with a message when it is missing, unless `CATAN_REQUIRE_PYTHON` is
//! set (as `.ci/run` does): then a missing venv is a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use catan_e2e::TestServer;
use catan_protocol::{GameStatus, GameSummary, ServerMessage};
use serde_json::{Value, json};

/// The longest one Python run may take (a whole game takes about a second).
const PYTHON_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// `examples/python`.
fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
        .join("examples/python")
}

/// The venv's interpreter, or `None` (after saying so) when the tests are to be skipped.
fn python() -> Option<PathBuf> {
    let bin = package_dir().join(".venv/bin/python");
    let ready = std::process::Command::new(&bin)
        .args(["-c", "import websockets"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ready {
        return Some(bin);
    }
    let how = "python3 -m venv examples/python/.venv && \
               examples/python/.venv/bin/pip install -r examples/python/requirements.txt";
    let required = std::env::var_os("CATAN_REQUIRE_PYTHON").is_some_and(|v| !v.is_empty());
    assert!(
        !required,
        "CATAN_REQUIRE_PYTHON is set but {} cannot import websockets; make it with `{how}`",
        bin.display()
    );
    eprintln!("SKIPPED the Python client tests: no venv with websockets; make it with `{how}`");
    None
}

/// Runs `python args...` in `examples/python` and returns its stdout and stderr,
/// failing with both when it exits non-zero.
async fn run_full(python: &Path, args: &[&str]) -> (String, String) {
    let child = tokio::process::Command::new(python)
        .args(args)
        .current_dir(package_dir())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(PYTHON_TIMEOUT, child)
        .await
        .unwrap_or_else(|_| panic!("python {args:?} still running after {PYTHON_TIMEOUT:?}"))
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python {args:?} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    (stdout, stderr.into_owned())
}

/// [`run_full`]'s stdout.
async fn run(python: &Path, args: &[&str]) -> String {
    run_full(python, args).await.0
}

/// The counts of one kind in the outcome's `done` (what the client's seats did).
fn done(outcome: &Value, kind: &str) -> u64 {
    outcome["done"][kind].as_u64().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_plays_whole_games_against_bots_and_verifies_their_replays() {
    let Some(python) = python() else { return };
    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let url = server.url("");
    // What a full game of this client does; a game that happens to lack one kind
    // (no 7 while holding more than 7 cards, say) is followed by another, at most 4.
    let wanted = [
        "build_settlement",
        "build_city",
        "buy_dev_card",
        "play_knight",
        "move_robber",
        "discard",
        "offer_trade",
        "confirm_trade",
        "accept_offer",
        "reject_offer",
    ];
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for game in 0..4 {
        let stdout = run(&python, &["-m", "catan_client.play", "--url", &url]).await;
        let outcome: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
        assert!(outcome["winner"].is_u64(), "game {game} won: {outcome}");
        assert_eq!(outcome["scores"].as_array().map(Vec::len), Some(4));
        assert_eq!(
            outcome["commitment_ok"], true,
            "the seed matches its commitment"
        );
        // Only the documented timing refusal: two seats of one client race each other
        // and the bots (protocol.md 7, rule 7).
        let rejections = outcome["rejections"].as_object().expect("rejections");
        assert!(
            rejections.keys().all(|code| code == "stale_action"),
            "only stale_action refusals: {outcome}"
        );
        assert!(outcome["acks"].as_u64() > Some(50), "{outcome}");
        // A sync every 20 acknowledged actions: each snapshot equals the folded view.
        assert!(
            outcome["snapshots_checked"].as_u64() >= Some(2),
            "{outcome}"
        );
        let checked = &outcome["replay_checked"];
        assert!(checked["dice"].as_u64() > Some(10), "{outcome}");
        // Every random word the game used was re-derived from the revealed seed:
        // at least one per die roll (a short game of 41 rolls used 99, so a fixed
        // floor of 100 words failed now and then).
        assert!(
            checked["words"].as_u64() >= checked["dice"].as_u64(),
            "{outcome}"
        );
        for kind in wanted {
            *seen.entry(kind).or_default() += done(&outcome, kind);
        }
        if seen.values().all(|&n| n > 0) {
            break;
        }
    }
    assert!(
        seen.values().all(|&n| n > 0),
        "every kind of move: {seen:?}"
    );
    server.stop().await;
}

/// Waits for the stored result of `room`.
async fn stored(server: &TestServer, room: uuid::Uuid) -> GameSummary {
    for _ in 0..400 {
        let g: GameSummary = server
            .http
            .get(server.url(&format!("/api/games/{room}")))
            .send()
            .await
            .expect("http")
            .json()
            .await
            .expect("summary");
        if g.status == GameStatus::Finished {
            return g;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the result was never stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_derivation_re_derives_the_time_out_choices_of_a_live_game() {
    // Real timers (the Python process cannot share paused time): one seat taken and
    // never connected, so every one of its steps times out after 1 s (protocol.md 16),
    // against three heuristic bots. Games are played until the Python module has
    // re-derived a time-out of every kind that draws: the setup's placements, the
    // roll, the discards of a 7 and the robber's tile and victim (the absent seat
    // rolls a 7 about once in six turns; it never builds, so it holds cards to lose).
    let Some(python) = python() else { return };
    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let kinds = ["setup", "pre_roll", "discard", "move_robber"];
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    for game in 1..=8 {
        let checked = live_time_out_game(&server, &python).await;
        assert!(checked["dice"].as_u64() > Some(0), "{checked}");
        for (phase, n) in checked["time_out_phases"].as_object().expect("phases") {
            *seen.entry(phase.clone()).or_default() += n.as_u64().expect("count");
        }
        if kinds.iter().all(|k| seen.contains_key(*k)) {
            eprintln!("{game} games; time-outs re-derived by phase: {seen:?}");
            server.stop().await;
            return;
        }
    }
    panic!("8 games did not time out in every kind of step: {seen:?}");
}

/// One game to 5 points with an absent seat; what `catan_client.derive` re-derived.
async fn live_time_out_game(server: &TestServer, python: &Path) -> Value {
    let created = server
        .create_room(
            json!({"players": 4, "vp_target": 5, "turn_timer_secs": 1, "discard_timeout_secs": 1}),
        )
        .await;
    let room = created.room_id;
    server.take_seat(room, "absent").await;
    for _ in 0..3 {
        let r = server
            .http
            .post(server.url(&format!("/api/rooms/{room}/bots")))
            .bearer_auth(&created.host_token)
            .json(&json!({"kind": "heuristic"}))
            .send()
            .await
            .expect("http");
        assert!(r.status().is_success());
    }
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;
    spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    stored(server, room).await;
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, path) in [
        ("replay.json", format!("/api/games/{room}/replay")),
        ("board.json", "/api/board".to_owned()),
    ] {
        let body = server
            .http
            .get(server.url(&path))
            .send()
            .await
            .expect("http")
            .text()
            .await
            .expect("body");
        std::fs::write(dir.path().join(name), body).expect("write");
    }
    let (replay, board) = (
        dir.path().join("replay.json"),
        dir.path().join("board.json"),
    );
    let stdout = run(
        python,
        &[
            "-m",
            "catan_client.derive",
            replay.to_str().expect("utf-8"),
            board.to_str().expect("utf-8"),
        ],
    )
    .await;
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_unit_tests_pass_on_the_conformance_transcripts() {
    // tests/test_view.py folds every transcript of tests/fixtures/conformance and
    // checks each snapshot; tests/test_derive.py re-derives the recorded replay.
    let Some(python) = python() else { return };
    let (_, stderr) = run_full(
        &python,
        &["-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v"],
    )
    .await;
    let ran = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("Ran ")?
                .split(' ')
                .next()?
                .parse::<u32>()
                .ok()
        })
        .unwrap_or(0);
    assert!(ran >= 12, "the Python unit tests ran ({ran}):\n{stderr}");
    // The generated models are checked there too (tests/test_models.py): current with
    // the schema, and matching every message of the transcripts.
    assert!(
        stderr.contains("test_the_models_are_what_the_schema_gives")
            && stderr.contains("test_every_message_of_the_transcripts_matches_its_model"),
        "{stderr}"
    );
    assert!(stderr.lines().any(|l| l == "OK"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_package_installs_into_a_fresh_venv_and_its_command_plays_a_game() {
    let Some(_) = python() else { return };
    // The package's files, copied out first: pip builds a local project in place.
    let dir = tempfile::tempdir().expect("tempdir");
    let source = dir.path().join("catan-server-client");
    std::fs::create_dir_all(source.join("catan_client")).expect("mkdir");
    for name in ["pyproject.toml", "README.md"] {
        std::fs::copy(package_dir().join(name), source.join(name)).expect(name);
    }
    for entry in std::fs::read_dir(package_dir().join("catan_client")).expect("catan_client") {
        let path = entry.expect("an entry").path();
        if path.is_file() {
            std::fs::copy(
                &path,
                source
                    .join("catan_client")
                    .join(path.file_name().expect("name")),
            )
            .expect("copy");
        }
    }
    let venv = dir.path().join("venv");
    let status = std::process::Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(status.success(), "python3 -m venv");
    let pip = tokio::process::Command::new(venv.join("bin/pip"))
        .args(["install", "-q", "--disable-pip-version-check"])
        .arg(&source)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(PYTHON_TIMEOUT, pip)
        .await
        .expect("pip install in time")
        .expect("pip");
    assert!(
        out.status.success(),
        "pip install failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Installed with its marker of a typed package and its models.
    let check = "import importlib.resources as r, importlib.metadata as m, catan_client.models as t; \
                 print(m.version('catan-server-client'), r.files('catan_client').joinpath('py.typed').is_file(), \
                 sorted(t.ServerMessageEvents.__optional_keys__))";
    // Run outside the source tree, so that the installed package is the one imported.
    let out = std::process::Command::new(venv.join("bin/python"))
        .args(["-c", check])
        .current_dir(dir.path())
        .output()
        .expect("python");
    let installed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        installed.trim(),
        "0.1.0 True ['clocks', 'deadline', 'legal', 'offer_deadlines', 'request_id']"
    );

    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let stdout = run(
        &venv.join("bin/catan-play"),
        &["--url", &server.url(""), "--vp-target", "5"],
    )
    .await;
    let outcome: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    assert!(outcome["winner"].is_u64(), "{outcome}");
    assert_eq!(outcome["commitment_ok"], true, "{outcome}");
    server.stop().await;
}
