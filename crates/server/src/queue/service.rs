//! Joining and leaving the queue, and a player's place in it.

use std::sync::Arc;

use catan_protocol::{LobbyError, QueueRequest, QueueSeated, QueueStatus};
use catan_ratings::{DISPLAY_BASE, DISPLAY_SCALE, Skill};
use uuid::Uuid;

use super::QueueConfig;
use crate::limits::KeyedLimiter;
use crate::players::Session;
use crate::players::sanctions::Sanctions;
use crate::store::{QueueRow, SanctionKind, Store, StoreError};

/// Bursts of joins and leaves a player may make at once.
const BURST: u32 = 5;

/// The rating a player is matched by: their skill estimate (`mu`, not the
/// conservative figure shown, which starts every new player low) on the shown
/// scale, where a new player and the medium bot are 1000.
#[must_use]
pub fn matching_rating(skill: Skill) -> i32 {
    let points = DISPLAY_BASE + DISPLAY_SCALE * (skill.mu - Skill::NEW.mu);
    #[allow(clippy::cast_possible_truncation)]
    let points = points.clamp(-1_000_000.0, 1_000_000.0).round() as i32;
    points
}

fn stored(e: StoreError) -> LobbyError {
    match e {
        StoreError::Conflict(_) => LobbyError::AlreadyQueued,
        other => {
            tracing::warn!(error = %other, "queue store call failed");
            LobbyError::StoreUnavailable
        }
    }
}

/// The status of `row` at `now`, among `waiting` (everyone not yet seated).
fn status(row: &QueueRow, waiting: &[QueueRow], now: u64) -> QueueStatus {
    let position = row.seated.is_none().then(|| {
        let ahead = waiting
            .iter()
            .filter(|w| w.seats == row.seats && w.rated == row.rated)
            .take_while(|w| w.player_id != row.player_id)
            .count();
        u32::try_from(ahead + 1).unwrap_or(u32::MAX)
    });
    let until = row.seated.as_ref().map_or(now, |s| s.at);
    QueueStatus {
        seats: row.seats,
        rated: row.rated,
        bots: row.bots_ok,
        since: row.since,
        waited_ms: until.saturating_sub(row.since),
        position,
        seated: row.seated.as_ref().map(|s| QueueSeated {
            room_id: s.room_id,
            seat: s.seat,
            token: s.token.clone(),
        }),
    }
}

/// The queue's calls.
pub struct Queue {
    store: Arc<dyn Store>,
    sanctions: Arc<Sanctions>,
    limiter: KeyedLimiter<Uuid>,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue").finish_non_exhaustive()
    }
}

impl Queue {
    /// The queue in `store`, refusing the players `sanctions` bans.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, sanctions: Arc<Sanctions>, config: &QueueConfig) -> Queue {
        Queue {
            store,
            sanctions,
            limiter: KeyedLimiter::new(config.queue_rate_per_min, BURST),
        }
    }

    /// Queues the player of `me` for the table `req` describes.
    ///
    /// # Errors
    /// `bad_request` (seats not 3 or 4), `rate_limited`, `banned`,
    /// `already_queued`, `store_unavailable`.
    pub async fn join(&self, me: &Session, req: &QueueRequest) -> Result<QueueStatus, LobbyError> {
        if !matches!(req.seats, 3 | 4) {
            return Err(LobbyError::BadRequest("seats must be 3 or 4".into()));
        }
        self.limiter.check(me.player.id)?;
        if self.sanctions.holds(me.player.id, SanctionKind::Ban) {
            return Err(LobbyError::Banned);
        }
        let skill = self
            .store
            .player_stats(me.player.id)
            .await
            .map_err(stored)?
            .map_or(Skill::NEW, |s| s.skill);
        let row = QueueRow {
            player_id: me.player.id,
            ticket: Uuid::new_v4(),
            name: me.player.name.clone(),
            seats: req.seats,
            rated: req.rated,
            bots_ok: req.bots,
            rating: matching_rating(skill),
            since: crate::players::now_ms(),
            seated: None,
        };
        self.store
            .queue_join(std::slice::from_ref(&row))
            .await
            .map_err(stored)?;
        self.status(me).await
    }

    /// The player's place in the queue, or where they were seated.
    ///
    /// # Errors
    /// `not_queued`, `store_unavailable`.
    pub async fn status(&self, me: &Session) -> Result<QueueStatus, LobbyError> {
        let row = self
            .store
            .queued(me.player.id)
            .await
            .map_err(stored)?
            .ok_or(LobbyError::NotQueued)?;
        let waiting = if row.seated.is_none() {
            self.store.queue_waiting().await.map_err(stored)?
        } else {
            Vec::new()
        };
        Ok(status(&row, &waiting, crate::players::now_ms()))
    }

    /// Takes the player out of the queue (a seat already given stays theirs).
    ///
    /// # Errors
    /// `rate_limited`, `not_queued`, `store_unavailable`.
    pub async fn leave(&self, me: &Session) -> Result<(), LobbyError> {
        self.limiter.check(me.player.id)?;
        if self.store.queue_leave(me.player.id).await.map_err(stored)? {
            Ok(())
        } else {
            Err(LobbyError::NotQueued)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_player_and_the_medium_bot_are_matched_at_1000() {
        assert_eq!(matching_rating(Skill::NEW), 1000);
        let medium = catan_ratings::bot_skill(catan_protocol::BotKind::Medium).expect("rated");
        assert_eq!(matching_rating(medium), 1000);
        let hard = catan_ratings::bot_skill(catan_protocol::BotKind::Hard).expect("rated");
        assert!(matching_rating(hard) > 1000);
    }
}
