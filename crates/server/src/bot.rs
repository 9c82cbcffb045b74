//! Built-in bots. A bot is a client like any other: it attaches to its seat through
//! the room handle with its seat token, sees only its own redacted messages, and
//! sends actions that the room validates through the engine. It runs the one bot
//! driver ([`catan_bots::SeatDriver`]) over an in-process channel: the room hands it
//! typed messages ([`Outbound::Message`]), nothing is serialized on the way. A
//! stand-in for an absent person (`stand_in`) is the same bot on a connection the
//! room attached for it, without the seat's token.
//!
//! A `hard` bot searches its setup placements and the places of its turns (where it
//! builds, where the robber goes, whether to play a Knight before the roll) for up
//! to its budget each (see [`catan_bots::Budget`]): every decision runs on tokio's
//! blocking threads (`spawn_blocking`), never on the async workers, and at most
//! `search_threads` searches run at once (a semaphore), so many hard bots queue
//! for the cores instead of taking them all, and those threads run at idle
//! priority, so a search only ever takes CPU time that no connection wants.

use std::sync::Arc;
use std::time::Duration;

use catan_bots::{Budget, SearchBot, SeatDriver, Strategy};
use catan_protocol::{BotKind, ClientMessage};
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::sync::Semaphore;
use tokio::sync::mpsc::Receiver;
use tracing::debug;

use crate::room::{BotRunner, Connected, Outbound, RoomHandle};

/// How built-in bots play (flags of `catan-server`).
#[derive(Clone, Debug, clap::Args)]
pub struct BotConfig {
    /// Pause of built-in bots before each action, in milliseconds.
    #[arg(long, env = "CATAN_BOT_THINK_MS", default_value_t = 500)]
    pub bot_think_ms: u64,

    /// Search time of a `hard` bot per decision, in milliseconds.
    #[arg(long, env = "CATAN_BOT_SEARCH_MS", default_value_t = 200)]
    pub bot_search_ms: u64,

    /// Blocking threads that run `hard` bots' searches at once (a decision waits for
    /// a free one); 0: one per CPU core.
    #[arg(long, env = "CATAN_BOT_SEARCH_THREADS", default_value_t = 0)]
    pub bot_search_threads: usize,
}

impl BotConfig {
    /// What built-in bots are started with.
    #[must_use]
    pub fn settings(&self) -> BotSettings {
        BotSettings {
            think: Duration::from_millis(self.bot_think_ms),
            search: Budget {
                time: Some(Duration::from_millis(self.bot_search_ms.max(1))),
                ..Budget::default()
            },
            search_threads: self.bot_search_threads,
        }
    }
}

/// The shortest wait after a refusal before the bot asks for a fresh snapshot, times
/// the refusals in a row (a refused store write means the database is struggling).
const REFUSAL_BACKOFF: Duration = Duration::from_millis(100);
/// The longest such wait.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How long a bot waits for answers to its own offer before it decides
/// without them (and withdraws the offer): counted from the offer, whatever other
/// messages come meanwhile, and short, so that a bot's offer never holds the game
/// (a person need not answer it). The room's `trade_timeout_secs` is unchanged.
pub const OFFER_PATIENCE: Duration = Duration::from_secs(4);

/// What built-in bots are started with (from the server's configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotSettings {
    /// Pause before each action.
    pub think: Duration,
    /// A `hard` bot's budget per decision.
    pub search: Budget,
    /// Searches at once at most; 0: one per CPU core.
    pub search_threads: usize,
}

/// The server's built-in bots: how they play, and the slots that bound how many
/// `hard` searches run at once (one semaphore per server, shared by its bots).
#[derive(Debug, Clone)]
pub struct Bots {
    /// Think time and search budget.
    settings: BotSettings,
    /// Searches running at once at most.
    search: Arc<Semaphore>,
}

impl Bots {
    /// Bots that play with `settings`; `search_threads` 0 gives one search slot per
    /// CPU core.
    #[must_use]
    pub fn new(settings: BotSettings) -> Bots {
        let n = if settings.search_threads == 0 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            settings.search_threads
        };
        Bots {
            settings,
            search: Arc::new(Semaphore::new(n)),
        }
    }

    /// The same bots with another think time (tests).
    #[must_use]
    pub fn thinking(mut self, think: Duration) -> Bots {
        self.settings.think = think;
        self
    }
}

