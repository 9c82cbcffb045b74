//! Notifications over real sockets, without the internet (protocol 27.6): three
//! signed-in players of games over days, each with a webhook (checked against its
//! signature), an email (to a local SMTP sink) and a Web Push subscription (to a
//! local push service that verifies the VAPID token and decrypts the payload).
//! The player whose move it is gets one `your_turn` per channel in their language,
//! a connected player none; a 500 is retried once without a duplicate; a 410
//! deletes the push channel; the unsubscribe link removes a channel; the admin's
//! log shows no secret; the failures metric counts the 500.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_notify::testing::webhook::OK;
use catan_notify::testing::{Hook, PushDelivery, push_service, smtp_sink, webhook_receiver};
use catan_notify::{SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookPayload, verify_signature};
use catan_protocol::{AdminNoticeList, NotifyChannelList, VapidKey};
use reqwest::Method;
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use uuid::Uuid;

const ADMIN: &str = "admin-token-notify";
const NAMES: [&str; 3] = ["ann", "bob", "cyd"];
const SECRET: &str = "whsec-e2e-not-shown";

/// One player: their session and id.
struct Player {
    name: &'static str,
    session: String,
    id: Uuid,
}

/// Waits up to `secs` for the next item.
async fn next<T>(rx: &mut UnboundedReceiver<T>, secs: u64, what: &str) -> T {
    tokio::time::timeout(Duration::from_secs(secs), rx.recv())
        .await
        .unwrap_or_else(|_| panic!("no {what} within {secs} s"))
        .expect("receiver open")
}

/// Asserts that nothing arrives for `ms`.
async fn quiet<T: std::fmt::Debug>(rx: &mut UnboundedReceiver<T>, ms: u64, what: &str) {
    if let Ok(Some(got)) = tokio::time::timeout(Duration::from_millis(ms), rx.recv()).await {
        panic!("unexpected {what}: {got:?}");
    }
}

