//! The SQLite file's side of group commit: the writer's own thread and connection
//! ([`SqliteFile`]) and the background checkpoint of the write-ahead log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::AnyPool;
use tokio::sync::mpsc;

use super::{Append, MAX_BATCH, Written, answer_one, answer_whole, to_i64};
use crate::store::StoreError;

/// How often the WAL of an SQLite database is checkpointed in the background, when
/// something was written since the last time. Often, so that each checkpoint has
/// little to copy and its fsync little to flush: the writer's commits stall behind
/// a long fsync of the file system (ext4). At the latency load (1,000 rooms, about
/// 5,000 actions a second) every 250 ms left 0.3% of the appends over 10 ms and
/// every 25 ms none, at no measurable cost in CPU at saturation
/// (bench/results-2026-12.md, "Where the latency load's tail is").
const CHECKPOINT_EVERY: Duration = Duration::from_millis(25);

/// Copies SQLite's write-ahead log back into the database, on a connection of its own,
/// until the writer is gone. A checkpoint ends with an fsync of the database file;
/// done by the writer itself (SQLite's automatic checkpoint, every 1,000 pages) it
/// stalled every room's next action for that long. A passive checkpoint never blocks
/// the writer; the automatic one stays as a backstop at a larger size (`sql.rs`).
pub(super) async fn checkpoint(pool: AnyPool, writer: mpsc::WeakSender<Append>, written: Written) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut checkpointed = written.count();
    loop {
        tick.tick().await;
        if writer.upgrade().is_none() {
            return;
        }
        let now = written.count();
        if now == checkpointed {
            continue;
        }
        checkpointed = now;
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            tracing::debug!(error = %e, "background checkpoint failed");
        }
    }
}

/// An SQLite file's action log, written by a thread of its own on a connection of
/// its own, with a prepared statement run once a row and a batch in one
/// transaction. The thread takes the appends from the queue itself and answers each
/// room, so an action crosses between threads only on its way in and its answer's
/// way out. Through sqlx, the batch went as one JSON array that SQLite took apart
/// with `json_each` and `json_extract`; on its own connection SQLite spends about a
/// third less a row (measured outside the server: 4.7-6.1 against 7.3-8.5 us), and
/// the server less CPU an action (bench/results-2026-12.md, "The SQLite writer").
/// One thread, not tokio's blocking pool: SQLite allocates with the C library's
/// allocator, whose memory per thread grew with each pool thread that wrote. The
/// same rows are stored (e2e test
/// `the_sqlite_file_writer_stores_the_rows_the_previous_statement_stored`).
pub(super) struct SqliteFile {
    /// The store's pool: once it is closed, nothing more is written.
    pub(super) pool: AnyPool,
    /// The database file.
    pub(super) path: PathBuf,
    /// Counts the batches committed, for the background checkpoint.
    pub(super) written: Written,
}

/// The one statement the writer runs on an SQLite file.
const SQLITE_INSERT: &str = "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, \
     created_at, stand_in) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

impl SqliteFile {
    /// Writes what comes from `rx` until every [`Writer`] is gone: whatever waits is
    /// one batch (at most [`MAX_BATCH`]), committed before its rooms are answered.
    /// The connection is opened at the first batch (the pool made the file).
    pub(super) fn run(self, mut rx: mpsc::Receiver<Append>) {
        let mut conn = None;
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while let Some(first) = rx.blocking_recv() {
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(a) => batch.push(a),
                    Err(_) => break,
                }
            }
            let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.write(&mut conn, &mut batch);
            }));
            if written.is_err() {
                // Its rooms hear that the writer stopped (their answers dropped); the
                // next batch opens a fresh connection.
                conn = None;
                batch.clear();
            }
        }
    }

    /// Writes `batch` and answers each of its appends, leaving it empty.
    fn write(&self, conn: &mut Option<rusqlite::Connection>, batch: &mut Vec<Append>) {
        // As in `run`: an append whose room stopped waiting is not written.
        batch.retain(|a: &Append| !a.reply.is_closed());
        if batch.is_empty() {
            return;
        }
        if self.pool.is_closed() {
            // The store was closed: nothing more is written.
            *conn = None;
            for a in batch.drain(..) {
                let _ = a.reply.send(Err(sqlx::Error::PoolClosed.into()));
            }
            return;
        }
        let c = match conn {
            Some(c) => c,
            None => match open_sqlite(&self.path) {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    // Tried again at the next batch.
                    let why = format!("could not open the SQLite file: {e}");
                    for a in batch.drain(..) {
                        let _ = a
                            .reply
                            .send(Err(StoreError::Unavailable(why.clone().into())));
                    }
                    return;
                }
            },
        };
        let whole = insert_rows(c, batch);
        if let Some(e) = answer_whole(batch, whole, |(), _| Ok(()), &self.written) {
            tracing::debug!(error = %e, n = batch.len(), "batch failed; writing one by one");
            for a in batch.drain(..) {
                let answer = insert_rows(c, std::slice::from_ref(&a));
                answer_one(a, answer, &self.written);
            }
        }
    }
}

