//! Quick play's queue (protocol 26) over real sockets, on SQLite and PostgreSQL:
//! tables formed, seated and started once everyone is connected, every refusal
//! with its code and nothing changed; by module:
//!
//! - `life`: a table's life over HTTP (joins, refusals, seats, the start, bots
//!   after the wait) and the per-player limit;
//! - `tables`: who does not connect is dropped and the seat refilled; a table
//!   whose instance died gives its players back;
//! - `socket`: the queue over its WebSocket;
//! - `parties`: friends queued together;
//! - `concurrency`: formings, joins and party joins at one moment.

mod concurrency;
mod life;
mod parties;
mod socket;
mod tables;

use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{QueueStatus, RoomInfo, SignedIn};
use reqwest::Method;
use serde_json::{Value, json};

pub(super) fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

pub(super) async fn call(
    server: &TestServer,
    method: Method,
    p: &SignedIn,
    body: Option<Value>,
) -> (u16, Value) {
    let (status, body, _) = server
        .call(method, "/api/queue", Some(&p.token), body)
        .await;
    (status, body)
}

pub(super) async fn room_info(server: &TestServer, room: uuid::Uuid) -> RoomInfo {
    let (status, body, _) = server
        .call(Method::GET, &format!("/api/rooms/{room}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("RoomInfo")
}

/// Polls the room until its game started (at most 15 s).
pub(super) async fn playing(server: &TestServer, room: uuid::Uuid) -> RoomInfo {
    for _ in 0..150 {
        let info = room_info(server, room).await;
        if info.status == catan_protocol::RoomStatus::Playing {
            return info;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the game of {room} did not start within 15 s");
}

/// Polls `p`'s status until seated (at most 15 s).
pub(super) async fn seated(server: &TestServer, p: &SignedIn) -> QueueStatus {
    for _ in 0..150 {
        let (status, body) = call(server, Method::GET, p, None).await;
        assert_eq!(status, 200, "{body}");
        let s: QueueStatus = serde_json::from_value(body).expect("QueueStatus");
        if s.seated.is_some() {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} was not seated within 15 s", p.player.name);
}

/// Joins `p` to the queue for `seats` with or without bots.
pub(super) async fn join(server: &TestServer, p: &SignedIn, seats: u8, bots: bool) {
    let (status, body) = call(
        server,
        Method::POST,
        p,
        Some(json!({ "seats": seats, "bots": bots })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

/// The names at `room`'s seats and how many bots.
pub(super) fn sitting(room: &RoomInfo) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut bots = 0;
    for o in room.seats.iter().filter_map(|s| s.occupant.as_ref()) {
        if o.bot.is_some() {
            bots += 1;
        } else {
            names.push(o.name.clone());
        }
    }
    names.sort();
    (names, bots)
}
