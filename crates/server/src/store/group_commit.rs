//! Group commit for the action log. One writer task per store takes every append
//! pending from every room, writes them with one INSERT (one transaction),
//! and answers each room through its oneshot only once that transaction committed:
//! an action is never acknowledged before it is stored, and a busy server pays for
//! one commit per batch instead of one per action.

use serde::Serialize;
use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{ActionRecord, StoreError};

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

impl Writer {
    /// Starts the writer task of `pool`.
    pub(super) fn spawn(pool: AnyPool, dialect: Dialect) -> Writer {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, dialect, rx));
        Writer { tx }
    }

    /// Appends `record` to `game`'s log; returns once it is committed.
    pub(super) async fn append(&self, game: Uuid, record: ActionRecord) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        let gone = || StoreError::Corrupt("the store's writer task has stopped".to_owned());
        self.tx
            .send(Append {
                game,
                record,
                reply,
            })
            .await
            .map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }
}

async fn run(pool: AnyPool, dialect: Dialect, mut rx: mpsc::Receiver<Append>) {
    let sql = dialect.insert_sql();
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        match write(&pool, sql, &batch).await {
            Ok(()) => {
                for a in batch.drain(..) {
                    let _ = a.reply.send(Ok(()));
                }
            }
            Err(e) if batch.len() == 1 => {
                if let Some(a) = batch.pop() {
                    let _ = a.reply.send(Err(e));
                }
            }
            Err(e) => {
                // One bad append (e.g. a duplicate) must not fail the others: write
                // each on its own, so every room gets its own answer.
                tracing::debug!(error = %e, n = batch.len(), "batch failed; writing one by one");
                for a in batch.drain(..) {
                    let r = write(&pool, sql, std::slice::from_ref(&a)).await;
                    let _ = a.reply.send(r);
                }
            }
        }
    }
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
    fn insert_sql(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at) \
                 SELECT json_extract(value, '$.game_id'), json_extract(value, '$.seq'), \
                 json_extract(value, '$.room_seq'), json_extract(value, '$.seat'), \
                 json_extract(value, '$.action'), json_extract(value, '$.created_at') \
                 FROM json_each($1)"
            }
            Dialect::Postgres => {
                "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at) \
                 SELECT game_id, seq, room_seq, seat, action, created_at \
                 FROM json_to_recordset($1::json) AS r(game_id TEXT, seq BIGINT, \
                 room_seq BIGINT, seat BIGINT, action TEXT, created_at BIGINT)"
            }
        }
    }
}

/// One row of the batch parameter.
#[derive(Serialize)]
struct Row {
    game_id: Uuid,
    seq: i64,
    room_seq: i64,
    seat: Option<u8>,
    /// The action as JSON text, as the column stores it.
    action: String,
    created_at: i64,
}

/// Writes `batch` with one statement (hence one transaction).
async fn write(pool: &AnyPool, sql: &str, batch: &[Append]) -> Result<(), StoreError> {
    let rows = batch
        .iter()
        .map(|a| {
            let r = &a.record;
            Ok(Row {
                game_id: a.game,
                seq: super::sql::to_i64(r.seq),
                room_seq: super::sql::to_i64(r.room_seq),
                seat: r.seat.map(|s| s.0),
                action: serde_json::to_string(&r.action)?,
                created_at: super::sql::to_i64(r.at),
            })
        })
        .collect::<Result<Vec<Row>, serde_json::Error>>()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let json = serde_json::to_string(&rows).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let done = sqlx::query(sql).bind(json).execute(pool).await?;
    if done.rows_affected() != batch.len() as u64 {
        return Err(StoreError::Corrupt(format!(
            "stored {} of {} actions",
            done.rows_affected(),
            batch.len()
        )));
    }
    Ok(())
}
