//! The cluster's rows (docs/cluster.md), with the store: the instances and their
//! heartbeats, the secret they share, and the lease of each room, held by one
//! instance under an epoch. Every statement about leases and instances is here; the
//! cluster (`crate::cluster`) decides when to run them. PostgreSQL only: a cluster
//! needs it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use sqlx::{AnyPool, Row};
use uuid::Uuid;

use super::{Fence, StoreError};

/// Unix time in milliseconds, as the lease rows hold it.
fn now_ms() -> i64 {
    i64::try_from(crate::room::now_ms()).unwrap_or(i64::MAX)
}

fn to_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn room_id(row: &sqlx::any::AnyRow) -> Result<(Uuid, i64), StoreError> {
    let id: String = row.try_get("room_id")?;
    let epoch: i64 = row.try_get("epoch")?;
    let id = Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok((id, epoch))
}

/// The lease and instance rows of the instance whose leases `fence` holds.
#[derive(Debug)]
pub struct Leases {
    /// The store's connections.
    pool: AnyPool,
    /// The database URL, for the connection that listens for released rooms.
    url: SecretString,
    /// This instance's id (the `owner` of its leases) and how long a lease lasts.
    fence: Arc<Fence>,
}

impl Leases {
    /// The rows of the instance of `fence`, on the store's `pool` of the database at
    /// `url`.
    #[must_use]
    pub fn new(pool: AnyPool, url: SecretString, fence: Arc<Fence>) -> Leases {
        Leases { pool, url, fence }
    }

    /// This instance's id.
    fn owner(&self) -> &str {
        self.fence.owner()
    }

    /// When a lease renewed now expires.
    fn expiry(&self) -> i64 {
        self.fence.expiry(crate::room::now_ms())
    }

    /// A lease's length in ms.
    fn lease_ms(&self) -> i64 {
        to_ms(self.fence.lease())
    }

