//! A store wrapper that bounds every call in time (`--store-timeout-ms`): a slow or
//! hung database makes a call fail as [`StoreError::Unavailable`] once the bound has
//! passed, so that nothing waiting on the store (a room, a lobby or history request,
//! `/readyz`) waits longer than that.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use uuid::Uuid;

use super::{ActionRecord, Finish, GameQuery, GameRecord, NewGame, Store, StoreError};

/// How many times the limit the start-up read of unfinished games may take.
const STARTUP_FACTOR: u32 = 10;

/// Bounds every call of `inner` to `limit`.
pub struct Bounded {
    /// The store doing the work.
    inner: Arc<dyn Store>,
    /// The longest wait for one call.
    limit: Duration,
}

impl Bounded {
    /// Wraps `inner`.
    #[must_use]
    pub fn new(inner: Arc<dyn Store>, limit: Duration) -> Bounded {
        Bounded { inner, limit }
    }

    async fn bounded<T>(
        &self,
        call: &'static str,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.limit, work).await {
            Ok(out) => out,
            Err(_) => Err(timed_out(call, self.limit)),
        }
    }
}

/// The error of a call that did not answer within `limit`.
pub(crate) fn timed_out(call: &str, limit: Duration) -> StoreError {
    StoreError::Unavailable(
        format!(
            "the database did not answer {call} within {} ms",
            limit.as_millis()
        )
        .into(),
    )
}

#[async_trait]
impl Store for Bounded {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.bounded("create_game", self.inner.create_game(game))
            .await
    }
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        self.bounded("append_action", self.inner.append_action(game, action))
            .await
    }
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        self.bounded("finish_game", self.inner.finish_game(game, finish))
            .await
    }
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        self.bounded("abandon_game", self.inner.abandon_game(game))
            .await
    }
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        self.bounded("reserve_seq", self.inner.reserve_seq(game, up_to))
            .await
    }
    /// Read once, at start-up, before the server serves (nothing waits on it but
    /// the start-up itself), and the largest read there is: bounded by ten times
    /// the limit, so that a large database does not keep the server from starting.
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let limit = self.limit * STARTUP_FACTOR;
        match tokio::time::timeout(limit, self.inner.unfinished_games()).await {
            Ok(out) => out,
            Err(_) => Err(timed_out("unfinished_games", limit)),
        }
    }
    async fn finished_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        self.bounded("finished_games", self.inner.finished_games(query))
            .await
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        self.bounded("game", self.inner.game(id)).await
    }
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        self.bounded("actions", self.inner.actions(id)).await
    }
    async fn health(&self) -> Result<(), StoreError> {
        self.bounded("health", self.inner.health()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database that accepts every call and never answers.
    struct Hung;

    #[async_trait]
    impl Store for Hung {
        async fn create_game(&self, _: &NewGame) -> Result<(), StoreError> {
            std::future::pending().await
        }
        async fn append_action(&self, _: Uuid, _: &ActionRecord) -> Result<(), StoreError> {
            std::future::pending().await
        }
        async fn finish_game(&self, _: Uuid, _: &Finish) -> Result<(), StoreError> {
            std::future::pending().await
        }
        async fn abandon_game(&self, _: Uuid) -> Result<(), StoreError> {
            std::future::pending().await
        }
        async fn reserve_seq(&self, _: Uuid, _: u64) -> Result<(), StoreError> {
            std::future::pending().await
        }
        async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
            std::future::pending().await
        }
        async fn finished_games(&self, _: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
            std::future::pending().await
        }
        async fn game(&self, _: Uuid) -> Result<GameRecord, StoreError> {
            std::future::pending().await
        }
        async fn actions(&self, _: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
            std::future::pending().await
        }
        async fn health(&self) -> Result<(), StoreError> {
            std::future::pending().await
        }
    }

    #[tokio::test(start_paused = true)]
    async fn every_call_of_a_hung_store_fails_as_unavailable_at_the_bound() {
        let limit = Duration::from_millis(2000);
        let store = Bounded::new(Arc::new(Hung), limit);
        let id = Uuid::nil();
        let timed = |started: tokio::time::Instant, r: Result<(), StoreError>| {
            assert!(matches!(r, Err(StoreError::Unavailable(_))), "{r:?}");
            started.elapsed()
        };
        let t = tokio::time::Instant::now();
        assert_eq!(timed(t, store.health().await), limit);
        let t = tokio::time::Instant::now();
        assert_eq!(timed(t, store.game(id).await.map(|_| ())), limit);
        let t = tokio::time::Instant::now();
        assert_eq!(timed(t, store.reserve_seq(id, 9).await), limit);
        let t = tokio::time::Instant::now();
        let restore = store.unfinished_games().await.map(|_| ());
        assert_eq!(timed(t, restore), limit * STARTUP_FACTOR);
    }
}
