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
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool, Row as _};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{ActionRecord, Fence, StoreError};

mod sqlite;

use sqlite::{SqliteFile, checkpoint};

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
