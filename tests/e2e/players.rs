//! Players (protocol section 25): guests, claiming an account, signing in, sessions
//! listed and revoked, signing out everywhere, deleting the player; the cookie's
//! attributes; the sign-in limits; wrong name and wrong password alike in answer and
//! time; no token or password in the store's columns or the log.

use std::time::{Duration, Instant};

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{PlayerInfo, SessionList, SignedIn};
use serde_json::{Value, json};

/// A call's status, JSON body (`Null` when empty) and headers.
async fn call(
    server: &TestServer,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, reqwest::header::HeaderMap) {
    server.call(method, path, token, body).await
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

fn set_cookie(h: &reqwest::header::HeaderMap) -> String {
    h.get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

async fn guest(server: &TestServer, name: &str) -> SignedIn {
    let (signed, headers) = server.guest(name).await;
    let cookie = set_cookie(&headers);
    assert!(
        cookie.starts_with(&format!("catan_session={}", signed.token))
            && cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Lax")
            && cookie.contains("Path=/"),
        "{cookie}"
    );
    signed
}

async fn sign_in(server: &TestServer, name: &str, password: &str) -> (u16, Value) {
    let (status, body, _) = call(
        server,
        reqwest::Method::POST,
        "/api/sessions",
        None,
        Some(json!({ "name": name, "password": password })),
    )
    .await;
    (status, body)
}

async fn me(server: &TestServer, token: &str) -> (u16, Value) {
    let (status, body, _) = call(server, reqwest::Method::GET, "/api/me", Some(token), None).await;
    (status, body)
}

/// The whole life of a player, against the server on `url`; returns the secrets
/// it used, for the caller to look for where they must not be.
async fn a_players_life(server: &TestServer) -> Vec<String> {
    let mut secrets = Vec::new();
    // A guest, without a form: its token works as a bearer token and as the cookie.
    let ann = guest(server, "Ann").await;
    assert!(ann.token.starts_with("cs_") && ann.token.len() == 67);
    assert!(!ann.player.account && ann.session.current);
    secrets.push(ann.token.clone());
    let (status, body) = me(server, &ann.token).await;
    assert_eq!(status, 200);
    let info: PlayerInfo = serde_json::from_value(body).expect("PlayerInfo");
    assert_eq!(info, ann.player);
    let by_cookie = server
        .http
        .get(server.url("/api/me"))
        .header("cookie", format!("theme=dark; catan_session={}", ann.token))
        .send()
        .await
        .expect("http");
    assert_eq!(by_cookie.status(), 200, "the cookie signs the call in");
    let (status, body, _) = call(server, reqwest::Method::GET, "/api/me", None, None).await;
    assert_eq!((status, code(&body)), (401, "not_signed_in"));
    let (status, body) = me(server, "cs_0000").await;
    assert_eq!((status, code(&body)), (401, "not_signed_in"));

    // Claiming: the name's rules, the password's, then the account.
    let claim = |token: String, name: &str, password: &str| {
        let body = json!({ "name": name, "password": password });
        async move {
            let (s, b, _) = call(
                server,
                reqwest::Method::POST,
                "/api/me/claim",
                Some(&token),
                Some(body),
            )
            .await;
            (s, b)
        }
    };
    let password = "correct horse battery";
    secrets.push(password.to_owned());
    let (s, b) = claim(ann.token.clone(), "Ann", "short").await;
    assert_eq!((s, code(&b)), (400, "invalid_password"));
    for reserved in ["Bot 2", "机器人 3", "deleted player", ""] {
        let (s, b) = claim(ann.token.clone(), reserved, password).await;
        assert_eq!((s, code(&b)), (400, "invalid_name"), "{reserved}");
    }
    let (s, b) = claim(ann.token.clone(), "Ann", password).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["account"], true);
    assert_eq!(b["id"], json!(ann.player.id), "the guest keeps its id");
    let (s, b) = claim(ann.token.clone(), "Ann2", password).await;
    assert_eq!((s, code(&b)), (409, "already_claimed"));
    // Another guest cannot take the name in another case or form.
    let bob = guest(server, "Bob").await;
    secrets.push(bob.token.clone());
    for same in ["ann", "ＡＮＮ", " ANN "] {
        let (s, b) = claim(bob.token.clone(), same, "another password").await;
        assert_eq!((s, code(&b)), (409, "name_taken"), "{same}");
    }
    // A guest's name is its own: any name that is not an account's key is fine.
    let (s, b, _) = call(
        server,
        reqwest::Method::POST,
        "/api/me/name",
        Some(&bob.token),
        Some(json!({"name": "Bobby"})),
    )
    .await;
    assert_eq!((s, b["name"].as_str()), (200, Some("Bobby")));

    // Signing in: a wrong password and an unknown name answer alike.
    let (s1, wrong_password) = sign_in(server, "Ann", "not the password").await;
    let (s2, unknown_name) = sign_in(server, "Nobody", "not the password").await;
    assert_eq!((s1, s2), (401, 401));
    assert_eq!(wrong_password, unknown_name, "the same answer");
    assert_eq!(code(&unknown_name), "invalid_credentials");
    let (s, second) = sign_in(server, "ＡＮＮ", password).await;
    assert_eq!(s, 201, "{second}");
    let second: SignedIn = serde_json::from_value(second).expect("SignedIn");
    assert_eq!(second.player.id, ann.player.id);
    secrets.push(second.token.clone());

    // Sessions: both listed, the call's own marked; one revoked from the other.
    let (s, list, _) = call(
        server,
        reqwest::Method::GET,
        "/api/sessions",
        Some(&second.token),
        None,
    )
    .await;
    assert_eq!(s, 200);
    let list: SessionList = serde_json::from_value(list).expect("SessionList");
    assert_eq!(list.sessions.len(), 2);
    assert_eq!(
        list.sessions
            .iter()
            .filter(|x| x.current)
            .map(|x| x.id)
            .collect::<Vec<_>>(),
        vec![second.session.id]
    );
    let path = format!("/api/sessions/{}", ann.session.id);
    let (s, _, _) = call(
        server,
        reqwest::Method::DELETE,
        &path,
        Some(&second.token),
        None,
    )
    .await;
    assert_eq!(s, 204);
    assert_eq!(
        me(server, &ann.token).await.0,
        401,
        "the revoked session ended"
    );
    let (s, b, _) = call(
        server,
        reqwest::Method::DELETE,
        &path,
        Some(&second.token),
        None,
    )
    .await;
    assert_eq!((s, code(&b)), (404, "session_not_found"));
    // Bob cannot end Ann's session.
    let other = format!("/api/sessions/{}", second.session.id);
    let (s, _, _) = call(
        server,
        reqwest::Method::DELETE,
        &other,
        Some(&bob.token),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_eq!(me(server, &second.token).await.0, 200);
    // Signing out: the cookie is cleared.
    let (s, _, h) = call(
        server,
        reqwest::Method::DELETE,
        "/api/sessions/current",
        Some(&second.token),
        None,
    )
    .await;
    assert_eq!(s, 204);
    assert!(set_cookie(&h).contains("Max-Age=0"), "{}", set_cookie(&h));
    assert_eq!(me(server, &second.token).await.0, 401);
    // Signing out everywhere.
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let (s, b) = sign_in(server, "ann", password).await;
        assert_eq!(s, 201);
        tokens.push(b["token"].as_str().expect("token").to_owned());
    }
    let (s, _, _) = call(
        server,
        reqwest::Method::DELETE,
        "/api/sessions",
        Some(&tokens[0]),
        None,
    )
    .await;
    assert_eq!(s, 204);
    for t in &tokens {
        assert_eq!(me(server, t).await.0, 401, "every session ended");
    }
    secrets.extend(tokens);

    // Deleting: sessions end, the name is free, signing in fails.
    let (_, b) = sign_in(server, "Ann", password).await;
    let last = b["token"].as_str().expect("token").to_owned();
    let (s, _, h) = call(
        server,
        reqwest::Method::DELETE,
        "/api/me",
        Some(&last),
        None,
    )
    .await;
    assert_eq!(s, 204);
    assert!(set_cookie(&h).contains("Max-Age=0"));
    assert_eq!(me(server, &last).await.0, 401);
    let (s, b) = sign_in(server, "Ann", password).await;
    assert_eq!((s, code(&b)), (401, "invalid_credentials"));
    let (s, b) = claim(bob.token.clone(), "Ann", "another password").await;
    assert_eq!(s, 200, "the deleted account's name is free: {b}");
    secrets.push(last);
    secrets
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_claims_an_account_signs_in_again_and_ends_its_sessions_on_sqlite() {
    let (url, dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let secrets = a_players_life(&server).await;
    server.stop().await;
    // No token or password is in the database file, in any form but a digest.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).expect("dir") {
        bytes.extend(std::fs::read(entry.expect("entry").path()).expect("read"));
    }
    let text = String::from_utf8_lossy(&bytes);
    for s in &secrets {
        assert!(!text.contains(s.as_str()), "{s} is stored in the clear");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_claims_an_account_signs_in_again_and_ends_its_sessions_on_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let secrets = a_players_life(&server).await;
    server.stop().await;
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let dump: String = sqlx::query_scalar(
        "SELECT string_agg(t::text, ' ') FROM (SELECT p::text AS t FROM players p \
         UNION ALL SELECT s::text FROM sessions s) x",
    )
    .fetch_one(&pool)
    .await
    .expect("dump");
    for s in &secrets {
        assert!(!dump.contains(s.as_str()), "{s} is stored in the clear");
    }
    assert!(dump.contains("$argon2id$"), "passwords are Argon2id hashes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cookie_is_secure_only_behind_a_trusted_proxy_that_says_https() {
    let server = TestServer::start_with(|c| {
        c.listen.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
    })
    .await;
    let post = |proto: Option<&'static str>| {
        let mut req = server
            .http
            .post(server.url("/api/guests"))
            .json(&json!({"name": "Ann"}));
        if let Some(p) = proto {
            req = req.header("x-forwarded-proto", p);
        }
        async move { req.send().await.expect("http") }
    };
    let https = post(Some("https")).await;
    assert!(set_cookie(https.headers()).contains("; Secure"));
    let plain = post(None).await;
    assert!(!set_cookie(plain.headers()).contains("Secure"));
    server.stop().await;
    // Without a trusted proxy the header is anyone's: not believed.
    let server = TestServer::start().await;
    let r = server
        .http
        .post(server.url("/api/guests"))
        .header("x-forwarded-proto", "https")
        .json(&json!({"name": "Ann"}))
        .send()
        .await
        .expect("http");
    assert!(!set_cookie(r.headers()).contains("Secure"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_attempts_are_limited_per_address_and_per_account_name() {
    // Per address: a burst of 3, then 429 with Retry-After, for any name.
    let server = TestServer::start_with(|c| {
        c.players.sign_in_rate_per_min = 1;
        c.players.sign_in_burst = 3;
        c.players.sign_in_per_account_per_hour = 0;
    })
    .await;
    for i in 0..3 {
        let (s, _) = sign_in(&server, &format!("name{i}"), "wrong password").await;
        assert_eq!(s, 401);
    }
    let r = server
        .http
        .post(server.url("/api/sessions"))
        .json(&json!({"name": "other", "password": "wrong password"}))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    server.stop().await;

    // Per name, from every address together, whether an account has it or not.
    let server = TestServer::start_with(|c| {
        c.players.sign_in_rate_per_min = 0;
        c.players.sign_in_burst = 3;
        c.players.sign_in_per_account_per_hour = 1;
    })
    .await;
    let ann = guest(&server, "Ann").await;
    let (s, _, _) = call(
        &server,
        reqwest::Method::POST,
        "/api/me/claim",
        Some(&ann.token),
        Some(json!({"name": "Ann", "password": "correct horse battery"})),
    )
    .await;
    assert_eq!(s, 200);
    for name in ["Ann", "Zed"] {
        for _ in 0..3 {
            assert_eq!(sign_in(&server, name, "wrong password").await.0, 401);
        }
        let (s, b) = sign_in(&server, &name.to_uppercase(), "correct horse battery").await;
        assert_eq!(
            (s, code(&b)),
            (429, "rate_limited"),
            "{name}: counted by its key"
        );
    }
    assert_eq!(
        sign_in(&server, "Bob", "wrong password").await.0,
        401,
        "another name"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_name_takes_as_long_as_a_wrong_password() {
    let _cores = catan_e2e::hold_cores(
        catan_e2e::Load::Cores(1),
        "times password hashes against each other",
    )
    .await;
    let server = TestServer::start().await;
    let ann = guest(&server, "Ann").await;
    let (s, _, _) = call(
        &server,
        reqwest::Method::POST,
        "/api/me/claim",
        Some(&ann.token),
        Some(json!({"name": "Ann", "password": "correct horse battery"})),
    )
    .await;
    assert_eq!(s, 200);
    let time = |name: &'static str| {
        let server = &server;
        async move {
            let t = Instant::now();
            assert_eq!(sign_in(server, name, "wrong password").await.0, 401);
            t.elapsed()
        }
    };
    time("Nobody").await; // the stand-in hash is made at the first unknown name
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        known.push(time("Ann").await);
        unknown.push(time("Nobody").await);
    }
    known.sort();
    unknown.sort();
    let (k, u) = (known[4], unknown[4]);
    let ratio = u.as_secs_f64() / k.as_secs_f64();
    assert!(
        (0.67..1.5).contains(&ratio),
        "medians: wrong password {k:?}, unknown name {u:?} (ratio {ratio:.2})"
    );
    assert!(
        k > Duration::from_millis(2),
        "a password check does real work: {k:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_or_password_reaches_the_log() {
    let (db, _dir) = fresh_sqlite_url();
    let mut server = TestServer::spawn_process_with(&db, &[("RUST_LOG", "debug")]);
    server
        .wait_ready(Duration::from_secs(20))
        .await
        .expect("ready");
    let secrets = a_players_life(&server).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = server.output.lock().expect("output").join("\n");
    assert!(log.contains("INFO"), "the log was kept: {log}");
    for s in &secrets {
        assert!(!log.contains(s.as_str()), "{s} is in the log");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_taken_signed_in_is_linked_to_the_player_and_a_deleted_player_is_renamed_in_the_game()
 {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let ann = guest(&server, "Ann").await;
    let room = server.create_room(json!({"players": 3})).await;
    // Signed in by the session's bearer token; the seat token works as always.
    let (s, seat, _) = call(
        &server,
        reqwest::Method::POST,
        &format!("/api/rooms/{}/seats", room.room_id),
        Some(&ann.token),
        Some(json!({"name": "Ann at the table"})),
    )
    .await;
    assert_eq!(s, 201, "{seat}");
    // A seat taken with a stale session cookie is taken unlinked, not refused.
    let r = server
        .http
        .post(server.url(&format!("/api/rooms/{}/seats", room.room_id)))
        .header("cookie", "catan_session=cs_stale")
        .json(&json!({"name": "Bob"}))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 201);
    server.add_bot(room.room_id, &room.host_token).await;
    server.start_game(room.room_id, &room.host_token).await;
    let store = catan_server::store::SqlStore::connect(&url)
        .await
        .expect("store");
    use catan_server::store::Store as _;
    let stored = store.game(room.room_id).await.expect("game");
    let linked: Vec<_> = stored
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.player_id))
        .collect();
    assert!(
        linked.contains(&("Ann at the table", Some(ann.player.id))),
        "{linked:?}"
    );
    assert!(linked.contains(&("Bob", None)), "{linked:?}");
    // The bot's seat is its level's identity's (protocol 25.7).
    let bots: Vec<_> = stored.players.iter().filter_map(|p| p.bot).collect();
    assert_eq!(bots.len(), 1, "{linked:?}");
    assert!(
        linked.contains(&(
            stored.players[2].name.as_str(),
            Some(catan_server::store::bot_player_id(bots[0]))
        )),
        "{linked:?}"
    );
    assert_eq!(
        linked.iter().filter(|(_, p)| p.is_some()).count(),
        2,
        "{linked:?}"
    );

    let (s, _, _) = call(
        &server,
        reqwest::Method::DELETE,
        "/api/me",
        Some(&ann.token),
        None,
    )
    .await;
    assert_eq!(s, 204);
    let (s, game, _) = call(
        &server,
        reqwest::Method::GET,
        &format!("/api/games/{}", room.room_id),
        None,
        None,
    )
    .await;
    assert_eq!(s, 200, "{game}");
    let names: Vec<&str> = game["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&"deleted player"), "{names:?}");
    assert!(!names.contains(&"Ann at the table"), "{names:?}");
    assert!(names.contains(&"Bob"), "{names:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_signs_nothing_in_and_goes_when_a_new_one_opens() {
    use catan_server::store::{PlayerRow, SessionRow, Store as _};
    let (url, _dir) = fresh_sqlite_url();
    // Sessions of no days: expired as soon as they are opened.
    let server = TestServer::start_with(|c| {
        c.store.database_url = url.clone().into();
        c.players.session_days = 0;
    })
    .await;
    let ann = guest(&server, "Ann").await;
    let (s, b) = me(&server, &ann.token).await;
    assert_eq!((s, code(&b)), (401, "not_signed_in"));
    server.stop().await;
    // The store: a player's expired session goes when it opens a new one, and
    // nobody else's does.
    let store = catan_server::store::SqlStore::connect(&url)
        .await
        .expect("store");
    let bob = PlayerRow {
        id: uuid::Uuid::new_v4(),
        name: "Bob".into(),
        password_hash: None,
        created_at: 1_000,
        deleted: false,
    };
    store.create_player(&bob).await.expect("player");
    let session = |created_at: u64, expires_at: u64| SessionRow {
        id: uuid::Uuid::new_v4(),
        player_id: bob.id,
        label: "test".into(),
        created_at,
        expires_at,
    };
    store
        .create_session(&session(1_000, 2_000), "digest-old")
        .await
        .expect("old");
    store
        .create_session(&session(3_000, 9_000_000_000_000), "digest-new")
        .await
        .expect("new");
    let count = |sql: &'static str| {
        let pool = store.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .expect("count")
        }
    };
    assert_eq!(
        count("SELECT COUNT(*) FROM sessions WHERE token_hash = 'digest-old'").await,
        0,
        "the expired one went"
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM sessions").await,
        2,
        "Ann's stays, Bob's new one"
    );
}
