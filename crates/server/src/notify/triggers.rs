//! What a room hands over, and how it decides to: a room of a game over days
//! watches, after every command, which seats owe a move and which offers are open
//! ([`Facts`]); [`Watch::observe`] turns what changed into [`Handover`]s, which the
//! room drops into a bounded channel ([`Handovers::hand`], never waiting). A task
//! (`super::worker::intake`) turns each into outbox rows, one per channel.
//!
//! - A seat newly owes a move: `your_turn` for its player, unless they are
//!   connected to the room right now; and `time_low`, queued at once but due when
//!   less than a quarter of `move_hours` (at most 12 h) is left, so that it comes
//!   also while the room sleeps. The move ends first: the `time_low` is dropped.
//! - An offer is made that a seat may take: `offer_to_you` for its player, unless
//!   connected.
//!
//! Each notice's dedupe key names the moment it is about (the move's start in
//! Unix ms; an offer's id), so a room restored, woken or taken over that hands a
//! notice again stores it once. A restored room starts [`Watch::primed`]: what it
//! finds was handed over by the room before it.

use catan_notify::{NoticeKind, dedupe_key};
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::metrics::Metrics;

/// The most handovers waiting for the intake before rooms' handovers are lost
/// (and counted): rooms never wait on notices.
const HANDOVER_QUEUE: usize = 4096;

/// The most warning `time_low` gives: 12 hours.
const TIME_LOW_MAX_MS: u64 = 12 * 3_600_000;

/// A seated person, as the room knows them now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// Their player (signed in when they took the seat).
    pub player: Uuid,
    /// The seat's display name, for the notice's text.
    pub name: String,
    /// Whether a connection of theirs holds the seat right now.
    pub connected: bool,
}

/// A move a seat owes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owed {
    /// The seat's index.
    pub seat: u8,
    /// Its person (seats of bots and of people without a player owe no notice).
    pub person: Person,
    /// When the move began (Unix ms): its identity, and the notices' moment.
    pub since: u64,
    /// When it runs out (Unix ms).
    pub deadline: u64,
}

/// What a room of a game over days shows after a command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The moves owed now.
    pub moves: Vec<Owed>,
    /// The open offers by id, each with the people who may take it.
    pub offers: Vec<(u64, Vec<Person>)>,
    /// The room's hours per move.
    pub move_hours: u32,
}

/// One notice for one player, as a room hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    /// Whose.
    pub player: Uuid,
    /// The room.
    pub room: Uuid,
    /// What happened.
    pub kind: NoticeKind,
    /// The moment it is about (see the module), part of its dedupe key.
    pub moment: u64,
    /// When to send it (Unix ms).
    pub due_at: u64,
    /// When the move runs out, if it is about a move.
    pub deadline_ms: Option<u64>,
    /// The seat's display name.
    pub seat_name: String,
}

impl Trigger {
    /// The key naming this notice.
    #[must_use]
    pub fn dedupe_key(&self) -> String {
        dedupe_key(self.player, self.room, self.kind, self.moment)
    }
}

/// What a room hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handover {
    /// Queue a notice on each of the player's channels that wants it.
    Notice(Trigger),
    /// Drop the pending notices with this dedupe key (no longer news).
    Drop(String),
}

/// The rooms' end of the channel to the intake; cheap to clone.
#[derive(Debug, Clone)]
pub struct Handovers {
    /// To the intake task.
    tx: mpsc::Sender<Handover>,
    /// Counts handovers lost to a full queue.
    metrics: Option<std::sync::Arc<Metrics>>,
}

impl Handovers {
    /// A channel for `metrics`' server, and its intake's end.
    #[must_use]
    pub fn new(metrics: std::sync::Arc<Metrics>) -> (Handovers, mpsc::Receiver<Handover>) {
        let (tx, rx) = mpsc::channel(HANDOVER_QUEUE);
        let metrics = Some(metrics);
        (Handovers { tx, metrics }, rx)
    }

    /// Handovers that go nowhere (rooms of tests without notifications).
    #[must_use]
    pub fn detached() -> Handovers {
        let (tx, _) = mpsc::channel(1);
        Handovers { tx, metrics: None }
    }

    /// Hands `handover` over without waiting: lost (and counted) when the queue is
    /// full, dropped when nobody takes them.
    pub fn hand(&self, handover: Handover) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(handover)
            && let Some(m) = &self.metrics
        {
            m.notice_lost();
        }
    }
}

/// What a room last saw: the moves owed and the open offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watch {
    /// Each owed move as (seat, since, player).
    moves: Vec<(u8, u64, Uuid)>,
    /// The open offers' ids.
    offers: Vec<u64>,
}

impl Watch {
    /// A watch that has seen `facts` already (a restored room).
    #[must_use]
    pub fn primed(facts: &Facts) -> Watch {
        let mut watch = Watch::default();
        watch.remember(facts);
        watch
    }

    fn remember(&mut self, facts: &Facts) {
        self.moves = facts
            .moves
            .iter()
            .map(|m| (m.seat, m.since, m.person.player))
            .collect();
        self.offers = facts.offers.iter().map(|(id, _)| *id).collect();
    }

