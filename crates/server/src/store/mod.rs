//! Persistence: one interface, two databases (PostgreSQL, or an embedded SQLite file
//! by default). A game is a row, its players, and an append-only action log; replay
//! rebuilds the game from the log. Rooms write each action before broadcasting it.

mod config;
mod days;
mod error;
mod fence;
mod games;
mod group_commit;
mod guarded;
mod leases;
mod lobbies;
mod moderation;
mod notify;
mod options;
mod passkeys;
mod players;
mod queue;
mod ratings;
pub mod retry;
mod single;
mod sql;

use async_trait::async_trait;
use catan_engine::{Action, Actor, FinalScore, Seat};
use catan_protocol::{BotKind, PlayerResult, RoomOptions};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use config::{ConfigError, StoreConfig};
pub use error::StoreError;
pub use fence::{Fence, NO_EPOCH};
pub use guarded::Guarded;
pub use leases::Leases;

pub use days::DaysStore;
pub use moderation::{ModerationRow, SanctionKind, SanctionRow};
pub use notify::{ChannelRow, Claimed, NotifyStore, OutboxRow, OutboxStatus};
pub use options::StoredOptions;
pub use passkeys::{CeremonyKind, CeremonyRow, PasskeyRow};
pub use players::DELETED_NAME;
pub use queue::{PartyJoin, PartyRow, PendingTable, QueueRow, QueueSeat, QueueStore, QueueTable};
pub use ratings::{LeaderRow, PlayerStats, Recomputed, bot_of_player_id, bot_player_id};
pub use retry::connect_at_start;
pub use single::{LockError, SqliteLock, lock as lock_sqlite};
pub use sql::SqlStore;

/// A seat as stored (a row of `game_players`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRecord {
    /// The seat.
    pub seat: Seat,
    /// Display name.
    pub name: String,
    /// Bot kind, for built-in bots.
    pub bot: Option<BotKind>,
    /// SHA-256 of the seat token (the token itself is never stored).
    pub token_hash: String,
    /// Final victory points, once finished.
    pub final_vp: Option<u8>,
    /// Victory Point cards revealed at the end.
    pub vp_cards: Option<u8>,
    /// The player (protocol section 25) whose seat it was, when a signed-in person
    /// took it, or a built-in bot level's identity ([`bot_player_id`]); `None` for
    /// seats taken without a session, and in games stored before players existed.
    pub player_id: Option<Uuid>,
    /// What the game did to the seat's rating, in a finished rated game (as read
    /// back; not written through this field).
    pub rating: Option<RatingChange>,
}

impl PlayerRecord {
    /// The seat as the history API shows it (no token hash).
    #[must_use]
    pub fn result(&self) -> PlayerResult {
        PlayerResult {
            seat: self.seat,
            name: self.name.clone(),
            bot: self.bot,
            final_vp: self.final_vp,
            vp_cards: self.vp_cards,
            player_id: self.player_id,
            rating: self.rating.map(|r| catan_protocol::RatingChange {
                place: r.place,
                before: r.before.display(),
                after: r.after.display(),
                provisional: r.after.provisional(),
            }),
        }
    }
}

/// What is stored when a game starts.
#[derive(Debug, Clone, PartialEq)]
pub struct NewGame {
    /// The room's id, which is also the game's.
    pub id: Uuid,
    /// Room options.
    pub options: RoomOptions,
    /// The seed (secret until the game ends).
    pub seed: u64,
    /// Random salt of the seed commitment.
    pub seed_salt: String,
    /// SHA-256 of `"{seed}:{salt}"`, published at the start.
    pub seed_commitment: String,
    /// SHA-256 of the host token.
    pub host_token_hash: String,
    /// Room creation time, Unix ms.
    pub created_at: u64,
    /// Game start time, Unix ms.
    pub started_at: u64,
    /// The seats.
    pub players: Vec<PlayerRecord>,
}

