//! Rooms as actors: a [`RoomHandle`] (cheap to clone, a bounded channel) talks to the
//! one task that owns the room's game. Requests that need an answer carry a oneshot.

mod config;
mod state;
mod task;
#[cfg(test)]
mod tests;
mod wake;
mod writes;

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Weak};

use catan_engine::Seat;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::error::LobbyError;
use crate::metrics::Metrics;
use crate::store::{ActionRecord, GameRecord, LobbyRecord, Store};
use catan_protocol::{
    AddBotRequest, AddBotResponse, BotKind, ClientMessage, CloseCode, RematchResponse, RoomInfo,
    RoomOptions, ServerMessage, TakeSeatResponse,
};
use catan_protocol::{AdminRoomDetail, AdminRoomSummary, CloseRoomResponse};

pub use config::{RoomConfig, RoomSettings};
pub use state::RestoreError;
pub(crate) use state::{SEQ_BLOCK, now_ms, rooms_now_ms};
pub use task::RoomTask;
pub use wake::{WakeGuard, WakeLocks};

/// Commands queued per room before senders wait.
const COMMAND_QUEUE: usize = 256;

/// Identifies one connection within a room.
pub type ConnId = u64;

/// How a connection takes its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// As JSON text, for a socket.
    Text,
    /// As typed messages, for a client of this process (a built-in bot): nothing is
    /// serialized on the way.
    Typed,
}

/// What a room sends to one connection.
#[derive(Debug, Clone)]
pub enum Outbound {
    /// A serialized [`ServerMessage`], for a socket. Shared text, 16 bytes: a
    /// connection's queue allocates 32 slots up front, for as long as it is open.
    Text(Arc<str>),
    /// The message itself, for a client in the same process (the built-in bots):
    /// no JSON on the way.
    Message(Arc<ServerMessage>),
}

/// State shared between a room and one connection's socket task.
#[derive(Debug, Default)]
pub struct ConnShared {
    /// Close code to use when the room drops the connection (0: room gone).
    close_code: AtomicU16,
}

impl ConnShared {
    /// Records why the room is dropping this connection.
    pub fn set_close(&self, code: CloseCode) {
        self.close_code.store(code.code(), Ordering::Relaxed);
    }
    /// The close code the room chose, if any.
    #[must_use]
    pub fn close_code(&self) -> Option<CloseCode> {
        CloseCode::from_code(self.close_code.load(Ordering::Relaxed))
    }
}

/// A connection accepted by a room.
#[derive(Debug)]
pub struct Connected {
    /// This connection's id, for later commands.
    pub conn: ConnId,
    /// The seat, or `None` for a spectator.
    pub seat: Option<Seat>,
    /// Messages for this connection, starting with the snapshot or the missed events.
    pub rx: mpsc::Receiver<Outbound>,
    /// Why the room closed the connection, once it does.
    pub shared: Arc<ConnShared>,
}

/// What every room task gets from the server it runs in.
#[derive(Clone)]
pub struct RoomContext {
    /// What the room reads of the server's configuration (timers, lifetimes, bots,
    /// queue sizes), and nothing else.
    pub settings: Arc<RoomSettings>,
    /// Where games are written before anyone hears of them.
    pub store: Arc<dyn Store>,
    /// Counters the room updates (rooms, actions, latency, games finished).
    pub metrics: Arc<Metrics>,
    /// Tracks the room task and its background writes, so shutdown can wait for them.
    pub tasks: TaskTracker,
    /// Cancelled when the server shuts down (a child of the server's token): the
    /// room task then ends.
    pub shutdown: CancellationToken,
    /// Starts the room's built-in bots and stand-ins.
    pub bots: Arc<dyn BotRunner>,
    /// The server's rooms, so that a room that ends (closed, idle) can leave them and
    /// a rematch can make its room. Weak: the rooms own the handles, not the other
    /// way round.
    pub rooms: Weak<dyn Directory>,
    /// The bans and mutes in force: a banned player's seat does not reconnect, a
    /// muted player's chat is refused.
    pub sanctions: Arc<crate::players::sanctions::Sanctions>,
    /// Where a game over days hands its players' notices (never waiting).
    pub notices: crate::notify::Handovers,
}

