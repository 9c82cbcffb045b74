//! Several instances on one PostgreSQL (docs/cluster.md): each instance registers
//! itself and keeps its row fresh; each started game's room has one owner at a time,
//! held as a lease with an epoch that its owner renews; every write of a room is
//! fenced by that epoch (see [`crate::store::Fence`]); an instance claims the rooms
//! whose leases expired (their owner died or let them go) and rebuilds them from the
//! action log, as a restart does. On a graceful shutdown an instance lets its leases
//! go at once, so that the others take its rooms over within one claim round.

mod config;
mod forward;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sqlx::{AnyPool, Row};
use tracing::{info, warn};
use uuid::Uuid;

use crate::AppState;
use crate::room::{Deadlines, RoomHandle};
use crate::store::{Fence, GameStatus, StoreError};

pub use config::ClusterConfig;
pub use forward::{forwarded_client, other_rooms, to_owner};

/// One instance of a cluster: its id, address and leases.
#[derive(Debug)]
pub struct Cluster {
    fence: Arc<Fence>,
    address: String,
    pool: AnyPool,
    /// The database URL, for the connection that listens for released rooms.
    url: secrecy::SecretString,
    /// The secret the instances share (`cluster_settings`), read at registration:
    /// forwarded requests carry it.
    secret: OnceLock<String>,
}

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

impl Cluster {
    /// The instance whose leases `fence` holds, reached by the others at `address`,
    /// on the store's `pool` of the database at `url`.
    #[must_use]
    pub fn new(
        fence: Arc<Fence>,
        address: String,
        pool: AnyPool,
        url: secrecy::SecretString,
    ) -> Cluster {
        Cluster {
            fence,
            address,
            pool,
            url,
            secret: OnceLock::new(),
        }
    }

    /// Tells every instance (`NOTIFY catan_released`) that leases were let go, so
    /// that their claimers run at once instead of at their next round.
    async fn announce_release(&self) {
        if let Err(e) = sqlx::query("NOTIFY catan_released")
            .execute(&self.pool)
            .await
        {
            warn!(error = %e, "could not announce released leases");
        }
    }

    /// A connection that listens for released leases, when one can be opened (else
    /// the claimer only runs at its rounds).
    async fn listen(&self) -> Option<sqlx::postgres::PgListener> {
        use secrecy::ExposeSecret;
        let opened = async {
            let mut l = sqlx::postgres::PgListener::connect(self.url.expose_secret()).await?;
            l.listen("catan_released").await?;
            Ok::<_, sqlx::Error>(l)
        };
        match opened.await {
            Ok(l) => Some(l),
            Err(e) => {
                warn!(error = %e, "cannot listen for released leases; claiming at rounds only");
                None
            }
        }
    }

    /// The secret the instances share, once registered.
    fn secret(&self) -> Option<&str> {
        self.secret.get().map(String::as_str)
    }

