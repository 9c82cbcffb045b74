//! A local push service: it checks the VAPID token (RFC 8292) as a real one does,
//! then decrypts the `aes128gcm` body (RFC 8291) with the browser's private key and
//! auth secret, by its own code, and hands the payload to the test.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aes_gcm::aead::rand_core::RngCore as _;
use aes_gcm::aead::{Aead as _, KeyInit as _, OsRng};
use aes_gcm::{Aes128Gcm, Nonce};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_notify::{Channel, Lang, NoticeKind, PushPayload, SendError, Vapid};
use hkdf::Hkdf;
use p256::ecdsa::signature::Verifier as _;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use sha2_011::Sha256;
use tokio::sync::mpsc;

use crate::{closed_port, notice, now_secs, sender};

/// What a browser keeps for its subscription: its key pair and auth secret.
struct Browser {
    /// The subscription's private key (the push service never has it).
    secret: p256::SecretKey,
    /// The 16-byte auth secret.
    auth: [u8; 16],
}

impl Browser {
    fn new() -> Browser {
        let mut auth = [0u8; 16];
        OsRng.fill_bytes(&mut auth);
        Browser {
            secret: p256::SecretKey::random(&mut OsRng),
            auth,
        }
    }

    fn public_sec1(&self) -> Vec<u8> {
        self.secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes()
            .to_vec()
    }

    fn channel(&self, endpoint: &str) -> Channel {
        Channel::WebPush {
            endpoint: endpoint.to_owned(),
            p256dh: URL_SAFE_NO_PAD.encode(self.public_sec1()),
            auth: URL_SAFE_NO_PAD.encode(self.auth),
        }
    }
}

/// What the endpoint accepted.
#[derive(Debug)]
struct Delivered {
    payload: PushPayload,
    urgency: String,
    ttl: String,
    body: Vec<u8>,
}

struct Service {
    /// The VAPID public key the operator registered (base64url).
    vapid_key: String,
    /// The origin the token must be for.
    origin: String,
    browser: Browser,
    /// The status to answer after a good push (201, or 410 for a gone subscription).
    answer: Mutex<(StatusCode, Option<&'static str>)>,
    delivered: mpsc::UnboundedSender<Delivered>,
}

/// Checks `Authorization: vapid t=<jwt>, k=<key>`: the key is the registered one,
/// the ES256 signature verifies against it, `aud` is our origin and `exp` is in
/// the future but at most 24 hours away.
fn check_vapid(header: &str, vapid_key: &str, origin: &str) -> Result<(), String> {
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
    let header: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(h).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    if header["alg"] != "ES256" {
        return Err(format!("alg is {}", header["alg"]));
    }
    let verifying = p256::ecdsa::VerifyingKey::from_sec1_bytes(
        &URL_SAFE_NO_PAD.decode(key).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let signature =
        p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(s).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    verifying
        .verify(format!("{h}.{c}").as_bytes(), &signature)
        .map_err(|_| "the ES256 signature does not verify".to_owned())?;
    let claims: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(c).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    if claims["aud"] != origin {
        return Err(format!("aud is {} not {origin}", claims["aud"]));
    }
    let exp = claims["exp"].as_u64().ok_or("no exp")?;
    let now = now_secs();
    if exp <= now || exp > now + 24 * 60 * 60 {
        return Err(format!("exp {exp} is not within 24 h of {now}"));
    }
    if claims["sub"] != "mailto:ops@catan.example" {
        return Err(format!("sub is {}", claims["sub"]));
    }
    Ok(())
}

/// Decrypts an `aes128gcm` push body (RFC 8188 framing, RFC 8291 keys) as the
/// browser does, for a single record.
fn decrypt(body: &[u8], browser_secret: &p256::SecretKey, auth: &[u8]) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("short header".to_owned());
    }
    let salt = &body[..16];
    let rs = u32::from_be_bytes(body[16..20].try_into().unwrap()) as usize;
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
        .unwrap();
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .unwrap();
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .unwrap();