/// A room still gathering players, as stored so that it survives a restart.
#[derive(Debug, Clone, PartialEq)]
pub struct LobbyRecord {
    /// The room's id (its game's, once started).
    pub id: Uuid,
    /// The room's options.
    pub options: RoomOptions,
    /// SHA-256 of the host token.
    pub host_token_hash: String,
    /// Room creation time, Unix ms.
    pub created_at: u64,
    /// The seats taken so far (`final_vp` and `vp_cards` unset).
    pub players: Vec<PlayerRecord>,
    /// The number of the room's last broadcast when written.
    pub seq: u64,
}

/// One accepted action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// Position in the game's log, from 0.
    pub seq: u64,
    /// The room-wide sequence number of the broadcast that announced it.
    pub room_seq: u64,
    /// The seat that acted, or `None` for the system (timers).
    pub seat: Option<Seat>,
    /// The action.
    pub action: Action,
    /// When it was accepted, Unix ms.
    pub at: u64,
    /// Whether a stand-in bot took it for the seat's absent person (rated games
    /// place a person it replaced too often last: `catan_ratings::Seated`).
    /// Actions stored before this was kept read as `false`.
    #[serde(default)]
    pub stand_in: bool,
}

impl ActionRecord {
    /// Whether `other` is the same action at the same place in the log (whenever
    /// each was taken).
    #[must_use]
    pub fn same_action(&self, other: &ActionRecord) -> bool {
        (self.seq, self.room_seq, self.seat, self.action)
            == (other.seq, other.room_seq, other.seat, other.action)
    }

    /// Who acted, as the engine sees it.
    #[must_use]
    pub fn actor(&self) -> Actor {
        self.seat.map_or(Actor::System, Actor::Seat)
    }
}

/// The result stored when a game ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    /// The winner; `None` when the turn limit ended the game, stored as a
    /// NULL `winner`.
    pub winner: Option<Seat>,
    /// When, Unix ms.
    pub finished_at: u64,
    /// Everyone's final score with VP cards revealed.
    pub scores: Vec<FinalScore>,
    /// In a rated room, every seat's place in the final order: storing the result
    /// then updates its players' ratings in the same transaction, once
    /// ([`Store::finish_game`]). `None` for an unrated room, and as read back (a
    /// stored game's rating changes are its seats', [`PlayerRecord::rating`]).
    pub rated: Option<Vec<Place>>,
}

/// A seat's place in the final order of a rated game (`catan_ratings::places`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The seat.
    pub seat: Seat,
    /// 1 is first; ties share a place.
    pub place: u8,
    /// The seat's turns.
    pub turns: u32,
    /// Those a stand-in bot played for its person.
    pub stood_in: u32,
}

/// What a rated game did to a seat's rating (a row of `rating_changes`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    /// The seat's place in the final order.
    pub place: u8,
    /// The rating before the game.
    pub before: catan_ratings::Skill,
    /// The rating after it (the same for a bot's fixed rating).
    pub after: catan_ratings::Skill,
}

/// Where a stored game stands (the `status` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameStatus {
    /// Being played (or waiting to be restored after a restart).
    Playing,
    /// Over, with a result.
    Finished,
    /// Closed by an administrator before it ended; its log is kept.
    Abandoned,
}

impl GameStatus {
    /// The value of the `status` column.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Playing => "playing",
            GameStatus::Finished => "finished",
            GameStatus::Abandoned => "abandoned",
        }
    }
}

impl From<GameStatus> for catan_protocol::GameStatus {
    fn from(s: GameStatus) -> catan_protocol::GameStatus {
        match s {
            GameStatus::Playing => catan_protocol::GameStatus::Playing,
            GameStatus::Finished => catan_protocol::GameStatus::Finished,
            GameStatus::Abandoned => catan_protocol::GameStatus::Abandoned,
        }
    }
}

