//! Stored games as read: the rows of one statement ([`games_with_players`]: a
//! game's columns with one row per seat, its rating change joined) made into
//! [`GameRecord`]s.

use std::str::FromStr;

use catan_engine::Seat;
use catan_protocol::BotKind;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::{
    Finish, GameRecord, GameStatus, NewGame, PlayerRecord, RatingChange, StoreError, StoredOptions,
};

/// A stored value that does not read as what it should be.
pub(super) fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// A stored count or time (never negative when written by this store).
pub(super) fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A stored seat number.
pub(super) fn seat_of(n: i64) -> Result<Seat, StoreError> {
    u8::try_from(n).map(Seat).map_err(corrupt)
}

/// The player of a row of [`games_with_players`].
fn player(r: &AnyRow) -> Result<PlayerRecord, StoreError> {
    let bot: Option<String> = r.try_get("bot")?;
    Ok(PlayerRecord {
        seat: seat_of(r.try_get("seat")?)?,
        name: r.try_get("name")?,
        bot: bot
            .map(|b| b.parse::<BotKind>().map_err(corrupt))
            .transpose()?,
        token_hash: r.try_get("token_hash")?,
        final_vp: r
            .try_get::<Option<i64>, _>("final_vp")?
            .map(|v| u8::try_from(v).unwrap_or(0)),
        vp_cards: r
            .try_get::<Option<i64>, _>("vp_cards")?
            .map(|v| u8::try_from(v).unwrap_or(0)),
        player_id: r
            .try_get::<Option<String>, _>("player_id")?
            .map(|id| Uuid::parse_str(&id).map_err(corrupt))
            .transpose()?,
        rating: match r.try_get::<Option<i64>, _>("place")? {
            None => None,
            Some(place) => Some(RatingChange {
                place: u8::try_from(place).map_err(corrupt)?,
                before: catan_ratings::Skill {
                    mu: r.try_get("mu_before")?,
                    sigma: r.try_get("sigma_before")?,
                },
                after: catan_ratings::Skill {
                    mu: r.try_get("mu_after")?,
                    sigma: r.try_get("sigma_after")?,
                },
            }),
        },
    })
}

/// A game as one row of [`games_with_players`] has it, with `players`.
fn record(row: &AnyRow, players: Vec<PlayerRecord>) -> Result<GameRecord, StoreError> {
    let id: String = row.try_get("id")?;
    let options: String = row.try_get("options")?;
    let seed: String = row.try_get("seed")?;
    let finished = match row.try_get::<Option<i64>, _>("finished_at")? {
        Some(at) => {
            let scores: Option<String> = row.try_get("final_scores")?;
            Some(Finish {
                winner: row
                    .try_get::<Option<i64>, _>("winner")?
                    .map(seat_of)
                    .transpose()?,
                finished_at: to_u64(at),
                scores: serde_json::from_str(scores.as_deref().unwrap_or("[]")).map_err(corrupt)?,
                rated: None,
            })
        }
        None => None,
    };
    let status = match row.try_get::<String, _>("status")?.as_str() {
        "playing" => GameStatus::Playing,
        "finished" => GameStatus::Finished,
        "abandoned" => GameStatus::Abandoned,
        other => return Err(corrupt(format!("unknown game status {other:?}"))),
    };
    Ok(GameRecord {
        status,
        game: NewGame {
            id: Uuid::from_str(&id).map_err(corrupt)?,
            options: serde_json::from_str::<StoredOptions>(&options)
                .map_err(corrupt)?
                .into(),
            seed: seed.parse().map_err(corrupt)?,
            seed_salt: row.try_get("seed_salt")?,
            seed_commitment: row.try_get("seed_commitment")?,
            host_token_hash: row.try_get("host_token_hash")?,
            created_at: to_u64(row.try_get("created_at")?),
            started_at: to_u64(row.try_get("started_at")?),
            players: players.clone(),
        },
        finished,
        players,
        seq_reserved: row.try_get::<Option<i64>, _>("seq_reserved")?.map(to_u64),
        slept_seq: row.try_get::<Option<i64>, _>("slept_seq")?.map(to_u64),
    })
}

/// Games from the rows of one [`games_with_players`] statement: one row per seat,
/// a game's rows together, in seat order. One statement reads one consistent state
/// of the database: a result being written is seen whole or not at all.
pub(super) fn records(rows: &[AnyRow]) -> Result<Vec<GameRecord>, StoreError> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        let id: String = rows[start].try_get("id")?;
        let mut end = start + 1;
        while end < rows.len() && rows[end].try_get::<String, _>("id")? == id {
            end += 1;
        }
        let players = rows[start..end]
            .iter()
            .map(player)
            .collect::<Result<_, _>>()?;
        out.push(record(&rows[start], players)?);
        start = end;
    }
    Ok(out)
}

/// The columns of `games` a [`GameRecord`] is read from.
pub(super) const GAME_COLUMNS: &str = "id, options, seed, seed_salt, seed_commitment, host_token_hash, \
     status, created_at, started_at, finished_at, winner, final_scores, seq_reserved, slept_seq";

/// Games with their players in one statement: `{games}` is a subquery of `games`
/// (its filter, order and page), `{order}` the order of its games again (on `g`);
/// each game's seats follow in order.
pub(super) fn games_with_players(games: &str, order: &str) -> String {
    format!(
        "SELECT g.*, p.seat, p.name, p.bot, p.token_hash, p.final_vp, p.vp_cards, p.player_id, \
         r.place, r.mu_before, r.sigma_before, r.mu_after, r.sigma_after \
         FROM ({games}) g JOIN game_players p ON p.game_id = g.id \
         LEFT JOIN rating_changes r ON r.game_id = p.game_id AND r.seat = p.seat \
         ORDER BY {order}, p.seat"
    )
}
