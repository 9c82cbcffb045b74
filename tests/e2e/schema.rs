//! The machine-readable contract as client authors get it: the JSON Schema served at
//! `GET /api/schema.json`, and the browser client type-checked against the TypeScript
//! declarations generated from it (`npx tsc --noEmit -p web`, web/tsconfig.json).
//!
//! The type check is skipped, with a message, when node/npm or `web/node_modules` is
//! missing, unless `CATAN_REQUIRE_BROWSER` is set (as `.ci/run` does): then it fails.

use std::path::Path;

use catan_e2e::TestServer;

#[tokio::test]
async fn the_schema_is_served_at_api_schema_json() {
    let server = TestServer::start().await;
    let answer = server
        .http
        .get(server.url("/api/schema.json"))
        .send()
        .await
        .expect("GET /api/schema.json");
    assert_eq!(answer.status(), 200);
    assert!(
        answer.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("application/json")
    );
    let served: serde_json::Value = answer.json().await.expect("the schema is JSON");
    assert_eq!(
        served,
        catan_protocol::schema::bundle(),
        "the served schema is the one this code generates \
         (`CATAN_BLESS=1 cargo test -p catan-protocol` rewrites the committed file)"
    );
    for name in [
        "ClientMessage",
        "ServerMessage",
        "CreateRoomRequest",
        "Replay",
    ] {
        assert!(served["$defs"][name].is_object(), "{name} is defined");
    }
    // A body the server writes, checked against the served schema.
    let board: serde_json::Value = server
        .http
        .get(server.url("/api/board"))
        .send()
        .await
        .expect("GET /api/board")
        .json()
        .await
        .expect("json");
    let mut schema = served.clone();
    schema["anyOf"] = serde_json::json!([{ "$ref": "#/$defs/BoardGeometry" }]);
    let errors: Vec<String> = jsonschema::validator_for(&schema)
        .expect("the served schema compiles")
        .iter_errors(&board)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "GET /api/board: {}", errors.join("\n"));
    server.stop().await;
}

#[tokio::test]
async fn the_browser_client_type_checks_against_the_generated_declarations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root");
    let web = root.join("web");
    let required = std::env::var_os("CATAN_REQUIRE_BROWSER").is_some_and(|v| !v.is_empty());
    let npx = tokio::process::Command::new("npx")
        .arg("--version")
        .output()
        .await
        .is_ok_and(|o| o.status.success());
    let typescript = web.join("node_modules/typescript/package.json").exists();
    if !npx || !typescript {
        let what = format!("npx present: {npx}, web/node_modules/typescript present: {typescript}");
        assert!(
            !required,
            "CATAN_REQUIRE_BROWSER is set but the client cannot be type-checked ({what}); \
             install Node.js and npm, then `cd web && npm ci`"
        );
        eprintln!(
            "SKIPPED the type check of the browser client ({what}): install Node.js and \
             npm, then `cd web && npm ci`, or set CATAN_REQUIRE_BROWSER=1 to make this a failure"
        );
        return;
    }
    // From web/, so that npx finds web/node_modules/.bin/tsc; `--no` never downloads.
    let output = tokio::process::Command::new("npx")
        .args(["--no", "--", "tsc", "--noEmit", "-p", "."])
        .current_dir(&web)
        .kill_on_drop(true)
        .output()
        .await
        .expect("run npx tsc");
    assert!(
        output.status.success(),
        "`npx tsc --noEmit -p web` found errors ({}): the browser client does not match \
         the protocol's declarations (web/protocol.d.ts)\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
