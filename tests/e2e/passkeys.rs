//! Passkeys (protocol 25.10) over the HTTP API, on SQLite and PostgreSQL: what a
//! client is given to start each ceremony (a discoverable credential of the
//! server's relying party; a sign-in that names no account), and every refusal,
//! each with its code and nothing changed: a guest (`not_an_account`), a finish
//! whose ceremony is unknown, another player's, already taken or expired, or whose
//! answer does not verify (`passkey_failed` to register, `invalid_credentials` to
//! sign in, as a wrong password), unknown fields, an unknown passkey, a server whose
//! public origins are addresses (`passkeys_unavailable`), sign-in starts beyond the
//! per-address limit. The store's side: a ceremony is taken once, not after it
//! expired; a credential is kept once; only a living account keeps passkeys; a
//! deleted player's go with it.
//!
//! The whole ceremony with an authenticator (a passkey added, then signing in with
//! it) is the browser test's, in Chromium with its virtual authenticator
//! (web/tests/passkeys.js).

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{PasskeyChallenge, PasskeyList, SignedIn};
use catan_server::store::{CeremonyKind, CeremonyRow, PasskeyRow, SqlStore, Store, StoreError};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// An account named `name` with its session.
async fn account(server: &TestServer, name: &str) -> SignedIn {
    let (p, _) = server.guest(name).await;
    server.claim(&p, PASSWORD).await;
    p
}

/// A made-up authenticator answer of the right shape that no key signed.
fn forged(kind: &str) -> Value {
    let response = if kind == "create" {
        json!({ "clientDataJSON": "e30", "attestationObject": "oA", "transports": ["internal"] })
    } else {
        json!({ "clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA", "userHandle": "AA" })
    };
    json!({ "id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": response, "clientExtensionResults": {} })
}

