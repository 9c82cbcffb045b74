//! Profiles and the leaderboard (docs/protocol/25-players.md, 25.8 and 25.9):
//! anyone may read a player's rating, record and recent games, and the board of
//! rated players. Nothing here is secret: a profile shows what the player's seats
//! in listed rooms show anyway, and never a session or an account's password.

use axum::Json;
use axum::extract::{Path, State};
use catan_protocol::{
    Leaderboard, LeaderboardEntry, LeaderboardQuery, LobbyError, PlayerProfile, ProfileQuery,
    RatingInfo,
};
use catan_ratings::Skill;
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiError, ApiQuery};
use crate::history::{store_down, summary};
use crate::store::{GameQuery, bot_of_player_id};

/// Most entries or games in one page.
const MAX_PAGE: u64 = 100;

/// A rating as shown.
fn rating(skill: Skill, games: u64) -> RatingInfo {
    RatingInfo {
        value: skill.display(),
        provisional: skill.provisional(),
        games,
    }
}

/// `GET /api/players/{id}?offset=&limit=`
pub async fn profile(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<ProfileQuery>,
) -> Result<Json<PlayerProfile>, ApiError> {
    let id = Uuid::parse_str(&id).map_err(|_| LobbyError::PlayerNotFound)?;
    let page = (q.offset.unwrap_or(0), q.limit.unwrap_or(20));
    Ok(Json(profile_of(&state, id, page).await?))
}

/// Player `id`'s profile with the page `(offset, limit)` of their recent games.
///
/// # Errors
/// `player_not_found`, `store_unavailable`.
pub async fn profile_of(
    state: &AppState,
    id: Uuid,
    (offset, limit): (u64, u64),
) -> Result<PlayerProfile, ApiError> {
    let stats = state
        .store
        .player_stats(id)
        .await
        .map_err(|e| store_down(&e))?
        .ok_or(LobbyError::PlayerNotFound)?;
    let query = GameQuery {
        player: None,
        player_id: Some(id),
        offset,
        limit: limit.clamp(1, MAX_PAGE),
    };
    let recent = state
        .store
        .finished_games(&query)
        .await
        .map_err(|e| store_down(&e))?;
    Ok(PlayerProfile {
        id,
        name: stats.row.name.clone(),
        account: stats.row.password_hash.is_some(),
        bot: bot_of_player_id(id),
        rating: rating(stats.skill, stats.rated_games),
        games: stats.games,
        wins: stats.wins,
        recent: recent.iter().map(summary).collect(),
    })
}

/// `GET /api/leaderboard?offset=&limit=&provisional=`
pub async fn leaderboard(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<LeaderboardQuery>,
) -> Result<Json<Leaderboard>, ApiError> {
    let offset = q.offset.unwrap_or(0);
    let limit = q.limit.unwrap_or(50).clamp(1, MAX_PAGE);
    let (rows, total) = state
        .store
        .leaderboard(offset, limit, q.provisional.unwrap_or(false))
        .await
        .map_err(|e| store_down(&e))?;
    Ok(Json(Leaderboard {
        entries: rows
            .into_iter()
            .map(|(rank, r)| LeaderboardEntry {
                rank,
                id: r.id,
                name: r.name,
                rating: rating(r.skill, r.rated_games),
                wins: r.rated_wins,
            })
            .collect(),
        offset,
        total,
    }))
}
