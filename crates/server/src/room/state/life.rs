//! The room's clock: the time of the command being served, when the room last
//! served more than a read (for closing idle rooms), and when its last person went
//! away (for ending abandoned games).

use super::Now;

/// The times a room keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Life {
    /// The time of the command being served.
    now: Now,
    /// When the room last served a request other than a read.
    last_activity: Now,
    /// When the last person in a seat went away (or the game started, or was
    /// restored).
    people_left_at: Now,
}

impl Life {
    /// A room coming to life at `now`.
    pub(super) fn new(now: Now) -> Life {
        Life {
            now,
            last_activity: now,
            people_left_at: now,
        }
    }

    /// Sets the time of the command about to be served; `activity` marks it as more
    /// than a read.
    pub(super) fn at(&mut self, now: Now, activity: bool) {
        self.now = now;
        if activity {
            self.last_activity = now;
        }
    }

    /// The time of the command being served.
    pub(super) fn now(&self) -> Now {
        self.now
    }

    /// When the room last served more than a read.
    pub(super) fn last_activity(&self) -> Now {
        self.last_activity
    }

    /// When the last person went away.
    pub(super) fn people_left_at(&self) -> Now {
        self.people_left_at
    }

    /// The last person went away now (or the game started: the time without people
    /// counts from here).
    pub(super) fn people_left(&mut self) {
        self.people_left_at = self.now;
    }
}
