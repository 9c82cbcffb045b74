//! The push sender against the local push service of `catan_notify::testing`,
//! which checks the VAPID token (RFC 8292) as a real one does and decrypts the
//! `aes128gcm` body (RFC 8291) with the browser's keys, by its own code.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_notify::testing::{
    PushBrowser, PushDelivery, PushService, check_vapid, decrypt, push_service,
};
use catan_notify::{Channel, Lang, NoticeKind, SendError, Vapid};
use tokio::sync::mpsc;

use crate::{closed_port, notice, sender};

const SUBJECT: &str = "mailto:ops@catan.example";

/// A push service running for a fresh VAPID key.
struct Running {
    endpoint: String,
    service: Arc<PushService>,
    delivered: mpsc::UnboundedReceiver<PushDelivery>,
    vapid: Vapid,
}

async fn running() -> Running {
    let vapid = Vapid::generate().with_subject(SUBJECT).unwrap();
    let (service, delivered) = push_service(&vapid.public_key_base64url(), SUBJECT).await;
    Running {
        endpoint: service.endpoint("subscription-1"),
        service,
        delivered,
        vapid,
    }
}

fn check(header: &str, key: &str, origin: &str) -> Result<(), String> {
    check_vapid(header, key, origin, SUBJECT)
}

#[tokio::test]
async fn a_push_is_signed_encrypted_and_readable_by_the_browser() {
    let mut run = running().await;
    let channel = run.service.browser.channel(&run.endpoint);
    let sender = sender(Some(run.vapid.clone()), None, Duration::from_secs(5));

    let turn = crate::notice(NoticeKind::YourTurn, Lang::ZhHans);
    sender
        .send(&channel, &turn)
        .await
        .expect("the push is accepted");
    let got = run.delivered.recv().await.unwrap();
    assert_eq!(got.payload.title, "轮到你了");
    assert!(
        got.payload.body.contains("2026-03-01 12:34 UTC"),
        "{:?}",
        got.payload
    );
    assert_eq!(got.payload.url, "https://catan.example/rooms/c0ffee");
    assert_eq!(got.urgency, "high");
    assert_eq!(got.ttl, "86400");

    // The body is bound to this browser's auth secret: another secret cannot open it.
    let mut wrong_auth = run.service.browser.auth;
    wrong_auth[0] ^= 1;
    assert!(decrypt(&got.body, &run.service.browser.secret, &wrong_auth).is_err());

    let offer = crate::notice(NoticeKind::OfferToYou, Lang::En);
    sender.send(&channel, &offer).await.unwrap();
    let got = run.delivered.recv().await.unwrap();
    assert_eq!(got.payload.title, "You have a trade offer in Catan");
    assert_eq!(got.urgency, "normal");
}

#[tokio::test]
async fn a_push_signed_by_another_key_is_refused() {
    let run = running().await;
    let channel = run.service.browser.channel(&run.endpoint);
    let stranger = Vapid::generate()
        .with_subject("mailto:ops@catan.example")
        .unwrap();
    let err = sender(Some(stranger), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(
        matches!(err, SendError::PushStatus { status: 401, .. }),
        "{err}"
    );
    assert!(!err.is_retryable() && !err.is_gone());
}

#[test]
fn the_endpoint_rejects_a_tampered_or_misaddressed_token() {
    let vapid = Vapid::generate()
        .with_subject("mailto:ops@catan.example")
        .unwrap();
    // Sign a real request, then pick its Authorization header apart.
    let browser = PushBrowser::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let header = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let app = Router::new().fallback(move |headers: HeaderMap| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(headers["authorization"].to_str().unwrap().to_owned());
                StatusCode::CREATED
            }
        });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let channel = browser.channel(&format!("http://{addr}/p"));
        sender(Some(vapid.clone()), None, Duration::from_secs(5))
            .send(&channel, &notice(NoticeKind::TimeLow, Lang::En))
            .await
            .unwrap();
        (rx.recv().await.unwrap(), format!("http://{addr}"))
    });
    let (header, origin) = header;
    let key = vapid.public_key_base64url();
    assert_eq!(check(&header, &key, &origin), Ok(()));
    assert!(
        check(&header, &key, "http://127.0.0.1").is_err(),
        "port is part of aud"
    );
    let other = Vapid::generate().public_key_base64url();
    assert!(check(&header, &other, &origin).is_err());
    // Flip one bit of the signature.
    let sig_start = header.find(", k=").unwrap() - 10;
    let mut tampered = header.clone().into_bytes();
    tampered[sig_start] = if tampered[sig_start] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let tampered = String::from_utf8(tampered).unwrap();
    assert_eq!(
        check(&tampered, &key, &origin),
        Err("the ES256 signature does not verify".to_owned())
    );
}

#[tokio::test]
async fn a_gone_subscription_is_reported_as_gone() {
    let run = running().await;
    run.service.answer_next(&[(StatusCode::GONE, None)]);
    let channel = run.service.browser.channel(&run.endpoint);
    let err = sender(Some(run.vapid.clone()), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(err.is_gone(), "{err}");
    assert!(!err.is_retryable());
    assert_eq!(err.to_string(), "the push service answered HTTP 410");
}

#[tokio::test]
async fn a_busy_push_service_is_retried_after_what_it_asks() {
    let run = running().await;
    run.service
        .answer_next(&[(StatusCode::SERVICE_UNAVAILABLE, Some("120"))]);
    let channel = run.service.browser.channel(&run.endpoint);
    let err = sender(Some(run.vapid.clone()), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(err.is_retryable() && !err.is_gone(), "{err}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(120)));
}

#[tokio::test]
async fn push_without_vapid_keys_is_not_configured() {
    let browser = PushBrowser::new();
    let err = sender(None, None, Duration::from_secs(1))
        .send(
            &browser.channel("https://push.example/x"),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "not_configured");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn bad_subscription_keys_are_refused_without_showing_them() {
    let vapid = Vapid::generate();
    let sender = sender(Some(vapid), None, Duration::from_secs(1));
    let bad_key = Channel::WebPush {
        endpoint: "https://push.example/x".to_owned(),
        p256dh: "BNOTAREALKEYNOTAREALKEY".to_owned(),
        auth: URL_SAFE_NO_PAD.encode([7u8; 16]),
    };
    let err = sender
        .send(&bad_key, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_channel");
    assert!(!err.to_string().contains("BNOTAREALKEY"), "{err}");
    let browser = PushBrowser::new();
    let Channel::WebPush { p256dh, .. } = browser.channel("https://push.example/x") else {
        unreachable!()
    };
    let short_auth = Channel::WebPush {
        endpoint: "https://push.example/x".to_owned(),
        p256dh,
        auth: URL_SAFE_NO_PAD.encode([7u8; 8]),
    };
    let err = sender
        .send(&short_auth, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_channel");
}

#[tokio::test]
async fn an_unreachable_push_service_is_a_retryable_network_error() {
    let port = closed_port().await;
    let browser = PushBrowser::new();
    let endpoint = format!("http://127.0.0.1:{port}/push/SUBSCRIPTIONTOKEN");
    let err = sender(Some(Vapid::generate()), None, Duration::from_secs(2))
        .send(
            &browser.channel(&endpoint),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert_eq!(err.code(), "network");
    assert!(!err.to_string().contains("SUBSCRIPTIONTOKEN"), "{err}");
}
