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
            if self.bring_back(record, &actions, Deadlines::Restart) {
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
        Ok(if self.bring_back(record, &actions, Deadlines::Continue) {
            Claimed::Restored
        } else {
            Claimed::Broken
        })
    }

    /// The one restore: the game replayed into a room (its bots reseated), the room
    /// registered. False when the log does not replay (logged).
    fn bring_back(
        &self,
        record: GameRecord,
        actions: &[ActionRecord],
        deadlines: Deadlines,
    ) -> bool {
        let id = record.game.id;
        match RoomHandle::restore(self.ctx.clone(), record, actions, deadlines) {
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
