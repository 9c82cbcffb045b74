//! Keeping the bans and mutes in force (protocol 22.9): the copy the rooms read
//! ([`Sanctions`]) is reloaded from the store every [`REFRESH`] and at once after an
//! administrator's call on this instance, so that the other instances of a cluster
//! follow within [`REFRESH`]; a player newly banned is disconnected from every room
//! of this instance when the copy learns of it.

use super::now_ms;
use super::sanctions::{BANNED_MESSAGE, REFRESH, Sanctions};
use crate::registry::Rooms;
use crate::store::Store;

/// Reloads `sanctions` from `store` and disconnects the players newly banned from
/// every room in `rooms`. A store that does not answer leaves the copy as it was
/// (logged): the next reload tries again.
pub async fn reload(store: &dyn Store, sanctions: &Sanctions, rooms: &Rooms) {
    let rows = match store.sanctions(None, now_ms()).await {
        Ok(rows) => rows,
        Err(e) => {
            if sanctions.reload_failed() {
                tracing::warn!(error = %e, "could not reload the bans and mutes; the last ones read still hold");
            }
            return;
        }
    };
    if sanctions.reload_worked() {
        tracing::info!("the bans and mutes are read again");
    }
    for player in sanctions.replace(&rows) {
        let mut kicked = 0;
        for room in rooms.all() {
            kicked += room
                .kick_player(player, BANNED_MESSAGE.to_owned())
                .await
                .unwrap_or(0);
        }
        tracing::info!(%player, connections = kicked, "banned player disconnected");
    }
}

/// Reloads the sanctions every [`REFRESH`] (the first time after one) until
/// `shutdown`.
pub async fn keep_reloading(
    store: std::sync::Arc<dyn Store>,
    sanctions: std::sync::Arc<Sanctions>,
    rooms: std::sync::Arc<Rooms>,
    shutdown: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(REFRESH) => {}
        }
        reload(store.as_ref(), &sanctions, &rooms).await;
    }
}
