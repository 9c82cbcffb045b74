//! Webhook bodies and signatures: this server's signed JSON and the group bots of
//! WeCom, Feishu and DingTalk.
//!
//! Building a request is pure (the clock comes in as an argument), so every body
//! and signature is tested without a network; [`crate::Sender`] only POSTs it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use url::Url;
use uuid::Uuid;

use crate::{ChannelKind, Lang, Notice, NoticeKind, SendError, WebhookFormat};

type HmacSha256 = Hmac<Sha256>;

/// The header carrying the Unix time in seconds at which a [`WebhookFormat::Json`]
/// body was signed; receivers should refuse old ones to stop replays.
pub const TIMESTAMP_HEADER: &str = "X-Catan-Timestamp";

/// The header carrying `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`.
pub const SIGNATURE_HEADER: &str = "X-Catan-Signature";

/// The body of a [`WebhookFormat::Json`] webhook, for receivers to deserialize.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookPayload {
    /// What happened.
    pub kind: NoticeKind,
    /// The room it happened in.
    pub room_id: Uuid,
    /// The rendered title.
    pub title: String,
    /// The rendered body, ending with the unsubscribe hint.
    pub body: String,
    /// The link that opens the game.
    pub game_url: String,
    /// When the move runs out, in Unix milliseconds, if the room has a clock.
    pub deadline_ms: Option<u64>,
    /// The language the text is in.
    pub lang: Lang,
}

/// A webhook POST ready to send: JSON body, extra headers, final URL.
#[derive(Debug, Clone)]
pub(crate) struct WebhookRequest {
    /// Where to POST (DingTalk's signature is added to the query here).
    pub(crate) url: Url,
    /// Headers besides `Content-Type: application/json`.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The exact bytes that were signed.
    pub(crate) body: Vec<u8>,
}

/// The signature header value for a [`WebhookFormat::Json`] body:
/// `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`.
#[must_use]
pub fn webhook_signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = hmac(secret.as_bytes());
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Checks a [`SIGNATURE_HEADER`] value against the body and [`TIMESTAMP_HEADER`]
/// a receiver got, in constant time. It does not judge the timestamp's age:
/// a receiver should also refuse timestamps more than a few minutes old.
#[must_use]
pub fn verify_signature(secret: &str, timestamp: &str, body: &[u8], header: &str) -> bool {
    let expected = webhook_signature(secret, timestamp, body);
    expected.as_bytes().ct_eq(header.trim().as_bytes()).into()
}

/// Feishu's signature: `base64(HMAC-SHA256(key = "{timestamp}\n{secret}", msg = ""))`.
pub(crate) fn feishu_sign(secret: &str, timestamp_secs: u64) -> String {
    let mac = hmac(format!("{timestamp_secs}\n{secret}").as_bytes());
    BASE64.encode(mac.finalize().into_bytes())
}

/// DingTalk's signature: `base64(HMAC-SHA256(key = secret, msg = "{timestamp}\n{secret}"))`.
pub(crate) fn dingtalk_sign(secret: &str, timestamp_ms: u64) -> String {
    let mut mac = hmac(secret.as_bytes());
    mac.update(format!("{timestamp_ms}\n{secret}").as_bytes());
    BASE64.encode(mac.finalize().into_bytes())
}

fn hmac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length")
}

fn invalid(reason: &'static str) -> SendError {
    SendError::InvalidChannel {
        channel: ChannelKind::Webhook,
        reason,
    }
}

