//! The one wrapper around the store the server uses: every call bounded in time
//! (`--store-timeout-ms`, retries included), the writes that a hiccup of the
//! database should not fail retried by their policy ([`super::retry`]), and every
//! write attempt timed into the `catan_store_write_seconds` histogram. A slow or
//! hung database makes a call fail as [`StoreError::Unavailable`] once the bound
//! has passed, so that nothing waiting on the store (a room, a lobby or history
//! request, `/readyz`) waits longer than that.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use backon::{ExponentialBuilder, Retryable};
use tokio::time::Instant;
use tracing::debug;
use uuid::Uuid;

use super::{
    ActionRecord, CeremonyKind, CeremonyRow, ChannelRow, Claim, Claimed, DaysStore, Finish,
    GameQuery, GameRecord, LeaderRow, LobbyRecord, ModerationRow, MyGameRow, NewGame, NotifyStore,
    OutboxRow, PartyJoin, PartyRow, PasskeyRow, PendingTable, PlayerRow, PlayerStats, QueueRow,
    QueueSeat, QueueStore, QueueTable, SanctionRow, SessionRow, Store, StoreError, retry,
};
use crate::metrics::Metrics;

/// How many times the limit the start-up read of unfinished games may take.
const STARTUP_FACTOR: u32 = 10;

/// Bounds, retries and times the calls of `inner`.
pub struct Guarded {
    /// The store doing the work.
    inner: Arc<dyn Store>,
    /// The longest wait for one call, retries included.
    limit: Duration,
    /// Where write durations go.
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Guarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guarded")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// The error of a call that did not answer within `limit`.
fn timed_out(call: &str, limit: Duration) -> StoreError {
    StoreError::Unavailable(
        format!(
            "the database did not answer {call} within {} ms",
            limit.as_millis()
        )
        .into(),
    )
}

impl Guarded {
    /// Wraps `inner`: each call bounded by `limit`, writes timed into `metrics`.
    #[must_use]
    pub fn new(inner: Arc<dyn Store>, limit: Duration, metrics: Arc<Metrics>) -> Guarded {
        Guarded {
            inner,
            limit,
            metrics,
        }
    }

    /// A read, bounded by `limit`.
    async fn read<T>(
        &self,
        call: &'static str,
        limit: Duration,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(limit, work).await {
            Ok(out) => out,
            Err(_) => Err(timed_out(call, limit)),
        }
    }

