//! The deadlines of a game in progress: the phase timer (R-4.5: a turn, or a discard
//! phase, that runs out is ended by a `time_out`), the expiry of each open trade
//! offer, and the countdown of each absent person's decision, after which a
//! bot stands in (`super::stand_in`). Instants only: the room decides when, the task
//! sleeps.

use std::time::Duration;

use catan_engine::{Action, Event, Game, OfferId, Phase, Seat};
use tokio::time::Instant;

use super::{Now, Room};
use catan_protocol::{OfferDeadline, RoomOptions, SeatClock};

/// How soon a timer whose action could not be stored is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// What a phase deadline belongs to: (phase, current seat, turn), to notice changes.
type PhaseKey = (Phase, Seat, u32);

/// A deadline that has passed, and the action the room takes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// An open trade offer ran out.
    Offer(OfferId),
    /// The phase timer ran out; holds what it belonged to, to retry.
    Phase(Option<PhaseKey>),
    /// The seat's person has been away for the room's `stand_in_secs` while a
    /// decision was theirs: a bot is to stand in. No game action.
    StandIn(Seat),
}

impl Timer {
    /// The system action that carries the timer out; none for a stand-in.
    pub(crate) fn action(self) -> Option<Action> {
        match self {
            Timer::Offer(offer) => Some(Action::ExpireOffer { offer }),
            Timer::Phase(_) => Some(Action::TimeOut),
            Timer::StandIn(_) => None,
        }
    }
}

/// The deadlines of one game.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    /// The current phase's deadline, when a timer applies.
    phase: Option<Instant>,
    /// What the deadline belongs to.
    phase_key: Option<PhaseKey>,
    /// Expiry of each open trade offer.
    offers: Vec<(OfferId, Instant)>,
    /// When a stand-in is due for each seat whose person is away while a decision
    /// is theirs.
    stand_ins: Vec<(Seat, Instant)>,
}

impl Timers {
    /// Every offer open in a restored game expires a full timeout from now (in a
    /// game over days, offers have no timer: they close with their turn).
    pub(super) fn restore_offers(&mut self, game: &Game, options: &RoomOptions, now: Now) {
        if options.days.is_some() {
            return;
        }
        let timeout = Duration::from_secs(u64::from(options.trade_timeout_secs));
        self.offers = game
            .offers()
            .iter()
            .map(|o| (o.id, now.at + timeout))
            .collect();
    }

    /// Starts and stops offer deadlines as `events` make and close offers: the
    /// room's `trade_timeout_secs`, or the author's `author_secs` when sooner; in
    /// a game over days none but the author's (an offer lasts until its turn ends,
    /// protocol 27.2).
    pub(super) fn track(
        &mut self,
        events: &[Event],
        options: &RoomOptions,
        author_secs: Option<u32>,
        now: Now,
    ) {
        let room_secs = options.days.is_none().then_some(options.trade_timeout_secs);
        let secs = match (room_secs, author_secs) {
            (Some(room), Some(author)) => Some(room.min(author)),
            (room, author) => room.or(author),
        };
        let timeout = secs.map(|s| Duration::from_secs(u64::from(s)));
        for e in events {
            match e {
                Event::OfferMade { offer } => {
                    if let Some(t) = timeout {
                        self.offers.push((offer.id, now.at + t));
                    }
                }
                Event::OfferClosed { offer, .. } => self.offers.retain(|(o, _)| o != offer),
                _ => {}
            }
        }
    }

    /// Restarts the phase timer whenever the phase, the player or the turn changes; a
    /// discard phase keeps its deadline while seats discard one by one. A game that is
    /// over (won, or ended by the turn limit) has no deadlines; a game over days
    /// has the seats' clocks instead ([`Timers::set_days`]).
    pub(super) fn follow(&mut self, game: &Game, options: &RoomOptions, now: Now) {
        if game.is_over() {
            *self = Timers::default();
            return;
        }
        if options.days.is_some() {
            return;
        }
        let key = (game.phase(), game.current(), game.turn());
        if self.phase_key == Some(key) {
            return;
        }
        let same_discard = matches!(
            (self.phase_key.map(|k| k.0), key.0),
            (Some(Phase::Discard { .. }), Phase::Discard { .. })
        );
        self.phase_key = Some(key);
        if same_discard {
            return;
        }
        let secs = match key.0 {
            Phase::Discard { .. } => options.discard_timeout_secs,
            _ => options.turn_timer_secs,
        };
        self.phase = (secs > 0).then(|| now.at + Duration::from_secs(u64::from(secs)));
    }

    /// Starts the stand-in countdown of each seat of `absent` (away while a decision
    /// is theirs, with no stand-in yet) that has none, `secs` from now, and stops the
    /// countdown of every other seat; `secs` 0 starts none.
    pub(super) fn follow_stand_ins(&mut self, absent: &[Seat], secs: u32, now: Now) {
        self.stand_ins
            .retain(|(s, _)| secs > 0 && absent.contains(s));
        if secs == 0 {
            return;
        }
        let due = now.at + Duration::from_secs(u64::from(secs));
        for seat in absent {
            if !self.stand_ins.iter().any(|(s, _)| s == seat) {
                self.stand_ins.push((*seat, due));
            }
        }
    }

