//! The browser client and the board geometry endpoint.
//!
//! The reference browser client lives in `web/` at the repository root as plain ES
//! modules (no build step). Its files are embedded into the binary with
//! `include_str!`, so a release binary (and the Docker image) is self-contained:
//! `GET /` serves `index.html`, `GET /web/{file}` the other files.
//!
//! The client is installable: `GET /manifest.webmanifest` is its web app manifest
//! and `GET /sw.js` its service worker, both at the root (a service worker controls
//! only its own path and below, so `/sw.js` controls the whole client). The service
//! worker keeps and intercepts nothing (`web/sw.js`).
//!
//! On a slow line the client loads fast after the first visit: every file is
//! compressed once (gzip) and sent so to browsers that accept it, and carries an
//! `ETag` (a `304` for a browser that has it). The page refers to its files under
//! `/web/v/{version}/` (the version a digest of every file), which may be cached for
//! good (`immutable`): a new build has a new version, so the page never mixes old and
//! new modules. Relative imports between the modules stay under the same version by
//! themselves. The page itself is kept a minute, then revalidated: a page of the
//! build before gets this build's files under its old version (revalidated, not kept),
//! all of one build.
//!
//! The admin page (`web/admin.html`, `web/admin.js`) is embedded beside them but
//! served only by the admin listener, at `/admin/ui` (see `crate::admin`).
//!
//! `GET /api/board` answers the fixed topology (tiles, intersections, paths, coast
//! and harbor paths) as JSON, so clients need not re-derive the geometry.
//!
//! `GET /api/schema.json` answers the protocol's JSON Schema, the bundle committed in
//! `catan-protocol` ([`catan_protocol::schema::SCHEMA_JSON`]), as this server speaks it.

use std::io::Write;
use std::sync::LazyLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_protocol::BoardGeometry;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The Content-Security-Policy of every answer of the public listener: the client's
/// page loads only its own scripts, style sheets and API (`'self'`, which covers its
/// WebSocket), runs no inline script, and no page may frame it. Style attributes are
/// allowed (the client colours seats and cards with them); style elements are not.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// The security headers every answer of the public listener carries (unless a
/// handler set its own): CSP, no framing, no MIME sniffing, no referrer.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

/// `router` with [`SECURITY_HEADERS`] on every answer.
pub fn with_security_headers(mut router: Router) -> Router {
    for (name, value) in SECURITY_HEADERS {
        router = router.layer(
            tower_http::set_header::SetResponseHeaderLayer::if_not_present(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            ),
        );
    }
    router
}

/// The embedded client files: name, content type, content.
const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/app.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/board.js"),
    ),
    (
        "kit.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/kit.js"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/i18n.js"),
    ),
    (
        "strings-en.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/strings-en.js"),
    ),
    (
        "strings-zh-hans.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/strings-zh-hans.js"),
    ),
    (
        "strings-zh-hant.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/strings-zh-hant.js"),
    ),
    (
        "ui.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/ui.js"),
    ),
    (
        "state.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/state.js"),
    ),
    (
        "dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/dom.js"),
    ),
    (
        "icons.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/icons.js"),
    ),
    (
        "help.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/help.js"),
    ),
    (
        "motion.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/motion.js"),
    ),
    (
        "log.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/log.js"),
    ),
    (
        "game.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/game.js"),
    ),
    (
        "dialogs.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/dialogs.js"),
    ),
    (
        "endgame.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/endgame.js"),
    ),
    (
        "players.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/players.js"),
    ),
    (
        "replay.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/replay.js"),
    ),
    (
        "quickplay.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/quickplay.js"),
    ),
    (
        "mygames.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/mygames.js"),
    ),
    (
        "sw.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/sw.js"),
    ),
    (
        "manifest.webmanifest",
        "application/manifest+json",
        include_str!("../../../web/manifest.webmanifest"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_str!("../../../web/icon.svg"),
    ),
    (
        "icon-maskable.svg",
        "image/svg+xml",
        include_str!("../../../web/icon-maskable.svg"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    (
        "admin.html",
        "text/html; charset=utf-8",
        include_str!("../../../web/admin.html"),
    ),
    (
        "admin.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/admin.js"),
    ),
];

/// The files the admin page loads, served only by the admin listener under
/// `/admin/ui/` (and not by the public one).
const ADMIN_FILES: [&str; 7] = [
    "admin.js",
    "i18n.js",
    "dom.js",
    "strings-en.js",
    "strings-zh-hans.js",
    "strings-zh-hant.js",
    "style.css",
];

/// The files served at the root (`/{name}`) and not under `/web/`: the service
/// worker (its scope is its own path and below) and the manifest that names it.
const ROOT_FILES: [&str; 2] = ["sw.js", "manifest.webmanifest"];

/// Whether the public listener serves `name` under `/web/` (the admin page is not
/// its; the root's files are at the root only).
fn public(name: &str) -> bool {
    !name.starts_with("admin.") && !ROOT_FILES.contains(&name)
}

/// One embedded file as served: its type, its bytes (the page's `index.html` with
/// its files under the version), gzipped, and its validator.
struct Asset {
    /// The name under `/web/`.
    name: &'static str,
    /// Its `Content-Type`.
    mime: &'static str,
    /// The file as sent uncompressed.
    body: Vec<u8>,
    /// The same, gzipped once at start-up (sent when it is smaller and accepted).
    gzip: Vec<u8>,
    /// A strong `ETag`: a digest of `body`, quoted.
    etag: String,
}

/// The client's version: a digest of every embedded file (a new build with any change
/// has a new one), the path segment of the files the page refers to.
pub static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut h = Sha256::new();
    for (name, _, body) in FILES {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(body.as_bytes());
    }
    hex12(&h.finalize())
});

