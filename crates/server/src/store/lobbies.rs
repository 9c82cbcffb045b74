//! Rooms still gathering players, kept so that they survive a restart
//! (`lobby_rooms`): written when the room is created and at every change of its
//! seats, gone when its game starts (in the game's own transaction), when it is
//! closed, or when it is removed for being idle.

use catan_engine::Seat;
use catan_protocol::BotKind;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use uuid::Uuid;

use super::games::corrupt;
use super::group_commit::to_i64;
use super::{LobbyRecord, PlayerRecord, SqlStore, StoreError, StoredOptions};

/// One taken seat as the row's `seats` JSON holds it.
#[derive(Debug, Serialize, Deserialize)]
struct StoredSeat {
    seat: u8,
    name: String,
    bot: Option<String>,
    token_hash: String,
    /// The signed-in player who took the seat (rows written before players
    /// existed have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    player_id: Option<Uuid>,
}

impl SqlStore {
    /// Inserts or replaces the row of `lobby`.
    pub(super) async fn put_lobby(&self, lobby: &LobbyRecord) -> Result<(), StoreError> {
        let seats: Vec<StoredSeat> = lobby
            .players
            .iter()
            .map(|p| StoredSeat {
                seat: p.seat.0,
                name: p.name.clone(),
                bot: p.bot.map(|b| b.name().to_owned()),
                token_hash: p.token_hash.clone(),
                player_id: p.player_id,
            })
            .collect();
        sqlx::query(
            "INSERT INTO lobby_rooms (id, options, host_token_hash, created_at, seats, seq) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE \
             SET options = excluded.options, seats = excluded.seats, seq = excluded.seq",
        )
        .bind(lobby.id.to_string())
        .bind(serde_json::to_string(&StoredOptions::from(lobby.options)).map_err(corrupt)?)
        .bind(&lobby.host_token_hash)
        .bind(to_i64(lobby.created_at))
        .bind(serde_json::to_string(&seats).map_err(corrupt)?)
        .bind(to_i64(lobby.seq))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Deletes the row of room `id`, if there is one.
    pub(super) async fn delete_lobby(&self, id: Uuid) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM lobby_rooms WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Every row, oldest room first.
    pub(super) async fn all_lobbies(&self) -> Result<Vec<LobbyRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, options, host_token_hash, created_at, seats, seq FROM lobby_rooms \
             ORDER BY created_at, id",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                let options: String = row.try_get("options")?;
                let seats: String = row.try_get("seats")?;
                let options: StoredOptions = serde_json::from_str(&options).map_err(corrupt)?;
                let seats: Vec<StoredSeat> = serde_json::from_str(&seats).map_err(corrupt)?;
                let players = seats
                    .into_iter()
                    .map(|s| {
                        let bot = s
                            .bot
                            .map(|b| b.parse::<BotKind>().map_err(corrupt))
                            .transpose()?;
                        Ok(PlayerRecord {
                            seat: Seat(s.seat),
                            name: s.name,
                            bot,
                            token_hash: s.token_hash,
                            final_vp: None,
                            vp_cards: None,
                            player_id: s.player_id,
                            rating: None,
                        })
                    })
                    .collect::<Result<Vec<_>, StoreError>>()?;
                Ok(LobbyRecord {
                    id: Uuid::parse_str(&id).map_err(corrupt)?,
                    options: options.into(),
                    host_token_hash: row.try_get("host_token_hash")?,
                    created_at: u64::try_from(row.try_get::<i64, _>("created_at")?).unwrap_or(0),
                    players,
                    seq: u64::try_from(row.try_get::<i64, _>("seq")?).unwrap_or(0),
                })
            })
            .collect()
    }
}
