//! Games over days in the store (migration 0013): a player's unfinished games with
//! the seats' clocks their rooms last kept, read in one statement; rooms that
//! sleep (`slept_seq`, `slept_backlog`: migrations 0013, 0015) and those whose
//! deadline comes (`next_deadline`).

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
    /// (protocol 27.5), keeping its reconnect backlog (`backlog`, JSON; hidden
    /// information, like the log): it is not restored at start-up, and is woken by
    /// a request or by its deadline. The default keeps no sleeping rooms (refused,
    /// so the room stays awake).
    async fn sleep_game(&self, game: Uuid, seq: u64, backlog: &str) -> Result<(), StoreError> {
        let _ = (game, seq, backlog);
        Err(StoreError::Unavailable(
            "this store keeps no sleeping rooms".into(),
        ))
    }
    /// The reconnect backlog a sleeping game's room left ([`DaysStore::sleep_game`]);
    /// none for a game not asleep, or put to sleep by a version that kept none.
    async fn slept_backlog(&self, game: Uuid) -> Result<Option<String>, StoreError> {
        let _ = game;
        Ok(None)
    }
    /// Wakes a sleeping game: clears its `slept_seq` and its backlog and reserves
    /// its broadcast numbers up to `up_to`, in one statement (in a cluster, in one
    /// transaction with the claim of its lease); false if it was not asleep, or
    /// another instance claimed it first.
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

    async fn sleep_game(&self, game: Uuid, seq: u64, backlog: &str) -> Result<(), StoreError> {
        self.mark_asleep(game, seq, backlog).await
    }

    async fn slept_backlog(&self, game: Uuid) -> Result<Option<String>, StoreError> {
        let row =
            sqlx::query("SELECT slept_backlog FROM games WHERE id = $1 AND slept_seq IS NOT NULL")
                .bind(game.to_string())
                .fetch_optional(self.pool())
                .await?;
        Ok(row
            .map(|r| r.try_get("slept_backlog"))
            .transpose()?
            .flatten())
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

    /// Marks `game` asleep after broadcast `seq`, with its backlog. In a cluster
    /// only under this instance's lease, which then goes: nobody owns a sleeping
    /// room (expired, it is not claimed: [`super::Leases::claim`] passes sleeping
    /// games by), and whichever instance wakes it claims it ([`Self::mark_awake`]).
    pub(super) async fn mark_asleep(
        &self,
        game: Uuid,
        seq: u64,
        backlog: &str,
    ) -> Result<(), StoreError> {
        let fenced = self.fence().map_or(String::new(), |_| {
            format!(" AND {}", SqlStore::lease_held(4, 5))
        });
        let sql = format!(
            "UPDATE games SET slept_seq = $2, slept_backlog = $3 \
             WHERE id = $1 AND status = 'playing'{fenced}"
        );
        let mut tx = self.pool().begin().await?;
        let mut update = sqlx::query(&sql)
            .bind(game.to_string())
            .bind(to_i64(seq))
            .bind(backlog.to_owned());
        if let Some(f) = self.fence() {
            update = update.bind(f.owner().to_owned()).bind(f.epoch(game));
        }
        if update.execute(&mut *tx).await?.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "game {game} being played here"
            )));
        }
        if let Some(f) = self.fence() {
            sqlx::query(
                "UPDATE room_leases SET expires_at = 0 \
                 WHERE room_id = $1 AND owner = $2 AND epoch = $3",
            )
            .bind(game.to_string())
            .bind(f.owner().to_owned())
            .bind(f.epoch(game))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if let Some(f) = self.fence() {
            f.release(game);
        }
        Ok(())
    }

    /// Wakes `game`: no longer asleep, its broadcast numbers reserved up to `up_to`;
    /// false if it was not asleep. In a cluster this instance claims its lease in
    /// the same transaction (a new epoch, held from then on); false as well when
    /// another instance holds it (it woke the room first).
    pub(super) async fn mark_awake(&self, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
        let Some(f) = self.fence() else {
            // One instance: one statement, no transaction (a wake is on a player's
            // path: every round trip counts).
            let mut conn = self.pool().acquire().await?;
            return awake(&mut conn, game, up_to).await;
        };
        let mut tx = self.pool().begin().await?;
        let now = crate::room::now_ms();
        let claimed = sqlx::query(
            "INSERT INTO room_leases (room_id, owner, epoch, expires_at) \
             VALUES ($1, $2, 1, $3) ON CONFLICT (room_id) DO UPDATE \
             SET owner = EXCLUDED.owner, epoch = room_leases.epoch + 1, \
             expires_at = EXCLUDED.expires_at WHERE room_leases.expires_at < $4 \
             RETURNING epoch",
        )
        .bind(game.to_string())
        .bind(f.owner().to_owned())
        .bind(f.expiry(now))
        .bind(to_i64(now))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = claimed else {
            return Ok(false);
        };
        let epoch: i64 = row.try_get("epoch")?;
        if !awake(&mut tx, game, up_to).await? {
            return Ok(false);
        }
        tx.commit().await?;
        f.hold(game, epoch);
        Ok(true)
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

/// Marks `game` awake on `conn`, its broadcast numbers reserved up to `up_to`;
/// false if it was not asleep.
async fn awake(conn: &mut sqlx::AnyConnection, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE games SET slept_seq = NULL, slept_backlog = NULL, seq_reserved = $2 \
         WHERE id = $1 AND slept_seq IS NOT NULL",
    )
    .bind(game.to_string())
    .bind(to_i64(up_to))
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
