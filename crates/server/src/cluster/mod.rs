//! Several instances on one PostgreSQL (docs/cluster.md): each instance registers
//! itself and keeps its row fresh; each started game's room has one owner at a time,
//! held as a lease with an epoch that its owner renews; every write of a room is
//! fenced by that epoch (see [`crate::store::Fence`]); an instance claims the rooms
//! whose leases expired (their owner died or let them go) and rebuilds them from the
//! action log, as a restart does. On a graceful shutdown an instance lets its leases
//! go at once, so that the others take its rooms over within one claim round.

mod config;
mod forward;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::{info, warn};
use uuid::Uuid;

use crate::registry::Rooms;
use crate::restore::{Claimed, Restorer};
use crate::store::{Fence, Leases, StoreError};

pub use config::ClusterConfig;
pub use forward::{ask_others, forwarded_client, other_rooms, to_owner};

/// One instance of a cluster: its id, address and leases.
#[derive(Debug)]
pub struct Cluster {
    /// The leases this instance holds, with their epochs (every write is fenced by
    /// them).
    fence: Arc<Fence>,
    /// Where the other instances reach this one.
    address: String,
    /// The rows of instances and leases, in the store.
    leases: Leases,
    /// The secret the instances share, read at registration: forwarded requests
    /// carry it.
    secret: OnceLock<String>,
    /// The addresses the other live instances connect from, as far as their
    /// registered addresses say: exempt from the per-address socket cap (each
    /// forwards many clients' sockets and calls).
    peers: Arc<Peers>,
}

/// The addresses of the other live instances of a cluster, refreshed every beat.
#[derive(Debug, Default)]
pub struct Peers(std::sync::RwLock<Vec<std::net::IpAddr>>);

impl Peers {
    /// Whether `ip` is one of them.
    #[must_use]
    pub fn contains(&self, ip: std::net::IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.read().expect("peers lock").contains(&ip)
    }

    fn set(&self, ips: Vec<std::net::IpAddr>) {
        *self.0.write().expect("peers lock") = ips;
    }
}

/// The IP addresses `address` (an instance's URL, `http://host:port`) names: the
/// host itself when it is an address, else what it resolves to.
async fn addresses_of(address: &str) -> Vec<std::net::IpAddr> {
    let Ok(uri) = address.parse::<axum::http::Uri>() else {
        return Vec::new();
    };
    let Some(host) = uri.host() else {
        return Vec::new();
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return vec![ip.to_canonical()];
    }
    let port = uri.port_u16().unwrap_or(80);
    match tokio::net::lookup_host((host, port)).await {
        Ok(found) => found.map(|a| a.ip().to_canonical()).collect(),
        Err(e) => {
            warn!(%address, error = %e, "an instance's address does not resolve");
            Vec::new()
        }
    }
}

impl Cluster {
    /// The instance whose leases `fence` holds, reached by the others at `address`,
    /// keeping its rows with `leases`.
    #[must_use]
    pub fn new(fence: Arc<Fence>, address: String, leases: Leases) -> Cluster {
        Cluster {
            fence,
            address,
            leases,
            secret: OnceLock::new(),
            peers: Arc::default(),
        }
    }

    /// The addresses of the other live instances (the listener exempts them from
    /// the per-address cap).
    #[must_use]
    pub fn peers(&self) -> Arc<Peers> {
        self.peers.clone()
    }

    /// Reads the other live instances' addresses again.
    async fn refresh_peers(&self) {
        match self.others().await {
            Ok(others) => {
                let mut ips = Vec::new();
                for address in &others {
                    ips.extend(addresses_of(address).await);
                }
                ips.sort_unstable();
                ips.dedup();
                self.peers.set(ips);
            }
            Err(e) => warn!(error = %e, "could not list the other instances"),
        }
    }

