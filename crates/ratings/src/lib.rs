//! Player ratings: what a rated game's final order does to its players' ratings.
//!
//! The model is Weng-Lin (a Bayesian approximation for games of several players,
//! the Bradley-Terry variant of [`skillratings::weng_lin`]): each player has a skill
//! estimate `mu` and its uncertainty `sigma` (a new player: 25 and 25/3). A game
//! of three or four is rated as one ranking of its seats ([`places`]): the winner
//! first, the others by their final victory points (ties share a place); a game
//! ended by the turn limit has no winner and is ranked by points alone; a
//! seat whose person a stand-in bot replaced for more than a quarter of their turns
//! ([`STAND_IN_SHARE_LAST`]) is placed last. Built-in bots take part with a fixed
//! rating each ([`bot_skill`]) that no game changes.
//!
//! What people see is a conservative figure ([`Skill::display`]: `mu - 3 sigma`,
//! scaled so that a new player shows 1000), marked provisional while `sigma` is
//! above [`PROVISIONAL_SIGMA`].
//!
//! Everything here is deterministic: the same games in the same order give the same
//! ratings to the last bit ([`Ledger`]), so the ratings a server holds can be
//! recomputed from its stored games and compared.
//!
//! # Layout
//!
//! - [`Skill`], its display and provisional mark;
//! - [`places`]: a game's ranking, the stand-in rule included;
//! - [`rate`]: one game's update; [`Ledger`]: many games in order;
//! - [`bot_skill`]: the bots' fixed ratings and how they were calibrated.

use std::collections::HashMap;
use std::hash::Hash;

use catan_engine::{Action, Seat};
use catan_protocol::BotKind;
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// The uncertainty above which a rating is shown as provisional. A new player
/// (25/3) drops to it after 14 four-player games among equals
/// (`tests::fourteen_games_make_a_rating_settled` measures it; 19 games for 3.0,
/// 27 for 2.5).
pub const PROVISIONAL_SIGMA: f64 = 3.5;

/// The share of a person's turns a stand-in may play before the person is placed
/// last: more than one in four (`stood_in * 4 > turns`).
pub const STAND_IN_SHARE_LAST: (u32, u32) = (1, 4);

/// The display scale: a rating of `mu - 3 sigma = 0` (every new player) shows as
/// [`DISPLAY_BASE`], and each point of `mu` is worth [`DISPLAY_SCALE`].
pub const DISPLAY_BASE: f64 = 1000.0;
/// See [`DISPLAY_BASE`].
pub const DISPLAY_SCALE: f64 = 40.0;

/// A skill estimate: the mean `mu` and its uncertainty `sigma`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skill {
    /// The estimated skill.
    pub mu: f64,
    /// Its uncertainty (a standard deviation).
    pub sigma: f64,
}

impl Skill {
    /// A player who has played no rated game.
    pub const NEW: Skill = Skill {
        mu: 25.0,
        sigma: 25.0 / 3.0,
    };

    /// The number people see: `mu - 3 sigma` (the skill the player has with about
    /// 99.9% confidence) on the display scale, never below 0.
    #[must_use]
    pub fn display(self) -> i32 {
        let shown = DISPLAY_BASE + DISPLAY_SCALE * (self.mu - 3.0 * self.sigma);
        // In range by the clamp; rounding to the nearest whole point.
        #[allow(clippy::cast_possible_truncation)]
        let shown = shown.clamp(0.0, 1_000_000.0).round() as i32;
        shown
    }

    /// Whether the rating is still too uncertain to mean much.
    #[must_use]
    pub fn provisional(self) -> bool {
        self.sigma > PROVISIONAL_SIGMA
    }
}

impl Default for Skill {
    fn default() -> Skill {
        Skill::NEW
    }
}

impl From<Skill> for WengLinRating {
    fn from(s: Skill) -> WengLinRating {
        WengLinRating {
            rating: s.mu,
            uncertainty: s.sigma,
        }
    }
}

impl From<WengLinRating> for Skill {
    fn from(r: WengLinRating) -> Skill {
        Skill {
            mu: r.rating,
            sigma: r.uncertainty,
        }
    }
}

/// The fixed rating of a built-in bot level, which no game changes; `None` for the
/// random baseline, which is not a level for players (rooms may not seat it in a
/// rated game).
///
/// Calibrated with the arena (`catan-arena --ratings`, bench/results-2026-12.md;
/// the run's figures are given with the constants):
/// the three levels rotating through the seats of three-player games, each level one
/// identity updated by every game from a new player's rating; the means are then
/// shifted so that the medium level, the lobby's default and the stand-in, sits at
/// a new player's 25 (a person of unknown skill is taken to play like it), and the
/// uncertainty is the run's final one.
#[must_use]
pub fn bot_skill(kind: BotKind) -> Option<Skill> {
    match kind {
        BotKind::Easy => Some(Skill {
            mu: 25.0 + BOT_MU_EASY,
            sigma: BOT_SIGMA,
        }),
        BotKind::Medium => Some(Skill {
            mu: 25.0,
            sigma: BOT_SIGMA,
        }),
        BotKind::Hard => Some(Skill {
            mu: 25.0 + BOT_MU_HARD,
            sigma: BOT_SIGMA,
        }),
        BotKind::Random => None,
    }
}

