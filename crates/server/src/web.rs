//! The browser client and the board geometry endpoint.
//!
//! The reference browser client lives in `web/` at the repository root as plain ES
//! modules (no build step). Its files are embedded into the binary with
//! `include_str!`, so a release binary (and the Docker image) is self-contained:
//! `GET /` serves `index.html`, `GET /web/{file}` the other files.
//!
//! `GET /api/board` answers the fixed topology (tiles, intersections, paths, coast
//! and harbor paths) as JSON, so clients need not re-derive the geometry.
//!
//! `GET /api/schema.json` answers the protocol's JSON Schema, the bundle committed in
//! `catan-protocol` ([`catan_protocol::schema::SCHEMA_JSON`]), as this server speaks it.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_protocol::BoardGeometry;
use serde_json::Value;

/// The Content-Security-Policy of every answer of the public listener: the client's
/// page loads only its own scripts, style sheets and API (`'self'`, which covers its
/// WebSocket), runs no inline script, and no page may frame it. Style attributes are
/// allowed (the client colours seats and cards with them); style elements are not.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
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
        "replay.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/replay.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
];

fn file(name: &str) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, mime, body)) => (
            [
                (header::CONTENT_TYPE, *mime),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `GET /`: the client's page.
pub async fn index() -> Response {
    file("index.html")
}

/// `GET /web/{file}`: a file of the client (404 for anything not embedded).
pub async fn asset(Path(name): Path<String>) -> Response {
    file(&name)
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