    /// Registers this instance at `address`: the cluster's secret (chosen by the
    /// first instance, `candidate`), and a lease row that any instance may claim at
    /// once for every game started before the cluster (or by a single instance).
    /// Returns the secret and how many games were adopted.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn register(
        &self,
        address: &str,
        candidate: &str,
    ) -> Result<(String, u64), StoreError> {
        let now = now_ms();
        sqlx::query(
            "INSERT INTO cluster_settings (name, value) VALUES ('secret', $1) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(candidate)
        .execute(&self.pool)
        .await?;
        let secret: String =
            sqlx::query("SELECT value FROM cluster_settings WHERE name = 'secret'")
                .fetch_one(&self.pool)
                .await?
                .try_get("value")?;
        sqlx::query(
            "INSERT INTO instances (id, address, started_at, heartbeat_at, rooms, draining) \
             VALUES ($1, $2, $3, $3, 0, 0)",
        )
        .bind(self.owner())
        .bind(address)
        .bind(now)
        .execute(&self.pool)
        .await?;
        let adopted = sqlx::query(
            "INSERT INTO room_leases (room_id, owner, epoch, expires_at) \
             SELECT id, '', 0, 0 FROM games WHERE status = 'playing' \
             AND id NOT IN (SELECT room_id FROM room_leases)",
        )
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok((secret, adopted))
    }

    /// The addresses of the live instances other than this one.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn others(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT address FROM instances WHERE id <> $1 AND heartbeat_at >= $2 ORDER BY id",
        )
        .bind(self.owner())
        .bind(now_ms() - self.lease_ms())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| r.try_get("address").map_err(StoreError::from))
            .collect()
    }

    /// The address of the live instance other than this one that owns `room`.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn owner_address(&self, room: Uuid) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT i.address FROM room_leases l JOIN instances i ON i.id = l.owner \
             WHERE l.room_id = $1 AND l.owner <> $2 AND l.expires_at >= $3",
        )
        .bind(room.to_string())
        .bind(self.owner())
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.try_get("address")).transpose()?)
    }

    /// A lease (epoch 1) for a room just created here.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn lease_room(&self, room: Uuid) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO room_leases (room_id, owner, epoch, expires_at) VALUES ($1, $2, 1, $3)",
        )
        .bind(room.to_string())
        .bind(self.owner())
        .bind(self.expiry())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Keeps this instance's row fresh (with its room count), forgets instances
    /// silent for a lease, and renews the leases of `rooms` held here. Returns the
    /// leases renewed, by room. A lease let go (`expires_at = 0`: a room put to
    /// sleep, a stale copy stopped) is not renewed, even when `rooms` was read
    /// before it went: a sleeping room has no owner.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn renew(&self, rooms: &[Uuid]) -> Result<HashMap<Uuid, i64>, StoreError> {
        let now = now_ms();
        sqlx::query("UPDATE instances SET heartbeat_at = $2, rooms = $3 WHERE id = $1")
            .bind(self.owner())
            .bind(now)
            .bind(i64::try_from(rooms.len()).unwrap_or(i64::MAX))
            .execute(&self.pool)
            .await?;
        sqlx::query("DELETE FROM instances WHERE heartbeat_at < $1")
            .bind(now - self.lease_ms())
            .execute(&self.pool)
            .await?;
        let ids: Vec<String> = rooms.iter().map(Uuid::to_string).collect();
        let rows = sqlx::query(
            "UPDATE room_leases SET expires_at = $2 WHERE owner = $1 AND expires_at <> 0 \
             AND room_id IN (SELECT value FROM json_array_elements_text($3::json)) \
             RETURNING room_id, epoch",
        )
        .bind(self.owner())
        .bind(self.expiry())
        .bind(serde_json::to_string(&ids).map_err(|e| StoreError::Corrupt(e.to_string()))?)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(room_id).collect()
    }

    /// Claims this instance's share of the expired leases of games being played
    /// (not of sleeping ones: whoever wakes one claims it, protocol 27.5): their
    /// number divided by the live instances, rounded up. Each claim raises the
    /// epoch, so that the previous owner's writes are refused from now on. Leases of
    /// rooms with no game being played go a lease after they expired.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn claim(&self) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let now = now_ms();
        sqlx::query(
            "DELETE FROM room_leases WHERE expires_at < $1 \
             AND room_id NOT IN (SELECT id FROM games WHERE status = 'playing')",
        )
        .bind(now - self.lease_ms())
        .execute(&self.pool)
        .await?;
        let expired: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM room_leases l JOIN games g ON g.id = l.room_id \
             WHERE l.expires_at < $1 AND g.status = 'playing' AND g.slept_seq IS NULL",
        )
        .bind(now)
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?;
        if expired == 0 {
            return Ok(Vec::new());
        }
        let live: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM instances WHERE heartbeat_at >= $1 AND draining = 0",
        )
        .bind(now - self.lease_ms())
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?;
        let share = (expired + live.max(1) - 1) / live.max(1);
        let rows = sqlx::query(
            "UPDATE room_leases SET owner = $1, epoch = epoch + 1, expires_at = $2 \
             WHERE room_id IN (SELECT l.room_id FROM room_leases l \
             JOIN games g ON g.id = l.room_id \
             WHERE l.expires_at < $3 AND g.status = 'playing' AND g.slept_seq IS NULL \
             ORDER BY l.expires_at LIMIT $4 FOR UPDATE OF l SKIP LOCKED) \
             RETURNING room_id, epoch",
        )
        .bind(self.owner())
        .bind(self.expiry())
        .bind(now)
        .bind(share)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(room_id).collect()
    }

    /// Lets the lease of `room` go at once (any instance may claim it), and tells
    /// every instance.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn release(&self, room: Uuid, epoch: i64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE room_leases SET expires_at = 0 WHERE room_id = $1 AND owner = $2 AND epoch = $3",
        )
        .bind(room.to_string())
        .bind(self.owner())
        .bind(epoch)
        .execute(&self.pool)
        .await?;
        self.announce_release().await;
        Ok(())
    }

    /// Lets every lease of this instance go and removes its row; how many leases.
    ///
    /// # Errors
    /// If the database refuses (the leases then expire by themselves).
    pub async fn release_all(&self) -> Result<u64, StoreError> {
        let released = sqlx::query("UPDATE room_leases SET expires_at = 0 WHERE owner = $1")
            .bind(self.owner())
            .execute(&self.pool)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM instances WHERE id = $1")
            .bind(self.owner())
            .execute(&self.pool)
            .await?;
        self.announce_release().await;
        Ok(released)
    }

    /// Tells every instance (`NOTIFY catan_released`) that leases were let go, so
    /// that their claimers run at once instead of at their next round.
    async fn announce_release(&self) {
        if let Err(e) = sqlx::query("NOTIFY catan_released")
            .execute(&self.pool)
            .await
        {
            tracing::warn!(error = %e, "could not announce released leases");
        }
    }

    /// A connection that listens for released leases.
    ///
    /// # Errors
    /// If it cannot be opened.
    pub async fn listen(&self) -> Result<sqlx::postgres::PgListener, StoreError> {
        let mut l = sqlx::postgres::PgListener::connect(self.url.expose_secret()).await?;
        l.listen("catan_released").await?;
        Ok(l)
    }
}
