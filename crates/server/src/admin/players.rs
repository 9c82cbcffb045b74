//! Moderation (protocol 22.9): administrators find a player, see their sessions,
//! games and moderation record, and ban, unban, mute or unmute them. Every action
//! is written to the audit log with its reason in the transaction that takes it,
//! and the rooms of this instance learn of it at once (the other instances of a
//! cluster within `players::sanctions::REFRESH`).

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, State};
use catan_protocol::{
    AdminPlayer, AdminPlayerDetail, AdminPlayerList, AdminPlayerQuery, LobbyError,
    ModerationAction, ModerationEntry, ModerationRequest, Sanction,
};
use tracing::info;
use uuid::Uuid;

use super::Admin;
use crate::error::{ApiError, ApiQuery};
use crate::extract::ApiJson;
use crate::history::store_down;
use crate::players::{enforce, now_ms, ratings::profile_of, session_info};
use crate::store::{ModerationRow, PlayerRow, SanctionKind, SanctionRow};

/// Most players in one page.
const MAX_PAGE: u64 = 100;

/// Most characters of a reason.
const MAX_REASON_CHARS: usize = 500;

/// Who took an action, when the administrator did not say.
const DEFAULT_BY: &str = "admin";

/// Longest ban or mute with an end: ten years, in hours.
const MAX_HOURS: u64 = 87_600;

fn sanction(rows: &[&SanctionRow], kind: SanctionKind) -> Option<Sanction> {
    rows.iter().find(|s| s.kind == kind).map(|s| Sanction {
        since: s.since,
        until: s.until,
        reason: s.reason.clone(),
    })
}

fn admin_player(p: &PlayerRow, sanctions: &[&SanctionRow]) -> AdminPlayer {
    AdminPlayer {
        id: p.id,
        name: p.name.clone(),
        account: p.password_hash.is_some(),
        deleted: p.deleted,
        created_at: p.created_at,
        banned: sanction(sanctions, SanctionKind::Ban),
        muted: sanction(sanctions, SanctionKind::Mute),
    }
}

fn player_id(id: &str) -> Result<Uuid, LobbyError> {
    Uuid::parse_str(id).map_err(|_| LobbyError::PlayerNotFound)
}

/// `GET /admin/players?name=&offset=&limit=`
pub(super) async fn list(
    State(admin): State<Admin>,
    ApiQuery(q): ApiQuery<AdminPlayerQuery>,
) -> Result<Json<AdminPlayerList>, ApiError> {
    let store = &admin.app.store;
    let offset = q.offset.unwrap_or(0);
    let limit = q.limit.unwrap_or(50).clamp(1, MAX_PAGE);
    let name = q.name.as_deref().map(str::trim).filter(|n| !n.is_empty());
    let (rows, total) = store
        .find_players(name, offset, limit)
        .await
        .map_err(|e| store_down(&e))?;
    let in_force = store
        .sanctions(None, now_ms())
        .await
        .map_err(|e| store_down(&e))?;
    let mut by_player: HashMap<Uuid, Vec<&SanctionRow>> = HashMap::new();
    for s in &in_force {
        by_player.entry(s.player_id).or_default().push(s);
    }
    let players = rows
        .iter()
        .map(|p| admin_player(p, by_player.get(&p.id).map_or(&[][..], Vec::as_slice)))
        .collect();
    Ok(Json(AdminPlayerList {
        players,
        offset,
        total,
    }))
}

/// `GET /admin/players/{id}`
pub(super) async fn detail(
    State(admin): State<Admin>,
    Path(id): Path<String>,
) -> Result<Json<AdminPlayerDetail>, ApiError> {
    let id = player_id(&id)?;
    let store = &admin.app.store;
    let down = |e| store_down(&e);
    let row = store
        .player(id)
        .await
        .map_err(down)?
        .ok_or(LobbyError::PlayerNotFound)?;
    let now = now_ms();
    let in_force = store.sanctions(Some(id), now).await.map_err(down)?;
    let sessions = store.sessions(id, now).await.map_err(down)?;
    let log = store.moderation_log(id).await.map_err(down)?;
    Ok(Json(AdminPlayerDetail {
        player: admin_player(&row, &in_force.iter().collect::<Vec<_>>()),
        profile: profile_of(&admin.app, id, (0, 20)).await?,
        sessions: sessions.iter().map(|s| session_info(s, None)).collect(),
        moderation: log
            .into_iter()
            .map(|m| ModerationEntry {
                action: m.action,
                reason: m.reason,
                until: m.until,
                by: m.by,
                at: m.at,
            })
            .collect(),
    }))
}

/// `POST /admin/players/{id}/ban` (and `unban`, `mute`, `unmute`: the last part of
/// the path).
pub(super) async fn moderate(
    State(admin): State<Admin>,
    Path((id, action)): Path<(String, String)>,
    ApiJson(req): ApiJson<ModerationRequest>,
) -> Result<Json<AdminPlayer>, ApiError> {
    let action = match action.as_str() {
        "ban" => ModerationAction::Ban,
        "unban" => ModerationAction::Unban,
        "mute" => ModerationAction::Mute,
        "unmute" => ModerationAction::Unmute,
        _ => return Err(LobbyError::BadRequest(format!("no moderation action {action:?}")).into()),
    };
    let id = player_id(&id)?;
    let reason = req.reason.trim().to_owned();
    if reason.is_empty() || reason.chars().count() > MAX_REASON_CHARS {
        return Err(
            LobbyError::BadRequest(format!("reason: 1 to {MAX_REASON_CHARS} characters")).into(),
        );
    }
    let imposes = matches!(action, ModerationAction::Ban | ModerationAction::Mute);
    let hours = match req.hours {
        Some(h) if !imposes => {
            return Err(LobbyError::BadRequest(format!(
                "hours: only a ban or a mute lasts (given {h})"
            ))
            .into());
        }
        Some(h) if !(1..=MAX_HOURS).contains(&h) => {
            return Err(LobbyError::BadRequest(format!("hours: 1 to {MAX_HOURS}")).into());
        }
        h => h,
    };
    let by = match req.by.as_deref().map(str::trim) {
        None | Some("") => DEFAULT_BY.to_owned(),
        Some(b) => catan_protocol::text::clean_name(b)
            .map_err(|e| LobbyError::BadRequest(format!("by: {e}")))?,
    };
    let at = now_ms();
    let entry = ModerationRow {
        id: Uuid::new_v4(),
        player_id: id,
        action,
        reason,
        until: hours.map(|h| at.saturating_add(h.saturating_mul(3_600_000))),
        by,
        at,
    };
    let store = &admin.app.store;
    if !store.moderate(&entry).await.map_err(|e| store_down(&e))? {
        return Err(LobbyError::PlayerNotFound.into());
    }
    info!(player = %id, ?action, until = ?entry.until, by = %entry.by, "moderation action taken");
    // This instance's rooms learn of it now: a banned player's clients are
    // disconnected before the answer.
    enforce::reload(
        store.as_ref(),
        admin.app.players.sanctions(),
        &admin.app.rooms,
    )
    .await;
    let row = store
        .player(id)
        .await
        .map_err(|e| store_down(&e))?
        .ok_or(LobbyError::PlayerNotFound)?;
    let in_force = store
        .sanctions(Some(id), at)
        .await
        .map_err(|e| store_down(&e))?;
    Ok(Json(admin_player(
        &row,
        &in_force.iter().collect::<Vec<_>>(),
    )))
}
