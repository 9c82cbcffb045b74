//! The bans and mutes in force, as the rooms read them (protocol 22.9): a copy of
//! the store's `sanctions` kept in memory. It is reloaded, and a player newly
//! banned disconnected, by `super::enforce` (which knows the rooms; this module
//! must not, since the rooms read it).

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use uuid::Uuid;

use super::now_ms;
use crate::store::{SanctionKind, SanctionRow};

/// How often the copy is reloaded from the store (`super::enforce`).
pub const REFRESH: Duration = Duration::from_secs(5);

/// What a banned player's connections are told as they are closed.
pub const BANNED_MESSAGE: &str = "an administrator of this server banned this player";

/// What a muted player's chat is answered.
pub const MUTED_MESSAGE: &str =
    "an administrator of this server muted this player: chat is refused";

/// The sanctions in force: for each player and kind, until when (`None`: until
/// lifted).
#[derive(Debug, Default)]
pub struct Sanctions {
    held: RwLock<HashMap<(Uuid, SanctionKind), Option<u64>>>,
    /// Whether the last reload failed (a failure is logged once, not every reload).
    failing: AtomicBool,
}

impl Sanctions {
    /// Whether `player` is under a sanction of `kind` now.
    #[must_use]
    pub fn holds(&self, player: Uuid, kind: SanctionKind) -> bool {
        let now = now_ms();
        self.held
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(player, kind))
            .is_some_and(|until| until.is_none_or(|u| u > now))
    }

    /// Notes that a reload failed; whether the one before it had not (a failure
    /// is worth one log line, not one a reload).
    pub(super) fn reload_failed(&self) -> bool {
        !self.failing.swap(true, Ordering::Relaxed)
    }

    /// Notes that a reload worked; whether the one before it had failed.
    pub(super) fn reload_worked(&self) -> bool {
        self.failing.swap(false, Ordering::Relaxed)
    }

    /// Replaces the copy by `rows` (the store's sanctions in force); returns the
    /// players banned in `rows` and not in the copy before.
    pub fn replace(&self, rows: &[SanctionRow]) -> Vec<Uuid> {
        let fresh: HashMap<_, _> = rows
            .iter()
            .map(|r| ((r.player_id, r.kind), r.until))
            .collect();
        let mut held = self
            .held
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let banned = fresh
            .keys()
            .filter(|&&(_, kind)| kind == SanctionKind::Ban)
            .filter(|key| !held.contains_key(key))
            .map(|&(player, _)| player)
            .collect();
        *held = fresh;
        banned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(player: Uuid, kind: SanctionKind, until: Option<u64>) -> SanctionRow {
        SanctionRow {
            player_id: player,
            kind,
            since: 0,
            until,
            reason: "test".into(),
        }
    }

    #[test]
    fn a_sanction_holds_until_its_end_and_a_new_ban_is_told_once() {
        let s = Sanctions::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let later = now_ms() + 60_000;
        let rows = [
            row(a, SanctionKind::Ban, None),
            row(b, SanctionKind::Mute, Some(later)),
            row(b, SanctionKind::Ban, Some(1)),
        ];
        let mut banned = s.replace(&rows);
        banned.sort();
        let mut expected = vec![a, b];
        expected.sort();
        assert_eq!(banned, expected);
        assert!(s.holds(a, SanctionKind::Ban));
        assert!(!s.holds(a, SanctionKind::Mute));
        assert!(s.holds(b, SanctionKind::Mute));
        assert!(!s.holds(b, SanctionKind::Ban), "a ban whose end has passed");
        assert_eq!(s.replace(&rows), Vec::<Uuid>::new(), "nobody newly banned");
        assert_eq!(s.replace(&[]), Vec::<Uuid>::new());
        assert!(!s.holds(a, SanctionKind::Ban), "lifted");
    }
}