    /// A write: each attempt timed, retried by `policy` (none: one attempt) while
    /// the error is transient, all within the bound.
    async fn write<T, Fut>(
        &self,
        call: &'static str,
        policy: Option<ExponentialBuilder>,
        mut attempt: impl FnMut() -> Fut,
    ) -> Result<T, StoreError>
    where
        Fut: Future<Output = Result<T, StoreError>>,
    {
        let mut timed = || {
            let work = attempt();
            async move {
                let start = Instant::now();
                let out = work.await;
                self.metrics.store_write.observe(start.elapsed());
                out
            }
        };
        let attempts = async {
            match policy {
                None => timed().await,
                Some(policy) => timed
                    .retry(policy)
                    .sleep(tokio::time::sleep)
                    .when(StoreError::is_transient)
                    .notify(
                        |e, wait| debug!(call, error = %e, ?wait, "store write failed; retrying"),
                    )
                    .await,
            }
        };
        self.read(call, self.limit, attempts).await
    }
}

#[async_trait]
impl Store for Guarded {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.write("create_game", None, || self.inner.create_game(game))
            .await
    }
    /// Retried over a hiccup of the database ([`retry::brief`]): an action the
    /// store did not take is refused to its player, so it is worth a few tries
    /// within the bound.
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        self.write("append_action", Some(retry::brief()), || {
            self.inner.append_action(game, action)
        })
        .await
    }
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        self.write("finish_game", None, || self.inner.finish_game(game, finish))
            .await
    }
    /// Retried like an append: a game not marked abandoned is restored after a
    /// restart.
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        self.write("abandon_game", Some(retry::brief()), || {
            self.inner.abandon_game(game)
        })
        .await
    }
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        self.write("reserve_seq", None, || self.inner.reserve_seq(game, up_to))
            .await
    }
    /// Read once, at start-up, before the server serves (nothing waits on it but
    /// the start-up itself), and the largest read there is: bounded by ten times
    /// the limit, so that a large database does not keep the server from starting.
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let limit = self.limit * STARTUP_FACTOR;
        self.read("unfinished_games", limit, self.inner.unfinished_games())
            .await
    }
    async fn finished_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        self.read(
            "finished_games",
            self.limit,
            self.inner.finished_games(query),
        )
        .await
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        self.read("game", self.limit, self.inner.game(id)).await
    }
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        self.read("actions", self.limit, self.inner.actions(id))
            .await
    }
    async fn health(&self) -> Result<(), StoreError> {
        self.read("health", self.limit, self.inner.health()).await
    }
    async fn save_lobby(&self, lobby: &LobbyRecord) -> Result<(), StoreError> {
        self.write("save_lobby", Some(retry::brief()), || {
            self.inner.save_lobby(lobby)
        })
        .await
    }
    async fn drop_lobby(&self, id: Uuid) -> Result<(), StoreError> {
        self.write("drop_lobby", Some(retry::brief()), || {
            self.inner.drop_lobby(id)
        })
        .await
    }
    /// Read once at start-up, like the unfinished games.
    async fn lobbies(&self) -> Result<Vec<LobbyRecord>, StoreError> {
        let limit = self.limit * STARTUP_FACTOR;
        self.read("lobbies", limit, self.inner.lobbies()).await
    }
    async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        self.write("create_player", None, || self.inner.create_player(player))
            .await
    }
    async fn create_session(
        &self,
        session: &SessionRow,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        self.write("create_session", None, || {
            self.inner.create_session(session, token_hash)
        })
        .await
    }
    async fn session(
        &self,
        token_hash: &str,
        now: u64,
    ) -> Result<Option<(SessionRow, PlayerRow)>, StoreError> {
        self.read("session", self.limit, self.inner.session(token_hash, now))
            .await
    }
    async fn player(&self, id: Uuid) -> Result<Option<PlayerRow>, StoreError> {
        self.read("player", self.limit, self.inner.player(id)).await
    }
    async fn account(&self, name_key: &str) -> Result<Option<PlayerRow>, StoreError> {
        self.read("account", self.limit, self.inner.account(name_key))
            .await
    }
    async fn claim(
        &self,
        id: Uuid,
        name: &str,
        name_key: &str,
        password_hash: &str,
        at: u64,
    ) -> Result<Claim, StoreError> {
        self.write("claim", None, || {
            self.inner.claim(id, name, name_key, password_hash, at)
        })
        .await
    }
    async fn rename_player(
        &self,
        id: Uuid,
        name: &str,
        name_key: Option<&str>,
    ) -> Result<(), StoreError> {
        self.write("rename_player", None, || {
            self.inner.rename_player(id, name, name_key)
        })
        .await
    }
    async fn sessions(&self, player: Uuid, now: u64) -> Result<Vec<SessionRow>, StoreError> {
        self.read("sessions", self.limit, self.inner.sessions(player, now))
            .await
    }
    async fn end_session(&self, player: Uuid, session: Uuid) -> Result<bool, StoreError> {
        self.write("end_session", Some(retry::brief()), || {
            self.inner.end_session(player, session)
        })
        .await
    }
    async fn end_sessions(&self, player: Uuid) -> Result<u64, StoreError> {
        self.write("end_sessions", Some(retry::brief()), || {
            self.inner.end_sessions(player)
        })
        .await
    }
    async fn player_stats(&self, id: Uuid) -> Result<Option<PlayerStats>, StoreError> {
        self.read("player_stats", self.limit, self.inner.player_stats(id))
            .await
    }
    async fn leaderboard(
        &self,
        offset: u64,
        limit: u64,
        provisional: bool,
    ) -> Result<(Vec<(u64, LeaderRow)>, u64), StoreError> {
        self.read(
            "leaderboard",
            self.limit,
            self.inner.leaderboard(offset, limit, provisional),
        )
        .await
    }
    async fn delete_player(&self, id: Uuid, at: u64) -> Result<(), StoreError> {
        self.write("delete_player", Some(retry::brief()), || {
            self.inner.delete_player(id, at)
        })
        .await
    }
    async fn find_players(
        &self,
        name: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<PlayerRow>, u64), StoreError> {
        self.read(
            "find_players",
            self.limit,
            self.inner.find_players(name, offset, limit),
        )
        .await
    }
    async fn sanctions(
        &self,
        player: Option<Uuid>,
        now: u64,
    ) -> Result<Vec<SanctionRow>, StoreError> {
        self.read("sanctions", self.limit, self.inner.sanctions(player, now))
            .await
    }
    async fn moderate(&self, entry: &ModerationRow) -> Result<bool, StoreError> {
        self.write("moderate", Some(retry::brief()), || {
            self.inner.moderate(entry)
        })
        .await
    }
    async fn moderation_log(&self, player: Uuid) -> Result<Vec<ModerationRow>, StoreError> {
        self.read(
            "moderation_log",
            self.limit,
            self.inner.moderation_log(player),
        )
        .await
    }
    async fn add_passkey(&self, passkey: &PasskeyRow) -> Result<bool, StoreError> {
        // One attempt: a retry after an insert that landed would read as a conflict.
        self.write("add_passkey", None, || self.inner.add_passkey(passkey))
            .await
    }
    async fn passkeys(&self, player: Uuid) -> Result<Vec<PasskeyRow>, StoreError> {
        self.read("passkeys", self.limit, self.inner.passkeys(player))
            .await
    }
    async fn passkey_used(&self, id: &str, credential: &str, at: u64) -> Result<(), StoreError> {
        self.write("passkey_used", Some(retry::brief()), || {
            self.inner.passkey_used(id, credential, at)
        })
        .await
    }
    async fn delete_passkey(&self, player: Uuid, id: &str) -> Result<bool, StoreError> {
        self.write("delete_passkey", Some(retry::brief()), || {
            self.inner.delete_passkey(player, id)
        })
        .await
    }
    async fn start_ceremony(&self, ceremony: &CeremonyRow, now: u64) -> Result<(), StoreError> {
        self.write("start_ceremony", Some(retry::brief()), || {
            self.inner.start_ceremony(ceremony, now)
        })
        .await
    }
    async fn take_ceremony(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        now: u64,
    ) -> Result<Option<CeremonyRow>, StoreError> {
        // One attempt: a ceremony is taken once.
        self.write("take_ceremony", None, || {
            self.inner.take_ceremony(id, kind, now)
        })
        .await
    }
}