    /// In a game over days, the deadline of each seat's move that no bot makes yet
    /// (`super::clock`): when it passes, a bot makes the move (a stand-in timer).
    pub(super) fn set_days(&mut self, due: Vec<(Seat, Instant)>) {
        self.stand_ins = due;
    }

    /// The earliest deadline.
    pub(super) fn next(&self) -> Option<Instant> {
        let offers = self.offers.iter().map(|(_, d)| *d);
        let stand_ins = self.stand_ins.iter().map(|(_, d)| *d);
        offers.chain(stand_ins).chain(self.phase).min()
    }

    /// Takes every deadline that has passed at `now`: offers first, then the
    /// stand-ins, then the phase.
    pub(super) fn take_due(&mut self, now: Now) -> Vec<Timer> {
        let mut due: Vec<Timer> = self
            .offers
            .iter()
            .filter(|(_, d)| *d <= now.at)
            .map(|(o, _)| Timer::Offer(*o))
            .collect();
        self.offers.retain(|(_, d)| *d > now.at);
        due.extend(
            self.stand_ins
                .iter()
                .filter(|(_, d)| *d <= now.at)
                .map(|(s, _)| Timer::StandIn(*s)),
        );
        self.stand_ins.retain(|(_, d)| *d > now.at);
        if self.phase.is_some_and(|d| d <= now.at) {
            self.phase = None;
            due.push(Timer::Phase(self.phase_key.take()));
        }
        due
    }

    /// Puts back a timer whose action could not be stored, due again shortly.
    pub(super) fn retry(&mut self, timer: Timer, now: Now) {
        match timer {
            Timer::Offer(offer) => self.offers.push((offer, now.at + RETRY)),
            Timer::Phase(key) => {
                self.phase_key = key;
                self.phase = Some(now.at + RETRY);
            }
            // Carried out by the room itself, never refused.
            Timer::StandIn(_) => {}
        }
    }

    /// The deadlines as clients are told them: the phase's, and each offer's, Unix ms.
    fn as_sent(&self, now: Now) -> Sent {
        Sent {
            deadline: self.phase.map(|d| now.unix_of(d)),
            offers: self
                .offers
                .iter()
                .map(|(offer, d)| OfferDeadline {
                    offer: *offer,
                    deadline: now.unix_of(*d),
                })
                .collect(),
            clocks: Vec::new(),
        }
    }
}

/// The deadlines as clients are told them (Unix ms).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sent {
    /// The phase's; in a game over days, the earliest move's.
    pub deadline: Option<u64>,
    /// Each open offer's expiry.
    pub offers: Vec<OfferDeadline>,
    /// In a game over days, each seat's clock.
    pub clocks: Vec<SeatClock>,
}

impl Room {
    /// The earliest deadline of the game in progress.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.stage.timers().and_then(Timers::next)
    }

    /// Takes the timers due at the current time, to be carried out in order with
    /// [`Room::stage_timer`]; each one's deadline is gone until [`Room::retry_timer`].
    pub(crate) fn take_due(&mut self) -> Vec<Timer> {
        let now = self.now();
        self.stage
            .timers_mut()
            .map(|t| t.take_due(now))
            .unwrap_or_default()
    }

    /// A timer whose action the store refused runs again in a second; the offer stays
    /// open, the phase goes on meanwhile.
    pub(crate) fn retry_timer(&mut self, timer: Timer) {
        let now = self.now();
        if let Some(timers) = self.stage.timers_mut() {
            timers.retry(timer, now);
        }
    }

    /// The seats' clocks of a game over days as the store keeps them (an index of
    /// the log, `Store::save_clocks`): their JSON (as on the wire) and the earliest
    /// deadline; nothing for a live game or one that is over.
    pub(crate) fn clocks_to_keep(&self) -> Option<(String, Option<u64>)> {
        let sent = self.deadlines();
        if sent.clocks.is_empty() {
            return None;
        }
        let json = serde_json::to_string(&sent.clocks).ok()?;
        Some((json, sent.deadline))
    }

    /// The deadlines clients are told: the phase's and each open offer's; in a
    /// game over days each seat's clock, and the earliest move's deadline.
    pub(super) fn deadlines(&self) -> Sent {
        let Some(timers) = self.stage.timers() else {
            return Sent::default();
        };
        let mut sent = timers.as_sent(self.now());
        let clock = self
            .stage
            .game()
            .and_then(|m| m.clock().map(|c| (c, m.game())));
        if let Some((clock, game)) = clock {
            sent.clocks = clock.as_sent(game);
            sent.deadline = sent.clocks.iter().filter_map(|c| c.deadline).min();
        }
        sent
    }
}
