//! The player calls of the HTTP API (docs/protocol/25-players.md). A call is
//! signed in by the session token, as a bearer token (apps) or the `catan_session`
//! cookie (the browser client; HttpOnly, SameSite=Lax, Secure behind a trusted
//! proxy that says the page came over HTTPS).

use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catan_protocol::{
    ClaimRequest, GuestRequest, LobbyError, PasskeyChallenge, PasskeyInfo, PasskeyList,
    PasskeyRegistrationRequest, PasskeySignInRequest, PlayerInfo, RenameRequest, SessionList,
    SignInRequest, SignedIn,
};
use uuid::Uuid;

use super::{COOKIE, Session, info, shown};
use crate::AppState;
use crate::error::ApiError;
use crate::extract::{ApiJson, ClientIp, Costly, Open};
use crate::listen::PeerAddr;
use crate::token;

/// The session token of a request: its bearer token, else its session cookie.
fn session_token(headers: &HeaderMap) -> Option<String> {
    token::bearer(headers).or_else(|| {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                (name == COOKIE && !value.is_empty()).then(|| value.to_owned())
            })
    })
}

/// The signed-in player of a call: `not_signed_in` without a live session.
#[derive(Debug, Clone)]
pub struct Me(pub Session);

impl FromRequestParts<AppState> for Me {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Me, ApiError> {
        let token = session_token(&parts.headers).ok_or(LobbyError::NotSignedIn)?;
        Ok(Me(state.players.session(&token).await?))
    }
}

/// The signed-in player of a call that works without one too (taking a seat):
/// the player of a live session, else `None` (no token, or one that names no live
/// session, such as a stale cookie: the call goes on unlinked).
#[derive(Debug, Clone, Copy)]
pub struct MaybePlayer(pub Option<Uuid>);

impl FromRequestParts<AppState> for MaybePlayer {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<MaybePlayer, ApiError> {
        let Some(token) = session_token(&parts.headers) else {
            return Ok(MaybePlayer(None));
        };
        match state.players.session(&token).await {
            Ok(me) => Ok(MaybePlayer(Some(me.player.id))),
            Err(LobbyError::NotSignedIn) => Ok(MaybePlayer(None)),
            Err(e) => Err(e.into()),
        }
    }
}

/// What a session is labelled with: the client's `User-Agent`, without control
/// characters, at most 80 characters.
fn label(headers: &HeaderMap) -> String {
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let kept: String = agent.chars().filter(|c| !c.is_control()).take(80).collect();
    if kept.trim().is_empty() {
        "unknown client".to_owned()
    } else {
        kept
    }
}

/// Whether the browser reached us over HTTPS: a trusted proxy says so.
fn over_https(state: &AppState, parts_headers: &HeaderMap, peer: Option<std::net::IpAddr>) -> bool {
    peer.is_some_and(|p| state.client_addresses.is_trusted(p))
        && parts_headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

/// How the request came: its headers and whether it came over HTTPS.
#[derive(Debug, Clone)]
pub struct Origin {
    headers: HeaderMap,
    https: bool,
}

impl FromRequestParts<AppState> for Origin {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Origin, Self::Rejection> {
        let peer = parts.extensions.get::<PeerAddr>().map(|p| p.0.ip());
        Ok(Origin {
            https: over_https(state, &parts.headers, peer),
            headers: parts.headers.clone(),
        })
    }
}

/// The `Set-Cookie` value that keeps `token` for `max_age` seconds (0 forgets it).
fn cookie(token: &str, max_age: u64, https: bool) -> HeaderValue {
    let secure = if https { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={token}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
    ))
    .expect("a token and numbers are header-safe")
}

/// A new session's answer: `201` with [`SignedIn`] and its cookie.
fn signed_in(
    state: &AppState,
    origin: &Origin,
    (player, session, token): (crate::store::PlayerRow, crate::store::SessionRow, String),
) -> Response {
    let max_age = state.players.session_length().as_secs();
    let set = cookie(&token, max_age, origin.https);
    let body = SignedIn {
        player: info(&player),
        session: shown(&session),
        token,
    };
    let mut response = (StatusCode::CREATED, Json(body)).into_response();
    response.headers_mut().insert(header::SET_COOKIE, set);
    response
}

/// `204` that also forgets the session cookie.
fn signed_out(origin: &Origin) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, cookie("", 0, origin.https));
    response
}

/// `POST /api/guests`
pub async fn create_guest(
    State(state): State<AppState>,
    _: Open,
    _: Costly,
    origin: Origin,
    ApiJson(req): ApiJson<GuestRequest>,
) -> Result<Response, ApiError> {
    let made = state
        .players
        .create_guest(&req.name, &label(&origin.headers))
        .await?;
    Ok(signed_in(&state, &origin, made))
}

