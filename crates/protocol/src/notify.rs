//! Notifications (protocol.md 27.6): the channels a player opts into for a tap on
//! the shoulder when a move or an offer is theirs or their time runs low
//! ([`NotifyChannelRequest`], [`NotifyChannelInfo`]), the server's Web Push key
//! ([`VapidKey`]), and the administrators' delivery log ([`AdminNoticeList`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Why a player is tapped on the shoulder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A move is the player's (a game over days).
    YourTurn,
    /// Another player offered the player a trade.
    OfferToYou,
    /// The player's move runs out soon.
    TimeLow,
}

/// The language a channel's notices are written in (BCP 47 tags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum NoticeLang {
    /// English.
    #[default]
    #[serde(rename = "en")]
    En,
    /// Chinese in simplified characters.
    #[serde(rename = "zh-Hans")]
    ZhHans,
    /// Chinese in traditional characters.
    #[serde(rename = "zh-Hant")]
    ZhHant,
}

/// The body a webhook receiver expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WebhookFormat {
    /// This server's signed JSON (`X-Catan-Signature`).
    Json,
    /// A WeCom (企业微信) group robot.
    WeCom,
    /// A Feishu / Lark (飞书) custom bot.
    Feishu,
    /// A DingTalk (钉钉) custom robot.
    DingTalk,
}

/// Where a channel's notices go. Its `Debug` leaves the secrets out (a push
/// subscription's keys and endpoint path, an address, a webhook's URL path and
/// secret), so that a log line never carries them.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotifyTarget {
    /// A browser's push subscription (`PushSubscription.toJSON()`'s fields).
    WebPush {
        /// The push service's URL for this subscription.
        endpoint: String,
        /// The browser's P-256 public key, base64url.
        p256dh: String,
        /// The browser's 16-byte auth secret, base64url.
        auth: String,
    },
    /// An email address (through the operator's SMTP server).
    Email {
        /// The address.
        to: String,
    },
    /// An HTTP POST to a URL.
    Webhook {
        /// Where to POST (`http` or `https`).
        url: String,
        /// The body the receiver expects.
        format: WebhookFormat,
        /// The signing secret, if the receiver checks signatures (DingTalk's and
        /// Feishu's signing secrets too).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
    },
}

impl std::fmt::Debug for NotifyTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// A URL's scheme and host, without its path (which may be a capability).
        fn origin(url: &str) -> &str {
            let after = url.find("://").map_or(0, |i| i + 3);
            url.get(after..)
                .and_then(|rest| rest.find(['/', '?', '#']))
                .map_or(url, |i| &url[..after + i])
        }
        match self {
            NotifyTarget::WebPush { endpoint, .. } => f
                .debug_struct("WebPush")
                .field("endpoint", &origin(endpoint))
                .finish_non_exhaustive(),
            NotifyTarget::Email { .. } => f.debug_struct("Email").finish_non_exhaustive(),
            NotifyTarget::Webhook { url, format, .. } => f
                .debug_struct("Webhook")
                .field("url", &origin(url))
                .field("format", format)
                .finish_non_exhaustive(),
        }
    }
}

/// `POST /api/me/notifications`: a channel to add.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotifyChannelRequest {
    /// Where the notices go (`kind` and its fields).
    #[serde(flatten)]
    pub target: NotifyTarget,
    /// The language of its notices (`en` when left out).
    #[serde(default)]
    pub lang: NoticeLang,
    /// The notices it wants (every kind when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notices: Option<Vec<NoticeKind>>,
}

/// A channel of the signed-in player, as they see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotifyChannelInfo {
    /// The channel's id (to delete it).
    pub id: Uuid,
    /// `web_push`, `email` or `webhook`.
    pub kind: String,
    /// Where it goes, shown without its secrets: the address of an email, the
    /// scheme and host of a URL.
    pub target: String,
    /// A webhook's format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<WebhookFormat>,
    /// The language of its notices.
    pub lang: NoticeLang,
    /// The notices it wants.
    pub notices: Vec<NoticeKind>,
    /// When it was added, Unix ms.
    pub created_at: u64,
}

/// `GET /api/me/notifications`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotifyChannelList {
    /// The player's channels, oldest first.
    pub channels: Vec<NotifyChannelInfo>,
}

/// `GET /api/notifications/vapid`: the key a browser subscribes with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VapidKey {
    /// The server's VAPID public key (uncompressed P-256, base64url): the
    /// `applicationServerKey` of `pushManager.subscribe`.
    pub public_key: String,
}

/// One delivery of one notice on one channel, as administrators see it: no
/// secret, no full URL, no full address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminNotice {
    /// The delivery's id.
    pub id: Uuid,
    /// Whose notice.
    pub player_id: Uuid,
    /// The notice's kind.
    pub kind: NoticeKind,
    /// The room it is about.
    pub room_id: Uuid,
    /// The channel's kind: `web_push`, `email` or `webhook`.
    pub channel: String,
    /// Where it went, masked (`a***@example.com`, `https://host/…`).
    pub target: String,
    /// `pending`, `sent`, `failed` or `dropped`.
    pub status: String,
    /// Attempts made.
    pub attempts: u32,
    /// The code of the last failure (`network`, `webhook_status`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When it was queued, Unix ms.
    pub created_at: u64,
    /// When the next attempt is due (pending), Unix ms.
    pub next_at: u64,
    /// When it was delivered, Unix ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<u64>,
}

/// `GET /admin/notifications`: the latest deliveries, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminNoticeList {
    /// The deliveries.
    pub notices: Vec<AdminNotice>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_targets_debug_names_no_secret() {
        let targets = [
            NotifyTarget::WebPush {
                endpoint: "https://push.example.com/wpush/v2/SUBSCRIPTION-ID".into(),
                p256dh: "PUBLIC-KEY".into(),
                auth: "AUTH-SECRET".into(),
            },
            NotifyTarget::Email {
                to: "ann@example.com".into(),
            },
            NotifyTarget::Webhook {
                url: "https://oapi.dingtalk.com/robot/send?access_token=TOKEN".into(),
                format: WebhookFormat::DingTalk,
                secret: Some("SIGNING-SECRET".into()),
            },
        ];
        for t in &targets {
            let shown = format!("{t:?} {t:#?}");
            for secret in [
                "SUBSCRIPTION-ID",
                "PUBLIC-KEY",
                "AUTH-SECRET",
                "ann@",
                "TOKEN",
                "SIGNING-SECRET",
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
        }
        assert!(format!("{:?}", targets[2]).contains("oapi.dingtalk.com"));
    }
}