impl std::fmt::Debug for RoomContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoomContext")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Starts built-in bots for a room: on a seat, with its token, or as a stand-in on a
/// connection the room attached. The server's bot runner (`crate::bot::Bots`) is
/// one; rooms do not depend on how bots play.
pub trait BotRunner: Send + Sync {
    /// Starts a bot of `kind` on the seat whose token is `token`.
    fn seat(&self, room: RoomHandle, token: String, kind: BotKind);
    /// Starts a bot of `kind` on `conn`, standing in for the absent person of its
    /// seat, until the room drops the connection (the person is back) or the game
    /// ends.
    fn stand_in(&self, room: RoomHandle, conn: Connected, kind: BotKind);
}

/// The server's rooms as a room sees them (`crate::registry::Rooms` is they).
pub trait Directory: Send + Sync {
    /// Creates a room, unless the server holds as many as it may.
    ///
    /// # Errors
    /// `TooManyRooms`.
    fn create(
        &self,
        ctx: RoomContext,
        options: RoomOptions,
        host_token: String,
    ) -> Result<RoomHandle, LobbyError>;
    /// The room with this id.
    ///
    /// # Errors
    /// `RoomNotFound`.
    fn get(&self, id: Uuid) -> Result<RoomHandle, LobbyError>;
    /// Forgets a room whose task has ended.
    fn remove(&self, id: Uuid);
    /// Registers a room again (one that was about to sleep and stays awake).
    fn insert(&self, handle: RoomHandle);
    /// The rooms' sleep-and-wake locks.
    fn wake_locks(&self) -> Arc<WakeLocks>;
}

/// How a restored room's timers start again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadlines {
    /// Each with its full duration from now: after a restart of the server, since
    /// nobody could act while it was down.
    Restart,
    /// Where each was, from the stored times of the actions that set it: another
    /// instance of a cluster takes the room over, and the players' clocks ran on.
    Continue,
}

/// A request to a room.
#[derive(Debug)]
pub(crate) enum Command {
    /// The room's public description.
    Info(oneshot::Sender<RoomInfo>),
    /// A person takes a seat (the one named, or the first free).
    TakeSeat {
        name: String,
        seat: Option<Seat>,
        /// The signed-in player taking it, if any.
        player: Option<Uuid>,
        reply: oneshot::Sender<Result<TakeSeatResponse, LobbyError>>,
    },
    /// A seat is given up before the start (by its token or the host's).
    LeaveSeat {
        seat: Seat,
        token: String,
        reply: oneshot::Sender<Result<(), LobbyError>>,
    },
    /// The host seats a built-in bot.
    AddBot {
        host_token: String,
        request: AddBotRequest,
        reply: oneshot::Sender<Result<AddBotResponse, LobbyError>>,
    },
    /// The host starts the game.
    Start {
        host_token: String,
        reply: oneshot::Sender<Result<RoomInfo, LobbyError>>,
    },
    /// A connection attaches: a seat's by its token, a spectator's without.
    Connect {
        token: Option<String>,
        last_seq: Option<u64>,
        wire: Wire,
        reply: oneshot::Sender<Result<Connected, LobbyError>>,
    },
    /// A connection's socket ended.
    Disconnect { conn: ConnId },
    /// A message of an attached connection, with when it arrived. Boxed: the
    /// largest payload (64 bytes), and a room's command queue allocates 32 slots of
    /// the largest command up front.
    Client {
        conn: ConnId,
        msg: Box<ClientMessage>,
        received: Instant,
    },
    /// What administrators see in the room list.
    AdminSummary(oneshot::Sender<AdminRoomSummary>),
    /// Everything the room holds, for an administrator.
    AdminDetail {
        events: usize,
        view: Option<(Seat, Option<u64>)>,
        reply: oneshot::Sender<Result<AdminRoomDetail, LobbyError>>,
    },
    /// An administrator closes the room.
    Close {
        message: String,
        reply: oneshot::Sender<CloseRoomResponse>,
    },
    /// Another instance of the cluster owns the room now: stop here.
    Moved,
    /// An administrator disconnects a seat's client.
    Kick {
        seat: Seat,
        message: String,
        reply: oneshot::Sender<Result<(), LobbyError>>,
    },
    /// An administrator banned `player`: every client on one of their seats is
    /// disconnected (the answer says how many).
    KickPlayer {
        player: Uuid,
        message: String,
        reply: oneshot::Sender<usize>,
    },
    /// The room of the next game with the same options, after this one.
    Rematch {
        token: String,
        reply: oneshot::Sender<Result<RematchResponse, LobbyError>>,
    },
}

