//! Notifications (docs/protocol/27-games-over-days.md, 27.6): a tap on the
//! shoulder when a move or an offer is a player's in a game over days, or their
//! time runs low, on the channels they opted into (Web Push, email, webhooks), in
//! their language, with an unsubscribe link. `catan-notify` writes and sends; here
//! is what the server keeps and when it sends. Delivery never blocks a room: rooms
//! hand triggers to a channel, a task queues them in the store, a worker sends.
//!
//! # Layout
//!
//! - [`config`]: the flags (public URL, SMTP, the VAPID key, private webhooks).
//! - [`triggers`]: what a room hands over and how it decides to ([`Watch`]).
//! - [`worker`]: the intake (handovers to outbox rows, one per channel) and the
//!   delivery loop (claims due rows, sends, retries with backoff).
//! - [`api`]: `/api/me/notifications`, the VAPID key, the unsubscribe link, and the
//!   administrators' delivery log.
//! - [`target`]: checking a channel a player adds, and showing one without its
//!   secrets.

pub mod api;
pub mod config;
pub mod target;
pub mod triggers;
pub mod worker;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use catan_notify::{Notice, Sender, SenderConfig, Vapid};
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::{OnceCell, mpsc};
use tracing::warn;
use uuid::Uuid;

use crate::metrics::Metrics;
use crate::store::{ChannelRow, Store, StoreError, sha256_hex};

pub use config::NotifyConfig;
pub use triggers::{Facts, Handover, Handovers, Owed, Person, Trigger, Watch};

/// The most one delivery may take.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// What is ready once the keys are read from the store (on first use).
#[derive(Debug)]
pub struct Ready {
    /// Sends notices (HTTP client, SMTP pool, VAPID key).
    sender: Sender,
    /// The VAPID public key browsers subscribe with; `None` when push is off.
    vapid_public: Option<String>,
    /// The key unsubscribe tokens derive from.
    unsubscribe_key: SecretString,
}

/// The server's notifications: one per server, shared by handlers and tasks.
pub struct Notify {
    /// Channels and the outbox.
    store: Arc<dyn Store>,
    /// The flags.
    config: NotifyConfig,
    /// Queued, sent and failed notices.
    metrics: Arc<Metrics>,
    /// Where links in notices point, without a trailing slash.
    public_url: String,
    /// The rooms' end of the handover channel.
    handovers: Handovers,
    /// The intake's end, until the intake task takes it.
    intake: Mutex<Option<mpsc::Receiver<Handover>>>,
    /// Wakes the delivery loop when the intake queued something.
    wake: tokio::sync::Notify,
    /// The sender and keys, made on first use.
    ready: OnceCell<Ready>,
}

impl std::fmt::Debug for Notify {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notify")
            .field("public_url", &self.public_url)
            .field("ready", &self.ready.initialized())
            .finish_non_exhaustive()
    }
}

impl Notify {
    /// Notifications for a server with `config`, keeping their rows in `store`.
    #[must_use]
    pub fn new(config: &crate::Config, store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Notify {
        let public_url = config
            .notify
            .public_url
            .clone()
            .or_else(|| config.listen.public_origins.first().cloned())
            .unwrap_or_else(|| format!("http://{}", config.listen.bind));
        let (handovers, intake) = Handovers::new(metrics.clone());
        Notify {
            store,
            config: config.notify.clone(),
            metrics,
            public_url: public_url.trim_end_matches('/').to_owned(),
            handovers,
            intake: Mutex::new(Some(intake)),
            wake: tokio::sync::Notify::new(),
            ready: OnceCell::new(),
        }
    }

    /// What rooms hand their triggers to.
    #[must_use]
    pub fn handovers(&self) -> Handovers {
        self.handovers.clone()
    }

    /// The sender and keys: read from the store (made there by the first instance
    /// that asks) on first use.
    ///
    /// # Errors
    /// The store's, when it cannot keep or read the keys.
    pub async fn ready(&self) -> Result<&Ready, StoreError> {
        self.ready.get_or_try_init(|| self.make_ready()).await
    }

    async fn make_ready(&self) -> Result<Ready, StoreError> {
        let now = crate::room::now_ms();
        let fresh: [u8; 32] = rand::random();
        let fresh: String = fresh.iter().map(|b| format!("{b:02x}")).collect();
        let unsubscribe_key = self.store.notify_key("unsubscribe", &fresh, now).await?;
        let vapid = if self.config.no_web_push {
            None
        } else {
            let key = match &self.config.vapid_private_key {
                Some(key) => key.expose_secret().to_owned(),
                None => {
                    let fresh = Vapid::generate().private_key_base64url();
                    self.store.notify_key("vapid", &fresh, now).await?
                }
            };
            match Vapid::from_base64url(&key)
                .and_then(|v| v.with_subject(&self.config.vapid_subject))
            {
                Ok(v) => Some(v),
                Err(e) => {
                    warn!(error = %e, "Web Push is off: the VAPID key or subject cannot be used");
                    None
                }
            }
        };
        let smtp = self.config.smtp().unwrap_or_else(|e| {
            warn!(error = %e, "email notices are off");
            None
        });
        let vapid_public = vapid.as_ref().map(Vapid::public_key_base64url);
        let sender = Sender::new(SenderConfig {
            vapid,
            smtp,
            http_timeout: SEND_TIMEOUT,
            user_agent: format!("catan-server/{}", env!("CARGO_PKG_VERSION")),
        })
        .map_err(|e| StoreError::Unavailable(format!("notifications cannot start: {e}").into()))?;
        Ok(Ready {
            sender,
            vapid_public,
            unsubscribe_key: unsubscribe_key.into(),
        })
    }

    /// Starts the intake and the delivery loop (once), until `shutdown`.
    pub fn start(
        self: &Arc<Self>,
        tasks: &tokio_util::task::TaskTracker,
        shutdown: &tokio_util::sync::CancellationToken,
    ) {
        let Some(rx) = self.intake.lock().ok().and_then(|mut i| i.take()) else {
            return;
        };
        tasks.spawn(worker::intake(self.clone(), rx, shutdown.clone()));
        tasks.spawn(worker::deliver(self.clone(), shutdown.clone()));
    }

    /// The link that opens room `room` in the browser client.
    #[must_use]
    pub fn game_url(&self, room: Uuid) -> String {
        format!("{}/?room={room}", self.public_url)
    }

    /// The unsubscribe link of `channel`.
    #[must_use]
    pub fn unsubscribe_url(&self, ready: &Ready, channel: Uuid) -> String {
        let token = unsubscribe_token(&ready.unsubscribe_key, channel);
        format!(
            "{}/api/notifications/unsubscribe?token={token}",
            self.public_url
        )
    }

    /// The notice of `trigger` for `channel`: in its language, with its link.
    #[must_use]
    pub fn notice(&self, ready: &Ready, trigger: &Trigger, channel: &ChannelRow) -> Notice {
        Notice {
            kind: trigger.kind,
            lang: channel.lang,
            room_id: trigger.room,
            game_url: self.game_url(trigger.room),
            unsubscribe_url: self.unsubscribe_url(ready, channel.id),
            deadline_ms: trigger.deadline_ms,
            seat_name: trigger.seat_name.clone(),
        }
    }
}

/// The unsubscribe token of `channel`: derived from the server's key, so only its
/// digest is stored.
#[must_use]
pub fn unsubscribe_token(key: &SecretString, channel: Uuid) -> String {
    sha256_hex(&format!("{}:{}", key.expose_secret(), channel.as_simple()))
}
