//! The one place that talks to the outside: sends a notice on one channel.
//!
//! A [`Sender`] is cheap to clone and holds the HTTP client and SMTP pool. It is
//! meant to run in the server's delivery worker, never inside a room's task, and
//! it does not retry: it says whether a retry can help ([`SendError::is_retryable`])
//! and the server's queue applies [`crate::Backoff`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing::Instrument as _;

use crate::email::Mailer;
use crate::{Channel, ChannelKind, ConfigError, Notice, SendError, SmtpConfig, Vapid};
use crate::{push, webhook};

/// What the operator configures once at start-up.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    /// The VAPID keys; without them Web Push channels fail as not configured.
    pub vapid: Option<Vapid>,
    /// The SMTP server; without it email channels fail as not configured.
    pub smtp: Option<SmtpConfig>,
    /// The most one delivery may take (connect and answer), so a slow receiver
    /// holds up only its own notice.
    pub http_timeout: Duration,
    /// The `User-Agent` of push and webhook requests, so receivers can tell us
    /// apart (for example `catan-server/0.1 (+https://catan.example)`).
    pub user_agent: String,
}

/// Sends notices; clone it freely.
///
/// Create and drop it inside the tokio runtime: with SMTP configured, the mail
/// connection pool is closed by a task on the runtime when the last clone drops
/// (lettre panics if there is no runtime then).
#[derive(Debug, Clone)]
pub struct Sender {
    /// One client for push and webhooks: TLS by rustls, redirects not followed
    /// (a 3xx is an error, so a webhook cannot bounce us to another host).
    http: reqwest::Client,
    /// The VAPID keys, if the operator set them.
    vapid: Option<Vapid>,
    /// The SMTP pool, if the operator set a server.
    mailer: Option<Mailer>,
}

impl Sender {
    /// Builds the HTTP client and the SMTP transport; no connection is made yet.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] if the SMTP `from` is not a mailbox or TLS cannot be set up.
    pub fn new(config: SenderConfig) -> Result<Sender, ConfigError> {
        let http = reqwest::Client::builder()
            .timeout(config.http_timeout)
            .connect_timeout(config.http_timeout)
            .user_agent(config.user_agent)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ConfigError::Http(e.without_url().to_string()))?;
        let mailer = config
            .smtp
            .as_ref()
            .map(|smtp| Mailer::new(smtp, config.http_timeout))
            .transpose()?;
        Ok(Sender {
            http,
            vapid: config.vapid,
            mailer,
        })
    }

    /// Sends `notice` on `channel`, once.
    ///
    /// # Errors
    ///
    /// [`SendError`], which tells whether a retry may help and whether a push
    /// subscription is gone.
    pub async fn send(&self, channel: &Channel, notice: &Notice) -> Result<(), SendError> {
        let span = tracing::debug_span!(
            "notify",
            channel = channel.kind().code(),
            kind = notice.kind.code(),
            room = %notice.room_id,
        );
        let result = self.send_inner(channel, notice).instrument(span).await;
        match &result {
            Ok(()) => tracing::debug!(channel = channel.kind().code(), "notice delivered"),
            Err(e) => tracing::debug!(
                channel = channel.kind().code(),
                code = e.code(),
                retryable = e.is_retryable(),
                "notice not delivered: {e}"
            ),
        }
        result
    }

    async fn send_inner(&self, channel: &Channel, notice: &Notice) -> Result<(), SendError> {
        match channel {
            Channel::WebPush {
                endpoint,
                p256dh,
                auth,
            } => {
                let vapid = self.vapid.as_ref().ok_or(SendError::NotConfigured {
                    channel: ChannelKind::WebPush,
                })?;
                let request = push::build_request(
                    vapid,
                    endpoint,
                    p256dh,
                    auth,
                    notice,
                    unix_ms_now() / 1000,
                )?;
                let request =
                    reqwest::Request::try_from(request).map_err(|_| invalid_push_endpoint())?;
                let response = self
                    .http
                    .execute(request)
                    .await
                    .map_err(|e| SendError::from_reqwest(ChannelKind::WebPush, e))?;
                let status = response.status();
                if status.is_success() {
                    return Ok(());
                }
                Err(SendError::PushStatus {
                    status: status.as_u16(),
                    retry_after: retry_after(response.headers()),
                })
            }
            Channel::Email { to } => {
                let mailer = self.mailer.as_ref().ok_or(SendError::NotConfigured {
                    channel: ChannelKind::Email,
                })?;
                mailer.send(to, notice).await
            }
            Channel::Webhook {
                url,
                format,
                secret,
            } => {
                let request =
                    webhook::build(url, *format, secret.as_deref(), notice, unix_ms_now())?;
                let mut builder = self
                    .http
                    .post(request.url)
                    .header(reqwest::header::CONTENT_TYPE, "application/json");
                for (name, value) in request.headers {
                    builder = builder.header(name, value);
                }
                let response = builder
                    .body(request.body)
                    .send()
                    .await
                    .map_err(|e| SendError::from_reqwest(ChannelKind::Webhook, e))?;
                let status = response.status();
                if !status.is_success() {
                    return Err(SendError::WebhookStatus {
                        status: status.as_u16(),
                        retry_after: retry_after(response.headers()),
                    });
                }
                let body = response
                    .bytes()
                    .await
                    .map_err(|e| SendError::from_reqwest(ChannelKind::Webhook, e))?;
                webhook::bot_verdict(*format, &body)
            }
        }
    }
}

fn invalid_push_endpoint() -> SendError {
    SendError::InvalidChannel {
        channel: ChannelKind::WebPush,
        reason: "the endpoint is not an http(s) URL",
    }
}

/// `Retry-After` in its seconds form; the date form is rare from push services
/// and bots, and is ignored.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse().ok().map(Duration::from_secs)
}

fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SmtpTls;
    use secrecy::SecretString;

    // A Sender with SMTP must be dropped inside a tokio runtime: see `Sender`.
    #[tokio::test]
    async fn debug_of_the_sender_config_hides_the_password_and_the_vapid_key() {
        let vapid = Vapid::generate();
        let private = vapid.private_key_base64url();
        let config = SenderConfig {
            vapid: Some(vapid),
            smtp: Some(SmtpConfig {
                host: "smtp.example.org".to_owned(),
                port: 465,
                username: Some("catan".to_owned()),
                password: Some(SecretString::from("correct-horse-battery")),
                from: "noreply@catan.example".to_owned(),
                tls: SmtpTls::Tls,
            }),
            http_timeout: Duration::from_secs(10),
            user_agent: "catan".to_owned(),
        };
        let text = format!("{config:?}");
        assert!(!text.contains(&private), "{text}");
        assert!(!text.contains("correct-horse-battery"), "{text}");
        let sender = Sender::new(config).unwrap();
        let text = format!("{sender:?}");
        assert!(!text.contains(&private), "{text}");
        assert!(!text.contains("correct-horse-battery"), "{text}");
    }

    #[test]
    fn a_bad_from_address_is_a_configuration_error() {
        let config = SenderConfig {
            vapid: None,
            smtp: Some(SmtpConfig {
                host: "smtp.example.org".to_owned(),
                port: 587,
                username: None,
                password: None,
                from: "not a mailbox".to_owned(),
                tls: SmtpTls::StartTls,
            }),
            http_timeout: Duration::from_secs(10),
            user_agent: "catan".to_owned(),
        };
        assert!(matches!(Sender::new(config), Err(ConfigError::SmtpFrom)));
    }
}
