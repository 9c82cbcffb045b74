//! End-to-end tests of `catan-notify` against local receivers on 127.0.0.1: a push
//! service that checks VAPID and decrypts, an SMTP sink, and a webhook receiver.
//! Nothing here reaches the internet.

mod push;
mod smtp;
mod webhook;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use catan_notify::{Lang, Notice, NoticeKind, Sender, SenderConfig, SmtpConfig, Vapid};
use uuid::Uuid;

/// The user agent every test sender announces.
const USER_AGENT: &str = "catan-notify-tests/1";

/// A deadline: 2026-03-01 12:34:56 UTC.
const DEADLINE_MS: u64 = 1_772_368_496_000;

fn notice(kind: NoticeKind, lang: Lang) -> Notice {
    Notice {
        kind,
        lang,
        room_id: Uuid::from_u128(0x00c0_ffee),
        game_url: "https://catan.example/rooms/c0ffee".to_owned(),
        unsubscribe_url: "https://catan.example/settings/notices?token=u1".to_owned(),
        deadline_ms: Some(DEADLINE_MS),
        seat_name: "Ada".to_owned(),
    }
}

fn sender(vapid: Option<Vapid>, smtp: Option<SmtpConfig>, timeout: Duration) -> Sender {
    Sender::new(SenderConfig {
        vapid,
        smtp,
        http_timeout: timeout,
        user_agent: USER_AGENT.to_owned(),
    })
    .expect("the test sender builds")
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}
