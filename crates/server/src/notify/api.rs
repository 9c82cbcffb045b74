//! The notification calls (protocol 27.6): a player's channels
//! (`/api/me/notifications`), the Web Push key browsers subscribe with, the
//! unsubscribe link every notice carries (no session needed), and the
//! administrators' delivery log (`GET /admin/notifications`, on the admin
//! listener).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use catan_notify::{Channel, Lang, NoticeKind};
use catan_protocol::{
    AdminNotice, AdminNoticeList, NoticeKind as WireKind, NoticeLang, NotifyChannelInfo,
    NotifyChannelList, NotifyChannelRequest, VapidKey,
};
use serde::Deserialize;
use uuid::Uuid;

use super::target::{self, Allowed};
use crate::AppState;
use crate::error::{ApiError, ApiQuery, LobbyError};
use crate::extract::ApiJson;
use crate::players::api::Me;
use crate::store::{ChannelRow, StoreError, sha256_hex};

/// The most channels a player keeps.
const MAX_CHANNELS: usize = 10;
/// The most deliveries the log lists.
const MAX_LOG: u64 = 500;

fn unavailable(e: &StoreError) -> ApiError {
    tracing::warn!(error = %e, "notifications: the store refused");
    ApiError(LobbyError::StoreUnavailable)
}

/// `GET /api/notifications/vapid`.
///
/// # Errors
/// `push_unavailable`, `store_unavailable`.
pub async fn vapid(State(state): State<AppState>) -> Result<Json<VapidKey>, ApiError> {
    let ready = state.notify.ready().await.map_err(|e| unavailable(&e))?;
    let key = ready
        .vapid_public
        .clone()
        .ok_or(LobbyError::PushUnavailable)?;
    Ok(Json(VapidKey { public_key: key }))
}

