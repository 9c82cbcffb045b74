//! Webhooks through the local receiver of `catan_notify::testing`: signatures and
//! bot formats.

use std::time::Duration;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use catan_notify::testing::webhook::{Answer, OK};
use catan_notify::testing::{Hook, webhook_receiver};
use catan_notify::{
    Channel, Lang, NoticeKind, SIGNATURE_HEADER, SendError, TIMESTAMP_HEADER, WebhookFormat,
    WebhookPayload, verify_signature,
};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::sync::mpsc;

use crate::{USER_AGENT, closed_port, notice, now_secs, sender};

async fn receiver(answer: Answer) -> (String, mpsc::UnboundedReceiver<Hook>) {
    let (base, _state, hooks) = webhook_receiver(answer).await;
    (base, hooks)
}

fn hook(url: String, format: WebhookFormat, secret: Option<&str>) -> Channel {
    Channel::Webhook {
        url,
        format,
        secret: secret.map(str::to_owned),
    }
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

#[tokio::test]
async fn a_json_webhook_is_signed_and_a_wrong_secret_fails() {
    let (base, mut hooks) = receiver(OK).await;
    let sender = sender(None, None, Duration::from_secs(5));
    let channel = hook(
        format!("{base}/catan"),
        WebhookFormat::Json,
        Some("whsec-1"),
    );
    let notice = notice(NoticeKind::OfferToYou, Lang::ZhHant);
    sender.send(&channel, &notice).await.unwrap();

    let got = hooks.recv().await.unwrap();
    assert_eq!(got.path, "/catan");
    assert_eq!(got.header("content-type"), "application/json");
    assert_eq!(got.header("user-agent"), USER_AGENT);
    let timestamp = got.header(TIMESTAMP_HEADER);
    let signature = got.header(SIGNATURE_HEADER);
    assert!(timestamp.parse::<u64>().unwrap().abs_diff(now_secs()) < 60);
    assert!(verify_signature("whsec-1", timestamp, &got.body, signature));
    assert!(!verify_signature(
        "whsec-2", timestamp, &got.body, signature
    ));
    // Recomputed by hand: HMAC-SHA256(secret, "{timestamp}.{body}") in hex.
    let mut signed = format!("{timestamp}.").into_bytes();
    signed.extend_from_slice(&got.body);
    assert_eq!(
        signature,
        format!("sha256={}", hex::encode(hmac_sha256(b"whsec-1", &signed)))
    );

    let payload: WebhookPayload = serde_json::from_slice(&got.body).unwrap();
    let rendered = notice.render();
    assert_eq!(payload.kind, NoticeKind::OfferToYou);
    assert_eq!(payload.room_id, notice.room_id);
    assert_eq!(payload.title, "有人向你提出交易");
    assert_eq!(payload.body, rendered.body);
    assert_eq!(payload.game_url, notice.game_url);
    assert_eq!(payload.deadline_ms, Some(crate::DEADLINE_MS));
    assert_eq!(payload.lang, Lang::ZhHant);
    assert_eq!(got.json()["kind"], "offer_to_you");
}

#[tokio::test]
async fn a_json_webhook_without_a_secret_is_not_signed() {
    let (base, mut hooks) = receiver(OK).await;
    sender(None, None, Duration::from_secs(5))
        .send(
            &hook(format!("{base}/h"), WebhookFormat::Json, None),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap();
    let got = hooks.recv().await.unwrap();
    assert_eq!(got.header(SIGNATURE_HEADER), "");
    assert_eq!(got.header(TIMESTAMP_HEADER), "");
}

#[tokio::test]
async fn a_wecom_robot_gets_a_text_message_at_its_keyed_url() {
    let (base, mut hooks) = receiver(OK).await;
    let notice = notice(NoticeKind::YourTurn, Lang::ZhHans);
    let url = format!("{base}/cgi-bin/webhook/send?key=ROBOT-KEY");
    sender(None, None, Duration::from_secs(5))
        .send(&hook(url, WebhookFormat::WeCom, None), &notice)
        .await
        .unwrap();
    let got = hooks.recv().await.unwrap();
    assert_eq!(got.path, "/cgi-bin/webhook/send");
    assert_eq!(got.query("key"), Some("ROBOT-KEY"));
    let rendered = notice.render();
    assert_eq!(
        got.json(),
        serde_json::json!({
            "msgtype": "text",
            "text": {"content": format!("{}\n{}", rendered.title, rendered.body)}
        })
    );
    assert!(
        got.json()["text"]["content"]
            .as_str()
            .unwrap()
            .starts_with("轮到你了\n")
    );
}

#[tokio::test]
async fn a_feishu_bot_gets_a_signed_text_message() {
    let (base, mut hooks) = receiver(OK).await;
    let notice = notice(NoticeKind::TimeLow, Lang::ZhHans);
    let url = format!("{base}/open-apis/bot/v2/hook/abc");
    sender(None, None, Duration::from_secs(5))
        .send(
            &hook(url, WebhookFormat::Feishu, Some("fs-secret")),
            &notice,
        )
        .await
        .unwrap();
    let got = hooks.recv().await.unwrap().json();
    let rendered = notice.render();
    assert_eq!(got["msg_type"], "text");
    assert_eq!(
        got["content"]["text"],
        format!("{}\n{}", rendered.title, rendered.body)
    );
    let timestamp = got["timestamp"].as_str().expect("timestamp is a string");
    assert!(timestamp.parse::<u64>().unwrap().abs_diff(now_secs()) < 60);
    // Feishu: base64(HMAC-SHA256(key = "{timestamp}\n{secret}", message = "")).
    let expected = BASE64.encode(hmac_sha256(
        format!("{timestamp}\nfs-secret").as_bytes(),
        b"",
    ));
    assert_eq!(got["sign"], expected);
    let wrong = BASE64.encode(hmac_sha256(format!("{timestamp}\nother").as_bytes(), b""));
    assert_ne!(got["sign"], wrong);
}

#[tokio::test]
async fn a_dingtalk_robot_gets_a_text_message_and_a_signed_url() {
    let (base, mut hooks) = receiver(OK).await;
    let notice = notice(NoticeKind::YourTurn, Lang::En);
    let url = format!("{base}/robot/send?access_token=TOKEN");
    sender(None, None, Duration::from_secs(5))
        .send(&hook(url, WebhookFormat::DingTalk, Some("SECdt")), &notice)
        .await
        .unwrap();
    let got = hooks.recv().await.unwrap();
    assert_eq!(got.path, "/robot/send");
    assert_eq!(got.query("access_token"), Some("TOKEN"));
    let timestamp = got.query("timestamp").unwrap();
    assert!(
        timestamp
            .parse::<u64>()
            .unwrap()
            .abs_diff(now_secs() * 1000)
            < 60_000
    );
    // DingTalk: urlencode(base64(HMAC-SHA256(key = secret, "{timestamp}\n{secret}"))).
    let expected = BASE64.encode(hmac_sha256(
        b"SECdt",
        format!("{timestamp}\nSECdt").as_bytes(),
    ));
    assert_eq!(got.query("sign"), Some(expected.as_str()));
    let raw_sign = got.raw_query.split("sign=").nth(1).unwrap();
    assert!(
        !raw_sign.contains(['+', '/', '=']),
        "sign is not urlencoded: {raw_sign}"
    );
    let rendered = notice.render();
    assert_eq!(
        got.json(),
        serde_json::json!({
            "msgtype": "text",
            "text": {"content": format!("{}\n{}", rendered.title, rendered.body)}
        })
    );
}

#[tokio::test]
async fn a_bot_refusal_is_reported_with_its_code() {
    let answer = (
        StatusCode::OK,
        r#"{"errcode":310000,"errmsg":"sign not match"}"#,
        Duration::ZERO,
    );
    let (base, _hooks) = receiver(answer).await;
    let err = sender(None, None, Duration::from_secs(5))
        .send(
            &hook(
                format!("{base}/robot/send?access_token=SECRET-TOKEN"),
                WebhookFormat::DingTalk,
                Some("s"),
            ),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            SendError::BotRejected {
                format: WebhookFormat::DingTalk,
                code: 310_000
            }
        ),
        "{err}"
    );
    assert!(!err.is_retryable());
    assert!(!err.to_string().contains("SECRET-TOKEN"));
}

#[tokio::test]
async fn webhook_statuses_are_classified() {
    let cases = [
        (StatusCode::INTERNAL_SERVER_ERROR, true),
        (StatusCode::TOO_MANY_REQUESTS, true),
        (StatusCode::NOT_FOUND, false),
        (StatusCode::UNAUTHORIZED, false),
        // A redirect is not followed: it could point the server anywhere.
        (StatusCode::FOUND, false),
    ];
    for (status, retryable) in cases {
        let (base, _hooks) = receiver((status, "", Duration::ZERO)).await;
        let err = sender(None, None, Duration::from_secs(5))
            .send(
                &hook(format!("{base}/h"), WebhookFormat::Json, None),
                &notice(NoticeKind::YourTurn, Lang::En),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, SendError::WebhookStatus { status: s, .. } if s == status.as_u16()),
            "{status}: {err}"
        );
        assert_eq!(err.is_retryable(), retryable, "{status}");
        assert!(!err.is_gone(), "{status}");
    }
}

