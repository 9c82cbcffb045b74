//! Passkeys as stored (`passkeys`, `passkey_ceremonies`; migration 0009): an
//! account's WebAuthn credentials, and the server's side of each ceremony under
//! way, kept from its start to its finish (which takes it once).

use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::group_commit::to_i64;
use super::players::{millis, opt_millis, uuid};
use super::{SqlStore, StoreError};

/// A passkey of an account (a row of `passkeys`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyRow {
    /// The WebAuthn credential id, base64url.
    pub id: String,
    /// Whose.
    pub player_id: Uuid,
    /// What the player called it.
    pub label: String,
    /// The verifier's record of the credential (public key, counter), as JSON.
    pub credential: String,
    /// When it was registered (Unix ms).
    pub created_at: u64,
    /// When it last signed in (Unix ms).
    pub last_used_at: Option<u64>,
}

/// What a passkey ceremony is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeremonyKind {
    /// Registering a new passkey for an account.
    Register,
    /// Signing in with a passkey.
    Authenticate,
}

impl CeremonyKind {
    fn as_str(self) -> &'static str {
        match self {
            CeremonyKind::Register => "register",
            CeremonyKind::Authenticate => "authenticate",
        }
    }
}

/// A passkey ceremony under way (a row of `passkey_ceremonies`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CeremonyRow {
    /// The ceremony's id, as its client holds it.
    pub id: Uuid,
    /// Registering or signing in.
    pub kind: CeremonyKind,
    /// The account registering a passkey; `None` for a sign-in.
    pub player_id: Option<Uuid>,
    /// The verifier's state of the ceremony (its challenge), as JSON.
    pub state: String,
    /// When it can no longer be finished (Unix ms).
    pub expires_at: u64,
}

fn passkey(row: &AnyRow) -> Result<PasskeyRow, StoreError> {
    Ok(PasskeyRow {
        id: row.try_get("id")?,
        player_id: uuid(row, "player_id")?,
        label: row.try_get("label")?,
        credential: row.try_get("credential")?,
        created_at: millis(row, "created_at")?,
        last_used_at: opt_millis(row, "last_used_at")?,
    })
}

impl SqlStore {
    pub(super) async fn insert_passkey(&self, p: &PasskeyRow) -> Result<bool, StoreError> {
        sqlx::query(
            "INSERT INTO passkeys (id, player_id, label, credential, created_at) \
             SELECT $1, id, $3, $4, $5 FROM players \
             WHERE id = $2 AND password_hash IS NOT NULL AND deleted_at IS NULL",
        )
        .bind(&p.id)
        .bind(p.player_id.to_string())
        .bind(&p.label)
        .bind(&p.credential)
        .bind(to_i64(p.created_at))
        .execute(self.pool())
        .await
        .map(|done| done.rows_affected() == 1)
        .map_err(StoreError::from)
    }

    pub(super) async fn select_passkeys(
        &self,
        player: Uuid,
    ) -> Result<Vec<PasskeyRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, player_id, label, credential, created_at, last_used_at FROM passkeys \
             WHERE player_id = $1 ORDER BY created_at, id",
        )
        .bind(player.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(passkey).collect()
    }

    pub(super) async fn update_passkey(
        &self,
        id: &str,
        credential: &str,
        at: u64,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE passkeys SET credential = $2, last_used_at = $3 WHERE id = $1")
            .bind(id)
            .bind(credential)
            .bind(to_i64(at))
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(super) async fn remove_passkey(&self, player: Uuid, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM passkeys WHERE id = $1 AND player_id = $2")
            .bind(id)
            .bind(player.to_string())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(super) async fn insert_ceremony(
        &self,
        c: &CeremonyRow,
        now: u64,
    ) -> Result<(), StoreError> {
        // Ceremonies nobody finished go as new ones come.
        sqlx::query("DELETE FROM passkey_ceremonies WHERE expires_at <= $1")
            .bind(to_i64(now))
            .execute(self.pool())
            .await?;
        sqlx::query(
            "INSERT INTO passkey_ceremonies (id, kind, player_id, state, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(c.id.to_string())
        .bind(c.kind.as_str())
        .bind(c.player_id.map(|p| p.to_string()))
        .bind(&c.state)
        .bind(to_i64(c.expires_at))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(super) async fn remove_ceremony(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        now: u64,
    ) -> Result<Option<CeremonyRow>, StoreError> {
        let row = sqlx::query(
            "SELECT player_id, state, expires_at FROM passkey_ceremonies \
             WHERE id = $1 AND kind = $2",
        )
        .bind(id.to_string())
        .bind(kind.as_str())
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else { return Ok(None) };
        // The delete decides who takes it: a second finish finds nothing to delete.
        let taken = sqlx::query("DELETE FROM passkey_ceremonies WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await?;
        let expires_at = millis(&row, "expires_at")?;
        if taken.rows_affected() != 1 || expires_at <= now {
            return Ok(None);
        }
        let player_id = row
            .try_get::<Option<String>, _>("player_id")?
            .map(|s| Uuid::parse_str(&s).map_err(super::games::corrupt))
            .transpose()?;
        Ok(Some(CeremonyRow {
            id,
            kind,
            player_id,
            state: row.try_get("state")?,
            expires_at,
        }))
    }
}