    /// What changed since the last look, at `now` (Unix ms), as handovers for
    /// `room`.
    pub fn observe(&mut self, room: Uuid, facts: &Facts, now: u64) -> Vec<Handover> {
        let mut out = Vec::new();
        let low = (u64::from(facts.move_hours) * 3_600_000 / 4).min(TIME_LOW_MAX_MS);
        for (seat, since, player) in &self.moves {
            if !facts
                .moves
                .iter()
                .any(|m| m.seat == *seat && m.since == *since)
            {
                out.push(Handover::Drop(dedupe_key(
                    *player,
                    room,
                    NoticeKind::TimeLow,
                    *since,
                )));
            }
        }
        for m in &facts.moves {
            if self
                .moves
                .iter()
                .any(|(s, t, _)| *s == m.seat && *t == m.since)
            {
                continue;
            }
            let notice = |kind, due_at| {
                Handover::Notice(Trigger {
                    player: m.person.player,
                    room,
                    kind,
                    moment: m.since,
                    due_at,
                    deadline_ms: Some(m.deadline),
                    seat_name: m.person.name.clone(),
                })
            };
            if !m.person.connected {
                out.push(notice(NoticeKind::YourTurn, now));
            }
            out.push(notice(
                NoticeKind::TimeLow,
                m.deadline.saturating_sub(low).max(now),
            ));
        }
        for (id, takers) in &facts.offers {
            if self.offers.contains(id) {
                continue;
            }
            for taker in takers.iter().filter(|t| !t.connected) {
                out.push(Handover::Notice(Trigger {
                    player: taker.player,
                    room,
                    kind: NoticeKind::OfferToYou,
                    moment: *id,
                    due_at: now,
                    deadline_ms: None,
                    seat_name: taker.name.clone(),
                }));
            }
        }
        self.remember(facts);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: u64 = 3_600_000;

    fn person(n: u128, connected: bool) -> Person {
        Person {
            player: Uuid::from_u128(n),
            name: format!("P{n}"),
            connected,
        }
    }

    fn owed(seat: u8, connected: bool, since: u64) -> Owed {
        Owed {
            seat,
            person: person(u128::from(seat) + 1, connected),
            since,
            deadline: since + 24 * HOUR,
        }
    }

    fn facts(moves: Vec<Owed>, offers: Vec<(u64, Vec<Person>)>) -> Facts {
        Facts {
            moves,
            offers,
            move_hours: 24,
        }
    }

    fn kinds(out: &[Handover]) -> Vec<(NoticeKind, u64)> {
        out.iter()
            .filter_map(|h| match h {
                Handover::Notice(t) => Some((t.kind, t.due_at)),
                Handover::Drop(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_new_move_of_an_absent_player_is_their_turn_once_and_time_low_six_hours_before() {
        let room = Uuid::from_u128(9);
        let mut watch = Watch::default();
        let f = facts(vec![owed(0, false, 1000)], Vec::new());
        let out = watch.observe(room, &f, 1000);
        let deadline = 1000 + 24 * HOUR;
        assert_eq!(
            kinds(&out),
            vec![
                (NoticeKind::YourTurn, 1000),
                (NoticeKind::TimeLow, deadline - 6 * HOUR)
            ]
        );
        // Looked at again (another command), the same move is not news.
        assert!(watch.observe(room, &f, 5000).is_empty());
    }

    #[test]
    fn a_connected_player_gets_no_turn_notice_but_time_low_is_still_queued() {
        let mut watch = Watch::default();
        let out = watch.observe(Uuid::nil(), &facts(vec![owed(1, true, 0)], Vec::new()), 0);
        assert_eq!(kinds(&out), vec![(NoticeKind::TimeLow, 18 * HOUR)]);
    }

    #[test]
    fn a_move_that_ends_drops_its_time_low_and_the_next_seat_is_told() {
        let room = Uuid::from_u128(9);
        let mut watch = Watch::default();
        watch.observe(room, &facts(vec![owed(0, false, 0)], Vec::new()), 0);
        let out = watch.observe(room, &facts(vec![owed(1, false, HOUR)], Vec::new()), HOUR);
        let dropped = dedupe_key(Uuid::from_u128(1), room, NoticeKind::TimeLow, 0);
        assert_eq!(out[0], Handover::Drop(dropped));
        assert_eq!(kinds(&out)[0], (NoticeKind::YourTurn, HOUR));
        match &out[1] {
            Handover::Notice(t) => assert_eq!(t.player, Uuid::from_u128(2)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn time_low_warns_at_most_twelve_hours_ahead_and_never_in_the_past() {
        let mut watch = Watch::default();
        let mut f = facts(vec![owed(0, true, 0)], Vec::new());
        f.move_hours = 72;
        f.moves[0].deadline = 72 * HOUR;
        let out = watch.observe(Uuid::nil(), &f, 0);
        assert_eq!(kinds(&out), vec![(NoticeKind::TimeLow, 60 * HOUR)]);
        let mut watch = Watch::default();
        let out = watch.observe(Uuid::nil(), &f, 70 * HOUR);
        assert_eq!(kinds(&out), vec![(NoticeKind::TimeLow, 70 * HOUR)]);
    }

    #[test]
    fn an_offer_is_news_to_its_absent_takers_once() {
        let mut watch = Watch::default();
        let takers = vec![person(2, false), person(3, true)];
        let f = facts(Vec::new(), vec![(7, takers)]);
        let out = watch.observe(Uuid::nil(), &f, 5);
        assert_eq!(out.len(), 1);
        match &out[0] {
            Handover::Notice(t) => {
                assert_eq!(
                    (t.kind, t.player, t.moment),
                    (NoticeKind::OfferToYou, Uuid::from_u128(2), 7)
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(watch.observe(Uuid::nil(), &f, 6).is_empty());
    }

    #[test]
    fn a_primed_watch_hands_nothing_for_what_it_was_restored_with() {
        let f = facts(vec![owed(0, false, 0)], vec![(1, vec![person(5, false)])]);
        let mut watch = Watch::primed(&f);
        assert!(watch.observe(Uuid::nil(), &f, 10).is_empty());
    }
}