/// A stored game, with or without its log.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// Everything stored at the start.
    pub game: NewGame,
    /// Playing, finished or abandoned.
    pub status: GameStatus,
    /// The result, once finished.
    pub finished: Option<Finish>,
    /// The seats with their results.
    pub players: Vec<PlayerRecord>,
    /// The highest sequence number reserved for the room's broadcasts
    /// ([`Store::reserve_seq`]); `None` for a game stored before reservations
    /// existed, or before the room made its first.
    pub seq_reserved: Option<u64>,
    /// The number of the last broadcast of a room that went to sleep (a game over
    /// days with nobody there, protocol 27.5): woken, it numbers on from exactly
    /// there. `None` while it is awake.
    pub slept_seq: Option<u64>,
}

/// A game of a player's as their list of games has it (`GET /api/me/games`).
#[derive(Debug, Clone, PartialEq)]
pub struct MyGameRow {
    /// The game and its seats.
    pub game: GameRecord,
    /// Each seat's clock as the room last kept it (JSON), in a game over days.
    pub clocks: Option<String>,
}

/// Which finished games to list.
#[derive(Debug, Clone, Default)]
pub struct GameQuery {
    /// Only games in which a seat had this display name.
    pub player: Option<String>,
    /// Only games in which a seat was this player's (protocol 25.7).
    pub player_id: Option<Uuid>,
    /// Games to skip (newest first).
    pub offset: u64,
    /// At most this many.
    pub limit: u64,
}

/// A player as stored (a row of `players`): a guest, or an account once its name is
/// claimed with a password.
#[derive(Clone, PartialEq, Eq)]
pub struct PlayerRow {
    /// The player's id (public: it names the player in the API).
    pub id: Uuid,
    /// Display name.
    pub name: String,
    /// The Argon2id PHC string of an account's password; `None` for a guest.
    pub password_hash: Option<String>,
    /// When the player was created (Unix milliseconds).
    pub created_at: u64,
    /// Whether the player deleted itself (its name is then [`DELETED_NAME`]).
    pub deleted: bool,
}

impl std::fmt::Debug for PlayerRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password's hash stays out of logs.
        f.debug_struct("PlayerRow")
            .field("id", &self.id)
            .field("account", &self.password_hash.is_some())
            .field("deleted", &self.deleted)
            .finish_non_exhaustive()
    }
}

/// A session as stored (a row of `sessions`), without its token's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The session's public id (to list and revoke it; not its token).
    pub id: Uuid,
    /// Whose session it is.
    pub player_id: Uuid,
    /// What it was opened from (the client's `User-Agent`, shortened), to tell
    /// sessions apart in a list.
    pub label: String,
    /// When it was opened (Unix milliseconds).
    pub created_at: u64,
    /// When it ends (Unix milliseconds).
    pub expires_at: u64,
}

/// What claiming an account did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// The guest is an account now.
    Claimed,
    /// The player was already an account (or is deleted): nothing changed.
    AlreadyClaimed,
}

/// The refusal of a store that keeps no players (the test doubles).
pub(super) fn keeps_no_players() -> StoreError {
    StoreError::Unavailable("this store keeps no players".into())
}

