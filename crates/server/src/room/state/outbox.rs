//! What the room sends: every broadcast takes the next sequence number and is kept in
//! a bounded backlog for reconnects; game events are redacted per seat on the way out.
//! Messages are serialized here, once per audience; the task only delivers them.
//! [`Outbox`] owns the numbering, the backlog, the chat kept for `history` and what
//! waits for delivery; the room's broadcasts go through it.

use std::collections::VecDeque;
use std::sync::Arc;

use catan_engine::{Action, Event, Seat};

use super::timers::Sent;
use super::{ConnId, ConnMeta, Room};
use crate::room::{Outbound, Wire};
use catan_protocol::{CloseCode, History, HistoryActions, HistoryChat, ServerMessage};

/// What the room asks its task to deliver.
#[derive(Debug)]
pub(crate) enum Out {
    /// Queue a message for a connection. A connection whose queue is full is too slow:
    /// the task drops it and tells the room ([`Room::detach`]).
    Send(ConnId, Outbound),
    /// The room has detached a connection: its socket closes with `code`, after `last`
    /// if its queue has room for it.
    Close {
        /// The connection.
        conn: ConnId,
        /// Why.
        code: CloseCode,
        /// A last message (`closing`), if any.
        last: Option<Outbound>,
    },
}

/// A message kept for reconnects, unredacted. Serialized only into the store's
/// copy of a sleeping room's backlog ([`Outbox::to_keep`]), never onto the wire.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Logged {
    /// Game events of one action, redacted per seat on the way out.
    Events(#[serde(with = "shared_events")] Arc<[Event]>),
    /// A message that is the same for everyone (chat, presence, room changes).
    Public(Box<ServerMessage>),
    /// A chat older than the last [`CHAT_KEPT`]: replayed without its text, so that
    /// a replay has no gap in `seq` while chat keeps no game event out.
    ChatOmitted {
        /// The speaker's seat.
        seat: Option<Seat>,
        /// The speaker's name.
        name: String,
    },
}

/// [`Logged::Events`] in the store's copy of a backlog: a list of events.
mod shared_events {
    use std::sync::Arc;

    use catan_engine::Event;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(events: &Arc<[Event]>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(events.iter())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<[Event]>, D::Error> {
        Vec::<Event>::deserialize(d).map(Into::into)
    }
}

/// Chats whose text the backlog keeps for reconnects, apart from the
/// `--event-backlog` other broadcasts.
pub(crate) const CHAT_KEPT: usize = 32;

/// Chat entries (with or without their text) the backlog holds at most, beyond the
/// other broadcasts; older entries go, game events with them.
pub(crate) const CHAT_ENTRIES: usize = 1024;

impl Logged {
    /// Whether this is a chat, kept apart from the bound on the other broadcasts.
    fn is_chat(&self) -> bool {
        matches!(self, Logged::ChatOmitted { .. })
            || matches!(self, Logged::Public(m) if matches!(**m, ServerMessage::Chat { .. }))
    }

    /// The chat without its text.
    fn omitted(seq: u64, seat: Option<Seat>, name: &str) -> ServerMessage {
        ServerMessage::Chat {
            seq,
            seat,
            name: name.to_owned(),
            text: String::new(),
        }
    }

    /// The message as `seat` (or a spectator) receives it on a resume: events redacted,
    /// without the acknowledgement and deadline fields of the live broadcast.
    fn for_seat(&self, seq: u64, seat: Option<Seat>) -> ServerMessage {
        match self {
            Logged::Events(events) => ServerMessage::Events {
                seq,
                events: events.iter().map(|e| e.redact_for(seat)).collect(),
                request_id: None,
                deadline: None,
                offer_deadlines: Vec::new(),
                clocks: Vec::new(),
                legal: Vec::new(),
            },
            Logged::Public(m) => (**m).clone(),
            Logged::ChatOmitted { seat, name } => Logged::omitted(seq, *seat, name),
        }
    }