#[tokio::test]
async fn a_slow_receiver_times_out_and_is_retried() {
    let (base, _hooks) = receiver((StatusCode::OK, "", Duration::from_secs(3))).await;
    let started = std::time::Instant::now();
    let err = sender(None, None, Duration::from_millis(300))
        .send(
            &hook(format!("{base}/slow"), WebhookFormat::Json, None),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(matches!(err, SendError::Timeout { .. }), "{err}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn an_unreachable_webhook_is_retryable_and_its_url_is_not_shown() {
    let port = closed_port().await;
    let err = sender(None, None, Duration::from_secs(2))
        .send(
            &hook(
                format!("http://127.0.0.1:{port}/send?key=HIDDEN-KEY"),
                WebhookFormat::WeCom,
                None,
            ),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert!(!err.to_string().contains("HIDDEN-KEY"), "{err}");
    assert!(!format!("{err:?}").contains("HIDDEN-KEY"), "{err:?}");
}

#[tokio::test]
async fn a_webhook_url_that_is_not_http_is_refused_before_sending() {
    for url in [
        "ftp://127.0.0.1/x",
        "file:///etc/passwd",
        "gopher://127.0.0.1:70/",
    ] {
        let err = sender(None, None, Duration::from_secs(1))
            .send(
                &hook(url.to_owned(), WebhookFormat::Json, None),
                &notice(NoticeKind::YourTurn, Lang::En),
            )
            .await
            .unwrap_err();
        assert_eq!(err.code(), "invalid_channel", "{url}");
        assert!(!err.is_retryable());
    }
}