/// A cloneable handle to a room's task.
#[derive(Debug, Clone)]
pub struct RoomHandle {
    /// The room's id.
    pub id: Uuid,
    /// Whether the room is listed publicly (fixed at creation).
    pub listed: bool,
    /// Bounded queue into the room task.
    tx: mpsc::Sender<Command>,
    /// The room's shutdown token: a room gone because the server is shutting down
    /// says so (`shutting_down`) rather than `room_not_found`.
    shutdown: CancellationToken,
    /// The signed-in players holding a seat while the room gathers (empty once its
    /// game started), kept by the room's task after every command: read without
    /// asking the task (quick play refuses them, protocol 26.1; a player's list of
    /// games shows the room, protocol 27.4), with their seats.
    gathering: Arc<std::sync::Mutex<Vec<(Uuid, catan_engine::Seat)>>>,
}

impl RoomHandle {
    /// A handle of the room `id` (its task not yet spawned).
    fn new(
        id: Uuid,
        listed: bool,
        shutdown: CancellationToken,
    ) -> (RoomHandle, mpsc::Receiver<Command>) {
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let handle = RoomHandle {
            id,
            listed,
            tx,
            shutdown,
            gathering: Arc::default(),
        };
        (handle, rx)
    }

    /// Whether `player` holds a seat here while the room gathers.
    #[must_use]
    pub fn gathers(&self, player: Uuid) -> bool {
        self.gathering_seat(player).is_some()
    }

    /// The seat `player` holds here while the room gathers (the first, if several).
    #[must_use]
    pub fn gathering_seat(&self, player: Uuid) -> Option<catan_engine::Seat> {
        self.gathering
            .lock()
            .expect("gathering lock")
            .iter()
            .find(|(p, _)| *p == player)
            .map(|(_, s)| *s)
    }

    /// Records who holds a seat while the room gathers (its task, after a command).
    pub(crate) fn set_gathering(&self, players: Vec<(Uuid, catan_engine::Seat)>) {
        let mut held = self.gathering.lock().expect("gathering lock");
        if *held != players {
            *held = players;
        }
    }

    /// Creates a room and spawns its task.
    #[must_use]
    pub fn spawn(ctx: RoomContext, options: RoomOptions, host_token: String) -> RoomHandle {
        let (handle, rx) = RoomHandle::new(Uuid::new_v4(), options.listed, ctx.shutdown.clone());
        let id = handle.id;
        let tasks = ctx.tasks.clone();
        let task = RoomTask::new(id, ctx, options, &host_token, rx, handle.clone());
        tasks.spawn(task.run());
        handle
    }