#[async_trait]
impl QueueStore for Guarded {
    async fn queue_join(&self, rows: &[QueueRow]) -> Result<bool, StoreError> {
        // One attempt: a retry after a join that landed would read as a conflict.
        self.write("queue_join", None, || self.inner.queue_join(rows))
            .await
    }
    async fn queue_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        self.write("queue_leave", Some(retry::brief()), || {
            self.inner.queue_leave(player)
        })
        .await
    }
    async fn queued(&self, player: Uuid) -> Result<Option<QueueRow>, StoreError> {
        self.read("queued", self.limit, self.inner.queued(player))
            .await
    }
    async fn queue_waiting(&self) -> Result<Vec<QueueRow>, StoreError> {
        self.read("queue_waiting", self.limit, self.inner.queue_waiting())
            .await
    }
    async fn queue_seat(
        &self,
        table: &QueueTable,
        seats: &[(Uuid, QueueSeat)],
    ) -> Result<bool, StoreError> {
        // One attempt: the table is given up and formed again if it fails.
        self.write("queue_seat", None, || self.inner.queue_seat(table, seats))
            .await
    }
    async fn queue_pending(&self) -> Result<Vec<PendingTable>, StoreError> {
        self.read("queue_pending", self.limit, self.inner.queue_pending())
            .await
    }
    async fn queue_drop(&self, player: Uuid, room: Uuid) -> Result<bool, StoreError> {
        self.write("queue_drop", Some(retry::brief()), || {
            self.inner.queue_drop(player, room)
        })
        .await
    }
    async fn queue_started(&self, room: Uuid) -> Result<(), StoreError> {
        self.write("queue_started", Some(retry::brief()), || {
            self.inner.queue_started(room)
        })
        .await
    }
    async fn queue_unseat(&self, room: Uuid, requeue: bool) -> Result<(), StoreError> {
        self.write("queue_unseat", Some(retry::brief()), || {
            self.inner.queue_unseat(room, requeue)
        })
        .await
    }
    async fn queue_forget(&self, before: u64) -> Result<u64, StoreError> {
        self.write("queue_forget", Some(retry::brief()), || {
            self.inner.queue_forget(before)
        })
        .await
    }
    async fn party_create(
        &self,
        code: &str,
        leader: Uuid,
        name: &str,
        at: u64,
    ) -> Result<(), StoreError> {
        self.write("party_create", None, || {
            self.inner.party_create(code, leader, name, at)
        })
        .await
    }
    async fn party_join(
        &self,
        code: &str,
        player: Uuid,
        name: &str,
        at: u64,
        most: u8,
    ) -> Result<PartyJoin, StoreError> {
        self.write("party_join", None, || {
            self.inner.party_join(code, player, name, at, most)
        })
        .await
    }
    async fn party_of(&self, player: Uuid) -> Result<Option<PartyRow>, StoreError> {
        self.read("party_of", self.limit, self.inner.party_of(player))
            .await
    }
    async fn party_leave(&self, player: Uuid) -> Result<bool, StoreError> {
        self.write("party_leave", Some(retry::brief()), || {
            self.inner.party_leave(player)
        })
        .await
    }
}

