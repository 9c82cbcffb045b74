//! The settings of an instance of a cluster.

use std::time::Duration;

/// Running as one instance of several (flags of `catan-server`; docs/cluster.md).
#[derive(Clone, Debug, clap::Args)]
pub struct ClusterConfig {
    /// Run as one instance of several sharing one PostgreSQL (docs/cluster.md): the
    /// address the other instances reach this one at, e.g. `http://10.0.0.7:8080`.
    /// Each started game's room is then owned by one instance at a time under a
    /// lease; an instance that dies has its rooms claimed by the others. Unset, the
    /// server is the only one (any database). Needs PostgreSQL.
    #[arg(long, env = "CATAN_CLUSTER_ADDRESS")]
    pub cluster_address: Option<String>,

    /// In a cluster, how long a room's lease lasts from its owner's last renewal, in
    /// seconds (renewed every third of it): how long a room waits before another
    /// instance takes over from one that died.
    #[arg(long, env = "CATAN_CLUSTER_LEASE_SECS", default_value_t = 9)]
    pub cluster_lease_secs: u64,
}

impl ClusterConfig {
    /// The lease of a room in a cluster (`--cluster-lease-secs`, at least 1 s).
    #[must_use]
    pub fn cluster_lease(&self) -> Duration {
        Duration::from_secs(self.cluster_lease_secs.max(1))
    }
}
