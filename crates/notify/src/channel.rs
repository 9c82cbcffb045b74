//! Where a notice goes: the channels a player (or the operator) opts into.

use serde::{Deserialize, Serialize};

/// One delivery channel, as stored for a player who opted into it.
///
/// Stored as JSON with a `kind` tag, so adding a channel later does not change how
/// the others are stored. `Debug` hides the push auth secret, the webhook secret and
/// everything past the host of a URL (push endpoints and bot URLs carry their keys).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Channel {
    /// A browser's Web Push subscription (the fields of its `PushSubscription`).
    WebPush {
        /// The push service URL the browser gave; a capability, keep it private.
        endpoint: String,
        /// The browser's P-256 public key, uncompressed SEC1, base64url.
        p256dh: String,
        /// The browser's 16-byte authentication secret, base64url.
        auth: String,
    },
    /// An email address, sent through the operator's SMTP server.
    Email {
        /// The address, optionally with a display name (`Ada <ada@example.org>`).
        to: String,
    },
    /// An HTTP POST to a URL the player or operator set.
    Webhook {
        /// Where to POST; must be `http` or `https`.
        url: String,
        /// Which body the receiver expects.
        format: WebhookFormat,
        /// The signing secret, if the receiver checks signatures.
        secret: Option<String>,
    },
}

/// The body a webhook receiver expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebhookFormat {
    /// This server's own signed JSON (see [`crate::WebhookPayload`] and [`crate::verify_signature`]).
    Json,
    /// A WeCom (企业微信) group robot.
    WeCom,
    /// A Feishu / Lark (飞书) custom bot.
    Feishu,
    /// A DingTalk (钉钉) custom robot.
    DingTalk,
}

impl WebhookFormat {
    /// The stable snake_case name, as in serde and metric labels.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            WebhookFormat::Json => "json",
            WebhookFormat::WeCom => "we_com",
            WebhookFormat::Feishu => "feishu",
            WebhookFormat::DingTalk => "ding_talk",
        }
    }
}

impl std::fmt::Display for WebhookFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// A channel's kind without its data: a metric label, a settings row, an error's
/// context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelKind {
    /// [`Channel::WebPush`].
    WebPush,
    /// [`Channel::Email`].
    Email,
    /// [`Channel::Webhook`].
    Webhook,
}

impl ChannelKind {
    /// The stable snake_case name, as in serde and metric labels.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            ChannelKind::WebPush => "web_push",
            ChannelKind::Email => "email",
            ChannelKind::Webhook => "webhook",
        }
    }
}

impl std::fmt::Display for ChannelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Channel {
    /// The channel's kind.
    #[must_use]
    pub fn kind(&self) -> ChannelKind {
        match self {
            Channel::WebPush { .. } => ChannelKind::WebPush,
            Channel::Email { .. } => ChannelKind::Email,
            Channel::Webhook { .. } => ChannelKind::Webhook,
        }
    }
}

/// The scheme and host of a URL, and `…` if anything followed; for `Debug` output.
fn url_head(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(url) => format!("{}/…", url.origin().ascii_serialization()),
        Err(_) => "<invalid url>".to_owned(),
    }
}

const REDACTED: &str = "[redacted]";

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Channel::WebPush { endpoint, .. } => f
                .debug_struct("WebPush")
                .field("endpoint", &url_head(endpoint))
                .field("p256dh", &REDACTED)
                .field("auth", &REDACTED)
                .finish(),
            Channel::Email { to } => f.debug_struct("Email").field("to", to).finish(),
            Channel::Webhook {
                url,
                format,
                secret,
            } => f
                .debug_struct("Webhook")
                .field("url", &url_head(url))
                .field("format", format)
                .field("secret", &secret.as_ref().map(|_| REDACTED))
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_are_stored_with_a_kind_tag() {
        let c = Channel::Webhook {
            url: "https://example.org/hook".to_owned(),
            format: WebhookFormat::DingTalk,
            secret: None,
        };
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "kind": "webhook", "url": "https://example.org/hook",
                "format": "ding_talk", "secret": null
            })
        );
        assert_eq!(serde_json::from_value::<Channel>(json).unwrap(), c);
        let push: Channel = serde_json::from_str(
            r#"{"kind":"web_push","endpoint":"https://push.example/x","p256dh":"BA","auth":"AA"}"#,
        )
        .unwrap();
        assert_eq!(push.kind(), ChannelKind::WebPush);
    }

    #[test]
    fn debug_hides_keys_secrets_and_url_paths() {
        let push = Channel::WebPush {
            endpoint: "https://fcm.googleapis.com/fcm/send/SECRETTOKEN".to_owned(),
            p256dh: "BPUBLICKEYPUBLICKEY".to_owned(),
            auth: "AUTHSECRETAUTHSECRET".to_owned(),
        };
        let text = format!("{push:?}");
        assert!(text.contains("https://fcm.googleapis.com"), "{text}");
        for hidden in ["SECRETTOKEN", "BPUBLICKEYPUBLICKEY", "AUTHSECRETAUTHSECRET"] {
            assert!(!text.contains(hidden), "{text}");
        }
        let hook = Channel::Webhook {
            url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=ROBOTKEY".to_owned(),
            format: WebhookFormat::WeCom,
            secret: Some("HOOKSECRET".to_owned()),
        };
        let text = format!("{hook:?}");
        assert!(
            !text.contains("ROBOTKEY") && !text.contains("HOOKSECRET"),
            "{text}"
        );
    }
}