/// `POST /api/sessions`
pub async fn sign_in(
    State(state): State<AppState>,
    _: Open,
    ClientIp(ip): ClientIp,
    origin: Origin,
    ApiJson(req): ApiJson<SignInRequest>,
) -> Result<Response, ApiError> {
    let made = state
        .players
        .sign_in(ip, &req.name, &req.password, &label(&origin.headers))
        .await?;
    Ok(signed_in(&state, &origin, made))
}

/// `GET /api/me`
pub async fn me(Me(me): Me) -> Json<PlayerInfo> {
    Json(info(&me.player))
}

/// `POST /api/me/claim`
pub async fn claim(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
    ApiJson(req): ApiJson<ClaimRequest>,
) -> Result<Json<PlayerInfo>, ApiError> {
    let player = state.players.claim(&me, &req.name, &req.password).await?;
    Ok(Json(info(&player)))
}

/// `POST /api/me/name`
pub async fn rename(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
    ApiJson(req): ApiJson<RenameRequest>,
) -> Result<Json<PlayerInfo>, ApiError> {
    let player = state.players.rename(&me, &req.name).await?;
    Ok(Json(info(&player)))
}

/// `DELETE /api/me`
pub async fn delete_me(
    State(state): State<AppState>,
    _: Open,
    origin: Origin,
    Me(me): Me,
) -> Result<Response, ApiError> {
    state.players.delete(&me).await?;
    Ok(signed_out(&origin))
}

/// `GET /api/sessions`
pub async fn sessions(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<Json<SessionList>, ApiError> {
    Ok(Json(SessionList {
        sessions: state.players.sessions(&me).await?,
    }))
}

/// `DELETE /api/sessions`: signs out everywhere.
pub async fn end_sessions(
    State(state): State<AppState>,
    _: Open,
    origin: Origin,
    Me(me): Me,
) -> Result<Response, ApiError> {
    state.players.end_sessions(&me).await?;
    Ok(signed_out(&origin))
}

/// `DELETE /api/sessions/{id}` (`current` for the call's own: signing out).
pub async fn end_session(
    State(state): State<AppState>,
    _: Open,
    origin: Origin,
    Me(me): Me,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = if id == "current" {
        me.session.id
    } else {
        Uuid::parse_str(&id).map_err(|_| LobbyError::SessionNotFound)?
    };
    state.players.end_session(&me, id).await?;
    if id == me.session.id {
        Ok(signed_out(&origin))
    } else {
        Ok(StatusCode::NO_CONTENT.into_response())
    }
}

/// `GET /api/me/passkeys`
pub async fn passkeys(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<Json<PasskeyList>, ApiError> {
    Ok(Json(PasskeyList {
        passkeys: state.players.passkeys().list(me.player.id).await?,
    }))
}

/// `POST /api/me/passkeys/start` (a costly call: each keeps a ceremony).
pub async fn passkey_register_start(
    State(state): State<AppState>,
    _: Open,
    _: Costly,
    Me(me): Me,
) -> Result<Json<PasskeyChallenge>, ApiError> {
    Ok(Json(state.players.passkeys().register_start(&me).await?))
}

/// `POST /api/me/passkeys/finish`
pub async fn passkey_register_finish(
    State(state): State<AppState>,
    _: Open,
    origin: Origin,
    Me(me): Me,
    ApiJson(req): ApiJson<PasskeyRegistrationRequest>,
) -> Result<(StatusCode, Json<PasskeyInfo>), ApiError> {
    let made = state
        .players
        .passkeys()
        .register_finish(
            &me,
            req.ceremony,
            req.credential,
            req.label.as_deref(),
            &label(&origin.headers),
        )
        .await?;
    Ok((StatusCode::CREATED, Json(made)))
}

/// `DELETE /api/me/passkeys/{id}`
pub async fn delete_passkey(
    State(state): State<AppState>,
    _: Open,
    Me(me): Me,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.players.passkeys().delete(me.player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/sessions/passkey/start`
pub async fn passkey_sign_in_start(
    State(state): State<AppState>,
    _: Open,
    ClientIp(ip): ClientIp,
) -> Result<Json<PasskeyChallenge>, ApiError> {
    Ok(Json(state.players.passkey_sign_in_start(ip).await?))
}

/// `POST /api/sessions/passkey/finish`
pub async fn passkey_sign_in_finish(
    State(state): State<AppState>,
    _: Open,
    origin: Origin,
    ApiJson(req): ApiJson<PasskeySignInRequest>,
) -> Result<Response, ApiError> {
    let made = state
        .players
        .passkey_sign_in_finish(req.ceremony, req.credential, &label(&origin.headers))
        .await?;
    Ok(signed_in(&state, &origin, made))
}
