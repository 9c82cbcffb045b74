//! A local push service: it checks the VAPID token (RFC 8292) as a real one does,
//! then decrypts the `aes128gcm` body (RFC 8291) with the browser's private key and
//! auth secret, by its own code, and hands the payload to the test.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use aes_gcm::aead::rand_core::RngCore as _;
use aes_gcm::aead::{Aead as _, KeyInit as _, OsRng};
use aes_gcm::{Aes128Gcm, Nonce};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use p256::ecdsa::signature::Verifier as _;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use sha2_011::Sha256;
use tokio::sync::mpsc;

use crate::{Channel, PushPayload};

/// What a browser keeps for its subscription: its key pair and auth secret.
pub struct PushBrowser {
    /// The subscription's private key (the push service never has it).
    pub secret: p256::SecretKey,
    /// The 16-byte auth secret.
    pub auth: [u8; 16],
}

impl std::fmt::Debug for PushBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushBrowser")
            .field("p256dh", &self.p256dh())
            .finish_non_exhaustive()
    }
}

impl Default for PushBrowser {
    fn default() -> Self {
        PushBrowser::new()
    }
}

impl PushBrowser {
    /// A browser with fresh keys.
    #[must_use]
    pub fn new() -> PushBrowser {
        let mut auth = [0u8; 16];
        OsRng.fill_bytes(&mut auth);
        PushBrowser {
            secret: p256::SecretKey::random(&mut OsRng),
            auth,
        }
    }

    /// The subscription's public key, uncompressed SEC1.
    #[must_use]
    pub fn public_sec1(&self) -> Vec<u8> {
        self.secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes()
            .to_vec()
    }

    /// `keys.p256dh` of the subscription, base64url.
    #[must_use]
    pub fn p256dh(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.public_sec1())
    }

    /// `keys.auth` of the subscription, base64url.
    #[must_use]
    pub fn auth_base64url(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.auth)
    }

    /// The channel a server keeps for this browser's subscription at `endpoint`.
    #[must_use]
    pub fn channel(&self, endpoint: &str) -> Channel {
        Channel::WebPush {
            endpoint: endpoint.to_owned(),
            p256dh: self.p256dh(),
            auth: self.auth_base64url(),
        }
    }
}

/// What the endpoint accepted.
#[derive(Debug)]
pub struct PushDelivery {
    /// The path's last segment: which subscription it was for.
    pub subscription: String,
    /// The decrypted payload.
    pub payload: PushPayload,
    /// The `Urgency` header.
    pub urgency: String,
    /// The `TTL` header.
    pub ttl: String,
    /// The encrypted body as sent.
    pub body: Vec<u8>,
}

/// The push service's state, shared with the test.
#[derive(Debug)]
pub struct PushService {
    /// `http://127.0.0.1:PORT`, the origin the token's `aud` must name.
    pub origin: String,
    /// The browser whose subscriptions it serves.
    pub browser: PushBrowser,
    /// The VAPID public key the operator registered (base64url).
    vapid_key: Mutex<String>,
    /// The `sub` claim the token must carry.
    subject: String,
    /// The statuses to answer after a good push, first to last; then 201.
    answers: Mutex<Vec<(StatusCode, Option<&'static str>)>>,
    /// Where accepted pushes go.
    delivered: mpsc::UnboundedSender<PushDelivery>,
}

impl PushService {
    /// The endpoint URL of subscription `id`.
    #[must_use]
    pub fn endpoint(&self, id: &str) -> String {
        format!("{}/push/{id}", self.origin)
    }

