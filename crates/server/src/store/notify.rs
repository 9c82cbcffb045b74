//! Notifications as stored (migration 0014): the channels each player opted into
//! (`notify_channels`), the notices to deliver on them (`notify_outbox`, one row per
//! notice and channel, unique by dedupe key and channel), and the keys the server
//! made for itself (`notify_keys`). Delivery is claimed with a time
//! (`claimed_until`) in one statement, so two instances of a cluster never send one
//! row at once.

use async_trait::async_trait;
use catan_notify::{Channel, ChannelKind, Lang, Notice, NoticeKind};
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::games::corrupt;
use super::group_commit::to_i64;
use super::players::{millis, opt_millis, uuid};
use super::{SqlStore, StoreError, keeps_no_players};

/// A channel a player opted into (a row of `notify_channels`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelRow {
    /// The channel's id (its owner deletes it by it).
    pub id: Uuid,
    /// Whose it is.
    pub player_id: Uuid,
    /// Where notices go (its `Debug` hides keys and secrets).
    pub channel: Channel,
    /// The language its notices are written in.
    pub lang: Lang,
    /// The notices it wants.
    pub kinds: Vec<NoticeKind>,
    /// When it was added (Unix ms).
    pub created_at: u64,
}

/// Where a notice stands in the outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutboxStatus {
    /// To be sent at `next_at`.
    Pending,
    /// Delivered.
    Sent,
    /// Given up: a permanent failure, or the last attempt failed.
    Failed,
    /// No longer to be sent: its move ended first, or its channel went.
    Dropped,
}

impl OutboxStatus {
    /// The stored (and shown) name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            OutboxStatus::Pending => "pending",
            OutboxStatus::Sent => "sent",
            OutboxStatus::Failed => "failed",
            OutboxStatus::Dropped => "dropped",
        }
    }

    fn parse(s: &str) -> Result<OutboxStatus, StoreError> {
        Ok(match s {
            "pending" => OutboxStatus::Pending,
            "sent" => OutboxStatus::Sent,
            "failed" => OutboxStatus::Failed,
            "dropped" => OutboxStatus::Dropped,
            other => return Err(corrupt(format!("outbox status {other:?}"))),
        })
    }
}

/// One notice for one channel (a row of `notify_outbox`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    /// The row's id.
    pub id: Uuid,
    /// Whose notice.
    pub player_id: Uuid,
    /// The channel it goes to.
    pub channel_id: Uuid,
    /// That channel's kind, kept for the log once the channel is gone.
    pub channel_kind: ChannelKind,
    /// Where it goes, masked for the delivery log (no secret, no full address).
    pub shown: String,
    /// Names the notice (`catan_notify::dedupe_key`): one row per key and channel.
    pub dedupe_key: String,
    /// The notice, written out for the channel's language.
    pub notice: Notice,
    /// Where it stands.
    pub status: OutboxStatus,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due (Unix ms).
    pub next_at: u64,
    /// The code of the last failure (`SendError::code`).
    pub last_error: Option<String>,
    /// When it was queued (Unix ms).
    pub created_at: u64,
    /// When it was delivered (Unix ms).
    pub sent_at: Option<u64>,
}

/// A notice a worker claimed, with its channel (`None`: the channel is gone).
pub type Claimed = (OutboxRow, Option<ChannelRow>);

/// The notifications' calls of the store, a part of [`super::Store`] (which every
/// store implements with it). A store that keeps no players refuses them all.
#[async_trait]
pub trait NotifyStore: Send + Sync {
    /// The key named `name`; `fresh` is kept first if there is none yet (the
    /// first instance to ask makes it, every later call reads it).
    async fn notify_key(&self, name: &str, fresh: &str, at: u64) -> Result<String, StoreError> {
        let _ = (name, fresh, at);
        Err(keeps_no_players())
    }
    /// Keeps a new channel, its unsubscribe token's digest beside it.
    async fn add_channel(
        &self,
        row: &ChannelRow,
        unsubscribe_hash: &str,
    ) -> Result<(), StoreError> {
        let _ = (row, unsubscribe_hash);
        Err(keeps_no_players())
    }
    /// The channels of `player`, oldest first.
    async fn channels(&self, player: Uuid) -> Result<Vec<ChannelRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Deletes channel `id` (of `player` when given), dropping its pending notices:
    /// false when there was none.
    async fn delete_channel(&self, player: Option<Uuid>, id: Uuid) -> Result<bool, StoreError> {
        let _ = (player, id);
        Err(keeps_no_players())
    }
    /// The channel whose unsubscribe token has digest `hash`.
    async fn channel_by_unsubscribe(&self, hash: &str) -> Result<Option<ChannelRow>, StoreError> {
        let _ = hash;
        Err(keeps_no_players())
    }
    /// Queues `rows`; a row whose dedupe key and channel are queued already is
    /// left out. How many were queued.
    async fn enqueue_notices(&self, rows: &[OutboxRow]) -> Result<u64, StoreError> {
        let _ = rows;
        Err(keeps_no_players())
    }
    /// Drops the pending notices named `dedupe_key` (no longer news).
    async fn drop_notices(&self, dedupe_key: &str) -> Result<u64, StoreError> {
        let _ = dedupe_key;
        Err(keeps_no_players())
    }
    /// Claims up to `limit` pending notices due at `now` and not claimed by anyone
    /// at `now`, until `until`; with their channels.
    async fn claim_notices(
        &self,
        now: u64,
        until: u64,
        limit: u64,
    ) -> Result<Vec<Claimed>, StoreError> {
        let _ = (now, until, limit);
        Err(keeps_no_players())
    }
    /// Records an attempt at notice `row.id`: its `status`, `attempts`, `next_at`,
    /// `last_error` and `sent_at` as given; the claim ends.
    async fn settle_notice(&self, row: &OutboxRow) -> Result<(), StoreError> {
        let _ = row;
        Err(keeps_no_players())
    }
    /// The latest notices (of `player` when given), newest first, at most `limit`.
    async fn notice_log(
        &self,
        player: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let _ = (player, limit);
        Err(keeps_no_players())
    }
}

