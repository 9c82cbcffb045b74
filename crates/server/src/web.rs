//! The browser client and the board geometry endpoint.
//!
//! The reference browser client lives in `web/` at the repository root as plain ES
//! modules (no build step). Its files are embedded into the binary with
//! `include_str!`, so a release binary (and the Docker image) is self-contained:
//! `GET /` serves `index.html`, `GET /web/{file}` the other files.
//!
//! `GET /api/board` answers the fixed topology (tiles, intersections, paths, coast
//! and harbor paths) as JSON, so clients need not re-derive the geometry.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_engine::board::topology;
use serde_json::{Value, json};

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
    let t = topology();
    let tiles: Vec<Value> = t
        .tile_coords
        .iter()
        .enumerate()
        .map(|(id, &(q, r))| {
            json!({
                "id": id,
                "q": q,
                "r": r,
                "x": 2 * i16::from(q) + i16::from(r),
                "y": 3 * i16::from(r),
                "vertices": t.tile_vertices[id].iter().map(|v| v.0).collect::<Vec<_>>(),
                "neighbors": t.tile_neighbors[id].iter().map(|n| n.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let vertices: Vec<Value> = t
        .vertex_coords
        .iter()
        .enumerate()
        .map(|(id, &(x, y))| {
            json!({
                "id": id,
                "x": x,
                "y": y,
                "tiles": t.vertex_tiles[id].iter().map(|n| n.0).collect::<Vec<_>>(),
                "edges": t.vertex_edges[id].iter().map(|e| e.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let edges: Vec<Value> = t
        .edge_vertices
        .iter()
        .enumerate()
        .map(|(id, [a, b])| json!({"id": id, "a": a.0, "b": b.0}))
        .collect();
    json!({
        "tiles": tiles,
        "vertices": vertices,
        "edges": edges,
        "coast": t.coast.iter().map(|e| e.0).collect::<Vec<_>>(),
        "harbor_edges": t.harbor_edges.iter().map(|e| e.0).collect::<Vec<_>>(),
    })
}

/// `GET /api/board`: the fixed board topology.
pub async fn board() -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=86400")],
        axum::Json(board_json()),
    )
        .into_response()
}
