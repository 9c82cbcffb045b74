//! A store wrapper that times every write into the `catan_store_write_seconds`
//! histogram, whatever store it wraps (SQL, or a test's fault-injecting one).

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use uuid::Uuid;

use super::{ActionRecord, Finish, GameQuery, GameRecord, NewGame, Store, StoreError};
use crate::metrics::Metrics;

/// Times the writes of `inner`; reads pass straight through.
pub struct Metered {
    /// The store doing the work.
    inner: Arc<dyn Store>,
    /// Where write durations go.
    metrics: Arc<Metrics>,
}

impl Metered {
    /// Wraps `inner`.
    #[must_use]
    pub fn new(inner: Arc<dyn Store>, metrics: Arc<Metrics>) -> Metered {
        Metered { inner, metrics }
    }

    async fn timed<T>(&self, write: impl Future<Output = T>) -> T {
        let start = Instant::now();
        let out = write.await;
        self.metrics.store_write.observe(start.elapsed());
        out
    }
}

#[async_trait]
impl Store for Metered {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.timed(self.inner.create_game(game)).await
    }
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        self.timed(self.inner.append_action(game, action)).await
    }
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        self.timed(self.inner.finish_game(game, finish)).await
    }
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        self.timed(self.inner.abandon_game(game)).await
    }
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        self.timed(self.inner.reserve_seq(game, up_to)).await
    }
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        self.inner.unfinished_games().await
    }
    async fn finished_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        self.inner.finished_games(query).await
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        self.inner.game(id).await
    }
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        self.inner.actions(id).await
    }
    async fn health(&self) -> Result<(), StoreError> {
        self.inner.health().await
    }
}
