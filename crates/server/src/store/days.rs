//! Games over days in the store (migration 0013): a player's unfinished games with
//! the seats' clocks their rooms last kept, read in one statement; rooms that
//! sleep (`slept_seq`) and those whose deadline comes (`next_deadline`).

use std::collections::HashMap;

use async_trait::async_trait;

use sqlx::Row;
use uuid::Uuid;

use super::games::{GAME_COLUMNS, corrupt, games_with_players, records};
use super::group_commit::to_i64;
use super::sql::SqlStore;
use super::{MyGameRow, StoreError, keeps_no_players};

/// The store's part in games over days (protocol 27): the seats' clocks as an
/// index, sleeping rooms, a player's games. Every method has a default, for stores
/// that keep none of it (tests).
#[async_trait]
pub trait DaysStore {
    /// Keeps each seat's clock of a game over days (JSON) and its earliest
    /// deadline, an index of what the log says (fenced like the log in a cluster).
    /// The default keeps none.
    async fn save_clocks(
        &self,
        game: Uuid,
        clocks: &str,
        next_deadline: Option<u64>,
    ) -> Result<(), StoreError> {
        let _ = (game, clocks, next_deadline);
        Ok(())
    }
    /// Marks a game over days whose room went to sleep after broadcast `seq`
    /// (protocol 27.5): it is not restored at start-up, and is woken by a request
    /// or by its deadline. The default keeps no sleeping rooms (refused, so the
    /// room stays awake).
    async fn sleep_game(&self, game: Uuid, seq: u64) -> Result<(), StoreError> {
        let _ = (game, seq);
        Err(StoreError::Unavailable(
            "this store keeps no sleeping rooms".into(),
        ))
    }
    /// Wakes a sleeping game: clears its `slept_seq` and reserves its broadcast
    /// numbers up to `up_to`, in one statement; false if it was not asleep.
    async fn wake_game(&self, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
        let _ = (game, up_to);
        Ok(false)
    }
    /// The sleeping games whose earliest deadline is at or before `by` (Unix ms).
    async fn due_sleepers(&self, by: u64) -> Result<Vec<Uuid>, StoreError> {
        let _ = by;
        Ok(Vec::new())
    }
    /// The unfinished games `player` has a seat in, the latest started first.
    async fn my_games(&self, player: Uuid) -> Result<Vec<MyGameRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
}

#[async_trait]
impl DaysStore for SqlStore {
    async fn save_clocks(
        &self,
        game: Uuid,
        clocks: &str,
        next_deadline: Option<u64>,
    ) -> Result<(), StoreError> {
        let fenced = self.fence().map_or(String::new(), |_| {
            format!(" AND {}", SqlStore::lease_held(4, 5))
        });
        let sql = format!(
            "UPDATE games SET clocks = $2, next_deadline = $3 WHERE id = $1 \
             AND status = 'playing'{fenced}"
        );
        let mut update = sqlx::query(&sql)
            .bind(game.to_string())
            .bind(clocks.to_owned())
            .bind(next_deadline.map(to_i64));
        if let Some(f) = self.fence() {
            update = update.bind(f.owner().to_owned()).bind(f.epoch(game));
        }
        update.execute(self.pool()).await?;
        Ok(())
    }

    async fn my_games(&self, player: Uuid) -> Result<Vec<MyGameRow>, StoreError> {
        self.select_my_games(player).await
    }

    async fn sleep_game(&self, game: Uuid, seq: u64) -> Result<(), StoreError> {
        self.mark_asleep(game, seq).await
    }

    async fn wake_game(&self, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
        self.mark_awake(game, up_to).await
    }

    async fn due_sleepers(&self, by: u64) -> Result<Vec<Uuid>, StoreError> {
        self.select_due_sleepers(by).await
    }
}

impl SqlStore {
    /// The unfinished games `player` has a seat in, the latest started first.
    pub(super) async fn select_my_games(&self, player: Uuid) -> Result<Vec<MyGameRow>, StoreError> {
        let games = format!(
            "SELECT {GAME_COLUMNS}, clocks FROM games WHERE status = 'playing' \
             AND id IN (SELECT game_id FROM game_players WHERE player_id = $1)"
        );
        let sql = games_with_players(&games, "g.started_at DESC, g.id");
        let rows = sqlx::query(&sql)
            .bind(player.to_string())
            .fetch_all(self.pool())
            .await?;
        let mut clocks: HashMap<String, Option<String>> = HashMap::new();
        for row in &rows {
            clocks.insert(row.try_get("id")?, row.try_get("clocks")?);
        }
        Ok(records(&rows)?
            .into_iter()
            .map(|game| {
                let clocks = clocks.remove(&game.game.id.to_string()).flatten();
                MyGameRow { game, clocks }
            })
            .collect())
    }

    /// Marks `game` asleep after broadcast `seq` (a single instance's store: no
    /// fence).
    pub(super) async fn mark_asleep(&self, game: Uuid, seq: u64) -> Result<(), StoreError> {
        let done =
            sqlx::query("UPDATE games SET slept_seq = $2 WHERE id = $1 AND status = 'playing'")
                .bind(game.to_string())
                .bind(to_i64(seq))
                .execute(self.pool())
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("game {game} being played")));
        }
        Ok(())
    }

    /// Wakes `game`: no longer asleep, its broadcast numbers reserved up to `up_to`;
    /// false if it was not asleep.
    pub(super) async fn mark_awake(&self, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE games SET slept_seq = NULL, seq_reserved = $2 \
             WHERE id = $1 AND slept_seq IS NOT NULL",
        )
        .bind(game.to_string())
        .bind(to_i64(up_to))
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The sleeping games whose earliest deadline is at or before `by`.
    pub(super) async fn select_due_sleepers(&self, by: u64) -> Result<Vec<Uuid>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE status = 'playing' AND slept_seq IS NOT NULL \
             AND next_deadline <= $1 ORDER BY next_deadline LIMIT 1000",
        )
        .bind(to_i64(by))
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                let id: String = r.try_get("id")?;
                Uuid::parse_str(&id).map_err(corrupt)
            })
            .collect()
    }
}