/// The writer's connection to an SQLite file, set as the pool's connections are
/// (`sql.rs`); the file is in WAL mode already (the pool made it so).
/// Never creates the file: the pool made it, and a file the pool does not use must
/// not receive the log.
fn open_sqlite(path: &Path) -> rusqlite::Result<rusqlite::Connection> {
    use rusqlite::OpenFlags;
    let conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "wal_autocheckpoint", 40_000)?;
    Ok(conn)
}

/// Inserts `rows` in one transaction (rolled back if one fails).
fn insert_rows(conn: &rusqlite::Connection, rows: &[Append]) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    {
        let mut insert = tx.prepare_cached(SQLITE_INSERT)?;
        let mut id = [0u8; uuid::fmt::Hyphenated::LENGTH];
        for Append {
            game, record: r, ..
        } in rows
        {
            let action =
                serde_json::to_string(&r.action).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            insert.execute(rusqlite::params![
                &*game.hyphenated().encode_lower(&mut id),
                to_i64(r.seq),
                to_i64(r.room_seq),
                r.seat.map(|s| i64::from(s.0)),
                action,
                to_i64(r.at),
                i64::from(r.stand_in),
            ])?;
        }
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::any::AnyPoolOptions;

    /// The database file's length: what checkpoints have copied out of the log.
    fn db_len(path: &Path) -> u64 {
        std::fs::metadata(path).expect("database file").len()
    }

    /// The background checkpoint copies the log into the database only once the
    /// writer has committed something since its last turn: an idle server does
    /// nothing. One pool connection, so that a query after the ticks waits for any
    /// checkpoint issued before it. Real time (a few of the checkpoint's ticks):
    /// paused time would run out the pool's timeouts while SQLite's thread works.
    #[tokio::test]
    async fn the_background_checkpoint_runs_only_after_the_writer_wrote() {
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("log.db");
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await
            .expect("pool");
        for sql in [
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE t (x TEXT)",
            "PRAGMA wal_checkpoint(TRUNCATE)",
        ] {
            sqlx::query(sql).execute(&pool).await.expect(sql);
        }
        // About a hundred pages, in the log only (SQLite's own checkpoint waits for
        // a thousand).
        sqlx::query(
            "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
             WHERE i < 200) SELECT hex(randomblob(1000)) FROM n",
        )
        .execute(&pool)
        .await
        .expect("rows");
        let before = db_len(&path);

        let (tx, _rx) = mpsc::channel::<Append>(1);
        let written = Written::default();
        tokio::spawn(checkpoint(pool.clone(), tx.downgrade(), written.clone()));
        tokio::time::sleep(CHECKPOINT_EVERY * 8).await;
        sqlx::query("SELECT 1")
            .execute(&pool)
            .await
            .expect("select");
        assert_eq!(db_len(&path), before, "nothing written: no checkpoint");

        written.batch();
        // The next tick checkpoints; a busy machine may take a while to get there.
        for _ in 0..200 {
            tokio::time::sleep(CHECKPOINT_EVERY).await;
            sqlx::query("SELECT 1")
                .execute(&pool)
                .await
                .expect("select");
            if db_len(&path) > before {
                break;
            }
        }
        assert!(
            db_len(&path) > before + 50 * 4096,
            "written: the log was copied into the database ({} -> {} bytes)",
            before,
            db_len(&path)
        );
    }
}
