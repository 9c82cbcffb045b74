//! Players and their sessions (`players`, `sessions`; migration 0006): the SQL of
//! [`super::Store`]'s player calls, the same statements on both databases.

use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::games::corrupt;
use super::group_commit::to_i64;
use super::{Claim, PlayerRow, SessionRow, SqlStore, StoreError};

/// The name a deleted player's row and stored seats take.
pub const DELETED_NAME: &str = "deleted player";

pub(super) fn millis(row: &AnyRow, column: &str) -> Result<u64, StoreError> {
    Ok(u64::try_from(row.try_get::<i64, _>(column)?).unwrap_or(0))
}

pub(super) fn opt_millis(row: &AnyRow, column: &str) -> Result<Option<u64>, StoreError> {
    Ok(row
        .try_get::<Option<i64>, _>(column)?
        .map(|n| u64::try_from(n).unwrap_or(0)))
}

pub(super) fn uuid(row: &AnyRow, column: &str) -> Result<Uuid, StoreError> {
    let s: String = row.try_get(column)?;
    Uuid::parse_str(&s).map_err(corrupt)
}

pub(super) const PLAYER_COLUMNS: &str = "p.id, p.name, p.password_hash, p.created_at, p.deleted_at";

pub(super) fn player(row: &AnyRow) -> Result<PlayerRow, StoreError> {
    Ok(PlayerRow {
        id: uuid(row, "id")?,
        name: row.try_get("name")?,
        password_hash: row.try_get("password_hash")?,
        created_at: millis(row, "created_at")?,
        deleted: row.try_get::<Option<i64>, _>("deleted_at")?.is_some(),
    })
}

fn session(row: &AnyRow) -> Result<SessionRow, StoreError> {
    Ok(SessionRow {
        id: uuid(row, "session_id")?,
        player_id: uuid(row, "player_id")?,
        label: row.try_get("label")?,
        created_at: millis(row, "session_created_at")?,
        expires_at: millis(row, "expires_at")?,
    })
}

const SESSION_COLUMNS: &str = "s.id AS session_id, s.player_id, s.label, \
     s.created_at AS session_created_at, s.expires_at";

impl SqlStore {
    pub(super) async fn insert_player(&self, p: &PlayerRow) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO players (id, name, created_at) VALUES ($1, $2, $3)")
            .bind(p.id.to_string())
            .bind(&p.name)
            .bind(to_i64(p.created_at))
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(super) async fn insert_session(
        &self,
        s: &SessionRow,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        // The player's expired sessions go as a new one comes.
        sqlx::query("DELETE FROM sessions WHERE player_id = $1 AND expires_at <= $2")
            .bind(s.player_id.to_string())
            .bind(to_i64(s.created_at))
            .execute(self.pool())
            .await?;
        sqlx::query(
            "INSERT INTO sessions (id, token_hash, player_id, label, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(s.id.to_string())
        .bind(token_hash)
        .bind(s.player_id.to_string())
        .bind(&s.label)
        .bind(to_i64(s.created_at))
        .bind(to_i64(s.expires_at))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(super) async fn select_session(
        &self,
        token_hash: &str,
        now: u64,
    ) -> Result<Option<(SessionRow, PlayerRow)>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {SESSION_COLUMNS}, {PLAYER_COLUMNS} FROM sessions s \
             JOIN players p ON p.id = s.player_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2 AND p.deleted_at IS NULL"
        ))
        .bind(token_hash)
        .bind(to_i64(now))
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| Ok((session(&r)?, player(&r)?))).transpose()
    }

    pub(super) async fn select_player(&self, id: Uuid) -> Result<Option<PlayerRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PLAYER_COLUMNS} FROM players p WHERE p.id = $1"
        ))
        .bind(id.to_string())
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| player(&r)).transpose()
    }

    pub(super) async fn select_account(
        &self,
        name_key: &str,
    ) -> Result<Option<PlayerRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PLAYER_COLUMNS} FROM players p WHERE p.name_key = $1"
        ))
        .bind(name_key)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| player(&r)).transpose()
    }

    pub(super) async fn update_claim(
        &self,
        id: Uuid,
        name: &str,
        name_key: &str,
        password_hash: &str,
        at: u64,
    ) -> Result<Claim, StoreError> {
        let done = sqlx::query(
            "UPDATE players SET name = $2, name_key = $3, password_hash = $4, claimed_at = $5 \
             WHERE id = $1 AND password_hash IS NULL AND deleted_at IS NULL",
        )
        .bind(id.to_string())
        .bind(name)
        .bind(name_key)
        .bind(password_hash)
        .bind(to_i64(at))
        .execute(self.pool())
        .await?;
        Ok(if done.rows_affected() == 1 {
            Claim::Claimed
        } else {
            Claim::AlreadyClaimed
        })
    }

    pub(super) async fn update_name(
        &self,
        id: Uuid,
        name: &str,
        name_key: Option<&str>,
    ) -> Result<(), StoreError> {
        // A guest's name is its own; an account's keeps its key unique.
        sqlx::query(
            "UPDATE players SET name = $2, \
             name_key = CASE WHEN password_hash IS NULL THEN NULL ELSE $3 END \
             WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(id.to_string())
        .bind(name)
        .bind(name_key)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(super) async fn select_sessions(
        &self,
        player_id: Uuid,
        now: u64,
    ) -> Result<Vec<SessionRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.player_id = $1 AND s.expires_at > $2 \
             ORDER BY s.created_at DESC, s.id"
        ))
        .bind(player_id.to_string())
        .bind(to_i64(now))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(session).collect()
    }

    pub(super) async fn delete_session(
        &self,
        player_id: Uuid,
        session_id: Uuid,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE id = $1 AND player_id = $2")
            .bind(session_id.to_string())
            .bind(player_id.to_string())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(super) async fn delete_sessions(&self, player_id: Uuid) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE player_id = $1")
            .bind(player_id.to_string())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    pub(super) async fn erase_player(&self, id: Uuid, at: u64) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        let id = id.to_string();
        sqlx::query("DELETE FROM sessions WHERE player_id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM passkeys WHERE player_id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM queue_tickets WHERE player_id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "DELETE FROM queue_party_members WHERE player_id = $1 \
             OR code IN (SELECT code FROM queue_parties WHERE leader = $1)",
        )
        .bind(&id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM queue_parties WHERE leader = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE game_players SET name = $2 WHERE player_id = $1")
            .bind(&id)
            .bind(DELETED_NAME)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE players SET name = $2, name_key = NULL, password_hash = NULL, \
             deleted_at = $3 WHERE id = $1",
        )
        .bind(&id)
        .bind(DELETED_NAME)
        .bind(to_i64(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