fn hex12(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    digest.iter().take(6).fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|&(name, mime, text)| {
            // The page names its files under the version: `/web/x` becomes `/web/v/{version}/x`.
            let body = if name == "index.html" {
                text.replace("\"/web/", &format!("\"/web/v/{}/", *VERSION))
                    .into_bytes()
            } else {
                text.as_bytes().to_vec()
            };
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(&body).expect("gzip into memory");
            let gzip = gz.finish().expect("gzip into memory");
            let etag = format!("\"{}\"", hex12(&Sha256::digest(&body)));
            Asset {
                name,
                mime,
                body,
                gzip,
                etag,
            }
        })
        .collect()
});

/// How long a browser may keep a file without asking again.
#[derive(Clone, Copy)]
enum Caching {
    /// Ask every time (`no-cache`; a `304` when it has not changed): files named
    /// without the version, or under another build's.
    Revalidate,
    /// Kept a minute, then asked again: the page (opened again soon, it costs no
    /// round trip on a slow line).
    Minute,
    /// For good (`immutable`): a file under the current version never changes.
    Forever,
}

/// Whether `headers` accept gzip (`Accept-Encoding`, a `q=0` refusing it).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|part| {
            let mut bits = part.split(';').map(str::trim);
            let coding = bits.next().unwrap_or("");
            let refused = bits.any(|p| p.replace(' ', "") == "q=0" || p == "q=0.0");
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

/// Whether `If-None-Match` names `etag` (or is `*`).
fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}

fn file(name: &str, headers: &HeaderMap, caching: Caching) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let cache = match caching {
        Caching::Revalidate => "no-cache",
        Caching::Minute => "max-age=60",
        Caching::Forever => "public, max-age=31536000, immutable",
    };
    let common = [
        (header::CACHE_CONTROL, cache),
        (header::VARY, "Accept-Encoding"),
    ];
    let etag = (header::ETAG, asset.etag.as_str());
    if not_modified(headers, &asset.etag) {
        return (StatusCode::NOT_MODIFIED, common, [etag]).into_response();
    }
    if accepts_gzip(headers) && asset.gzip.len() < asset.body.len() {
        return (
            common,
            [
                etag,
                (header::CONTENT_TYPE, asset.mime),
                (header::CONTENT_ENCODING, "gzip"),
            ],
            asset.gzip.clone(),
        )
            .into_response();
    }
    (
        common,
        [etag, (header::CONTENT_TYPE, asset.mime)],
        asset.body.clone(),
    )
        .into_response()
}

/// Whether `path` is one of the client's own files (the page, `/web/...`): public,
/// served whatever page asks (the origin check lets them through).
#[must_use]
pub fn is_client_file(path: &str) -> bool {
    path == "/"
        || path.starts_with("/web/")
        || ROOT_FILES.iter().any(|f| path.strip_prefix('/') == Some(f))
}

/// `GET /`: the client's page (its files under the current version).
pub async fn index(headers: HeaderMap) -> Response {
    file("index.html", &headers, Caching::Minute)
}

/// `GET /sw.js`: the client's service worker, at the root so that it controls the
/// whole client; asked for again each time (a new build's takes over).
pub async fn service_worker(headers: HeaderMap) -> Response {
    file("sw.js", &headers, Caching::Revalidate)
}

/// `GET /manifest.webmanifest`: the client's web app manifest (its name, icons,
/// colours and start page), which makes it installable.
pub async fn manifest(headers: HeaderMap) -> Response {
    file("manifest.webmanifest", &headers, Caching::Revalidate)
}

/// `GET /web/{file}`: a file of the client (404 for anything not embedded), asked for
/// again each time (a `304` while it has not changed).
pub async fn asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    if !public(&name) {
        return StatusCode::NOT_FOUND.into_response();
    }
    file(&name, &headers, Caching::Revalidate)
}

/// `GET /admin/ui` on the admin listener: the admin page. It holds nothing secret
/// and is served without the admin token; every call it makes carries the token
/// the operator types in.
pub async fn admin_page(headers: HeaderMap) -> Response {
    file("admin.html", &headers, Caching::Revalidate)
}

/// `GET /admin/ui/{file}` on the admin listener: a file the admin page loads.
pub async fn admin_asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    if !ADMIN_FILES.contains(&name.as_str()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    file(&name, &headers, Caching::Revalidate)
}

/// `GET /web/v/{version}/{file}`: a file of the client as the page names it, kept for
/// good when `version` is this build's; a page of another build gets this build's
/// file, asked for again each time.
pub async fn versioned_asset(
    Path((version, name)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let caching = if version == *VERSION {
        Caching::Forever
    } else {
        Caching::Revalidate
    };
    if !public(&name) {
        return StatusCode::NOT_FOUND.into_response();
    }
    file(&name, &headers, caching)
}

/// The board's fixed geometry as JSON (see protocol.md, `GET /api/board`).
#[must_use]
pub fn board_json() -> Value {
    serde_json::to_value(BoardGeometry::of_topology()).expect("the geometry serializes")
}

/// `GET /api/board`: the fixed board topology.
pub async fn board() -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=86400")],
        axum::Json(board_json()),
    )
        .into_response()
}

/// `GET /api/schema.json`: the JSON Schema of every message and body of the protocol.
pub async fn schema() -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        catan_protocol::schema::SCHEMA_JSON,
    )
        .into_response()
}
