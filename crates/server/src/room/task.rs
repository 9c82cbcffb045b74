//! The room task: owns the room's game outright and serves its commands, timers and
//! connections one at a time, so no lock ever guards a game.

mod admin;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::ws::Utf8Bytes;
use catan_engine::{Action, Actor, Event, Game, OfferId, Phase, Seat};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::{Instrument, debug, info, info_span, warn};
use uuid::Uuid;

use super::{Command, ConnId, ConnShared, Connected, Outbound, RoomContext, RoomHandle};
use crate::error::LobbyError;
use crate::store::{self, ActionRecord, Finish, GameRecord, NewGame, PlayerRecord, Store};
use crate::token;
use catan_protocol::{
    AddBotRequest, AddBotResponse, ClientMessage, CloseCode, ErrorCode, GameOverInfo,
    MAX_CHAT_CHARS, MAX_NAME_CHARS, MAX_REQUEST_ID_BYTES, Occupant, OfferDeadline,
    PROTOCOL_VERSION, RoomInfo, RoomOptions, RoomStatus, SeatInfo, ServerMessage, Snapshot,
    TakeSeatResponse,
};

/// Unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A tokio instant as Unix milliseconds, for deadlines sent to clients.
fn instant_ms(at: Instant) -> u64 {
    let now = Instant::now();
    let base = now_ms();
    if at >= now {
        base + u64::try_from((at - now).as_millis()).unwrap_or(0)
    } else {
        base.saturating_sub(u64::try_from((now - at).as_millis()).unwrap_or(0))
    }
}

/// One seat of the room.
#[derive(Debug, Default)]
struct SeatState {
    /// Who sits here.
    occupant: Option<Occupant>,
    /// SHA-256 of the seat's secret token (the token itself is never kept).
    token_hash: Option<String>,
    /// The connection currently attached to the seat.
    conn: Option<ConnId>,
}

/// One attached connection.
#[derive(Debug)]
struct Conn {
    /// Its seat, `None` for spectators.
    seat: Option<Seat>,
    /// Bounded queue to its socket task; full means the client is too slow.
    tx: mpsc::Sender<Outbound>,
    /// Where the room records why it dropped the connection.
    shared: Arc<ConnShared>,
    /// A client of this process (a built-in bot): sent typed messages, not text.
    in_process: bool,
}

impl Conn {
    /// `msg` as this connection takes it: typed in process, else serialized.
    fn outbound(&self, msg: &ServerMessage) -> Outbound {
        if self.in_process {
            Outbound::Message(Arc::new(msg.clone()))
        } else {
            Outbound::Text(to_text(msg))
        }
    }
}

/// A message kept for reconnects, unredacted.
#[derive(Debug, Clone)]
enum Logged {
    /// Game events of one action, redacted per seat on the way out.
    Events(Arc<[Event]>),
    /// A message that is the same for everyone (chat, presence, room changes).
    Public(Box<ServerMessage>),
}

/// The actor owning one room.
pub struct RoomTask {
    /// The room's id, in every log line of this task.
    id: Uuid,
    /// Configuration, store, metrics, task tracker, shutdown signal and registry.
    ctx: RoomContext,
    /// The room's settled options.
    options: RoomOptions,
    /// Creation time, Unix ms.
    created_at: u64,
    /// SHA-256 of the secret for host-only calls.
    host_token_hash: String,
    /// Salt of the seed commitment, once started.
    seed_salt: Option<String>,
    /// Published commitment to the seed, once started.
    seed_commitment: Option<String>,
    /// Lobby, playing or finished.
    status: RoomStatus,
    /// Seats, `options.players` long.
    seats: Vec<SeatState>,
    /// The game, once started.
    game: Option<Game>,
    /// Accepted actions so far (the log itself is in the store; the room needs only
    /// the next sequence number).
    actions: u64,
    /// Sequence number of the last message broadcast.
    seq: u64,
    /// The last `event_backlog` broadcasts, for reconnects.
    backlog: VecDeque<(u64, Logged)>,
    /// Attached connections.
    conns: HashMap<ConnId, Conn>,
    /// Next connection id.
    next_conn: ConnId,
    /// The current phase's deadline, when a timer applies.
    phase_deadline: Option<Instant>,
    /// What the deadline belongs to: (phase, current seat, turn), to notice changes.
    phase_key: Option<(Phase, Seat, u32)>,
    /// Expiry of each open trade offer.
    offer_deadlines: Vec<(OfferId, Instant)>,
    /// Result of the game, once over.
    game_over: Option<GameOverInfo>,
    /// Commands from handles.
    rx: mpsc::Receiver<Command>,
    /// A handle to this room, lent to bots it seats.
    handle: RoomHandle,
    /// When the room last served a request other than a read (for idle clean-up).
    last_activity: Instant,
    /// The same moment as Unix ms, for administrators.
    last_activity_ms: u64,
    /// Set when the room has been closed; the task then ends.
    closed: bool,
    /// Seats whose connection went away, announced once the current command is done
    /// (a connection dropped in the middle of a broadcast must not interleave a
    /// `presence` message between the seats of that broadcast).
    gone: Vec<Seat>,
}