    /// Answers the next good pushes with these statuses (and `Retry-After`), in
    /// order; after them, 201 again.
    ///
    /// # Panics
    /// If the lock is poisoned.
    pub fn answer_next(&self, answers: &[(StatusCode, Option<&'static str>)]) {
        let mut queue = self.answers.lock().unwrap();
        queue.clear();
        queue.extend(answers.iter().rev().copied());
    }

    /// Sets the VAPID public key the tokens must be signed with.
    ///
    /// # Panics
    /// If the lock is poisoned.
    pub fn expect_key(&self, vapid_key: &str) {
        vapid_key.clone_into(&mut self.vapid_key.lock().unwrap());
    }
}

/// Checks `Authorization: vapid t=<jwt>, k=<key>`: the key is the registered one,
/// the ES256 signature verifies against it, `aud` is `origin`, `sub` is `subject`
/// and `exp` is in the future but at most 24 hours away.
///
/// # Errors
/// What is wrong, in words.
pub fn check_vapid(
    header: &str,
    vapid_key: &str,
    origin: &str,
    subject: &str,
) -> Result<(), String> {
    let rest = header.strip_prefix("vapid ").ok_or("not a vapid scheme")?;
    let mut token = None;
    let mut key = None;
    for part in rest.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => token = Some(v),
            Some(("k", v)) => key = Some(v),
            _ => return Err(format!("unexpected part {part:?}")),
        }
    }
    let (token, key) = (token.ok_or("no t=")?, key.ok_or("no k=")?);
    if key != vapid_key {
        return Err("k= is not the registered key".to_owned());
    }
    let mut parts = token.split('.');
    let (Some(h), Some(c), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("the token is not three parts".to_owned());
    };
    let header = json_part(h)?;
    if header["alg"] != "ES256" {
        return Err(format!("alg is {}", header["alg"]));
    }
    let verifying =
        p256::ecdsa::VerifyingKey::from_sec1_bytes(&b64(key)?).map_err(|e| e.to_string())?;
    let signature = p256::ecdsa::Signature::from_slice(&b64(s)?).map_err(|e| e.to_string())?;
    verifying
        .verify(format!("{h}.{c}").as_bytes(), &signature)
        .map_err(|_| "the ES256 signature does not verify".to_owned())?;
    let claims = json_part(c)?;
    if claims["aud"] != origin {
        return Err(format!("aud is {} not {origin}", claims["aud"]));
    }
    let exp = claims["exp"].as_u64().ok_or("no exp")?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if exp <= now || exp > now + 24 * 60 * 60 {
        return Err(format!("exp {exp} is not within 24 h of {now}"));
    }
    if claims["sub"] != subject {
        return Err(format!("sub is {}", claims["sub"]));
    }
    Ok(())
}

fn b64(text: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD.decode(text).map_err(|e| e.to_string())
}

fn json_part(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_slice(&b64(text)?).map_err(|e| e.to_string())
}

/// Decrypts an `aes128gcm` push body (RFC 8188 framing, RFC 8291 keys) as the
/// browser does, for a single record.
///
/// # Errors
/// What is wrong, in words.
pub fn decrypt(
    body: &[u8],
    browser_secret: &p256::SecretKey,
    auth: &[u8],
) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("short header".to_owned());
    }
    let salt = &body[..16];
    let rs = u32::from_be_bytes([body[16], body[17], body[18], body[19]]) as usize;
    let idlen = usize::from(body[20]);
    let keyid = body.get(21..21 + idlen).ok_or("short key id")?;
    let ciphertext = &body[21 + idlen..];
    if idlen != 65 || ciphertext.len() > rs {
        return Err(format!(
            "idlen {idlen}, record {} > rs {rs}",
            ciphertext.len()
        ));
    }
    let server_public = p256::PublicKey::from_sec1_bytes(keyid).map_err(|e| e.to_string())?;
    let shared = p256::ecdh::diffie_hellman(
        browser_secret.to_nonzero_scalar(),
        server_public.as_affine(),
    );
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(
        browser_secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes(),
    );
    key_info.extend_from_slice(keyid);
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes().as_slice())
        .expand(&key_info, &mut ikm)
        .map_err(|e| e.to_string())?;
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|e| e.to_string())?;
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|e| e.to_string())?;
    let mut plain = Aes128Gcm::new_from_slice(&cek)
        .map_err(|e| e.to_string())?
        .decrypt(Nonce::from_slice(&nonce), ciphertext)
        .map_err(|_| "AES-GCM authentication failed".to_owned())?;
    // Padding: the last record ends with a 0x02 delimiter, then zeros.
    while plain.last() == Some(&0) {
        plain.pop();
    }
    if plain.pop() != Some(2) {
        return Err("no last-record delimiter".to_owned());
    }
    Ok(plain)
}

async fn receive(
    State(service): State<Arc<PushService>>,
    Path(subscription): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, HeaderMap, String) {
    let refuse = |status: StatusCode, why: String| (status, HeaderMap::new(), why);
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let key = service.vapid_key.lock().unwrap().clone();
    if let Err(why) = check_vapid(
        &header("authorization"),
        &key,
        &service.origin,
        &service.subject,
    ) {
        return refuse(StatusCode::UNAUTHORIZED, why);
    }
    if header("content-encoding") != "aes128gcm" {
        return refuse(StatusCode::BAD_REQUEST, "not aes128gcm".to_owned());
    }
    let plain = match decrypt(&body, &service.browser.secret, &service.browser.auth) {
        Ok(plain) => plain,
        Err(why) => return refuse(StatusCode::BAD_REQUEST, why),
    };
    let payload = match serde_json::from_slice::<PushPayload>(&plain) {
        Ok(payload) => payload,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let _ = service.delivered.send(PushDelivery {
        subscription,
        payload,
        urgency: header("urgency"),
        ttl: header("ttl"),
        body: body.to_vec(),
    });
    let (status, retry_after) = service
        .answers
        .lock()
        .unwrap()
        .pop()
        .unwrap_or((StatusCode::CREATED, None));
    let mut out = HeaderMap::new();
    if let Some(seconds) = retry_after.and_then(|s| s.parse().ok()) {
        out.insert("retry-after", seconds);
    }
    (status, out, String::new())
}

/// Starts a push service on 127.0.0.1 for one browser, expecting tokens signed by
/// `vapid_key` (base64url public key; [`PushService::expect_key`] changes it)
/// with `sub` = `subject`; accepted pushes arrive on the receiver.
///
/// # Panics
/// If it cannot listen on 127.0.0.1.
pub async fn push_service(
    vapid_key: &str,
    subject: &str,
) -> (Arc<PushService>, mpsc::UnboundedReceiver<PushDelivery>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    let service = Arc::new(PushService {
        origin,
        browser: PushBrowser::new(),
        vapid_key: Mutex::new(vapid_key.to_owned()),
        subject: subject.to_owned(),
        answers: Mutex::new(Vec::new()),
        delivered: tx,
    });
    let app = Router::new()
        .route("/push/{id}", axum::routing::post(receive))
        .with_state(service.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (service, rx)
}
