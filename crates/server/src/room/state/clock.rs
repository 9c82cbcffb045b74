//! The clocks of a game over days (protocol 27), kept as a fold over the stored
//! log: each action's time, seat and stand-in mark say everything, so a restored
//! room (after a restart or a cluster takeover) has exactly the clocks it had, and
//! a deadline that passed while no instance held the room fires at once.
//!
//! A *move* is a decision a seat owes: its turn, from the moment the turn became
//! the seat's until it passes (the set-up's placements included), or its discard
//! after a 7. A turn has `move_hours`; past them the seat's bank is drawn
//! on, then its vacation days, whole days at a time; past all three the seat's move
//! times out and a bot of the room's stand-in level makes it. While a discard is
//! under way the current player's clock stops. A discard has `discard_hours`, no
//! bank. After each turn `bank_add_mins` go to the seat's bank, up to its cap. A
//! move in which a bot acted for the seat counts as a time-out; after
//! [`DAYS_TIME_OUTS_REPLACED`] the seat is replaced: the bot makes every move of
//! the seat at once for the rest of the game (and a rated game places it last).
//! Pure: Unix milliseconds in, deadlines out; the room turns them into timers.

use catan_engine::{Action, Game, Phase, Seat};
use catan_protocol::{DAYS_TIME_OUTS_REPLACED, DaysOptions, SeatClock};

/// An hour in milliseconds.
const HOUR_MS: u64 = 3_600_000;
/// A day in milliseconds.
const DAY_MS: u64 = 24 * HOUR_MS;

/// One seat's clock between its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SeatTime {
    /// Time bank left, ms.
    bank_ms: u64,
    /// Vacation left, whole days.
    vacation_days: u32,
    /// Moves a bot made for the seat because its time ran out.
    time_outs: u32,
}

/// The turn under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Move {
    /// Whose turn.
    seat: Seat,
    /// When it began (Unix ms), moved later by every discard within it.
    since: u64,
    /// Whether a bot acted for the seat in it.
    stood_in: bool,
}

/// The clocks of one game over days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clock {
    /// The room's clock options.
    options: DaysOptions,
    /// Per seat index.
    seats: Vec<SeatTime>,
    /// The turn under way (none once the game is over).
    turn: Option<Move>,
    /// When the discard under way began (Unix ms).
    discard: Option<u64>,
}

impl Clock {
    /// The clocks of `game` (just started, or as it started) at `started_at`.
    pub(crate) fn new(options: DaysOptions, game: &Game, started_at: u64) -> Clock {
        let seat = SeatTime {
            bank_ms: u64::from(options.bank_hours) * HOUR_MS,
            vacation_days: options.vacation_days,
            time_outs: 0,
        };
        let mut clock = Clock {
            options,
            seats: vec![seat; game.seats().count()],
            turn: None,
            discard: None,
        };
        clock.follow(game, started_at);
        clock
    }

    /// Takes in an action committed at `at` (Unix ms) by `seat` (`None`: the
    /// system), made by a bot for the seat's person when `stand_in`; `game` is the
    /// game after it.
    pub(crate) fn record(
        &mut self,
        seat: Option<Seat>,
        action: &Action,
        stand_in: bool,
        game: &Game,
        at: u64,
    ) {
        if let (Some(s), true) = (seat, stand_in) {
            if matches!(action, Action::Discard { .. }) {
                // A discard is one action: the bot's is the seat's time-out.
                self.seats[s.index()].time_outs += 1;
            } else if let Some(turn) = self.turn.as_mut().filter(|t| t.seat == s) {
                turn.stood_in = true;
            }
        }
        self.follow(game, at);
    }

    /// Starts, pauses and ends moves as `game` stands at `at`.
    fn follow(&mut self, game: &Game, at: u64) {
        if game.is_over() {
            if let Some(turn) = self.turn.take() {
                self.settle(turn, at);
            }
            self.discard = None;
            return;
        }
        if matches!(game.phase(), Phase::Discard { .. }) {
            self.discard.get_or_insert(at);
            return;
        }
        if let Some(began) = self.discard.take()
            && let Some(turn) = self.turn.as_mut()
        {
            turn.since += at.saturating_sub(began);
        }
        let current = game.current();
        if self.turn.is_some_and(|t| t.seat == current) {
            return;
        }
        if let Some(turn) = self.turn.take() {
            self.settle(turn, at);
        }
        self.turn = Some(Move {
            seat: current,
            since: at,
            stood_in: false,
        });
    }

