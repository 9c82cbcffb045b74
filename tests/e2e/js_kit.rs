//! The client kit as an npm package (`web/kit`, package `catan-server-kit`): packed with
//! `npm pack` (its prepack copies in `web/kit.js`, the one source, and the protocol's
//! declarations, and writes `kit.d.ts` from the kit's JSDoc), installed from the
//! tarball into a scratch project, type-checked there by strict TypeScript with Node's
//! own module resolution (the package's `exports` and `types`), and run:
//! `examples/kit/random-game.ts` plays a whole game through the kit in Node, with
//! Node's WebSocket, against a live server.
//!
//! Needs `node`, `npm` and `web/node_modules` (TypeScript). Skipped with a message
//! when one is missing, unless `CATAN_REQUIRE_BROWSER` is set (as `.ci/run` does,
//! which installs them): then it is a failure.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{GameStatus, GameSummary};
use serde_json::Value;

/// The longest a Node program of these tests may take (a game takes a few seconds).
const NODE_TIMEOUT: Duration = Duration::from_secs(300);

/// The repository's root.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
        .to_path_buf()
}

/// Whether node, npm and TypeScript (web/node_modules) are here; when not, says so
/// and answers false, or fails when `CATAN_REQUIRE_BROWSER` is set.
pub(crate) fn node_ready(what: &str) -> bool {
    let runs = |cmd: &str| {
        std::process::Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let tsc = repo_root().join("web/node_modules/typescript/bin/tsc");
    let (node, npm, ts) = (runs("node"), runs("npm"), tsc.exists());
    if node && npm && ts {
        return true;
    }
    let missing = format!("node: {node}, npm: {npm}, web/node_modules/typescript: {ts}");
    let required = std::env::var_os("CATAN_REQUIRE_BROWSER").is_some_and(|v| !v.is_empty());
    assert!(
        !required,
        "CATAN_REQUIRE_BROWSER is set but {what} cannot run ({missing}); \
         install Node.js and npm, then `cd web && npm ci`"
    );
    eprintln!("SKIPPED {what} ({missing}): install Node.js and npm, then `cd web && npm ci`");
    false
}

/// Runs `program args` in `dir`; its stdout, or a failure with both outputs.
pub(crate) fn run(program: &str, args: &[&str], dir: &Path) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The package, packed once per test run: the tarball and `npm pack`'s list of the
/// files in it. Packing writes into web/kit/ (prepack's copies), so never twice at once.
pub(crate) fn packed_kit() -> &'static (PathBuf, Vec<String>) {
    static PACKED: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();
    PACKED.get_or_init(|| {
        let dest = tempfile::tempdir().expect("tempdir").keep();
        let out = run(
            "npm",
            &[
                "pack",
                "--json",
                "--pack-destination",
                dest.to_str().expect("utf-8"),
            ],
            &repo_root().join("web/kit"),
        );
        // npm prints prepack's output before the JSON.
        let json = &out[out.find('[').expect("npm pack --json prints an array")..];
        let packed: Value = serde_json::from_str(json).expect("npm pack's JSON");
        let files = packed[0]["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f["path"].as_str().expect("a path").to_owned())
            .collect();
        let name = packed[0]["filename"].as_str().expect("filename");
        (dest.join(name), files)
    })
}

/// A new npm project (an ES module package) in a temporary directory, with the
/// packed kit installed from its tarball and `files` copied in (path in the
/// repository, name in the project).
pub(crate) fn scratch_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let (tarball, _) = packed_kit();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "scratch", "version": "1.0.0", "private": true, "type": "module"}"#,
    )
    .expect("package.json");
    run(
        "npm",
        &[
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            tarball.to_str().expect("utf-8"),
        ],
        dir.path(),
    );
    for (from, to) in files {
        std::fs::copy(repo_root().join(from), dir.path().join(to))
            .unwrap_or_else(|e| panic!("{from}: {e}"));
    }
    dir
}