    /// The message unredacted, for administrators.
    fn unredacted(&self, seq: u64) -> ServerMessage {
        match self {
            Logged::Events(events) => ServerMessage::Events {
                seq,
                events: events.to_vec(),
                request_id: None,
                deadline: None,
                offer_deadlines: Vec::new(),
                clocks: Vec::new(),
                legal: Vec::new(),
            },
            Logged::Public(m) => (**m).clone(),
            Logged::ChatOmitted { seat, name } => Logged::omitted(seq, *seat, name),
        }
    }
}

/// `msg` as a connection takes it: typed in process, else serialized.
pub(super) fn outbound(meta: &ConnMeta, msg: &ServerMessage) -> Outbound {
    if meta.wire == Wire::Typed {
        Outbound::Message(Arc::new(msg.clone()))
    } else {
        Outbound::Text(to_text(msg))
    }
}

/// The messages of one broadcast made so far, so that an equal one is serialized
/// (or, for a client in this process, copied) once: a broadcast has a message for
/// each seat, most of them alike.
#[derive(Default)]
struct Shared {
    /// Serialized, for sockets.
    texts: Vec<(ServerMessage, Arc<str>)>,
    /// As they are, for clients in this process.
    typed: Vec<Arc<ServerMessage>>,
}

impl Shared {
    /// `msg` as a connection of `wire` takes it, shared with an equal one made before.
    fn outbound(&mut self, wire: Wire, msg: ServerMessage) -> Outbound {
        if wire == Wire::Typed {
            if let Some(m) = self.typed.iter().find(|m| ***m == msg) {
                return Outbound::Message(m.clone());
            }
            let m = Arc::new(msg);
            self.typed.push(m.clone());
            return Outbound::Message(m);
        }
        if let Some((_, t)) = self.texts.iter().find(|(m, _)| *m == msg) {
            return Outbound::Text(t.clone());
        }
        let t = to_text(&msg);
        self.texts.push((msg, t.clone()));
        Outbound::Text(t)
    }
}

/// `msg` as JSON text.
fn to_text(msg: &ServerMessage) -> Arc<str> {
    Arc::from(serde_json::to_string(msg).expect("server messages serialize"))
}

/// What a sleeping room's outbox leaves in the store (protocol 27.5), so that its
/// woken room resumes a reconnect from the same backlog: the numbers, the backlog
/// unredacted and the chat kept for `history`. A storage form of this version:
/// one that does not read back is dropped (the reconnect then gets a snapshot).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Kept {
    /// [`Outbox::seq`].
    seq: u64,
    /// [`Outbox::game_seq`].
    game_seq: u64,
    /// [`Outbox::backlog`].
    backlog: VecDeque<(u64, Logged)>,
    /// [`Outbox::chat_kept`].
    chat: VecDeque<HistoryChat>,
}

/// The room's outgoing messages: their numbers, the backlog kept for reconnects, the
/// chat kept for `history`, and what waits for the task to deliver.
#[derive(Debug)]
pub(crate) struct Outbox {
    /// Sequence number of the last message broadcast.
    seq: u64,
    /// Sequence number of the last broadcast that moved the game on (events): an
    /// action chosen before it may no longer apply.
    game_seq: u64,
    /// The last `--event-backlog` broadcasts (and the chats between them), for
    /// reconnects.
    backlog: VecDeque<(u64, Logged)>,
    /// How many broadcasts other than chat the backlog keeps.
    bound: usize,
    /// The last [`CHAT_KEPT`] chat lines, for `history` (the backlog drops chat
    /// older than its oldest other broadcast).
    chat_kept: VecDeque<HistoryChat>,
    /// What the task is to deliver, in order.
    pending: Vec<Out>,
}

impl Outbox {
    /// Nothing sent yet; the next broadcast is numbered `seq + 1`, and the backlog
    /// keeps `bound` broadcasts besides chat.
    pub(super) fn new(seq: u64, bound: usize) -> Outbox {
        Outbox {
            seq,
            game_seq: seq,
            backlog: VecDeque::new(),
            bound: bound.max(1),
            chat_kept: VecDeque::new(),
            pending: Vec::new(),
        }
    }

    /// The backlog and the chat kept, as JSON for the store while the room sleeps
    /// (protocol 27.5). Holds hidden information (events unredacted): it goes to
    /// the store, as the log does, and nowhere else.
    pub(super) fn to_keep(&self) -> String {
        let kept = Kept {
            seq: self.seq,
            game_seq: self.game_seq,
            backlog: self.backlog.clone(),
            chat: self.chat_kept.clone(),
        };
        serde_json::to_string(&kept).expect("the backlog serializes")
    }

    /// Takes back what [`Outbox::to_keep`] left, when it was kept at this very
    /// broadcast (the room numbers on from the same `seq`); false, and nothing
    /// changed, when it does not read back or was kept at another number.
    pub(super) fn resume(&mut self, json: &str) -> bool {
        match serde_json::from_str::<Kept>(json) {
            Ok(kept)
                if kept.seq == self.seq
                    && kept.backlog.back().is_none_or(|(s, _)| *s <= kept.seq) =>
            {
                self.game_seq = kept.game_seq;
                self.backlog = kept.backlog;
                self.chat_kept = kept.chat;
                true
            }
            _ => false,
        }
    }

    /// The number of the last broadcast.
    pub(super) fn seq(&self) -> u64 {
        self.seq
    }