impl RoomTask {
    pub(crate) fn new(
        id: Uuid,
        ctx: RoomContext,
        options: RoomOptions,
        host_token: String,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
    ) -> RoomTask {
        ctx.metrics.room_moved(None, Some(RoomStatus::Lobby));
        let created_at = now_ms();
        RoomTask {
            id,
            ctx,
            created_at,
            host_token_hash: store::sha256_hex(&host_token),
            seed_salt: None,
            seed_commitment: None,
            status: RoomStatus::Lobby,
            seats: (0..options.game.players)
                .map(|_| SeatState::default())
                .collect(),
            options,
            game: None,
            actions: 0,
            seq: 0,
            backlog: VecDeque::new(),
            conns: HashMap::new(),
            next_conn: 1,
            phase_deadline: None,
            phase_key: None,
            offer_deadlines: Vec::new(),
            game_over: None,
            rx,
            handle,
            last_activity: Instant::now(),
            last_activity_ms: created_at,
            closed: false,
            gone: Vec::new(),
        }
    }

    /// Rebuilds a room from its stored game by replaying the action log through the
    /// engine. Bots get fresh tokens (returned, to be started by the caller); people
    /// keep theirs, since only their hashes were stored.
    ///
    /// # Errors
    /// A description of the first action the engine refuses (a corrupt log).
    pub(crate) fn restore(
        record: GameRecord,
        actions: &[ActionRecord],
        ctx: RoomContext,
        rx: mpsc::Receiver<Command>,
        handle: RoomHandle,
    ) -> Result<(RoomTask, Vec<(String, catan_protocol::BotKind)>), String> {
        let g = &record.game;
        let mut game = Game::new(g.options.game, g.seed).map_err(|e| e.to_string())?;
        for (i, a) in actions.iter().enumerate() {
            if a.seq != i as u64 {
                return Err(format!("action log has a gap at {i}"));
            }
            game.apply(a.actor(), a.action)
                .map_err(|e| format!("stored action {i} refused on replay: {}", e.code()))?;
        }
        let mut bots = Vec::new();
        let seats = record
            .players
            .iter()
            .map(|p| {
                let token_hash = match p.bot {
                    Some(kind) => {
                        let t = token::new_token();
                        let h = store::sha256_hex(&t);
                        bots.push((t, kind));
                        h
                    }
                    None => p.token_hash.clone(),
                };
                SeatState {
                    occupant: Some(Occupant {
                        name: p.name.clone(),
                        bot: p.bot,
                    }),
                    token_hash: Some(token_hash),
                    conn: None,
                }
            })
            .collect();
        let offers = game.offers().iter().map(|o| o.id).collect::<Vec<_>>();
        let timeout = Duration::from_secs(u64::from(g.options.trade_timeout_secs));
        ctx.metrics.room_moved(None, Some(RoomStatus::Playing));
        let mut task = RoomTask {
            id: g.id,
            ctx,
            options: g.options,
            created_at: g.created_at,
            host_token_hash: g.host_token_hash.clone(),
            seed_salt: Some(g.seed_salt.clone()),
            seed_commitment: Some(g.seed_commitment.clone()),
            status: RoomStatus::Playing,
            seats,
            game: Some(game),
            seq: actions.last().map_or(0, |a| a.room_seq),
            actions: actions.len() as u64,
            backlog: VecDeque::new(),
            conns: HashMap::new(),
            next_conn: 1,
            phase_deadline: None,
            phase_key: None,
            offer_deadlines: offers
                .into_iter()
                .map(|o| (o, Instant::now() + timeout))
                .collect(),
            game_over: None,
            rx,
            handle,
            last_activity: Instant::now(),
            last_activity_ms: now_ms(),
            closed: false,
            gone: Vec::new(),
        };
        task.update_phase_deadline();
        Ok((task, bots))
    }

