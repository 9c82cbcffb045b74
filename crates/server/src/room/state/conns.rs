//! Connections attached to the room: a seat's (by its token) or a spectator's, each
//! starting from a snapshot or from the backlog after the sequence number it last
//! saw; which connection holds each seat and which bot stands in for it; and the
//! seats that lost theirs, announced once the command at hand is done.

use std::collections::HashMap;

use catan_engine::Seat;

use super::{ConnId, ConnMeta, Room, Wire};
use crate::error::LobbyError;
use catan_protocol::{CloseCode, ClosingReason, ServerMessage};

/// What ended when a connection was detached.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Detached {
    /// The connection as it was, if it was attached.
    pub(crate) meta: Option<ConnMeta>,
    /// The seat it held, now without a connection.
    pub(crate) seat_left: Option<Seat>,
}

/// The room's connections.
#[derive(Debug)]
pub(crate) struct Conns {
    /// Every attached connection.
    by_id: HashMap<ConnId, ConnMeta>,
    /// The next connection's id.
    next: ConnId,
    /// The connection holding each seat.
    seat_conn: Vec<Option<ConnId>>,
    /// The connection of the bot standing in for each seat's absent person.
    stand_in: Vec<Option<ConnId>>,
    /// Seats whose connection went away, announced once the current command is done
    /// (a connection dropped in the middle of a broadcast must not interleave a
    /// `presence` message between the seats of that broadcast).
    gone: Vec<Seat>,
    /// Seats whose stand-in's connection went away, announced like `gone`.
    stand_ins_gone: Vec<Seat>,
}

impl Conns {
    /// No connections, for a room of `seats` seats.
    pub(super) fn new(seats: usize) -> Conns {
        Conns {
            by_id: HashMap::new(),
            next: 1,
            seat_conn: vec![None; seats],
            stand_in: vec![None; seats],
            gone: Vec::new(),
            stand_ins_gone: Vec::new(),
        }
    }

    /// What the room knows of `conn`.
    pub(super) fn get(&self, conn: ConnId) -> Option<ConnMeta> {
        self.by_id.get(&conn).copied()
    }

    /// Every connection, in the order they came.
    pub(super) fn sorted(&self) -> Vec<(ConnId, ConnMeta)> {
        let mut all: Vec<(ConnId, ConnMeta)> = self.by_id.iter().map(|(i, m)| (*i, *m)).collect();
        all.sort_unstable_by_key(|(id, _)| *id);
        all
    }

    /// How many spectators are connected.
    pub(super) fn spectators(&self) -> usize {
        self.by_id.values().filter(|c| c.seat.is_none()).count()
    }

    /// Whether any connection is not a bot's: a seat's person, or a spectator.
    pub(super) fn any(&self, is_person: impl Fn(Seat) -> bool) -> bool {
        self.by_id.values().any(|c| match c.seat {
            None => true,
            Some(_) if c.stand_in => false,
            Some(s) => is_person(s),
        })
    }

    /// The connection holding `seat`.
    pub(super) fn of_seat(&self, seat: Seat) -> Option<ConnId> {
        self.seat_conn.get(seat.index()).copied().flatten()
    }

    /// The connection of the bot standing in for `seat`.
    pub(super) fn stand_in_of(&self, seat: Seat) -> Option<ConnId> {
        self.stand_in.get(seat.index()).copied().flatten()
    }

    /// Attaches a new connection; one of a seat takes the seat over and returns the
    /// connection it had, if any (to be dropped as replaced).
    pub(super) fn attach(&mut self, meta: ConnMeta) -> (ConnId, Option<ConnId>) {
        let conn = self.next;
        self.next += 1;
        let mut replaced = None;
        if let Some(s) = meta.seat {
            if meta.stand_in {
                self.stand_in[s.index()] = Some(conn);
            } else {
                replaced = self.seat_conn[s.index()].replace(conn);
                if let Some(old) = replaced {
                    self.by_id.remove(&old);
                }
            }
        }
        self.by_id.insert(conn, meta);
        (conn, replaced)
    }

