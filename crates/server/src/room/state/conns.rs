//! Connections attached to the room: a seat's (by its token) or a spectator's, each
//! starting from a snapshot or from the backlog after the sequence number it last saw.

use catan_engine::Seat;

use super::{ConnId, ConnMeta, Out, Room, Stage, outbox, seat_at};
use crate::error::LobbyError;
use crate::store;
use crate::token;
use catan_protocol::{CloseCode, ClosingReason, ServerMessage};

impl Room {
    /// Attaches a connection: with a seat token for a player, without for a spectator.
    /// It is then sent the messages after `last_seq` and `resumed`, or a snapshot.
    ///
    /// # Errors
    /// `InvalidToken`, `SpectatorsNotAllowed`; nothing changes.
    pub(crate) fn connect(
        &mut self,
        token: Option<&str>,
        last_seq: Option<u64>,
        in_process: bool,
    ) -> Result<(ConnId, Option<Seat>), LobbyError> {
        let seat = match token {
            Some(t) => Some(self.seat_of_token(t).ok_or(LobbyError::InvalidToken)?),
            None if self.options.spectators => None,
            None => return Err(LobbyError::SpectatorsNotAllowed),
        };
        let conn = self.next_conn;
        self.next_conn += 1;
        // Take the seat first (announcing it to the others), then attach and send the
        // state, which therefore already shows this seat connected. Nothing happens in
        // between, so no broadcast can fall in a gap. A bot standing in for the seat
        // stops first: the person takes over from the next decision.
        if let Some(s) = seat {
            self.end_stand_in(s);
            match self.seats[s.index()].conn.replace(conn) {
                Some(old) => self.drop_conn(old, CloseCode::Replaced, None),
                None => self.broadcast_public(|seq| ServerMessage::Presence {
                    seq,
                    seat: s,
                    connected: true,
                }),
            }
        }
        self.conns.insert(
            conn,
            ConnMeta {
                seat,
                in_process,
                stand_in: false,
            },
        );
        let resumed = last_seq.is_some_and(|from| self.replay_since(conn, seat, from));
        if !resumed {
            let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
            self.send_to(conn, &msg);
        }
        tracing::debug!(conn, seat = seat.map(|s| s.0), resumed, "connected");
        Ok((conn, seat))
    }

    /// The seat whose token this is.
    fn seat_of_token(&self, token: &str) -> Option<Seat> {
        let given = store::sha256_hex(token);
        self.seats
            .iter()
            .position(|s| {
                s.token_hash
                    .as_deref()
                    .is_some_and(|st| token::matches(st, &given))
            })
            .map(seat_at)
    }

    /// Sends the messages after `from` to `conn`, then a sync point. False when the
    /// backlog no longer reaches back that far (the caller sends a snapshot).
    fn replay_since(&mut self, conn: ConnId, seat: Option<Seat>, from: u64) -> bool {
        if from > self.seq {
            return false;
        }
        if from + 1 < self.oldest_logged() && from != self.seq {
            return false;
        }
        for msg in self.missed_since(from, seat) {
            self.send_to(conn, &msg);
        }
        let (deadline, offer_deadlines) = self.deadlines();
        let msg = ServerMessage::Resumed {
            protocol_version: catan_protocol::PROTOCOL_VERSION,
            seq: self.seq,
            legal: self.legal_for(seat),
            deadline,
            offer_deadlines,
        };
        self.send_to(conn, &msg);
        true
    }

    /// Forgets a connection whose socket ended (or that the task found too slow); its
    /// seat, if no other connection took it, is announced as gone after the command.
    /// A stand-in's connection ends its stand-in, announced the same way.
    pub(crate) fn detach(&mut self, conn: ConnId) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        if let Some(s) = c.seat
            && self.seats[s.index()].stand_in == Some(conn)
        {
            self.seats[s.index()].stand_in = None;
            self.stand_ins_gone.push(s);
        }
        if let Some(s) = c.seat
            && self.seats[s.index()].conn == Some(conn)
        {
            self.seats[s.index()].conn = None;
            self.seat_left(s);
            self.gone.push(s);
        }
        tracing::debug!(conn, "disconnected");
    }

    /// Detaches a connection on the room's initiative; its socket closes with `code`,
    /// after `last` if given.
    pub(super) fn drop_conn(&mut self, conn: ConnId, code: CloseCode, last: Option<ServerMessage>) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        let last = last.map(|m| outbox::outbound(&c, &m));
        self.outbox.push(Out::Close { conn, code, last });
        if let Some(s) = c.seat
            && self.seats[s.index()].conn == Some(conn)
        {
            self.seats[s.index()].conn = None;
            self.seat_left(s);
            if code != CloseCode::Replaced {
                self.gone.push(s);
            }
        }
    }

    /// Whether seats lost their connection (or their stand-in) since they were last
    /// announced.
    pub(crate) fn has_gone(&self) -> bool {
        !self.gone.is_empty() || !self.stand_ins_gone.is_empty()
    }

    /// Tells everyone which seats lost their connection during the last command (and
    /// any the announcements themselves dropped), unless the seat is back already;
    /// and which lost their stand-in, unless another stands in already.
    pub(crate) fn announce_gone(&mut self) {
        while let Some(seat) = self.stand_ins_gone.pop() {
            if self.seats[seat.index()].stand_in.is_none() {
                self.broadcast_public(|seq| ServerMessage::StandIn {
                    seq,
                    seat,
                    active: false,
                });
            }
        }
        while let Some(seat) = self.gone.pop() {
            if self.seats[seat.index()].conn.is_none() {
                self.broadcast_public(|seq| ServerMessage::Presence {
                    seq,
                    seat,
                    connected: false,
                });
            }
        }
    }

    /// Disconnects the client on `seat` with 4011 after a `closing` message; the seat
    /// stays its own and its token keeps working.
    ///
    /// # Errors
    /// `NoSuchSeat`, `NotConnected`.
    pub(crate) fn kick(&mut self, seat: Seat, message: &str) -> Result<(), LobbyError> {
        let s = self.seats.get(seat.index()).ok_or(LobbyError::NoSuchSeat)?;
        let conn = s.conn.ok_or(LobbyError::NotConnected)?;
        let msg = ServerMessage::closing(ClosingReason::Kicked, message);
        self.drop_conn(conn, CloseCode::Kicked, Some(msg));
        tracing::info!(seat = seat.0, "connection kicked by an administrator");
        Ok(())
    }

    /// Closes the room to everyone: a `closing` message with `reason` and `message`,
    /// each socket closed with `code`; the timers stop. Returns how many connections
    /// there were.
    pub(crate) fn close_all(
        &mut self,
        reason: ClosingReason,
        code: CloseCode,
        message: &str,
    ) -> usize {
        let msg = ServerMessage::closing(reason, message);
        let mut conns: Vec<(ConnId, ConnMeta)> = self.conns.drain().collect();
        conns.sort_unstable_by_key(|(id, _)| *id);
        for (conn, meta) in &conns {
            self.outbox.push(Out::Close {
                conn: *conn,
                code,
                last: Some(outbox::outbound(meta, &msg)),
            });
        }
        for s in &mut self.seats {
            s.conn = None;
            s.stand_in = None;
        }
        if let Stage::Playing { timers, .. } = &mut self.stage {
            *timers = super::Timers::default();
        }
        conns.len()
    }
}
