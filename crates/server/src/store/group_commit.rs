//! Group commit for the action log. One writer task per store takes every append
//! pending from every room, writes them in one transaction (one INSERT through the
//! pool; on an SQLite file, a prepared INSERT a row on a connection of the
//! writer's own: [`SqliteFile`]),
//! and answers each room through its oneshot only once that transaction committed:
//! an action is never acknowledged before it is stored, and a busy server pays for
//! one commit per batch instead of one per action. In a cluster (a [`Fence`]) each
//! row is inserted only if this instance still holds its room's lease under the
//! epoch it knows, checked in the same statement; the others are refused as fenced.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool, Row as _};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{ActionRecord, Fence, StoreError};

/// Most appends written in one transaction.
const MAX_BATCH: usize = 512;
/// Appends waiting for the writer before rooms wait to queue theirs.
const QUEUE: usize = 8192;

/// One append waiting to be written.
pub(super) struct Append {
    /// The game's id.
    game: Uuid,
    /// The action.
    record: ActionRecord,
    /// Answered once the append is committed (or failed).
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// The way into a store's writer task; the task ends when every clone is dropped.
#[derive(Debug, Clone)]
pub(super) struct Writer {
    /// Appends to the writer task.
    tx: mpsc::Sender<Append>,
}

/// Whether the writer task keeps a connection for itself (one of the pool's, or on
/// an SQLite file one of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// It keeps one (see [`Writer`]).
    Held,
    /// It borrows one per batch: a pool of one connection, such as an in-memory
    /// SQLite database, must not be held.
    Borrowed,
}

impl Writer {
    /// Starts the writer task of `pool`, holding or borrowing its connection.
    pub(super) fn spawn(
        pool: AnyPool,
        dialect: Dialect,
        keep: Keep,
        fence: Option<Arc<Fence>>,
        file: Option<PathBuf>,
    ) -> Writer {
        let hold = keep == Keep::Held;
        let (tx, rx) = mpsc::channel(QUEUE);
        let written = Written::default();
        if dialect == Dialect::Sqlite && hold {
            tokio::spawn(checkpoint(pool.clone(), tx.downgrade(), written.clone()));
        }
        // An SQLite file is written by a thread of its own, on a connection of its
        // own (below); if that thread cannot start, the appends get a stopped writer.
        match file.filter(|_| dialect == Dialect::Sqlite && hold) {
            Some(path) => {
                let started = std::thread::Builder::new()
                    .name("sqlite-writer".into())
                    .spawn(move || {
                        SqliteFile {
                            pool,
                            path,
                            written,
                        }
                        .run(rx);
                    });
                if let Err(e) = started {
                    tracing::error!(error = %e, "could not start the SQLite writer's thread");
                }
            }
            None => {
                tokio::spawn(run(pool, dialect, hold, fence, rx, written));
            }
        }
        Writer { tx }
    }

    /// Appends `record` to `game`'s log; returns once it is committed.
    pub(super) async fn append(&self, game: Uuid, record: ActionRecord) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Append {
                game,
                record,
                reply,
            })
            .await
            .map_err(|_| StoreError::writer_stopped())?;
        answer.await.map_err(|_| StoreError::writer_stopped())?
    }
}

/// How often the WAL of an SQLite database is checkpointed in the background, when
/// something was written since the last time. Often, so that each checkpoint has
/// little to copy and its fsync little to flush: the writer's commits stall behind
/// a long fsync of the file system (ext4). At the latency load (1,000 rooms, about
/// 5,000 actions a second) every 250 ms left 0.3% of the appends over 10 ms and
/// every 25 ms none, at no measurable cost in CPU at saturation
/// (bench/results-2026-12.md, "Where the latency load's tail is").
const CHECKPOINT_EVERY: Duration = Duration::from_millis(25);

/// How many batches the writer has committed: the background checkpoint skips its
/// turn when nothing was written since its last one (an idle server does nothing).
#[derive(Debug, Clone, Default)]
struct Written(Arc<std::sync::atomic::AtomicU64>);

