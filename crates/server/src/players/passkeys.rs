//! Passkeys (WebAuthn, with kanidm's `webauthn-rs`; docs/protocol/25-players.md,
//! section 25.10): an account registers passkeys beside its password, and signs in
//! with one without typing its name (a discoverable credential: the authenticator
//! says whose it is), so that the sign-in tells nobody which names exist.
//!
//! Each ceremony is two calls: its start keeps the verifier's state in the store
//! (any instance of a cluster may take the finish) for [`CEREMONY`], and its finish
//! takes that state once.
//!
//! The relying party is the server's domain: the host of the first of its public
//! origins that is a domain name (`--public-origins`), every public origin of that
//! domain or under it allowed; with no public origins, `localhost` on any port (a
//! trial on one's own machine). Public origins that are all IP addresses leave
//! passkeys off (`passkeys_unavailable`): WebAuthn binds credentials to a domain.

use std::sync::Arc;
use std::time::Duration;

use catan_protocol::{LobbyError, PasskeyChallenge, PasskeyInfo};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;
use webauthn_rs::prelude::{
    DiscoverableAuthentication, Passkey, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Webauthn, WebauthnBuilder,
};

use super::{Session, now_ms, stored};
use crate::store::{CeremonyKind, CeremonyRow, PasskeyRow, PlayerRow, Store, StoreError};

/// How long a ceremony may take from its start to its finish (WebAuthn's
/// recommended time for the person at the authenticator).
pub const CEREMONY: Duration = webauthn_rs::DEFAULT_AUTHENTICATOR_TIMEOUT;

/// Most characters of a passkey's label.
pub const LABEL_CHARS: usize = 40;

/// The relying party for `public_origins` (see the module's docs): `None` when
/// they name no domain.
fn relying_party(public_origins: &[String]) -> Option<Webauthn> {
    // (An empty setting, as compose passes one without a domain, is no setting.)
    let given: Vec<&str> = public_origins
        .iter()
        .map(|o| o.trim())
        .filter(|o| !o.is_empty())
        .collect();
    let origins: Vec<Url> = given.iter().filter_map(|o| Url::parse(o).ok()).collect();
    if given.is_empty() {
        let local = Url::parse("http://localhost").expect("a fixed URL");
        let secure = Url::parse("https://localhost").expect("a fixed URL");
        return WebauthnBuilder::new("localhost", &local)
            .ok()?
            .append_allowed_origin(&secure)
            .allow_any_port(true)
            .rp_name("Catan")
            .timeout(CEREMONY)
            .build()
            .ok();
    }
    let first = origins
        .iter()
        .find(|u| matches!(u.host(), Some(url::Host::Domain(_))))?;
    let domain = first.host_str()?.to_owned();
    let mut builder = WebauthnBuilder::new(&domain, first).ok()?;
    for other in &origins {
        let under = other
            .host_str()
            .is_some_and(|h| h == domain || h.ends_with(&format!(".{domain}")));
        if other != first && under {
            builder = builder.append_allowed_origin(other);
        }
    }
    builder.rp_name("Catan").timeout(CEREMONY).build().ok()
}

/// A credential id as the API and the store name it: lower-case hex.
fn credential_id(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `value` as JSON text (the verifier's types always serialise).
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("WebAuthn state serialises")
}

/// `text` read back as a `T` written by [`json`]: a stored row we cannot read is
/// the store's fault, told to the client as unavailable.
fn read_back<T: DeserializeOwned>(text: &str) -> Result<T, LobbyError> {
    serde_json::from_str(text).map_err(|e| {
        tracing::warn!(error = %e, "a stored passkey record does not parse");
        LobbyError::StoreUnavailable
    })
}

/// The label a passkey is kept under: the one given, cleaned (no control
/// characters, at most [`LABEL_CHARS`]), else `fallback`.
fn label_of(given: Option<&str>, fallback: &str) -> String {
    let cleaned: String = given
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(LABEL_CHARS)
        .collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        fallback.chars().take(LABEL_CHARS).collect()
    } else {
        cleaned.to_owned()
    }
}

/// A passkey as its player sees it.
fn shown(p: &PasskeyRow) -> PasskeyInfo {
    PasskeyInfo {
        id: p.id.clone(),
        label: p.label.clone(),
        created_at: p.created_at,
        last_used_at: p.last_used_at,
    }
}

/// The passkeys of the server's accounts.
pub struct Passkeys {
    /// The verifier; `None` when the server has no domain for passkeys.
    party: Option<Webauthn>,
    /// Where passkeys and ceremonies are kept.
    store: Arc<dyn Store>,
}

impl std::fmt::Debug for Passkeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passkeys")
            .field("available", &self.party.is_some())
            .finish()
    }
}