    /// Detaches `conn`. The seat it held (or stood in for) is noted as gone, to be
    /// announced ([`Conns::take_gone`]), unless `announce` is false (it was replaced).
    pub(super) fn detach(&mut self, conn: ConnId, announce: bool) -> Detached {
        let Some(meta) = self.by_id.remove(&conn) else {
            return Detached::default();
        };
        let mut seat_left = None;
        if let Some(s) = meta.seat {
            if self.stand_in[s.index()] == Some(conn) {
                self.stand_in[s.index()] = None;
                self.stand_ins_gone.push(s);
            }
            if self.seat_conn[s.index()] == Some(conn) {
                self.seat_conn[s.index()] = None;
                seat_left = Some(s);
                if announce {
                    self.gone.push(s);
                }
            }
        }
        Detached {
            meta: Some(meta),
            seat_left,
        }
    }

    /// Forgets the stand-in of `seat` (its person is back), without noting it gone
    /// (the room announces the end itself); its connection, if any.
    pub(super) fn end_stand_in(&mut self, seat: Seat) -> Option<ConnId> {
        let conn = self.stand_in[seat.index()].take()?;
        self.by_id.remove(&conn);
        Some(conn)
    }

    /// Detaches every connection, in the order they came, and forgets every seat's.
    pub(super) fn drain(&mut self) -> Vec<(ConnId, ConnMeta)> {
        let all = self.sorted();
        self.by_id.clear();
        self.seat_conn.iter_mut().for_each(|c| *c = None);
        self.stand_in.iter_mut().for_each(|c| *c = None);
        all
    }

    /// Whether seats lost their connection (or their stand-in) since last announced.
    pub(super) fn has_gone(&self) -> bool {
        !self.gone.is_empty() || !self.stand_ins_gone.is_empty()
    }

