//! The room task: owns one [`Room`] outright and drives it, one command at a time, so
//! no lock ever guards a game. The room decides; the task does the waiting: commands
//! from handles, deadlines, store writes (an action is stored before anyone hears of
//! it), and the queues of the connections' sockets.
//!
//! The store's side of it is in `task/store.rs`; the connections' side (their
//! queues, delivering the outbox, the sanctions checked on a connection) in
//! `task/links.rs`; the notices a game over days hands over in `task/notices.rs`;
//! a game over days falling asleep in `task/sleep.rs`; keeping a lobby in the store
//! and a room's end (closed, abandoned, moved) in `task/closing.rs`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};
use uuid::Uuid;

mod closing;
mod links;
mod notices;
mod sleep;
mod store;

use super::state::{Now, RematchPlan, RestoreError, Room, Timer};
use super::writes::{ClocksKept, SeqReservation, store_finish};
use super::{Command, ConnId, RoomContext, RoomHandle};
use crate::error::LobbyError;
use crate::players::sanctions::MUTED_MESSAGE;
use crate::store::{ActionRecord, GameRecord, LobbyRecord};
use crate::token;
use catan_protocol::{
    AddBotRequest, BotKind, ClientMessage, ErrorCode, RematchResponse, RoomOptions, RoomStatus,
    TakeSeatResponse,
};

/// The actor owning one room.
pub struct RoomTask {
    /// The room's rules of play and everything they hold.
    room: Room,
    /// Configuration, store, metrics, task tracker, shutdown signal and registry.
    ctx: RoomContext,
    /// Commands from handles.
    rx: mpsc::Receiver<Command>,
    /// A handle to this room, lent to the bots it seats.
    handle: RoomHandle,
    /// The sockets of the attached connections.
    links: HashMap<ConnId, links::Link>,
    /// Set when the room has been closed; the task then ends.
    closed: bool,
    /// Commands that came while the room waited for the store, other than reads
    /// (which are answered at once): served next, in order.
    deferred: VecDeque<Command>,
    /// Set once every handle is gone (no command can come any more).
    rx_closed: bool,
    /// The sequence numbers the store has reserved for this room's broadcasts.
    seqs: Arc<SeqReservation>,
    /// The seats' clocks of a game over days as the store keeps them.
    clocks: Arc<ClocksKept>,
    /// What the notifications last saw of a game over days.
    watch: crate::notify::Watch,
}

impl std::fmt::Debug for RoomTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoomTask")
            .field("room", &self.room.id())
            .field("connections", &self.links.len())
            .finish_non_exhaustive()
    }
}

impl RoomTask {
    pub(crate) fn new(
        id: Uuid,
        ctx: RoomContext,
        options: RoomOptions,
        host_token: &str,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
    ) -> RoomTask {
        let room = Room::new(
            id,
            options,
            host_token,
            ctx.settings.clone(),
            ctx.metrics.clone(),
            Now::real(),
        );
        RoomTask::driving(room, ctx, rx, handle)
    }

    /// A room that was gathering players, restored; with the fresh tokens of its
    /// bots, to start them with.
    pub(crate) fn from_lobby(
        record: &LobbyRecord,
        ctx: RoomContext,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
    ) -> (RoomTask, Vec<(String, BotKind)>) {
        let (room, bots) = Room::from_lobby(
            record,
            ctx.settings.clone(),
            ctx.metrics.clone(),
            Now::real(),
        );
        (RoomTask::driving(room, ctx, rx, handle), bots)
    }

    fn driving(
        room: Room,
        ctx: RoomContext,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
    ) -> RoomTask {
        RoomTask {
            room,
            ctx,
            rx,
            handle,
            links: HashMap::new(),
            closed: false,
            deferred: VecDeque::new(),
            rx_closed: false,
            seqs: Arc::default(),
            clocks: Arc::default(),
            watch: crate::notify::Watch::default(),
        }
    }

