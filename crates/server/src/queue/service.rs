//! Joining and leaving the queue, and a player's place in it.

use std::sync::Arc;

use catan_protocol::{LobbyError, QueueRequest, QueueSeated, QueueStatus};
use catan_ratings::{DISPLAY_BASE, DISPLAY_SCALE, Skill};
use uuid::Uuid;

use super::QueueConfig;
use super::party::Parties;
use crate::cluster::Cluster;
use crate::limits::KeyedLimiter;
use crate::players::Session;
use crate::players::sanctions::Sanctions;
use crate::registry::Rooms;
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
    /// This instance's rooms: a player holding a seat in one still gathering is
    /// refused.
    rooms: Arc<Rooms>,
    sanctions: Arc<Sanctions>,
    limiter: KeyedLimiter<Uuid>,
    /// The parties that queue together.
    parties: Parties,
    /// In a cluster, the instances to ask whether a player holds a seat in one of
    /// their rooms still gathering (set once the cluster is joined).
    cluster: std::sync::OnceLock<Arc<Cluster>>,
}

/// What an instance answers another that asks whether a player holds a seat in
/// one of its rooms still gathering (`GET /api/queue/gathering/{player}`, for
/// forwarded requests only).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Gathering {
    /// Whether they do.
    pub gathering: bool,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue").finish_non_exhaustive()
    }
}

impl Queue {
    /// The queue in `store`, refusing the players `sanctions` bans.
    #[must_use]
    pub fn new(
        store: Arc<dyn Store>,
        sanctions: Arc<Sanctions>,
        rooms: Arc<Rooms>,
        config: &QueueConfig,
    ) -> Queue {
        Queue {
            parties: Parties::new(store.clone()),
            store,
            rooms,
            sanctions,
            limiter: KeyedLimiter::new(config.queue_rate_per_min, BURST),
            cluster: std::sync::OnceLock::new(),
        }
    }

    /// Asks `cluster`'s other instances too whether a player holds a seat in a
    /// room still gathering.
    pub fn join_cluster(&self, cluster: Arc<Cluster>) {
        let _ = self.cluster.set(cluster);
    }

    /// Whether `player` holds a seat in a room still gathering: one of this
    /// instance's, or (in a cluster) of another that answers in time.
    async fn gathering_elsewhere(&self, player: Uuid) -> bool {
        if self.rooms.gathering_seat_of(player).is_some() {
            return true;
        }
        let Some(cluster) = self.cluster.get() else {
            return false;
        };
        crate::cluster::ask_others::<Gathering>(cluster, &format!("/api/queue/gathering/{player}"))
            .await
            .iter()
            .any(|g| g.gathering)
    }

    /// The parties that queue together.
    #[must_use]
    pub fn parties(&self) -> &Parties {
        &self.parties
    }

    /// Queues the player of `me` (and, for a party's leader, every member) for the
    /// table `req` describes.
    ///
    /// # Errors
    /// `bad_request` (seats not 3 or 4), `rate_limited`, `banned`,
    /// `not_party_leader`, `seated_elsewhere`, `already_queued`,
    /// `store_unavailable`.
    pub async fn join(&self, me: &Session, req: &QueueRequest) -> Result<QueueStatus, LobbyError> {
        if !matches!(req.seats, 3 | 4) {
            return Err(LobbyError::BadRequest("seats must be 3 or 4".into()));
        }
        self.limiter.check(me.player.id)?;
        if self.sanctions.holds(me.player.id, SanctionKind::Ban) {
            return Err(LobbyError::Banned);
        }
        // A party's leader queues every member with one ticket; another member
        // cannot queue alone while in it.
        let party = self.parties.of(me.player.id).await?;
        let members = match &party {
            Some(p) if p.leader != me.player.id => return Err(LobbyError::NotPartyLeader),
            Some(p) => p.members.clone(),
            None => vec![(me.player.id, me.player.name.clone())],
        };
        if members.len() > usize::from(req.seats) {
            // (A party has at most three, but two joining at one moment may pass.)
            return Err(LobbyError::BadRequest(format!(
                "the party has {} members, more than the table's {} seats",
                members.len(),
                req.seats
            )));
        }
        let ticket = Uuid::new_v4();
        let since = crate::players::now_ms();
        let mut rows = Vec::with_capacity(members.len());
        for (player_id, name) in members {
            if player_id != me.player.id && self.sanctions.holds(player_id, SanctionKind::Ban) {
                return Err(LobbyError::Banned);
            }
            // Never in the queue and a room's lobby at once (a quick-play table
            // still gathering is refused by the store, on any instance).
            if self.gathering_elsewhere(player_id).await {
                return Err(LobbyError::SeatedElsewhere);
            }
            let skill = self
                .store
                .player_stats(player_id)
                .await
                .map_err(stored)?
                .map_or(Skill::NEW, |s| s.skill);
            rows.push(QueueRow {
                player_id,
                ticket,
                name,
                seats: req.seats,
                rated: req.rated,
                bots_ok: req.bots,
                rating: matching_rating(skill),
                since,
                seated: None,
            });
        }
        if !self.store.queue_join(&rows).await.map_err(stored)? {
            return Err(LobbyError::SeatedElsewhere);
        }
        if party.is_some() {
            // Queued together: the party has done its work.
            let _ = self.parties.leave(me).await;
        }
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