    /// Ends `turn` at `at`: the time past the move's comes out of the bank, then
    /// out of the vacation (whole days); then the bank grows by its increment.
    fn settle(&mut self, turn: Move, at: u64) {
        let move_ms = u64::from(self.options.move_hours) * HOUR_MS;
        let add = u64::from(self.options.bank_add_mins) * 60_000;
        let cap = u64::from(self.options.bank_cap_hours) * HOUR_MS;
        let s = &mut self.seats[turn.seat.index()];
        let mut over = at.saturating_sub(turn.since).saturating_sub(move_ms);
        let from_bank = over.min(s.bank_ms);
        s.bank_ms -= from_bank;
        over -= from_bank;
        let days = u32::try_from(over.div_ceil(DAY_MS)).unwrap_or(u32::MAX);
        s.vacation_days = s.vacation_days.saturating_sub(days);
        if turn.stood_in {
            s.time_outs += 1;
        }
        s.bank_ms = (s.bank_ms + add).min(cap);
    }

    /// Whether `seat` is replaced by a bot for the rest of the game.
    pub(crate) fn replaced(&self, seat: Seat) -> bool {
        self.seats[seat.index()].time_outs >= DAYS_TIME_OUTS_REPLACED
    }

    /// The deadline of each seat that owes a move in `game` (Unix ms): a replaced
    /// seat's is its move's start.
    pub(crate) fn deadlines(&self, game: &Game) -> Vec<(Seat, u64)> {
        match (game.phase(), self.discard) {
            (Phase::Over { .. }, _) => Vec::new(),
            (Phase::Discard { pending }, Some(began)) => {
                let due = began + u64::from(self.options.discard_hours) * HOUR_MS;
                game.seats()
                    .filter(|s| pending.get(s.index()).is_some_and(|n| *n > 0))
                    .map(|s| (s, if self.replaced(s) { began } else { due }))
                    .collect()
            }
            (Phase::Discard { .. }, None) => Vec::new(),
            _ => self.turn.map_or_else(Vec::new, |t| {
                let due = if self.replaced(t.seat) {
                    t.since
                } else {
                    let s = &self.seats[t.seat.index()];
                    t.since
                        + u64::from(self.options.move_hours) * HOUR_MS
                        + s.bank_ms
                        + u64::from(s.vacation_days) * DAY_MS
                };
                vec![(t.seat, due)]
            }),
        }
    }

    /// Each move owed in `game` by a seat a bot does not make every move of, as
    /// (seat, when the move began, its deadline), Unix ms: what notices are about.
    pub(crate) fn moves(&self, game: &Game) -> Vec<(Seat, u64, u64)> {
        let since = match (game.phase(), self.discard) {
            (Phase::Discard { .. }, Some(began)) => began,
            _ => self.turn.map_or(0, |t| t.since),
        };
        self.deadlines(game)
            .into_iter()
            .filter(|(s, _)| !self.replaced(*s))
            .map(|(s, due)| (s, since, due))
            .collect()
    }