/// Type-checks and compiles the project in `dir` with its `tsconfig` (the repository's
/// TypeScript, web/node_modules); the compiler's output when it fails.
pub(crate) fn tsc(dir: &Path, tsconfig: &str) -> Result<(), String> {
    let tsc = repo_root().join("web/node_modules/typescript/bin/tsc");
    let out = std::process::Command::new("node")
        .arg(&tsc)
        .args(["-p", tsconfig])
        .current_dir(dir)
        .output()
        .expect("tsc");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Runs `script` of `dir` in Node with `args` and answers its stdout. Node before 22
/// has its WebSocket behind a flag; the programs use the platform's.
pub(crate) async fn node(dir: &Path, script: &str, args: &[&str]) -> String {
    let version = run("node", &["--version"], dir);
    let major: u32 = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .expect("node --version");
    let mut cmd = tokio::process::Command::new("node");
    if major < 22 {
        cmd.arg("--experimental-websocket");
    }
    let child = cmd
        .arg(script)
        .args(args)
        .current_dir(dir)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(NODE_TIMEOUT, child)
        .await
        .unwrap_or_else(|_| panic!("node {script} still running after {NODE_TIMEOUT:?}"))
        .expect("node");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "node {script} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The stored summary of `room`'s game once it is finished.
pub(crate) async fn finished(server: &TestServer, room: &str) -> GameSummary {
    for _ in 0..400 {
        let r = server
            .http
            .get(server.url(&format!("/api/games/{room}")))
            .send()
            .await
            .expect("http");
        if r.status() == 200 {
            let g: GameSummary = r.json().await.expect("summary");
            if g.status == GameStatus::Finished {
                return g;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the game of room {room} was never stored as finished");
}

/// The one JSON line a random-game program prints at the end, checked against the
/// stored game: finished, with the same winner.
pub(crate) async fn check_outcome(server: &TestServer, stdout: &str) -> Value {
    let outcome: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON line, not {stdout:?}: {e}"));
    let room = outcome["room"].as_str().expect("room");
    let stored = finished(server, room).await;
    assert_eq!(
        serde_json::to_value(stored.winner).expect("json"),
        outcome["winner"],
        "{outcome}"
    );
    assert!(
        outcome["actions"].as_u64() > Some(5),
        "the seat played: {outcome}"
    );
    assert_eq!(outcome["scores"].as_array().map(Vec::len), Some(3));
    outcome
}

#[test]
fn the_kit_packs_with_its_code_its_declarations_and_the_protocols() {
    if !node_ready("the kit package test") {
        return;
    }
    let (_, files) = packed_kit();
    for wanted in [
        "package.json",
        "kit.js",
        "kit.d.ts",
        "protocol.d.ts",
        "LICENSE-MIT",
        "LICENSE-APACHE",
    ] {
        assert!(files.iter().any(|f| f == wanted), "{wanted} in {files:?}");
    }
    let package: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("web/kit/package.json")).expect("package.json"),
    )
    .expect("JSON");
    assert_eq!(package["exports"]["."]["types"], "./kit.d.ts");
    assert_eq!(package["exports"]["."]["default"], "./kit.js");
    assert_eq!(package["exports"]["./protocol"]["types"], "./protocol.d.ts");
    assert_eq!(package["types"], "./kit.d.ts");
    // The packed kit is the browser client's, byte for byte: one source.
    let dir = scratch_project(&[]);
    let installed = dir.path().join("node_modules/catan-server-kit");
    assert_eq!(
        std::fs::read_to_string(installed.join("kit.js")).expect("kit.js"),
        std::fs::read_to_string(repo_root().join("web/kit.js")).expect("web/kit.js")
    );
    let declarations = std::fs::read_to_string(installed.join("kit.d.ts")).expect("kit.d.ts");
    for api in [
        "export class Connection",
        "export function api(",
        "export function foldEvent(",
        "export const PROTOCOL_VERSION: 1;",
    ] {
        assert!(declarations.contains(api), "kit.d.ts declares {api}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_that_installs_the_kit_type_checks_against_it_and_plays_a_game() {
    if !node_ready("the kit package test") {
        return;
    }
    let dir = scratch_project(&[
        ("examples/kit/random-game.ts", "random-game.ts"),
        ("examples/kit/tsconfig.json", "tsconfig.json"),
    ]);
    tsc(dir.path(), "tsconfig.json").expect("the example compiles against the package");

    // The declarations are real types: a wrong action or option does not compile.
    std::fs::write(
        dir.path().join("wrong.ts"),
        "import { Connection } from 'catan-server-kit';\n\
         declare const conn: Connection;\n\
         conn.act({ type: 'build_road' });\n\
         new Connection({ base: 'ws://x', roomId: 7 });\n",
    )
    .expect("wrong.ts");
    std::fs::write(
        dir.path().join("tsconfig.wrong.json"),
        r#"{"extends": "./tsconfig.json", "files": ["wrong.ts"]}"#,
    )
    .expect("tsconfig");
    let errors = tsc(dir.path(), "tsconfig.wrong.json").expect_err("wrong.ts must not compile");
    assert!(
        errors.contains("wrong.ts(3,") && errors.contains("wrong.ts(4,"),
        "both mistakes reported: {errors}"
    );

    let server = TestServer::start_with(|c| c.bots.bot_think_ms = 0).await;
    let stdout = node(dir.path(), "random-game.js", &[&server.url("")]).await;
    check_outcome(&server, &stdout).await;
    server.stop().await;
}
