//! Web Push: the operator's VAPID keys (RFC 8292) and a notice encrypted for one
//! browser subscription (RFC 8291, `aes128gcm`).
//!
//! The encryption is `web-push-native`'s, on the RustCrypto crates. The VAPID token
//! is a three-field JWT signed here with `p256`'s ECDSA (ES256): that crate's own
//! helper pulls in `jwt-simple` and leaves the port out of the audience, which must
//! be the endpoint's full origin.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde::{Deserialize, Serialize};
use web_push_native::{Auth, WebPushBuilder};

use crate::{ChannelKind, ConfigError, Notice, SendError};

/// How long a push service keeps a message for an offline browser (`TTL`): a
/// day, after which a turn notice is stale anyway.
pub const PUSH_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a VAPID token is valid; RFC 8292 §2 allows at most 24 hours.
const VAPID_VALIDITY_SECS: u64 = 12 * 60 * 60;

/// The operator's VAPID key pair (a P-256 key) and contact, which identify this
/// server to push services.
///
/// Generate it once, keep [`Vapid::private_key_base64url`] in the server's secret
/// configuration, and give [`Vapid::public_key_base64url`] to the web client as its
/// `applicationServerKey`. Changing the key orphans every existing subscription.
/// `Debug` shows the public key and subject only.
#[derive(Clone)]
pub struct Vapid {
    /// The P-256 private key that signs each push request's token.
    key: SigningKey,
    /// The `sub` claim: how a push service's operator can reach ours.
    subject: Option<String>,
}

impl Vapid {
    /// A new random key pair, without a subject.
    #[must_use]
    pub fn generate() -> Vapid {
        Vapid {
            key: SigningKey::random(&mut rand_core::OsRng),
            subject: None,
        }
    }

    /// The key pair from its private key: the 32-byte P-256 scalar in base64url
    /// (padding optional), as [`Vapid::private_key_base64url`] gives it and as the
    /// common `web-push` tools print it.
    ///
    /// # Errors
    ///
    /// [`ConfigError::VapidKey`] if it is not base64url or not a valid scalar.
    pub fn from_base64url(private_key: &str) -> Result<Vapid, ConfigError> {
        let bytes = decode_base64url(private_key).ok_or(ConfigError::VapidKey)?;
        if bytes.len() != 32 {
            return Err(ConfigError::VapidKey);
        }
        let key = SigningKey::from_slice(&bytes).map_err(|_| ConfigError::VapidKey)?;
        Ok(Vapid { key, subject: None })
    }

    /// Sets the contact push services may use (RFC 8292 §2.1): a `mailto:` address
    /// or an `https:` URL. Some services (Apple's) refuse tokens without one.
    ///
    /// # Errors
    ///
    /// [`ConfigError::VapidSubject`] if it is neither `mailto:` nor `https:`.
    pub fn with_subject(mut self, subject: impl Into<String>) -> Result<Vapid, ConfigError> {
        let subject = subject.into();
        let ok = match subject.split_once(':') {
            Some(("mailto", rest)) => rest.contains('@'),
            Some(("https", _)) => url::Url::parse(&subject).is_ok_and(|u| u.host().is_some()),
            _ => false,
        };
        if !ok {
            return Err(ConfigError::VapidSubject);
        }
        self.subject = Some(subject);
        Ok(self)
    }

    /// The contact sent as the token's `sub`, if set.
    #[must_use]
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The public key, uncompressed SEC1 (65 bytes) in base64url without padding:
    /// what the browser's `pushManager.subscribe({ applicationServerKey })` takes.
    #[must_use]
    pub fn public_key_base64url(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.verifying_key().to_encoded_point(false).as_bytes())
    }

    /// The private key (32 bytes, base64url without padding), for the operator to
    /// store as a secret and load with [`Vapid::from_base64url`]. Never log it.
    #[must_use]
    pub fn private_key_base64url(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.to_bytes())
    }

    /// The `Authorization` header value for a push to `origin` (RFC 8292 §3):
    /// `vapid t=<JWT>, k=<public key>`, the JWT signed with ES256 and valid for
    /// [`VAPID_VALIDITY_SECS`] from `now_secs` (Unix seconds).
    fn authorization(&self, origin: &str, now_secs: u64) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let mut claims = serde_json::json!({
            "aud": origin,
            "exp": now_secs + VAPID_VALIDITY_SECS,
        });
        if let Some(subject) = &self.subject {
            claims["sub"] = serde_json::json!(subject);
        }
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signing_input = format!("{header}.{claims}");
        let signature: Signature = self.key.sign(signing_input.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(signature.to_bytes());
        format!(
            "vapid t={signing_input}.{signature}, k={}",
            self.public_key_base64url()
        )
    }
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public_key", &self.public_key_base64url())
            .field("private_key", &"[redacted]")
            .field("subject", &self.subject)
            .finish()
    }
}

/// The JSON a push carries, for the service worker to show: it calls
/// `showNotification(title, { body })` and opens `url` when the notification is
/// clicked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushPayload {
    /// The notification's title.
    pub title: String,
    /// The notification's text: the rendered summary, without links.
    pub body: String,
    /// The game link to open on click.
    pub url: String,
}

/// Decodes base64url with or without padding (and tolerates the standard alphabet).
fn decode_base64url(text: &str) -> Option<Vec<u8>> {
    let cleaned: String = text
        .trim()
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD.decode(cleaned).ok()
}

fn invalid(reason: &'static str) -> SendError {
    SendError::InvalidChannel {
        channel: ChannelKind::WebPush,
        reason,
    }
}

