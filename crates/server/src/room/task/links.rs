//! The room task's side of the connections: a connection the room attaches gets a
//! bounded queue to its socket (its [`Link`]); what the room leaves in its outbox is
//! delivered to those queues, a connection too slow to take a message is dropped;
//! and the checks of the administrators' sanctions on a connection (a banned seat
//! does not reconnect, a muted seat's chat is refused).

use std::sync::Arc;

use tokio::sync::mpsc;
use tracing::warn;

use super::RoomTask;
use crate::error::LobbyError;
use crate::room::state::Out;
use crate::room::{ConnId, ConnShared, Connected, Outbound, Wire};
use crate::store::SanctionKind;
use catan_protocol::CloseCode;

/// The socket side of one connection.
#[derive(Debug)]
pub(super) struct Link {
    /// Bounded queue to its socket task; full means the client is too slow.
    pub(super) tx: mpsc::Sender<Outbound>,
    /// Where the room records why it dropped the connection.
    pub(super) shared: Arc<ConnShared>,
}

impl RoomTask {
    /// Whether the player of connection `conn`'s seat is muted.
    pub(super) fn muted(&self, conn: ConnId) -> bool {
        self.room
            .player_of_conn(conn)
            .is_some_and(|p| self.ctx.sanctions.holds(p, SanctionKind::Mute))
    }

    pub(super) fn connect(
        &mut self,
        token: Option<&str>,
        last_seq: Option<u64>,
        wire: Wire,
    ) -> Result<Connected, LobbyError> {
        let banned = token
            .and_then(|t| self.room.player_of_token(t))
            .is_some_and(|p| self.ctx.sanctions.holds(p, SanctionKind::Ban));
        if banned {
            return Err(LobbyError::Banned);
        }
        let (conn, seat) = self.room.connect(token, last_seq, wire)?;
        let connected = self.link(conn, seat);
        // The snapshot (or the missed messages) is queued before the caller hears of
        // the connection.
        self.flush();
        Ok(connected)
    }

    /// The socket side of a connection the room has just attached: its queue, kept
    /// here, and the receiving end, for whoever reads it.
    pub(super) fn link(&mut self, conn: ConnId, seat: Option<catan_engine::Seat>) -> Connected {
        let (tx, rx) = mpsc::channel(self.ctx.settings.outbound_queue.max(8));
        let shared = Arc::new(ConnShared::default());
        self.links.insert(
            conn,
            Link {
                tx,
                shared: shared.clone(),
            },
        );
        Connected {
            conn,
            seat,
            rx,
            shared,
        }
    }

    /// Delivers what the room left in its outbox. A connection too slow to take a
    /// message is dropped (it may reconnect); one whose socket ended is detached.
    pub(super) fn flush(&mut self) {
        loop {
            let outbox = self.room.take_outbox();
            if outbox.is_empty() {
                return;
            }
            for out in outbox {
                match out {
                    Out::Send(conn, msg) => {
                        let Some(link) = self.links.get(&conn) else {
                            continue;
                        };
                        match link.tx.try_send(msg) {
                            Ok(()) => {}
                            Err(mpsc::error::TrySendError::Full(_)) => {
                                warn!(conn, "dropping slow connection");
                                if let Some(link) = self.links.remove(&conn) {
                                    link.shared.set_close(CloseCode::TooSlow);
                                }
                                self.room.detach(conn);
                            }
                            Err(mpsc::error::TrySendError::Closed(_)) => {
                                self.links.remove(&conn);
                                self.room.detach(conn);
                            }
                        }
                    }
                    Out::Close { conn, code, last } => {
                        if let Some(link) = self.links.remove(&conn) {
                            // A full queue means the client is too slow to read the
                            // last message: the close code still tells it.
                            if let Some(last) = last {
                                let _ = link.tx.try_send(last);
                            }
                            link.shared.set_close(code);
                        }
                    }
                }
            }
        }
    }
}
