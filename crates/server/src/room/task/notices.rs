//! The notices of a game over days: after every command the room looks at the
//! moves owed and the offers open ([`crate::notify::Watch`]) and hands what changed
//! to the notifications without waiting (`RoomContext::notices`).

use super::RoomTask;
use crate::notify::Watch;
use crate::room::now_ms;

impl RoomTask {
    /// Hands over the notices of what changed since the last look.
    pub(super) fn hand_notices(&mut self) {
        let Some(facts) = self.room.notice_facts() else {
            return;
        };
        for handover in self.watch.observe(self.room.id(), &facts, now_ms()) {
            self.ctx.notices.hand(handover);
        }
    }

    /// A restored (or woken) room: what it finds was handed over before.
    pub(super) fn prime_notices(&mut self) {
        if let Some(facts) = self.room.notice_facts() {
            self.watch = Watch::primed(&facts);
        }
    }
}