    /// Brings back a stored, unfinished game as a running room, its bots reseated,
    /// its timers started again as `deadlines` says, and with `backlog` when it
    /// wakes from sleep ([`crate::store::DaysStore::slept_backlog`]).
    ///
    /// # Errors
    /// [`RestoreError`]: the stored log does not replay.
    pub fn restore(
        ctx: RoomContext,
        record: GameRecord,
        actions: &[ActionRecord],
        deadlines: Deadlines,
        backlog: Option<&str>,
    ) -> Result<RoomHandle, RestoreError> {
        let (handle, rx) = RoomHandle::new(
            record.game.id,
            record.game.options.listed,
            ctx.shutdown.clone(),
        );
        let tasks = ctx.tasks.clone();
        let runner = ctx.bots.clone();
        let (task, bots) =
            RoomTask::restore(record, actions, ctx, rx, handle.clone(), deadlines, backlog)?;
        tasks.spawn(task.run());
        for (token, kind) in bots {
            runner.seat(handle.clone(), token, kind);
        }
        Ok(handle)
    }

    /// Brings back a room that was gathering players (a restart of a single
    /// instance), its bots reseated.
    #[must_use]
    pub fn restore_lobby(ctx: RoomContext, record: &LobbyRecord) -> RoomHandle {
        let (handle, rx) = RoomHandle::new(record.id, record.options.listed, ctx.shutdown.clone());
        let tasks = ctx.tasks.clone();
        let runner = ctx.bots.clone();
        let (task, bots) = RoomTask::from_lobby(record, ctx, rx, handle.clone());
        tasks.spawn(task.run());
        for (token, kind) in bots {
            runner.seat(handle.clone(), token, kind);
        }
        handle
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, LobbyError> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(make(reply)).await.map_err(|_| self.gone())?;
        rx.await.map_err(|_| self.gone())
    }

    /// Why the room's task is not there: it ended with the server, or for good.
    fn gone(&self) -> LobbyError {
        if self.shutdown.is_cancelled() {
            LobbyError::ShuttingDown
        } else {
            LobbyError::RoomNotFound
        }
    }

    /// The room's public description.
    ///
    /// # Errors
    /// `RoomNotFound` if the room's task has ended.
    pub async fn info(&self) -> Result<RoomInfo, LobbyError> {
        self.ask(Command::Info).await
    }

    /// Takes a seat for a person.
    ///
    /// # Errors
    /// Lobby errors: room full, seat taken, bad name, already started.
    pub async fn take_seat(
        &self,
        name: String,
        seat: Option<Seat>,
        player: Option<Uuid>,
    ) -> Result<TakeSeatResponse, LobbyError> {
        self.ask(|reply| Command::TakeSeat {
            name,
            seat,
            player,
            reply,
        })
        .await?
    }

    /// Leaves a seat before the start.
    ///
    /// # Errors
    /// `InvalidToken`, `AlreadyStarted`, `NoSuchSeat`.
    pub async fn leave_seat(&self, seat: Seat, token: String) -> Result<(), LobbyError> {
        self.ask(|reply| Command::LeaveSeat { seat, token, reply })
            .await?
    }

    /// Seats a built-in bot (host only).
    ///
    /// # Errors
    /// `NotHost`, room full, seat taken, already started.
    pub async fn add_bot(
        &self,
        host_token: String,
        request: AddBotRequest,
    ) -> Result<AddBotResponse, LobbyError> {
        self.ask(|reply| Command::AddBot {
            host_token,
            request,
            reply,
        })
        .await?
    }

    /// The room of the rematch of this finished game (made by the first call, with
    /// the same options and bots; later calls answer the same room).
    ///
    /// # Errors
    /// `InvalidToken`, `GameNotFinished`, `TooManyRooms`.
    pub async fn rematch(&self, token: String) -> Result<RematchResponse, LobbyError> {
        self.ask(|reply| Command::Rematch { token, reply }).await?
    }

    /// Starts the game (host only, every seat taken).
    ///
    /// # Errors
    /// `NotHost`, `NotFull`, `AlreadyStarted`.
    pub async fn start(&self, host_token: String) -> Result<RoomInfo, LobbyError> {
        self.ask(|reply| Command::Start { host_token, reply })
            .await?
    }