/// The easy level's mean relative to the medium level's: -10.473 in the arena
/// calibration (`catan-arena --games 600 --bots easy,medium,hard --seed 2026
/// --hard-ms 0 --ratings`: easy 16.923, medium 27.395, hard 31.961; win shares
/// 3.0%, 34.8%, 62.2%).
const BOT_MU_EASY: f64 = -10.5;
/// The hard level's mean relative to the medium level's: +4.566 in the same run.
const BOT_MU_HARD: f64 = 4.6;
/// The bots' uncertainty: the run's final ones were 1.132, 0.933 and 0.974.
const BOT_SIGMA: f64 = 1.0;

/// A seat at the end of a game, as ranking needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seated {
    /// The seat.
    pub seat: Seat,
    /// Final victory points, VP cards included.
    pub points: u8,
    /// The seat's turns (counted by their dice rolls).
    pub turns: u32,
    /// Of those, the turns in which a stand-in bot acted for the seat's person.
    pub stood_in: u32,
    /// Replaced by a bot for the rest of a game over days after too many
    /// time-outs (`catan_protocol::DAYS_TIME_OUTS_REPLACED`).
    pub timed_out: bool,
}

impl Seated {
    /// Whether a stand-in played too many of the seat's turns for the person to be
    /// ranked by the result ([`STAND_IN_SHARE_LAST`]), or the seat was replaced
    /// for its time-outs in a game over days.
    #[must_use]
    pub fn replaced(&self) -> bool {
        let (num, den) = STAND_IN_SHARE_LAST;
        self.timed_out
            || u64::from(self.stood_in) * u64::from(den) > u64::from(self.turns) * u64::from(num)
    }
}

/// The place of each of `seated` (in the same order; 1 is first, ties share a place
/// and the next place skips: 1, 2, 2, 4): replaced seats last, then the winner,
/// then by points.
#[must_use]
pub fn places(winner: Option<Seat>, seated: &[Seated]) -> Vec<u8> {
    // Greater is better.
    let key = |s: &Seated| (!s.replaced(), Some(s.seat) == winner, s.points);
    seated
        .iter()
        .map(|s| {
            let better = seated.iter().filter(|o| key(o) > key(s)).count();
            u8::try_from(better + 1).unwrap_or(u8::MAX)
        })
        .collect()
}

/// Each seat's turns and the turns a stand-in bot played, counted action by action
/// from a game's log: a turn is counted at its dice roll (R-4.2: every turn has
/// exactly one) and belongs to the roller until the next roll; it counts as stood
/// in when a stand-in took any action for the turn's owner in it (the roll itself
/// included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turns {
    /// Per seat index: turns, and turns stood in.
    counts: Vec<(u32, u32)>,
    /// The seat whose turn it is, from its roll on.
    owner: Option<Seat>,
    /// Whether the current turn was counted as stood in already.
    marked: bool,
}

impl Turns {
    /// Counts one action of the log: taken for `seat` (`None`: the system's), by a
    /// stand-in or not.
    pub fn record(&mut self, seat: Option<Seat>, action: &Action, stand_in: bool) {
        let Some(seat) = seat else { return };
        if self.counts.len() <= seat.index() {
            self.counts.resize(seat.index() + 1, (0, 0));
        }
        if matches!(action, Action::RollDice) {
            self.owner = Some(seat);
            self.marked = false;
            self.counts[seat.index()].0 += 1;
        }
        if stand_in && self.owner == Some(seat) && !self.marked {
            self.marked = true;
            self.counts[seat.index()].1 += 1;
        }
    }

    /// The turns of `seat`, and those a stand-in played.
    #[must_use]
    pub fn of(&self, seat: Seat) -> (u32, u32) {
        self.counts.get(seat.index()).copied().unwrap_or_default()
    }
}

/// One seat of a game to rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The seat's rating before the game.
    pub skill: Skill,
    /// Its place (1 is first; equal places are ties).
    pub place: u8,
    /// Whether the rating stays as it is (a bot's fixed rating).
    pub fixed: bool,
}