    /// A connection that listens for released leases, when one can be opened (else
    /// the claimer only runs at its rounds).
    async fn listen(&self) -> Option<sqlx::postgres::PgListener> {
        match self.leases.listen().await {
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
        self.leases.others().await
    }

    /// The address of the live instance other than this one that owns `room`, if any.
    async fn owner_address(&self, room: Uuid) -> Result<Option<String>, StoreError> {
        self.leases.owner_address(room).await
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
        // The first instance of the cluster chooses the secret; the others read it.
        let candidate = crate::token::new_token();
        let (secret, adopted) = self.leases.register(&self.address, &candidate).await?;
        let _ = self.secret.set(secret);
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
        self.leases.lease_room(room).await?;
        self.fence.hold(room, 1);
        Ok(())
    }

    /// Lets the lease of `room` go at once (any instance may claim it).
    async fn release(&self, room: Uuid, epoch: i64) -> Result<(), StoreError> {
        self.fence.release(room);
        self.leases.release(room, epoch).await
    }

    /// At the end of a graceful shutdown (every write flushed): lets every lease of
    /// this instance go and removes its row.
    ///
    /// # Errors
    /// If the database refuses (the leases then expire by themselves).
    pub async fn release_all(&self) -> Result<(), StoreError> {
        let released = self.leases.release_all().await?;
        info!(released, "left the cluster");
        Ok(())
    }
}

/// Renews, loses and claims leases every [`Cluster::beat`] until `shutdown`. A room
/// of `rooms` whose lease was not renewed (another instance claimed it, or the
/// database could not be reached for a whole lease) is stopped here with 4014; a
/// room claimed is brought back by `restorer`.
pub async fn run(
    cluster: Arc<Cluster>,
    restorer: Restorer,
    rooms: Arc<Rooms>,
    shutdown: CancellationToken,
) {
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
        // One being woken here is not in the registry yet, but its lease is held.
        let mut held = cluster.fence.held();
        held.retain(|room, _| {
            let open = rooms.get(*room).is_ok() || rooms.waking(*room);
            if !open {
                cluster.fence.release(*room);
            }
            open
        });
        cluster.refresh_peers().await;
        let ids: Vec<Uuid> = held.keys().copied().collect();
        match cluster.leases.renew(&ids).await {
            Ok(renewed) => {
                renewed_at = tokio::time::Instant::now();
                for (room, epoch) in &held {
                    // Not renewed: lost, unless let go here meanwhile (put to sleep).
                    if renewed.get(room) != Some(epoch) && cluster.fence.epoch(*room) == *epoch {
                        lose(&cluster, &rooms, *room).await;
                    }
                }
            }
            Err(e) => {
                warn!(error = %e, "could not renew the leases");
                if renewed_at.elapsed() >= cluster.fence.lease() {
                    for room in held.keys() {
                        lose(&cluster, &rooms, *room).await;
                    }
                }
                continue;
            }
        }
        match cluster.leases.claim().await {
            Ok(claimed) => {
                for (room, epoch) in claimed {
                    take_over(&cluster, &restorer, &rooms, room, epoch).await;
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
async fn lose(cluster: &Cluster, rooms: &Rooms, room: Uuid) {
    cluster.fence.release(room);
    if let Ok(handle) = rooms.get(room) {
        warn!(%room, "lease lost; the room stops here");
        handle.moved().await;
    }
}

/// Rebuilds a room whose lease this instance just claimed from its stored log (as a
/// restart restores it: bots and sequence numbers included; deadlines where they
/// were).
async fn take_over(cluster: &Cluster, restorer: &Restorer, rooms: &Rooms, room: Uuid, epoch: i64) {
    if let Ok(stale) = rooms.get(room) {
        // Still here from before this instance lost it: stop that copy, and let the
        // lease go so that the next round rebuilds the room from the log.
        stale.moved().await;
        if let Err(e) = cluster.release(room, epoch).await {
            warn!(%room, error = %e, "could not let a lease go");
        }
        return;
    }
    cluster.fence.hold(room, epoch);
    match restorer.one(room).await {
        Ok(Claimed::Restored) => info!(%room, epoch, "took the room over"),
        Ok(Claimed::NotPlaying) => {
            cluster.fence.release(room);
        }
        // Held all the same (renewed, not claimed again and again): the same log
        // fails the same way on every instance.
        Ok(Claimed::Broken) => {}
        Err(e) => {
            warn!(%room, error = %e, "could not read a claimed room; letting it go");
            if let Err(e) = cluster.release(room, epoch).await {
                warn!(%room, error = %e, "could not let a lease go");
            }
        }
    }
}
