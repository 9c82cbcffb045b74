//! A store that fails or stalls on command around a real one, standing for an
//! unreachable, refusing or slow database.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use catan_server::store::{
    ActionRecord, DaysStore, Finish, GameQuery, GameRecord, LobbyRecord, NewGame, NotifyStore,
    QueueStore, SqlStore, Store, StoreError,
};
use uuid::Uuid;

/// A store that fails or stalls on command around a real one, standing for an
/// unreachable or slow database. Every other call goes straight through.
#[derive(Debug)]
pub struct FaultyStore {
    /// The real store.
    pub inner: SqlStore,
    /// While set, appends to the action log fail.
    pub fail_appends: AtomicBool,
    /// Appends of an action at this index of its game's log or later fail, in every
    /// game, until it is set back to `u64::MAX` (the default: none fail). Each game
    /// then stalls at the same point of its log, however fast it ran until then.
    pub fail_appends_from_seq: AtomicU64,
    /// Appends refused so far, by game: every call, and the distinct records.
    refused: Mutex<HashMap<Uuid, Refused>>,
    /// Result writes still to fail; `u32::MAX` fails them forever.
    pub fail_finishes: AtomicU32,
    /// Result writes attempted.
    pub finish_calls: AtomicU32,
    /// How long each result write takes before it succeeds or fails.
    pub finish_delay: Duration,
    /// While set, every call hangs (a database that accepted the connection and
    /// never answers), until it is cleared.
    pub hang: AtomicBool,
}

/// What a [`FaultyStore`] refused of one game's log.
#[derive(Debug, Clone, Default)]
struct Refused {
    /// Every refused call, retries included.
    calls: u32,
    /// Distinct records refused: a retry of the last one is not counted again.
    records: u32,
    /// The last record refused.
    last: Option<ActionRecord>,
}

impl FaultyStore {
    /// A pass-through wrapper around `inner`.
    #[must_use]
    pub fn new(inner: SqlStore) -> FaultyStore {
        FaultyStore {
            inner,
            fail_appends: AtomicBool::new(false),
            fail_appends_from_seq: AtomicU64::new(u64::MAX),
            refused: Mutex::default(),
            fail_finishes: AtomicU32::new(0),
            finish_calls: AtomicU32::new(0),
            finish_delay: Duration::ZERO,
            hang: AtomicBool::new(false),
        }
    }

    /// Appends refused so far in `game`'s log, every call (the room retries a
    /// write itself before it refuses the action).
    ///
    /// # Panics
    /// If the lock is poisoned.
    #[must_use]
    pub fn refused_appends(&self, game: Uuid) -> u32 {
        self.refusals(game).calls
    }

    /// Distinct action records refused in `game`'s log, a record the room retried
    /// counted once: the attempts its clients made to act (each new attempt is a new
    /// record, with its own time).
    ///
    /// # Panics
    /// If the lock is poisoned.
    #[must_use]
    pub fn refused_actions(&self, game: Uuid) -> u32 {
        self.refusals(game).records
    }

    /// Waits for as long as [`FaultyStore::hang`] is set.
    async fn hang_while_set(&self) {
        while self.hang.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn refusals(&self, game: Uuid) -> Refused {
        self.refused
            .lock()
            .expect("refusals")
            .get(&game)
            .cloned()
            .unwrap_or_default()
    }

    fn refuse(&self, game: Uuid, record: &ActionRecord) {
        let mut all = self.refused.lock().expect("refusals");
        let r = all.entry(game).or_default();
        r.calls += 1;
        if r.last.as_ref() != Some(record) {
            r.records += 1;
            r.last = Some(*record);
        }
    }
}

/// The error of a database that cannot be reached.
fn down() -> StoreError {
    StoreError::from(sqlx::Error::PoolTimedOut)
}

/// Keeps no queue (the defaults refuse every call).
impl QueueStore for FaultyStore {}
/// Keeps no notifications (the defaults refuse every call).
impl NotifyStore for FaultyStore {}
impl DaysStore for FaultyStore {}

#[async_trait]
impl Store for FaultyStore {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.create_game(game).await
    }
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        self.hang_while_set().await;
        if self.fail_appends.load(Ordering::SeqCst)
            || action.seq >= self.fail_appends_from_seq.load(Ordering::SeqCst)
        {
            self.refuse(game, action);
            return Err(down());
        }
        self.inner.append_action(game, action).await
    }
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.finish_calls.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(self.finish_delay).await;
        let left = self.fail_finishes.load(Ordering::SeqCst);
        if left > 0 {
            if left != u32::MAX {
                self.fail_finishes.fetch_sub(1, Ordering::SeqCst);
            }
            return Err(down());
        }
        self.inner.finish_game(game, finish).await
    }
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.abandon_game(game).await
    }
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.reserve_seq(game, up_to).await
    }
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        self.hang_while_set().await;
        self.inner.unfinished_games().await
    }
    async fn finished_games(&self, q: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        self.hang_while_set().await;
        self.inner.finished_games(q).await
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        self.hang_while_set().await;
        self.inner.game(id).await
    }
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        self.hang_while_set().await;
        self.inner.actions(id).await
    }
    async fn health(&self) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.health().await
    }
    async fn save_lobby(&self, lobby: &LobbyRecord) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.save_lobby(lobby).await
    }
    async fn drop_lobby(&self, id: Uuid) -> Result<(), StoreError> {
        self.hang_while_set().await;
        self.inner.drop_lobby(id).await
    }
    async fn lobbies(&self) -> Result<Vec<LobbyRecord>, StoreError> {
        self.hang_while_set().await;
        self.inner.lobbies().await
    }
}