    /// The number of the last broadcast that moved the game on.
    pub(super) fn game_seq(&self) -> u64 {
        self.game_seq
    }

    /// What the task is to deliver since it last asked, in order.
    pub(super) fn take(&mut self) -> Vec<Out> {
        std::mem::take(&mut self.pending)
    }

    /// Queues `msg` for one connection.
    pub(super) fn send(&mut self, conn: ConnId, meta: &ConnMeta, msg: &ServerMessage) {
        self.pending.push(Out::Send(conn, outbound(meta, msg)));
    }

    /// Closes `conn`'s socket with `code`, after `last` if its queue has room.
    pub(super) fn close(&mut self, conn: ConnId, code: CloseCode, last: Option<Outbound>) {
        self.pending.push(Out::Close { conn, code, last });
    }

    /// Keeps a broadcast (numbered `self.seq`) for reconnects: the last `bound`
    /// broadcasts other than chat, and besides them the chats since, the last
    /// [`CHAT_KEPT`] with their text (at most [`CHAT_ENTRIES`] in all). Only the
    /// oldest entries go, so a replay never has a gap.
    fn log(&mut self, entry: Logged) {
        let chat = entry.is_chat();
        self.backlog.push_back((self.seq, entry));
        let mut chats = self.backlog.iter().filter(|(_, l)| l.is_chat()).count();
        while self.backlog.len() - chats > self.bound || chats > CHAT_ENTRIES {
            if self.backlog.pop_front().is_some_and(|(_, l)| l.is_chat()) {
                chats -= 1;
            }
        }
        if chat {
            self.omit_old_chat_texts();
        }
    }

    /// Drops the text of the oldest chats beyond the last [`CHAT_KEPT`] that have it.
    fn omit_old_chat_texts(&mut self) {
        let with_text = |l: &Logged| matches!(l, Logged::Public(m) if matches!(**m, ServerMessage::Chat { .. }));
        let kept = self.backlog.iter().filter(|(_, l)| with_text(l)).count();
        let excess = kept.saturating_sub(CHAT_KEPT);
        for (_, entry) in self
            .backlog
            .iter_mut()
            .filter(|(_, l)| with_text(l))
            .take(excess)
        {
            if let Logged::Public(m) = entry
                && let ServerMessage::Chat { seat, name, .. } = &**m
            {
                *entry = Logged::ChatOmitted {
                    seat: *seat,
                    name: name.clone(),
                };
            }
        }
    }

    /// Keeps a chat line for `history`: the last [`CHAT_KEPT`].
    pub(super) fn keep_chat(&mut self, line: HistoryChat) {
        self.chat_kept.push_back(line);
        while self.chat_kept.len() > CHAT_KEPT {
            self.chat_kept.pop_front();
        }
    }

    /// The chat lines kept for `history`.
    pub(super) fn chat_kept(&self) -> Vec<HistoryChat> {
        self.chat_kept.iter().cloned().collect()
    }

    /// The logged messages after `from`, as `seat` receives them; `None` when the
    /// backlog no longer reaches back that far, or `from` is ahead of the room.
    pub(super) fn missed_since(&self, from: u64, seat: Option<Seat>) -> Option<Vec<ServerMessage>> {
        let oldest = self.backlog.front().map_or(self.seq + 1, |(s, _)| *s);
        if from > self.seq || (from + 1 < oldest && from != self.seq) {
            return None;
        }
        Some(
            self.backlog
                .iter()
                .filter(|(s, _)| *s > from)
                .map(|(seq, logged)| logged.for_seat(*seq, seat))
                .collect(),
        )
    }

    /// The last `n` broadcasts, unredacted.
    pub(super) fn tail(&self, n: usize) -> Vec<ServerMessage> {
        let skip = self.backlog.len().saturating_sub(n);
        self.backlog
            .iter()
            .skip(skip)
            .map(|(seq, logged)| logged.unredacted(*seq))
            .collect()
    }

