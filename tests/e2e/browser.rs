//! The browser client in real headless browsers from Debian's packages: runs
//! `node --test web/tests/` (puppeteer-core driving `chromium` over the DevTools
//! protocol and `firefox-esr` over WebDriver BiDi) against a server started here, so
//! that `cargo test` covers the client in both. One test per browser, each holding
//! two cores ([`catan_e2e::hold_cores`]): on a small machine they take turns, since
//! two browsers at once overload it.
//!
//! Skipped, with a message, when the browser or `web/node_modules` is missing,
//! unless `CATAN_REQUIRE_BROWSER` is set (as `.ci/run` does): then a missing
//! browser is a failure.

use std::path::Path;
use std::time::Instant;

use catan_e2e::{Load, TestServer, hold_cores};

/// The admin token of the server under test: the whole games are compared with the
/// engine's view from the admin API (`?view=`).
const ADMIN_TOKEN: &str = "browser-tests-admin-token";

/// Runs web/tests/ in browser `name` (`CATAN_BROWSERS`), whose binary is `binary`
/// from Debian package `package`.
async fn run_browser_tests(name: &str, binary: &str, package: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root");
    let required = std::env::var_os("CATAN_REQUIRE_BROWSER").is_some_and(|v| !v.is_empty());
    let browser = Path::new(binary);
    let modules = root.join("web/node_modules/puppeteer-core");
    if !browser.exists() || !modules.exists() {
        let what = format!(
            "{binary} present: {}, web/node_modules/puppeteer-core present: {}",
            browser.exists(),
            modules.exists()
        );
        assert!(
            !required,
            "CATAN_REQUIRE_BROWSER is set but the {name} tests cannot run ({what}); \
             install with `apt-get install -y {package}` and `cd web && npm ci`"
        );
        eprintln!(
            "SKIPPED the {name} tests ({what}): install it (`apt-get install -y {package}`) \
             and `cd web && npm ci`, or set CATAN_REQUIRE_BROWSER=1 to make this a failure"
        );
        return;
    }

    let _cores = hold_cores(
        Load::Cores(2),
        "a headless browser drawing games as fast as the server's bots play them; its \
         scenarios are timed by what the page shows, and a spectator page that fell \
         behind beside another heavy test was given a snapshot instead of the events it counts",
    )
    .await;
    let server = TestServer::start_with(|c| {
        c.bots.bot_think_ms = 0;
        c.admin_token = Some(ADMIN_TOKEN.into());
        // As web/tests/browser.test.js starts its own: quick play's tables fill
        // with bots after 5 s.
        c.queue.queue_bots_after_secs = 5;
        c.queue.queue_tick_ms = 250;
        // As browser.test.js's own server: email channels are accepted (an SMTP
        // relay that is never reached: the notifications scenario sends nothing).
        c.notify.smtp_url = Some("smtp://127.0.0.1:9?tls=none".into());
    })
    .await;
    let started = Instant::now();
    let output = tokio::process::Command::new("node")
        .args(["--test", "web/tests/"])
        .current_dir(root)
        .env("CATAN_URL", server.url(""))
        .env("CATAN_ADMIN_URL", server.admin_url(""))
        .env("CATAN_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("CATAN_BROWSERS", name)
        .kill_on_drop(true)
        .output()
        .await
        .expect("run node (Node 18 or newer must be installed)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{name} tests failed ({}); screenshots in tests/artifacts/{name}/\n--- the failures\n{}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status,
        failures(&stdout)
    );
    eprintln!(
        "{stdout}\n{name}: browser tests took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    server.stop().await;
}

/// The `not ok` blocks of node's TAP output (each failed test, its error and
/// stack), put first in a failure's message: a CI log that keeps only its head and
/// tail would otherwise cut them out of the middle of the whole output.
fn failures(tap: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in tap.lines() {
        let l = line.trim_start();
        if l.starts_with("not ok") {
            inside = true;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
            if l == "..." {
                inside = false;
            }
        }
    }
    out
}

#[test]
fn the_failures_are_cut_from_the_tap_output() {
    let tap = "ok 1 - fine\n    not ok 2 - stuck\n      ---\n      error: no progress\n      ...\n    ok 3 - fine too\n";
    assert_eq!(
        failures(tap),
        "    not ok 2 - stuck\n      ---\n      error: no progress\n      ...\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_client_plays_a_whole_game_in_headless_chromium() {
    run_browser_tests("chromium", "/usr/bin/chromium", "chromium").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_client_plays_a_whole_game_in_headless_firefox() {
    run_browser_tests("firefox", "/usr/bin/firefox-esr", "firefox-esr").await;
}

#[tokio::test]
async fn the_client_is_served_at_the_root_and_the_board_endpoint_matches_the_engine() {
    let server = TestServer::start().await;
    let page = server
        .http
        .get(server.url("/"))
        .send()
        .await
        .expect("GET /");
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/html")
    );
    assert!(page.text().await.expect("body").contains("/app.js"));
    for (file, mime) in [
        ("app.js", "text/javascript"),
        ("board.js", "text/javascript"),
        ("kit.js", "text/javascript"),
        ("i18n.js", "text/javascript"),
        ("strings-en.js", "text/javascript"),
        ("strings-zh-hans.js", "text/javascript"),
        ("strings-zh-hant.js", "text/javascript"),
        ("ui.js", "text/javascript"),
        ("log.js", "text/javascript"),
        ("game.js", "text/javascript"),
        ("dialogs.js", "text/javascript"),
        ("endgame.js", "text/javascript"),
        ("players.js", "text/javascript"),
        ("replay.js", "text/javascript"),
        ("state.js", "text/javascript"),
        ("dom.js", "text/javascript"),
        ("icons.js", "text/javascript"),
        ("help.js", "text/javascript"),
        ("motion.js", "text/javascript"),
        ("style.css", "text/css"),
    ] {
        let r = server
            .http
            .get(server.url(&format!("/web/{file}")))
            .send()
            .await
            .expect("GET asset");
        assert_eq!(r.status(), 200, "{file}");
        assert!(
            r.headers()["content-type"]
                .to_str()
                .expect("ascii")
                .starts_with(mime)
        );
    }
    client_files_are_compressed_and_cached(&server).await;
    the_client_is_installable(&server).await;
    let missing = server
        .http
        .get(server.url("/web/nope.js"))
        .send()
        .await
        .expect("GET");
    assert_eq!(missing.status(), 404);

    let board: serde_json::Value = server
        .http
        .get(server.url("/api/board"))
        .send()
        .await
        .expect("GET /api/board")
        .json()
        .await
        .expect("json");
    let t = catan_engine::board::topology();
    let tiles = board["tiles"].as_array().expect("tiles");
    let vertices = board["vertices"].as_array().expect("vertices");
    let edges = board["edges"].as_array().expect("edges");
    assert_eq!((tiles.len(), vertices.len(), edges.len()), (19, 54, 72));
    for (i, tile) in tiles.iter().enumerate() {
        let (q, r) = t.tile_coords[i];
        assert_eq!(tile["id"], i);
        assert_eq!(
            (tile["q"].as_i64(), tile["r"].as_i64()),
            (Some(q.into()), Some(r.into()))
        );
        assert_eq!(tile["x"].as_i64(), Some(i64::from(2 * q + r)));
        assert_eq!(tile["y"].as_i64(), Some(i64::from(3 * r)));
        let corners: Vec<u8> = t.tile_vertices[i].iter().map(|v| v.0).collect();
        assert_eq!(tile["vertices"], serde_json::json!(corners));
    }
    for (i, v) in vertices.iter().enumerate() {
        let (x, y) = t.vertex_coords[i];
        assert_eq!(
            (v["x"].as_i64(), v["y"].as_i64()),
            (Some(x.into()), Some(y.into()))
        );
    }
    for (i, e) in edges.iter().enumerate() {
        let [a, b] = t.edge_vertices[i];
        assert_eq!(
            (e["a"].as_u64(), e["b"].as_u64()),
            (Some(a.0.into()), Some(b.0.into()))
        );
    }
    // protocol.md 14: vertex 0 is tile 0's top corner; harbors on paths 1, 4, 17, ...
    assert_eq!(
        (vertices[0]["x"].as_i64(), vertices[0]["y"].as_i64()),
        (Some(-2), Some(-8))
    );
    assert_eq!(
        board["harbor_edges"],
        serde_json::json!([1, 4, 17, 48, 65, 69, 62, 39, 18])
    );
    assert_eq!(board["coast"].as_array().expect("coast").len(), 30);
    server.stop().await;
}

/// The installable client: the manifest, `application/manifest+json`,
/// with the fields an install needs; the service worker at the root (its scope the
/// whole client), `text/javascript`; neither under `/web/` (one address each); the
/// manifest's icons served.
async fn the_client_is_installable(server: &TestServer) {
    let get = |path: &str| server.http.get(server.url(path)).send();
    let typed = |r: &reqwest::Response| {
        r.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .to_owned()
    };
    let manifest = get("/manifest.webmanifest").await.expect("GET manifest");
    assert_eq!(manifest.status(), 200);
    assert!(typed(&manifest).starts_with("application/manifest+json"));
    let m: serde_json::Value = manifest.json().await.expect("the manifest is JSON");
    for field in ["name", "short_name", "start_url", "display", "theme_color"] {
        assert!(m[field].is_string(), "{field}: {m}");
    }
    assert_eq!(
        (m["start_url"].as_str(), m["display"].as_str()),
        (Some("/"), Some("standalone"))
    );
    let icons = m["icons"].as_array().expect("icons");
    assert!(!icons.is_empty());
    for icon in icons {
        let src = icon["src"].as_str().expect("src");
        let r = get(src).await.expect("GET icon");
        assert_eq!(r.status(), 200, "{src}");
        assert_eq!(Some(typed(&r).as_str()), icon["type"].as_str(), "{src}");
    }
    let worker = get("/sw.js").await.expect("GET /sw.js");
    assert_eq!(worker.status(), 200);
    assert!(typed(&worker).starts_with("text/javascript"));
    assert!(worker.text().await.expect("body").contains("skipWaiting"));
    for elsewhere in ["/web/sw.js", "/web/manifest.webmanifest"] {
        assert_eq!(
            get(elsewhere).await.expect("GET").status(),
            404,
            "{elsewhere}"
        );
    }
}

/// The client's files on a slow line: gzipped for a browser that accepts it (and not
/// for one that does not), each with an `ETag` answered `304` when it has not changed;
/// the page names them under the build's version, kept for good (`immutable`), and is
/// itself kept a minute, then revalidated.
async fn client_files_are_compressed_and_cached(server: &TestServer) {
    let get = |path: &str, headers: &[(&str, &str)]| {
        let mut req = server.http.get(server.url(path));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send()
    };
    let page = get("/", &[]).await.expect("GET /");
    assert_eq!(page.headers()["cache-control"], "max-age=60");
    let page_tag = page.headers()["etag"].to_str().expect("ascii").to_owned();
    let html = page.text().await.expect("body");
    let at = html
        .find("/web/v/")
        .expect("the page names its files under a version");
    let version: String = html[at + 7..].chars().take_while(|c| *c != '/').collect();
    assert_eq!(version.len(), 12, "a version of 12 hex digits: {version}");
    assert!(html.contains(&format!("/web/v/{version}/app.js")));
    let again = get("/", &[("if-none-match", &page_tag)])
        .await
        .expect("GET /");
    assert_eq!(again.status(), 304, "the page revalidates with 304");

    let plain = get("/web/app.js", &[]).await.expect("GET");
    assert!(
        plain.headers().get("content-encoding").is_none(),
        "not gzipped unasked"
    );
    let size = plain.bytes().await.expect("body").len();
    let gz = get(
        &format!("/web/v/{version}/app.js"),
        &[("accept-encoding", "gzip, deflate, br")],
    )
    .await
    .expect("GET");
    assert_eq!(gz.status(), 200);
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(gz.headers()["vary"], "Accept-Encoding");
    assert_eq!(
        gz.headers()["cache-control"],
        "public, max-age=31536000, immutable",
        "the current version is kept for good"
    );
    let tag = gz.headers()["etag"].to_str().expect("ascii").to_owned();
    let body = gz.bytes().await.expect("body");
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    assert!(
        body.len() * 2 < size,
        "gzip at least halves app.js ({} of {size} bytes)",
        body.len()
    );
    let refused = get("/web/app.js", &[("accept-encoding", "gzip;q=0, identity")])
        .await
        .expect("GET");
    assert!(
        refused.headers().get("content-encoding").is_none(),
        "q=0 refuses gzip"
    );
    let same = get(
        &format!("/web/v/{version}/app.js"),
        &[("if-none-match", &tag)],
    )
    .await
    .expect("GET");
    assert_eq!(same.status(), 304, "an unchanged file answers 304");
    assert_eq!(same.headers()["etag"].to_str().expect("ascii"), tag);
    // A page opened at an address the server refuses still loads its files (a
    // browser sends Origin with module scripts), then learns why it may not play.
    let foreign = [("origin", "http://refused.example:8080")];
    let module = get(&format!("/web/v/{version}/app.js"), &foreign)
        .await
        .expect("GET");
    assert_eq!(
        module.status(),
        200,
        "the client's files whatever the origin"
    );
    let create = server
        .http
        .post(server.url("/api/rooms"))
        .header("origin", "http://refused.example:8080")
        .json(&serde_json::json!({"players": 3}))
        .send()
        .await
        .expect("POST");
    assert_eq!(create.status(), 403, "but no room for that page");
    let other = get("/web/v/000000000000/app.js", &[]).await.expect("GET");
    assert_eq!(other.status(), 200);
    assert_eq!(
        other.headers()["cache-control"],
        "no-cache",
        "another build's page gets this build's file, not kept for good"
    );
}