    /// Rebuilds a room from its stored game (see [`Room::restore`]), with the
    /// reconnect backlog it kept while it slept, if any; returns the bots' fresh
    /// tokens, for the caller to start them. A result the log implies but the store
    /// lacks is written in the background.
    ///
    /// # Errors
    /// A description of the first action the engine refuses (a corrupt log).
    pub(crate) fn restore(
        record: GameRecord,
        actions: &[ActionRecord],
        ctx: RoomContext,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
        deadlines: super::Deadlines,
        backlog: Option<&str>,
    ) -> Result<(RoomTask, Vec<(String, BotKind)>), RestoreError> {
        let mut restored = Room::restore(
            record,
            actions,
            ctx.settings.clone(),
            ctx.metrics.clone(),
            Now::real(),
            deadlines,
        )?;
        if let Some(json) = backlog
            && !restored.room.resume_backlog(json)
        {
            warn!(room = %restored.room.id(), "the backlog kept while the room slept does not fit; reconnects from before get a snapshot");
        }
        if let Some(finish) = restored.finish {
            info!(room = %restored.room.id(), winner = ?finish.winner.map(|w| w.0), "restored a finished game; storing its result");
            ctx.tasks.spawn(store_finish(
                ctx.store.clone(),
                restored.room.id(),
                finish,
                ctx.shutdown.clone(),
            ));
        }
        let mut task = RoomTask::driving(restored.room, ctx, rx, handle);
        task.prime_notices();
        Ok((task, restored.bots))
    }

    /// Serves commands and timers until the room is closed (by an administrator, or
    /// for being idle), the server shuts down, or every handle is gone.
    ///
    /// The work of a command or a timer (an action stored and committed, a start, a
    /// close) is a future of several KiB, most of it the states of store calls it may
    /// wait on; it runs boxed, allocated while it runs, so that a room waiting for its
    /// next command (nearly always) holds only its state and what it waits on
    /// (under 3 KiB, not 8: 10,000 waiting rooms hold some 50 MiB less).
    pub fn run(self) -> impl Future<Output = ()> {
        // Not an `async fn` around an `async move` block: the task then held the
        // room's state twice (the function's copy and the block's).
        let span = info_span!("room", room = %self.room.id());
        self.serve().instrument(span)
    }

    /// [`RoomTask::run`] without its span.
    async fn serve(mut self) {
        info!(players = self.room.options().game.players, "room created");
        // A room still gathering players is kept before it answers anyone.
        Box::pin(self.keep_lobby()).await;
        let shutdown = self.ctx.shutdown.clone();
        // A restored room reserves its sequence numbers before anything else.
        self.settle();
        while !self.closed {
            if let Some(cmd) = self.deferred.pop_front() {
                if shutdown.is_cancelled() {
                    break;
                }
                Box::pin(self.handle_command(cmd)).await;
                self.settle();
                continue;
            }
            if self.rx_closed {
                break;
            }
            match self.next_wake(&shutdown).await {
                Wake::Shutdown | Wake::Command(None) => break,
                Wake::Command(Some(cmd)) => Box::pin(self.handle_command(cmd)).await,
                Wake::Timers => Box::pin(self.fire_timers()).await,
                Wake::Idle => Box::pin(self.close_idle()).await,
                Wake::Abandoned => Box::pin(self.close_abandoned()).await,
                Wake::Sleep => Box::pin(self.go_to_sleep()).await,
            }
            self.settle();
        }
        self.ctx.metrics.room_moved(Some(self.room.status()), None);
        info!("room closed");
    }

    /// Waits for what the room does next: a command, a deadline, or the shutdown.
    /// A command being handled (an action being stored) always finishes first: the
    /// shutdown is only noticed between commands.
    async fn next_wake(&mut self, shutdown: &CancellationToken) -> Wake {
        // One timer, at the earliest deadline (each timer is some 100 bytes of every
        // waiting room); when it fires, the first deadline in this order that ran
        // out is the one served, the others at the next turn of the loop.
        let deadlines = [
            self.room.next_deadline(),
            self.room.idle_deadline(),
            self.room.abandon_deadline(),
            self.room.sleep_deadline(),
        ];
        let earliest = deadlines.iter().flatten().min().copied();
        tokio::select! {
            () = shutdown.cancelled() => Wake::Shutdown,
            cmd = self.rx.recv() => Wake::Command(cmd),
            () = sleep_until(earliest), if earliest.is_some() => {
                match deadlines.iter().position(|at| *at == earliest) {
                    Some(1) => Wake::Idle,
                    Some(2) => Wake::Abandoned,
                    Some(3) => Wake::Sleep,
                    _ => Wake::Timers,
                }
            }
        }
    }

