//! Local receivers for tests, on 127.0.0.1 and nothing else (feature `testing`):
//! a push service that checks the VAPID token and decrypts the payload as a
//! browser does, an SMTP sink, and a webhook receiver. This crate's tests and the
//! server's end-to-end tests both use them.
//!
//! # Layout
//!
//! - [`push`]: [`push_service`], [`PushBrowser`], [`check_vapid`], [`decrypt`].
//! - [`smtp`]: [`smtp_sink`] and the parsing of the mails it got.
//! - [`webhook`]: [`webhook_receiver`], the hooks it got and what it answers.

pub mod push;
pub mod smtp;
pub mod webhook;

pub use push::{PushBrowser, PushDelivery, PushService, check_vapid, decrypt, push_service};
pub use smtp::{Mail, smtp_sink};
pub use webhook::{Hook, WebhookReceiver, webhook_receiver};