impl Passkeys {
    /// Passkeys in `store` for a server reached at `public_origins`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, public_origins: &[String]) -> Passkeys {
        let party = relying_party(public_origins);
        if party.is_none() {
            tracing::info!(
                "passkeys are off: no public origin (CATAN_PUBLIC_ORIGINS) is a domain name"
            );
        }
        Passkeys { party, store }
    }

    fn party(&self) -> Result<&Webauthn, LobbyError> {
        self.party.as_ref().ok_or(LobbyError::PasskeysUnavailable)
    }

    /// Keeps a ceremony's state and returns its challenge.
    async fn begin(
        &self,
        kind: CeremonyKind,
        player_id: Option<Uuid>,
        state: String,
        options: serde_json::Value,
    ) -> Result<PasskeyChallenge, LobbyError> {
        let now = now_ms();
        let row = CeremonyRow {
            id: Uuid::new_v4(),
            kind,
            player_id,
            state,
            expires_at: now.saturating_add(u64::try_from(CEREMONY.as_millis()).unwrap_or(0)),
        };
        self.store.start_ceremony(&row, now).await.map_err(stored)?;
        Ok(PasskeyChallenge {
            ceremony: row.id,
            options,
        })
    }

    /// Starts registering a passkey for the account of `me`.
    ///
    /// # Errors
    /// `passkeys_unavailable`, `not_an_account`, `store_unavailable`.
    pub async fn register_start(&self, me: &Session) -> Result<PasskeyChallenge, LobbyError> {
        let party = self.party()?;
        if me.player.password_hash.is_none() {
            return Err(LobbyError::NotAnAccount);
        }
        let kept = self.store.passkeys(me.player.id).await.map_err(stored)?;
        let exclude = kept
            .iter()
            .map(|p| read_back::<Passkey>(&p.credential).map(|k| k.cred_id().clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let (challenge, state) = party
            .start_passkey_registration(
                me.player.id,
                &me.player.name,
                &me.player.name,
                Some(exclude),
            )
            .map_err(|e| {
                tracing::warn!(error = %e, "a passkey registration could not start");
                LobbyError::PasskeyFailed
            })?;
        // A discoverable credential: the sign-in names no account (see the module).
        let mut options = serde_json::to_value(&challenge).expect("WebAuthn options serialise");
        if let Some(selection) = options
            .pointer_mut("/publicKey/authenticatorSelection")
            .and_then(serde_json::Value::as_object_mut)
        {
            selection.insert("residentKey".into(), "required".into());
            selection.insert("requireResidentKey".into(), true.into());
        }
        self.begin(
            CeremonyKind::Register,
            Some(me.player.id),
            json(&state),
            options,
        )
        .await
    }

    /// Finishes registering a passkey for the account of `me`, labelled `label`
    /// (else `fallback`).
    ///
    /// # Errors
    /// `passkeys_unavailable`, `passkey_failed` (no such ceremony of `me`'s, expired,
    /// or an answer that does not verify or names a credential already kept),
    /// `not_an_account`, `store_unavailable`.
    pub async fn register_finish(
        &self,
        me: &Session,
        ceremony: Uuid,
        credential: serde_json::Value,
        label: Option<&str>,
        fallback: &str,
    ) -> Result<PasskeyInfo, LobbyError> {
        let party = self.party()?;
        let now = now_ms();
        let taken = self
            .store
            .take_ceremony(ceremony, CeremonyKind::Register, now)
            .await
            .map_err(stored)?
            .filter(|c| c.player_id == Some(me.player.id))
            .ok_or(LobbyError::PasskeyFailed)?;
        let answer: RegisterPublicKeyCredential =
            serde_json::from_value(credential).map_err(|_| LobbyError::PasskeyFailed)?;
        let state: PasskeyRegistration = read_back(&taken.state)?;
        let passkey = party
            .finish_passkey_registration(&answer, &state)
            .map_err(|e| {
                tracing::info!(error = %e, "a passkey registration did not verify");
                LobbyError::PasskeyFailed
            })?;
        let row = PasskeyRow {
            id: credential_id(passkey.cred_id()),
            player_id: me.player.id,
            label: label_of(label, fallback),
            credential: json(&passkey),
            created_at: now,
            last_used_at: None,
        };
        match self.store.add_passkey(&row).await {
            Ok(true) => Ok(shown(&row)),
            Ok(false) => Err(LobbyError::NotAnAccount),
            Err(StoreError::Conflict(_)) => Err(LobbyError::PasskeyFailed),
            Err(e) => Err(stored(e)),
        }
    }

    /// The passkeys of `player`, oldest first.
    ///
    /// # Errors
    /// `store_unavailable`.
    pub async fn list(&self, player: Uuid) -> Result<Vec<PasskeyInfo>, LobbyError> {
        let kept = self.store.passkeys(player).await.map_err(stored)?;
        Ok(kept.iter().map(shown).collect())
    }

    /// Deletes passkey `id` of `player`.
    ///
    /// # Errors
    /// `passkey_not_found`, `store_unavailable`.
    pub async fn delete(&self, player: Uuid, id: &str) -> Result<(), LobbyError> {
        if self
            .store
            .delete_passkey(player, id)
            .await
            .map_err(stored)?
        {
            Ok(())
        } else {
            Err(LobbyError::PasskeyNotFound)
        }
    }

    /// Starts a sign-in with a passkey (any account's: the authenticator chooses).
    ///
    /// # Errors
    /// `passkeys_unavailable`, `store_unavailable`.
    pub async fn sign_in_start(&self) -> Result<PasskeyChallenge, LobbyError> {
        let party = self.party()?;
        let (mut challenge, state) = party.start_discoverable_authentication().map_err(|e| {
            tracing::warn!(error = %e, "a passkey sign-in could not start");
            LobbyError::PasskeysUnavailable
        })?;
        // A sign-in the person asked for (a button), not autofill's conditional one.
        challenge.mediation = None;
        let options = serde_json::to_value(&challenge).expect("WebAuthn options serialise");
        self.begin(CeremonyKind::Authenticate, None, json(&state), options)
            .await
    }

    /// Finishes a sign-in with a passkey: the account whose passkey signed the
    /// ceremony's challenge. Every failure is `invalid_credentials`, as a wrong
    /// password is.
    ///
    /// # Errors
    /// `passkeys_unavailable`, `invalid_credentials`, `store_unavailable`.
    pub async fn sign_in_finish(
        &self,
        ceremony: Uuid,
        credential: serde_json::Value,
    ) -> Result<PlayerRow, LobbyError> {
        let party = self.party()?;
        let now = now_ms();
        let taken = self
            .store
            .take_ceremony(ceremony, CeremonyKind::Authenticate, now)
            .await
            .map_err(stored)?
            .ok_or(LobbyError::InvalidCredentials)?;
        let answer: PublicKeyCredential =
            serde_json::from_value(credential).map_err(|_| LobbyError::InvalidCredentials)?;
        let (player_id, used) = party
            .identify_discoverable_authentication(&answer)
            .map_err(|_| LobbyError::InvalidCredentials)?;
        let used = credential_id(used);
        let player = self
            .store
            .player(player_id)
            .await
            .map_err(stored)?
            .filter(|p| !p.deleted && p.password_hash.is_some())
            .ok_or(LobbyError::InvalidCredentials)?;
        let kept = self.store.passkeys(player.id).await.map_err(stored)?;
        let row = kept
            .into_iter()
            .find(|p| p.id == used)
            .ok_or(LobbyError::InvalidCredentials)?;
        let mut passkey: Passkey = read_back(&row.credential)?;
        let state: DiscoverableAuthentication = read_back(&taken.state)?;
        let result = party
            .finish_discoverable_authentication_v2(&answer, state, &passkey)
            .map_err(|e| {
                tracing::info!(error = %e, "a passkey sign-in did not verify");
                LobbyError::InvalidCredentials
            })?;
        passkey.update_credential(&result);
        self.store
            .passkey_used(&row.id, &json(&passkey), now)
            .await
            .map_err(stored)?;
        Ok(player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relying_party_is_the_first_public_domain() {
        assert!(relying_party(&[]).is_some(), "localhost by default");
        assert!(
            relying_party(&[String::new()]).is_some(),
            "an empty setting is none"
        );
        assert!(relying_party(&["https://catan.example.org".into()]).is_some());
        assert!(
            relying_party(&["http://192.0.2.7:8080".into()]).is_none(),
            "an address is no relying party"
        );
        assert!(
            relying_party(&[
                "http://192.0.2.7".into(),
                "https://catan.example.org".into()
            ])
            .is_some()
        );
    }

    #[test]
    fn labels_are_cleaned_and_bounded() {
        assert_eq!(label_of(Some("  Phone\u{7}  "), "agent"), "Phone");
        assert_eq!(label_of(Some("   "), "agent"), "agent");
        assert_eq!(label_of(None, "agent"), "agent");
        assert_eq!(
            label_of(Some(&"x".repeat(99)), "a").chars().count(),
            LABEL_CHARS
        );
    }

    #[test]
    fn credential_ids_are_hex() {
        assert_eq!(credential_id(&[0, 15, 255]), "000fff");
    }
}