/// The ratings after one game, in the order of `entries`; fixed entries keep theirs.
#[must_use]
pub fn rate(entries: &[Entry]) -> Vec<Skill> {
    let ratings: Vec<[WengLinRating; 1]> = entries.iter().map(|e| [e.skill.into()]).collect();
    let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
        .iter()
        .zip(entries)
        .map(|(r, e)| (&r[..], MultiTeamOutcome::new(usize::from(e.place))))
        .collect();
    let after = weng_lin_multi_team(&teams, &WengLinConfig::new());
    entries
        .iter()
        .zip(after)
        .map(|(e, team)| {
            if e.fixed {
                e.skill
            } else {
                team.first().copied().map_or(e.skill, Skill::from)
            }
        })
        .collect()
}

/// Ratings of many players through games applied in order: what a server's live
/// updates give, recomputed from its stored games.
#[derive(Debug, Clone)]
pub struct Ledger<K> {
    /// Each rated player's skill now.
    skills: HashMap<K, Skill>,
}

impl<K> Default for Ledger<K> {
    fn default() -> Ledger<K> {
        Ledger {
            skills: HashMap::new(),
        }
    }
}

/// A seat of a game for a [`Ledger`]: a player whose rating the game updates, or a
/// participant with a fixed rating (a bot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Participant<K> {
    /// A rated player.
    Player(K),
    /// A fixed rating.
    Fixed(Skill),
}

impl<K: Clone + Eq + Hash> Ledger<K> {
    /// A player's rating now ([`Skill::NEW`] before any game).
    #[must_use]
    pub fn skill(&self, player: &K) -> Skill {
        self.skills.get(player).copied().unwrap_or_default()
    }

    /// Applies one game: each participant with its place. Returns every seat's
    /// rating before and after, in order.
    pub fn apply(&mut self, seats: &[(Participant<K>, u8)]) -> Vec<(Skill, Skill)> {
        let entries: Vec<Entry> = seats
            .iter()
            .map(|(who, place)| match who {
                Participant::Player(k) => Entry {
                    skill: self.skill(k),
                    place: *place,
                    fixed: false,
                },
                Participant::Fixed(skill) => Entry {
                    skill: *skill,
                    place: *place,
                    fixed: true,
                },
            })
            .collect();
        let after = rate(&entries);
        for ((who, _), skill) in seats.iter().zip(&after) {
            if let Participant::Player(k) = who {
                self.skills.insert(k.clone(), *skill);
            }
        }
        entries.iter().map(|e| e.skill).zip(after).collect()
    }

