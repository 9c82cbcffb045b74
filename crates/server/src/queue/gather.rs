//! Tables of the queue whose game has not started (docs/protocol/26-quick-play.md,
//! 26.4). Every forming, the instance that owns a table's room looks at it:
//!
//! - everyone at it connected (bots count as connected): its game starts;
//! - a person not connected `--queue-connect-secs` after being seated: dropped
//!   (their seat left, their row of the queue gone: they are out of the queue) and
//!   the seat filled again from the queue, the table's players taken as one ticket
//!   that has waited since the first of them queued (so within the same rating
//!   window, before anyone waiting less), or by bots when the matcher would give a
//!   table of that ticket bots;
//! - everyone dropped: the room closes;
//! - still gathering `--queue-give-up-secs` after it formed: the room closes,
//!   telling its players to queue again, and they leave the queue.
//!
//! A table whose room is on no instance any more (the instance that formed it was
//! killed) is noticed by any instance once it is older than
//! [`super::QueueConfig::orphan_ms`]: its players wait in the queue again from
//! where they waited before.

use std::collections::BTreeMap;

use catan_engine::Seat;
use catan_protocol::{RoomInfo, RoomStatus, SeatInfo};
use tracing::{debug, info, warn};
use uuid::Uuid;

use super::matcher::{self, Schedule, Ticket};
use super::tables::{Pool, sit, tickets};
use crate::AppState;
use crate::room::RoomHandle;
use crate::store::{PendingTable, QueueRow, StoreError};

/// What the message of a given-up table says.
const GIVEN_UP: &str = "quick play could not complete this table in time; join the queue again";

/// Whether `seat` is taken by someone connected (a bot is, always).
fn present(seat: &SeatInfo) -> bool {
    seat.occupant
        .as_ref()
        .is_some_and(|o| o.bot.is_some() || seat.connected)
}

/// Tends every gathering table: how many players were seated at them from the
/// queue. Tickets seated are taken out of `pools`.
///
/// # Errors
/// The store could not be read.
pub(super) async fn tend_all(
    state: &AppState,
    now: u64,
    pools: &mut BTreeMap<(u8, bool), Pool<'_>>,
    schedule: &Schedule,
) -> Result<usize, StoreError> {
    let mut seated = 0;
    for pending in state.store.queue_pending().await? {
        let id = pending.table.room_id;
        let Ok(room) = state.rooms.get(id) else {
            if now.saturating_sub(pending.table.formed_at) > state.config.queue.orphan_ms() {
                info!(room = %id, "a gathering table lost its instance; its players wait again");
                if let Err(e) = state.store.queue_unseat(id, true).await {
                    debug!(error = %e, "could not give a lost table's players back");
                }
            }
            continue;
        };
        let pool = pools
            .entry((pending.table.seats, pending.table.rated))
            .or_default();
        match tend(state, &room, &pending, now, pool, schedule).await {
            Ok(n) => seated += n,
            Err(e) => {
                debug!(room = %id, error = %e, "a gathering table waits for the next forming")
            }
        }
    }
    Ok(seated)
}

/// Tends one table of this instance: see the module's description.
async fn tend(
    state: &AppState,
    room: &RoomHandle,
    pending: &PendingTable,
    now: u64,
    pool: &mut Pool<'_>,
    schedule: &Schedule,
) -> Result<usize, catan_protocol::LobbyError> {
    let store = &state.store;
    let id = pending.table.room_id;
    let info = room.info().await?;
    if info.status != RoomStatus::Lobby {
        store.queue_started(id).await.map_err(unavailable)?;
        return Ok(0);
    }
    if now.saturating_sub(pending.table.formed_at) > state.config.queue.give_up_ms() {
        info!(room = %id, "a quick-play table was given up");
        let _ = room.close(GIVEN_UP.into()).await;
        store.queue_unseat(id, false).await.map_err(unavailable)?;
        return Ok(0);
    }
    // Drop who left their seat, or has not connected in time.
    let connect_ms = state.config.queue.queue_connect_secs.saturating_mul(1000);
    let mut staying: Vec<&QueueRow> = Vec::new();
    for row in &pending.players {
        let Some(at) = &row.seated else { continue };
        let seat = info.seats.get(usize::from(at.seat));
        let theirs = seat.is_some_and(|s| s.occupant.is_some());
        let late = now.saturating_sub(at.at) >= connect_ms;
        if theirs && (seat.is_some_and(present) || !late) {
            staying.push(row);
            continue;
        }
        if theirs {
            let _ = room.leave_seat(Seat(at.seat), at.token.clone()).await;
        }
        store
            .queue_drop(row.player_id, id)
            .await
            .map_err(unavailable)?;
        info!(room = %id, seat = at.seat, "a player seated by the queue did not connect; dropped");
    }
    if staying.is_empty() {
        let _ = room
            .close("nobody seated at this table connected".into())
            .await;
        store.queue_unseat(id, false).await.map_err(unavailable)?;
        return Ok(0);
    }
    let info = if staying.len() == pending.players.len() {
        info
    } else {
        room.info().await?
    };
    if info.seats.iter().all(present) {
        room.start(pending.table.host_token.clone()).await?;
        store.queue_started(id).await.map_err(unavailable)?;
        debug!(room = %id, "a quick-play table's game started");
        return Ok(0);
    }
    refill(state, room, pending, &info, &staying, now, pool, schedule).await
}

/// Fills the open seats of a table from `pool` or with bots, as the matcher
/// decides for the table's players taken as one ticket.
#[allow(clippy::too_many_arguments)]
async fn refill(
    state: &AppState,
    room: &RoomHandle,
    pending: &PendingTable,
    info: &RoomInfo,
    staying: &[&QueueRow],
    now: u64,
    pool: &mut Pool<'_>,
    schedule: &Schedule,
) -> Result<usize, catan_protocol::LobbyError> {
    let id = pending.table.room_id;
    let open = info.seats.iter().filter(|s| s.occupant.is_none()).count();
    if open == 0 {
        return Ok(0); // full, waiting for connections
    }
    let table_ticket = Ticket {
        key: id,
        ratings: staying.iter().map(|r| f64::from(r.rating)).collect(),
        since_ms: staying.iter().map(|r| r.since).min().unwrap_or(now),
        bots_ok: staying.iter().all(|r| r.bots_ok),
    };
    let mut list = vec![table_ticket];
    list.extend(tickets(pool, now));
    let Some(found) = matcher::form(staying.len() + open, &list, now, schedule)
        .into_iter()
        .find(|t| t.tickets.contains(&id))
    else {
        return Ok(0);
    };
    let joining: Vec<Uuid> = found.tickets.into_iter().filter(|t| *t != id).collect();
    let members: Vec<&QueueRow> = joining
        .iter()
        .flat_map(|t| pool[t].iter().copied())
        .collect();
    let seated = sit(
        state,
        room,
        &pending.table,
        &members,
        found.bots,
        found.rating,
    )
    .await;
    match seated {
        Ok(true) => {
            for t in &joining {
                pool.remove(t);
            }
            info!(room = %id, players = members.len(), bots = found.bots, "a table's seats filled again");
            Ok(members.len())
        }
        Ok(false) => Ok(0),
        Err(e) => {
            warn!(room = %id, error = %e, "could not fill a table's seats again");
            Err(e)
        }
    }
}

fn unavailable(e: StoreError) -> catan_protocol::LobbyError {
    debug!(error = %e, "queue store call failed");
    catan_protocol::LobbyError::StoreUnavailable
}