    /// Attaches a connection: with a seat token for a player, without for a spectator.
    ///
    /// # Errors
    /// `InvalidToken`, `SpectatorsNotAllowed`.
    pub async fn connect(
        &self,
        token: Option<String>,
        last_seq: Option<u64>,
    ) -> Result<Connected, LobbyError> {
        self.ask(|reply| Command::Connect {
            token,
            last_seq,
            wire: Wire::Text,
            reply,
        })
        .await?
    }

    /// Attaches a client of this process (a built-in bot) to the seat of `token`: it
    /// receives [`Outbound::Message`]s, typed, never serialized.
    ///
    /// # Errors
    /// As [`RoomHandle::connect`].
    pub async fn connect_in_process(&self, token: String) -> Result<Connected, LobbyError> {
        self.ask(|reply| Command::Connect {
            token: Some(token),
            last_seq: None,
            wire: Wire::Typed,
            reply,
        })
        .await?
    }

    /// Passes a parsed client message to the room. Waits while the room's queue is full.
    pub async fn client_message(&self, conn: ConnId, msg: ClientMessage) -> bool {
        let received = Instant::now();
        self.tx
            .send(Command::Client {
                conn,
                msg: Box::new(msg),
                received,
            })
            .await
            .is_ok()
    }

    /// What an administrator sees of the room in the room list.
    ///
    /// # Errors
    /// `RoomNotFound` if the room's task has ended.
    pub async fn admin_summary(&self) -> Result<AdminRoomSummary, LobbyError> {
        self.ask(Command::AdminSummary).await
    }

    /// Everything the room holds, unredacted, with its last `events` broadcasts, and
    /// with `view = Some((seat, at_seq))` the engine's view of `seat` now or as of
    /// broadcast `at_seq`.
    ///
    /// # Errors
    /// `RoomNotFound` if the room's task has ended; for a view, `BadRequest` before
    /// the start and `NoSuchSeat`.
    pub async fn admin_detail(
        &self,
        events: usize,
        view: Option<(Seat, Option<u64>)>,
    ) -> Result<AdminRoomDetail, LobbyError> {
        self.ask(|reply| Command::AdminDetail {
            events,
            view,
            reply,
        })
        .await?
    }

    /// Closes the room: every connection is told why and closed with 4010, an
    /// unfinished game is marked abandoned, and the room leaves the registry.
    ///
    /// # Errors
    /// `RoomNotFound` if the room's task has already ended.
    pub async fn close(&self, message: String) -> Result<CloseRoomResponse, LobbyError> {
        self.ask(|reply| Command::Close { message, reply }).await
    }

    /// Tells the room that this instance lost its lease (docs/cluster.md): it closes
    /// every connection with `closing` (`room_moved`) and 4014, leaves the registry
    /// and stops, writing nothing more. Nothing if the room is gone already.
    pub async fn moved(&self) {
        let _ = self.tx.send(Command::Moved).await;
    }

    /// Disconnects the client on `seat` with 4011; the seat is kept.
    ///
    /// # Errors
    /// `RoomNotFound`, `NoSuchSeat`, `NotConnected`.
    pub async fn kick(&self, seat: Seat, message: String) -> Result<(), LobbyError> {
        self.ask(|reply| Command::Kick {
            seat,
            message,
            reply,
        })
        .await?
    }

    /// Disconnects every client on a seat of `player` with 4011 (the seats are
    /// kept); returns how many there were.
    ///
    /// # Errors
    /// `RoomNotFound`.
    pub async fn kick_player(&self, player: Uuid, message: String) -> Result<usize, LobbyError> {
        self.ask(|reply| Command::KickPlayer {
            player,
            message,
            reply,
        })
        .await
    }

    /// Detaches a connection.
    pub async fn disconnect(&self, conn: ConnId) {
        let _ = self.tx.send(Command::Disconnect { conn }).await;
    }
}
