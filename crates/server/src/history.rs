//! Finished games over HTTP: the list, one record, and the full replay (options, seed,
//! the map, seat order and first player re-derived from the seed, the spectator's
//! view at the start, every action with every event unredacted: the game is over,
//! and the game's statistics).

use axum::Json;
use axum::extract::{Path, State};
use catan_engine::rules::setup_seat;
use catan_engine::{Replay as EngineReplay, Tally};
use catan_protocol::{GameList, GameListQuery, GameSummary, Replay, ReplayStep};
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiError, ApiQuery, LobbyError};
use crate::store::{GameQuery, GameRecord, PlayerRecord, StoreError};

/// A stored game as the wire shows it: the seed and salt only once finished.
pub(crate) fn summary(r: &GameRecord) -> GameSummary {
    let done = r.finished.is_some();
    GameSummary {
        id: r.game.id,
        status: r.status.into(),
        options: r.game.options,
        started_at: r.game.started_at,
        finished_at: r.finished.as_ref().map(|f| f.finished_at),
        winner: r.finished.as_ref().and_then(|f| f.winner),
        players: r.players.iter().map(PlayerRecord::result).collect(),
        seed_commitment: r.game.seed_commitment.clone(),
        seed: done.then(|| r.game.seed.to_string()),
        seed_salt: done.then(|| r.game.seed_salt.clone()),
    }
}

pub(crate) fn store_down(e: &StoreError) -> LobbyError {
    tracing::warn!(error = %e, "store error");
    LobbyError::StoreUnavailable
}

/// `GET /api/games?page=&per_page=&player=`
pub async fn list_games(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<GameListQuery>,
) -> Result<Json<GameList>, ApiError> {
    let per_page = q.per_page.unwrap_or(20).clamp(1, 100);
    let page = q.page.unwrap_or(1).max(1);
    let query = GameQuery {
        player: q.player,
        player_id: None,
        offset: (page - 1) * per_page,
        limit: per_page,
    };
    let games = state
        .store
        .finished_games(&query)
        .await
        .map_err(|e| store_down(&e))?;
    Ok(Json(GameList {
        games: games.iter().map(summary).collect(),
        page,
        per_page,
    }))
}

async fn record(state: &AppState, id: &str) -> Result<GameRecord, LobbyError> {
    let id = Uuid::parse_str(id).map_err(|_| LobbyError::RoomNotFound)?;
    match state.store.game(id).await {
        Ok(game) => Ok(game),
        Err(StoreError::NotFound(_)) => Err(LobbyError::RoomNotFound),
        Err(e) => Err(store_down(&e)),
    }
}

/// `GET /api/games/{id}`
pub async fn get_game(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameSummary>, ApiError> {
    Ok(Json(summary(&record(&state, &id).await?)))
}

/// `GET /api/games/{id}/replay` (finished games only).
pub async fn replay(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Replay>, ApiError> {
    let rec = record(&state, &id).await?;
    if rec.finished.is_none() {
        return Err(LobbyError::GameNotFinished.into());
    }
    let log = state
        .store
        .actions(rec.game.id)
        .await
        .map_err(|e| store_down(&e))?;
    let engine_options = rec.game.options.game;
    let mut replay = EngineReplay::new(
        engine_options,
        rec.game.seed,
        log.iter().map(|a| (a.actor(), a.action)),
    )
    .map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
    let start_game = replay.game();
    let (map, robber_start, first) = (
        start_game.map().clone(),
        start_game.robber(),
        start_game.first(),
    );
    let start = start_game.view(None);
    let mut tally = Tally::default();
    let seat_order = (0..engine_options.players)
        .map(|i| setup_seat(first, engine_options.players, i))
        .collect();
    let mut actions = Vec::with_capacity(log.len());
    // A log past the turn limit (written before it existed) ends at the limit, as the
    // restored game did.
    while let Some(step) = replay.next() {
        let step = step.map_err(|e| {
            let seq = e.index().map(|i| log[i].seq);
            tracing::error!(game = %rec.game.id, ?seq, code = e.code(), "stored log does not replay");
            LobbyError::StoreUnavailable
        })?;
        let a = &log[step.index];
        tally.record(&step.events);
        let game = replay.game();
        actions.push(ReplayStep {
            seq: a.seq,
            seat: a.seat,
            action: a.action,
            at: a.at,
            events: step.events,
            public_vp: game.seats().map(|s| game.public_vp(s)).collect(),
        });
    }
    let game = replay.into_game();
    Ok(Json(Replay {
        game: summary(&rec),
        engine_options,
        map,
        robber_start,
        first,
        seat_order,
        start,
        actions,
        final_scores: game.final_scores(),
        stats: tally.stats(&game),
    }))
}
