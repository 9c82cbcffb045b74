//! Moderation (protocol 22.9): an administrator finds a player, mutes them (their
//! chat is refused with `muted`, other seats' is not), bans them (their sessions
//! end, their connected seats are closed with 4011, their seat tokens and their
//! password are refused with `banned`, a wrong password still answers
//! `invalid_credentials`), lifts both, and every action is in the player's audit
//! log with its reason; bad requests change nothing. On SQLite and PostgreSQL.

use catan_e2e::{Client, TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{AdminPlayer, AdminPlayerDetail, AdminPlayerList, ServerMessage};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

async fn admin(server: &TestServer, path: &str, body: Option<Value>) -> (u16, Value) {
    let r = match body {
        Some(b) => server.admin_post(path, &b).await,
        None => server.admin_get(path).await,
    };
    let status = r.status().as_u16();
    let text = r.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn sign_in(server: &TestServer, password: &str) -> (u16, Value) {
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/sessions",
            None,
            Some(json!({ "name": "Ann", "password": password })),
        )
        .await;
    (status, body)
}

/// Says `text` on `from` and returns what `from` is answered and whether `to`
/// hears it. A ping after each marks the end: the room answers it after the chat,
/// on the same connection, in order.
async fn say(from: &mut Client, to: &mut Client, text: &str) -> (Option<String>, bool) {
    from.send_json(&json!({ "type": "chat", "text": text }))
        .await;
    from.send_json(&json!({ "type": "ping", "request_id": "after" }))
        .await;
    let mut refused = None;
    loop {
        match from.recv().await.expect("socket open") {
            ServerMessage::Error { code, .. } => refused = Some(code),
            ServerMessage::Pong { .. } => break,
            _ => {}
        }
    }
    to.send_json(&json!({ "type": "ping", "request_id": "marker" }))
        .await;
    let mut heard = false;
    loop {
        match to.recv().await.expect("socket open") {
            ServerMessage::Chat { text: t, .. } if t == text => heard = true,
            ServerMessage::Pong { .. } => break,
            _ => {}
        }
    }
    (refused, heard)
}

/// The status of a WebSocket upgrade with seat token `token`, and the error body's
/// code when refused.
async fn upgrade(server: &TestServer, room: Uuid, token: &str) -> Result<(), (u16, String)> {
    let url = server
        .url(&format!("/api/rooms/{room}/ws?token={token}"))
        .replacen("http", "ws", 1);
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => Ok(()),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            let body: Value = r
                .body()
                .as_ref()
                .and_then(|b| serde_json::from_slice(b).ok())
                .unwrap_or(Value::Null);
            Err((r.status().as_u16(), code(&body).to_owned()))
        }
        Err(e) => panic!("websocket: {e}"),
    }
}

