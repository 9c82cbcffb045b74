//! The rooms a server holds, by id. Only handles live here; each room's state lives
//! in its own task.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use uuid::Uuid;

use crate::config::Config;
use crate::error::LobbyError;
use crate::protocol::RoomOptions;
use crate::room::RoomHandle;
use crate::store::Store;

/// All rooms, newest last.
#[derive(Debug, Default)]
pub struct Rooms {
    /// Handles by id, with their creation order for listing newest first.
    inner: RwLock<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    by_id: HashMap<Uuid, RoomHandle>,
    order: Vec<Uuid>,
}

impl Rooms {
    /// Creates a room, unless the server already holds `max_rooms`.
    ///
    /// # Errors
    /// `TooManyRooms`.
    pub fn create(
        &self,
        config: &Arc<Config>,
        options: RoomOptions,
        host_token: String,
        store: Arc<dyn Store>,
    ) -> Result<RoomHandle, LobbyError> {
        let mut inner = self.inner.write().expect("rooms lock");
        if inner.by_id.len() >= config.max_rooms {
            return Err(LobbyError::TooManyRooms);
        }
        let handle = RoomHandle::spawn(config.clone(), options, host_token, store);
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
