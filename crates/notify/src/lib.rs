//! Notices for Catan players: a tap on the shoulder when it is their turn, when a
//! trade is offered to them, or when their time runs low, on the channels each
//! player opted into (Web Push, email, webhooks and the WeCom, Feishu and DingTalk
//! group bots), in their language, always with a way to unsubscribe.
//!
//! Delivery must never block a room. The server keeps the queue (a table with a
//! unique index on [`dedupe_key`]); a worker takes due rows, calls
//! [`Sender::send`], and on failure asks [`SendError::is_retryable`] and
//! [`Backoff::next_after_jittered`] when to try again, dropping a push
//! subscription that [`SendError::is_gone`]. [`SendError::code`] labels the
//! failure metric and the admin's delivery log.
//!
//! ```
//! use catan_notify::{Backoff, Lang, Notice, NoticeKind, dedupe_key};
//! use std::time::Duration;
//! use uuid::Uuid;
//!
//! let notice = Notice {
//!     kind: NoticeKind::YourTurn,
//!     lang: Lang::ZhHant,
//!     room_id: Uuid::nil(),
//!     game_url: "https://catan.example/rooms/1".to_owned(),
//!     unsubscribe_url: "https://catan.example/settings/notices".to_owned(),
//!     deadline_ms: Some(1_772_368_496_000),
//!     seat_name: "Ada".to_owned(),
//! };
//! let text = notice.render();
//! assert_eq!(text.title, "輪到你了");
//! assert!(text.body.contains("2026-03-01 12:34 UTC"));
//!
//! // The server queues it once per turn start...
//! let key = dedupe_key(Uuid::nil(), notice.room_id, notice.kind, 1_772_368_000_000);
//! assert!(key.ends_with(":your_turn:1772368000000"));
//! // ...and after a second failed attempt waits about a minute.
//! let wait = Backoff::default().next_after_jittered(2, 0.5);
//! assert_eq!(wait, Some(Duration::from_secs(60)));
//! ```
//!
//! # Layout
//!
//! - `lang.rs`: [`Lang`], the languages a notice is written in.
//! - `notice.rs`: [`Notice`], [`NoticeKind`] and [`Notice::render`] into
//!   [`Rendered`] text in English, simplified and traditional Chinese.
//! - `channel.rs`: [`Channel`], [`ChannelKind`] and [`WebhookFormat`], what a
//!   player opts into, with a `Debug` that hides keys.
//! - `webhook.rs`: the signed JSON body ([`WebhookPayload`], [`verify_signature`])
//!   and the WeCom, Feishu and DingTalk bot formats, built as pure functions.
//! - `push.rs`: [`Vapid`] keys (RFC 8292) and the encrypted push request
//!   (RFC 8291) carrying a [`PushPayload`].
//! - `email.rs`: [`SmtpConfig`] and the plain-text mail with `List-Unsubscribe`.
//! - `backoff.rs`: [`Backoff`] and [`dedupe_key`], the pure retry policy.
//! - `sender.rs`: [`Sender`], the only part that does I/O.
//! - `error.rs`: [`SendError`] (retryable? gone?) and [`ConfigError`].
//!
//! - `testing/` (feature `testing`): a local push service that checks the VAPID
//!   token and decrypts the payload, a local SMTP sink and a local webhook
//!   receiver, all on 127.0.0.1, for the tests in `tests/` and the server's.

mod backoff;
mod channel;
mod email;
mod error;
mod lang;
mod notice;
mod push;
mod sender;
mod webhook;

#[cfg(feature = "testing")]
pub mod testing;

pub use backoff::{Backoff, dedupe_key};
pub use channel::{Channel, ChannelKind, WebhookFormat};
pub use email::{SmtpConfig, SmtpTls};
pub use error::{ConfigError, SendError};
pub use lang::Lang;
pub use notice::{Notice, NoticeKind, Rendered};
pub use push::{PUSH_TTL, PushPayload, Vapid};
pub use sender::{Sender, SenderConfig};
pub use webhook::{
    SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookPayload, verify_signature, webhook_signature,
};
