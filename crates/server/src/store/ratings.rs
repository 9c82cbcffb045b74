//! Ratings as stored (`players.rating_*`, `rating_changes`, `rating_seq`; migration
//! 0007): the update a rated game's result makes, in the transaction that stores
//! the result; the profile, the leaderboard; and the recomputation of every rating
//! from the stored games (`catan-server ratings`). The model is `catan_ratings`'.

use std::collections::BTreeMap;

use catan_protocol::BotKind;
use catan_ratings::{Entry, Ledger, Participant, Skill};
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::games::corrupt;
use super::group_commit::to_i64;
use super::{Place, PlayerRow, SqlStore, StoreError};

fn count(row: &AnyRow, column: &str) -> Result<u64, StoreError> {
    Ok(u64::try_from(row.try_get::<i64, _>(column)?).unwrap_or(0))
}

/// The identity of each built-in bot level (protocol 25.8): its seats name it as
/// their player, and its profile is read by it. Fixed, so that every server and
/// every version agree.
#[must_use]
pub fn bot_player_id(kind: BotKind) -> Uuid {
    let n: u128 = match kind {
        BotKind::Easy => 1,
        BotKind::Medium => 2,
        BotKind::Hard => 3,
        BotKind::Random => 4,
    };
    Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0b07_0000 | n)
}

/// The bot level whose identity `id` is, if it is one.
#[must_use]
pub fn bot_of_player_id(id: Uuid) -> Option<BotKind> {
    BotKind::ALL
        .iter()
        .copied()
        .find(|&k| bot_player_id(k) == id)
}

/// The name of a bot level's identity (clients name it in their language by its
/// level).
fn bot_name(kind: BotKind) -> String {
    let level = kind.name();
    let mut chars = level.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
    format!("{} bot", first.chain(chars).collect::<String>())
}

/// A player with their rating and record (`GET /api/players/{id}`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerStats {
    /// The player's row.
    pub row: PlayerRow,
    /// The rating.
    pub skill: Skill,
    /// Rated games played.
    pub rated_games: u64,
    /// Rated games won.
    pub rated_wins: u64,
    /// Finished games played, rated or not.
    pub games: u64,
    /// Finished games won.
    pub wins: u64,
}

/// A row of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderRow {
    /// The player's id.
    pub id: Uuid,
    /// Display name.
    pub name: String,
    /// The rating.
    pub skill: Skill,
    /// Rated games played.
    pub rated_games: u64,
    /// Rated games won.
    pub rated_wins: u64,
}

/// What recomputing every rating from the stored games found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recomputed {
    /// Rated games replayed.
    pub games: u64,
    /// Players with a rating.
    pub players: u64,
    /// Players whose stored rating is not the recomputed one, with both (stored
    /// first).
    pub differ: Vec<(Uuid, Skill, Skill)>,
}

/// One stored rated game, as its `rating_changes` rows have it.
struct RatedGame {
    /// The game's id.
    id: String,
    /// Its winner's seat.
    winner: Option<i64>,
    /// Its seats in order.
    seats: Vec<RatedSeat>,
}

/// A seat of a [`RatedGame`].
struct RatedSeat {
    seat: i64,
    player: Option<Uuid>,
    bot: Option<BotKind>,
    place: u8,
    before: Skill,
}

/// The "rank" key of the leaderboard: the displayed figure before scaling.
const SHOWN: &str = "(rating_mu - 3.0 * rating_sigma)";

/// The filter of the leaderboard: living players with a rated game (and, unless
/// `provisional`, a settled rating).
fn board_filter(provisional: bool) -> String {
    let settled = if provisional {
        String::new()
    } else {
        format!(" AND rating_sigma <= {}", catan_ratings::PROVISIONAL_SIGMA)
    };
    format!("deleted_at IS NULL AND rated_games > 0{settled}")
}

