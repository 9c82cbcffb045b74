//! How quick play forms tables: a pure function of the tickets waiting and the
//! time, with no runtime, store or clock of its own (a queue calls it as tickets
//! come and time passes).
//!
//! **The window.** A ticket accepts table-mates whose ratings are within a window
//! that widens with the time it has waited: [`Schedule::window`], `start` points
//! at first, `per_sec` more each second, at most `widest` ([`Schedule::default`]:
//! 100, 10 and 600, bots after a minute). A table's tickets are compatible when the spread
//! of their ratings (highest minus lowest; a party counts as the mean of its
//! members) is within the narrowest window among them.
//!
//! **The order.** The longest waiting go first: tickets are taken oldest first,
//! each in turn the anchor of a table filled, oldest first again, with the
//! compatible tickets whose seats still fit (a party's members sit together, so a
//! party of three takes three seats or none). A ticket is in at most one table.
//!
//! **Bots.** An anchor that has waited [`Schedule::bots_after_ms`] and whose table
//! could not be filled with people gets one completed with bots, if every ticket
//! at that table allows bots (the table is then formed from the tickets that do).
//! The bots' level is the queue's to choose: the nearest to [`Table::rating`].

use std::collections::BTreeSet;

/// The widening of the rating window, and when bots may complete a table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// The window (rating points either side, as the ratings shown) of a ticket
    /// that has just joined.
    pub start: f64,
    /// Points the window widens by for each second waited.
    pub per_sec: f64,
    /// The widest the window gets.
    pub widest: f64,
    /// How long (ms) the oldest ticket of a table waits before bots may complete
    /// it.
    pub bots_after_ms: u64,
}

impl Default for Schedule {
    /// 100 points at first, 10 more a second, at most 600 after 50 s; bots after a
    /// minute.
    fn default() -> Schedule {
        Schedule {
            start: 100.0,
            per_sec: 10.0,
            widest: 600.0,
            bots_after_ms: 60_000,
        }
    }
}

impl Schedule {
    /// The window of a ticket that has waited `waited_ms`.
    #[must_use]
    pub fn window(&self, waited_ms: u64) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let secs = waited_ms as f64 / 1000.0;
        (self.start + self.per_sec * secs).min(self.widest).max(0.0)
    }
}

/// One entry of the queue: a player alone, or a party seated together.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticket<K> {
    /// The ticket's key (the queue's id for it).
    pub key: K,
    /// Its members' ratings (one for a player alone), as shown.
    pub ratings: Vec<f64>,
    /// When it joined (Unix ms).
    pub since_ms: u64,
    /// Whether its members allow bots to complete their table.
    pub bots_ok: bool,
}

impl<K> Ticket<K> {
    /// The seats it takes.
    fn seats(&self) -> usize {
        self.ratings.len()
    }

    /// The rating it is matched by: its members' mean.
    fn rating(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let n = self.ratings.len().max(1) as f64;
        self.ratings.iter().sum::<f64>() / n
    }
}

/// A table formed: its tickets (oldest first) and the bots that complete it.
#[derive(Debug, Clone, PartialEq)]
pub struct Table<K> {
    /// The tickets seated at it, oldest first.
    pub tickets: Vec<K>,
    /// How many bots complete it (0: people only).
    pub bots: usize,
    /// The mean rating of the people at it (the bots' level is the nearest).
    pub rating: f64,
}

