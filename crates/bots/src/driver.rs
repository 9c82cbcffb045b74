//! The one bot driver: plays a seat from the protocol's messages, whatever carries
//! them (the server's in-process channel, or a WebSocket in `catan-client`).
//!
//! It holds the discipline every client should follow (protocol.md section 7): act
//! only on the freshest `legal` list, and after sending an action wait for its
//! acknowledgement (the `events` message carrying its request id) or its refusal
//! before acting again, since messages already in flight carry stale lists. It keeps
//! the seat's [`GameView`] current by applying the events the seat receives
//! ([`GameView::apply_events`]), so a strategy always decides from the whole view
//! without asking for a snapshot, and hands those events to the strategy
//! ([`Strategy::observe`]) before it next decides. After a refusal it asks for one (`sync`) and
//! decides again from it, so no refusal, from the engine or the store, can leave it
//! without a fresh legal list: a bot always recovers and keeps playing. Each action
//! carries the newest sequence number seen (`expect_seq`), so an action overtaken by
//! another seat's is refused as `stale_action`, not as a rules violation.
//!
//! While an offer of its own is open and some recipient has not answered it yet
//! the driver waits for the answers instead of deciding: people need time
//! to answer. Its caller ends the wait after a patience of its choosing with
//! [`SeatDriver::stop_waiting`]; the strategy then decides with the offer still open
//! (the built-in ones withdraw it).
//!
//! The driver does no I/O and keeps no clock: its caller delivers messages, asks
//! [`SeatDriver::decide`] what to send, and waits (think time, and
//! [`SeatDriver::backoff`] after refusals) as its transport allows.

use catan_engine::{Action, Event, GameView, Seat};
use catan_protocol::{ClientMessage, GameOverInfo, ServerMessage};
use rand::RngCore;

use crate::{Strategy, actionable};

/// Refusals in a row after which the driver takes the first actionable choice as it
/// is, so that a choice the room keeps refusing cannot loop forever.
const MAX_REJECTIONS: u32 = 2;

/// Plays one seat: takes in server messages, says what to send.
#[derive(Debug, Default)]
pub struct SeatDriver {
    /// The seat, from the first snapshot (`None` for a spectator).
    seat: Option<Seat>,
    /// The seat's view, from the last snapshot with every event since applied.
    view: Option<GameView>,
    /// The freshest legal actions.
    legal: Vec<Action>,
    /// The action sent and not yet acknowledged or refused: its request id.
    pending: Option<String>,
    /// Whether `legal` is current (false from a send until the next list arrives).
    fresh: bool,
    /// A refusal arrived: ask for a snapshot before deciding again.
    resync: bool,
    /// A `sync` was sent and its snapshot has not arrived yet.
    awaiting_snapshot: bool,
    /// Refusals since the last accepted action.
    rejections: u32,
    /// Counter for request ids.
    next_request: u64,
    /// Actions acknowledged.
    acked: u64,
    /// Actions refused.
    refused: u64,
    /// The result, once the game is over.
    game_over: Option<GameOverInfo>,
    /// The newest sequence number seen, sent with each action as `expect_seq`.
    seq: u64,
    /// The caller stopped waiting for answers to the seat's open offers.
    patience_over: bool,
    /// Events received that the strategy has not observed yet.
    unseen: Vec<Event>,
}

impl SeatDriver {
    /// A driver that has seen nothing yet.
    #[must_use]
    pub fn new() -> SeatDriver {
        SeatDriver::default()
    }

    /// Takes in one server message.
    pub fn observe(&mut self, msg: &ServerMessage) {
        if let Some(seq) = msg.seq() {
            self.seq = self.seq.max(seq);
        }
        match msg {
            ServerMessage::Snapshot(s) => {
                self.seat = s.you;
                self.view.clone_from(&s.view);
                self.awaiting_snapshot = false;
                self.resync = false;
                self.set_legal(&s.legal, None);
            }
            ServerMessage::Events {
                events,
                legal,
                request_id,
                ..
            } => {
                if let Some(view) = &mut self.view {
                    view.apply_events(events);
                }
                self.unseen.extend_from_slice(events);
                self.set_legal(legal, request_id.as_deref());
            }
            ServerMessage::Resumed { legal, .. } => self.set_legal(legal, None),
            ServerMessage::Rejected { request_id, .. }
                if self.pending.as_deref() == Some(request_id.as_str()) =>
            {
                self.pending = None;
                self.refused += 1;
                self.rejections += 1;
                self.resync = true;
            }
            ServerMessage::GameOver(over) => self.game_over = Some(over.clone()),
            _ => {}
        }
    }

