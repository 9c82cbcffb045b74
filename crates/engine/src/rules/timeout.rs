//! Time-outs (issued by the system actor): a default for every pending step, chosen
//! with the game's RNG so that replaying the log reproduces it.

use rand::Rng;

use crate::board::{EdgeId, TILE_COUNT, TileId, VertexId, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::Seat;

/// Index of the `n`-th set bit of `mask` (0-based).
fn nth_bit(mut mask: u128, n: u32) -> u8 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as u8
}

impl Game {
    fn random_bit(&mut self, mask: u128) -> u8 {
        let n = self.rng.random_range(0..mask.count_ones());
        nth_bit(mask, n)
    }

    pub(crate) fn time_out(&mut self, out: &mut Vec<Event>) -> Result<(), ActionError> {
        let seat = self.current;
        match self.phase {
            Phase::Over { .. } => Err(ActionError::GameOver),
            Phase::Setup {
                settlement: None, ..
            } => {
                out.push(Event::TimedOut { seat });
                let v = self.random_bit(u128::from(self.distance_ok_vertices()));
                self.build_settlement(seat, VertexId(v), out)
            }
            Phase::Setup {
                settlement: Some(v),
                ..
            } => {
                out.push(Event::TimedOut { seat });
                let free = topology().vertex_edge_mask[v.index()] & !self.occupied_edges();
                let e = self.random_bit(free);
                self.build_road(seat, EdgeId(e), out)
            }
            Phase::PreRoll => {
                out.push(Event::TimedOut { seat });
                self.roll_dice(seat, out)
            }
            Phase::Discard { pending } => {
                for s in self.seats() {
                    let owed = pending[s.index()];
                    if owed == 0 {
                        continue;
                    }
                    out.push(Event::TimedOut { seat: s });
                    let mut hand = self.players[s.index()].hand;
                    let mut cards = Resources::ZERO;
                    for _ in 0..owed {
                        let k = self.rng.random_range(0..hand.total());
                        let r = hand.nth_card(k).expect("k below hand size");
                        *hand.get_mut(r) -= 1;
                        *cards.get_mut(r) += 1;
                    }
                    self.discard(s, cards, out)?;
                }
                Ok(())
            }
            Phase::MoveRobber { .. } => {
                out.push(Event::TimedOut { seat });
                let mut t = self.rng.random_range(0..TILE_COUNT as u8 - 1);
                if t >= self.robber.0 {
                    t += 1;
                }
                let tile = TileId(t);
                let victims = self.robbable(seat, tile);
                let victim = (victims != 0).then(|| Seat(self.random_bit(u128::from(victims))));
                self.move_robber(seat, tile, victim, out)
            }
            Phase::RoadBuilding { resume, .. } => {
                // The free roads not placed in time are forfeited.
                out.push(Event::TimedOut { seat });
                self.set_phase(resume.into(), out);
                Ok(())
            }
            Phase::Main => {
                out.push(Event::TimedOut { seat });
                self.end_turn(seat, out)
            }
        }
    }
}