/// Builds the encrypted, signed POST of `notice` to one subscription, at
/// `now_secs` (Unix seconds).
///
/// # Errors
///
/// [`SendError::InvalidChannel`] for a bad endpoint or keys, [`SendError::Encrypt`]
/// if encryption or signing fails.
pub(crate) fn build_request(
    vapid: &Vapid,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    notice: &Notice,
    now_secs: u64,
) -> Result<http::Request<Vec<u8>>, SendError> {
    let url = url::Url::parse(endpoint).map_err(|_| invalid("the endpoint does not parse"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid("the endpoint is not an http(s) URL"));
    }
    let uri: http::Uri = url
        .as_str()
        .parse()
        .map_err(|_| invalid("the endpoint does not parse"))?;
    let ua_public = decode_base64url(p256dh)
        .and_then(|bytes| p256::PublicKey::from_sec1_bytes(&bytes).ok())
        .ok_or(invalid("p256dh is not a base64url P-256 public key"))?;
    let ua_auth = decode_base64url(auth)
        .filter(|bytes| bytes.len() == 16)
        .ok_or(invalid("auth is not a base64url 16-byte secret"))?;

    let rendered = notice.render();
    let payload = PushPayload {
        title: rendered.title,
        body: rendered.summary,
        url: notice.game_url.clone(),
    };
    let payload = serde_json::to_vec(&payload).expect("the payload always serializes");
    let mut request = WebPushBuilder::new(uri, ua_public, Auth::clone_from_slice(&ua_auth))
        .with_valid_duration(PUSH_TTL)
        .build(payload)
        .map_err(|_| SendError::Encrypt)?;

    let authorization = vapid.authorization(&url.origin().ascii_serialization(), now_secs);
    let headers = request.headers_mut();
    headers.insert(
        http::header::AUTHORIZATION,
        authorization.parse().map_err(|_| SendError::Encrypt)?,
    );
    let urgency = if notice.kind.is_urgent() {
        "high"
    } else {
        "normal"
    };
    headers.insert("urgency", http::HeaderValue::from_static(urgency));
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vapid_key_survives_its_base64url_round_trip() {
        let vapid = Vapid::generate();
        let private = vapid.private_key_base64url();
        assert_eq!(URL_SAFE_NO_PAD.decode(&private).unwrap().len(), 32);
        let public = URL_SAFE_NO_PAD
            .decode(vapid.public_key_base64url())
            .unwrap();
        assert_eq!(public.len(), 65);
        assert_eq!(public[0], 4, "uncompressed SEC1 point");
        let again = Vapid::from_base64url(&private).unwrap();
        assert_eq!(again.public_key_base64url(), vapid.public_key_base64url());
        let padded = format!("{private}=");
        assert!(Vapid::from_base64url(&padded).is_ok());
    }

    #[test]
    fn a_bad_vapid_key_or_subject_is_refused() {
        assert!(Vapid::from_base64url("not base64!").is_err());
        assert!(Vapid::from_base64url("AAAA").is_err());
        assert!(Vapid::from_base64url(&URL_SAFE_NO_PAD.encode([0u8; 32])).is_err());
        let vapid = Vapid::generate();
        assert!(
            vapid
                .clone()
                .with_subject("mailto:ops@catan.example")
                .is_ok()
        );
        assert!(vapid.clone().with_subject("https://catan.example/").is_ok());
        assert!(vapid.clone().with_subject("http://catan.example/").is_err());
        assert!(vapid.clone().with_subject("ops@catan.example").is_err());
        assert!(vapid.with_subject("mailto:").is_err());
    }

    #[test]
    fn the_token_is_for_the_endpoint_origin_and_expires_in_twelve_hours() {
        let vapid = Vapid::generate()
            .with_subject("mailto:ops@catan.example")
            .unwrap();
        let browser = p256::SecretKey::random(&mut rand_core::OsRng);
        let p256dh = URL_SAFE_NO_PAD.encode(browser.public_key().to_sec1_bytes());
        let notice = crate::Notice {
            kind: crate::NoticeKind::OfferToYou,
            lang: crate::Lang::En,
            room_id: uuid::Uuid::nil(),
            game_url: "https://catan.example/r".to_owned(),
            unsubscribe_url: "https://catan.example/s".to_owned(),
            deadline_ms: None,
            seat_name: "Ada".to_owned(),
        };
        let request = build_request(
            &vapid,
            "https://push.example:8443/wpush/v2/abc?x=1",
            &p256dh,
            &URL_SAFE_NO_PAD.encode([1u8; 16]),
            &notice,
            1_700_000_000,
        )
        .unwrap();
        let header = request.headers()["authorization"].to_str().unwrap();
        let token = header
            .strip_prefix("vapid t=")
            .unwrap()
            .split(", k=")
            .next()
            .unwrap();
        let claims = token.split('.').nth(1).unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).unwrap()).unwrap();
        assert_eq!(
            claims,
            serde_json::json!({
                "aud": "https://push.example:8443",
                "exp": 1_700_000_000 + 12 * 3600,
                "sub": "mailto:ops@catan.example",
            })
        );
        assert!(header.ends_with(&format!(", k={}", vapid.public_key_base64url())));
        assert_eq!(request.headers()["urgency"], "normal");
        assert_eq!(request.headers()["ttl"], "86400");
        assert_eq!(request.headers()["content-encoding"], "aes128gcm");
    }

    #[test]
    fn debug_of_vapid_hides_the_private_key() {
        let vapid = Vapid::generate()
            .with_subject("mailto:ops@catan.example")
            .unwrap();
        let text = format!("{vapid:?}");
        assert!(!text.contains(&vapid.private_key_base64url()), "{text}");
        assert!(text.contains(&vapid.public_key_base64url()), "{text}");
        assert!(text.contains("[redacted]"));
    }
}
