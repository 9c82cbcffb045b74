//! The leases an instance of a cluster holds (docs/cluster.md): by room, the epoch of
//! its lease. Every write of a room goes to the database with the epoch held here and
//! is checked against the lease row in the same statement, so an instance that lost
//! a room (another claimed it) cannot write one more row of it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use uuid::Uuid;

/// This instance's id and the epochs of the rooms it owns.
#[derive(Debug)]
pub struct Fence {
    owner: String,
    lease: Duration,
    epochs: Mutex<HashMap<Uuid, i64>>,
}

/// The epoch written with a room this instance holds no lease of: no lease row has
/// it (epochs start at 1), so the write is refused as fenced.
pub const NO_EPOCH: i64 = -1;

impl Fence {
    /// The fence of the instance `owner` (its id in `instances`), whose leases last
    /// `lease` from their last renewal; holding nothing yet.
    #[must_use]
    pub fn new(owner: String, lease: Duration) -> Fence {
        Fence {
            owner,
            lease,
            epochs: Mutex::default(),
        }
    }

    /// The instance's id.
    #[must_use]
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// How long a lease lasts from its last renewal.
    #[must_use]
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// The Unix time in ms at which a lease taken or renewed at `now_ms` expires.
    #[must_use]
    pub fn expiry(&self, now_ms: u64) -> i64 {
        let lease = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        i64::try_from(now_ms.saturating_add(lease)).unwrap_or(i64::MAX)
    }

    /// Notes that this instance owns `room` under `epoch`.
    pub fn hold(&self, room: Uuid, epoch: i64) {
        self.epochs.lock().expect("fence lock").insert(room, epoch);
    }

    /// Forgets `room` (its game ended, or another instance owns it now); whether it
    /// was held.
    pub fn release(&self, room: Uuid) -> bool {
        self.epochs
            .lock()
            .expect("fence lock")
            .remove(&room)
            .is_some()
    }

    /// The epoch under which this instance owns `room`, or [`NO_EPOCH`].
    #[must_use]
    pub fn epoch(&self, room: Uuid) -> i64 {
        self.epochs
            .lock()
            .expect("fence lock")
            .get(&room)
            .copied()
            .unwrap_or(NO_EPOCH)
    }

    /// Every room held, with its epoch.
    #[must_use]
    pub fn held(&self) -> HashMap<Uuid, i64> {
        self.epochs.lock().expect("fence lock").clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_is_written_under_the_epoch_held_and_under_none_once_released() {
        let f = Fence::new("a".into(), Duration::from_secs(9));
        assert_eq!(f.expiry(1_000), 10_000);
        let room = Uuid::from_u128(7);
        assert_eq!(f.epoch(room), NO_EPOCH);
        f.hold(room, 3);
        assert_eq!(f.epoch(room), 3);
        assert_eq!(f.held().get(&room), Some(&3));
        assert!(f.release(room));
        assert!(!f.release(room));
        assert_eq!(f.epoch(room), NO_EPOCH);
    }
}