    /// Each seat's clock as clients are told it.
    pub(crate) fn as_sent(&self, game: &Game) -> Vec<SeatClock> {
        let due = self.deadlines(game);
        game.seats()
            .map(|seat| {
                let s = &self.seats[seat.index()];
                SeatClock {
                    seat,
                    deadline: due.iter().find(|(d, _)| *d == seat).map(|(_, t)| *t),
                    bank_ms: s.bank_ms,
                    vacation_days: s.vacation_days,
                    time_outs: s.time_outs,
                    replaced: self.replaced(seat),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use catan_engine::GameOptions;
    use catan_engine::playout::RandomPlayer;

    use super::*;

    const MOVE: u64 = 24 * HOUR_MS;

    fn started() -> (Game, Clock) {
        let game = Game::new(GameOptions::default(), 7).expect("game");
        let clock = Clock::new(DaysOptions::preset(24), &game, 0);
        (game, clock)
    }

    /// Plays random legal actions by the current seat until the turn passes to
    /// another seat, every action at `at`; returns the game after.
    fn pass_turn(
        game: &mut Game,
        clock: &mut Clock,
        at: u64,
        stand_in: bool,
        rng: &mut RandomPlayer,
    ) {
        let mover = game.current();
        while game.current() == mover && !game.is_over() {
            let mut events = Vec::new();
            let (seat, action) = rng.step(game, &mut events).expect("a legal step");
            clock.record(Some(seat), &action, stand_in && seat == mover, game, at);
        }
    }

    #[test]
    fn a_turn_within_its_hours_costs_no_bank_and_adds_the_increment_up_to_the_cap() {
        let (mut game, mut clock) = started();
        let first = game.current();
        assert_eq!(
            clock.deadlines(&game),
            vec![(first, MOVE + 48 * HOUR_MS + 7 * DAY_MS)]
        );
        let mut rng = RandomPlayer::new(1);
        pass_turn(&mut game, &mut clock, HOUR_MS, false, &mut rng);
        let s = clock.seats[first.index()];
        assert_eq!(s.bank_ms, 48 * HOUR_MS + 6 * HOUR_MS);
        assert_eq!((s.vacation_days, s.time_outs), (7, 0));
        // The next seat's move starts when the turn passed.
        let (next, due) = clock.deadlines(&game)[0];
        assert_ne!(next, first);
        assert_eq!(due, HOUR_MS + MOVE + 48 * HOUR_MS + 7 * DAY_MS);
    }

    #[test]
    fn time_past_the_move_comes_from_the_bank_then_whole_vacation_days() {
        let (mut game, mut clock) = started();
        let first = game.current();
        let mut rng = RandomPlayer::new(1);
        // 24 h of move, 48 h of bank, and 1 h more: a whole vacation day goes.
        pass_turn(&mut game, &mut clock, MOVE + 49 * HOUR_MS, false, &mut rng);
        let s = clock.seats[first.index()];
        assert_eq!(
            (s.bank_ms, s.vacation_days, s.time_outs),
            (6 * HOUR_MS, 6, 0)
        );
    }

    #[test]
    fn a_move_a_bot_made_is_a_time_out_and_three_replace_the_seat() {
        let (mut game, mut clock) = started();
        let first = game.current();
        let mut rng = RandomPlayer::new(3);
        let mut at = 0;
        while clock.seats[first.index()].time_outs < DAYS_TIME_OUTS_REPLACED {
            assert!(!clock.replaced(first));
            at += HOUR_MS;
            let bot = game.current() == first;
            pass_turn(&mut game, &mut clock, at, bot, &mut rng);
            assert!(!game.is_over());
        }
        assert!(clock.replaced(first));
        // A replaced seat's move is due the moment it starts.
        while game.current() != first || matches!(game.phase(), Phase::Discard { .. }) {
            at += HOUR_MS;
            pass_turn(&mut game, &mut clock, at, false, &mut rng);
        }
        assert_eq!(clock.deadlines(&game), vec![(first, at)]);
        let sent = clock.as_sent(&game);
        assert!(sent[first.index()].replaced);
        assert_eq!(sent[first.index()].deadline, Some(at));
    }

    #[test]
    fn the_clock_of_a_log_folded_again_is_the_same() {
        // What a restore does: the same actions at the same times, the same clocks.
        let (mut game, mut clock) = started();
        let initial = game.clone();
        let mut rng = RandomPlayer::new(9);
        let mut log = Vec::new();
        for i in 0..400u64 {
            if game.is_over() {
                break;
            }
            let mut events = Vec::new();
            let (seat, action) = rng.step(&mut game, &mut events).expect("step");
            let at = i * 37 * 60_000;
            let bot = i % 5 == 0;
            clock.record(Some(seat), &action, bot, &game, at);
            log.push((seat, action, bot, at));
        }
        let mut again = Clock::new(DaysOptions::preset(24), &initial, 0);
        let mut replay = initial;
        for (seat, action, bot, at) in log {
            replay.apply(seat, action).expect("replays");
            again.record(Some(seat), &action, bot, &replay, at);
        }
        assert_eq!(again, clock);
    }
}