async fn moderation_life(server: &TestServer) {
    let ann = server.guest("Ann").await.0;
    server.claim(&ann, PASSWORD).await;
    let bob = server.guest("Bob").await.0;
    let room = server.create_room(json!({ "players": 3 })).await.room_id;
    let ann_seat = server.seat_as(room, &ann).await;
    let bob_seat = server.seat_as(room, &bob).await;
    let mut ann_ws = server.connect(room, Some(&ann_seat), None).await;
    let mut bob_ws = server.connect(room, Some(&bob_seat), None).await;

    // Found by a part of the name, in any case; nothing sanctioned yet.
    let (status, body) = admin(server, "/admin/players?name=aN", None).await;
    assert_eq!(status, 200, "{body}");
    let list: AdminPlayerList = serde_json::from_value(body).expect("AdminPlayerList");
    assert_eq!(list.total, 1);
    assert_eq!(list.players[0].id, ann.player.id);
    assert!(list.players[0].account && list.players[0].banned.is_none());
    let (_, body) = admin(server, "/admin/players?limit=1&offset=1", None).await;
    let page: AdminPlayerList = serde_json::from_value(body).expect("AdminPlayerList");
    assert_eq!((page.total, page.offset, page.players.len()), (2, 1, 1));

    // Bad requests are refused and change nothing.
    let bob_path = format!("/admin/players/{}", bob.player.id);
    for (path, body, status, expected) in [
        (
            format!("{bob_path}/mute"),
            json!({ "reason": " " }),
            400,
            "bad_request",
        ),
        (
            format!("{bob_path}/mute"),
            json!({ "reason": "x", "hours": 0 }),
            400,
            "bad_request",
        ),
        (
            format!("{bob_path}/unmute"),
            json!({ "reason": "x", "hours": 2 }),
            400,
            "bad_request",
        ),
        (
            format!("{bob_path}/silence"),
            json!({ "reason": "x" }),
            400,
            "bad_request",
        ),
        (
            format!("{bob_path}/mute"),
            json!({ "reason": "x", "extra": 1 }),
            400,
            "bad_request",
        ),
        (
            format!("{bob_path}/mute"),
            json!({ "reason": "x", "by": "a\u{7}b" }),
            400,
            "bad_request",
        ),
        (
            format!("/admin/players/{}/ban", Uuid::new_v4()),
            json!({ "reason": "x" }),
            404,
            "player_not_found",
        ),
        (
            "/admin/players/not-an-id/ban".to_owned(),
            json!({ "reason": "x" }),
            404,
            "player_not_found",
        ),
    ] {
        let (got, answer) = admin(server, &path, Some(body)).await;
        assert_eq!((got, code(&answer)), (status, expected), "{path}: {answer}");
    }
    let unauthorized = server
        .http
        .post(server.admin_url(&format!("{bob_path}/ban")))
        .json(&json!({ "reason": "x" }))
        .send()
        .await
        .expect("http");
    assert_eq!(unauthorized.status(), 401);
    let (detail, actions) = record(server, &bob_path).await;
    assert!(actions.is_empty() && detail.player.muted.is_none());
    let (refused, heard) = say(&mut bob_ws, &mut ann_ws, "hello before").await;
    assert_eq!((refused, heard), (None, true));

    // Muted for an hour: Bob's chat is refused, Ann's still reaches him.
    let (status, body) = admin(
        server,
        &format!("{bob_path}/mute"),
        Some(json!({ "reason": "spam in chat", "hours": 1, "by": "Mei" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let muted: AdminPlayer = serde_json::from_value(body).expect("AdminPlayer");
    let m = muted.muted.expect("muted");
    assert_eq!(m.reason, "spam in chat");
    assert_eq!(m.until, Some(m.since + 3_600_000));
    let (refused, heard) = say(&mut bob_ws, &mut ann_ws, "spam").await;
    assert_eq!((refused.as_deref(), heard), (Some("muted"), false));
    let (refused, heard) = say(&mut ann_ws, &mut bob_ws, "hello Bob").await;
    assert_eq!((refused, heard), (None, true));
    let (status, _) = admin(
        server,
        &format!("{bob_path}/unmute"),
        Some(json!({ "reason": "said sorry" })),
    )
    .await;
    assert_eq!(status, 200);
    let (refused, heard) = say(&mut bob_ws, &mut ann_ws, "sorry").await;
    assert_eq!((refused, heard), (None, true));

    // Banned until lifted: Ann's seat is closed with 4011, her session ends, her
    // password and her seat token are refused with `banned`; a wrong password
    // answers as it always does.
    let ann_path = format!("/admin/players/{}", ann.player.id);
    let (status, body) = admin(
        server,
        &format!("{ann_path}/ban"),
        Some(json!({ "reason": "cheating" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let banned: AdminPlayer = serde_json::from_value(body).expect("AdminPlayer");
    assert_eq!(
        banned.banned.as_ref().map(|b| (b.reason.as_str(), b.until)),
        Some(("cheating", None))
    );
    let closing = ann_ws
        .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
        .await;
    assert!(
        matches!(closing, ServerMessage::Closing { ref code, .. } if code == "kicked"),
        "{closing:?}"
    );
    assert_eq!(ann_ws.close_code().await, Some(4011));
    let (status, body, _) = server
        .call(Method::GET, "/api/me", Some(&ann.token), None)
        .await;
    assert_eq!((status, code(&body)), (401, "not_signed_in"));
    let (status, body) = sign_in(server, PASSWORD).await;
    assert_eq!((status, code(&body)), (403, "banned"));
    let (status, body) = sign_in(server, "wrong password").await;
    assert_eq!((status, code(&body)), (401, "invalid_credentials"));
    assert_eq!(
        upgrade(server, room, &ann_seat).await,
        Err((403, "banned".to_owned()))
    );

    // What the administrator sees: the ban, no session, the profile, the record;
    // never a password, its hash or a token.
    let (status, body) = admin(server, &ann_path, None).await;
    assert_eq!(status, 200);
    let text = body.to_string();
    for secret in [PASSWORD, ann.token.as_str(), ann_seat.as_str(), "argon2"] {
        assert!(!text.contains(secret), "the detail shows {secret}");
    }
    let detail: AdminPlayerDetail = serde_json::from_value(body).expect("detail");
    assert!(detail.sessions.is_empty());
    assert_eq!(detail.profile.id, ann.player.id);
    assert_eq!(detail.moderation.len(), 1);
    assert_eq!(detail.moderation[0].reason, "cheating");

    // Lifted: she signs in and her seat takes her back.
    let (status, _) = admin(
        server,
        &format!("{ann_path}/unban"),
        Some(json!({ "reason": "appeal granted" })),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = sign_in(server, PASSWORD).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(upgrade(server, room, &ann_seat).await, Ok(()));
    let (detail, actions) = record(server, &ann_path).await;
    assert_eq!(
        actions,
        ["Unban appeal granted by admin", "Ban cheating by admin"]
    );
    assert!(detail.player.banned.is_none() && detail.sessions.len() == 1);
    let (detail, actions) = record(server, &bob_path).await;
    assert_eq!(
        actions,
        ["Unmute said sorry by admin", "Mute spam in chat by Mei"]
    );
    assert!(detail.moderation.iter().all(|m| m.at > 0));
}

/// What `GET {path}` (an admin player detail) answers, and its moderation record in
/// words, newest first.
async fn record(server: &TestServer, path: &str) -> (AdminPlayerDetail, Vec<String>) {
    let (status, body) = admin(server, path, None).await;
    assert_eq!(status, 200, "{body}");
    let detail: AdminPlayerDetail = serde_json::from_value(body).expect("detail");
    let actions = detail
        .moderation
        .iter()
        .map(|m| format!("{:?} {} by {}", m.action, m.reason, m.by))
        .collect();
    (detail, actions)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_mutes_and_bans_a_player_and_lifts_both_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.admin_token = Some("moderation-admin-token".into());
    })
    .await;
    moderation_life(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_mutes_and_bans_a_player_and_lifts_both_on_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.admin_token = Some("moderation-admin-token".into());
    })
    .await;
    moderation_life(&server).await;
    server.stop().await;
}

/// The admin page (protocol 22.10): served by the admin listener without the token
/// (it holds nothing secret), with the files it loads and no other; not by the
/// public listener; every call still needs the token.
#[tokio::test]
async fn the_admin_page_is_served_without_the_token_and_nothing_else_is() {
    let server = TestServer::start_with(|c| c.admin_token = Some("page-admin-token".into())).await;
    let get = |url: String| {
        let http = server.http.clone();
        async move {
            let r = http.get(url).send().await.expect("http");
            let status = r.status().as_u16();
            let csp = r
                .headers()
                .get("content-security-policy")
                .map(|v| v.to_str().unwrap_or("").to_owned());
            (status, csp, r.text().await.unwrap_or_default())
        }
    };
    let (status, csp, page) = get(server.admin_url("/admin/ui")).await;
    assert_eq!(status, 200);
    assert!(page.contains("/admin/ui/admin.js"), "{page}");
    assert!(csp.is_some_and(|c| c.contains("script-src 'self'")));
    for file in [
        "admin.js",
        "i18n.js",
        "dom.js",
        "strings-zh-hant.js",
        "style.css",
    ] {
        let (status, _, _) = get(server.admin_url(&format!("/admin/ui/{file}"))).await;
        assert_eq!(status, 200, "{file}");
    }
    for file in ["app.js", "admin.html", "../app.js", "kit.js"] {
        let (status, _, _) = get(server.admin_url(&format!("/admin/ui/{file}"))).await;
        assert_ne!(status, 200, "{file} is not the admin page's");
    }
    for path in ["/web/admin.js", "/web/admin.html", "/admin/ui"] {
        let (status, _, _) = get(server.url(path)).await;
        assert_ne!(status, 200, "the public listener serves {path}");
    }
    for path in ["/admin/rooms", "/admin/players", "/admin/ui/../rooms"] {
        let (status, _, _) = get(server.admin_url(path)).await;
        assert_eq!(status, 401, "{path} without the token");
    }
    server.stop().await;
}

/// In a cluster (docs/cluster.md), a ban taken through one instance reaches a seat
/// connected to another: the owner of the room reads the sanctions in force every
/// 5 s (`players::sanctions::REFRESH`), closes the seat with 4011 and refuses it
/// after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_taken_through_one_instance_closes_the_seat_on_another() {
    use catan_server::store::SqlStore;
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let admin_env = [("CATAN_ADMIN_TOKEN", "cluster-moderation-token")];
    let a = crate::cluster::instance_at_with(&url, &plain, "a", "9", &admin_env).await;
    let b = crate::cluster::instance_at_with(&url, &plain, "b", "9", &admin_env).await;
    let ann = a.guest("Ann").await.0;
    let room = a.create_room(json!({ "players": 3 })).await.room_id;
    let seat = a.seat_as(room, &ann).await;
    let mut ws = a.connect(room, Some(&seat), None).await;
    ws.recv().await.expect("a snapshot");
    let banned_at = std::time::Instant::now();
    let (status, body) = admin(
        &b,
        &format!("/admin/players/{}/ban", ann.player.id),
        Some(json!({ "reason": "cheating" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let closing = ws
        .recv_until(|m| matches!(m, ServerMessage::Closing { .. }))
        .await;
    assert!(matches!(closing, ServerMessage::Closing { ref code, .. } if code == "kicked"));
    assert_eq!(ws.close_code().await, Some(4011));
    let took = banned_at.elapsed();
    assert!(
        took < std::time::Duration::from_secs(8),
        "closed after {took:?}"
    );
    assert_eq!(
        upgrade(&a, room, &seat).await,
        Err((403, "banned".to_owned()))
    );
    plain.close();
}

/// Moderation while other writes go on, on SQLite: thirty players muted at one
/// moment are all muted (each moderation's transaction writes first, so SQLite's
/// one writer lock is waited for rather than failed on).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn moderations_at_one_moment_all_land_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.admin_token = Some("moderation-admin-token".into());
    })
    .await;
    let mut paths = Vec::new();
    for i in 0..30 {
        let (p, _) = server.guest(&format!("P{i}")).await;
        paths.push(format!("/admin/players/{}/mute", p.player.id));
    }
    let answers = futures_util::future::join_all(
        paths
            .iter()
            .map(|path| admin(&server, path, Some(json!({ "reason": "test", "hours": 1 })))),
    )
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
    }
    server.stop().await;
}
