//! Stand-ins: a person's seat with no connection while a decision is the seat's
//! (the current player's turn, or a discard it owes) is counted down for the room's
//! `stand_in_secs` (0: never); then a built-in bot of the room's `stand_in_level`
//! plays the seat until the person reconnects. The bot is attached as a connection
//! of its own (not the seat's, so the seat stays disconnected and its token keeps
//! working); the room task runs it with the one bot driver (`crate::bot`). Everyone
//! hears `stand_in` when it starts and stops, and the seat's entry in the room
//! description says so. A restored room knows of no stand-in: the countdown of an
//! absent person on turn starts again from the restart.

use catan_engine::{Game, Phase, Seat};
use tracing::info;

use super::{ConnId, ConnMeta, Room, Wire};
use catan_protocol::{CloseCode, ServerMessage};

/// Whether a decision is `seat`'s now: the current player's, in every phase but a
/// discard, where it is each seat's that still owes cards. Answers to trade
/// offers are optional (they expire, R-9.3) and do not count.
fn owes_decision(game: &Game, seat: Seat) -> bool {
    match game.phase() {
        Phase::Over { .. } => false,
        Phase::Discard { pending } => pending.get(seat.index()).is_some_and(|n| *n > 0),
        _ => game.current() == seat,
    }
}

impl Room {
    /// The seats a stand-in is due for once their countdown ends: a person's, with no
    /// connection and no stand-in, while a decision is theirs. In a game over days,
    /// a person's with no stand-in whose move is theirs (connected or not).
    fn awaiting_stand_in(&self) -> Vec<Seat> {
        if self.stage.timers().is_none() {
            return Vec::new();
        }
        let Some(game) = self.stage.game() else {
            return Vec::new();
        };
        if let Some(clock) = game.clock() {
            return clock
                .deadlines(game.game())
                .into_iter()
                .map(|(seat, _)| seat)
                .filter(|&s| self.seats.is_person(s) && self.conns.stand_in_of(s).is_none())
                .collect();
        }
        self.seats
            .occupants()
            .map(|(seat, _)| seat)
            .filter(|&seat| {
                self.seats.is_person(seat)
                    && self.conns.of_seat(seat).is_none()
                    && self.conns.stand_in_of(seat).is_none()
                    && owes_decision(game.game(), seat)
            })
            .collect()
    }

    /// Starts and stops the stand-in countdowns as seats come and go and decisions
    /// move on (the task calls it after every command and timer): a countdown runs
    /// while its seat stays away with a decision of its own, from when that began.
    pub(crate) fn follow_stand_ins(&mut self) {
        if self.options.days.is_some() {
            self.follow_days();
            return;
        }
        let absent = self.awaiting_stand_in();
        let (secs, now) = (self.options.stand_in_secs, self.now());
        if let Some(timers) = self.stage.timers_mut() {
            timers.follow_stand_ins(&absent, secs, now);
        }
    }

    /// In a game over days: a bot is due for each seat that owes a move when that
    /// move's time (and bank and vacation) runs out, and a bot that made a move
    /// stops once the move is made (a replaced seat's never stops).
    fn follow_days(&mut self) {
        let Some(m) = self.stage.game() else {
            return;
        };
        let Some(clock) = m.clock() else {
            return;
        };
        let due = clock.deadlines(m.game());
        let done: Vec<Seat> = m
            .game()
            .seats()
            .filter(|s| {
                self.conns.stand_in_of(*s).is_some()
                    && !clock.replaced(*s)
                    && !due.iter().any(|(d, _)| d == s)
            })
            .collect();
        let waiting = self.awaiting_stand_in();
        let now = self.now();
        let timers: Vec<_> = due
            .into_iter()
            .filter(|(s, _)| waiting.contains(s))
            .map(|(s, at)| (s, now.at_unix(at).at))
            .collect();
        if let Some(t) = self.stage.timers_mut() {
            t.set_days(timers);
        }
        for seat in done {
            self.end_stand_in(seat);
        }
    }

    /// A stand-in's countdown ran out: attaches a connection for the bot that is to
    /// play `seat` (typed messages, starting with the seat's snapshot), after telling
    /// everyone. Returns it for the task to run the bot on, or nothing if the seat no
    /// longer awaits a stand-in (its person came back meanwhile).
    pub(crate) fn start_stand_in(&mut self, seat: Seat) -> Option<ConnId> {
        if !self.awaiting_stand_in().contains(&seat) {
            return None;
        }
        // Everyone is told first; the stand-in starts from a snapshot that shows it.
        self.broadcast_public(|seq| ServerMessage::StandIn {
            seq,
            seat,
            active: true,
        });
        let (conn, _) = self.conns.attach(ConnMeta {
            seat: Some(seat),
            wire: Wire::Typed,
            stand_in: true,
        });
        let msg = ServerMessage::Snapshot(Box::new(self.snapshot(Some(seat))));
        self.send_to(conn, &msg);
        info!(
            seat = seat.0,
            after_secs = self.options.stand_in_secs,
            level = %self.options.stand_in_level,
            "a bot stands in for an absent person"
        );
        Some(conn)
    }

    /// Stops the bot standing in for `seat`, if one does (its person is back): its
    /// connection is dropped, so it makes no further decision (an action it sent
    /// already is not taken: the connection is gone), and everyone is told.
    pub(super) fn end_stand_in(&mut self, seat: Seat) {
        let Some(conn) = self.conns.end_stand_in(seat) else {
            return;
        };
        self.outbox.close(conn, CloseCode::Replaced, None);
        self.broadcast_public(|seq| ServerMessage::StandIn {
            seq,
            seat,
            active: false,
        });
        info!(seat = seat.0, "the person is back; the stand-in stops");
    }
}

#[cfg(test)]
mod tests {
    use catan_engine::GameOptions;
    use catan_engine::playout::RandomPlayer;

    use super::super::seat_at;
    use super::*;

    #[test]
    fn in_a_discard_the_decision_is_each_owing_seats_not_the_current_players() {
        // a 7 with seats holding more than seven cards.
        let mut game = Game::new(GameOptions::default(), 3).expect("game");
        let mut random = RandomPlayer::new(3);
        for _ in 0..100_000 {
            if matches!(game.phase(), Phase::Discard { .. }) {
                break;
            }
            random
                .step(&mut game, &mut Vec::new())
                .expect("a legal step");
        }
        let Phase::Discard { pending } = game.phase() else {
            panic!("no discard within 100,000 random steps")
        };
        assert!(pending.iter().any(|n| *n > 0));
        for (i, owed) in pending.iter().enumerate().take(4) {
            let seat = seat_at(i);
            assert_eq!(owes_decision(&game, seat), *owed > 0, "seat {i}");
        }
        // Out of the discard, the decision is the current player's alone.
        let game = Game::new(GameOptions::default(), 3).expect("game");
        let current = game.current();
        assert!(owes_decision(&game, current));
        assert!(!owes_decision(&game, seat_at((current.index() + 1) % 4)));
    }
}