    /// Every rated player with their rating.
    pub fn iter(&self) -> impl Iterator<Item = (&K, Skill)> {
        self.skills.iter().map(|(k, s)| (k, *s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seated(seat: u8, points: u8) -> Seated {
        Seated {
            seat: Seat(seat),
            points,
            turns: 20,
            stood_in: 0,
            timed_out: false,
        }
    }

    #[test]
    fn the_winner_comes_first_then_points_with_ties_sharing_a_place() {
        let s = [seated(0, 7), seated(1, 10), seated(2, 7), seated(3, 4)];
        assert_eq!(places(Some(Seat(1)), &s), vec![2, 1, 2, 4]);
    }

    #[test]
    fn a_non_winner_with_as_many_points_as_the_winner_is_still_behind() {
        // Points from VP cards revealed at the end can equal the winner's.
        let s = [seated(0, 10), seated(1, 10), seated(2, 3)];
        assert_eq!(places(Some(Seat(1)), &s), vec![2, 1, 3]);
    }

    #[test]
    fn a_game_ended_by_the_turn_limit_is_ranked_by_points() {
        // no winner.
        let s = [seated(0, 8), seated(1, 9), seated(2, 9), seated(3, 2)];
        assert_eq!(places(None, &s), vec![3, 1, 1, 4]);
    }

    #[test]
    fn a_person_a_stand_in_replaced_for_over_a_quarter_of_their_turns_is_last() {
        let mut s = [seated(0, 10), seated(1, 9), seated(2, 3)];
        s[1].stood_in = 5; // exactly a quarter of 20: still ranked by the result
        assert_eq!(places(Some(Seat(0)), &s), vec![1, 2, 3]);
        s[1].stood_in = 6;
        assert_eq!(places(Some(Seat(0)), &s), vec![1, 3, 2]);
        // Even the winner; several replaced are ordered by the result among them.
        s[0].stood_in = 20;
        assert_eq!(places(Some(Seat(0)), &s), vec![2, 3, 1]);
        // No turns, no share.
        let idle = Seated {
            turns: 0,
            stood_in: 0,
            ..seated(0, 0)
        };
        assert!(!idle.replaced());
    }

    #[test]
    fn a_person_replaced_for_time_outs_in_a_game_over_days_is_last_even_as_winner() {
        let mut s = [seated(0, 10), seated(1, 9), seated(2, 3)];
        s[0].timed_out = true;
        assert_eq!(places(Some(Seat(0)), &s), vec![3, 1, 2]);
    }

    #[test]
    fn turns_are_counted_at_their_rolls_and_stood_in_once_each() {
        let mut t = Turns::default();
        let (a, b) = (Some(Seat(0)), Some(Seat(1)));
        // Setup actions count no turn.
        t.record(a, &Action::EndTurn, false);
        t.record(a, &Action::RollDice, false);
        t.record(a, &Action::EndTurn, false);
        t.record(b, &Action::RollDice, true);
        t.record(b, &Action::BuyDevCard, true);
        t.record(a, &Action::TimeOut, true); // another seat's stand-in, not b's turn
        t.record(None, &Action::TimeOut, false);
        t.record(b, &Action::EndTurn, false);
        t.record(a, &Action::RollDice, false);
        t.record(a, &Action::EndTurn, true);
        assert_eq!(t.of(Seat(0)), (2, 1));
        assert_eq!(t.of(Seat(1)), (1, 1));
        assert_eq!(t.of(Seat(3)), (0, 0));
    }

    #[test]
    fn a_new_player_shows_1000_and_is_provisional() {
        assert_eq!(Skill::NEW.display(), 1000);
        assert!(Skill::NEW.provisional());
        assert!(
            !Skill {
                mu: 25.0,
                sigma: 2.0
            }
            .provisional()
        );
    }

    #[test]
    fn winning_raises_losing_lowers_and_fixed_ratings_stay() {
        let bot = bot_skill(BotKind::Hard).expect("a level");
        let after = rate(&[
            Entry {
                skill: Skill::NEW,
                place: 1,
                fixed: false,
            },
            Entry {
                skill: Skill::NEW,
                place: 3,
                fixed: false,
            },
            Entry {
                skill: bot,
                place: 2,
                fixed: true,
            },
        ]);
        assert!(after[0].mu > 25.0 && after[0].sigma < Skill::NEW.sigma);
        assert!(after[1].mu < 25.0);
        assert_eq!(after[2], bot);
        assert!(after[0].display() > after[1].display());
    }

    #[test]
    fn beating_a_stronger_bot_is_worth_more_than_beating_a_weaker_one() {
        let game = |bot: Skill| {
            rate(&[
                Entry {
                    skill: Skill::NEW,
                    place: 1,
                    fixed: false,
                },
                Entry {
                    skill: bot,
                    place: 2,
                    fixed: true,
                },
            ])[0]
                .mu
        };
        let easy = bot_skill(BotKind::Easy).expect("a level");
        let hard = bot_skill(BotKind::Hard).expect("a level");
        assert!(game(hard) > game(easy));
    }

    #[test]
    fn fourteen_games_make_a_rating_settled() {
        // Four new players of equal skill (the places rotate): sigma falls to the
        // provisional threshold after 14 games.
        let mut ledger = Ledger::default();
        let mut games = 0;
        while ledger.skill(&0).provisional() {
            let seats: Vec<_> = (0..4u8)
                .map(|p| (Participant::Player(p), (p + games % 4) % 4 + 1))
                .collect();
            ledger.apply(&seats);
            games += 1;
            assert!(games < 100, "sigma does not settle");
        }
        assert_eq!(games, 14, "the figure the docs state");
    }

    proptest! {
        #[test]
        fn a_ledger_recomputed_from_the_same_games_is_equal_to_the_bit(
            games in prop::collection::vec(
                (prop::collection::vec(0u8..6, 3..=4), prop::collection::vec(1u8..=4, 4), any::<bool>()),
                1..40,
            )
        ) {
            let mut live = Ledger::default();
            let mut log = Vec::new();
            for (players, places, with_bot) in &games {
                let mut seats: Vec<(Participant<u8>, u8)> = Vec::new();
                for (i, p) in players.iter().enumerate() {
                    if seats.iter().any(|(w, _)| *w == Participant::Player(*p)) {
                        continue;
                    }
                    seats.push((Participant::Player(*p), places[i]));
                }
                if *with_bot {
                    let bot = bot_skill(BotKind::Medium).expect("a level");
                    seats.push((Participant::Fixed(bot), places[3]));
                }
                let changes = live.apply(&seats);
                prop_assert_eq!(changes.len(), seats.len());
                log.push(seats);
            }
            let mut again = Ledger::default();
            for seats in &log {
                again.apply(seats);
            }
            for (k, s) in live.iter() {
                let r = again.skill(k);
                prop_assert_eq!(s.mu.to_bits(), r.mu.to_bits());
                prop_assert_eq!(s.sigma.to_bits(), r.sigma.to_bits());
            }
        }
    }
}
