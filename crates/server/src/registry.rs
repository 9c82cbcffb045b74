//! The rooms a server holds, by id. Only handles live here; each room's state lives
//! in its own task.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use uuid::Uuid;

use crate::error::LobbyError;
use crate::room::{Directory, RoomContext, RoomHandle, WakeGuard, WakeLocks};
use catan_protocol::RoomOptions;

/// All rooms, newest last.
#[derive(Debug, Default)]
pub struct Rooms {
    /// Handles by id, with their creation order for listing newest first.
    inner: RwLock<Inner>,
    /// Most rooms held at once (`--max-rooms`).
    max_rooms: usize,
    /// A lock per room going to sleep or being woken (protocol 27.5), so that a
    /// room is never woken while it is falling asleep, nor woken twice.
    waking: Arc<WakeLocks>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The handles.
    by_id: HashMap<Uuid, RoomHandle>,
    /// Ids in creation order.
    order: Vec<Uuid>,
}

impl Rooms {
    /// No rooms yet; at most `max_rooms` at once.
    #[must_use]
    pub fn new(max_rooms: usize) -> Rooms {
        Rooms {
            inner: RwLock::default(),
            max_rooms,
            waking: Arc::default(),
        }
    }

    /// Holds room `id`'s sleep-and-wake lock until the guard is dropped.
    pub async fn wake_lock(&self, id: Uuid) -> WakeGuard {
        self.waking.lock(id).await
    }

    /// Whether room `id` is falling asleep or being woken (its lock held or
    /// waited for): a cluster instance keeps its lease meanwhile.
    #[must_use]
    pub fn waking(&self, id: Uuid) -> bool {
        self.waking.busy(id)
    }

    /// Creates a room, unless the server already holds `max_rooms` or has begun to
    /// shut down (a call whose head arrived before the shutdown and whose body after
    /// it reaches here past the handler's own check).
    ///
    /// # Errors
    /// `ShuttingDown`, `TooManyRooms`.
    pub fn create(
        &self,
        ctx: RoomContext,
        options: RoomOptions,
        host_token: String,
    ) -> Result<RoomHandle, LobbyError> {
        let mut inner = self.inner.write().expect("rooms lock");
        if ctx.shutdown.is_cancelled() {
            return Err(LobbyError::ShuttingDown);
        }
        if inner.by_id.len() >= self.max_rooms {
            return Err(LobbyError::TooManyRooms);
        }
        let handle = RoomHandle::spawn(ctx, options, host_token);
        inner.order.push(handle.id);
        inner.by_id.insert(handle.id, handle.clone());
        Ok(handle)
    }

    /// Registers a room restored from the store.
    pub fn insert(&self, handle: RoomHandle) {
        let mut inner = self.inner.write().expect("rooms lock");
        inner.order.push(handle.id);
        inner.by_id.insert(handle.id, handle);
    }

    /// Forgets a room whose task has ended (closed by an administrator, or idle).
    pub fn remove(&self, id: Uuid) {
        let mut inner = self.inner.write().expect("rooms lock");
        if inner.by_id.remove(&id).is_some() {
            inner.order.retain(|r| *r != id);
        }
    }

    /// A room of this instance where `player` holds a seat while it gathers.
    #[must_use]
    pub fn gathering_seat_of(&self, player: Uuid) -> Option<Uuid> {
        let inner = self.inner.read().expect("rooms lock");
        inner
            .by_id
            .values()
            .find(|h| h.gathers(player))
            .map(|h| h.id)
    }

    /// Every room of this instance where `player` holds a seat while it gathers,
    /// with the seat, newest first.
    #[must_use]
    pub fn gathering_of(&self, player: Uuid) -> Vec<(RoomHandle, catan_engine::Seat)> {
        self.all()
            .into_iter()
            .filter_map(|h| h.gathering_seat(player).map(|s| (h, s)))
            .collect()
    }

    /// Every room, newest first (for administrators: listed or not).
    #[must_use]
    pub fn all(&self) -> Vec<RoomHandle> {
        let inner = self.inner.read().expect("rooms lock");
        inner
            .order
            .iter()
            .rev()
            .filter_map(|id| inner.by_id.get(id))
            .cloned()
            .collect()
    }

    /// The room with this id.
    ///
    /// # Errors
    /// `RoomNotFound`.
    pub fn get(&self, id: Uuid) -> Result<RoomHandle, LobbyError> {
        self.inner
            .read()
            .expect("rooms lock")
            .by_id
            .get(&id)
            .cloned()
            .ok_or(LobbyError::RoomNotFound)
    }

    /// Up to `limit` listed rooms, newest first.
    #[must_use]
    pub fn listed(&self, limit: usize) -> Vec<RoomHandle> {
        let inner = self.inner.read().expect("rooms lock");
        inner
            .order
            .iter()
            .rev()
            .filter_map(|id| inner.by_id.get(id))
            .filter(|h| h.listed)
            .take(limit)
            .cloned()
            .collect()
    }

    /// Number of rooms.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.read().expect("rooms lock").by_id.len()
    }

    /// Whether there are no rooms.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Directory for Rooms {
    fn create(
        &self,
        ctx: RoomContext,
        options: RoomOptions,
        host_token: String,
    ) -> Result<RoomHandle, LobbyError> {
        Rooms::create(self, ctx, options, host_token)
    }

    fn get(&self, id: Uuid) -> Result<RoomHandle, LobbyError> {
        Rooms::get(self, id)
    }

    fn remove(&self, id: Uuid) {
        Rooms::remove(self, id);
    }

    fn insert(&self, handle: RoomHandle) {
        Rooms::insert(self, handle);
    }

    fn wake_locks(&self) -> Arc<WakeLocks> {
        self.waking.clone()
    }
}