/// Parses a webhook URL and insists on `http` or `https` with a host.
pub(crate) fn parse_url(raw: &str) -> Result<Url, SendError> {
    let url = Url::parse(raw).map_err(|_| invalid("the URL does not parse"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the URL is not http or https"));
    }
    if url.host().is_none() {
        return Err(invalid("the URL has no host"));
    }
    Ok(url)
}

/// Builds the request for one notice; `now_ms` is the Unix time in milliseconds.
///
/// # Errors
///
/// [`SendError::InvalidChannel`] if the URL is not `http(s)`.
pub(crate) fn build(
    url: &str,
    format: WebhookFormat,
    secret: Option<&str>,
    notice: &Notice,
    now_ms: u64,
) -> Result<WebhookRequest, SendError> {
    let mut url = parse_url(url)?;
    let rendered = notice.render();
    let text = format!("{}\n{}", rendered.title, rendered.body);
    let now_secs = now_ms / 1000;
    let mut headers = Vec::new();
    let body = match format {
        WebhookFormat::Json => {
            let payload = WebhookPayload {
                kind: notice.kind,
                room_id: notice.room_id,
                title: rendered.title,
                body: rendered.body,
                game_url: notice.game_url.clone(),
                deadline_ms: notice.deadline_ms,
                lang: notice.lang,
            };
            let body = serde_json::to_vec(&payload).expect("the payload always serializes");
            if let Some(secret) = secret {
                let timestamp = now_secs.to_string();
                headers.push((
                    SIGNATURE_HEADER,
                    webhook_signature(secret, &timestamp, &body),
                ));
                headers.push((TIMESTAMP_HEADER, timestamp));
            }
            body
        }
        // WeCom group robot ("群机器人配置说明",
        // https://developer.work.weixin.qq.com/document/path/91770): POST to
        // `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=KEY` the body
        // `{"msgtype":"text","text":{"content":"..."}}`; the key in the URL is the only
        // credential (no signing), so a secret, if set, is not used.
        WebhookFormat::WeCom => to_vec(&json!({"msgtype": "text", "text": {"content": text}})),
        // Feishu custom bot ("自定义机器人使用指南",
        // https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot): POST to
        // `https://open.feishu.cn/open-apis/bot/v2/hook/ID` the body
        // `{"msg_type":"text","content":{"text":"..."}}`; with signature verification
        // on, add `"timestamp"` (Unix seconds, as a string) and `"sign"`, where sign is
        // base64 of HMAC-SHA256 keyed by "{timestamp}\n{secret}" over an empty message.
        WebhookFormat::Feishu => {
            let mut body = json!({"msg_type": "text", "content": {"text": text}});
            if let Some(secret) = secret {
                body["timestamp"] = json!(now_secs.to_string());
                body["sign"] = json!(feishu_sign(secret, now_secs));
            }
            to_vec(&body)
        }
        // DingTalk custom robot ("自定义机器人安全设置", "加签",
        // https://open.dingtalk.com/document/robots/customize-robot-security-settings):
        // POST to `https://oapi.dingtalk.com/robot/send?access_token=TOKEN` the body
        // `{"msgtype":"text","text":{"content":"..."}}`; with signing on, append
        // `&timestamp=<Unix ms>&sign=<urlencode(base64(HMAC-SHA256(secret,
        // "{timestamp}\n{secret}")))>` to the URL.
        WebhookFormat::DingTalk => {
            if let Some(secret) = secret {
                url.query_pairs_mut()
                    .append_pair("timestamp", &now_ms.to_string())
                    .append_pair("sign", &dingtalk_sign(secret, now_ms));
            }
            to_vec(&json!({"msgtype": "text", "text": {"content": text}}))
        }
    };
    Ok(WebhookRequest { url, headers, body })
}

fn to_vec(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a JSON value always serializes")
}

/// Reads a group bot's answer to a 2xx: WeCom and DingTalk say `errcode`, Feishu
/// `code` (older deployments `StatusCode`); anything but 0 is a refusal. A body
/// that is not JSON, or a [`WebhookFormat::Json`] receiver, counts as accepted.
pub(crate) fn bot_verdict(format: WebhookFormat, body: &[u8]) -> Result<(), SendError> {
    let field: &[&str] = match format {
        WebhookFormat::Json => return Ok(()),
        WebhookFormat::WeCom | WebhookFormat::DingTalk => &["errcode"],
        WebhookFormat::Feishu => &["code", "StatusCode"],
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Ok(());
    };
    match field.iter().find_map(|f| value.get(*f)?.as_i64()) {
        Some(code) if code != 0 => Err(SendError::BotRejected { format, code }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice() -> Notice {
        Notice {
            kind: NoticeKind::TimeLow,
            lang: Lang::ZhHans,
            room_id: Uuid::from_u128(7),
            game_url: "https://catan.example/r/7".to_owned(),
            unsubscribe_url: "https://catan.example/settings".to_owned(),
            deadline_ms: Some(1_772_368_496_000),
            seat_name: "小明".to_owned(),
        }
    }

    #[test]
    fn a_signature_verifies_and_a_wrong_secret_or_body_does_not() {
        let header = webhook_signature("s3cret", "1700000000", b"{\"a\":1}");
        assert!(header.starts_with("sha256="));
        assert_eq!(header.len(), "sha256=".len() + 64);
        assert!(verify_signature(
            "s3cret",
            "1700000000",
            b"{\"a\":1}",
            &header
        ));
        assert!(!verify_signature(
            "other",
            "1700000000",
            b"{\"a\":1}",
            &header
        ));
        assert!(!verify_signature(
            "s3cret",
            "1700000001",
            b"{\"a\":1}",
            &header
        ));
        assert!(!verify_signature(
            "s3cret",
            "1700000000",
            b"{\"a\":2}",
            &header
        ));
        assert!(!verify_signature(
            "s3cret",
            "1700000000",
            b"{\"a\":1}",
            "sha256="
        ));
    }

    #[test]
    fn the_json_body_has_the_documented_fields_and_signed_headers() {
        let req = build(
            "https://hooks.example/x",
            WebhookFormat::Json,
            Some("k"),
            &notice(),
            1_700_000_000_123,
        )
        .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = vec![
            "kind",
            "room_id",
            "title",
            "body",
            "game_url",
            "deadline_ms",
            "lang",
        ];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(body["kind"], "time_low");
        assert_eq!(body["lang"], "zh-Hans");
        assert_eq!(body["deadline_ms"], 1_772_368_496_000_u64);
        let ts = &req
            .headers
            .iter()
            .find(|h| h.0 == TIMESTAMP_HEADER)
            .unwrap()
            .1;
        assert_eq!(ts, "1700000000");
        let sig = &req
            .headers
            .iter()
            .find(|h| h.0 == SIGNATURE_HEADER)
            .unwrap()
            .1;
        assert!(verify_signature("k", ts, &req.body, sig));
    }

    #[test]
    fn without_a_secret_nothing_is_signed() {
        let req = build("http://h.example/", WebhookFormat::Json, None, &notice(), 0).unwrap();
        assert!(req.headers.is_empty());
        let req = build(
            "https://oapi.dingtalk.com/robot/send?access_token=t",
            WebhookFormat::DingTalk,
            None,
            &notice(),
            5,
        )
        .unwrap();
        assert_eq!(req.url.query(), Some("access_token=t"));
    }

    #[test]
    fn only_http_and_https_urls_are_accepted() {
        for bad in [
            "ftp://example.org/x",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "not a url",
        ] {
            let err = build(bad, WebhookFormat::Json, None, &notice(), 0).unwrap_err();
            assert_eq!(err.code(), "invalid_channel", "{bad}");
            assert!(!err.to_string().contains(bad), "{err}");
        }
    }

    #[test]
    fn bot_answers_with_a_nonzero_code_are_refusals() {
        assert!(bot_verdict(WebhookFormat::WeCom, br#"{"errcode":0,"errmsg":"ok"}"#).is_ok());
        let err = bot_verdict(WebhookFormat::DingTalk, br#"{"errcode":310000}"#).unwrap_err();
        assert!(matches!(err, SendError::BotRejected { code: 310_000, .. }));
        assert!(bot_verdict(WebhookFormat::Feishu, br#"{"code":19021,"msg":"sign"}"#).is_err());
        assert!(bot_verdict(WebhookFormat::Feishu, br#"{"StatusCode":0}"#).is_ok());
        assert!(bot_verdict(WebhookFormat::Json, br#"{"errcode":1}"#).is_ok());
        assert!(bot_verdict(WebhookFormat::WeCom, b"ok").is_ok());
    }
}
