//! The HTTP lobby: rooms, seats, bots, start, origins; errors with stable codes.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_protocol::{ErrorBody, RoomInfo, RoomList, RoomStatus, ServerMessage};
use serde_json::json;

async fn error_of(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    let body: ErrorBody = r.json().await.expect("error body");
    assert!(!body.error.message.is_empty());
    (status, body.error.code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_are_created_listed_and_fetched_with_their_options() {
    let server = TestServer::start().await;
    let listed = server
        .create_room(
            json!({"players": 3, "vp_target": 12, "map": "beginner", "turn_timer_secs": 30}),
        )
        .await;
    assert_eq!(listed.room.options.game.players, 3);
    assert_eq!(listed.room.options.game.vp_target, 12);
    assert_eq!(listed.room.options.turn_timer_secs, 30);
    assert_eq!(listed.room.status, RoomStatus::Lobby);
    assert_eq!(listed.host_token.len(), 32);
    let private = server.create_room(json!({"listed": false})).await;
    assert_eq!(private.room.options.game.players, 4, "defaults apply");

    let list: RoomList = server
        .http
        .get(server.url("/api/rooms"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(list.rooms.iter().any(|r| r.id == listed.room_id));
    assert!(
        !list.rooms.iter().any(|r| r.id == private.room_id),
        "private rooms are not listed"
    );

    let got: RoomInfo = server
        .http
        .get(server.url(&format!("/api/rooms/{}", private.room_id)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got.id, private.room_id, "a private room is reachable by id");

    let r = server
        .http
        .get(server.url(&format!("/api/rooms/{}", uuid::Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (404, "room_not_found".into()));
    let r = server
        .http
        .get(server.url("/api/rooms/not-a-uuid"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (404, "room_not_found".into()));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_room_options_and_bodies_are_refused() {
    let server = TestServer::start().await;
    for (body, code) in [
        (json!({"players": 5}), "invalid_options"),
        (json!({"vp_target": 2}), "invalid_options"),
        (json!({"turn_timer_secs": 99999}), "invalid_options"),
        // Stand-ins wait at most as long as any timer.
        (json!({"stand_in_secs": 3601}), "invalid_options"),
        // the turn limit is 100 to 5000.
        (json!({"turn_limit": 99}), "invalid_options"),
        (json!({"turn_limit": 5001}), "invalid_options"),
        // Beyond the field's type too: a number it does not take.
        (json!({"turn_limit": 70000}), "invalid_options"),
        (json!({"colour": "red"}), "bad_request"),
        (json!({"players": "four"}), "bad_request"),
    ] {
        let r = server
            .http
            .post(server.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(error_of(r).await, (400, code.into()), "{body}");
    }
    let r = server
        .http
        .post(server.url("/api/rooms"))
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "bad_request".into()));
    // A value of the right JSON type that no option takes is an invalid option, and
    // the message names the field; a body that is not an object is a bad request
    // (serde would read `[4]` as the fields in order).
    for (body, code, names) in [
        (json!({"map": "huge"}), "invalid_options", Some("map")),
        (
            json!({"stand_in_level": "genius"}),
            "invalid_options",
            Some("stand_in_level"),
        ),
        (json!({"players": 300}), "invalid_options", Some("players")),
        (
            json!({"vp_target": -1}),
            "invalid_options",
            Some("vp_target"),
        ),
        (json!([4]), "bad_request", None),
        (json!([]), "bad_request", None),
        (json!("players"), "bad_request", None),
        (json!(4), "bad_request", None),
        (json!(null), "bad_request", None),
    ] {
        let r = server
            .http
            .post(server.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let err: ErrorBody = r.json().await.expect("error body");
        assert_eq!((status, err.error.code.as_str()), (400, code), "{body}");
        if let Some(field) = names {
            assert!(
                err.error.message.contains(field),
                "{body}: {}",
                err.error.message
            );
        }
    }
    assert_eq!(
        server
            .http
            .get(server.url("/api/rooms"))
            .send()
            .await
            .unwrap()
            .json::<RoomList>()
            .await
            .unwrap()
            .rooms
            .len(),
        0,
        "no room was created"
    );
    // The same for the other bodies: a seat is not taken with `["bob"]`.
    let created = server.create_room(json!({})).await;
    let r = server
        .http
        .post(server.url(&format!("/api/rooms/{}/seats", created.room_id)))
        .json(&json!(["bob"]))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "bad_request".into()));
    let r = server
        .http
        .post(server.url(&format!("/api/rooms/{}/bots", created.room_id)))
        .bearer_auth(&created.host_token)
        .json(&json!([null, "random"]))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "bad_request".into()));
    server.stop().await;
}

#[tokio::test]
async fn the_host_removes_a_bot_or_a_waiting_person_before_the_start_and_nobody_else_can() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let room = created.room_id;
    let host = created.host_token.as_str();
    let ann = server.take_seat(room, "ann").await;
    let bob = server.take_seat(room, "bob").await;
    server.add_bot(room, host).await;
    let seat_url = |seat: u8| server.url(&format!("/api/rooms/{room}/seats/{seat}"));
    let room_url = server.url(&format!("/api/rooms/{room}"));
    let occupied = |info: &RoomInfo| info.seats.iter().filter(|s| s.occupant.is_some()).count();
    let room_now = || async {
        let r = server.http.get(&room_url).send().await.expect("http");
        r.json::<RoomInfo>().await.expect("room")
    };
    assert_eq!(occupied(&room_now().await), 3);

    // Another person's token removes nobody.
    let r = server
        .http
        .delete(seat_url(2))
        .bearer_auth(&ann.token)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (401, "invalid_token".into()));
    assert_eq!(occupied(&room_now().await), 3, "nothing changed");

    // The host takes the bot's seat back; a free seat is no seat to remove.
    let r = server
        .http
        .delete(seat_url(2))
        .bearer_auth(host)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let now = room_now().await;
    assert_eq!(occupied(&now), 2);
    assert!(now.seats[2].occupant.is_none());
    let r = server
        .http
        .delete(seat_url(2))
        .bearer_auth(host)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "no_such_seat".into()));

    // And a person waiting: told why, closed with 4011, the token no longer works.
    let mut bob_ws = server.connect(room, Some(&bob.token), None).await;
    bob_ws
        .recv_until(|m| matches!(m, ServerMessage::Snapshot(_)))
        .await;
    let r = server
        .http
        .delete(seat_url(bob.seat.0))
        .bearer_auth(host)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let closing = bob_ws
        .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
        .await;
    assert!(
        matches!(&closing, ServerMessage::Closing { code, .. } if code == "kicked"),
        "{closing:?}"
    );
    assert_eq!(bob_ws.close_code().await, Some(4011));
    let r = server
        .http
        .delete(seat_url(bob.seat.0))
        .bearer_auth(&bob.token)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (401, "invalid_token".into()));
    assert_eq!(occupied(&room_now().await), 1, "only ann is left");

    // Once the game started, no seat is taken back.
    server.add_bot(room, host).await;
    server.add_bot(room, host).await;
    server.start_game(room, host).await;
    let r = server
        .http
        .delete(seat_url(ann.seat.0))
        .bearer_auth(host)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (409, "already_started".into()));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_are_taken_left_and_filled_and_only_the_host_starts_a_full_room() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let room = created.room_id;
    let seats_url = server.url(&format!("/api/rooms/{room}/seats"));

    let r = server
        .http
        .post(&seats_url)
        .json(&json!({"name": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "invalid_name".into()));
    let r = server
        .http
        .post(&seats_url)
        .json(&json!({"name": "x".repeat(40)}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "invalid_name".into()));
    let r = server
        .http
        .post(&seats_url)
        .json(&json!({"name": "a", "seat": 7}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (400, "no_such_seat".into()));

    let ann = server.take_seat(room, "ann").await;
    assert_ne!(ann.token, created.host_token);
    let r = server
        .http
        .post(&seats_url)
        .json(&json!({"name": "b", "seat": ann.seat.0}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (409, "seat_taken".into()));

    // Leaving needs the seat's own token.
    let leave = server.url(&format!("/api/rooms/{room}/seats/{}", ann.seat.0));
    let r = server
        .http
        .delete(&leave)
        .bearer_auth("wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (401, "invalid_token".into()));
    let r = server
        .http
        .delete(&leave)
        .bearer_auth(&ann.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let ann = server.take_seat(room, "ann").await;

    let start = server.url(&format!("/api/rooms/{room}/start"));
    let r = server
        .http
        .post(&start)
        .bearer_auth(&created.host_token)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (409, "not_full".into()));
    let bots = server.url(&format!("/api/rooms/{room}/bots"));
    let r = server
        .http
        .post(&bots)
        .bearer_auth(&ann.token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        error_of(r).await,
        (401, "not_host".into()),
        "a seat token is not the host token"
    );
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    let r = server
        .http
        .post(&seats_url)
        .json(&json!({"name": "late"}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (409, "room_full".into()));
    let r = server.http.post(&start).send().await.unwrap();
    assert_eq!(error_of(r).await, (401, "not_host".into()));
    let info = server.start_game(room, &created.host_token).await;
    assert_eq!(info.status, RoomStatus::Playing);
    assert!(
        info.seats
            .iter()
            .filter(|s| s.occupant.as_ref().is_some_and(|o| o.bot.is_some()))
            .count()
            == 2
    );
    let r = server
        .http
        .post(&start)
        .bearer_auth(&created.host_token)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (409, "already_started".into()));
    let r = server
        .http
        .delete(&leave)
        .bearer_auth(&ann.token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        error_of(r).await,
        (409, "already_started".into()),
        "seats are kept once the game is on"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_origins_cannot_open_websockets_or_read_the_api_unless_allowed() {
    let server = TestServer::start_with(|c| {
        c.listen.allowed_origins = vec!["https://play.example.org".into()]
    })
    .await;
    let created = server.create_room(json!({})).await;
    let url = format!("ws://{}/api/rooms/{}/ws", server.addr, created.room_id);
    let with_origin = |origin: &str| {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = url.clone().into_client_request().unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        req
    };
    match tokio_tungstenite::connect_async(with_origin("https://evil.example")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 403),
        other => panic!("a foreign origin got through: {:?}", other.map(|_| ())),
    }
    assert!(
        tokio_tungstenite::connect_async(with_origin("https://play.example.org"))
            .await
            .is_ok()
    );
    let same = format!("http://{}", server.addr);
    assert!(
        tokio_tungstenite::connect_async(with_origin(&same))
            .await
            .is_ok(),
        "same origin is fine"
    );

    let preflight = |origin: &'static str| {
        server
            .http
            .request(reqwest::Method::OPTIONS, server.url("/api/rooms"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .send()
    };
    let ok = preflight("https://play.example.org").await.unwrap();
    assert_eq!(
        ok.headers().get("access-control-allow-origin").unwrap(),
        "https://play.example.org"
    );
    let bad = preflight("https://evil.example").await.unwrap();
    assert!(bad.headers().get("access-control-allow-origin").is_none());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reaches_every_seat_and_spectator_and_presence_is_announced() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let room = created.room_id;
    let ann = server.take_seat(room, "ann").await;
    let mut spectator = server.connect(room, None, None).await;
    let mut a = server.connect(room, Some(&ann.token), None).await;
    a.recv().await.expect("snapshot");
    spectator
        .recv_until(|m| matches!(m, ServerMessage::Presence { seat, connected: true, .. } if *seat == ann.seat))
        .await;
    a.send_json(&json!({"type": "chat", "text": "  hello table  "}))
        .await;
    for c in [&mut a, &mut spectator] {
        let m = c
            .recv_until(|m| matches!(m, ServerMessage::Chat { .. }))
            .await;
        let ServerMessage::Chat {
            seat, name, text, ..
        } = m
        else {
            unreachable!()
        };
        assert_eq!(
            (seat, name.as_str(), text.as_str()),
            (Some(ann.seat), "ann", "hello table")
        );
    }
    drop(a);
    spectator
        .recv_until(|m| matches!(m, ServerMessage::Presence { seat, connected: false, .. } if *seat == ann.seat))
        .await;
    server.stop().await;
}

/// `POST` to take a seat at `url` as a page of `origin` (the header's bytes) would.
async fn take_seat_from(
    server: &TestServer,
    url: &str,
    origin: &[u8],
    name: &str,
) -> reqwest::Response {
    let origin = reqwest::header::HeaderValue::from_bytes(origin).expect("a header value");
    server
        .http
        .post(url)
        .header("origin", origin)
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("http")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_page_cannot_take_a_seat_over_http() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let url = server.url(&format!("/api/rooms/{}/seats", created.room_id));
    let r = take_seat_from(&server, &url, b"https://evil.example", "mallory").await;
    assert_eq!(error_of(r).await, (403, "origin_not_allowed".into()));
    let room: RoomInfo = server
        .http
        .get(server.url(&format!("/api/rooms/{}", created.room_id)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        room.seats.iter().all(|s| s.occupant.is_none()),
        "nothing changed"
    );
    let same = format!("http://{}", server.addr);
    let r = take_seat_from(&server, &url, same.as_bytes(), "ann").await;
    assert_eq!(r.status(), 201, "the server's own page may");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebound_name_or_an_unreadable_origin_is_not_the_servers_own_page() {
    let server = TestServer::start().await;
    let created = server.create_room(json!({"players": 3})).await;
    let url = server.url(&format!("/api/rooms/{}/seats", created.room_id));
    let port = server.addr.port();
    // DNS rebinding: a page of evil.example, whose name now resolves to the server,
    // sends its own name as both Origin and Host.
    let rebound = format!("http://evil.example:{port}");
    let r = server
        .http
        .post(&url)
        .header("origin", &rebound)
        .header("host", format!("evil.example:{port}"))
        .json(&json!({"name": "mallory"}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(r).await, (403, "origin_not_allowed".into()));
    let r = take_seat_from(&server, &url, b"http://\xfe\xff", "mallory").await;
    assert_eq!(error_of(r).await, (403, "origin_not_allowed".into()));
    let own = format!("http://localhost:{port}");
    let r = take_seat_from(&server, &url, own.as_bytes(), "ann").await;
    assert_eq!(r.status(), 201, "the loopback address's own page may");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_opened_at_the_servers_ip_is_served_and_a_refused_origin_is_logged_with_its_fix() {
    // As behind a proxy in a container: the public origins name the domain only.
    let (db, _dir) = catan_e2e::fresh_sqlite_url();
    let mut server = TestServer::spawn_process_with(
        &db,
        &[("CATAN_PUBLIC_ORIGINS", "https://catan.example.org")],
    );
    server
        .wait_ready(Duration::from_secs(20))
        .await
        .expect("ready");
    let created = server.create_room(json!({"players": 3})).await;
    let url = server.url(&format!("/api/rooms/{}/seats", created.room_id));
    // A page opened at http://IP:PORT (a trial by IP): its origin is the address the
    // request went to, so it is the server's own without any setting.
    let by_ip = format!("http://{}", server.addr);
    let r = take_seat_from(&server, &url, by_ip.as_bytes(), "ann").await;
    assert_eq!(r.status(), 201, "the page opened at the server's IP may");
    // A name is not an IP: refused, and the refusal says what to set, in the log.
    for _ in 0..3 {
        let r = take_seat_from(&server, &url, b"https://catan.example.net", "bob").await;
        let status = r.status().as_u16();
        let body: serde_json::Value = r.json().await.expect("json");
        assert_eq!(status, 403);
        assert_eq!(body["error"]["code"], "origin_not_allowed");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("CATAN_PUBLIC_ORIGINS")),
            "{body}"
        );
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let out = server.output.lock().unwrap().clone();
    let logged: Vec<&String> = out
        .iter()
        .filter(|l| l.contains("https://catan.example.net"))
        .collect();
    assert_eq!(logged.len(), 1, "logged once a minute per origin: {out:#?}");
    assert!(
        logged[0].contains("CATAN_PUBLIC_ORIGINS") && logged[0].contains("CATAN_DOMAIN"),
        "the log names the setting: {}",
        logged[0]
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_parameter_of_the_wrong_type_is_a_bad_request_with_the_usual_body() {
    // Every call that reads a query answers a malformed one as any other refusal:
    // 400, `bad_request`, a message that says what (not a plain-text rejection).
    let server = TestServer::start().await;
    let room = server.create_room(json!({ "players": 3 })).await.room_id;
    for path in [
        "/api/rooms?limit=many".to_owned(),
        "/api/games?page=two".to_owned(),
        "/api/games?per_page=-1".to_owned(),
        format!("/api/rooms/{room}/ws?last_seq=-1"),
    ] {
        let r = server
            .http
            .get(server.url(&path))
            .send()
            .await
            .expect("http");
        assert_eq!(error_of(r).await, (400, "bad_request".into()), "{path}");
    }
    let r = server
        .http
        .get(server.url("/api/rooms?limit=5"))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200, "a well-formed query still works");
    server.stop().await;
}