impl BotRunner for Bots {
    fn seat(&self, room: RoomHandle, token: String, kind: BotKind) {
        let bots = self.clone();
        tokio::spawn(async move {
            let Ok(conn) = room.connect_in_process(token).await else {
                return;
            };
            bots.run(room, conn, kind, rand::random()).await;
        });
    }

    fn stand_in(&self, room: RoomHandle, conn: Connected, kind: BotKind) {
        let bots = self.clone();
        tokio::spawn(async move { bots.run(room, conn, kind, rand::random()).await });
    }
}

/// Puts the calling blocking thread at idle priority, once (`SCHED_IDLE` on Linux,
/// which needs no privilege): a search then takes only CPU time that no task
/// serving connections wants, so hard bots never slow the rooms of people (a
/// search on a busy machine gets fewer playouts within its budget instead).
/// Elsewhere, or if the system refuses, the thread stays as it is.
fn idle_priority() {
    thread_local! {
        static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if DONE.with(|done| done.replace(true)) {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id,
        };
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        if let Err(e) = set_thread_priority_and_policy(
            thread_native_id(),
            thread_priority::ThreadPriority::Min,
            idle,
        ) {
            debug!(?e, "search thread keeps its priority");
        }
    }
}

impl Bots {
    /// Plays `conn`'s seat, then detaches the connection.
    async fn run(self, room: RoomHandle, conn: Connected, kind: BotKind, seed: u64) {
        let conn_id = conn.conn;
        let search = (kind == BotKind::Hard).then(|| self.search.clone());
        play(&room, conn, self.settings, search, kind, seed).await;
        room.disconnect(conn_id).await;
    }
}

/// Hands `first` and every message queued behind it to the driver; false once the
/// room is gone.
fn drain(driver: &mut SeatDriver, conn: &mut Connected, first: Option<Outbound>) -> bool {
    let mut next = first;
    loop {
        match next.take() {
            Some(Outbound::Message(msg)) => driver.observe(&msg),
            // The room serializes for sockets only: every connection in this process
            // has a seat (its token's, or the one it stands in for), and each message
            // to one is typed (`outbox::outbound`, the events, `send_all`); the
            // spectators' shared text goes to connections without a seat.
            Some(Outbound::Text(_)) => {
                unreachable!("the room sent JSON text to an in-process connection")
            }
            None => {}
        }
        match conn.rx.try_recv() {
            Ok(out) => next = Some(out),
            Err(tokio::sync::mpsc::error::TryRecvError::Empty) => return true,
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => return false,
        }
    }
}

/// A seat's player: the driver, the strategy and its randomness, moved as one onto
/// a blocking thread for a search.
struct Player {
    driver: SeatDriver,
    strategy: Box<dyn Strategy + Send>,
    rng: StdRng,
    /// When the bot began waiting for answers to its own offer (the patience runs
    /// from then, not from the last message).
    waiting_since: Option<tokio::time::Instant>,
}

impl Player {
    /// The driver's next message; on a blocking thread, holding a search slot, when
    /// `search` is set. `None` as the player if the blocking task failed.
    async fn decide(
        mut self,
        search: Option<Arc<Semaphore>>,
    ) -> (Option<Player>, Option<ClientMessage>) {
        let Some(slots) = search else {
            let msg = self.driver.decide(self.strategy.as_mut(), &mut self.rng);
            return (Some(self), msg);
        };
        let Ok(_permit) = slots.acquire_owned().await else {
            return (None, None);
        };
        let task = tokio::task::spawn_blocking(move || {
            idle_priority();
            let msg = self.driver.decide(self.strategy.as_mut(), &mut self.rng);
            (self, msg)
        });
        match task.await {
            Ok((p, msg)) => (Some(p), msg),
            Err(_) => (None, None),
        }
    }
}

/// What the bot waits for next.
#[derive(Debug)]
enum Next {
    /// A message from the room.
    Message(Outbound),
    /// The room is gone.
    Gone,
    /// The patience for answers to its own offer ran out first: decide without.
    Patience,
}

/// The next message for the bot, or why there is none.
async fn next(player: &mut Player, rx: &mut Receiver<Outbound>) -> Next {
    let got = |out: Option<Outbound>| out.map_or(Next::Gone, Next::Message);
    if !player.driver.waiting_for_answers() {
        player.waiting_since = None;
        return got(rx.recv().await);
    }
    let since = *player
        .waiting_since
        .get_or_insert_with(tokio::time::Instant::now);
    if let Ok(out) = tokio::time::timeout_at(since + OFFER_PATIENCE, rx.recv()).await {
        return got(out);
    }
    player.waiting_since = None;
    player.driver.stop_waiting();
    Next::Patience
}