async fn passkeys_life(server: &TestServer, url: &str) {
    let ann = account(server, "Ann").await;
    let (guest, _) = server.guest("Guest").await;
    let post = |path: &'static str, token: Option<String>, body: Value| async move {
        let (status, body, _) = server
            .call(Method::POST, path, token.as_deref(), Some(body))
            .await;
        (status, body)
    };

    // A guest has no passkeys to add.
    let (status, body) = post(
        "/api/me/passkeys/start",
        Some(guest.token.clone()),
        json!({}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "not_an_account"), "{body}");
    // Nor does nobody.
    let (status, body) = post("/api/me/passkeys/start", None, json!({})).await;
    assert_eq!((status, code(&body)), (401, "not_signed_in"), "{body}");

    // An account's registration: the server's relying party (localhost without
    // public origins), the account's id as the user handle, a discoverable
    // credential with the user verified.
    let (status, body) = post("/api/me/passkeys/start", Some(ann.token.clone()), json!({})).await;
    assert_eq!(status, 200, "{body}");
    let start: PasskeyChallenge = serde_json::from_value(body).expect("PasskeyChallenge");
    let options = &start.options["publicKey"];
    assert_eq!(options["rp"]["id"], "localhost");
    assert_eq!(options["user"]["name"], "Ann");
    assert!(
        options["challenge"].as_str().is_some_and(|c| c.len() >= 43),
        "{options}"
    );
    assert_eq!(options["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(
        options["authenticatorSelection"]["userVerification"],
        "required"
    );
    assert!(
        options["excludeCredentials"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "nothing kept yet: {options}"
    );

    // Finishing it as someone else, with unknown fields, with an answer no key
    // signed, or a second time: refused, nothing kept.
    let other = account(server, "Bob").await;
    let finish = |ceremony: Uuid, extra: Option<(&'static str, Value)>| {
        let mut body =
            json!({ "ceremony": ceremony, "credential": forged("create"), "label": "Phone" });
        if let Some((k, v)) = extra {
            body[k] = v;
        }
        body
    };
    let (status, body) = post(
        "/api/me/passkeys/finish",
        Some(ann.token.clone()),
        finish(start.ceremony, Some(("surprise", json!(1)))),
    )
    .await;
    assert_eq!((status, code(&body)), (400, "bad_request"), "{body}");
    let (status, body) = post(
        "/api/me/passkeys/finish",
        Some(other.token.clone()),
        finish(start.ceremony, None),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (400, "passkey_failed"),
        "another's ceremony: {body}"
    );
    let (status, body) = post(
        "/api/me/passkeys/finish",
        Some(ann.token.clone()),
        finish(start.ceremony, None),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (400, "passkey_failed"),
        "taken by the first try (whoever made it): {body}"
    );
    let (status, body) = post("/api/me/passkeys/start", Some(ann.token.clone()), json!({})).await;
    assert_eq!(status, 200, "{body}");
    let again: PasskeyChallenge = serde_json::from_value(body).expect("PasskeyChallenge");
    let (status, body) = post(
        "/api/me/passkeys/finish",
        Some(ann.token.clone()),
        finish(again.ceremony, None),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (400, "passkey_failed"),
        "a forged answer: {body}"
    );
    let (status, body) = post(
        "/api/me/passkeys/finish",
        Some(ann.token.clone()),
        finish(Uuid::new_v4(), None),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (400, "passkey_failed"),
        "no such ceremony: {body}"
    );
    let (status, list, _) = server
        .call(Method::GET, "/api/me/passkeys", Some(&ann.token), None)
        .await;
    assert_eq!(status, 200, "{list}");
    let list: PasskeyList = serde_json::from_value(list).expect("PasskeyList");
    assert!(list.passkeys.is_empty(), "nothing kept: {list:?}");
    let (status, body, _) = server
        .call(
            Method::DELETE,
            "/api/me/passkeys/00ff",
            Some(&ann.token),
            None,
        )
        .await;
    assert_eq!((status, code(&body)), (404, "passkey_not_found"), "{body}");

    // A sign-in names nobody: no account, no credential list.
    let (status, body) = post("/api/sessions/passkey/start", None, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let sign_in: PasskeyChallenge = serde_json::from_value(body).expect("PasskeyChallenge");
    let options = &sign_in.options["publicKey"];
    assert_eq!(options["rpId"], "localhost");
    assert_eq!(options["userVerification"], "required");
    assert!(
        options["allowCredentials"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{options}"
    );
    assert!(
        sign_in.options.get("mediation").is_none(),
        "a modal sign-in"
    );
    for (ceremony, what) in [
        (sign_in.ceremony, "a forged answer"),
        (sign_in.ceremony, "taken"),
        (Uuid::new_v4(), "unknown"),
    ] {
        let (status, body) = post(
            "/api/sessions/passkey/finish",
            None,
            json!({ "ceremony": ceremony, "credential": forged("get") }),
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (401, "invalid_credentials"),
            "{what}: {body}"
        );
    }

    // The store: a ceremony is taken once and not after its time; a credential is
    // kept once, for a living account only; a deleted player's go with it.
    let store = SqlStore::connect(url).await.expect("store");
    let now = 1_000_000;
    let row = CeremonyRow {
        id: Uuid::new_v4(),
        kind: CeremonyKind::Authenticate,
        player_id: None,
        state: "{}".into(),
        expires_at: now + 300_000,
    };
    store.start_ceremony(&row, now).await.expect("kept");
    assert_eq!(
        store
            .take_ceremony(row.id, CeremonyKind::Register, now)
            .await
            .expect("read"),
        None,
        "another kind's"
    );
    assert_eq!(
        store
            .take_ceremony(row.id, CeremonyKind::Authenticate, now)
            .await
            .expect("read"),
        Some(row.clone())
    );
    assert_eq!(
        store
            .take_ceremony(row.id, CeremonyKind::Authenticate, now)
            .await
            .expect("read"),
        None,
        "once"
    );
    let late = CeremonyRow {
        id: Uuid::new_v4(),
        ..row.clone()
    };
    store.start_ceremony(&late, now).await.expect("kept");
    assert_eq!(
        store
            .take_ceremony(late.id, CeremonyKind::Authenticate, late.expires_at)
            .await
            .expect("read"),
        None,
        "expired"
    );
    let key = |player_id: Uuid, id: &str| PasskeyRow {
        id: id.into(),
        player_id,
        label: "Phone".into(),
        credential: "{}".into(),
        created_at: now,
        last_used_at: None,
    };
    assert!(
        store
            .add_passkey(&key(ann.player.id, "01"))
            .await
            .expect("kept")
    );
    assert!(matches!(
        store.add_passkey(&key(other.player.id, "01")).await,
        Err(StoreError::Conflict(_))
    ));
    assert!(
        !store
            .add_passkey(&key(guest.player.id, "02"))
            .await
            .expect("refused"),
        "a guest"
    );
    store
        .passkey_used("01", "{\"counter\":1}", now + 5)
        .await
        .expect("used");
    let kept = store.passkeys(ann.player.id).await.expect("read");
    assert_eq!(
        kept,
        vec![PasskeyRow {
            credential: "{\"counter\":1}".into(),
            last_used_at: Some(now + 5),
            ..key(ann.player.id, "01")
        }]
    );
    let (status, body, _) = server
        .call(Method::GET, "/api/me/passkeys", Some(&ann.token), None)
        .await;
    assert_eq!(body["passkeys"][0]["id"], "01", "{status} {body}");
    assert_eq!(body["passkeys"][0]["last_used_at"], now + 5);
    assert!(
        body["passkeys"][0].get("credential").is_none(),
        "the record stays on the server"
    );
    let (status, _, _) = server
        .call(Method::DELETE, "/api/me", Some(&ann.token), None)
        .await;
    assert_eq!(status, 204);
    assert!(
        store
            .passkeys(ann.player.id)
            .await
            .expect("read")
            .is_empty(),
        "gone with the player"
    );
    assert!(
        store
            .add_passkey(&key(ann.player.id, "03"))
            .await
            .is_ok_and(|added| !added),
        "a deleted player keeps none"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passkey_ceremonies_and_their_refusals_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    passkeys_life(&server, &url).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passkey_ceremonies_and_their_refusals_on_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    passkeys_life(&server, &url).await;
    server.stop().await;
}

/// A server reached at an address has no relying party: every passkey call says so
/// (and passwords work as before); with a domain, it is the relying party.
#[tokio::test]
async fn passkeys_need_a_domain_and_take_the_first_public_one() {
    let server = TestServer::start_with(|c| {
        c.listen.public_origins = vec!["http://192.0.2.7:8080".into()];
    })
    .await;
    let ann = account(&server, "Ann").await;
    for (path, token) in [
        ("/api/me/passkeys/start", Some(ann.token.as_str())),
        ("/api/sessions/passkey/start", None),
    ] {
        let (status, body, _) = server
            .call(Method::POST, path, token, Some(json!({})))
            .await;
        assert_eq!(
            (status, code(&body)),
            (503, "passkeys_unavailable"),
            "{path}: {body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("CATAN_PUBLIC_ORIGINS")),
            "names the setting: {body}"
        );
    }
    server.stop().await;

    let server = TestServer::start_with(|c| {
        c.listen.public_origins = vec![
            "http://192.0.2.7:8080".into(),
            "https://catan.example.org".into(),
            "https://play.catan.example.org".into(),
        ];
    })
    .await;
    let (status, body, _) = server
        .call(
            Method::POST,
            "/api/sessions/passkey/start",
            None,
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["options"]["publicKey"]["rpId"], "catan.example.org");
    server.stop().await;
}

/// Starting passkey sign-ins counts against the address's sign-in attempts.
#[tokio::test]
async fn passkey_sign_in_starts_are_limited_per_address() {
    let server = TestServer::start_with(|c| {
        c.players.sign_in_rate_per_min = 1;
        c.players.sign_in_burst = 2;
    })
    .await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (status, body, _) = server
            .call(
                Method::POST,
                "/api/sessions/passkey/start",
                None,
                Some(json!({})),
            )
            .await;
        seen.push((status, code(&body).to_owned()));
    }
    assert_eq!(
        seen,
        vec![
            (200, String::new()),
            (200, String::new()),
            (429, "rate_limited".into())
        ]
    );
    server.stop().await;
}