    /// The addresses of the live instances other than this one.
    async fn others(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT address FROM instances WHERE id <> $1 AND heartbeat_at >= $2 ORDER BY id",
        )
        .bind(self.fence.owner())
        .bind(now_ms() - to_ms(self.fence.lease()))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| r.try_get("address").map_err(StoreError::from))
            .collect()
    }

    /// The address of the live instance other than this one that owns `room`, if any.
    async fn owner_address(&self, room: Uuid) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT i.address FROM room_leases l JOIN instances i ON i.id = l.owner \
             WHERE l.room_id = $1 AND l.owner <> $2 AND l.expires_at >= $3",
        )
        .bind(room.to_string())
        .bind(self.fence.owner())
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.try_get("address")).transpose()?)
    }

    /// The leases this instance holds.
    #[must_use]
    pub fn fence(&self) -> &Arc<Fence> {
        &self.fence
    }

    /// How often the instance renews its row and its leases and claims expired ones:
    /// a third of the lease.
    #[must_use]
    pub fn beat(&self) -> Duration {
        (self.fence.lease() / 3).max(Duration::from_millis(50))
    }

    /// Registers this instance, and gives the games started before the cluster (or
    /// by a single instance) a lease row that any instance may claim at once.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn register(&self) -> Result<(), StoreError> {
        let now = now_ms();
        // The first instance of the cluster chooses the secret; the others read it.
        sqlx::query(
            "INSERT INTO cluster_settings (name, value) VALUES ('secret', $1) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(crate::token::new_token())
        .execute(&self.pool)
        .await?;
        let secret: String =
            sqlx::query("SELECT value FROM cluster_settings WHERE name = 'secret'")
                .fetch_one(&self.pool)
                .await?
                .try_get("value")?;
        let _ = self.secret.set(secret);
        sqlx::query(
            "INSERT INTO instances (id, address, started_at, heartbeat_at, rooms, draining) \
             VALUES ($1, $2, $3, $3, 0, 0)",
        )
        .bind(self.fence.owner())
        .bind(&self.address)
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
        info!(
            instance = self.fence.owner(),
            address = %self.address,
            adopted,
            "registered in the cluster"
        );
        Ok(())
    }

    /// A lease (epoch 1) for a room just created here, before its game starts: any
    /// instance then finds its owner and forwards its lobby calls here.
    ///
    /// # Errors
    /// If the database refuses.
    pub async fn lease_room(&self, room: Uuid) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO room_leases (room_id, owner, epoch, expires_at) VALUES ($1, $2, 1, $3)",
        )
        .bind(room.to_string())
        .bind(self.fence.owner())
        .bind(self.fence.expiry(crate::room::now_ms()))
        .execute(&self.pool)
        .await?;
        self.fence.hold(room, 1);
        Ok(())
    }

    /// Keeps this instance's row fresh (with its room count), forgets instances
    /// silent for a lease, and renews the leases of `rooms` (held here and still
    /// open). Returns the leases renewed, by room.
    async fn renew(&self, rooms: &[Uuid]) -> Result<HashMap<Uuid, i64>, StoreError> {
        let now = now_ms();
        let expires = self.fence.expiry(crate::room::now_ms());
        sqlx::query("UPDATE instances SET heartbeat_at = $2, rooms = $3 WHERE id = $1")
            .bind(self.fence.owner())
            .bind(now)
            .bind(i64::try_from(rooms.len()).unwrap_or(i64::MAX))
            .execute(&self.pool)
            .await?;
        sqlx::query("DELETE FROM instances WHERE heartbeat_at < $1")
            .bind(now - to_ms(self.fence.lease()))
            .execute(&self.pool)
            .await?;
        let ids: Vec<String> = rooms.iter().map(Uuid::to_string).collect();
        let rows = sqlx::query(
            "UPDATE room_leases SET expires_at = $2 WHERE owner = $1 \
             AND room_id IN (SELECT value FROM json_array_elements_text($3::json)) \
             RETURNING room_id, epoch",
        )
        .bind(self.fence.owner())
        .bind(expires)
        .bind(serde_json::to_string(&ids).map_err(|e| StoreError::Corrupt(e.to_string()))?)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(room_id).collect()
    }

    /// Claims this instance's share of the expired leases of games being played:
    /// their number divided by the live instances, rounded up. Each claim raises the
    /// epoch, so that the previous owner's writes are refused from now on.
    async fn claim(&self) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let now = now_ms();
        // Leases of rooms that have no game being played (rooms closed before their
        // start, or lost with their instance: they lived only there) go a lease
        // after they expired.
        sqlx::query(
            "DELETE FROM room_leases WHERE expires_at < $1 \
             AND room_id NOT IN (SELECT id FROM games WHERE status = 'playing')",
        )
        .bind(now - to_ms(self.fence.lease()))
        .execute(&self.pool)
        .await?;
        let expired: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM room_leases l JOIN games g ON g.id = l.room_id \
             WHERE l.expires_at < $1 AND g.status = 'playing'",
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
        .bind(now - to_ms(self.fence.lease()))
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?;
        let share = (expired + live.max(1) - 1) / live.max(1);
        let rows = sqlx::query(
            "UPDATE room_leases SET owner = $1, epoch = epoch + 1, expires_at = $2 \
             WHERE room_id IN (SELECT l.room_id FROM room_leases l \
             JOIN games g ON g.id = l.room_id \
             WHERE l.expires_at < $3 AND g.status = 'playing' \
             ORDER BY l.expires_at LIMIT $4 FOR UPDATE OF l SKIP LOCKED) \
             RETURNING room_id, epoch",
        )
        .bind(self.fence.owner())
        .bind(self.fence.expiry(crate::room::now_ms()))
        .bind(now)
        .bind(share)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(room_id).collect()
    }

    /// Lets the lease of `room` go at once (any instance may claim it).
    async fn release(&self, room: Uuid, epoch: i64) -> Result<(), StoreError> {
        self.fence.release(room);
        sqlx::query(
            "UPDATE room_leases SET expires_at = 0 WHERE room_id = $1 AND owner = $2 AND epoch = $3",
        )
        .bind(room.to_string())
        .bind(self.fence.owner())
        .bind(epoch)
        .execute(&self.pool)
        .await?;
        self.announce_release().await;
        Ok(())
    }

    /// At the end of a graceful shutdown (every write flushed): lets every lease of
    /// this instance go and removes its row.
    ///
    /// # Errors
    /// If the database refuses (the leases then expire by themselves).
    pub async fn release_all(&self) -> Result<(), StoreError> {
        let released = sqlx::query("UPDATE room_leases SET expires_at = 0 WHERE owner = $1")
            .bind(self.fence.owner())
            .execute(&self.pool)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM instances WHERE id = $1")
            .bind(self.fence.owner())
            .execute(&self.pool)
            .await?;
        self.announce_release().await;
        info!(released, "left the cluster");
        Ok(())
    }
}

