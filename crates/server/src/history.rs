//! Finished games over HTTP: the list, one record, and the full replay (options, seed,
//! every action with every event unredacted: the game is over).

use axum::Json;
use axum::extract::{Path, Query, State};
use catan_engine::{Action, Event, FinalScore, Game, GameOptions, Seat};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::AppState;
use crate::error::LobbyError;
use crate::protocol::RoomOptions;
use crate::store::{GameQuery, GameRecord, GameStatus, PlayerRecord};

/// A stored game as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game's (and its room's) id.
    pub id: Uuid,
    /// `playing`, `finished` or `abandoned` (closed by an administrator mid-game).
    pub status: GameStatus,
    /// The room's options.
    pub options: RoomOptions,
    /// Start time, Unix ms.
    pub started_at: u64,
    /// End time, Unix ms.
    pub finished_at: Option<u64>,
    /// The winner.
    pub winner: Option<Seat>,
    /// Seats with names and results.
    pub players: Vec<PlayerRecord>,
    /// The commitment published at the start.
    pub seed_commitment: String,
    /// The seed, only once finished (decimal string).
    pub seed: Option<String>,
    /// The commitment's salt, only once finished.
    pub seed_salt: Option<String>,
}

impl From<&GameRecord> for GameSummary {
    fn from(r: &GameRecord) -> GameSummary {
        let done = r.finished.is_some();
        GameSummary {
            id: r.game.id,
            status: r.status,
            options: r.game.options,
            started_at: r.game.started_at,
            finished_at: r.finished.as_ref().map(|f| f.finished_at),
            winner: r.finished.as_ref().map(|f| f.winner),
            players: r.players.clone(),
            seed_commitment: r.game.seed_commitment.clone(),
            seed: done.then(|| r.game.seed.to_string()),
            seed_salt: done.then(|| r.game.seed_salt.clone()),
        }
    }
}

/// `GET /api/games` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameList {
    /// Finished games, newest first.
    pub games: Vec<GameSummary>,
    /// The page returned (from 1).
    pub page: u64,
    /// Games per page.
    pub per_page: u64,
}

/// Query of `GET /api/games`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    /// Page number from 1 (default 1).
    page: Option<u64>,
    /// Games per page (default 20, at most 100).
    per_page: Option<u64>,
    /// Only games with a seat of this display name.
    player: Option<String>,
}

/// One action of a replay with everything it caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayStep {
    /// Position in the log, from 0.
    pub seq: u64,
    /// The seat that acted; absent for the system (timers).
    pub seat: Option<Seat>,
    /// The action.
    pub action: Action,
    /// When it was accepted, Unix ms.
    pub at: u64,
    /// Every event, unredacted.
    pub events: Vec<Event>,
}

/// `GET /api/games/{id}/replay` answer: enough to rebuild the game exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The game.
    pub game: GameSummary,
    /// The engine options the game ran with.
    pub engine_options: GameOptions,
    /// Every action in order.
    pub actions: Vec<ReplayStep>,
    /// Final scores from re-running the log now (equal to the stored ones).
    pub final_scores: Vec<FinalScore>,
}

fn store_down(e: &crate::store::StoreError) -> LobbyError {
    tracing::warn!(error = %e, "store error");
    LobbyError::StoreUnavailable
}

/// `GET /api/games?page=&per_page=&player=`
pub async fn list_games(
    State(state): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Json<GameList>, LobbyError> {
    let per_page = q.per_page.unwrap_or(20).clamp(1, 100);
    let page = q.page.unwrap_or(1).max(1);
    let query = GameQuery {
        player: q.player,
        offset: (page - 1) * per_page,
        limit: per_page,
    };
    let games = state
        .store
        .finished_games(&query)
        .await
        .map_err(|e| store_down(&e))?;
    Ok(Json(GameList {
        games: games.iter().map(GameSummary::from).collect(),
        page,
        per_page,
    }))
}

async fn record(state: &AppState, id: &str) -> Result<GameRecord, LobbyError> {
    let id = Uuid::parse_str(id).map_err(|_| LobbyError::RoomNotFound)?;
    state
        .store
        .game(id)
        .await
        .map_err(|e| store_down(&e))?
        .ok_or(LobbyError::RoomNotFound)
}

/// `GET /api/games/{id}`
pub async fn get_game(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameSummary>, LobbyError> {
    Ok(Json(GameSummary::from(&record(&state, &id).await?)))
}

/// `GET /api/games/{id}/replay` (finished games only).
pub async fn replay(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Replay>, LobbyError> {
    let rec = record(&state, &id).await?;
    if rec.finished.is_none() {
        return Err(LobbyError::GameNotFinished);
    }
    let log = state
        .store
        .actions(rec.game.id)
        .await
        .map_err(|e| store_down(&e))?;
    let o = rec.game.options;
    let engine_options = GameOptions {
        players: o.players,
        vp_target: o.vp_target,
        map: o.map,
    };
    let mut game = Game::new(engine_options, rec.game.seed)
        .map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
    let mut actions = Vec::with_capacity(log.len());
    for a in &log {
        let events = game.apply(a.actor(), a.action).map_err(|e| {
            tracing::error!(game = %rec.game.id, seq = a.seq, code = e.code(), "stored log does not replay");
            LobbyError::StoreUnavailable
        })?;
        actions.push(ReplayStep {
            seq: a.seq,
            seat: a.seat,
            action: a.action,
            at: a.at,
            events,
        });
    }
    Ok(Json(Replay {
        game: GameSummary::from(&rec),
        engine_options,
        actions,
        final_scores: game.final_scores(),
    }))
}
