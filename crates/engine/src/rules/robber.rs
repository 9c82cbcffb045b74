//! The 7 and the robber: discards, moving the robber, stealing.

use rand::Rng;

use crate::board::{TILE_COUNT, TileId, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::{Phase, Resume};
use crate::resource::Resources;
use crate::seat::Seat;

impl Game {
    pub(crate) fn discard(
        &mut self,
        seat: Seat,
        cards: Resources,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let Phase::Discard { mut pending } = self.phase else {
            return Err(ActionError::WrongPhase);
        };
        let owed = pending[seat.index()];
        if owed == 0 {
            return Err(ActionError::NoDiscardRequired);
        }
        let hand = &self.players[seat.index()].hand;
        if cards.total() != u32::from(owed) || !hand.contains(&cards) {
            return Err(ActionError::InvalidDiscard);
        }
        self.players[seat.index()].hand.sub(&cards);
        self.bank.add(&cards);
        out.push(Event::Discarded { seat, cards });
        pending[seat.index()] = 0;
        if pending.iter().all(|&n| n == 0) {
            self.set_phase(
                Phase::MoveRobber {
                    resume: Resume::Main,
                },
                out,
            );
        } else {
            self.set_phase(Phase::Discard { pending }, out);
        }
        Ok(())
    }

    /// Opponents of `seat` with a card and a building on `tile`, as a bit set.
    pub(crate) fn robbable(&self, seat: Seat, tile: TileId) -> u8 {
        let corners = topology().tile_vertex_mask[tile.index()];
        let mut victims = 0;
        for (s, p) in self.players[..usize::from(self.options.players)]
            .iter()
            .enumerate()
        {
            if s != seat.index() && p.buildings() & corners != 0 && !p.hand.is_empty() {
                victims |= 1 << s;
            }
        }
        victims
    }

    pub(crate) fn move_robber(
        &mut self,
        seat: Seat,
        tile: TileId,
        victim: Option<Seat>,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        let Phase::MoveRobber { resume } = self.phase else {
            return Err(ActionError::WrongPhase);
        };
        if tile.index() >= TILE_COUNT {
            return Err(ActionError::InvalidLocation);
        }
        if tile == self.robber {
            return Err(ActionError::RobberMustMove);
        }
        let eligible = self.robbable(seat, tile);
        match victim {
            Some(v) if v.0 < 8 && eligible & (1 << v.0) != 0 => {}
            None if eligible == 0 => {}
            _ => return Err(ActionError::InvalidVictim),
        }
        self.robber = tile;
        out.push(Event::RobberMoved { seat, tile });
        if let Some(v) = victim {
            let hand = self.players[v.index()].hand;
            let k = self.rng.random_range(0..hand.total());
            let r = hand.nth_card(k).expect("k is below the hand size");
            *self.players[v.index()].hand.get_mut(r) -= 1;
            *self.players[seat.index()].hand.get_mut(r) += 1;
            out.push(Event::Stolen {
                thief: seat,
                victim: v,
                resource: Some(r),
            });
        }
        self.set_phase(resume.into(), out);
        Ok(())
    }
}
