//! What can go wrong when sending, and whether trying again can help.
//!
//! No message here ever holds a URL, a key, a secret or a password: push
//! endpoints and bot URLs carry credentials, and these errors end up in the
//! delivery log an admin reads and in the server's own logs.

use std::time::Duration;

use crate::{ChannelKind, WebhookFormat};

/// Why a notice was not delivered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// The operator has not configured this channel (no VAPID keys, no SMTP server).
    #[error("{channel} is not configured on this server")]
    NotConfigured {
        /// The channel asked for.
        channel: ChannelKind,
    },
    /// The stored channel cannot be used as it is: a bad URL, key or address.
    #[error("invalid {channel} channel: {reason}")]
    InvalidChannel {
        /// The channel's kind.
        channel: ChannelKind,
        /// What is wrong, in fixed words (never the offending value).
        reason: &'static str,
    },
    /// The push payload could not be encrypted or signed.
    #[error("could not encrypt or sign the push message")]
    Encrypt,
    /// The receiving server did not answer in time.
    #[error("{channel} delivery timed out")]
    Timeout {
        /// The channel's kind.
        channel: ChannelKind,
    },
    /// The receiving server could not be reached, or the connection broke.
    #[error("{channel} delivery failed: {reason}")]
    Network {
        /// The channel's kind.
        channel: ChannelKind,
        /// The client's description, with any URL removed.
        reason: String,
    },
    /// The push service refused the message.
    #[error("the push service answered HTTP {status}")]
    PushStatus {
        /// The HTTP status code.
        status: u16,
        /// The service's `Retry-After`, if it sent one in seconds.
        retry_after: Option<Duration>,
    },
    /// The webhook receiver answered with a status other than 2xx.
    #[error("the webhook answered HTTP {status}")]
    WebhookStatus {
        /// The HTTP status code.
        status: u16,
        /// The receiver's `Retry-After`, if it sent one in seconds.
        retry_after: Option<Duration>,
    },
    /// A group bot answered 200 but refused the message in its body.
    #[error("the {format} bot refused the message with code {code}")]
    BotRejected {
        /// Which bot.
        format: WebhookFormat,
        /// The bot's own error code (`errcode` or `code`).
        code: i64,
    },
    /// The SMTP server refused the mail or the conversation failed.
    #[error("SMTP delivery failed ({}): {reason}", if *.permanent { "permanent" } else { "transient" })]
    Smtp {
        /// Whether the server said the failure is permanent (a 5xx reply).
        permanent: bool,
        /// The server's or client's description.
        reason: String,
    },
}

/// Bot error codes that mean "too many messages, slow down" (from the vendors'
/// error-code pages, from memory): WeCom `45009` (API frequency over the limit),
/// DingTalk `130101` (over 20 messages a minute), Feishu `11232` (frequency limited).
const BOT_RATE_LIMITED: [(WebhookFormat, i64); 3] = [
    (WebhookFormat::WeCom, 45009),
    (WebhookFormat::DingTalk, 130_101),
    (WebhookFormat::Feishu, 11232),
];

impl SendError {
    /// Whether the same notice on the same channel may succeed later: network
    /// errors, timeouts, HTTP 429 and 5xx, a bot's rate limit and transient SMTP
    /// failures are; a bad channel, a missing configuration and other 4xx are not.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            SendError::Timeout { .. } | SendError::Network { .. } => true,
            SendError::PushStatus { status, .. } | SendError::WebhookStatus { status, .. } => {
                *status == 429 || (500..600).contains(status)
            }
            SendError::BotRejected { format, code } => BOT_RATE_LIMITED.contains(&(*format, *code)),
            SendError::Smtp { permanent, .. } => !*permanent,
            SendError::NotConfigured { .. }
            | SendError::InvalidChannel { .. }
            | SendError::Encrypt => false,
        }
    }

    /// Whether the push subscription no longer exists (HTTP 404 or 410 from the push
    /// service, RFC 8030 §7.3), so the server should delete it rather than retry.
    #[must_use]
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            SendError::PushStatus {
                status: 404 | 410,
                ..
            }
        )
    }

    /// How long the receiver asked us to wait, if it did; the server's queue should
    /// wait at least this long before the next attempt.
    #[must_use]
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            SendError::PushStatus { retry_after, .. }
            | SendError::WebhookStatus { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A stable machine code, for the delivery log and as a metric label.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            SendError::NotConfigured { .. } => "not_configured",
            SendError::InvalidChannel { .. } => "invalid_channel",
            SendError::Encrypt => "encrypt",
            SendError::Timeout { .. } => "timeout",
            SendError::Network { .. } => "network",
            SendError::PushStatus { .. } => "push_status",
            SendError::WebhookStatus { .. } => "webhook_status",
            SendError::BotRejected { .. } => "bot_rejected",
            SendError::Smtp { .. } => "smtp",
        }
    }

    /// Maps a reqwest error, dropping its URL (which may hold a key).
    pub(crate) fn from_reqwest(channel: ChannelKind, err: reqwest::Error) -> Self {
        if err.is_timeout() {
            return SendError::Timeout { channel };
        }
        let err = err.without_url();
        let mut reason = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(cause) = source {
            reason.push_str(": ");
            reason.push_str(&cause.to_string());
            source = cause.source();
        }
        SendError::Network { channel, reason }
    }
}