    let mut plain = Aes128Gcm::new_from_slice(&cek)
        .unwrap()
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
    State(service): State<Arc<Service>>,
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
    if let Err(why) = check_vapid(
        &header("authorization"),
        &service.vapid_key,
        &service.origin,
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
    let _ = service.delivered.send(Delivered {
        payload,
        urgency: header("urgency"),
        ttl: header("ttl"),
        body: body.to_vec(),
    });
    let (status, retry_after) = *service.answer.lock().unwrap();
    let mut out = HeaderMap::new();
    if let Some(seconds) = retry_after {
        out.insert("retry-after", seconds.parse().unwrap());
    }
    (status, out, String::new())
}

struct Running {
    endpoint: String,
    service: Arc<Service>,
    delivered: mpsc::UnboundedReceiver<Delivered>,
    vapid: Vapid,
}

async fn push_service() -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let vapid = Vapid::generate()
        .with_subject("mailto:ops@catan.example")
        .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let service = Arc::new(Service {
        vapid_key: vapid.public_key_base64url(),
        origin: origin.clone(),
        browser: Browser::new(),
        answer: Mutex::new((StatusCode::CREATED, None)),
        delivered: tx,
    });
    let app = Router::new()
        .route("/push/{id}", axum::routing::post(receive))
        .with_state(service.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Running {
        endpoint: format!("{origin}/push/subscription-1"),
        service,
        delivered: rx,
        vapid,
    }
}

#[tokio::test]
async fn a_push_is_signed_encrypted_and_readable_by_the_browser() {
    let mut run = push_service().await;
    let channel = run.service.browser.channel(&run.endpoint);
    let sender = sender(Some(run.vapid.clone()), None, Duration::from_secs(5));

    let turn = crate::notice(NoticeKind::YourTurn, Lang::ZhHans);
    sender
        .send(&channel, &turn)
        .await
        .expect("the push is accepted");
    let got = run.delivered.recv().await.unwrap();
    assert_eq!(got.payload.title, "轮到你了");
    assert!(
        got.payload.body.contains("2026-03-01 12:34 UTC"),
        "{:?}",
        got.payload
    );
    assert_eq!(got.payload.url, "https://catan.example/rooms/c0ffee");
    assert_eq!(got.urgency, "high");
    assert_eq!(got.ttl, "86400");

    // The body is bound to this browser's auth secret: another secret cannot open it.
    let mut wrong_auth = run.service.browser.auth;
    wrong_auth[0] ^= 1;
    assert!(decrypt(&got.body, &run.service.browser.secret, &wrong_auth).is_err());

    let offer = crate::notice(NoticeKind::OfferToYou, Lang::En);
    sender.send(&channel, &offer).await.unwrap();
    let got = run.delivered.recv().await.unwrap();
    assert_eq!(got.payload.title, "You have a trade offer in Catan");
    assert_eq!(got.urgency, "normal");
}

#[tokio::test]
async fn a_push_signed_by_another_key_is_refused() {
    let run = push_service().await;
    let channel = run.service.browser.channel(&run.endpoint);
    let stranger = Vapid::generate()
        .with_subject("mailto:ops@catan.example")
        .unwrap();
    let err = sender(Some(stranger), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(
        matches!(err, SendError::PushStatus { status: 401, .. }),
        "{err}"
    );
    assert!(!err.is_retryable() && !err.is_gone());
}

#[test]
fn the_endpoint_rejects_a_tampered_or_misaddressed_token() {
    let vapid = Vapid::generate()
        .with_subject("mailto:ops@catan.example")
        .unwrap();
    // Sign a real request, then pick its Authorization header apart.
    let browser = Browser::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let header = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let app = Router::new().fallback(move |headers: HeaderMap| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(headers["authorization"].to_str().unwrap().to_owned());
                StatusCode::CREATED
            }
        });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let channel = browser.channel(&format!("http://{addr}/p"));
        sender(Some(vapid.clone()), None, Duration::from_secs(5))
            .send(&channel, &notice(NoticeKind::TimeLow, Lang::En))
            .await
            .unwrap();
        (rx.recv().await.unwrap(), format!("http://{addr}"))
    });
    let (header, origin) = header;
    let key = vapid.public_key_base64url();
    assert_eq!(check_vapid(&header, &key, &origin), Ok(()));
    assert!(
        check_vapid(&header, &key, "http://127.0.0.1").is_err(),
        "port is part of aud"
    );
    let other = Vapid::generate().public_key_base64url();
    assert!(check_vapid(&header, &other, &origin).is_err());
    // Flip one bit of the signature.
    let sig_start = header.find(", k=").unwrap() - 10;
    let mut tampered = header.clone().into_bytes();
    tampered[sig_start] = if tampered[sig_start] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let tampered = String::from_utf8(tampered).unwrap();
    assert_eq!(
        check_vapid(&tampered, &key, &origin),
        Err("the ES256 signature does not verify".to_owned())
    );
}