    /// The seats that lost their stand-in and still have none, then those that lost
    /// their connection and are still without one, latest first.
    pub(super) fn take_gone(&mut self) -> (Vec<Seat>, Vec<Seat>) {
        let stand_ins = std::mem::take(&mut self.stand_ins_gone)
            .into_iter()
            .rev()
            .filter(|s| self.stand_in[s.index()].is_none())
            .collect();
        let seats = std::mem::take(&mut self.gone)
            .into_iter()
            .rev()
            .filter(|s| self.seat_conn[s.index()].is_none())
            .collect();
        (stand_ins, seats)
    }
}

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
        wire: Wire,
    ) -> Result<(ConnId, Option<Seat>), LobbyError> {
        let seat = match token {
            Some(t) => Some(
                self.seats
                    .seat_of_token(t)
                    .ok_or(LobbyError::InvalidToken)?,
            ),
            None if self.options.spectators => None,
            None => return Err(LobbyError::SpectatorsNotAllowed),
        };
        // Take the seat first (announcing it to the others), then attach and send the
        // state, which therefore already shows this seat connected. Nothing happens in
        // between, so no broadcast can fall in a gap. A bot standing in for the seat
        // stops first: the person takes over from the next decision (in a game over
        // days, a bot making a move finishes it).
        if let Some(s) = seat {
            if self.options.days.is_none() {
                self.end_stand_in(s);
            }
            // The others hear of it; this connection starts from a state that shows it.
            if self.conns.of_seat(s).is_none() {
                self.broadcast_public(|seq| ServerMessage::Presence {
                    seq,
                    seat: s,
                    connected: true,
                });
            }
        }
        let (conn, replaced) = self.conns.attach(ConnMeta {
            seat,
            wire,
            stand_in: false,
        });
        if let Some(old) = replaced {
            self.outbox.close(old, CloseCode::Replaced, None);
        }
        let resumed = last_seq.is_some_and(|from| self.replay_since(conn, seat, from));
        if !resumed {
            let msg = ServerMessage::Snapshot(Box::new(self.snapshot(seat)));
            self.send_to(conn, &msg);
        }
        tracing::debug!(conn, seat = seat.map(|s| s.0), resumed, "connected");
        Ok((conn, seat))
    }

    /// Sends the messages after `from` to `conn`, then a sync point. False when the
    /// backlog no longer reaches back that far (the caller sends a snapshot).
    fn replay_since(&mut self, conn: ConnId, seat: Option<Seat>, from: u64) -> bool {
        let Some(missed) = self.outbox.missed_since(from, seat) else {
            return false;
        };
        for msg in missed {
            self.send_to(conn, &msg);
        }
        let sent = self.deadlines();
        let msg = ServerMessage::Resumed {
            protocol_version: catan_protocol::PROTOCOL_VERSION,
            seq: self.outbox.seq(),
            legal: self.legal_for(seat),
            deadline: sent.deadline,
            offer_deadlines: sent.offers,
            clocks: sent.clocks,
        };
        self.send_to(conn, &msg);
        true
    }

    /// Forgets a connection whose socket ended (or that the task found too slow); its
    /// seat, if no other connection took it, is announced as gone after the command.
    /// A stand-in's connection ends its stand-in, announced the same way.
    pub(crate) fn detach(&mut self, conn: ConnId) {
        let detached = self.conns.detach(conn, true);
        if let Some(s) = detached.seat_left {
            self.seat_left(s);
        }
        if detached.meta.is_some() {
            tracing::debug!(conn, "disconnected");
        }
    }

    /// Detaches a connection on the room's initiative; its socket closes with `code`,
    /// after `last` if given.
    pub(super) fn drop_conn(&mut self, conn: ConnId, code: CloseCode, last: Option<ServerMessage>) {
        let detached = self.conns.detach(conn, code != CloseCode::Replaced);
        let Some(meta) = detached.meta else {
            return;
        };
        let last = last.map(|m| super::outbox::outbound(&meta, &m));
        self.outbox.close(conn, code, last);
        if let Some(s) = detached.seat_left {
            self.seat_left(s);
        }
    }

    /// Whether seats lost their connection (or their stand-in) since they were last
    /// announced.
    pub(crate) fn has_gone(&self) -> bool {
        self.conns.has_gone()
    }

    /// Tells everyone which seats lost their connection during the last command (and
    /// any the announcements themselves dropped), unless the seat is back already;
    /// and which lost their stand-in, unless another stands in already.
    pub(crate) fn announce_gone(&mut self) {
        let (stand_ins, seats) = self.conns.take_gone();
        for seat in stand_ins {
            self.broadcast_public(|seq| ServerMessage::StandIn {
                seq,
                seat,
                active: false,
            });
        }
        for seat in seats {
            self.broadcast_public(|seq| ServerMessage::Presence {
                seq,
                seat,
                connected: false,
            });
        }
    }

    /// Disconnects the client on `seat` with 4011 after a `closing` message; the seat
    /// stays its own and its token keeps working.
    ///
    /// # Errors
    /// `NoSuchSeat`, `NotConnected`.
    pub(crate) fn kick(&mut self, seat: Seat, message: &str) -> Result<(), LobbyError> {
        if !self.seats.exists(seat) {
            return Err(LobbyError::NoSuchSeat);
        }
        let conn = self.conns.of_seat(seat).ok_or(LobbyError::NotConnected)?;
        let msg = ServerMessage::closing(ClosingReason::Kicked, message);
        self.drop_conn(conn, CloseCode::Kicked, Some(msg));
        tracing::info!(seat = seat.0, "connection kicked by an administrator");
        Ok(())
    }

    /// Disconnects every client on a seat of `player` (an administrator banned
    /// them) with 4011 after a `closing` message; returns how many there were.
    pub(crate) fn kick_player(&mut self, player: uuid::Uuid, message: &str) -> usize {
        let conns: Vec<ConnId> = self
            .seats
            .of_player(player)
            .into_iter()
            .filter_map(|seat| self.conns.of_seat(seat))
            .collect();
        for &conn in &conns {
            let msg = ServerMessage::closing(ClosingReason::Kicked, message);
            self.drop_conn(conn, CloseCode::Kicked, Some(msg));
        }
        conns.len()
    }

    /// The player of the seat whose token `token` is (a signed-in person's).
    pub(crate) fn player_of_token(&self, token: &str) -> Option<uuid::Uuid> {
        self.seats.player(self.seats.seat_of_token(token)?)
    }

    /// The player of the seat connection `conn` is attached to.
    pub(crate) fn player_of_conn(&self, conn: ConnId) -> Option<uuid::Uuid> {
        self.seats.player(self.conns.get(conn)?.seat?)
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
        let conns = self.conns.drain();
        for (conn, meta) in &conns {
            let last = super::outbox::outbound(meta, &msg);
            self.outbox.close(*conn, code, Some(last));
        }
        self.stage.stop_timers();
        conns.len()
    }
}