/// Why a [`crate::Sender`] or [`crate::Vapid`] could not be set up from the
/// operator's configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The VAPID private key is not a base64url P-256 scalar.
    #[error("the VAPID private key is not a base64url-encoded P-256 private key")]
    VapidKey,
    /// The VAPID subject is not a `mailto:` or `https:` URL (RFC 8292 §2.1).
    #[error("the VAPID subject must be a mailto: or https: URL")]
    VapidSubject,
    /// The SMTP `from` address does not parse as a mailbox.
    #[error("the SMTP from address is not a valid mailbox")]
    SmtpFrom,
    /// The SMTP transport could not be built (for example TLS set-up).
    #[error("could not set up the SMTP transport: {0}")]
    Smtp(String),
    /// The HTTP client could not be built (for example TLS set-up).
    #[error("could not set up the HTTP client: {0}")]
    Http(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(status: u16) -> SendError {
        SendError::PushStatus {
            status,
            retry_after: None,
        }
    }

    #[test]
    fn server_errors_and_rate_limits_are_worth_retrying() {
        for status in [429, 500, 502, 503, 504] {
            assert!(push(status).is_retryable(), "{status}");
            assert!(!push(status).is_gone(), "{status}");
        }
        assert!(
            SendError::Timeout {
                channel: ChannelKind::Webhook
            }
            .is_retryable()
        );
        assert!(
            SendError::Network {
                channel: ChannelKind::WebPush,
                reason: "connection refused".to_owned()
            }
            .is_retryable()
        );
        assert!(
            SendError::Smtp {
                permanent: false,
                reason: "451".to_owned()
            }
            .is_retryable()
        );
        assert!(
            SendError::BotRejected {
                format: WebhookFormat::DingTalk,
                code: 130_101
            }
            .is_retryable()
        );
    }

    #[test]
    fn a_gone_subscription_is_not_retried_but_dropped() {
        for status in [404, 410] {
            assert!(push(status).is_gone());
            assert!(!push(status).is_retryable());
        }
        for status in [400, 401, 403, 413] {
            assert!(!push(status).is_gone(), "{status}");
            assert!(!push(status).is_retryable(), "{status}");
        }
        let hook = SendError::WebhookStatus {
            status: 410,
            retry_after: None,
        };
        assert!(!hook.is_gone() && !hook.is_retryable());
    }

    #[test]
    fn bad_channels_and_configuration_are_not_retried() {
        let errors = [
            SendError::NotConfigured {
                channel: ChannelKind::Email,
            },
            SendError::InvalidChannel {
                channel: ChannelKind::Webhook,
                reason: "not http",
            },
            SendError::Encrypt,
            SendError::Smtp {
                permanent: true,
                reason: "550".to_owned(),
            },
            SendError::BotRejected {
                format: WebhookFormat::Feishu,
                code: 19021,
            },
        ];
        for e in errors {
            assert!(!e.is_retryable(), "{e}");
            assert!(!e.is_gone(), "{e}");
        }
    }

    #[test]
    fn messages_name_the_status_but_nothing_else() {
        let e = SendError::PushStatus {
            status: 503,
            retry_after: Some(Duration::from_secs(7)),
        };
        assert_eq!(e.to_string(), "the push service answered HTTP 503");
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        assert_eq!(e.code(), "push_status");
    }
}
