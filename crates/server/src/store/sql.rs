//! The SQL store: one implementation for PostgreSQL and SQLite through sqlx's `Any`
//! driver, with portable queries and the migrations in `migrations/`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use catan_protocol::BotKind;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Row};
use uuid::Uuid;

use super::games::{GAME_COLUMNS, corrupt, games_with_players, records, seat_of, to_u64};
use super::group_commit::to_i64;
use super::{
    ActionRecord, CeremonyKind, CeremonyRow, Claim, Fence, Finish, GameQuery, GameRecord,
    GameStatus, LeaderRow, LobbyRecord, ModerationRow, NewGame, PasskeyRow, PlayerRow, PlayerStats,
    SanctionRow, SessionRow, Store, StoreError, StoredOptions,
};

/// A store backed by a connection pool.
#[derive(Debug, Clone)]
pub struct SqlStore {
    /// The pool; `Any` so one code path serves both databases.
    pool: AnyPool,
    /// Writes the action log with group commit (one transaction per batch).
    writer: super::group_commit::Writer,
    /// In a cluster (PostgreSQL only): the leases this instance holds; every write of
    /// a room is fenced by its epoch (docs/cluster.md).
    fence: Option<Arc<Fence>>,
}

/// The migrations, embedded at compile time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

impl SqlStore {
    /// Connects to `url` (`postgres://...`, `sqlite://FILE` or `sqlite::memory:`) and
    /// applies pending migrations. A missing SQLite file is created.
    ///
    /// # Errors
    /// If the database cannot be reached or a migration fails.
    pub async fn connect(url: &str) -> Result<SqlStore, StoreError> {
        SqlStore::connect_with(url, None).await
    }