/// A game over days of the three players; `connected`: each connects before the
/// start (and stays). The clients are returned to keep them open.
async fn game(
    server: &TestServer,
    players: &[Player],
    connected: bool,
) -> (Uuid, Vec<catan_e2e::Client>) {
    let created = server
        .create_room(json!({ "players": 3, "days": { "move_hours": 24 } }))
        .await;
    let room = created.room_id;
    let mut clients = Vec::new();
    for p in players {
        let (status, body, _) = server
            .call(
                Method::POST,
                &format!("/api/rooms/{room}/seats"),
                Some(&p.session),
                Some(json!({ "name": p.name })),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        if connected {
            let token = body["token"].as_str().expect("seat token").to_owned();
            clients.push(server.connect(room, Some(&token), None).await);
        }
    }
    server.start_game(room, &created.host_token).await;
    (room, clients)
}

async fn channels(server: &TestServer, p: &Player) -> NotifyChannelList {
    let (status, body, _) = server
        .call(Method::GET, "/api/me/notifications", Some(&p.session), None)
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("NotifyChannelList")
}

fn player_of_hook(hook: &Hook) -> &str {
    hook.path.trim_start_matches("/hook/")
}

fn checked_payload(hook: &Hook) -> WebhookPayload {
    let (ts, sig) = (hook.header(TIMESTAMP_HEADER), hook.header(SIGNATURE_HEADER));
    assert!(
        verify_signature(SECRET, ts, &hook.body, sig),
        "signed: {hook:?}"
    );
    assert!(!verify_signature("another", ts, &hook.body, sig));
    serde_json::from_slice(&hook.body).expect("WebhookPayload")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_whose_move_it_is_is_told_once_on_each_channel_on_sqlite() {
    the_player_whose_move_it_is_is_told_once_on_each_channel_and_nobody_else(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_whose_move_it_is_is_told_once_on_each_channel_on_postgres() {
    let url = catan_e2e::fresh_postgres_url().await;
    the_player_whose_move_it_is_is_told_once_on_each_channel_and_nobody_else(Some(url)).await;
}

#[allow(clippy::too_many_lines)]
async fn the_player_whose_move_it_is_is_told_once_on_each_channel_and_nobody_else(
    database: Option<String>,
) {
    let (hook_base, hooks_state, mut hooks) = webhook_receiver(OK).await;
    let (smtp_port, mut mails) = smtp_sink("250 OK").await;
    let (push, mut pushes) = push_service("", "mailto:ops@catan.test").await;
    let server = TestServer::start_with(|c| {
        if let Some(url) = database {
            c.store.database_url = url.into();
        }
        c.admin_token = Some(ADMIN.into());
        c.notify.notify_allow_private_webhooks = true;
        c.notify.smtp_url = Some(format!("smtp://127.0.0.1:{smtp_port}?tls=none"));
        c.notify.smtp_from = "Catan <noreply@catan.test>".to_owned();
        c.notify.vapid_subject = "mailto:ops@catan.test".to_owned();
        c.notify.public_url = Some("http://catan.test".to_owned());
        c.notify.notify_retry_base_ms = 300;
        c.notify.notify_poll_ms = 50;
    })
    .await;
    let (status, body, _) = server
        .call(Method::GET, "/api/notifications/vapid", None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let vapid: VapidKey = serde_json::from_value(body).expect("VapidKey");
    push.expect_key(&vapid.public_key);

    let mut players = Vec::new();
    for name in NAMES {
        let (me, _) = server.guest(name).await;
        let p = Player {
            name,
            session: me.token.clone(),
            id: me.player.id,
        };
        let lang = if name == "bob" { "zh-Hans" } else { "en" };
        for channel in [
            json!({ "kind": "webhook", "url": format!("{hook_base}/hook/{name}"), "format": "json", "secret": SECRET, "lang": lang }),
            json!({ "kind": "email", "to": format!("{name}@example.org"), "lang": lang }),
            json!({ "kind": "web_push", "endpoint": push.endpoint(name), "p256dh": push.browser.p256dh(), "auth": push.browser.auth_base64url(), "lang": lang }),
        ] {
            let (status, body, _) = server
                .call(
                    Method::POST,
                    "/api/me/notifications",
                    Some(&p.session),
                    Some(channel),
                )
                .await;
            assert_eq!(status, 201, "{body}");
        }
        assert_eq!(channels(&server, &p).await.channels.len(), 3);
        players.push(p);
    }
    // A webhook on a private address is refused without the flag's say-so (here
    // it is given), and a webhook that is not http is refused anyway.
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/me/notifications",
            Some(&players[0].session),
            Some(json!({ "kind": "webhook", "url": "ftp://example.org/x", "format": "json" })),
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid_channel")),
        "{body}"
    );

    // A game nobody is connected to: the mover's webhook answers 500 once.
    hooks_state.answer_next(&[(StatusCode::INTERNAL_SERVER_ERROR, "", Duration::ZERO)]);
    let (room, _none) = game(&server, &players, false).await;
    let first = next(&mut hooks, 10, "webhook").await;
    let mover = player_of_hook(&first).to_owned();
    let retried = next(&mut hooks, 10, "webhook retry").await;
    assert_eq!(player_of_hook(&retried), mover);
    assert_eq!(first.body, retried.body, "the same notice, retried");
    let payload = checked_payload(&retried);
    assert_eq!(payload.room_id, room);
    assert_eq!(payload.game_url, format!("http://catan.test/?room={room}"));
    let chinese = mover == "bob";
    assert_eq!(
        payload.title,
        if chinese {
            "轮到你了"
        } else {
            "It's your turn in Catan"
        }
    );

    let mail = next(&mut mails, 10, "mail").await;
    assert_eq!(mail.to, [format!("<{mover}@example.org>")]);
    assert_eq!(mail.subject(), payload.title);
    let delivered: PushDelivery = next(&mut pushes, 10, "push").await;
    assert_eq!(delivered.subscription, mover);
    assert_eq!(delivered.payload.title, payload.title);
    assert_eq!(delivered.payload.url, payload.game_url);
    // Exactly one per channel: no duplicate after the retry, nothing for the others.
    quiet(&mut hooks, 1500, "webhook").await;
    quiet(&mut mails, 200, "mail").await;
    quiet(&mut pushes, 200, "push").await;

    // A game everyone is connected to: nobody is told.
    let (_room, _clients) = game(&server, &players, true).await;
    quiet(&mut hooks, 1500, "webhook for a connected player").await;
    quiet(&mut mails, 100, "mail for a connected player").await;
    quiet(&mut pushes, 100, "push for a connected player").await;

    // The push service says the subscription is gone: the channel goes.
    push.answer_next(&[(StatusCode::GONE, None)]);
    let (_room, _none) = game(&server, &players, false).await;
    let gone = next(&mut pushes, 10, "push").await.subscription;
    let gone_player = players.iter().find(|p| p.name == gone).expect("a player");
    let mut kinds = Vec::new();
    for _ in 0..100 {
        kinds = channels(&server, gone_player)
            .await
            .channels
            .into_iter()
            .map(|c| c.kind)
            .collect();
        if kinds.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        kinds,
        ["webhook", "email"],
        "the gone push channel is deleted"
    );
    let hook = next(&mut hooks, 10, "webhook").await;
    let _ = next(&mut mails, 10, "mail").await;

    // The unsubscribe link (at the end of every notice) removes that channel.
    let body = checked_payload(&hook).body;
    let link = body
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .rsplit('\n')
        .next()
        .unwrap_or_default();
    let token = link.split("token=").nth(1).expect("an unsubscribe token");
    let unsubscribe = || async {
        let r = server
            .http
            .get(server.url(&format!("/api/notifications/unsubscribe?token={token}")))
            .send()
            .await
            .expect("http");
        (r.status().as_u16(), r.text().await.expect("page"))
    };
    let (status, page) = unsubscribe().await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<html lang="), "{page}");
    let kinds: Vec<String> = channels(&server, gone_player)
        .await
        .channels
        .into_iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(kinds, ["email"]);
    let (status, _) = unsubscribe().await;
    assert_eq!(status, 404, "a second time");

    // The admin's log: the deliveries, with nothing secret.
    let mover_id = players.iter().find(|p| p.name == mover).expect("mover").id;
    let r = server
        .admin_get(&format!("/admin/notifications?player={mover_id}"))
        .await;
    assert_eq!(r.status(), 200);
    let text = r.text().await.expect("text");
    for secret in [
        SECRET,
        &push.browser.p256dh(),
        &format!("/hook/{mover}"),
        &format!("{mover}@example.org"),
        token,
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let log: AdminNoticeList = serde_json::from_str(&text).expect("AdminNoticeList");
    let sent: Vec<(String, u32, String)> = log
        .notices
        .iter()
        .filter(|n| n.room_id == room)
        .map(|n| (n.channel.clone(), n.attempts, n.status.clone()))
        .collect();
    assert!(
        sent.contains(&("webhook".into(), 2, "sent".into())),
        "{sent:?}"
    );
    assert!(
        sent.contains(&("email".into(), 1, "sent".into())),
        "{sent:?}"
    );
    assert!(
        sent.contains(&("web_push".into(), 1, "sent".into())),
        "{sent:?}"
    );
    let email = log
        .notices
        .iter()
        .find(|n| n.channel == "email")
        .expect("email");
    assert_eq!(email.target, format!("{}***@example.org", &mover[..1]));

    // The metrics count the 500 (and the 410).
    let metrics = server
        .admin_get("/metrics")
        .await
        .text()
        .await
        .expect("metrics");
    let count = |series: &str| {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
            .map(str::to_owned)
    };
    assert_eq!(
        count(r#"catan_notice_failures_total{channel="webhook",code="webhook_status"}"#).as_deref(),
        Some("1"),
        "{metrics}"
    );
    assert_eq!(
        count(r#"catan_notice_failures_total{channel="web_push",code="push_status"}"#).as_deref(),
        Some("1")
    );
}

#[tokio::test]
async fn without_a_session_the_channels_are_refused_and_push_can_be_off() {
    let server = TestServer::start_with(|c| c.notify.no_web_push = true).await;
    let (status, body, _) = server
        .call(Method::GET, "/api/me/notifications", None, None)
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("not_signed_in"))
    );
    let (status, body, _) = server
        .call(Method::GET, "/api/notifications/vapid", None, None)
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("push_unavailable"))
    );
    let (me, _) = server.guest("dee").await;
    // No SMTP server configured: email is refused; a loopback webhook too.
    for channel in [
        json!({ "kind": "email", "to": "dee@example.org" }),
        json!({ "kind": "webhook", "url": "http://127.0.0.1:9/x", "format": "json" }),
    ] {
        let (status, body, _) = server
            .call(
                Method::POST,
                "/api/me/notifications",
                Some(&me.token),
                Some(channel),
            )
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("invalid_channel")),
            "{body}"
        );
    }
    let (status, body, _) = server
        .call(
            Method::DELETE,
            &format!("/api/me/notifications/{}", Uuid::new_v4()),
            Some(&me.token),
            None,
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("channel_not_found"))
    );
}