    /// Serves commands and timers until the room is closed (by an administrator, or
    /// for being idle), the server shuts down, or every handle is gone.
    pub async fn run(mut self) {
        let span = info_span!("room", room = %self.id);
        async move {
            info!(players = self.options.game.players, "room created");
            let mut shutdown = self.ctx.shutdown.clone();
            while !self.closed {
                let next = self.next_deadline();
                let idle = self.idle_deadline();
                tokio::select! {
                    // A command being handled (an action being stored) always finishes
                    // first: shutdown is only noticed between commands.
                    () = shutting_down(&mut shutdown) => break,
                    cmd = self.rx.recv() => match cmd {
                        Some(cmd) => self.handle_command(cmd).await,
                        None => break,
                    },
                    () = sleep_until(next), if next.is_some() => self.fire_timers().await,
                    () = sleep_until(idle), if idle.is_some() => self.close_idle().await,
                }
                self.announce_gone();
            }
            self.ctx.metrics.room_moved(Some(self.status), None);
            info!("room closed");
        }
        .instrument(span)
        .await;
    }

    fn next_deadline(&self) -> Option<Instant> {
        let offers = self.offer_deadlines.iter().map(|(_, d)| *d).min();
        match (self.phase_deadline, offers) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    async fn handle_command(&mut self, cmd: Command) {
        if !matches!(
            cmd,
            Command::Info(_) | Command::AdminSummary(_) | Command::AdminDetail { .. }
        ) {
            self.last_activity = Instant::now();
            self.last_activity_ms = now_ms();
        }
        match cmd {
            Command::Info(reply) => {
                let _ = reply.send(self.info());
            }
            Command::TakeSeat { name, seat, reply } => {
                let _ = reply.send(
                    self.take_seat(name, seat, None)
                        .map(|(seat, token)| TakeSeatResponse { seat, token }),
                );
            }
            Command::LeaveSeat { seat, token, reply } => {
                let _ = reply.send(self.leave_seat(seat, &token));
            }
            Command::AddBot {
                host_token,
                request,
                reply,
            } => {
                let _ = reply.send(self.add_bot(&host_token, request));
            }
            Command::Start { host_token, reply } => {
                let _ = reply.send(self.start(&host_token).await);
            }
            Command::Connect {
                token,
                last_seq,
                in_process,
                reply,
            } => {
                let _ = reply.send(self.connect(token.as_deref(), last_seq, in_process));
            }
            Command::Disconnect { conn } => self.disconnect(conn),
            Command::Client {
                conn,
                msg,
                received,
            } => self.client_message(conn, msg, received).await,
            Command::AdminSummary(reply) => {
                let _ = reply.send(self.admin_summary());
            }
            Command::AdminDetail { events, reply } => {
                let _ = reply.send(self.admin_detail(events));
            }
            Command::Close { message, reply } => {
                let _ = reply.send(self.close(&message).await);
            }
            Command::Kick {
                seat,
                message,
                reply,
            } => {
                let _ = reply.send(self.kick(seat, &message));
            }
        }
    }

    // ----- lobby -------------------------------------------------------------

    fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id,
            status: self.status,
            options: self.options,
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| SeatInfo {
                    seat: Seat(u8::try_from(i).unwrap_or(0)),
                    occupant: s.occupant.clone(),
                    connected: s.conn.is_some(),
                })
                .collect(),
            created_at: self.created_at,
            seed_commitment: self.seed_commitment.clone(),
        }
    }

    fn check_host(&self, host_token: &str) -> Result<(), LobbyError> {
        if token::matches(&self.host_token_hash, &store::sha256_hex(host_token)) {
            Ok(())
        } else {
            Err(LobbyError::NotHost)
        }
    }

    fn take_seat(
        &mut self,
        name: String,
        seat: Option<Seat>,
        bot: Option<catan_protocol::BotKind>,
    ) -> Result<(Seat, String), LobbyError> {
        if self.status != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        let name = name.trim().to_owned();
        if name.is_empty()
            || name.chars().count() > MAX_NAME_CHARS
            || name.chars().any(char::is_control)
        {
            return Err(LobbyError::InvalidName);
        }
        let index = match seat {
            Some(s) => {
                let i = s.index();
                if i >= self.seats.len() {
                    return Err(LobbyError::NoSuchSeat);
                }
                if self.seats[i].occupant.is_some() {
                    return Err(LobbyError::SeatTaken);
                }
                i
            }
            None => self
                .seats
                .iter()
                .position(|s| s.occupant.is_none())
                .ok_or(LobbyError::RoomFull)?,
        };
        let token = token::new_token();
        self.seats[index] = SeatState {
            occupant: Some(Occupant { name, bot }),
            token_hash: Some(store::sha256_hex(&token)),
            conn: None,
        };
        let seat = Seat(u8::try_from(index).unwrap_or(0));
        info!(seat = seat.0, bot = bot.is_some(), "seat taken");
        self.broadcast_room();
        Ok((seat, token))
    }

    fn leave_seat(&mut self, seat: Seat, token: &str) -> Result<(), LobbyError> {
        let s = self.seats.get(seat.index()).ok_or(LobbyError::NoSuchSeat)?;
        let given = store::sha256_hex(token);
        if !s
            .token_hash
            .as_deref()
            .is_some_and(|t| token::matches(t, &given))
        {
            return Err(LobbyError::InvalidToken);
        }
        if self.status != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        if let Some(conn) = s.conn {
            self.drop_conn(conn, CloseCode::RoomClosed);
        }
        self.seats[seat.index()] = SeatState::default();
        info!(seat = seat.0, "seat left");
        self.broadcast_room();
        Ok(())
    }

    fn add_bot(
        &mut self,
        host_token: &str,
        request: AddBotRequest,
    ) -> Result<AddBotResponse, LobbyError> {
        self.check_host(host_token)?;
        let taken = self.seats.iter().filter(|s| s.occupant.is_some()).count();
        let name = format!("Bot {}", taken + 1);
        let (seat, token) = self.take_seat(name, request.seat, Some(request.kind))?;
        crate::bot::spawn(
            self.handle.clone(),
            token,
            self.ctx.config.bot_think(),
            request.kind,
            rand::random(),
        );
        Ok(AddBotResponse { seat })
    }

    async fn start(&mut self, host_token: &str) -> Result<RoomInfo, LobbyError> {
        self.check_host(host_token)?;
        if self.status != RoomStatus::Lobby {
            return Err(LobbyError::AlreadyStarted);
        }
        if self.seats.iter().any(|s| s.occupant.is_none()) {
            return Err(LobbyError::NotFull);
        }
        let options = self.options.game;
        let seed: u64 = rand::random();
        let salt = token::new_token();
        let commitment = store::seed_commitment(seed, &salt);
        let game =
            Game::new(options, seed).map_err(|e| LobbyError::InvalidOptions(e.to_string()))?;
        let record = NewGame {
            id: self.id,
            options: self.options,
            seed,
            seed_salt: salt.clone(),
            seed_commitment: commitment.clone(),
            host_token_hash: self.host_token_hash.clone(),
            created_at: self.created_at,
            started_at: now_ms(),
            players: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| PlayerRecord {
                    seat: Seat(u8::try_from(i).unwrap_or(0)),
                    name: s
                        .occupant
                        .as_ref()
                        .map(|o| o.name.clone())
                        .unwrap_or_default(),
                    bot: s.occupant.as_ref().and_then(|o| o.bot),
                    token_hash: s.token_hash.clone().unwrap_or_default(),
                    final_vp: None,
                    vp_cards: None,
                })
                .collect(),
        };
        // Stored before anyone hears of it: a crash from now on restores this game.
        if let Err(e) = self.ctx.store.create_game(&record).await {
            warn!(error = %e, "could not store the new game");
            return Err(LobbyError::StoreUnavailable);
        }
        self.game = Some(game);
        self.seed_salt = Some(salt);
        self.seed_commitment = Some(commitment);
        self.set_status(RoomStatus::Playing);
        info!("game started");
        self.broadcast_room();
        // Everyone gets a fresh snapshot with the initial view and legal actions.
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            let seat = self.conns[&id].seat;
            let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
            self.send_to(id, &msg);
        }
        self.update_phase_deadline();
        Ok(self.info())
    }

    // ----- connections -------------------------------------------------------

    fn connect(
        &mut self,
        token: Option<&str>,
        last_seq: Option<u64>,
        in_process: bool,
    ) -> Result<Connected, LobbyError> {
        let seat = match token {
            Some(t) => {
                let given = store::sha256_hex(t);
                let i = self
                    .seats
                    .iter()
                    .position(|s| {
                        s.token_hash
                            .as_deref()
                            .is_some_and(|st| token::matches(st, &given))
                    })
                    .ok_or(LobbyError::InvalidToken)?;
                Some(Seat(u8::try_from(i).unwrap_or(0)))
            }
            None if self.options.spectators => None,
            None => return Err(LobbyError::SpectatorsNotAllowed),
        };
        let (tx, rx) = mpsc::channel(self.ctx.config.outbound_queue.max(8));
        let shared = Arc::new(ConnShared::default());
        let conn = self.next_conn;
        self.next_conn += 1;
        // Take the seat first (announcing it to the others), then attach and send the
        // state, which therefore already shows this seat connected. The actor does
        // nothing in between, so no broadcast can fall in a gap.
        if let Some(s) = seat {
            let previous = self.seats[s.index()].conn.replace(conn);
            match previous {
                Some(old) => self.drop_conn(old, CloseCode::Replaced),
                None => self.broadcast_public(|seq| ServerMessage::Presence {
                    seq,
                    seat: s,
                    connected: true,
                }),
            }
        }
        self.conns.insert(
            conn,
            Conn {
                seat,
                tx,
                shared: shared.clone(),
                in_process,
            },
        );
        let resumed = last_seq.is_some_and(|from| self.replay_since(conn, from));
        if !resumed {
            let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
            self.send_to(conn, &msg);
        }
        debug!(conn, seat = seat.map(|s| s.0), resumed, "connected");
        Ok(Connected {
            conn,
            seat,
            rx,
            shared,
        })
    }

    /// Sends the messages after `from` to `conn`, then a sync point. False when the
    /// backlog no longer reaches back that far (the caller sends a snapshot).
    fn replay_since(&mut self, conn: ConnId, from: u64) -> bool {
        if from > self.seq {
            return false;
        }
        let oldest = self.backlog.front().map_or(self.seq + 1, |(s, _)| *s);
        if from + 1 < oldest && from != self.seq {
            return false;
        }
        let seat = self.conns[&conn].seat;
        let missed: Vec<(u64, Logged)> = self
            .backlog
            .iter()
            .filter(|(s, _)| *s > from)
            .cloned()
            .collect();
        for (seq, logged) in missed {
            let msg = match logged {
                Logged::Events(events) => ServerMessage::Events {
                    seq,
                    events: events.iter().map(|e| e.redact_for(seat)).collect(),
                    request_id: None,
                    deadline: None,
                    offer_deadlines: Vec::new(),
                    legal: Vec::new(),
                },
                Logged::Public(m) => *m,
            };
            self.send_to(conn, &msg);
        }
        let legal = self.legal_for(seat);
        let msg = ServerMessage::Resumed {
            seq: self.seq,
            legal,
            deadline: self.phase_deadline.map(instant_ms),
            offer_deadlines: self.offer_deadline_list(),
        };
        self.send_to(conn, &msg);
        true
    }

    fn disconnect(&mut self, conn: ConnId) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        if let Some(s) = c.seat
            && self.seats[s.index()].conn == Some(conn)
        {
            self.seats[s.index()].conn = None;
            self.gone.push(s);
        }
        debug!(conn, "disconnected");
    }

    /// Tells everyone which seats lost their connection during the last command (and
    /// any the announcements themselves dropped), unless the seat is back already.
    fn announce_gone(&mut self) {
        while let Some(seat) = self.gone.pop() {
            if self.seats[seat.index()].conn.is_none() {
                self.broadcast_public(|seq| ServerMessage::Presence {
                    seq,
                    seat,
                    connected: false,
                });
            }
        }
    }

    /// Detaches a connection on the room's initiative; its socket closes with `code`.
    fn drop_conn(&mut self, conn: ConnId, code: CloseCode) {
        if let Some(c) = self.conns.remove(&conn) {
            c.shared.set_close(code);
            if let Some(s) = c.seat
                && self.seats[s.index()].conn == Some(conn)
            {
                self.seats[s.index()].conn = None;
                if code != CloseCode::Replaced {
                    self.gone.push(s);
                }
            }
        }
    }

    fn send_to(&mut self, conn: ConnId, msg: &ServerMessage) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let out = c.outbound(msg);
        self.deliver(conn, out);
    }

    /// Queues `out` for `conn`, dropping a connection too slow to keep up.
    fn deliver(&mut self, conn: ConnId, out: Outbound) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        match c.tx.try_send(out) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                // A slow client never stalls the room (it may reconnect).
                warn!(conn, "dropping slow connection");
                self.drop_conn(conn, CloseCode::TooSlow);
            }
            // Its socket already ended; the room has not yet read the disconnect.
            Err(mpsc::error::TrySendError::Closed(_)) => self.disconnect(conn),
        }
    }

    // ----- client messages ---------------------------------------------------

    async fn client_message(&mut self, conn: ConnId, msg: ClientMessage, received: Instant) {
        let Some(seat) = self.conns.get(&conn).map(|c| c.seat) else {
            return;
        };
        match msg {
            ClientMessage::Ping { request_id } => {
                self.send_to(conn, &ServerMessage::Pong { request_id });
            }
            ClientMessage::Chat { text } => self.chat(conn, seat, text),
            ClientMessage::Sync => {
                let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
                self.send_to(conn, &msg);
            }
            ClientMessage::Action { request_id, action } => {
                let metrics = self.ctx.metrics.clone();
                let reject = |code: &'static str, message: &str| {
                    metrics.action_rejected(code);
                    ServerMessage::Rejected {
                        request_id: request_id.clone(),
                        code: code.to_owned(),
                        message: message.to_owned(),
                    }
                };
                if request_id.len() > MAX_REQUEST_ID_BYTES {
                    let m = reject(
                        ErrorCode::InvalidRequestId.code(),
                        "request ids are at most 64 bytes",
                    );
                    self.send_to(conn, &m);
                    return;
                }
                let Some(seat) = seat else {
                    let m = reject(ErrorCode::Spectator.code(), "spectators cannot act");
                    self.send_to(conn, &m);
                    return;
                };
                if self.game.is_none() {
                    let m = reject(ErrorCode::NotStarted.code(), "the game has not started");
                    self.send_to(conn, &m);
                    return;
                }
                match self
                    .apply(Actor::Seat(seat), action, Some((conn, request_id.clone())))
                    .await
                {
                    Ok(()) => metrics.action_latency.observe(received.elapsed()),
                    Err(e) => {
                        let m = reject(e.code(), &e.message());
                        self.send_to(conn, &m);
                    }
                }
            }
        }
    }

    fn chat(&mut self, conn: ConnId, seat: Option<Seat>, text: String) {
        let text = text.trim().to_owned();
        if text.is_empty() || text.chars().count() > MAX_CHAT_CHARS {
            let m = ServerMessage::error(
                ErrorCode::InvalidChat,
                format!("chat messages have 1 to {MAX_CHAT_CHARS} characters"),
            );
            self.send_to(conn, &m);
            return;
        }
        let name = seat
            .and_then(|s| self.seats[s.index()].occupant.as_ref())
            .map_or_else(|| "spectator".to_owned(), |o| o.name.clone());
        self.broadcast_public(|seq| ServerMessage::Chat {
            seq,
            seat,
            name,
            text,
        });
    }

    // ----- the game ----------------------------------------------------------

    /// Applies an action through the engine, stores it, and only then broadcasts its
    /// events. A refusal (by the engine, or because the store is down) changes nothing.
    async fn apply(
        &mut self,
        actor: Actor,
        action: Action,
        request: Option<(ConnId, String)>,
    ) -> Result<(), Refusal> {
        let game = self
            .game
            .as_mut()
            .ok_or(Refusal::Engine(catan_engine::ActionError::WrongPhase))?;
        let before = game.clone();
        let events = game.apply(actor, action).map_err(Refusal::Engine)?;
        let record = ActionRecord {
            seq: self.actions,
            room_seq: self.seq + 1,
            seat: match actor {
                Actor::Seat(s) => Some(s),
                Actor::System => None,
            },
            action,
            at: now_ms(),
        };
        if let Err(e) = self.append_with_retry(&record).await {
            warn!(error = %e, "could not store an action; refusing it");
            self.game = Some(before);
            return Err(Refusal::Store);
        }
        self.actions += 1;
        self.ctx.metrics.action_applied();
        self.track_offers(&events);
        self.update_phase_deadline();
        self.broadcast_events(events, request);
        if let Some(winner) = self.game.as_ref().and_then(Game::winner)
            && self.status == RoomStatus::Playing
        {
            self.finish(winner);
        }
        Ok(())
    }

    /// Appends to the log, retrying briefly over a hiccup of the database.
    async fn append_with_retry(&self, record: &ActionRecord) -> Result<(), store::StoreError> {
        let mut delay = Duration::from_millis(20);
        let mut attempt = 0;
        loop {
            match self.ctx.store.append_action(self.id, record).await {
                Ok(()) => return Ok(()),
                Err(e) if attempt >= 3 => return Err(e),
                Err(e) => {
                    debug!(error = %e, attempt, "append failed; retrying");
                    tokio::time::sleep(delay).await;
                    delay *= 4;
                    attempt += 1;
                }
            }
        }
    }

    fn track_offers(&mut self, events: &[Event]) {
        let timeout = Duration::from_secs(u64::from(self.options.trade_timeout_secs));
        for e in events {
            match e {
                Event::OfferMade { offer } => {
                    self.offer_deadlines
                        .push((offer.id, Instant::now() + timeout));
                }
                Event::OfferClosed { offer, .. } => {
                    self.offer_deadlines.retain(|(o, _)| o != offer)
                }
                _ => {}
            }
        }
    }

    /// Restarts the phase timer whenever the phase, the player or the turn changes.
    fn update_phase_deadline(&mut self) {
        let Some(game) = &self.game else { return };
        if game.winner().is_some() {
            self.phase_deadline = None;
            self.offer_deadlines.clear();
            return;
        }
        let key = (game.phase(), game.current(), game.turn());
        if self.phase_key == Some(key) {
            return;
        }
        // A discard phase keeps its deadline while seats discard one by one.
        let same_discard = matches!(
            (self.phase_key.map(|k| k.0), key.0),
            (Some(Phase::Discard { .. }), Phase::Discard { .. })
        );
        self.phase_key = Some(key);
        if same_discard {
            return;
        }
        let secs = match key.0 {
            Phase::Discard { .. } => self.options.discard_timeout_secs,
            _ => self.options.turn_timer_secs,
        };
        self.phase_deadline =
            (secs > 0).then(|| Instant::now() + Duration::from_secs(u64::from(secs)));
    }

    async fn fire_timers(&mut self) {
        let now = Instant::now();
        let due: Vec<OfferId> = self
            .offer_deadlines
            .iter()
            .filter(|(_, d)| *d <= now)
            .map(|(o, _)| *o)
            .collect();
        for offer in due {
            self.offer_deadlines.retain(|(o, _)| *o != offer);
            match self
                .apply(Actor::System, Action::ExpireOffer { offer }, None)
                .await
            {
                Ok(()) => {}
                Err(Refusal::Store) => {
                    // Try again shortly; the offer stays open meanwhile.
                    self.offer_deadlines
                        .push((offer, now + Duration::from_secs(1)));
                }
                Err(e) => debug!(offer = offer.0, code = e.code(), "offer already closed"),
            }
        }
        if self.phase_deadline.is_some_and(|d| d <= now) {
            let key = self.phase_key.take();
            self.phase_deadline = None;
            match self.apply(Actor::System, Action::TimeOut, None).await {
                Ok(()) => {}
                Err(Refusal::Store) => {
                    self.phase_key = key;
                    self.phase_deadline = Some(now + Duration::from_secs(1));
                }
                Err(e) => warn!(code = e.code(), "time-out refused"),
            }
        }
    }

    fn finish(&mut self, winner: Seat) {
        let Some(game) = &self.game else { return };
        let (scores, seed) = (game.final_scores(), game.seed().to_string());
        self.set_status(RoomStatus::Finished);
        self.ctx.metrics.game_finished();
        self.phase_deadline = None;
        self.offer_deadlines.clear();
        info!(winner = winner.0, actions = self.actions, "game over");
        // The result is written in the background, retried with backoff until the
        // database takes it; the room and the server carry on meanwhile.
        let finish = Finish {
            winner,
            finished_at: now_ms(),
            scores: scores.clone(),
        };
        // Tracked, so that a shutdown waits for it.
        self.ctx.tasks.spawn(store_finish(
            self.ctx.store.clone(),
            self.id,
            finish,
            self.ctx.shutdown.clone(),
        ));
        self.seq += 1;
        let info = GameOverInfo {
            seq: self.seq,
            winner,
            scores,
            seed,
            seed_salt: self.seed_salt.clone().unwrap_or_default(),
        };
        self.game_over = Some(info.clone());
        let msg = ServerMessage::GameOver(info);
        self.log(Logged::Public(Box::new(msg.clone())));
        self.send_all(msg);
        self.broadcast_room();
    }

    fn legal_for(&self, seat: Option<Seat>) -> Vec<Action> {
        match (&self.game, seat) {
            (Some(g), Some(s)) => g.legal_actions(s),
            _ => Vec::new(),
        }
    }

    fn offer_deadline_list(&self) -> Vec<OfferDeadline> {
        self.offer_deadlines
            .iter()
            .map(|(offer, d)| OfferDeadline {
                offer: *offer,
                deadline: instant_ms(*d),
            })
            .collect()
    }

    fn snapshot(&self, seat: Option<Seat>) -> Snapshot {
        Snapshot {
            protocol_version: PROTOCOL_VERSION,
            room: self.info(),
            you: seat,
            seq: self.seq,
            view: self.game.as_ref().map(|g| g.view(seat)),
            legal: self.legal_for(seat),
            deadline: self.phase_deadline.map(instant_ms),
            offer_deadlines: self.offer_deadline_list(),
            game_over: self.game_over.clone(),
        }
    }

    // ----- broadcasting ------------------------------------------------------

    fn log(&mut self, entry: Logged) {
        self.backlog.push_back((self.seq, entry));
        while self.backlog.len() > self.ctx.config.event_backlog.max(1) {
            self.backlog.pop_front();
        }
    }

    fn broadcast_events(&mut self, events: Vec<Event>, request: Option<(ConnId, String)>) {
        self.seq += 1;
        let seq = self.seq;
        let events: Arc<[Event]> = events.into();
        self.log(Logged::Events(events.clone()));
        let deadline = self.phase_deadline.map(instant_ms);
        let offer_deadlines = self.offer_deadline_list();
        let ids: Vec<(ConnId, Option<Seat>)> =
            self.conns.iter().map(|(id, c)| (*id, c.seat)).collect();
        let mut spectator_text: Option<Utf8Bytes> = None;
        for (id, seat) in ids {
            let request_id = request
                .as_ref()
                .filter(|(c, _)| *c == id)
                .map(|(_, r)| r.clone());
            if seat.is_none()
                && request_id.is_none()
                && let Some(t) = &spectator_text
            {
                self.deliver(id, Outbound::Text(t.clone()));
                continue;
            }
            let msg = ServerMessage::Events {
                seq,
                events: events.iter().map(|e| e.redact_for(seat)).collect(),
                request_id,
                deadline,
                offer_deadlines: offer_deadlines.clone(),
                legal: self.legal_for(seat),
            };
            if self.conns.get(&id).is_some_and(|c| c.in_process) {
                self.deliver(id, Outbound::Message(Arc::new(msg)));
                continue;
            }
            let text = to_text(&msg);
            if seat.is_none() {
                spectator_text = Some(text.clone());
            }
            self.deliver(id, Outbound::Text(text));
        }
    }

    fn broadcast_public(&mut self, make: impl FnOnce(u64) -> ServerMessage) {
        self.seq += 1;
        let msg = make(self.seq);
        self.log(Logged::Public(Box::new(msg.clone())));
        self.send_all(msg);
    }

    /// Sends the same message to every connection: serialized once for the
    /// sockets, shared as it is with the clients in this process.
    fn send_all(&mut self, msg: ServerMessage) {
        let mut text: Option<Utf8Bytes> = None;
        let mut typed: Option<Arc<ServerMessage>> = None;
        let ids: Vec<(ConnId, bool)> = self
            .conns
            .iter()
            .map(|(id, c)| (*id, c.in_process))
            .collect();
        for (id, in_process) in ids {
            let out = if in_process {
                Outbound::Message(typed.get_or_insert_with(|| Arc::new(msg.clone())).clone())
            } else {
                Outbound::Text(text.get_or_insert_with(|| to_text(&msg)).clone())
            };
            self.deliver(id, out);
        }
    }

    fn broadcast_room(&mut self) {
        let room = self.info();
        self.broadcast_public(|seq| ServerMessage::Room { seq, room });
    }
}