    /// [`SqlStore::connect`] for an instance of a cluster when `fence` is given: each
    /// write of a room is made only while the room's lease names this instance under
    /// the epoch the fence holds, else it fails with [`StoreError::Fenced`]; a game
    /// created here takes its lease (epoch 1) in the same transaction.
    ///
    /// # Errors
    /// As [`SqlStore::connect`]; a fence on SQLite is refused (a cluster needs
    /// PostgreSQL).
    pub async fn connect_with(
        url: &str,
        fence: Option<Arc<Fence>>,
    ) -> Result<SqlStore, StoreError> {
        sqlx::any::install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        let memory = url.contains(":memory:");
        let url = if sqlite && !memory && !url.contains('?') {
            format!("{url}?mode=rwc")
        } else {
            url.to_owned()
        };
        let mut options = AnyPoolOptions::new()
            .max_connections(if memory {
                1
            } else if sqlite {
                4
            } else {
                8
            })
            .acquire_timeout(Duration::from_secs(5));
        if memory {
            // Every connection to :memory: is a new database: keep the one forever.
            options = options.idle_timeout(None).max_lifetime(None);
        }
        if sqlite {
            options = options.after_connect(|conn, _| {
                Box::pin(async move {
                    sqlx::query("PRAGMA journal_mode = WAL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA synchronous = NORMAL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA busy_timeout = 5000")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA foreign_keys = ON")
                        .execute(&mut *conn)
                        .await?;
                    // The group-commit writer checkpoints in the background, but under
                    // steady writes the log never empties, so SQLite's own checkpoint
                    // (which stalls the writer for an fsync) still runs when the log
                    // reaches this many pages (4 KiB each: up to ~160 MiB of WAL file).
                    sqlx::query("PRAGMA wal_autocheckpoint = 40000")
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            });
        }
        if sqlite && fence.is_some() {
            return Err(StoreError::Database(Box::new(sqlx::Error::Configuration(
                "several instances (--cluster-address) need PostgreSQL; SQLite serves one".into(),
            ))));
        }
        let pool = options.connect(&url).await?;
        MIGRATOR.run(&pool).await?;
        let dialect = if sqlite {
            super::group_commit::Dialect::Sqlite
        } else {
            super::group_commit::Dialect::Postgres
        };
        let keep = if memory {
            super::group_commit::Keep::Borrowed
        } else {
            super::group_commit::Keep::Held
        };
        let writer = super::group_commit::Writer::spawn(
            pool.clone(),
            dialect,
            keep,
            fence.clone(),
            super::single::sqlite_file(&url),
        );
        Ok(SqlStore {
            pool,
            writer,
            fence,
        })
    }

    /// The leases this instance holds, in a cluster (its writes are fenced by them).
    pub(super) fn fence(&self) -> Option<&Arc<Fence>> {
        self.fence.as_ref()
    }

    /// The connection pool (the cluster's own statements use it).
    #[must_use]
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The condition, for a statement on games whose `$1` is the room's id, `$owner`
    /// and `$epoch` the fence's: the lease names this instance under that epoch.
    pub(super) fn lease_held(owner: usize, epoch: usize) -> String {
        format!(
            "EXISTS (SELECT 1 FROM room_leases WHERE room_id = $1 AND owner = ${owner} \
             AND epoch = ${epoch} FOR SHARE)"
        )
    }

    /// Ends this instance's lease of `game` in `tx` (its game is over) when fenced,
    /// after checking that the statement that ended it wrote (`rows`): none written
    /// means the room is another instance's now.
    async fn end_lease(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        game: &str,
        rows: u64,
    ) -> Result<(), StoreError> {
        if self.fence.is_none() {
            return Ok(());
        }
        if rows == 0 {
            return Err(StoreError::Fenced(format!(
                "room {game} is owned by another instance now"
            )));
        }
        sqlx::query("DELETE FROM room_leases WHERE room_id = $1")
            .bind(game)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Closes the store: every later call fails with [`StoreError::Unavailable`], as
    /// if the database had gone away. Connections in use are closed once given back.
    pub fn close(&self) {
        // Closing marks the pool closed at once; the returned future would only wait
        // for connections in use, and the writer holds one until its next batch.
        drop(self.pool.close());
    }
}

#[async_trait]
impl Store for SqlStore {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let id = game.id.to_string();
        sqlx::query(
            "INSERT INTO games (id, options, seed, seed_salt, seed_commitment, host_token_hash, \
             status, created_at, started_at, listed) \
             VALUES ($1, $2, $3, $4, $5, $6, 'playing', $7, $8, $9)",
        )
        .bind(&id)
        .bind(serde_json::to_string(&StoredOptions::from(game.options)).map_err(corrupt)?)
        .bind(game.seed.to_string())
        .bind(&game.seed_salt)
        .bind(&game.seed_commitment)
        .bind(&game.host_token_hash)
        .bind(to_i64(game.created_at))
        .bind(to_i64(game.started_at))
        .bind(i64::from(game.options.listed))
        .execute(&mut *tx)
        .await?;
        // The room is no longer gathering players: its lobby row goes with the start.
        sqlx::query("DELETE FROM lobby_rooms WHERE id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        for p in &game.players {
            let bot = p.bot.map(BotKind::name);
            sqlx::query(
                "INSERT INTO game_players (game_id, seat, name, bot, token_hash, player_id) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&id)
            .bind(i64::from(p.seat.0))
            .bind(&p.name)
            .bind(bot)
            .bind(&p.token_hash)
            .bind(p.player_id.map(|id| id.to_string()))
            .execute(&mut *tx)
            .await?;
        }
        // The room's lease: taken when the room was created here (kept, renewed), or
        // now (epoch 1). Another instance's lease means the room is not ours.
        let epoch = match &self.fence {
            None => None,
            Some(fence) => {
                let row = sqlx::query(
                    "INSERT INTO room_leases (room_id, owner, epoch, expires_at) \
                     VALUES ($1, $2, 1, $3) ON CONFLICT (room_id) DO UPDATE \
                     SET expires_at = excluded.expires_at \
                     WHERE room_leases.owner = excluded.owner RETURNING epoch",
                )
                .bind(&id)
                .bind(fence.owner())
                .bind(fence.expiry(game.started_at))
                .fetch_optional(&mut *tx)
                .await?;
                let Some(row) = row else {
                    return Err(StoreError::Fenced(format!(
                        "room {id} is owned by another instance"
                    )));
                };
                Some(row.try_get::<i64, _>("epoch")?)
            }
        };
        tx.commit().await?;
        if let (Some(fence), Some(epoch)) = (&self.fence, epoch) {
            fence.hold(game.id, epoch);
        }
        Ok(())
    }

    async fn append_action(&self, game: Uuid, a: &ActionRecord) -> Result<(), StoreError> {
        self.writer.append(game, *a).await
    }

    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let id = game.to_string();
        let fenced = self.fence.as_ref().map_or(String::new(), |_| {
            format!(" AND {}", SqlStore::lease_held(5, 6))
        });
        // Only a game being played: a result stored already (a retry after a lost
        // answer, or the instance that restored the room) is not stored twice, nor
        // its ratings updated twice.
        let sql = format!(
            "UPDATE games SET status = 'finished', finished_at = $2, winner = $3, final_scores = $4 \
             WHERE id = $1 AND status = 'playing'{fenced}"
        );
        let mut update = sqlx::query(&sql)
            .bind(&id)
            .bind(to_i64(finish.finished_at))
            .bind(finish.winner.map(|w| i64::from(w.0)))
            .bind(serde_json::to_string(&finish.scores).map_err(corrupt)?);
        if let Some(f) = &self.fence {
            update = update.bind(f.owner().to_owned()).bind(f.epoch(game));
        }
        let rows = update.execute(&mut *tx).await?.rows_affected();
        if rows == 0 {
            let status = sqlx::query("SELECT status FROM games WHERE id = $1")
                .bind(&id)
                .fetch_optional(&mut *tx)
                .await?;
            if let Some(status) = status
                && status.try_get::<String, _>("status")? != GameStatus::Playing.as_str()
            {
                tx.rollback().await?;
                if let Some(f) = &self.fence {
                    f.release(game);
                }
                return Ok(());
            }
        }
        self.end_lease(&mut tx, &id, rows).await?;
        if let (Some(places), 1) = (&finish.rated, rows) {
            self.rate_in(&mut tx, &id, places, finish.winner).await?;
        }
        for s in &finish.scores {
            sqlx::query(
                "UPDATE game_players SET final_vp = $3, vp_cards = $4 WHERE game_id = $1 AND seat = $2",
            )
            .bind(&id)
            .bind(i64::from(s.seat.0))
            .bind(i64::from(s.points))
            .bind(i64::from(s.vp_cards))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if let Some(f) = &self.fence {
            f.release(game);
        }
        Ok(())
    }

    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        let Some(f) = &self.fence else {
            sqlx::query(
                "UPDATE games SET status = 'abandoned' WHERE id = $1 AND status = 'playing'",
            )
            .bind(game.to_string())
            .execute(&self.pool)
            .await?;
            return Ok(());
        };
        let id = game.to_string();
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(&format!(
            "UPDATE games SET status = 'abandoned' WHERE id = $1 AND status = 'playing' AND {}",
            SqlStore::lease_held(2, 3)
        ))
        .bind(&id)
        .bind(f.owner().to_owned())
        .bind(f.epoch(game))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        self.end_lease(&mut tx, &id, rows).await?;
        tx.commit().await?;
        f.release(game);
        Ok(())
    }

    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        // Fenced, a reservation of a room another instance owns now is not written
        // (nor reported: that room's next action write is refused as fenced).
        let fenced = self.fence.as_ref().map_or(String::new(), |_| {
            format!(" AND {}", SqlStore::lease_held(3, 4))
        });
        let sql = format!(
            "UPDATE games SET seq_reserved = $2 WHERE id = $1 \
             AND (seq_reserved IS NULL OR seq_reserved < $2){fenced}"
        );
        let mut update = sqlx::query(&sql).bind(game.to_string()).bind(to_i64(up_to));
        if let Some(f) = &self.fence {
            update = update.bind(f.owner().to_owned()).bind(f.epoch(game));
        }
        update.execute(&self.pool).await?;
        Ok(())
    }

    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let sql = games_with_players(
            &format!(
                "SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing' AND slept_seq IS NULL"
            ),
            "g.created_at, g.id",
        );
        records(&sqlx::query(&sql).fetch_all(&self.pool).await?)
    }