/// Renews, loses and claims leases every [`Cluster::beat`] until the server shuts
/// down. A room whose lease was not renewed (another instance claimed it, or the
/// database could not be reached for a whole lease) is stopped here with 4014.
pub async fn run(cluster: Arc<Cluster>, state: AppState) {
    let shutdown = state.shutdown.clone();
    let mut tick = tokio::time::interval(cluster.beat());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut renewed_at = tokio::time::Instant::now();
    let mut released = cluster.listen().await;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            // Another instance let leases go (it is shutting down): claim now.
            n = next_release(&mut released) => {
                if let Err(e) = n {
                    warn!(error = %e, "stopped listening for released leases");
                    released = None;
                }
            }
            () = shutdown.cancelled() => return,
        }
        // A room closed here (before its start, say) is let go: its lease expires.
        let mut held = cluster.fence.held();
        held.retain(|room, _| {
            let open = state.rooms.get(*room).is_ok();
            if !open {
                cluster.fence.release(*room);
            }
            open
        });
        let rooms: Vec<Uuid> = held.keys().copied().collect();
        match cluster.renew(&rooms).await {
            Ok(renewed) => {
                renewed_at = tokio::time::Instant::now();
                for (room, epoch) in &held {
                    if renewed.get(room) != Some(epoch) {
                        lose(&cluster, &state, *room).await;
                    }
                }
            }
            Err(e) => {
                warn!(error = %e, "could not renew the leases");
                if renewed_at.elapsed() >= cluster.fence.lease() {
                    for room in held.keys() {
                        lose(&cluster, &state, *room).await;
                    }
                }
                continue;
            }
        }
        match cluster.claim().await {
            Ok(claimed) => {
                for (room, epoch) in claimed {
                    take_over(&cluster, &state, room, epoch).await;
                }
            }
            Err(e) => warn!(error = %e, "could not claim expired leases"),
        }
    }
}

/// The next notice of released leases; never, without a listening connection.
async fn next_release(
    listener: &mut Option<sqlx::postgres::PgListener>,
) -> Result<(), sqlx::Error> {
    match listener {
        Some(l) => l.recv().await.map(drop),
        None => std::future::pending().await,
    }
}

/// Stops `room` here: another instance owns it now.
async fn lose(cluster: &Cluster, state: &AppState, room: Uuid) {
    cluster.fence.release(room);
    if let Ok(handle) = state.rooms.get(room) {
        warn!(%room, "lease lost; the room stops here");
        handle.moved().await;
    }
}

/// Rebuilds a room whose lease this instance just claimed from its stored log (as a
/// restart restores it: deadlines, bots and sequence numbers included).
async fn take_over(cluster: &Cluster, state: &AppState, room: Uuid, epoch: i64) {
    if let Ok(stale) = state.rooms.get(room) {
        // Still here from before this instance lost it: stop that copy, and let the
        // lease go so that the next round rebuilds the room from the log.
        stale.moved().await;
        if let Err(e) = cluster.release(room, epoch).await {
            warn!(%room, error = %e, "could not let a lease go");
        }
        return;
    }
    cluster.fence.hold(room, epoch);
    let loaded = async {
        let record = state.store.game(room).await?;
        let actions = state.store.actions(room).await?;
        Ok::<_, StoreError>((record, actions))
    };
    match loaded.await {
        Ok((record, _)) if record.status != GameStatus::Playing => {
            cluster.fence.release(room);
        }
        Ok((record, actions)) => {
            let n = actions.len();
            // The players' clocks ran on while the room changed hands.
            let deadlines = Deadlines::Continue;
            match RoomHandle::restore(state.room_context(), record, &actions, deadlines) {
                Ok(handle) => {
                    state.rooms.insert(handle);
                    info!(%room, epoch, actions = n, "took the room over");
                }
                // Held all the same (renewed, not claimed again and again): the
                // same log fails the same way on every instance.
                Err(e) => tracing::error!(%room, error = %e, "could not restore a claimed room"),
            }
        }
        Err(e) => {
            warn!(%room, error = %e, "could not read a claimed room; letting it go");
            if let Err(e) = cluster.release(room, epoch).await {
                warn!(%room, error = %e, "could not let a lease go");
            }
        }
    }
}