impl Written {
    /// One more batch committed.
    fn batch(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Batches committed so far.
    fn count(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Copies SQLite's write-ahead log back into the database, on a connection of its own,
/// until the writer is gone. A checkpoint ends with an fsync of the database file;
/// done by the writer itself (SQLite's automatic checkpoint, every 1,000 pages) it
/// stalled every room's next action for that long. A passive checkpoint never blocks
/// the writer; the automatic one stays as a backstop at a larger size (`sql.rs`).
async fn checkpoint(pool: AnyPool, writer: mpsc::WeakSender<Append>, written: Written) {
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

/// The connection the writer writes with.
struct Connection {
    /// The pool it comes from.
    pool: AnyPool,
    /// Whether to keep one connection between batches.
    hold: bool,
    /// The connection kept, if any.
    held: Option<PoolConnection<Any>>,
}

impl Connection {
    /// The connection to write on: the kept one (taken from the pool if need be), or
    /// `None` to borrow one from the pool per statement. Keeping one connection
    /// matters for SQLite: each connection has its own page cache, and SQLite drops
    /// it whenever another connection wrote, so batches that took turns on a pool's
    /// connections read every index page back from the file. Once the pool is
    /// closed, nothing is written.
    async fn target(&mut self) -> Result<Option<&mut PoolConnection<Any>>, sqlx::Error> {
        if self.pool.is_closed() {
            // The store was closed: stop writing on the connection kept from before.
            self.held = None;
            return Err(sqlx::Error::PoolClosed);
        }
        if !self.hold {
            return Ok(None);
        }
        if self.held.is_none() {
            self.held = Some(self.pool.acquire().await?);
        }
        Ok(self.held.as_mut())
    }

    /// After an error the kept connection is given back (it may be broken).
    fn checked<T>(&mut self, r: Result<T, sqlx::Error>) -> Result<T, sqlx::Error> {
        if r.is_err() {
            self.held = None;
        }
        r
    }

    /// Runs `sql` with `json` bound; the number of rows it wrote.
    async fn execute(&mut self, sql: &str, json: String) -> Result<u64, sqlx::Error> {
        let q = sqlx::query(sql).bind(json);
        let pool = self.pool.clone();
        let done = match self.target().await? {
            Some(conn) => q.execute(&mut **conn).await,
            None => q.execute(&pool).await,
        };
        self.checked(done.map(|d| d.rows_affected()))
    }

    /// Runs `sql` (an `INSERT ... RETURNING`) with `json` bound; the rows it returned.
    async fn fetch(&mut self, sql: &str, json: String) -> Result<Vec<AnyRow>, sqlx::Error> {
        let q = sqlx::query(sql).bind(json);
        let pool = self.pool.clone();
        let rows = match self.target().await? {
            Some(conn) => q.fetch_all(&mut **conn).await,
            None => q.fetch_all(&pool).await,
        };
        self.checked(rows)
    }
}

async fn run(
    pool: AnyPool,
    dialect: Dialect,
    hold: bool,
    fence: Option<Arc<Fence>>,
    mut rx: mpsc::Receiver<Append>,
    written: Written,
) {
    let sql = dialect.insert_sql(fence.is_some());
    let fence = fence.as_deref();
    let mut conn = Connection {
        pool,
        hold,
        held: None,
    };
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // An append whose room stopped waiting (the call's time bound passed while
        // it queued) was refused to its client: it must not be written after all.
        batch.retain(|a: &Append| !a.reply.is_closed());
        if batch.is_empty() {
            continue;
        }
        let whole = write(&mut conn, sql, &batch, fence).await;
        if let Some(e) = answer_whole(&mut batch, whole, Stored::answer, &written) {
            tracing::debug!(error = %e, n = batch.len(), "batch failed; writing one by one");
            for a in batch.drain(..) {
                let r = write(&mut conn, sql, std::slice::from_ref(&a), fence).await;
                let answer = r.and_then(|stored| stored.answer(&a));
                answer_one(a, answer, &written);
            }
        }
    }
}

/// Answers the appends of a batch written in one transaction: each its own answer
/// when the batch was written, a batch of one its error when it failed. A failed
/// batch of several is left as it is and its error returned: it is written one by
/// one (then [`answer_one`]), so that one bad append (e.g. a duplicate) does not
/// fail the others and every room gets its own answer.
fn answer_whole<T>(
    batch: &mut Vec<Append>,
    whole: Result<T, StoreError>,
    answer: impl Fn(&T, &Append) -> Result<(), StoreError>,
    written: &Written,
) -> Option<StoreError> {
    match whole {
        Ok(stored) => {
            written.batch();
            for a in batch.drain(..) {
                let r = answer(&stored, &a);
                let _ = a.reply.send(r);
            }
            None
        }
        Err(e) if batch.len() == 1 => {
            if let Some(a) = batch.pop() {
                let _ = a.reply.send(Err(e));
            }
            None
        }
        Err(e) => Some(e),
    }
}

/// Answers an append of a failed batch, written on its own.
fn answer_one(a: Append, answer: Result<(), StoreError>, written: &Written) {
    if answer.is_ok() {
        written.batch();
    }
    let _ = a.reply.send(answer);
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
struct SqliteFile {
    /// The store's pool: once it is closed, nothing more is written.
    pool: AnyPool,
    /// The database file.
    path: PathBuf,
    /// Counts the batches committed, for the background checkpoint.
    written: Written,
}

/// The one statement the writer runs on an SQLite file.
const SQLITE_INSERT: &str = "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, \
     created_at, stand_in) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

impl SqliteFile {
    /// Writes what comes from `rx` until every [`Writer`] is gone: whatever waits is
    /// one batch (at most [`MAX_BATCH`]), committed before its rooms are answered.
    /// The connection is opened at the first batch (the pool made the file).
    fn run(self, mut rx: mpsc::Receiver<Append>) {
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

/// Which SQL the database speaks, for the one statement that differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// SQLite (3.38+: JSON functions built in).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The `INSERT` of a whole batch from one parameter: a JSON array of rows. One
    /// statement is one round trip to the database and one implicit transaction, and
    /// it is prepared once: a multi-row `VALUES` list instead needs a new statement
    /// per batch size, and binding thousands of parameters costs SQLite more than the
    /// rows (it looks each parameter name up linearly).
    ///
    /// For SQLite, only an in-memory database (the pool's one connection) writes
    /// with it; a file is written by [`SqliteFile`].
    ///
    /// `fenced` (PostgreSQL, in a cluster): a row is inserted only while its room's
    /// lease row names the row's owner and epoch, read `FOR SHARE` so that a claim
    /// (which updates the row) and the insert are ordered (docs/cluster.md); the
    /// statement returns the rows it inserted.
    fn insert_sql(self, fenced: bool) -> &'static str {
        match (self, fenced) {
            (Dialect::Sqlite, _) => {
                "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at, \
                 stand_in) \
                 SELECT json_extract(value, '$.game_id'), json_extract(value, '$.seq'), \
                 json_extract(value, '$.room_seq'), json_extract(value, '$.seat'), \
                 json_extract(value, '$.action'), json_extract(value, '$.created_at'), \
                 json_extract(value, '$.stand_in') \
                 FROM json_each($1)"
            }
            (Dialect::Postgres, false) => {
                "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at, \
                 stand_in) \
                 SELECT game_id, seq, room_seq, seat, action, created_at, stand_in \
                 FROM json_to_recordset($1::json) AS r(game_id TEXT, seq BIGINT, \
                 room_seq BIGINT, seat BIGINT, action TEXT, created_at BIGINT, stand_in BIGINT)"
            }
            (Dialect::Postgres, true) => {
                "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at, \
                 stand_in) \
                 SELECT r.game_id, r.seq, r.room_seq, r.seat, r.action, r.created_at, r.stand_in \
                 FROM json_to_recordset($1::json) AS r(game_id TEXT, seq BIGINT, \
                 room_seq BIGINT, seat BIGINT, action TEXT, created_at BIGINT, stand_in BIGINT, \
                 owner TEXT, epoch BIGINT) \
                 WHERE EXISTS (SELECT 1 FROM room_leases l WHERE l.room_id = r.game_id \
                 AND l.owner = r.owner AND l.epoch = r.epoch FOR SHARE) \
                 RETURNING game_id, seq"
            }
        }
    }
}

/// One row of the batch parameter.
#[derive(Serialize)]
struct Row<'a> {
    game_id: Uuid,
    seq: i64,
    room_seq: i64,
    seat: Option<u8>,
    /// The action as JSON text, as the column stores it.
    action: String,
    created_at: i64,
    /// 1 when a stand-in took the action, else 0.
    stand_in: i64,
    /// In a cluster: this instance, and the epoch of the room's lease it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    epoch: Option<i64>,
}

/// What a batch's statement stored.
enum Stored {
    /// Every row.
    All,
    /// These rows (game, seq): in a cluster, the others were fenced.
    Only(HashSet<(Uuid, u64)>),
}

impl Stored {
    /// The answer to the room that asked for `a`.
    fn answer(&self, a: &Append) -> Result<(), StoreError> {
        match self {
            Stored::Only(rows) if !rows.contains(&(a.game, a.record.seq)) => Err(
                StoreError::Fenced(format!("room {} is owned by another instance now", a.game)),
            ),
            _ => Ok(()),
        }
    }
}

/// Writes `batch` with one statement (hence one transaction).
async fn write(
    conn: &mut Connection,
    sql: &str,
    batch: &[Append],
    fence: Option<&Fence>,
) -> Result<Stored, StoreError> {
    let rows = batch
        .iter()
        .map(|a| {
            let r = &a.record;
            Ok(Row {
                game_id: a.game,
                seq: to_i64(r.seq),
                room_seq: to_i64(r.room_seq),
                seat: r.seat.map(|s| s.0),
                action: serde_json::to_string(&r.action)?,
                created_at: to_i64(r.at),
                stand_in: i64::from(r.stand_in),
                owner: fence.map(Fence::owner),
                epoch: fence.map(|f| f.epoch(a.game)),
            })
        })
        .collect::<Result<Vec<Row>, serde_json::Error>>()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let json = serde_json::to_string(&rows).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    if fence.is_some() {
        let mut stored = HashSet::new();
        for row in conn.fetch(sql, json).await? {
            let game: String = row.try_get("game_id")?;
            let seq: i64 = row.try_get("seq")?;
            let game = Uuid::parse_str(&game).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            stored.insert((game, u64::try_from(seq).unwrap_or(0)));
        }
        return Ok(Stored::Only(stored));
    }
    let stored = conn.execute(sql, json).await?;
    if stored != batch.len() as u64 {
        return Err(StoreError::Corrupt(format!(
            "stored {stored} of {} actions",
            batch.len()
        )));
    }
    Ok(Stored::All)
}

/// A count or a time as the databases store it (a signed 64-bit column; beyond it,
/// the largest).
pub(super) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
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