#[async_trait]
impl NotifyStore for Guarded {
    async fn notify_key(&self, name: &str, fresh: &str, at: u64) -> Result<String, StoreError> {
        self.write("notify_key", Some(retry::brief()), || {
            self.inner.notify_key(name, fresh, at)
        })
        .await
    }
    async fn add_channel(
        &self,
        row: &ChannelRow,
        unsubscribe_hash: &str,
    ) -> Result<(), StoreError> {
        self.write("add_channel", None, || {
            self.inner.add_channel(row, unsubscribe_hash)
        })
        .await
    }
    async fn channels(&self, player: Uuid) -> Result<Vec<ChannelRow>, StoreError> {
        self.read("channels", self.limit, self.inner.channels(player))
            .await
    }
    async fn delete_channel(&self, player: Option<Uuid>, id: Uuid) -> Result<bool, StoreError> {
        self.write("delete_channel", Some(retry::brief()), || {
            self.inner.delete_channel(player, id)
        })
        .await
    }
    async fn channel_by_unsubscribe(&self, hash: &str) -> Result<Option<ChannelRow>, StoreError> {
        self.read(
            "channel_by_unsubscribe",
            self.limit,
            self.inner.channel_by_unsubscribe(hash),
        )
        .await
    }
    /// Retried: a row queued twice is stored once (its dedupe key).
    async fn enqueue_notices(&self, rows: &[OutboxRow]) -> Result<u64, StoreError> {
        self.write("enqueue_notices", Some(retry::brief()), || {
            self.inner.enqueue_notices(rows)
        })
        .await
    }
    async fn drop_notices(&self, dedupe_key: &str) -> Result<u64, StoreError> {
        self.write("drop_notices", Some(retry::brief()), || {
            self.inner.drop_notices(dedupe_key)
        })
        .await
    }
    /// One attempt: the worker claims again at its next round.
    async fn claim_notices(
        &self,
        now: u64,
        until: u64,
        limit: u64,
    ) -> Result<Vec<Claimed>, StoreError> {
        self.write("claim_notices", None, || {
            self.inner.claim_notices(now, until, limit)
        })
        .await
    }
    async fn settle_notice(&self, row: &OutboxRow) -> Result<(), StoreError> {
        self.write("settle_notice", Some(retry::brief()), || {
            self.inner.settle_notice(row)
        })
        .await
    }
    async fn notice_log(
        &self,
        player: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        self.read(
            "notice_log",
            self.limit,
            self.inner.notice_log(player, limit),
        )
        .await
    }
}

#[async_trait]
impl DaysStore for Guarded {
    async fn save_clocks(
        &self,
        game: Uuid,
        clocks: &str,
        next_deadline: Option<u64>,
    ) -> Result<(), StoreError> {
        self.write("save_clocks", None, || {
            self.inner.save_clocks(game, clocks, next_deadline)
        })
        .await
    }
    async fn sleep_game(&self, game: Uuid, seq: u64, backlog: &str) -> Result<(), StoreError> {
        self.write("sleep_game", None, || {
            self.inner.sleep_game(game, seq, backlog)
        })
        .await
    }
    async fn wake_game(&self, game: Uuid, up_to: u64) -> Result<bool, StoreError> {
        self.write("wake_game", Some(retry::brief()), || {
            self.inner.wake_game(game, up_to)
        })
        .await
    }
    async fn slept_backlog(&self, game: Uuid) -> Result<Option<String>, StoreError> {
        self.read("slept_backlog", self.limit, self.inner.slept_backlog(game))
            .await
    }
    async fn due_sleepers(&self, by: u64) -> Result<Vec<Uuid>, StoreError> {
        self.read("due_sleepers", self.limit, self.inner.due_sleepers(by))
            .await
    }
    async fn my_games(&self, player: Uuid) -> Result<Vec<MyGameRow>, StoreError> {
        self.read("my_games", self.limit, self.inner.my_games(player))
            .await
    }
}