    /// A new legal list; `request_id` acknowledges the pending action if it is its.
    fn set_legal(&mut self, legal: &[Action], request_id: Option<&str>) {
        self.legal.clear();
        self.legal.extend_from_slice(legal);
        if request_id.is_some() && request_id == self.pending.as_deref() {
            self.pending = None;
            self.acked += 1;
            self.rejections = 0;
            self.patience_over = false;
        }
        self.fresh = true;
    }

    /// Whether the game is over.
    #[must_use]
    pub fn over(&self) -> bool {
        self.game_over.is_some()
    }

    /// The result, once the game is over.
    #[must_use]
    pub fn game_over(&self) -> Option<&GameOverInfo> {
        self.game_over.as_ref()
    }

    /// The seat played, once the first snapshot arrived.
    #[must_use]
    pub fn seat(&self) -> Option<Seat> {
        self.seat
    }

    /// The seat's current view, once the game started.
    #[must_use]
    pub fn view(&self) -> Option<&GameView> {
        self.view.as_ref()
    }

    /// The freshest legal actions.
    #[must_use]
    pub fn legal(&self) -> &[Action] {
        &self.legal
    }

    /// Actions acknowledged and refused so far.
    #[must_use]
    pub fn counts(&self) -> (u64, u64) {
        (self.acked, self.refused)
    }

    /// Refusals since the last accepted action: a caller waits longer after each
    /// (the store may be down), e.g. this many times its think time.
    #[must_use]
    pub fn backoff(&self) -> u32 {
        self.rejections
    }

    /// Whether the driver waits for answers to an offer of its seat: it is the
    /// seat's turn, and an open offer of its own has a recipient who has neither
    /// accepted nor rejected it, and [`SeatDriver::stop_waiting`] was not
    /// called since the seat's last accepted action.
    #[must_use]
    pub fn waiting_for_answers(&self) -> bool {
        let (Some(view), Some(me)) = (&self.view, self.seat) else {
            return false;
        };
        !self.patience_over
            && view.current == me
            && view.offers.iter().any(|o| {
                o.from == me
                    && view.players.iter().any(|p| {
                        o.is_recipient(p.seat) && !o.has_accepted(p.seat) && !o.has_rejected(p.seat)
                    })
            })
    }

    /// Ends the wait for answers (the caller's patience ran out): the next
    /// [`SeatDriver::decide`] asks the strategy with the offer still open.
    pub fn stop_waiting(&mut self) {
        self.patience_over = true;
    }

    /// Whether [`SeatDriver::decide`] would send something now.
    #[must_use]
    pub fn ready(&self) -> bool {
        !self.over()
            && self.pending.is_none()
            && !self.awaiting_snapshot
            && (self.resync
                || (self.fresh && !self.legal.is_empty() && !self.waiting_for_answers()))
    }

    /// What to send now, if anything: `sync` after a refusal, else `strategy`'s
    /// choice among the actionable legal actions (answers to offers this seat has
    /// already given are left out), marked pending until its answer arrives.
    pub fn decide(
        &mut self,
        strategy: &mut dyn Strategy,
        rng: &mut dyn RngCore,
    ) -> Option<ClientMessage> {
        if !self.ready() {
            return None;
        }
        // After a refusal, or when the seat may act but no snapshot was seen (a
        // driver that starts from a resumed connection): ask for the whole state.
        if self.resync || self.view.is_none() {
            self.resync = false;
            self.awaiting_snapshot = true;
            return Some(ClientMessage::Sync);
        }
        for e in self.unseen.drain(..) {
            strategy.observe(&e);
        }
        let view = self.view.as_ref()?;
        let actions = actionable(view, &self.legal);
        let first = *actions.first()?;
        let action = if self.rejections >= MAX_REJECTIONS {
            first
        } else {
            strategy.choose(view, &actions, rng)
        };
        self.next_request += 1;
        let request_id = format!("r{}", self.next_request);
        self.pending = Some(request_id.clone());
        self.fresh = false;
        Some(ClientMessage::Action {
            request_id,
            action,
            expect_seq: Some(self.seq),
            offer_expires_secs: None,
        })
    }
}