    /// Broadcasts the events of one action: each seat gets them redacted for it with
    /// its legal actions (`legal`); the acting connection gets its request id back.
    /// Equal messages share one serialization (spectators always; seats when their
    /// redacted events and legal actions are the same, as those of the seats that
    /// are not to act usually are), and one copy for the clients in this process.
    pub(super) fn broadcast_events(
        &mut self,
        conns: &[(ConnId, ConnMeta)],
        events: Vec<Event>,
        request: Option<(ConnId, String)>,
        deadlines: Sent,
        legal: impl Fn(Option<Seat>) -> Vec<Action>,
    ) {
        self.seq += 1;
        self.game_seq = self.seq;
        let seq = self.seq;
        let events: Arc<[Event]> = events.into();
        self.log(Logged::Events(events.clone()));
        let mut spectator_text: Option<Arc<str>> = None;
        let mut made = Shared::default();
        for &(id, meta) in conns {
            let request_id = request
                .as_ref()
                .filter(|(c, _)| *c == id)
                .map(|(_, r)| r.clone());
            if meta.seat.is_none()
                && request_id.is_none()
                && let Some(t) = &spectator_text
            {
                self.pending.push(Out::Send(id, Outbound::Text(t.clone())));
                continue;
            }
            let msg = ServerMessage::Events {
                seq,
                events: events.iter().map(|e| e.redact_for(meta.seat)).collect(),
                request_id,
                deadline: deadlines.deadline,
                offer_deadlines: deadlines.offers.clone(),
                clocks: deadlines.clocks.clone(),
                legal: legal(meta.seat),
            };
            let out = made.outbound(meta.wire, msg);
            if meta.seat.is_none()
                && let Outbound::Text(text) = &out
            {
                spectator_text = Some(text.clone());
            }
            self.pending.push(Out::Send(id, out));
        }
    }

    /// Broadcasts a message that is the same for everyone, numbered by `make`.
    pub(super) fn broadcast_public(
        &mut self,
        conns: &[(ConnId, ConnMeta)],
        make: impl FnOnce(u64) -> ServerMessage,
    ) {
        self.seq += 1;
        let msg = make(self.seq);
        self.log(Logged::Public(Box::new(msg.clone())));
        self.send_all(conns, &msg);
    }

    /// Sends the same message to every connection: serialized once for the sockets,
    /// shared as it is with the clients in this process.
    fn send_all(&mut self, conns: &[(ConnId, ConnMeta)], msg: &ServerMessage) {
        let mut text: Option<Arc<str>> = None;
        let mut typed: Option<Arc<ServerMessage>> = None;
        for &(id, meta) in conns {
            let out = if meta.wire == Wire::Typed {
                Outbound::Message(typed.get_or_insert_with(|| Arc::new(msg.clone())).clone())
            } else {
                Outbound::Text(text.get_or_insert_with(|| to_text(msg)).clone())
            };
            self.pending.push(Out::Send(id, out));
        }
    }
}

impl Room {
    /// The reconnect backlog as the store keeps it while the room sleeps
    /// (protocol 27.5; `Store::sleep_game`).
    pub(crate) fn backlog_to_keep(&self) -> String {
        self.outbox.to_keep()
    }

    /// Takes back the backlog the room left when it fell asleep, so that a
    /// reconnect resumes from it as if it had never slept; false, and nothing
    /// changed, when it does not fit (kept at another broadcast, or unreadable).
    pub(crate) fn resume_backlog(&mut self, json: &str) -> bool {
        self.outbox.resume(json)
    }

    /// Queues `msg` for one connection.
    pub(super) fn send_to(&mut self, conn: ConnId, msg: &ServerMessage) {
        if let Some(meta) = self.conns.get(conn) {
            self.outbox.send(conn, &meta, msg);
        }
    }

    /// Broadcasts a message that is the same for everyone, numbered by `make`.
    pub(super) fn broadcast_public(&mut self, make: impl FnOnce(u64) -> ServerMessage) {
        self.outbox.broadcast_public(&self.conns.sorted(), make);
    }

    /// Broadcasts the events of one action, with each seat's legal actions and the
    /// deadlines; the acting connection gets its request id back.
    pub(super) fn broadcast_events(
        &mut self,
        events: Vec<Event>,
        request: Option<(ConnId, String)>,
    ) {
        let deadlines = self.deadlines();
        let stage = &self.stage;
        self.outbox
            .broadcast_events(&self.conns.sorted(), events, request, deadlines, |seat| {
                stage.legal_for(seat)
            });
    }

    /// Tells everyone the room's new description.
    pub(super) fn broadcast_room(&mut self) {
        let room = self.info();
        self.broadcast_public(|seq| ServerMessage::Room { seq, room });
    }

    /// What `seat` (or a spectator) may see of the room's past, as of now: the
    /// events of every action, rebuilt by replaying the game's log from its start and
    /// redacted for `seat` as their broadcasts were (protocol.md 15: hands, dev cards
    /// and the deck stay hidden), and the last [`CHAT_KEPT`] chat lines.
    pub(super) fn history(&self, seat: Option<Seat>) -> History {
        let mut actions = Vec::new();
        if let Some(m) = self.stage.game() {
            actions.reserve(m.log().len());
            m.replay(None, |seq, events| {
                actions.push(HistoryActions {
                    seq,
                    events: events.iter().map(|e| e.redact_for(seat)).collect(),
                });
            });
        }
        History {
            seq: self.outbox.seq(),
            actions,
            chat: self.outbox.chat_kept(),
        }
    }
}
