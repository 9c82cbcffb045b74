//! Group commit for the action log. One writer task per store takes every append
//! pending from every room, writes them with a few cached multi-row INSERTs in one transaction,
//! and answers each room through its oneshot only once that transaction committed:
//! an action is never acknowledged before it is stored, and a busy server pays for
//! one commit per batch instead of one per action.

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
    pub(super) fn spawn(pool: AnyPool) -> Writer {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, rx));
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

async fn run(pool: AnyPool, mut rx: mpsc::Receiver<Append>) {
    let statements = Statements::new();
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        match write(&pool, &statements, &batch).await {
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
                    let r = write(&pool, &statements, std::slice::from_ref(&a)).await;
                    let _ = a.reply.send(r);
                }
            }
        }
    }
}

/// Statement shapes, in rows per INSERT. A batch is written as a sequence of these
/// (largest first) inside one transaction, so every statement is prepared once per
/// connection and cached: no batch pays to parse a new statement, and none binds
/// thousands of parameters (SQLite looks each parameter name up linearly, so one
/// 512-row statement cost more in binding than the rows themselves).
const SHAPES: [usize; 4] = [32, 8, 2, 1];

/// The `INSERT` of `rows` rows.
fn insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO game_actions (game_id, seq, room_seq, seat, action, created_at) VALUES ",
    );
    for i in 0..rows {
        let b = i * 6;
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!(
            "(${}, ${}, ${}, ${}, ${}, ${})",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5,
            b + 6
        ));
    }
    sql
}

/// Writes `batch` in one transaction.
async fn write(
    pool: &AnyPool,
    statements: &Statements,
    batch: &[Append],
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    let mut rest = batch;
    while !rest.is_empty() {
        let (shape, sql) = statements
            .0
            .iter()
            .find(|(rows, _)| *rows <= rest.len())
            .expect("the smallest shape is one row");
        let (chunk, tail) = rest.split_at(*shape);
        rest = tail;
        let mut q = sqlx::query(sql.as_str());
        for a in chunk {
            let r = &a.record;
            q = q
                .bind(a.game.to_string())
                .bind(super::sql::to_i64(r.seq))
                .bind(super::sql::to_i64(r.room_seq))
                .bind(r.seat.map(|s| i64::from(s.0)))
                .bind(
                    serde_json::to_string(&r.action)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                )
                .bind(super::sql::to_i64(r.at));
        }
        q.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The SQL text of every shape, built once.
struct Statements(Vec<(usize, String)>);

impl Statements {
    fn new() -> Statements {
        Statements(SHAPES.iter().map(|&n| (n, insert_sql(n))).collect())
    }
}