const CHANNEL_COLUMNS: &str = "c.id, c.player_id, c.target, c.lang, c.kinds, c.created_at";
const OUTBOX_COLUMNS: &str = "o.id, o.player_id, o.channel_id, o.channel_kind, o.shown, o.dedupe_key, \
     o.notice, o.status, o.attempts, o.next_at, o.last_error, o.created_at, o.sent_at";

fn json<T: serde::de::DeserializeOwned>(row: &AnyRow, column: &str) -> Result<T, StoreError> {
    let text: String = row.try_get(column)?;
    serde_json::from_str(&text).map_err(corrupt)
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn channel_row(row: &AnyRow) -> Result<ChannelRow, StoreError> {
    let lang: String = row.try_get("lang")?;
    Ok(ChannelRow {
        id: uuid(row, "id")?,
        player_id: uuid(row, "player_id")?,
        channel: json(row, "target")?,
        lang: serde_json::from_value(serde_json::Value::String(lang)).map_err(corrupt)?,
        kinds: json(row, "kinds")?,
        created_at: millis(row, "created_at")?,
    })
}

fn outbox_row(row: &AnyRow) -> Result<OutboxRow, StoreError> {
    let kind: String = row.try_get("channel_kind")?;
    let status: String = row.try_get("status")?;
    Ok(OutboxRow {
        id: uuid(row, "id")?,
        player_id: uuid(row, "player_id")?,
        channel_id: uuid(row, "channel_id")?,
        channel_kind: serde_json::from_value(serde_json::Value::String(kind)).map_err(corrupt)?,
        shown: row.try_get("shown")?,
        dedupe_key: row.try_get("dedupe_key")?,
        notice: json(row, "notice")?,
        status: OutboxStatus::parse(&status)?,
        attempts: u32::try_from(millis(row, "attempts")?).unwrap_or(u32::MAX),
        next_at: millis(row, "next_at")?,
        last_error: row.try_get("last_error")?,
        created_at: millis(row, "created_at")?,
        sent_at: opt_millis(row, "sent_at")?,
    })
}

#[async_trait]
impl NotifyStore for SqlStore {
    async fn notify_key(&self, name: &str, fresh: &str, at: u64) -> Result<String, StoreError> {
        sqlx::query(
            "INSERT INTO notify_keys (name, value, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(fresh)
        .bind(to_i64(at))
        .execute(self.pool())
        .await?;
        let row = sqlx::query("SELECT value FROM notify_keys WHERE name = $1")
            .bind(name)
            .fetch_one(self.pool())
            .await?;
        Ok(row.try_get("value")?)
    }

    async fn add_channel(
        &self,
        row: &ChannelRow,
        unsubscribe_hash: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO notify_channels \
             (id, player_id, kind, target, lang, kinds, unsubscribe_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(row.id.to_string())
        .bind(row.player_id.to_string())
        .bind(row.channel.kind().code())
        .bind(to_json(&row.channel))
        .bind(row.lang.tag())
        .bind(to_json(&row.kinds))
        .bind(unsubscribe_hash)
        .bind(to_i64(row.created_at))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    async fn channels(&self, player: Uuid) -> Result<Vec<ChannelRow>, StoreError> {
        let sql = format!(
            "SELECT {CHANNEL_COLUMNS} FROM notify_channels c WHERE c.player_id = $1 \
             ORDER BY c.created_at, c.id"
        );
        let rows = sqlx::query(&sql)
            .bind(player.to_string())
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(channel_row).collect()
    }

    async fn delete_channel(&self, player: Option<Uuid>, id: Uuid) -> Result<bool, StoreError> {
        // A write first: SQLite then holds the write lock for the whole transaction.
        let mut tx = self.pool().begin().await?;
        let deleted = sqlx::query(
            "DELETE FROM notify_channels WHERE id = $1 AND ($2 = '' OR player_id = $2)",
        )
        .bind(id.to_string())
        .bind(player.map(|p| p.to_string()).unwrap_or_default())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query(
            "UPDATE notify_outbox SET status = 'dropped' \
             WHERE channel_id = $1 AND status = 'pending'",
        )
        .bind(id.to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(deleted == 1)
    }

    async fn channel_by_unsubscribe(&self, hash: &str) -> Result<Option<ChannelRow>, StoreError> {
        let sql = format!(
            "SELECT {CHANNEL_COLUMNS} FROM notify_channels c WHERE c.unsubscribe_hash = $1"
        );
        let row = sqlx::query(&sql)
            .bind(hash)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(channel_row).transpose()
    }

    async fn enqueue_notices(&self, rows: &[OutboxRow]) -> Result<u64, StoreError> {
        let mut tx = self.pool().begin().await?;
        let mut queued = 0;
        for row in rows {
            queued += sqlx::query(
                "INSERT INTO notify_outbox (id, player_id, channel_id, channel_kind, shown, \
                 dedupe_key, notice, status, attempts, next_at, last_error, claimed_until, \
                 created_at, sent_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, 0, $11, NULL) \
                 ON CONFLICT (dedupe_key, channel_id) DO NOTHING",
            )
            .bind(row.id.to_string())
            .bind(row.player_id.to_string())
            .bind(row.channel_id.to_string())
            .bind(row.channel_kind.code())
            .bind(&row.shown)
            .bind(&row.dedupe_key)
            .bind(to_json(&row.notice))
            .bind(row.status.as_str())
            .bind(i64::from(row.attempts))
            .bind(to_i64(row.next_at))
            .bind(to_i64(row.created_at))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        }
        tx.commit().await?;
        Ok(queued)
    }

    async fn drop_notices(&self, dedupe_key: &str) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE notify_outbox SET status = 'dropped' \
             WHERE dedupe_key = $1 AND status = 'pending'",
        )
        .bind(dedupe_key)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected())
    }

    async fn claim_notices(
        &self,
        now: u64,
        until: u64,
        limit: u64,
    ) -> Result<Vec<Claimed>, StoreError> {
        // One statement: the claim is the write, and a row another instance claimed
        // meanwhile no longer matches the outer condition (PostgreSQL re-checks it
        // on the row it waited for; SQLite has one writer at a time).
        let claimed = sqlx::query(
            "UPDATE notify_outbox SET claimed_until = $2 WHERE id IN \
             (SELECT id FROM notify_outbox WHERE status = 'pending' AND next_at <= $1 \
              AND claimed_until <= $1 ORDER BY next_at LIMIT $3) \
             AND status = 'pending' AND claimed_until <= $1 RETURNING id",
        )
        .bind(to_i64(now))
        .bind(to_i64(until))
        .bind(to_i64(limit))
        .fetch_all(self.pool())
        .await?;
        let mut out = Vec::with_capacity(claimed.len());
        for id in &claimed {
            let id: String = id.try_get("id")?;
            let sql = format!("SELECT {OUTBOX_COLUMNS} FROM notify_outbox o WHERE o.id = $1");
            let row = sqlx::query(&sql).bind(&id).fetch_one(self.pool()).await?;
            let outbox = outbox_row(&row)?;
            let sql = format!("SELECT {CHANNEL_COLUMNS} FROM notify_channels c WHERE c.id = $1");
            let channel = sqlx::query(&sql)
                .bind(outbox.channel_id.to_string())
                .fetch_optional(self.pool())
                .await?;
            out.push((outbox, channel.as_ref().map(channel_row).transpose()?));
        }
        Ok(out)
    }

    async fn settle_notice(&self, row: &OutboxRow) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE notify_outbox SET status = $2, attempts = $3, next_at = $4, \
             last_error = $5, sent_at = $6, claimed_until = 0 WHERE id = $1",
        )
        .bind(row.id.to_string())
        .bind(row.status.as_str())
        .bind(i64::from(row.attempts))
        .bind(to_i64(row.next_at))
        .bind(row.last_error.clone())
        .bind(row.sent_at.map(to_i64))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    async fn notice_log(
        &self,
        player: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let sql = format!(
            "SELECT {OUTBOX_COLUMNS} FROM notify_outbox o \
             WHERE ($1 = '' OR o.player_id = $1) ORDER BY o.created_at DESC, o.id LIMIT $2"
        );
        let rows = sqlx::query(&sql)
            .bind(player.map(|p| p.to_string()).unwrap_or_default())
            .bind(to_i64(limit))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(outbox_row).collect()
    }
}