#[tokio::test]
async fn a_gone_subscription_is_reported_as_gone() {
    let run = push_service().await;
    *run.service.answer.lock().unwrap() = (StatusCode::GONE, None);
    let channel = run.service.browser.channel(&run.endpoint);
    let err = sender(Some(run.vapid.clone()), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(err.is_gone(), "{err}");
    assert!(!err.is_retryable());
    assert_eq!(err.to_string(), "the push service answered HTTP 410");
}

#[tokio::test]
async fn a_busy_push_service_is_retried_after_what_it_asks() {
    let run = push_service().await;
    *run.service.answer.lock().unwrap() = (StatusCode::SERVICE_UNAVAILABLE, Some("120"));
    let channel = run.service.browser.channel(&run.endpoint);
    let err = sender(Some(run.vapid.clone()), None, Duration::from_secs(5))
        .send(&channel, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert!(err.is_retryable() && !err.is_gone(), "{err}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(120)));
}

#[tokio::test]
async fn push_without_vapid_keys_is_not_configured() {
    let browser = Browser::new();
    let err = sender(None, None, Duration::from_secs(1))
        .send(
            &browser.channel("https://push.example/x"),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "not_configured");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn bad_subscription_keys_are_refused_without_showing_them() {
    let vapid = Vapid::generate();
    let sender = sender(Some(vapid), None, Duration::from_secs(1));
    let bad_key = Channel::WebPush {
        endpoint: "https://push.example/x".to_owned(),
        p256dh: "BNOTAREALKEYNOTAREALKEY".to_owned(),
        auth: URL_SAFE_NO_PAD.encode([7u8; 16]),
    };
    let err = sender
        .send(&bad_key, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_channel");
    assert!(!err.to_string().contains("BNOTAREALKEY"), "{err}");
    let browser = Browser::new();
    let Channel::WebPush { p256dh, .. } = browser.channel("https://push.example/x") else {
        unreachable!()
    };
    let short_auth = Channel::WebPush {
        endpoint: "https://push.example/x".to_owned(),
        p256dh,
        auth: URL_SAFE_NO_PAD.encode([7u8; 8]),
    };
    let err = sender
        .send(&short_auth, &notice(NoticeKind::YourTurn, Lang::En))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_channel");
}

#[tokio::test]
async fn an_unreachable_push_service_is_a_retryable_network_error() {
    let port = closed_port().await;
    let browser = Browser::new();
    let endpoint = format!("http://127.0.0.1:{port}/push/SUBSCRIPTIONTOKEN");
    let err = sender(Some(Vapid::generate()), None, Duration::from_secs(2))
        .send(
            &browser.channel(&endpoint),
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert_eq!(err.code(), "network");
    assert!(!err.to_string().contains("SUBSCRIPTIONTOKEN"), "{err}");
}