/// The tables that form now (`now_ms`) from `waiting` for tables of `seats`, with
/// `schedule`: see the module's docs. Deterministic: the same tickets and time
/// form the same tables.
#[must_use]
pub fn form<K: Clone + Ord>(
    seats: usize,
    waiting: &[Ticket<K>],
    now_ms: u64,
    schedule: &Schedule,
) -> Vec<Table<K>> {
    let mut order: Vec<&Ticket<K>> = waiting
        .iter()
        .filter(|t| (1..=seats).contains(&t.seats()))
        .collect();
    order.sort_by(|a, b| a.since_ms.cmp(&b.since_ms).then_with(|| a.key.cmp(&b.key)));
    let mut used: BTreeSet<K> = BTreeSet::new();
    let mut tables = Vec::new();
    for anchor in &order {
        if used.contains(&anchor.key) {
            continue;
        }
        let free = order.iter().copied().filter(|t| !used.contains(&t.key));
        let people = fill(seats, anchor, free.clone(), |_| true, now_ms, schedule);
        let table = if people.iter().map(|t| t.seats()).sum::<usize>() == seats {
            Some(people)
        } else if anchor.bots_ok && now_ms.saturating_sub(anchor.since_ms) >= schedule.bots_after_ms
        {
            Some(fill(seats, anchor, free, |t| t.bots_ok, now_ms, schedule))
        } else {
            None
        };
        if let Some(at) = table {
            let humans: usize = at.iter().map(|t| t.seats()).sum();
            let ratings: Vec<f64> = at.iter().flat_map(|t| t.ratings.iter().copied()).collect();
            #[allow(clippy::cast_precision_loss)]
            let rating = ratings.iter().sum::<f64>() / ratings.len().max(1) as f64;
            used.extend(at.iter().map(|t| t.key.clone()));
            tables.push(Table {
                tickets: at.iter().map(|t| t.key.clone()).collect(),
                bots: seats - humans,
                rating,
            });
        }
    }
    tables
}