/// Plays the seat of `conn` with the strategy of `kind` until the game ends or the
/// room goes away.
async fn play(
    room: &RoomHandle,
    mut conn: Connected,
    settings: BotSettings,
    search: Option<Arc<Semaphore>>,
    kind: BotKind,
    seed: u64,
) {
    let strategy: Box<dyn Strategy + Send> = match kind {
        BotKind::Hard => Box::new(SearchBot::new(settings.search)),
        k => catan_bots::strategy(k),
    };
    let mut player = Player {
        driver: SeatDriver::new(),
        strategy,
        rng: StdRng::seed_from_u64(seed),
        waiting_since: None,
    };
    loop {
        match next(&mut player, &mut conn.rx).await {
            Next::Message(out) => {
                if !drain(&mut player.driver, &mut conn, Some(out)) || player.driver.over() {
                    return;
                }
            }
            Next::Gone => return,
            // Nothing new: the patience for answers ran out; decide all the same.
            Next::Patience => {}
        }
        if !player.driver.ready() {
            continue;
        }
        let refusals = player.driver.backoff();
        let wait = if refusals > 0 {
            (REFUSAL_BACKOFF * refusals)
                .min(MAX_BACKOFF)
                .max(settings.think)
        } else {
            settings.think
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
            // What arrived meanwhile may change the decision (or end the game).
            if !drain(&mut player.driver, &mut conn, None) || player.driver.over() {
                return;
            }
        }
        let (back, msg) = player.decide(search.clone()).await;
        let Some(back) = back else { return };
        player = back;
        let Some(msg) = msg else { continue };
        debug!(seat = conn.seat.map(|s| s.0), ?msg, "bot acts");
        if !room.client_message(conn.conn, msg).await {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::thread::ThreadId;

    use catan_engine::{Action, Game, GameOptions, GameView};
    use catan_protocol::{
        PROTOCOL_VERSION, RoomInfo, RoomOptions, RoomStatus, ServerMessage, Snapshot,
    };
    use rand::RngCore;

    use super::*;

    /// Records the thread it decides on (and, on Linux, whether that thread runs at
    /// idle priority), and takes the first legal action.
    struct Probe(Seen);

    /// Where the probe decided: its thread, and whether at idle priority.
    type Seen = Arc<Mutex<Option<(ThreadId, bool)>>>;

    /// Whether the calling thread is scheduled `SCHED_IDLE`.
    fn at_idle_priority() -> bool {
        #[cfg(target_os = "linux")]
        {
            use thread_priority::unix::{
                NormalThreadSchedulePolicy, ThreadSchedulePolicy, thread_schedule_policy,
            };
            thread_schedule_policy().ok()
                == Some(ThreadSchedulePolicy::Normal(
                    NormalThreadSchedulePolicy::Idle,
                ))
        }
        #[cfg(not(target_os = "linux"))]
        false
    }

    impl Strategy for Probe {
        fn name(&self) -> &'static str {
            "probe"
        }

        fn choose(&mut self, _: &GameView, legal: &[Action], _: &mut dyn RngCore) -> Action {
            *self.0.lock().unwrap() = Some((std::thread::current().id(), at_idle_priority()));
            legal[0]
        }
    }

    /// A player whose driver may act now (the first placement of a new game).
    fn ready_player() -> (Player, Seen) {
        let (player, seen) = player_in(&Game::new(GameOptions::default(), 1).unwrap());
        assert!(player.driver.ready());
        (player, seen)
    }

    /// A player of the current seat of `game`, having seen its snapshot.
    fn player_in(game: &Game) -> (Player, Seen) {
        let seat = game.current();
        let room = RoomInfo {
            id: uuid::Uuid::nil(),
            status: RoomStatus::Playing,
            options: RoomOptions::default(),
            seats: Vec::new(),
            created_at: 0,
            seed_commitment: None,
        };
        let mut driver = SeatDriver::new();
        driver.observe(&ServerMessage::Snapshot(Box::new(Snapshot {
            protocol_version: PROTOCOL_VERSION,
            room,
            you: Some(seat),
            seq: 1,
            view: Some(game.view(Some(seat))),
            legal: game.legal_actions(seat),
            deadline: None,
            offer_deadlines: Vec::new(),
            clocks: Vec::new(),
            game_over: None,
            rematch: None,
        })));
        let seen = Arc::new(Mutex::new(None));
        let player = Player {
            driver,
            strategy: Box::new(Probe(seen.clone())),
            rng: StdRng::seed_from_u64(1),
            waiting_since: None,
        };
        (player, seen)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_search_runs_on_a_blocking_thread_not_on_the_async_worker() {
        let (player, seen) = ready_player();
        let (back, msg) = player.decide(Some(Arc::new(Semaphore::new(1)))).await;
        assert!(back.is_some() && matches!(msg, Some(ClientMessage::Action { .. })));
        let (on, idle) = seen.lock().unwrap().expect("the strategy decided");
        assert_ne!(
            on,
            std::thread::current().id(),
            "not on the runtime's thread"
        );
        assert_eq!(
            idle,
            cfg!(target_os = "linux"),
            "searches run at idle priority"
        );
        // Without a search (the other kinds), the decision stays where it is, at
        // the runtime's own priority.
        let (player, seen) = ready_player();
        player.decide(None).await;
        assert_eq!(
            seen.lock().unwrap().unwrap(),
            (std::thread::current().id(), false)
        );
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_search_waits_for_a_free_slot() {
        let slots = Arc::new(Semaphore::new(1));
        let held = slots.clone().acquire_owned().await.unwrap();
        let (player, seen) = ready_player();
        let decision = tokio::spawn(player.decide(Some(slots.clone())));
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert!(!decision.is_finished(), "no slot, no search");
        assert!(seen.lock().unwrap().is_none());
        drop(held);
        let (back, msg) = decision.await.unwrap();
        assert!(back.is_some() && msg.is_some());
        assert_eq!(slots.available_permits(), 1, "the slot is given back");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn other_messages_do_not_extend_the_patience_for_answers_to_an_own_offer() {
        // the bot's offer lapses OFFER_PATIENCE after it was made even while
        // messages keep coming (here one a second), so it never holds the game.
        let mut game = Game::new(GameOptions::default(), 3).unwrap();
        let mut random = catan_engine::playout::RandomPlayer::new(3);
        while game.phase() != catan_engine::Phase::Main {
            random.step(&mut game, &mut Vec::new()).unwrap();
        }
        let seat = game.current();
        let offer = game
            .legal_actions(seat)
            .into_iter()
            .find(|a| matches!(a, Action::OfferTrade { .. }))
            .expect("the seat holds cards to offer");
        game.apply(seat, offer).unwrap();
        let (mut player, _) = player_in(&game);
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                if tx
                    .send(Outbound::Message(Arc::new(ServerMessage::Pong {
                        request_id: None,
                    })))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
        let started = tokio::time::Instant::now();
        let mut messages = 0;
        while let Next::Message(_) = next(&mut player, &mut rx).await {
            messages += 1;
            assert!(
                started.elapsed() < OFFER_PATIENCE * 2,
                "the patience ran out"
            );
        }
        assert_eq!(started.elapsed(), OFFER_PATIENCE);
        assert!(messages >= 3, "{messages} messages came meanwhile");
        assert!(player.driver.ready(), "decides without the answers");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn an_own_offer_is_awaited_for_the_patience_then_the_bot_decides() {
        // a game in its first trade-and-build phase with an offer of the
        // current seat that nobody has answered.
        let mut game = Game::new(GameOptions::default(), 3).unwrap();
        let mut random = catan_engine::playout::RandomPlayer::new(3);
        while game.phase() != catan_engine::Phase::Main {
            random.step(&mut game, &mut Vec::new()).unwrap();
        }
        let seat = game.current();
        let offer = game
            .legal_actions(seat)
            .into_iter()
            .find(|a| matches!(a, Action::OfferTrade { .. }))
            .expect("the seat holds cards to offer");
        game.apply(seat, offer).unwrap();
        let (mut player, _) = player_in(&game);
        assert!(player.driver.waiting_for_answers() && !player.driver.ready());
        let (_tx, mut rx) = tokio::sync::mpsc::channel(4);
        let started = tokio::time::Instant::now();
        assert!(
            matches!(next(&mut player, &mut rx).await, Next::Patience),
            "no message came"
        );
        assert_eq!(started.elapsed(), OFFER_PATIENCE);
        assert!(player.driver.ready(), "decides without the answers");
        let withdraw = player.driver.decide(
            catan_bots::strategy(BotKind::Medium).as_mut(),
            &mut player.rng,
        );
        assert!(
            matches!(
                withdraw,
                Some(ClientMessage::Action {
                    action: Action::WithdrawOffer { .. },
                    ..
                })
            ),
            "{withdraw:?}"
        );
    }
}
