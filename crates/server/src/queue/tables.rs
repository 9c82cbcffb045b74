//! The loop that forms tables from the queue (with [`super::matcher`]) and seats
//! each in a new room of this instance: the room is made with the table's options,
//! its people seated under their players, the seats written to the store in one
//! transaction that takes only players still waiting (so nobody is seated twice,
//! whichever instance formed the table), and its bots added. Whatever fails before
//! that write closes the room and leaves the players waiting for the next forming.
//! The game starts once everyone is connected ([`super::gather`]).

use std::collections::BTreeMap;
use std::time::Duration;

use catan_protocol::{AddBotRequest, BotKind, LobbyError};
use tracing::{debug, warn};
use uuid::Uuid;

use super::matcher::{self, Ticket};
use super::service::matching_rating;
use crate::AppState;
use crate::players::now_ms;
use crate::room::RoomHandle;
use crate::store::{QueueRow, QueueSeat, QueueTable};
use crate::token;

/// How long a seated player's row (with the seat's token) is kept for their own
/// status call, from when they were seated (ms).
pub const KEEP_SEATED_MS: u64 = 5 * 60 * 1000;

/// Forms tables every `--queue-tick-ms` until shutdown.
pub async fn run(state: AppState) {
    let tick = Duration::from_millis(state.config.queue.queue_tick_ms.max(50));
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => return,
            _ = interval.tick() => {}
        }
        match form_once(&state).await {
            Ok(0) => {}
            Ok(n) => debug!(players = n, "queued players seated"),
            Err(e) => debug!(error = %e, "forming tables failed; trying again"),
        }
    }
}

/// The bot level whose fixed rating is nearest `rating` (matched as players are).
pub(super) fn nearest_level(rating: f64) -> BotKind {
    [BotKind::Easy, BotKind::Medium, BotKind::Hard]
        .into_iter()
        .filter_map(|k| catan_ratings::bot_skill(k).map(|s| (k, f64::from(matching_rating(s)))))
        .min_by(|a, b| (a.1 - rating).abs().total_cmp(&(b.1 - rating).abs()))
        .map_or(BotKind::Medium, |(k, _)| k)
}

/// The tickets waiting for one kind of table, by ticket (a party's members share
/// one), in the order they waited.
pub(super) type Pool<'a> = BTreeMap<Uuid, Vec<&'a QueueRow>>;

/// The tickets of each kind of table (seats, rated) among `waiting`.
pub(super) fn pools(waiting: &[QueueRow]) -> BTreeMap<(u8, bool), Pool<'_>> {
    let mut pools: BTreeMap<(u8, bool), Pool<'_>> = BTreeMap::new();
    for row in waiting {
        pools
            .entry((row.seats, row.rated))
            .or_default()
            .entry(row.ticket)
            .or_default()
            .push(row);
    }
    pools
}

/// The matcher's tickets for `pool`.
pub(super) fn tickets(pool: &Pool<'_>, now: u64) -> Vec<Ticket<Uuid>> {
    pool.iter()
        .map(|(id, rows)| Ticket {
            key: *id,
            ratings: rows.iter().map(|r| f64::from(r.rating)).collect(),
            since_ms: rows.iter().map(|r| r.since).min().unwrap_or(now),
            bots_ok: rows.iter().all(|r| r.bots_ok),
        })
        .collect()
}

