//! Moderation as stored (`sanctions`, `moderation_log`; migration 0008): the bans
//! and mutes in force and the audit log of every moderation action, written
//! together in one transaction; and the search of players for administrators.

use catan_protocol::ModerationAction;
use sqlx::Row;
use uuid::Uuid;

use super::games::corrupt;
use super::group_commit::to_i64;
use super::players::{PLAYER_COLUMNS, millis, opt_millis, player, uuid};
use super::{PlayerRow, SqlStore, StoreError};

/// What a sanction in force keeps a player from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanctionKind {
    /// Signing in, sessions, and reconnecting their seats.
    Ban,
    /// Chat from their seats.
    Mute,
}

impl SanctionKind {
    fn as_str(self) -> &'static str {
        match self {
            SanctionKind::Ban => "ban",
            SanctionKind::Mute => "mute",
        }
    }

    fn parse(s: &str) -> Result<SanctionKind, StoreError> {
        match s {
            "ban" => Ok(SanctionKind::Ban),
            "mute" => Ok(SanctionKind::Mute),
            other => Err(corrupt(format!("unknown sanction kind {other:?}"))),
        }
    }
}

/// A ban or mute in force (a row of `sanctions` whose end has not come).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanctionRow {
    /// Whose.
    pub player_id: Uuid,
    /// A ban or a mute.
    pub kind: SanctionKind,
    /// Since when (Unix ms).
    pub since: u64,
    /// Until when (Unix ms); `None` until lifted.
    pub until: Option<u64>,
    /// The administrator's reason.
    pub reason: String,
}

/// One moderation action (a row of `moderation_log`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationRow {
    /// The entry's id.
    pub id: Uuid,
    /// On whom.
    pub player_id: Uuid,
    /// What was done.
    pub action: ModerationAction,
    /// Why.
    pub reason: String,
    /// A ban's or mute's end (Unix ms); `None` until lifted, and for the lifts.
    pub until: Option<u64>,
    /// Which administrator took it (as they named themselves).
    pub by: String,
    /// When (Unix ms).
    pub at: u64,
}

/// The sanction an action imposes or lifts, and whether it imposes it.
fn effect(action: ModerationAction) -> (SanctionKind, bool) {
    match action {
        ModerationAction::Ban => (SanctionKind::Ban, true),
        ModerationAction::Unban => (SanctionKind::Ban, false),
        ModerationAction::Mute => (SanctionKind::Mute, true),
        ModerationAction::Unmute => (SanctionKind::Mute, false),
    }
}

fn action_str(a: ModerationAction) -> &'static str {
    match a {
        ModerationAction::Ban => "ban",
        ModerationAction::Unban => "unban",
        ModerationAction::Mute => "mute",
        ModerationAction::Unmute => "unmute",
    }
}

fn parse_action(s: &str) -> Result<ModerationAction, StoreError> {
    [
        ModerationAction::Ban,
        ModerationAction::Unban,
        ModerationAction::Mute,
        ModerationAction::Unmute,
    ]
    .into_iter()
    .find(|&a| action_str(a) == s)
    .ok_or_else(|| corrupt(format!("unknown moderation action {s:?}")))
}

/// `s` as a `LIKE` pattern matching any text that contains it (`\` escapes).
fn contains_pattern(s: &str) -> String {
    let mut p = String::from("%");
    for c in s.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

impl SqlStore {
    pub(super) async fn search_players(
        &self,
        name: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<PlayerRow>, u64), StoreError> {
        let pattern = contains_pattern(name.unwrap_or(""));
        let filter = "LOWER(p.name) LIKE $1 ESCAPE '\\'";
        let total: i64 = sqlx::query(&format!(
            "SELECT COUNT(*) AS n FROM players p WHERE {filter}"
        ))
        .bind(&pattern)
        .fetch_one(self.pool())
        .await?
        .try_get("n")?;
        let rows = sqlx::query(&format!(
            "SELECT {PLAYER_COLUMNS} FROM players p WHERE {filter} \
             ORDER BY p.created_at DESC, p.id LIMIT $2 OFFSET $3"
        ))
        .bind(&pattern)
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(self.pool())
        .await?;
        let players = rows.iter().map(player).collect::<Result<_, _>>()?;
        Ok((players, u64::try_from(total).unwrap_or(0)))
    }

    pub(super) async fn select_sanctions(
        &self,
        player_id: Option<Uuid>,
        now: u64,
    ) -> Result<Vec<SanctionRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT player_id, kind, since, until_at, reason FROM sanctions \
             WHERE ($1 IS NULL OR player_id = $1) AND (until_at IS NULL OR until_at > $2) \
             ORDER BY player_id, kind",
        )
        .bind(player_id.map(|p| p.to_string()))
        .bind(to_i64(now))
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SanctionRow {
                    player_id: uuid(r, "player_id")?,
                    kind: SanctionKind::parse(&r.try_get::<String, _>("kind")?)?,
                    since: millis(r, "since")?,
                    until: opt_millis(r, "until_at")?,
                    reason: r.try_get("reason")?,
                })
            })
            .collect()
    }

    pub(super) async fn insert_moderation(&self, m: &ModerationRow) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        let id = m.player_id.to_string();
        // A write first (changing nothing), which also says whether the player
        // exists: SQLite then takes its writer's lock at once, where a read first
        // could not be upgraded once another writer (a game's actions) committed.
        let exists = sqlx::query("UPDATE players SET id = id WHERE id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if !exists {
            return Ok(false);
        }
        let (kind, imposed) = effect(m.action);
        sqlx::query("DELETE FROM sanctions WHERE player_id = $1 AND kind = $2")
            .bind(&id)
            .bind(kind.as_str())
            .execute(&mut *tx)
            .await?;
        if imposed {
            sqlx::query(
                "INSERT INTO sanctions (player_id, kind, since, until_at, reason) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&id)
            .bind(kind.as_str())
            .bind(to_i64(m.at))
            .bind(m.until.map(to_i64))
            .bind(&m.reason)
            .execute(&mut *tx)
            .await?;
        }
        if m.action == ModerationAction::Ban {
            sqlx::query("DELETE FROM sessions WHERE player_id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO moderation_log (id, player_id, action, reason, until_at, by_name, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(m.id.to_string())
        .bind(&id)
        .bind(action_str(m.action))
        .bind(&m.reason)
        .bind(m.until.map(to_i64))
        .bind(&m.by)
        .bind(to_i64(m.at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    pub(super) async fn select_moderation_log(
        &self,
        player_id: Uuid,
    ) -> Result<Vec<ModerationRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, player_id, action, reason, until_at, by_name, at FROM moderation_log \
             WHERE player_id = $1 ORDER BY at DESC, id",
        )
        .bind(player_id.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ModerationRow {
                    id: uuid(r, "id")?,
                    player_id: uuid(r, "player_id")?,
                    action: parse_action(&r.try_get::<String, _>("action")?)?,
                    reason: r.try_get("reason")?,
                    until: opt_millis(r, "until_at")?,
                    by: r.try_get("by_name")?,
                    at: millis(r, "at")?,
                })
            })
            .collect()
    }
}
