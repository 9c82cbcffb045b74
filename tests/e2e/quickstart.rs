//! The client quick start (docs/client-quickstart.md and its translations): its two
//! programs, `examples/quickstart/random_game.py` and `random-game.ts`, are the ones
//! the page shows, and each plays a whole game against a live server, taking a seat
//! and choosing random legal actions until `game_over`. The TypeScript one is
//! type-checked first, strictly, against the kit package's protocol declarations
//! (installed from the packed tarball, as its readers would).
//!
//! The Python program needs `examples/python/.venv` (with `websockets`), the
//! TypeScript one node, npm and web/node_modules: each is skipped with a message when
//! missing, unless `CATAN_REQUIRE_PYTHON` or `CATAN_REQUIRE_BROWSER` is set (as
//! `.ci/run` does).

use std::time::Duration;

use catan_e2e::TestServer;

use crate::js_kit::{check_outcome, node, node_ready, repo_root, scratch_project, tsc};

/// The longest the Python program may take (a game takes a second or two).
const PYTHON_TIMEOUT: Duration = Duration::from_secs(300);

/// The quick start in every language.
fn pages() -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("docs")).expect("docs/") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("client-quickstart") && name.ends_with(".md") {
            let text = std::fs::read_to_string(repo_root().join("docs").join(&name))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            pages.push((name, text));
        }
    }
    pages.sort();
    pages
}

/// The fenced code blocks of `text` whose info string is `lang`.
fn code_blocks(text: &str, lang: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) if info.trim() == lang => open = Some(String::new()),
            (None, _) => {}
            (Some(block), Some(_)) => {
                blocks.push(std::mem::take(block));
                open = None;
            }
            (Some(block), None) => block.push_str(line),
        }
    }
    blocks
}

#[test]
fn the_quick_start_shows_the_programs_that_the_suite_runs() {
    let pages = pages();
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"client-quickstart.md"),
        "the English page: {names:?}"
    );
    for (lang, file) in [
        ("python", "examples/quickstart/random_game.py"),
        ("ts", "examples/quickstart/random-game.ts"),
    ] {
        let program = std::fs::read_to_string(repo_root().join(file)).expect("the program");
        for (name, text) in &pages {
            assert!(
                code_blocks(text, lang).contains(&program),
                "docs/{name} must show {file} exactly, in a ```{lang} block"
            );
        }
    }
    assert_eq!(
        code_blocks("a\n```ts\nx\n```\n```python\ny\n```\n", "ts"),
        ["x\n"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_quick_start_program_plays_a_whole_game() {
    let python = repo_root().join("examples/python/.venv/bin/python");
    let ready = std::process::Command::new(&python)
        .args(["-c", "import websockets"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        let required = std::env::var_os("CATAN_REQUIRE_PYTHON").is_some_and(|v| !v.is_empty());
        assert!(
            !required,
            "CATAN_REQUIRE_PYTHON is set but examples/python/.venv cannot import websockets"
        );
        eprintln!("SKIPPED the Python quick start: no examples/python/.venv with websockets");
        return;
    }
    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let run = tokio::process::Command::new(&python)
        .arg(repo_root().join("examples/quickstart/random_game.py"))
        .arg(server.url(""))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(PYTHON_TIMEOUT, run)
        .await
        .expect("the game ends in time")
        .expect("python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "random_game.py failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    check_outcome(&server, &stdout).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_quick_start_program_type_checks_and_plays_a_whole_game() {
    if !node_ready("the TypeScript quick start") {
        return;
    }
    let dir = scratch_project(&[
        ("examples/quickstart/random-game.ts", "random-game.ts"),
        ("examples/quickstart/tsconfig.json", "tsconfig.json"),
    ]);
    tsc(dir.path(), "tsconfig.json").expect("random-game.ts compiles, strictly");
    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let stdout = node(dir.path(), "random-game.js", &[&server.url("")]).await;
    check_outcome(&server, &stdout).await;
    server.stop().await;
}