    async fn handle_command(&mut self, cmd: Command) {
        let cmd = match self.answer_read(cmd) {
            Ok(()) => return,
            Err(cmd) => cmd,
        };
        self.room.at(Now::real(), true);
        match cmd {
            Command::Info(_) | Command::AdminSummary(_) | Command::AdminDetail { .. } => {
                unreachable!("reads are answered above")
            }
            Command::TakeSeat {
                name,
                seat,
                player,
                reply,
            } => {
                let taken = self.room.take_seat_as(&name, seat, None, player);
                if taken.is_ok() {
                    self.keep_lobby().await;
                }
                let _ = reply.send(taken.map(|(seat, token)| TakeSeatResponse { seat, token }));
            }
            Command::LeaveSeat { seat, token, reply } => {
                let left = self.room.leave_seat(seat, &token);
                if left.is_ok() {
                    self.keep_lobby().await;
                }
                let _ = reply.send(left);
            }
            Command::AddBot {
                host_token,
                request,
                reply,
            } => {
                let kind = request.kind;
                let added = self.room.add_bot(&host_token, request).map(|(r, token)| {
                    self.ctx.bots.seat(self.handle.clone(), token, kind);
                    r
                });
                if added.is_ok() {
                    self.keep_lobby().await;
                }
                let _ = reply.send(added);
            }
            Command::Start { host_token, reply } => {
                let _ = reply.send(self.start(&host_token).await);
            }
            Command::Rematch { token, reply } => {
                let _ = reply.send(self.rematch(&token).await);
            }
            Command::Connect {
                token,
                last_seq,
                wire,
                reply,
            } => {
                let _ = reply.send(self.connect(token.as_deref(), last_seq, wire));
            }
            Command::Disconnect { conn } => {
                self.links.remove(&conn);
                self.room.detach(conn);
            }
            Command::Client {
                conn,
                msg,
                received,
            } => {
                if matches!(*msg, ClientMessage::Chat { .. }) && self.muted(conn) {
                    self.room.refuse(conn, ErrorCode::Muted, MUTED_MESSAGE);
                } else if let Some(staged) = self.room.client_message(conn, *msg) {
                    self.store_and_commit(staged, Some(received)).await;
                }
            }
            Command::Close { message, reply } => {
                let _ = reply.send(self.close(&message).await);
            }
            // A finished game writes nothing more (its lease ended with its result):
            // its room stays for the players to see the end and ask for a rematch.
            Command::Moved if self.room.status() == RoomStatus::Finished => {}
            Command::Moved => self.moved(),
            Command::Kick {
                seat,
                message,
                reply,
            } => {
                let _ = reply.send(self.room.kick(seat, &message));
            }
            Command::KickPlayer {
                player,
                message,
                reply,
            } => {
                let _ = reply.send(self.room.kick_player(player, &message));
            }
        }
    }

    /// Answers a command that only reads the room (its description, what
    /// administrators see); any other command is handed back. Reads are answered as
    /// the room stands, also while it waits for the store ([`RoomTask::serving_reads`]):
    /// what it waits to store is not part of it yet.
    fn answer_read(&self, cmd: Command) -> Result<(), Command> {
        match cmd {
            Command::Info(reply) => {
                let _ = reply.send(self.room.info());
            }
            Command::AdminSummary(reply) => {
                let _ = reply.send(self.room.admin_summary());
            }
            Command::AdminDetail {
                events,
                view,
                reply,
            } => {
                let _ = reply.send(self.room.admin_detail(events, view));
            }
            other => return Err(other),
        }
        Ok(())
    }

    /// Waits for `work` (a store call), answering reads meanwhile and keeping any
    /// other command for after (up to a queue's worth; beyond, senders wait): a slow
    /// store never keeps the lobby or administrators from reading the room.
    async fn serving_reads<T>(&mut self, work: impl Future<Output = T>) -> T {
        tokio::pin!(work);
        loop {
            let take = !self.rx_closed && self.deferred.len() < super::COMMAND_QUEUE;
            tokio::select! {
                biased;
                out = &mut work => return out,
                cmd = self.rx.recv(), if take => match cmd {
                    Some(cmd) => {
                        if let Err(cmd) = self.answer_read(cmd) {
                            self.deferred.push_back(cmd);
                        }
                    }
                    None => self.rx_closed = true,
                },
            }
        }
    }

