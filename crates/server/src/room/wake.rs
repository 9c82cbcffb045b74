//! The lock a room holds while it falls asleep and a caller holds while it wakes
//! it (protocol 27.5), one per room: a room is never woken while it falls asleep,
//! nor woken twice at once.

use std::sync::Arc;

use uuid::Uuid;

/// A lock per room going to sleep or being woken (protocol 27.5), so that a room
/// is never woken while it falls asleep, nor woken twice at once.
#[derive(Debug, Default)]
pub struct WakeLocks {
    /// The locks of rooms someone holds or waits for.
    locks: std::sync::Mutex<std::collections::HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>,
}

impl WakeLocks {
    /// Holds room `id`'s lock until the guard is dropped.
    pub async fn lock(self: &Arc<Self>, id: Uuid) -> WakeGuard {
        let lock = self
            .locks
            .lock()
            .expect("wake locks")
            .entry(id)
            .or_default()
            .clone();
        WakeGuard {
            locks: self.clone(),
            id,
            guard: Some(lock.lock_owned().await),
        }
    }

    /// Whether someone holds or waits for room `id`'s lock: it is falling asleep
    /// or being woken.
    pub fn busy(&self, id: Uuid) -> bool {
        self.locks.lock().expect("wake locks").contains_key(&id)
    }
}

/// Held while a room goes to sleep or is woken ([`WakeLocks::lock`]); the lock is
/// forgotten once nobody holds or waits for it.
#[derive(Debug)]
pub struct WakeGuard {
    /// Whose lock.
    locks: Arc<WakeLocks>,
    /// The room.
    id: Uuid,
    /// The lock itself (taken out on drop, before the map is tidied).
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for WakeGuard {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut locks = self.locks.locks.lock().expect("wake locks");
        // Only the map's reference left: nobody holds or waits for it.
        if locks
            .get(&self.id)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            locks.remove(&self.id);
        }
    }
}