    /// Only listed games: an unlisted (private) room's game is reachable by its id
    /// alone.
    async fn finished_games(&self, q: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        let (filter, by) = match (q.player_id, &q.player) {
            (Some(id), _) => (
                " AND id IN (SELECT game_id FROM game_players WHERE player_id = $3)",
                Some(id.to_string()),
            ),
            (None, Some(name)) => (
                " AND id IN (SELECT game_id FROM game_players WHERE name = $3)",
                Some(name.clone()),
            ),
            (None, None) => ("", None),
        };
        let games = format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'finished' AND listed = 1{filter} \
             ORDER BY finished_at DESC, id LIMIT $1 OFFSET $2"
        );
        let sql = games_with_players(&games, "g.finished_at DESC, g.id");
        let mut query = sqlx::query(&sql)
            .bind(to_i64(q.limit))
            .bind(to_i64(q.offset));
        if let Some(by) = by {
            query = query.bind(by);
        }
        records(&query.fetch_all(&self.pool).await?)
    }

    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        let games = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
        let rows = sqlx::query(&games_with_players(&games, "g.id"))
            .bind(id.to_string())
            .fetch_all(&self.pool)
            .await?;
        records(&rows)?
            .pop()
            .ok_or_else(|| StoreError::NotFound(format!("game {id}")))
    }

    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, room_seq, seat, action, created_at, stand_in FROM game_actions \
             WHERE game_id = $1 ORDER BY seq",
        )
        .bind(id.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let action: String = r.try_get("action")?;
                Ok(ActionRecord {
                    seq: to_u64(r.try_get("seq")?),
                    room_seq: to_u64(r.try_get("room_seq")?),
                    seat: r
                        .try_get::<Option<i64>, _>("seat")?
                        .map(seat_of)
                        .transpose()?,
                    action: serde_json::from_str(&action).map_err(corrupt)?,
                    at: to_u64(r.try_get("created_at")?),
                    stand_in: r.try_get::<i64, _>("stand_in")? != 0,
                })
            })
            .collect()
    }

    async fn health(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn save_lobby(&self, lobby: &LobbyRecord) -> Result<(), StoreError> {
        self.put_lobby(lobby).await
    }

    async fn drop_lobby(&self, id: Uuid) -> Result<(), StoreError> {
        self.delete_lobby(id).await
    }

    async fn lobbies(&self) -> Result<Vec<LobbyRecord>, StoreError> {
        self.all_lobbies().await
    }
    async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        self.insert_player(player).await
    }
    async fn create_session(
        &self,
        session: &SessionRow,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        self.insert_session(session, token_hash).await
    }
    async fn session(
        &self,
        token_hash: &str,
        now: u64,
    ) -> Result<Option<(SessionRow, PlayerRow)>, StoreError> {
        self.select_session(token_hash, now).await
    }
    async fn player(&self, id: Uuid) -> Result<Option<PlayerRow>, StoreError> {
        self.select_player(id).await
    }
    async fn account(&self, name_key: &str) -> Result<Option<PlayerRow>, StoreError> {
        self.select_account(name_key).await
    }
    async fn claim(
        &self,
        id: Uuid,
        name: &str,
        name_key: &str,
        password_hash: &str,
        at: u64,
    ) -> Result<Claim, StoreError> {
        self.update_claim(id, name, name_key, password_hash, at)
            .await
    }
    async fn rename_player(
        &self,
        id: Uuid,
        name: &str,
        name_key: Option<&str>,
    ) -> Result<(), StoreError> {
        self.update_name(id, name, name_key).await
    }
    async fn sessions(&self, player: Uuid, now: u64) -> Result<Vec<SessionRow>, StoreError> {
        self.select_sessions(player, now).await
    }
    async fn end_session(&self, player: Uuid, session: Uuid) -> Result<bool, StoreError> {
        self.delete_session(player, session).await
    }
    async fn end_sessions(&self, player: Uuid) -> Result<u64, StoreError> {
        self.delete_sessions(player).await
    }
    async fn delete_player(&self, id: Uuid, at: u64) -> Result<(), StoreError> {
        self.erase_player(id, at).await
    }
    async fn add_passkey(&self, passkey: &PasskeyRow) -> Result<bool, StoreError> {
        self.insert_passkey(passkey).await
    }
    async fn passkeys(&self, player: Uuid) -> Result<Vec<PasskeyRow>, StoreError> {
        self.select_passkeys(player).await
    }
    async fn passkey_used(&self, id: &str, credential: &str, at: u64) -> Result<(), StoreError> {
        self.update_passkey(id, credential, at).await
    }
    async fn delete_passkey(&self, player: Uuid, id: &str) -> Result<bool, StoreError> {
        self.remove_passkey(player, id).await
    }
    async fn start_ceremony(&self, ceremony: &CeremonyRow, now: u64) -> Result<(), StoreError> {
        self.insert_ceremony(ceremony, now).await
    }
    async fn take_ceremony(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        now: u64,
    ) -> Result<Option<CeremonyRow>, StoreError> {
        self.remove_ceremony(id, kind, now).await
    }
    async fn player_stats(&self, id: Uuid) -> Result<Option<PlayerStats>, StoreError> {
        self.select_player_stats(id).await
    }
    async fn leaderboard(
        &self,
        offset: u64,
        limit: u64,
        provisional: bool,
    ) -> Result<(Vec<(u64, LeaderRow)>, u64), StoreError> {
        self.select_leaderboard(offset, limit, provisional).await
    }
    async fn find_players(
        &self,
        name: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<PlayerRow>, u64), StoreError> {
        self.search_players(name, offset, limit).await
    }
    async fn sanctions(
        &self,
        player: Option<Uuid>,
        now: u64,
    ) -> Result<Vec<SanctionRow>, StoreError> {
        self.select_sanctions(player, now).await
    }
    async fn moderate(&self, entry: &ModerationRow) -> Result<bool, StoreError> {
        self.insert_moderation(entry).await
    }
    async fn moderation_log(&self, player: Uuid) -> Result<Vec<ModerationRow>, StoreError> {
        self.select_moderation_log(player).await
    }
}