impl SqlStore {
    /// Updates the ratings of the players of rated game `game` (its result being
    /// stored in `tx`, once: the caller's status check), each seat at its place in
    /// `places`; `winner` counts a win. Bots play at their level's fixed rating; a
    /// seat without a player at a new player's, fixed.
    pub(super) async fn rate_in(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        game: &str,
        places: &[Place],
        winner: Option<catan_engine::Seat>,
    ) -> Result<(), StoreError> {
        // Taking the next number also queues concurrent rated results (PostgreSQL
        // holds this row's lock until the commit), so each reads the ratings the
        // one before it wrote.
        let seq: i64 =
            sqlx::query("UPDATE rating_seq SET last = last + 1 WHERE id = 1 RETURNING last")
                .fetch_one(&mut **tx)
                .await?
                .try_get("last")?;
        let seats = sqlx::query("SELECT seat, player_id, bot FROM game_players WHERE game_id = $1")
            .bind(game)
            .fetch_all(&mut **tx)
            .await?;
        let mut entries = Vec::with_capacity(places.len());
        let mut who = Vec::with_capacity(places.len());
        for p in places {
            let row = seats
                .iter()
                .find(|r| r.try_get::<i64, _>("seat").ok() == Some(i64::from(p.seat.0)))
                .ok_or_else(|| corrupt(format!("game {game} has no seat {}", p.seat.0)))?;
            let bot = row
                .try_get::<Option<String>, _>("bot")?
                .map(|b| b.parse::<BotKind>().map_err(corrupt))
                .transpose()?;
            let player = row
                .try_get::<Option<String>, _>("player_id")?
                .map(|id| Uuid::parse_str(&id).map_err(corrupt))
                .transpose()?;
            let (skill, rated) = match (bot, player) {
                (Some(kind), _) => (catan_ratings::bot_skill(kind).unwrap_or_default(), false),
                (None, Some(id)) => match self.skill_in(tx, id).await? {
                    Some(skill) => (skill, true),
                    None => (Skill::NEW, false),
                },
                (None, None) => (Skill::NEW, false),
            };
            entries.push(Entry {
                skill,
                place: p.place,
                fixed: !rated,
            });
            who.push((player, bot, rated));
        }
        let after = catan_ratings::rate(&entries);
        for (((p, e), skill), (player, bot, rated)) in
            places.iter().zip(&entries).zip(&after).zip(&who)
        {
            if *rated && let Some(id) = player {
                sqlx::query(
                    "UPDATE players SET rating_mu = $2, rating_sigma = $3, \
                     rated_games = rated_games + 1, rated_wins = rated_wins + $4 WHERE id = $1",
                )
                .bind(id.to_string())
                .bind(skill.mu)
                .bind(skill.sigma)
                .bind(i64::from(winner == Some(p.seat)))
                .execute(&mut **tx)
                .await?;
            }
            sqlx::query(
                "INSERT INTO rating_changes (game_id, seat, seq, player_id, bot, place, turns, \
                 stood_in, mu_before, sigma_before, mu_after, sigma_after) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )
            .bind(game)
            .bind(i64::from(p.seat.0))
            .bind(seq)
            .bind(
                player
                    .filter(|_| *rated || bot.is_some())
                    .map(|id| id.to_string()),
            )
            .bind(bot.map(BotKind::name))
            .bind(i64::from(p.place))
            .bind(i64::from(p.turns))
            .bind(i64::from(p.stood_in))
            .bind(e.skill.mu)
            .bind(e.skill.sigma)
            .bind(skill.mu)
            .bind(skill.sigma)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// The rating of player `id` as `tx` sees it; `None` if no such player.
    async fn skill_in(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: Uuid,
    ) -> Result<Option<Skill>, StoreError> {
        let row = sqlx::query("SELECT rating_mu, rating_sigma FROM players WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(&mut **tx)
            .await?;
        row.map(|r| {
            Ok(Skill {
                mu: r.try_get("rating_mu")?,
                sigma: r.try_get("rating_sigma")?,
            })
        })
        .transpose()
    }

    pub(super) async fn select_player_stats(
        &self,
        id: Uuid,
    ) -> Result<Option<PlayerStats>, StoreError> {
        if let Some(kind) = bot_of_player_id(id) {
            return self.bot_stats(id, kind).await.map(Some);
        }
        let Some(row) = self.select_player(id).await? else {
            return Ok(None);
        };
        let rated = sqlx::query(
            "SELECT rating_mu, rating_sigma, rated_games, rated_wins FROM players WHERE id = $1",
        )
        .bind(id.to_string())
        .fetch_one(self.pool())
        .await?;
        let (games, wins) = self.games_and_wins(id).await?;
        Ok(Some(PlayerStats {
            row,
            skill: Skill {
                mu: rated.try_get("rating_mu")?,
                sigma: rated.try_get("rating_sigma")?,
            },
            rated_games: count(&rated, "rated_games")?,
            rated_wins: count(&rated, "rated_wins")?,
            games,
            wins,
        }))
    }

    /// A bot level's identity: its fixed rating, its record from the stored games.
    async fn bot_stats(&self, id: Uuid, kind: BotKind) -> Result<PlayerStats, StoreError> {
        let rated = sqlx::query(
            "SELECT COUNT(*) AS games, COUNT(CASE WHEN g.winner = r.seat THEN 1 END) AS wins \
             FROM rating_changes r JOIN games g ON g.id = r.game_id WHERE r.player_id = $1",
        )
        .bind(id.to_string())
        .fetch_one(self.pool())
        .await?;
        let (games, wins) = self.games_and_wins(id).await?;
        Ok(PlayerStats {
            row: PlayerRow {
                id,
                name: bot_name(kind),
                password_hash: None,
                created_at: 0,
                deleted: false,
            },
            skill: catan_ratings::bot_skill(kind).unwrap_or_default(),
            rated_games: count(&rated, "games")?,
            rated_wins: count(&rated, "wins")?,
            games,
            wins,
        })
    }

    /// The finished games of the seats of player `id` (a person's, or a bot
    /// level's identity), and those it won.
    pub(super) async fn games_and_wins(&self, id: Uuid) -> Result<(u64, u64), StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS games, COUNT(CASE WHEN g.winner = p.seat THEN 1 END) AS wins \
             FROM game_players p JOIN games g ON g.id = p.game_id \
             WHERE p.player_id = $1 AND g.status = 'finished'",
        )
        .bind(id.to_string())
        .fetch_one(self.pool())
        .await?;
        Ok((count(&row, "games")?, count(&row, "wins")?))
    }

    pub(super) async fn select_leaderboard(
        &self,
        offset: u64,
        limit: u64,
        provisional: bool,
    ) -> Result<(Vec<(u64, LeaderRow)>, u64), StoreError> {
        let filter = board_filter(provisional);
        let total = sqlx::query(&format!("SELECT COUNT(*) AS n FROM players WHERE {filter}"))
            .fetch_one(self.pool())
            .await?;
        let total = count(&total, "n")?;
        let rows = sqlx::query(&format!(
            "SELECT id, name, rating_mu, rating_sigma, rated_games, rated_wins FROM players \
             WHERE {filter} ORDER BY {SHOWN} DESC, id LIMIT $1 OFFSET $2"
        ))
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(self.pool())
        .await?;
        let mut out: Vec<(u64, LeaderRow)> = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let row = LeaderRow {
                id: Uuid::parse_str(&r.try_get::<String, _>("id")?).map_err(corrupt)?,
                name: r.try_get("name")?,
                skill: Skill {
                    mu: r.try_get("rating_mu")?,
                    sigma: r.try_get("rating_sigma")?,
                },
                rated_games: count(r, "rated_games")?,
                rated_wins: count(r, "rated_wins")?,
            };
            // Equal shown ratings share a place: 1 + the players shown above.
            let rank = match out.last() {
                Some((rank, prev)) if prev.skill.display() == row.skill.display() => *rank,
                Some(_) => offset + i as u64 + 1,
                None => self.rank_of(&filter, row.skill).await?,
            };
            out.push((rank, row));
        }
        Ok((out, total))
    }

    /// The place on the board of a rating: 1 + the players (under `filter`) whose
    /// shown rating is higher.
    async fn rank_of(&self, filter: &str, skill: Skill) -> Result<u64, StoreError> {
        // Shown ratings are whole numbers: higher means above the next half point.
        let above = (f64::from(skill.display()) + 0.5 - catan_ratings::DISPLAY_BASE)
            / catan_ratings::DISPLAY_SCALE;
        let row = sqlx::query(&format!(
            "SELECT COUNT(*) AS n FROM players WHERE {filter} AND {SHOWN} >= $1"
        ))
        .bind(above)
        .fetch_one(self.pool())
        .await?;
        Ok(count(&row, "n")? + 1)
    }

    /// Replays every stored rated game in the order its update was made, from new
    /// ratings, and compares the result with the ratings stored; with `write`, the
    /// recomputed ratings (and rated games and wins) replace them.
    ///
    /// # Errors
    /// The store's; [`StoreError::Corrupt`] for a stored value that does not read.
    pub async fn recompute_ratings(&self, write: bool) -> Result<Recomputed, StoreError> {
        let rows = sqlx::query(
            "SELECT r.game_id, r.seat, r.player_id, r.bot, r.place, r.mu_before, r.sigma_before, \
             g.winner FROM rating_changes r JOIN games g ON g.id = r.game_id \
             ORDER BY r.seq, r.seat",
        )
        .fetch_all(self.pool())
        .await?;
        let mut games: Vec<RatedGame> = Vec::new();
        for r in &rows {
            let game: String = r.try_get("game_id")?;
            let seat = RatedSeat {
                seat: r.try_get("seat")?,
                player: r
                    .try_get::<Option<String>, _>("player_id")?
                    .map(|id| Uuid::parse_str(&id).map_err(corrupt))
                    .transpose()?,
                bot: r
                    .try_get::<Option<String>, _>("bot")?
                    .map(|b| b.parse::<BotKind>().map_err(corrupt))
                    .transpose()?,
                place: u8::try_from(r.try_get::<i64, _>("place")?).map_err(corrupt)?,
                before: Skill {
                    mu: r.try_get("mu_before")?,
                    sigma: r.try_get("sigma_before")?,
                },
            };
            match games.last_mut() {
                Some(g) if g.id == game => g.seats.push(seat),
                _ => games.push(RatedGame {
                    id: game,
                    winner: r.try_get("winner")?,
                    seats: vec![seat],
                }),
            }
        }
        let mut ledger: Ledger<Uuid> = Ledger::default();
        let mut record: BTreeMap<Uuid, (u64, u64)> = BTreeMap::new();
        for game in &games {
            let table: Vec<(Participant<Uuid>, u8)> = game
                .seats
                .iter()
                .map(|s| match (s.bot, s.player) {
                    (None, Some(id)) => (Participant::Player(id), s.place),
                    _ => (Participant::Fixed(s.before), s.place),
                })
                .collect();
            ledger.apply(&table);
            for s in &game.seats {
                if let (None, Some(id)) = (s.bot, s.player) {
                    let r = record.entry(id).or_default();
                    r.0 += 1;
                    r.1 += u64::from(game.winner == Some(s.seat));
                }
            }
        }
        let stored =
            sqlx::query("SELECT id, rating_mu, rating_sigma FROM players WHERE rated_games > 0")
                .fetch_all(self.pool())
                .await?;
        let mut differ = Vec::new();
        let mut seen = 0;
        for r in &stored {
            let id = Uuid::parse_str(&r.try_get::<String, _>("id")?).map_err(corrupt)?;
            let now = Skill {
                mu: r.try_get("rating_mu")?,
                sigma: r.try_get("rating_sigma")?,
            };
            let again = ledger.skill(&id);
            seen += 1;
            if now.mu.to_bits() != again.mu.to_bits()
                || now.sigma.to_bits() != again.sigma.to_bits()
            {
                differ.push((id, now, again));
            }
        }
        // A player the games rate but whose row says unrated differs too.
        for (id, skill) in ledger.iter() {
            if !stored
                .iter()
                .any(|r| r.try_get::<String, _>("id").ok() == Some(id.to_string()))
            {
                differ.push((*id, Skill::NEW, skill));
            }
        }
        if write {
            let mut tx = self.pool().begin().await?;
            sqlx::query(
                "UPDATE players SET rating_mu = $1, rating_sigma = $2, rated_games = 0, \
                 rated_wins = 0",
            )
            .bind(Skill::NEW.mu)
            .bind(Skill::NEW.sigma)
            .execute(&mut *tx)
            .await?;
            for (id, skill) in ledger.iter() {
                let (games, wins) = record.get(id).copied().unwrap_or_default();
                sqlx::query(
                    "UPDATE players SET rating_mu = $2, rating_sigma = $3, rated_games = $4, \
                     rated_wins = $5 WHERE id = $1",
                )
                .bind(id.to_string())
                .bind(skill.mu)
                .bind(skill.sigma)
                .bind(to_i64(games))
                .bind(to_i64(wins))
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
        }
        Ok(Recomputed {
            games: games.len() as u64,
            players: seen.max(ledger.iter().count() as u64),
            differ,
        })
    }
}
