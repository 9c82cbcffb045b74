//! `GET /api/me/games` (protocol 27.4): the signed-in player's games that are not
//! over, read from the store (started games, with the seats' clocks their rooms
//! last kept) and from this instance's rooms still gathering players.

use axum::Json;
use axum::extract::State;
use catan_protocol::{LobbyError, MyGame, MyGames, RoomStatus, SeatClock};
use uuid::Uuid;

use crate::AppState;
use crate::error::ApiError;
use crate::players::api::Me;
use crate::store::MyGameRow;

/// `GET /api/me/games`.
///
/// # Errors
/// `not_signed_in`, `store_unavailable`.
pub async fn my_games(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<Json<MyGames>, ApiError> {
    let player = me.player.id;
    let rows = state.store.my_games(player).await.map_err(|e| {
        tracing::warn!(error = %e, "could not read a player's games");
        LobbyError::StoreUnavailable
    })?;
    let mut games: Vec<MyGame> = rows
        .into_iter()
        .filter_map(|r| started(r, player))
        .collect();
    games.sort_by_key(|g| {
        let due = g.clock.and_then(|c| c.deadline);
        (!g.your_move, due, std::cmp::Reverse(g.started_at))
    });
    for (room, seat) in state.rooms.gathering_of(player) {
        if let Ok(info) = room.info().await {
            games.push(MyGame {
                room_id: info.id,
                status: RoomStatus::Lobby,
                seat,
                names: info
                    .seats
                    .iter()
                    .map(|s| s.occupant.as_ref().map(|o| o.name.clone()))
                    .collect(),
                options: info.options,
                your_move: false,
                to_move: Vec::new(),
                clock: None,
                started_at: None,
            });
        }
    }
    Ok(Json(MyGames { games }))
}

/// A started game as the list shows it to `player` (nothing if they hold no seat
/// in it any more).
fn started(row: MyGameRow, player: Uuid) -> Option<MyGame> {
    let g = &row.game;
    let seat = g.players.iter().find(|p| p.player_id == Some(player))?.seat;
    // An index the room rewrites at its next change: unreadable reads as none.
    let clocks: Vec<SeatClock> = row
        .clocks
        .as_deref()
        .and_then(|c| serde_json::from_str(c).ok())
        .unwrap_or_default();
    let to_move: Vec<_> = clocks
        .iter()
        .filter(|c| c.deadline.is_some())
        .map(|c| c.seat)
        .collect();
    Some(MyGame {
        room_id: g.game.id,
        status: RoomStatus::Playing,
        seat,
        names: g.players.iter().map(|p| Some(p.name.clone())).collect(),
        options: g.game.options,
        your_move: to_move.contains(&seat),
        to_move,
        clock: clocks.iter().find(|c| c.seat == seat).copied(),
        started_at: Some(g.game.started_at),
    })
}