/// The tickets a table anchored at `anchor` takes from `free` (oldest first) among
/// those `eligible`: each added while its seats fit and the table's spread stays
/// within the narrowest window.
fn fill<'a, K: PartialEq>(
    seats: usize,
    anchor: &'a Ticket<K>,
    free: impl Iterator<Item = &'a Ticket<K>>,
    eligible: impl Fn(&Ticket<K>) -> bool,
    now_ms: u64,
    schedule: &Schedule,
) -> Vec<&'a Ticket<K>> {
    let window = |t: &Ticket<K>| schedule.window(now_ms.saturating_sub(t.since_ms));
    let mut at = vec![anchor];
    let mut taken = anchor.seats();
    let (mut low, mut high) = (anchor.rating(), anchor.rating());
    let mut narrowest = window(anchor);
    for t in free {
        if taken == seats {
            break;
        }
        if t.key == anchor.key || !eligible(t) || taken + t.seats() > seats {
            continue;
        }
        let (l, h) = (low.min(t.rating()), high.max(t.rating()));
        let w = narrowest.min(window(t));
        if h - l <= w {
            at.push(t);
            taken += t.seats();
            (low, high, narrowest) = (l, h, w);
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn ticket(key: u32, ratings: &[f64], since_ms: u64, bots_ok: bool) -> Ticket<u32> {
        Ticket {
            key,
            ratings: ratings.to_vec(),
            since_ms,
            bots_ok,
        }
    }

    #[test]
    fn the_window_widens_with_the_wait_up_to_its_widest() {
        let s = Schedule::default();
        assert!((s.window(0) - 100.0).abs() < 1e-9);
        assert!((s.window(10_000) - 200.0).abs() < 1e-9);
        assert!((s.window(50_000) - 600.0).abs() < 1e-9);
        assert!((s.window(3_600_000) - 600.0).abs() < 1e-9);
    }

    #[test]
    fn close_ratings_sit_together_at_once_and_far_ones_only_after_a_wait() {
        let s = Schedule::default();
        let close = [
            ticket(1, &[1000.0], 0, false),
            ticket(2, &[1050.0], 0, false),
            ticket(3, &[990.0], 0, false),
        ];
        let tables = form(3, &close, 0, &s);
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].tickets, vec![1, 2, 3]);
        assert_eq!(tables[0].bots, 0);

        let far = [
            ticket(1, &[1000.0], 0, false),
            ticket(2, &[1300.0], 0, false),
            ticket(3, &[1150.0], 0, false),
        ];
        assert!(
            form(3, &far, 0, &s).is_empty(),
            "a spread of 300 is beyond 100"
        );
        assert!(form(3, &far, 10_000, &s).is_empty(), "and beyond 200");
        assert_eq!(form(3, &far, 20_000, &s).len(), 1, "within 300 after 20 s");
    }

    #[test]
    fn the_longest_waiting_go_first() {
        let s = Schedule::default();
        // Five compatible players for tables of four: the newest waits.
        let waiting: Vec<_> = (0..5)
            .map(|i| ticket(10 - i, &[1000.0], u64::from(i) * 100, false))
            .collect();
        let tables = form(4, &waiting, 1_000, &s);
        assert_eq!(tables.len(), 1);
        assert_eq!(
            tables[0].tickets,
            vec![10, 9, 8, 7],
            "oldest first; 6 (the newest) waits"
        );
    }

    #[test]
    fn a_party_sits_together_or_not_at_all() {
        let s = Schedule::default();
        let waiting = [
            ticket(1, &[1000.0], 0, false),
            ticket(2, &[1000.0, 1020.0, 980.0], 10, false),
            ticket(3, &[1000.0], 20, false),
        ];
        let tables = form(4, &waiting, 100, &s);
        assert_eq!(tables.len(), 1);
        assert_eq!(
            tables[0].tickets,
            vec![1, 2],
            "the party of three takes the other three seats"
        );
        let tables = form(3, &waiting, 100, &s);
        assert_eq!(tables.len(), 1, "for three seats, 1 and 3 wait for a third");
        assert_eq!(
            tables[0].tickets,
            vec![2],
            "the party of three is a table of its own"
        );
    }

    #[test]
    fn bots_complete_a_table_after_the_wait_only_if_everyone_allows_them() {
        let s = Schedule::default();
        let alone = [ticket(1, &[1200.0], 0, true)];
        assert!(form(4, &alone, 59_999, &s).is_empty());
        let tables = form(4, &alone, 60_000, &s);
        assert_eq!(
            tables,
            vec![Table {
                tickets: vec![1],
                bots: 3,
                rating: 1200.0
            }]
        );

        let refuses = [ticket(1, &[1200.0], 0, false)];
        assert!(
            form(4, &refuses, 600_000, &s).is_empty(),
            "no bots for whoever refuses them"
        );

        // The anchor allows bots, its compatible neighbour does not: the table is
        // formed from those who do.
        let mixed = [
            ticket(1, &[1200.0], 0, true),
            ticket(2, &[1210.0], 5, false),
            ticket(3, &[1190.0], 6, true),
        ];
        let tables = form(4, &mixed, 60_000, &s);
        assert_eq!(tables[0].tickets, vec![1, 3]);
        assert_eq!(tables[0].bots, 2);
    }

    fn tickets() -> impl Strategy<Value = Vec<Ticket<u32>>> {
        prop::collection::vec(
            (
                prop::collection::vec(500.0..2000.0f64, 1..=3),
                0..120_000u64,
                any::<bool>(),
            ),
            0..40,
        )
        .prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (ratings, since_ms, bots_ok))| Ticket {
                    key: u32::try_from(i).expect("few"),
                    ratings,
                    since_ms,
                    bots_ok,
                })
                .collect()
        })
    }

    proptest! {
        /// Nobody is seated twice; every table is full (people and bots); a
        /// table of people only keeps its spread within its narrowest window; bots
        /// only where everyone at the table allows them and its oldest waited long
        /// enough; the same input forms the same tables.
        #[test]
        fn tables_are_sound(waiting in tickets(), seats in 3usize..=4, now in 0..200_000u64) {
            let s = Schedule::default();
            let tables = form(seats, &waiting, now, &s);
            prop_assert_eq!(&tables, &form(seats, &waiting, now, &s));
            let mut seen = BTreeSet::new();
            for table in &tables {
                let at: Vec<&Ticket<u32>> = table.tickets.iter().map(|k| &waiting[*k as usize]).collect();
                for t in &at {
                    prop_assert!(seen.insert(t.key), "ticket {} seated twice", t.key);
                }
                let people: usize = at.iter().map(|t| t.ratings.len()).sum();
                prop_assert_eq!(people + table.bots, seats);
                let ratings: Vec<f64> = at.iter().map(|t| t.rating()).collect();
                let spread = ratings.iter().copied().fold(f64::MIN, f64::max) - ratings.iter().copied().fold(f64::MAX, f64::min);
                let narrowest = at.iter().map(|t| s.window(now.saturating_sub(t.since_ms))).fold(f64::MAX, f64::min);
                prop_assert!(spread <= narrowest + 1e-9, "spread {spread} beyond window {narrowest}");
                if table.bots > 0 {
                    prop_assert!(at.iter().all(|t| t.bots_ok));
                    prop_assert!(now.saturating_sub(at[0].since_ms) >= s.bots_after_ms);
                }
            }
        }
    }
}
