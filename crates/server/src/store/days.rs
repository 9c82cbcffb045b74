//! Games over days in the store (migration 0013): a player's unfinished games with
//! the seats' clocks their rooms last kept, read in one statement.

use std::collections::HashMap;

use sqlx::Row;
use uuid::Uuid;

use super::games::{GAME_COLUMNS, games_with_players, records};
use super::sql::SqlStore;
use super::{MyGameRow, StoreError};

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
}
