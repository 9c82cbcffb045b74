//! Quick play's queue as stored (`queue_tickets`, migration 0010; `queue_tables`,
//! 0012): who waits for which table, where each player was seated once a table
//! formed, and the tables whose game has not started yet. Seating is one
//! transaction that takes only rows still waiting, so that a player is never
//! seated twice, whichever instance forms the table.

use async_trait::async_trait;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::group_commit::to_i64;
use super::players::{millis, opt_millis, uuid};
use super::{SqlStore, StoreError, keeps_no_players};

mod rows;

pub use rows::{PartyJoin, PartyRow, PendingTable, QueueRow, QueueSeat, QueueTable};

/// Quick play's calls of the store, a part of [`super::Store`] (which every store
/// implements with it): the queue and its parties. A store that keeps no players
/// refuses them all.
#[async_trait]
pub trait QueueStore: Send + Sync {
    /// Queues `rows` (a player alone, or a party sharing a ticket) in one
    /// transaction: true when they are; false, and nobody queued, when one of them
    /// is seated at a table whose game has not started (a gathering table: they
    /// are in its room's lobby); a player already waiting is a
    /// [`StoreError::Conflict`], and nobody is queued. A seat given earlier at a
    /// started table is forgotten.
    async fn queue_join(&self, rows: &[QueueRow]) -> Result<bool, StoreError> {
        let _ = rows;
        Err(keeps_no_players())
    }
    /// Takes `player` out of the queue (waiting or seated): false when they were
    /// not in it.
    async fn queue_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// `player`'s row of the queue, if any.
    async fn queued(&self, player: Uuid) -> Result<Option<QueueRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Everyone waiting (not yet seated), longest waiting first.
    async fn queue_waiting(&self) -> Result<Vec<QueueRow>, StoreError> {
        Err(keeps_no_players())
    }
    /// Seats players at `table` where `seats` says, in one transaction, keeping
    /// the table (made by a table's first seating, kept by a refill's): false, and
    /// nobody seated, when one of them is no longer waiting.
    async fn queue_seat(
        &self,
        table: &QueueTable,
        seats: &[(Uuid, QueueSeat)],
    ) -> Result<bool, StoreError> {
        let _ = (table, seats);
        Err(keeps_no_players())
    }
    /// The tables whose game has not started, oldest first, with their players.
    async fn queue_pending(&self) -> Result<Vec<PendingTable>, StoreError> {
        Err(keeps_no_players())
    }
    /// Drops `player` from the table of `room` (they did not connect): false when
    /// they were not seated there.
    async fn queue_drop(&self, player: Uuid, room: Uuid) -> Result<bool, StoreError> {
        let _ = (player, room);
        Err(keeps_no_players())
    }
    /// The game of the table of `room` started.
    async fn queue_started(&self, room: Uuid) -> Result<(), StoreError> {
        let _ = room;
        Err(keeps_no_players())
    }
    /// Ends the table of `room` before its game started: with `requeue`, its
    /// players wait again where they waited before (their first `since`), else
    /// they leave the queue.
    async fn queue_unseat(&self, room: Uuid, requeue: bool) -> Result<(), StoreError> {
        let _ = (room, requeue);
        Err(keeps_no_players())
    }
    /// Forgets the rows of players seated before `before` (Unix ms) at tables
    /// whose game started, and those tables: how many rows.
    async fn queue_forget(&self, before: u64) -> Result<u64, StoreError> {
        let _ = before;
        Err(keeps_no_players())
    }
    /// Makes a party of code `code` led by `leader` (named `name`), its first
    /// member: a code taken, or a leader already in a party, is a
    /// [`StoreError::Conflict`].
    async fn party_create(
        &self,
        code: &str,
        leader: Uuid,
        name: &str,
        at: u64,
    ) -> Result<(), StoreError> {
        let _ = (code, leader, name, at);
        Err(keeps_no_players())
    }
    /// Adds `player` (named `name`) to party `code` unless it has `most` members:
    /// a player already in a party is a [`StoreError::Conflict`].
    async fn party_join(
        &self,
        code: &str,
        player: Uuid,
        name: &str,
        at: u64,
        most: u8,
    ) -> Result<PartyJoin, StoreError> {
        let _ = (code, player, name, at, most);
        Err(keeps_no_players())
    }
    /// The party `player` is in, if any.
    async fn party_of(&self, player: Uuid) -> Result<Option<PartyRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Takes `player` out of their party (a leader ends it): false when they were
    /// in none.
    async fn party_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
}

const COLUMNS: &str = "player_id, ticket, name, seats, rated, bots_ok, rating, since, \
                       room_id, seat, seat_token, seated_at";

