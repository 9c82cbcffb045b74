//! The retry policy, as pure functions: when to try a failed notice again, and
//! the key that stops the same notice from being queued twice.
//!
//! The queue itself is the server's (a table with a unique index on the key);
//! nothing here sleeps, reads the clock or draws random numbers.

use std::time::Duration;

use uuid::Uuid;

use crate::NoticeKind;

/// Exponential backoff with a cap and a limit on attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait after the first failed attempt.
    pub base: Duration,
    /// How much each wait grows over the one before.
    pub factor: u32,
    /// The longest wait, whatever the attempt.
    pub max: Duration,
    /// How many attempts in all before giving up, the first one included.
    pub max_attempts: u32,
}

impl Default for Backoff {
    /// 30 s, doubling, at most an hour apart, 8 attempts: a notice is given up about
    /// an hour after it was due (30 s + 1 + 2 + 4 + 8 + 16 + 32 min), when a turn
    /// reminder is no longer news.
    fn default() -> Self {
        Backoff {
            base: Duration::from_secs(30),
            factor: 2,
            max: Duration::from_secs(60 * 60),
            max_attempts: 8,
        }
    }
}

impl Backoff {
    /// The wait before the next attempt, after `attempts` attempts have failed;
    /// `None` once `max_attempts` have been made (give up). With no attempt yet
    /// made the wait is zero.
    #[must_use]
    pub fn next_after(&self, attempts: u32) -> Option<Duration> {
        if attempts >= self.max_attempts {
            return None;
        }
        let Some(exponent) = attempts.checked_sub(1) else {
            return Some(Duration::ZERO);
        };
        let growth = self.factor.checked_pow(exponent).unwrap_or(u32::MAX);
        let wait = self.base.checked_mul(growth).unwrap_or(self.max);
        Some(wait.min(self.max))
    }

    /// [`Backoff::next_after`] spread by ±10% so that notices that failed together
    /// do not all come back together. `random` is a value the caller drew uniformly
    /// from `[0, 1)`: 0 gives -10%, 0.5 the plain wait, just under 1 gives +10%.
    /// The result never exceeds `max`.
    #[must_use]
    pub fn next_after_jittered(&self, attempts: u32, random: f64) -> Option<Duration> {
        let wait = self.next_after(attempts)?;
        let random = if random.is_finite() {
            random.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let scale = 0.9 + 0.2 * random;
        Some(wait.mul_f64(scale).min(self.max))
    }
}

/// The key that names one notice, for the server's unique index: the same player,
/// room, kind and moment (say the start of the turn, in Unix ms) give the same key,
/// so a notice queued twice by a restart or a race is stored once. A delivery table
/// with one row per channel makes its unique index `(dedupe_key, channel)`.
#[must_use]
pub fn dedupe_key(player: Uuid, room: Uuid, kind: NoticeKind, moment: u64) -> String {
    format!(
        "{}:{}:{}:{moment}",
        player.as_simple(),
        room.as_simple(),
        kind.code()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_backoff_doubles_from_thirty_seconds_then_gives_up() {
        let b = Backoff::default();
        let waits: Vec<u64> = (1..8).map(|n| b.next_after(n).unwrap().as_secs()).collect();
        assert_eq!(waits, [30, 60, 120, 240, 480, 960, 1920]);
        assert_eq!(b.next_after(8), None);
        assert_eq!(b.next_after(u32::MAX), None);
        assert_eq!(b.next_after(0), Some(Duration::ZERO));
    }

    #[test]
    fn waits_are_capped_at_max() {
        let b = Backoff {
            max_attempts: 100,
            ..Backoff::default()
        };
        assert_eq!(b.next_after(8).unwrap(), Duration::from_secs(3600));
        assert_eq!(b.next_after(99).unwrap(), Duration::from_secs(3600));
        assert_eq!(b.next_after(100), None);
    }

    #[test]
    fn jitter_stays_within_ten_percent_and_below_the_cap() {
        let b = Backoff::default();
        assert_eq!(
            b.next_after_jittered(2, 0.0).unwrap(),
            Duration::from_secs(54)
        );
        assert_eq!(
            b.next_after_jittered(2, 0.5).unwrap(),
            Duration::from_secs(60)
        );
        let high = b.next_after_jittered(2, 0.999_999).unwrap();
        assert!(high > Duration::from_secs(65) && high <= Duration::from_secs(66));
        assert_eq!(
            b.next_after_jittered(2, f64::NAN).unwrap(),
            Duration::from_secs(60)
        );
        assert_eq!(b.next_after_jittered(8, 0.5), None);
        let capped = Backoff {
            max_attempts: 100,
            ..b
        };
        assert_eq!(
            capped.next_after_jittered(50, 0.99).unwrap(),
            Duration::from_secs(3600)
        );
    }

    #[test]
    fn the_same_notice_gives_the_same_dedupe_key() {
        let player = Uuid::from_u128(1);
        let room = Uuid::from_u128(2);
        let a = dedupe_key(player, room, NoticeKind::YourTurn, 1_700_000_000_000);
        assert_eq!(
            a,
            dedupe_key(player, room, NoticeKind::YourTurn, 1_700_000_000_000)
        );
        assert_eq!(
            a,
            "00000000000000000000000000000001:00000000000000000000000000000002:your_turn:1700000000000"
        );
        assert_ne!(
            a,
            dedupe_key(player, room, NoticeKind::YourTurn, 1_700_000_000_001)
        );
        assert_ne!(
            a,
            dedupe_key(player, room, NoticeKind::TimeLow, 1_700_000_000_000)
        );
        assert_ne!(
            a,
            dedupe_key(room, player, NoticeKind::YourTurn, 1_700_000_000_000)
        );
    }
}