/// Tends the tables still gathering, then forms the tables the queue allows now
/// and seats them: how many players were seated.
///
/// # Errors
/// The store could not be read.
pub async fn form_once(state: &AppState) -> Result<usize, crate::store::StoreError> {
    let now = now_ms();
    if let Err(e) = state
        .store
        .queue_forget(now.saturating_sub(KEEP_SEATED_MS))
        .await
    {
        debug!(error = %e, "could not forget old seated rows");
    }
    let waiting = state.store.queue_waiting().await?;
    let mut pools = pools(&waiting);
    let schedule = state.config.queue.schedule();
    // Tables gathering first: their seats are filled before new tables form.
    let mut seated = super::gather::tend_all(state, now, &mut pools, &schedule).await?;
    for ((seats, rated), pool) in &pools {
        for table in matcher::form(usize::from(*seats), &tickets(pool, now), now, &schedule) {
            let members: Vec<&QueueRow> = table
                .tickets
                .iter()
                .flat_map(|t| pool[t].iter().copied())
                .collect();
            match seat(state, *seats, *rated, &members, table.bots, table.rating).await {
                Ok(true) => seated += members.len(),
                Ok(false) => debug!("a table's player left or was seated elsewhere"),
                Err(e) => warn!(error = %e, "a table could not be seated; its players wait on"),
            }
        }
    }
    Ok(seated)
}

/// Seats `members` and `bots` at a new room of `seats`: true when they are, false
/// (the room closed) when one of them no longer waits. The game starts once they
/// are all connected ([`super::gather`]).
async fn seat(
    state: &AppState,
    seats: u8,
    rated: bool,
    members: &[&QueueRow],
    bots: usize,
    rating: f64,
) -> Result<bool, LobbyError> {
    let mut options = state.config.rooms.room_defaults();
    options.game = options.game.with_players(seats);
    options.rated = rated;
    // Not in the public list: an open seat (someone dropped) is the queue's to
    // fill, not a passer-by's.
    options.listed = false;
    let host = token::new_token();
    let room = state
        .rooms
        .create(state.room_context(), options, host.clone())?;
    if let Some(cluster) = &state.cluster
        && cluster.lease_room(room.id).await.is_err()
    {
        let _ = room.close("the room could not be registered".into()).await;
        return Err(LobbyError::StoreUnavailable);
    }
    let table = QueueTable {
        room_id: room.id,
        host_token: host,
        seats,
        rated,
        formed_at: now_ms(),
    };
    let done = sit(state, &room, &table, members, bots, rating).await;
    if !matches!(done, Ok(true)) {
        let _ = room.close("the table could not be seated".into()).await;
    }
    done
}

/// Seats `members` at `table`'s `room`, writes their seats to the store (false,
/// and their seats left again, when one of them no longer waits), then seats
/// `bots` of the level nearest `rating`.
pub(super) async fn sit(
    state: &AppState,
    room: &RoomHandle,
    table: &QueueTable,
    members: &[&QueueRow],
    bots: usize,
    rating: f64,
) -> Result<bool, LobbyError> {
    let at = now_ms();
    let mut given = Vec::with_capacity(members.len());
    let leave = |given: Vec<(Uuid, QueueSeat)>| async move {
        for (_, s) in given {
            let _ = room.leave_seat(catan_engine::Seat(s.seat), s.token).await;
        }
    };
    for m in members {
        match room
            .take_seat(m.name.clone(), None, Some(m.player_id))
            .await
        {
            Ok(r) => given.push((
                m.player_id,
                QueueSeat {
                    room_id: room.id,
                    seat: r.seat.0,
                    token: r.token,
                    at,
                },
            )),
            Err(e) => {
                leave(given).await;
                return Err(e);
            }
        }
    }
    match state.store.queue_seat(table, &given).await {
        Ok(true) => {}
        Ok(false) => {
            leave(given).await;
            return Ok(false);
        }
        Err(e) => {
            warn!(error = %e, "could not write a table's seats");
            leave(given).await;
            return Err(LobbyError::StoreUnavailable);
        }
    }
    let kind = nearest_level(rating);
    for _ in 0..bots {
        room.add_bot(table.host_token.clone(), AddBotRequest { seat: None, kind })
            .await?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_are_of_the_level_nearest_the_table() {
        assert_eq!(nearest_level(1000.0), BotKind::Medium);
        assert_eq!(nearest_level(400.0), BotKind::Easy);
        assert_eq!(nearest_level(1400.0), BotKind::Hard);
    }
}
