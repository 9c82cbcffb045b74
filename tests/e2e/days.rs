//! Games over days over real sockets (protocol 27): the room option and its
//! refusals, each seat's clock in the snapshot, and a deadline that passed while
//! the server was down firing as soon as the game is restored.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{DaysOptions, ServerMessage};
use serde_json::json;

#[tokio::test]
async fn a_room_over_days_takes_its_preset_and_refuses_a_field_out_of_range_by_name() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "days": { "move_hours": 72 } }))
        .await;
    assert_eq!(created.room.options.days, Some(DaysOptions::preset(72)));
    let live = server.create_room(json!({ "players": 3 })).await;
    assert_eq!(live.room.options.days, None);
    for (body, field) in [
        (json!({ "days": { "move_hours": 0 } }), "move_hours"),
        (
            json!({ "days": { "move_hours": 24, "vacation_days": 99 } }),
            "vacation_days",
        ),
        (json!({ "days": { "move_hours": "a day" } }), "days"),
    ] {
        let r = server
            .http
            .post(server.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(r.status().as_u16(), 400, "{body}");
        let e: serde_json::Value = r.json().await.expect("json");
        assert_eq!(e["error"]["code"], "invalid_options", "{e}");
        assert!(
            e["error"]["message"].as_str().unwrap_or("").contains(field),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passed_while_the_server_was_down_fires_on_restore() {
    let (db, dir) = catan_e2e::fresh_sqlite_url();
    let mut server = TestServer::spawn_process(&db);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("up");
    let created = server
        .create_room(json!({ "players": 3, "days": { "move_hours": 1, "bank_hours": 0, "bank_cap_hours": 0, "vacation_days": 0 } }))
        .await;
    let room = created.room_id;
    let mut seats = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        seats.push(server.take_seat(room, name).await);
    }
    server.start_game(room, &created.host_token).await;
    let mut c = server.connect(room, Some(&seats[0].token), None).await;
    let ServerMessage::Snapshot(s) = c
        .recv_until(|m| matches!(m, ServerMessage::Snapshot(s) if s.view.is_some()))
        .await
    else {
        unreachable!()
    };
    assert_eq!(s.clocks.len(), 3);
    let due: Vec<_> = s.clocks.iter().filter(|c| c.deadline.is_some()).collect();
    assert_eq!(due.len(), 1, "one move is due: {:?}", s.clocks);
    let mover = due[0].seat;
    assert_eq!(s.deadline, due[0].deadline);
    drop(c);

    // Down for two hours: the stored times are moved back by two hours, as if.
    server.kill();
    let path = dir.path().join("catan.db");
    let shifted = std::process::Command::new("sqlite3")
        .arg(&path)
        .arg(
            "UPDATE games SET started_at = started_at - 7200000, created_at = created_at - 7200000; \
             UPDATE game_actions SET created_at = created_at - 7200000;",
        )
        .status()
        .expect("sqlite3 runs");
    assert!(shifted.success());
    let mut server = TestServer::spawn_process(&db);
    server
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("back");
    // Restored at the start, the room finds the move's hour long gone: a bot
    // makes it at once, and the seat's clock counts the time-out.
    let mut c = server.connect(room, Some(&seats[1].token), None).await;
    let timed_out = |m: &ServerMessage| {
        let clocks = match m {
            ServerMessage::Snapshot(s) => &s.clocks,
            ServerMessage::Events { clocks, .. } => clocks,
            _ => return false,
        };
        clocks.get(mover.index()).is_some_and(|k| k.time_outs == 1)
    };
    tokio::time::timeout(Duration::from_secs(10), c.recv_until(timed_out))
        .await
        .expect("the bot made the timed-out move within seconds of the restart");
}
