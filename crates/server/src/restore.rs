//! One path that brings stored games back as live rooms: at start-up (every
//! unfinished game, its timers started afresh: nobody could act while the server
//! was down) and when an instance of a cluster takes a room over (one game, its
//! timers where they were: the players' clocks ran on).

use std::sync::Arc;

use tracing::{error, info};
use uuid::Uuid;

use crate::registry::Rooms;
use crate::room::{Deadlines, RoomContext, RoomHandle};
use crate::store::{ActionRecord, GameRecord, GameStatus, Store, StoreError};

/// What restoring rooms needs, and nothing more: the store to read from, the rooms
/// to put them in, and what each room runs with.
#[derive(Clone)]
pub struct Restorer {
    /// Where the games are read.
    store: Arc<dyn Store>,
    /// Where the rooms go.
    rooms: Arc<Rooms>,
    /// What each room runs with.
    ctx: RoomContext,
}

impl std::fmt::Debug for Restorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Restorer").finish_non_exhaustive()
    }
}

/// What waking a room found ([`Restorer::wake`]).
#[derive(Debug)]
pub enum Woken {
    /// The room, awake here (woken now, or found awake in this server).
    Here(RoomHandle),
    /// No room of that id sleeps: it is unknown, over, or awake on another instance.
    NotAsleep,
    /// It slept, but another instance of the cluster woke it first and owns it now:
    /// asked again, the call is passed on to that instance.
    Elsewhere,
}

/// What became of a game a cluster instance claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claimed {
    /// It runs here now.
    Restored,
    /// It is no longer being played: nothing to run.
    NotPlaying,
    /// Its log does not replay (logged): the same log fails on every instance.
    Broken,
}

impl Restorer {
    /// Restores from `store` into `rooms`, each room with `ctx`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, rooms: Arc<Rooms>, ctx: RoomContext) -> Restorer {
        Restorer { store, rooms, ctx }
    }

    /// Brings back every unfinished game of the store and every room that was still
    /// gathering players (start-up of a single instance). A game whose log does not
    /// replay is logged and left out. Returns how many games and how many rooms
    /// gathering players came back.
    ///
    /// # Errors
    /// If the store cannot list the games or the rooms, or read a log.
    pub async fn all(&self) -> Result<(usize, usize), StoreError> {
        let mut games = 0;
        for record in self.store.unfinished_games().await? {
            let actions = self.store.actions(record.game.id).await?;
            if self.bring_back(record, &actions, Deadlines::Restart, None) {
                games += 1;
            }
        }
        let mut lobbies = 0;
        for record in self.store.lobbies().await? {
            if self.rooms.get(record.id).is_ok() {
                continue;
            }
            self.rooms
                .insert(RoomHandle::restore_lobby(self.ctx.clone(), &record));
            info!(room = %record.id, seats = record.players.len(), "restored a room gathering players");
            lobbies += 1;
        }
        Ok((games, lobbies))
    }

    /// Brings back game `id` if it is still being played (a cluster instance took
    /// its lease over), its deadlines where they were.
    ///
    /// # Errors
    /// If the store cannot read the game or its log.
    pub async fn one(&self, id: Uuid) -> Result<Claimed, StoreError> {
        let record = self.store.game(id).await?;
        if record.status != GameStatus::Playing {
            return Ok(Claimed::NotPlaying);
        }
        let actions = self.store.actions(id).await?;
        Ok(
            if self.bring_back(record, &actions, Deadlines::Continue, None) {
                Claimed::Restored
            } else {
                Claimed::Broken
            },
        )
    }

    /// Wakes game `id` if its room sleeps (protocol 27.5): the store notes it awake
    /// (its broadcast numbers reserved past where it stopped) and the room comes
    /// back with its clocks where the log puts them and the reconnect backlog it
    /// kept, numbering on from its last broadcast.
    ///
    /// # Errors
    /// If the store cannot read the game or its log, or note it awake.
    pub async fn wake(&self, id: Uuid) -> Result<Woken, StoreError> {
        let _lock = self.rooms.wake_lock(id).await;
        if let Ok(room) = self.rooms.get(id) {
            return Ok(Woken::Here(room));
        }
        let record = match self.store.game(id).await {
            Ok(record) => record,
            Err(StoreError::NotFound(_)) => return Ok(Woken::NotAsleep),
            Err(e) => return Err(e),
        };
        let Some(slept) = record.slept_seq else {
            return Ok(Woken::NotAsleep);
        };
        if record.status != GameStatus::Playing {
            return Ok(Woken::NotAsleep);
        }
        let actions = self.store.actions(id).await?;
        let backlog = self.store.slept_backlog(id).await?;
        let up_to = slept + crate::room::SEQ_BLOCK;
        // Refused only when someone else woke it meanwhile: under this server's
        // lock, another instance of a cluster.
        if !self.store.wake_game(id, up_to).await? {
            return Ok(Woken::Elsewhere);
        }
        if !self.bring_back(record, &actions, Deadlines::Continue, backlog.as_deref()) {
            return Ok(Woken::NotAsleep);
        }
        info!(room = %id, seq = slept, "woke a sleeping room");
        Ok(self.rooms.get(id).map_or(Woken::NotAsleep, Woken::Here))
    }

    /// Wakes every sleeping room whose earliest deadline comes within `ahead_ms`
    /// (its own timer then fires it on time). Returns how many woke.
    ///
    /// # Errors
    /// If the store cannot list them.
    pub async fn wake_due(&self, ahead_ms: u64) -> Result<usize, StoreError> {
        let by = crate::room::rooms_now_ms() + ahead_ms;
        let mut woken = 0;
        for id in self.store.due_sleepers(by).await? {
            match self.wake(id).await {
                Ok(Woken::Here(_)) => woken += 1,
                Ok(Woken::NotAsleep | Woken::Elsewhere) => {}
                Err(e) => {
                    error!(room = %id, error = %e, "could not wake a room whose deadline comes")
                }
            }
        }
        Ok(woken)
    }

    /// The one restore: the game replayed into a room (its bots reseated, the
    /// backlog of a room that slept taken back), the room registered. False when
    /// the log does not replay (logged).
    fn bring_back(
        &self,
        record: GameRecord,
        actions: &[ActionRecord],
        deadlines: Deadlines,
        backlog: Option<&str>,
    ) -> bool {
        let id = record.game.id;
        match RoomHandle::restore(self.ctx.clone(), record, actions, deadlines, backlog) {
            Ok(handle) => {
                self.rooms.insert(handle);
                info!(room = %id, actions = actions.len(), ?deadlines, "restored game");
                true
            }
            Err(e) => {
                error!(room = %id, error = %e, "could not restore game");
                false
            }
        }
    }
}