fn queued(row: &AnyRow) -> Result<QueueRow, StoreError> {
    let seated = match row.try_get::<Option<String>, _>("room_id")? {
        None => None,
        Some(room) => Some(QueueSeat {
            room_id: Uuid::parse_str(&room).map_err(super::games::corrupt)?,
            seat: u8::try_from(row.try_get::<i64, _>("seat")?).unwrap_or(u8::MAX),
            token: row
                .try_get::<Option<String>, _>("seat_token")?
                .unwrap_or_default(),
            at: opt_millis(row, "seated_at")?.unwrap_or(0),
        }),
    };
    Ok(QueueRow {
        player_id: uuid(row, "player_id")?,
        ticket: uuid(row, "ticket")?,
        name: row.try_get("name")?,
        seats: u8::try_from(row.try_get::<i64, _>("seats")?).unwrap_or(0),
        rated: row.try_get::<i64, _>("rated")? != 0,
        bots_ok: row.try_get::<i64, _>("bots_ok")? != 0,
        rating: i32::try_from(row.try_get::<i64, _>("rating")?).unwrap_or(0),
        since: millis(row, "since")?,
        seated,
    })
}

/// Adds `player` (named `name`) to party `code`, in `tx`.
async fn add_member(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    code: &str,
    player: Uuid,
    name: &str,
    at: u64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO queue_party_members (player_id, code, name, joined_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(player.to_string())
    .bind(code)
    .bind(name)
    .bind(to_i64(at))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[async_trait]
impl QueueStore for SqlStore {
    async fn queue_join(&self, rows: &[QueueRow]) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        for r in rows {
            // A seat given earlier at a table whose game started is forgotten as
            // its player queues again. (A write first: SQLite then takes the
            // writer's lock at once, waiting for it, where a read first would
            // fail to upgrade when another join wrote meanwhile.)
            sqlx::query(
                "DELETE FROM queue_tickets WHERE player_id = $1 AND room_id IS NOT NULL \
                 AND room_id NOT IN (SELECT room_id FROM queue_tables WHERE started = 0)",
            )
            .bind(r.player_id.to_string())
            .execute(&mut *tx)
            .await?;
            // A seat left is at a table still gathering: a seat in a room's lobby.
            let gathering = sqlx::query(
                "SELECT player_id FROM queue_tickets WHERE player_id = $1 AND room_id IS NOT NULL",
            )
            .bind(r.player_id.to_string())
            .fetch_optional(&mut *tx)
            .await?;
            if gathering.is_some() {
                return Ok(false);
            }
            sqlx::query(&format!(
                "INSERT INTO queue_tickets ({COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, NULL, NULL)"
            ))
            .bind(r.player_id.to_string())
            .bind(r.ticket.to_string())
            .bind(&r.name)
            .bind(i64::from(r.seats))
            .bind(i64::from(r.rated))
            .bind(i64::from(r.bots_ok))
            .bind(i64::from(r.rating))
            .bind(to_i64(r.since))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn queue_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM queue_tickets WHERE player_id = $1")
            .bind(player.to_string())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn queued(&self, player: Uuid) -> Result<Option<QueueRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM queue_tickets WHERE player_id = $1"
        ))
        .bind(player.to_string())
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| queued(&r)).transpose()
    }

    async fn queue_waiting(&self) -> Result<Vec<QueueRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM queue_tickets WHERE room_id IS NULL \
             ORDER BY since, ticket, player_id"
        ))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(queued).collect()
    }

    async fn queue_seat(
        &self,
        table: &QueueTable,
        seats: &[(Uuid, QueueSeat)],
    ) -> Result<bool, StoreError> {
        // In the players' order, so that two formings sharing players lock their
        // rows in one order and do not deadlock.
        let mut ordered: Vec<&(Uuid, QueueSeat)> = seats.iter().collect();
        ordered.sort_by_key(|(player, _)| *player);
        let mut tx = self.pool().begin().await?;
        sqlx::query(
            "INSERT INTO queue_tables (room_id, host_token, seats, rated, formed_at, started) \
             VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (room_id) DO NOTHING",
        )
        .bind(table.room_id.to_string())
        .bind(&table.host_token)
        .bind(i64::from(table.seats))
        .bind(i64::from(table.rated))
        .bind(to_i64(table.formed_at))
        .execute(&mut *tx)
        .await?;
        for (player, at) in ordered {
            let done = sqlx::query(
                "UPDATE queue_tickets SET room_id = $2, seat = $3, seat_token = $4, \
                 seated_at = $5 WHERE player_id = $1 AND room_id IS NULL",
            )
            .bind(player.to_string())
            .bind(at.room_id.to_string())
            .bind(i64::from(at.seat))
            .bind(&at.token)
            .bind(to_i64(at.at))
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() != 1 {
                // Left, or seated elsewhere meanwhile: nobody of this table is.
                tx.rollback().await?;
                return Ok(false);
            }
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn queue_pending(&self) -> Result<Vec<PendingTable>, StoreError> {
        let tables = sqlx::query(
            "SELECT room_id, host_token, seats, rated, formed_at FROM queue_tables \
             WHERE started = 0 ORDER BY formed_at, room_id",
        )
        .fetch_all(self.pool())
        .await?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM queue_tickets WHERE room_id IN \
             (SELECT room_id FROM queue_tables WHERE started = 0) ORDER BY seat"
        ))
        .fetch_all(self.pool())
        .await?;
        let mut players: Vec<QueueRow> = rows.iter().map(queued).collect::<Result<_, _>>()?;
        tables
            .iter()
            .map(|t| {
                let room_id = uuid(t, "room_id")?;
                let (mine, rest) = players
                    .drain(..)
                    .partition(|p| p.seated.as_ref().is_some_and(|s| s.room_id == room_id));
                players = rest;
                Ok(PendingTable {
                    table: QueueTable {
                        room_id,
                        host_token: t.try_get("host_token")?,
                        seats: u8::try_from(t.try_get::<i64, _>("seats")?).unwrap_or(0),
                        rated: t.try_get::<i64, _>("rated")? != 0,
                        formed_at: millis(t, "formed_at")?,
                    },
                    players: mine,
                })
            })
            .collect()
    }

    async fn queue_drop(&self, player: Uuid, room: Uuid) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM queue_tickets WHERE player_id = $1 AND room_id = $2")
            .bind(player.to_string())
            .bind(room.to_string())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn queue_started(&self, room: Uuid) -> Result<(), StoreError> {
        sqlx::query("UPDATE queue_tables SET started = 1 WHERE room_id = $1")
            .bind(room.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    async fn queue_unseat(&self, room: Uuid, requeue: bool) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        let room = room.to_string();
        if requeue {
            sqlx::query(
                "UPDATE queue_tickets SET room_id = NULL, seat = NULL, seat_token = NULL, \
                 seated_at = NULL WHERE room_id = $1",
            )
            .bind(&room)
            .execute(&mut *tx)
            .await?;
        } else {
            sqlx::query("DELETE FROM queue_tickets WHERE room_id = $1")
                .bind(&room)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM queue_tables WHERE room_id = $1")
            .bind(&room)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn queue_forget(&self, before: u64) -> Result<u64, StoreError> {
        let mut tx = self.pool().begin().await?;
        let done = sqlx::query(
            "DELETE FROM queue_tickets WHERE room_id IS NOT NULL AND seated_at < $1 \
             AND room_id NOT IN (SELECT room_id FROM queue_tables WHERE started = 0)",
        )
        .bind(to_i64(before))
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM queue_tables WHERE started = 1 AND formed_at < $1")
            .bind(to_i64(before))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    async fn party_create(
        &self,
        code: &str,
        leader: Uuid,
        name: &str,
        at: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("INSERT INTO queue_parties (code, leader, created_at) VALUES ($1, $2, $3)")
            .bind(code)
            .bind(leader.to_string())
            .bind(to_i64(at))
            .execute(&mut *tx)
            .await?;
        add_member(&mut tx, code, leader, name, at).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn party_join(
        &self,
        code: &str,
        player: Uuid,
        name: &str,
        at: u64,
        most: u8,
    ) -> Result<PartyJoin, StoreError> {
        let mut tx = self.pool().begin().await?;
        // Writing the party's row first (changing nothing) holds it until the end
        // of the transaction: joins of one party wait for each other, so that the
        // count below is not read by two at once (PostgreSQL's row lock; SQLite
        // has one writer anyway). No row: no such party.
        let exists =
            sqlx::query("UPDATE queue_parties SET created_at = created_at WHERE code = $1")
                .bind(code)
                .execute(&mut *tx)
                .await?;
        if exists.rows_affected() == 0 {
            return Ok(PartyJoin::NotFound);
        }
        let count: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM queue_party_members WHERE code = $1")
                .bind(code)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        if count >= i64::from(most) {
            return Ok(PartyJoin::Full);
        }
        add_member(&mut tx, code, player, name, at).await?;
        tx.commit().await?;
        Ok(PartyJoin::Joined)
    }

    async fn party_of(&self, player: Uuid) -> Result<Option<PartyRow>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT p.code, p.leader FROM queue_party_members m \
             JOIN queue_parties p ON p.code = m.code WHERE m.player_id = $1",
        )
        .bind(player.to_string())
        .fetch_optional(self.pool())
        .await?
        else {
            return Ok(None);
        };
        let code: String = row.try_get("code")?;
        let leader = uuid(&row, "leader")?;
        let rows = sqlx::query(
            "SELECT player_id, name FROM queue_party_members WHERE code = $1 \
             ORDER BY joined_at, player_id",
        )
        .bind(&code)
        .fetch_all(self.pool())
        .await?;
        let mut members = rows
            .iter()
            .map(|r| Ok((uuid(r, "player_id")?, r.try_get::<String, _>("name")?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        // The leader first.
        members.sort_by_key(|(id, _)| *id != leader);
        Ok(Some(PartyRow {
            code,
            leader,
            members,
        }))
    }

    async fn party_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        // A leader who leaves ends the party for everyone. (Writes only, the first
        // at once: see `queue_join`.)
        sqlx::query(
            "DELETE FROM queue_party_members WHERE code IN \
             (SELECT code FROM queue_parties WHERE leader = $1)",
        )
        .bind(player.to_string())
        .execute(&mut *tx)
        .await?;
        let led = sqlx::query("DELETE FROM queue_parties WHERE leader = $1")
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        let done = led
            || sqlx::query("DELETE FROM queue_party_members WHERE player_id = $1")
                .bind(player.to_string())
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
        tx.commit().await?;
        Ok(done)
    }
}