/// Why the room refused a client's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The engine said no.
    Engine(catan_engine::ActionError),
    /// The action could not be stored, so it was not applied.
    Store,
}

impl Refusal {
    fn code(self) -> &'static str {
        match self {
            Refusal::Engine(e) => e.code(),
            Refusal::Store => ErrorCode::StoreUnavailable.code(),
        }
    }

    fn message(self) -> String {
        match self {
            Refusal::Engine(e) => e.to_string(),
            Refusal::Store => {
                "the game store is unavailable; nothing changed, try again".to_owned()
            }
        }
    }
}

/// The longest pause between retries of a result write while shutting down.
const SHUTDOWN_RETRY: Duration = Duration::from_millis(500);

/// Writes a finished game's result, retrying with exponential backoff (capped at
/// 30 s, or 500 ms once the server is shutting down and waiting for this write)
/// until the database accepts it.
pub(crate) async fn store_finish(
    store: Arc<dyn Store>,
    id: Uuid,
    finish: Finish,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let mut delay = Duration::from_millis(100);
    loop {
        match store.finish_game(id, &finish).await {
            Ok(()) => {
                info!(room = %id, "result stored");
                return;
            }
            Err(e) => {
                let retry_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                warn!(room = %id, error = %e, retry_ms, "could not store the result; retrying");
                if *shutdown.borrow() {
                    tokio::time::sleep(delay.min(SHUTDOWN_RETRY)).await;
                } else {
                    // A shutdown cuts a long backoff short: it is waiting for this write.
                    tokio::select! {
                        () = tokio::time::sleep(delay) => {}
                        () = shutting_down(&mut shutdown) => {}
                    }
                }
                delay = (delay * 2).min(if *shutdown.borrow() {
                    SHUTDOWN_RETRY
                } else {
                    Duration::from_secs(30)
                });
            }
        }
    }
}

fn to_text(msg: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(msg).expect("server messages serialize"))
}

/// Completes once the server is shutting down (never, if the signal is gone).
async fn shutting_down(rx: &mut tokio::sync::watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