/// `GET /api/me/notifications`.
///
/// # Errors
/// `not_signed_in`, `store_unavailable`.
pub async fn list(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<Json<NotifyChannelList>, ApiError> {
    let rows = state
        .store
        .channels(me.player.id)
        .await
        .map_err(|e| unavailable(&e))?;
    Ok(Json(NotifyChannelList {
        channels: rows.iter().map(info).collect(),
    }))
}

/// `POST /api/me/notifications`: 201 and the channel.
///
/// # Errors
/// `not_signed_in`, `invalid_channel`, `bad_request`, `store_unavailable`.
pub async fn add(
    State(state): State<AppState>,
    Me(me): Me,
    ApiJson(request): ApiJson<NotifyChannelRequest>,
) -> Result<(StatusCode, Json<NotifyChannelInfo>), ApiError> {
    let ready = state.notify.ready().await.map_err(|e| unavailable(&e))?;
    let allowed = Allowed {
        push: ready.vapid_public.is_some(),
        email: state.config.notify.smtp_url.is_some(),
        private: state.config.notify.notify_allow_private_webhooks,
    };
    let channel = target::check(&request.target, allowed)
        .await
        .map_err(LobbyError::InvalidChannel)?;
    let kept = state
        .store
        .channels(me.player.id)
        .await
        .map_err(|e| unavailable(&e))?;
    if kept.len() >= MAX_CHANNELS {
        let message = format!("a player keeps at most {MAX_CHANNELS} channels");
        return Err(LobbyError::InvalidChannel(message).into());
    }
    let kinds = request
        .notices
        .unwrap_or_else(|| vec![WireKind::YourTurn, WireKind::OfferToYou, WireKind::TimeLow]);
    let row = ChannelRow {
        id: Uuid::new_v4(),
        player_id: me.player.id,
        channel,
        lang: lang_of(request.lang),
        kinds: kinds.into_iter().map(kind_of).collect(),
        created_at: crate::room::now_ms(),
    };
    let token = super::unsubscribe_token(&ready.unsubscribe_key, row.id);
    state
        .store
        .add_channel(&row, &sha256_hex(&token))
        .await
        .map_err(|e| unavailable(&e))?;
    Ok((StatusCode::CREATED, Json(info(&row))))
}

/// `DELETE /api/me/notifications/{id}`: 204.
///
/// # Errors
/// `not_signed_in`, `channel_not_found`, `store_unavailable`.
pub async fn delete(
    State(state): State<AppState>,
    Me(me): Me,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = Uuid::parse_str(&id).map_err(|_| LobbyError::ChannelNotFound)?;
    let deleted = state
        .store
        .delete_channel(Some(me.player.id), id)
        .await
        .map_err(|e| unavailable(&e))?;
    if deleted {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(LobbyError::ChannelNotFound.into())
    }
}

/// The unsubscribe link's query.
#[derive(Debug, Deserialize)]
pub struct UnsubscribeQuery {
    /// The channel's unsubscribe token.
    token: String,
}

/// `GET /api/notifications/unsubscribe?token=...`: removes the channel the token
/// is of and says so in a small page in its language (404, in English, when no
/// channel has it, for instance a second time).
///
/// # Errors
/// `bad_request` without a token.
pub async fn unsubscribe(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<UnsubscribeQuery>,
) -> Result<Response, ApiError> {
    let hash = sha256_hex(query.token.trim());
    let channel = state
        .store
        .channel_by_unsubscribe(&hash)
        .await
        .map_err(|e| unavailable(&e))?;
    let Some(channel) = channel else {
        return Ok((StatusCode::NOT_FOUND, page(Lang::En, false)).into_response());
    };
    state
        .store
        .delete_channel(None, channel.id)
        .await
        .map_err(|e| unavailable(&e))?;
    Ok(page(channel.lang, true).into_response())
}

fn page(lang: Lang, done: bool) -> Html<String> {
    let text = match (lang, done) {
        (Lang::En, true) => "You will get no more notices here.",
        (Lang::ZhHans, true) => "你将不会再在这里收到提醒。",
        (Lang::ZhHant, true) => "你將不會再在這裡收到提醒。",
        (_, false) => "This link was used already, or the channel was removed.",
    };
    let lang = if done { lang.tag() } else { "en" };
    Html(format!(
        "<!doctype html><html lang=\"{lang}\"><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>Catan</title>\
         <p>{text}</p></html>"
    ))
}

/// The channel as its owner sees it.
fn info(row: &ChannelRow) -> NotifyChannelInfo {
    NotifyChannelInfo {
        id: row.id,
        kind: row.channel.kind().code().to_owned(),
        target: target::shown_to_owner(&row.channel),
        format: match &row.channel {
            Channel::Webhook { format, .. } => Some(target::wire_format(*format)),
            _ => None,
        },
        lang: match row.lang {
            Lang::En => NoticeLang::En,
            Lang::ZhHans => NoticeLang::ZhHans,
            Lang::ZhHant => NoticeLang::ZhHant,
        },
        notices: row.kinds.iter().map(|k| wire_kind(*k)).collect(),
        created_at: row.created_at,
    }
}

fn lang_of(lang: NoticeLang) -> Lang {
    match lang {
        NoticeLang::En => Lang::En,
        NoticeLang::ZhHans => Lang::ZhHans,
        NoticeLang::ZhHant => Lang::ZhHant,
    }
}

fn kind_of(kind: WireKind) -> NoticeKind {
    match kind {
        WireKind::YourTurn => NoticeKind::YourTurn,
        WireKind::OfferToYou => NoticeKind::OfferToYou,
        WireKind::TimeLow => NoticeKind::TimeLow,
    }
}

fn wire_kind(kind: NoticeKind) -> WireKind {
    match kind {
        NoticeKind::YourTurn => WireKind::YourTurn,
        NoticeKind::OfferToYou => WireKind::OfferToYou,
        NoticeKind::TimeLow => WireKind::TimeLow,
    }
}

/// The delivery log's query.
#[derive(Debug, Deserialize)]
pub struct LogQuery {
    /// Only this player's notices.
    player: Option<Uuid>,
    /// At most this many (default 100, at most 500).
    limit: Option<u64>,
}

/// `GET /admin/notifications?player=&limit=`: the latest deliveries, newest first,
/// with nothing secret in them.
///
/// # Errors
/// `store_unavailable`.
pub async fn delivery_log(
    state: &AppState,
    ApiQuery(query): ApiQuery<LogQuery>,
) -> Result<Json<AdminNoticeList>, ApiError> {
    let limit = query.limit.unwrap_or(100).clamp(1, MAX_LOG);
    let rows = state
        .store
        .notice_log(query.player, limit)
        .await
        .map_err(|e| unavailable(&e))?;
    let notices = rows
        .into_iter()
        .map(|r| AdminNotice {
            id: r.id,
            player_id: r.player_id,
            kind: wire_kind(r.notice.kind),
            room_id: r.notice.room_id,
            channel: r.channel_kind.code().to_owned(),
            target: r.shown,
            status: r.status.as_str().to_owned(),
            attempts: r.attempts,
            last_error: r.last_error,
            created_at: r.created_at,
            next_at: r.next_at,
            sent_at: r.sent_at,
        })
        .collect();
    Ok(Json(AdminNoticeList { notices }))
}