/// The storage interface every room and endpoint goes through.
#[async_trait]
pub trait Store: QueueStore + NotifyStore + DaysStore + Send + Sync + 'static {
    /// Records a game at its start.
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError>;
    /// Appends one action; `(game, seq)` is unique, so a duplicate fails.
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError>;
    /// Marks a game that is being played finished with its results; in a rated
    /// room ([`Finish::rated`]) its players' ratings are updated in the same
    /// transaction. Storing a result that is stored already changes nothing (no
    /// second rating update), so a retry after an answer that was lost is safe.
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError>;
    /// Marks a game that is still being played as abandoned (an administrator closed
    /// its room), so that it is not restored after a restart. Its log is kept.
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError>;
    /// Records that the room of `game` may number its broadcasts up to `up_to`
    /// (`games.seq_reserved`; never lowered): a room restored after a restart
    /// numbers its broadcasts after it.
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError>;
    /// Games started and not finished, for restoring rooms after a restart; not
    /// those whose room sleeps ([`Store::sleep_game`]): they are woken when needed.
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError>;
    /// Finished games of listed rooms, newest first (an unlisted room's game is
    /// reachable by its id alone).
    async fn finished_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError>;
    /// One game, with its players, read in one statement: a result being stored
    /// is seen whole or not at all.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if no game has this id.
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError>;
    /// A game's action log in order.
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError>;
    /// Whether the database answers.
    async fn health(&self) -> Result<(), StoreError>;
    /// Keeps (or replaces) a room still gathering players. The default keeps none:
    /// a store without it loses such rooms at a restart.
    async fn save_lobby(&self, lobby: &LobbyRecord) -> Result<(), StoreError> {
        let _ = lobby;
        Ok(())
    }
    /// Forgets a room still gathering players (closed, or removed for being idle);
    /// nothing if it is not kept. A room's row also goes when its game is created.
    async fn drop_lobby(&self, id: Uuid) -> Result<(), StoreError> {
        let _ = id;
        Ok(())
    }
    /// The rooms still gathering players, for restoring them after a restart.
    async fn lobbies(&self) -> Result<Vec<LobbyRecord>, StoreError> {
        Ok(Vec::new())
    }
    /// Records a new player (a guest). The default keeps none (as the other player
    /// calls): such a store answers every player call `Unavailable`.
    async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Records a session of `session.player_id` whose token has digest `token_hash`.
    async fn create_session(
        &self,
        session: &SessionRow,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        let _ = (session, token_hash);
        Err(keeps_no_players())
    }
    /// The unexpired session whose token has digest `token_hash`, with its player
    /// (not deleted), if any.
    async fn session(
        &self,
        token_hash: &str,
        now: u64,
    ) -> Result<Option<(SessionRow, PlayerRow)>, StoreError> {
        let _ = (token_hash, now);
        Err(keeps_no_players())
    }
    /// The player with this id, if any (deleted ones too).
    async fn player(&self, id: Uuid) -> Result<Option<PlayerRow>, StoreError> {
        let _ = id;
        Err(keeps_no_players())
    }
    /// The account whose name has key `name_key`, if any.
    async fn account(&self, name_key: &str) -> Result<Option<PlayerRow>, StoreError> {
        let _ = name_key;
        Err(keeps_no_players())
    }
    /// Makes guest `id` an account named `name` (key `name_key`, unique among
    /// accounts: [`StoreError::Conflict`] when taken).
    async fn claim(
        &self,
        id: Uuid,
        name: &str,
        name_key: &str,
        password_hash: &str,
        at: u64,
    ) -> Result<Claim, StoreError> {
        let _ = (id, name, name_key, password_hash, at);
        Err(keeps_no_players())
    }
    /// Renames player `id`; an account's key becomes `name_key`
    /// ([`StoreError::Conflict`] when another account has it).
    async fn rename_player(
        &self,
        id: Uuid,
        name: &str,
        name_key: Option<&str>,
    ) -> Result<(), StoreError> {
        let _ = (id, name, name_key);
        Err(keeps_no_players())
    }
    /// The unexpired sessions of `player`, newest first.
    async fn sessions(&self, player: Uuid, now: u64) -> Result<Vec<SessionRow>, StoreError> {
        let _ = (player, now);
        Err(keeps_no_players())
    }
    /// Ends session `session` of `player`: whether there was one.
    async fn end_session(&self, player: Uuid, session: Uuid) -> Result<bool, StoreError> {
        let _ = (player, session);
        Err(keeps_no_players())
    }
    /// Ends every session of `player`: how many there were.
    async fn end_sessions(&self, player: Uuid) -> Result<u64, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Player `id` with their rating and record; `None` if there is no such
    /// player.
    async fn player_stats(&self, id: Uuid) -> Result<Option<PlayerStats>, StoreError> {
        let _ = id;
        Err(keeps_no_players())
    }
    /// A page of the leaderboard (living players with a rated game, best shown
    /// rating first; unless `provisional`, settled ratings only), each with its
    /// place; and the number of players it holds.
    async fn leaderboard(
        &self,
        offset: u64,
        limit: u64,
        provisional: bool,
    ) -> Result<(Vec<(u64, LeaderRow)>, u64), StoreError> {
        let _ = (offset, limit, provisional);
        Err(keeps_no_players())
    }
    /// Adds passkey `passkey` to its account: false, and nothing added, when its
    /// player is not a living account; a credential id already kept is a
    /// [`StoreError::Conflict`].
    async fn add_passkey(&self, passkey: &PasskeyRow) -> Result<bool, StoreError> {
        let _ = passkey;
        Err(keeps_no_players())
    }
    /// The passkeys of `player`, oldest first.
    async fn passkeys(&self, player: Uuid) -> Result<Vec<PasskeyRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
    /// Records a sign-in with passkey `id` at `at` and its updated `credential`
    /// (its signature counter).
    async fn passkey_used(&self, id: &str, credential: &str, at: u64) -> Result<(), StoreError> {
        let _ = (id, credential, at);
        Err(keeps_no_players())
    }
    /// Deletes passkey `id` of `player`: false when `player` has none with that id.
    async fn delete_passkey(&self, player: Uuid, id: &str) -> Result<bool, StoreError> {
        let _ = (player, id);
        Err(keeps_no_players())
    }
    /// Keeps passkey ceremony `ceremony` until it is taken or expires (the
    /// ceremonies expired at `now` go).
    async fn start_ceremony(&self, ceremony: &CeremonyRow, now: u64) -> Result<(), StoreError> {
        let _ = (ceremony, now);
        Err(keeps_no_players())
    }
    /// Takes ceremony `id` of `kind`, once: `None` when there is none, it was
    /// taken already, or it expired before `now`.
    async fn take_ceremony(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        now: u64,
    ) -> Result<Option<CeremonyRow>, StoreError> {
        let _ = (id, kind, now);
        Err(keeps_no_players())
    }
    /// Deletes player `id`: its sessions end, its name becomes [`DELETED_NAME`] on
    /// its row and on every stored seat it had, its name is free again; the games
    /// stay.
    async fn delete_player(&self, id: Uuid, at: u64) -> Result<(), StoreError> {
        let _ = (id, at);
        Err(keeps_no_players())
    }
    /// A page of the players whose name contains `name` (any case; every player
    /// without it), newest first, and how many match.
    async fn find_players(
        &self,
        name: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<PlayerRow>, u64), StoreError> {
        let _ = (name, offset, limit);
        Err(keeps_no_players())
    }
    /// The bans and mutes in force at `now`: of `player`, or of everyone.
    async fn sanctions(
        &self,
        player: Option<Uuid>,
        now: u64,
    ) -> Result<Vec<SanctionRow>, StoreError> {
        let _ = (player, now);
        Err(keeps_no_players())
    }
    /// Takes moderation action `entry` (a ban or mute replaces the one in force; a
    /// ban ends every session) and logs it, in one transaction: false, and nothing
    /// done, when there is no such player.
    async fn moderate(&self, entry: &ModerationRow) -> Result<bool, StoreError> {
        let _ = entry;
        Err(keeps_no_players())
    }
    /// Every moderation action taken on `player`, newest first.
    async fn moderation_log(&self, player: Uuid) -> Result<Vec<ModerationRow>, StoreError> {
        let _ = player;
        Err(keeps_no_players())
    }
}

/// SHA-256 of `s`, as hex.
#[must_use]
pub fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(s.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The published commitment to a seed (issue: fairness): SHA-256 of `"{seed}:{salt}"`.
#[must_use]
pub fn seed_commitment(seed: u64, salt: &str) -> String {
    sha256_hex(&format!("{seed}:{salt}"))
}