    /// Starts the game once the store has it: a crash from then on restores it.
    /// A rematch (protocol.md 4.17): the first call makes the new room with this
    /// room's options and its bots in their seats, and every connection here hears of
    /// it; later calls answer the same room, without its host token.
    async fn rematch(&mut self, token: &str) -> Result<RematchResponse, LobbyError> {
        let rooms = self.ctx.rooms.upgrade().ok_or(LobbyError::ShuttingDown)?;
        match self.room.rematch_plan(token)? {
            RematchPlan::Exists(id) => Ok(RematchResponse {
                room_id: id,
                host_token: None,
                room: rooms.get(id)?.info().await?,
            }),
            RematchPlan::New { options, bots } => {
                let host_token = token::new_token();
                let handle = rooms.create(self.ctx.clone(), options, host_token.clone())?;
                for (seat, kind) in bots {
                    let request = AddBotRequest {
                        seat: Some(seat),
                        kind,
                    };
                    handle.add_bot(host_token.clone(), request).await?;
                }
                self.room.rematch_made(handle.id);
                Ok(RematchResponse {
                    room_id: handle.id,
                    host_token: Some(host_token),
                    room: handle.info().await?,
                })
            }
        }
    }

    async fn start(&mut self, host_token: &str) -> Result<catan_protocol::RoomInfo, LobbyError> {
        let pending = self
            .room
            .prepare_start(host_token, rand::random(), token::new_token())?;
        let store = self.ctx.store.clone();
        let record = pending.record.clone();
        let stored = self
            .serving_reads(async move { store.create_game(&record).await })
            .await;
        if let Err(e) = stored {
            warn!(error = %e, "could not store the new game");
            return Err(LobbyError::StoreUnavailable);
        }
        Ok(self.room.start(pending))
    }

    /// Puts a bot of the room's `stand_in_level` on `seat`, whose person has been
    /// away for the room's `stand_in_secs` with a decision to make: the one bot
    /// driver, on a connection the room attaches for it (the seat's token is the
    /// person's, untouched). It plays until the person reconnects (the room then
    /// drops its connection) or the game ends.
    fn start_stand_in(&mut self, seat: catan_engine::Seat) {
        let Some(conn) = self.room.start_stand_in(seat) else {
            return;
        };
        let connected = self.link(conn, Some(seat));
        let kind = self.room.options().stand_in_level;
        self.ctx.bots.stand_in(self.handle.clone(), connected, kind);
    }

    /// Carries out every timer that has run out; one the store refuses is retried.
    async fn fire_timers(&mut self) {
        self.room.at(Now::real(), false);
        for timer in self.room.take_due() {
            if let Timer::StandIn(seat) = timer {
                self.start_stand_in(seat);
                continue;
            }
            match self.room.stage_timer(timer) {
                Ok(staged) => {
                    if !self.store_and_commit(staged, None).await {
                        self.room.retry_timer(timer);
                    }
                }
                Err(e) => debug!(?timer, code = e.code(), "timer no longer applies"),
            }
        }
    }

    /// After a command: delivers, then announces the seats that lost their connection
    /// meanwhile (and delivers that), until nothing is left; then starts or stops
    /// the countdowns of absent people's decisions as the command left the room.
    fn settle(&mut self) {
        loop {
            self.flush();
            if !self.room.has_gone() {
                break;
            }
            self.room.announce_gone();
        }
        self.room.follow_stand_ins();
        self.handle.set_gathering(self.room.gathering_players());
        if self.room.status() == RoomStatus::Playing {
            self.seqs.keep_ahead(
                self.room.seq(),
                self.ctx.store.clone(),
                self.room.id(),
                &self.ctx.tasks,
            );
            if let Some((json, next)) = self.room.clocks_to_keep() {
                let id = self.room.id();
                self.clocks
                    .keep(json, next, &self.ctx.store, id, &self.ctx.tasks);
            }
            self.hand_notices();
        }
    }
}

/// What wakes a waiting room ([`RoomTask::next_wake`]).
enum Wake {
    /// The server shuts down.
    Shutdown,
    /// A command, or none when every handle is gone.
    Command(Option<Command>),
    /// A timer ran out.
    Timers,
    /// The room has been idle for `--idle-room-secs`.
    Idle,
    /// Nobody has played the game for `--abandon-after-secs`.
    Abandoned,
    /// A game over days with nobody there may sleep.
    Sleep,
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
