//! Rolling the dice and production with the bank shortage rule.

use rand::Rng;

use crate::board::{TILE_COUNT, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::{Phase, Resume};
use crate::resource::{Resource, Resources};
use crate::seat::{MAX_SEATS, Seat};

impl Game {
    pub(crate) fn roll_dice(
        &mut self,
        seat: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if self.phase != Phase::PreRoll {
            return Err(ActionError::WrongPhase);
        }
        let dice = [
            self.rng.random_range(1..=6u8),
            self.rng.random_range(1..=6u8),
        ];
        self.last_roll = Some(dice);
        out.push(Event::DiceRolled { seat, dice });
        let sum = dice[0] + dice[1];
        if sum == 7 {
            self.start_seven(out);
        } else {
            self.produce(sum, out);
            self.set_phase(Phase::Main, out);
        }
        Ok(())
    }

    /// who must discard; then the robber.
    fn start_seven(&mut self, out: &mut Vec<Event>) {
        let mut pending = [0u8; MAX_SEATS];
        for s in self.seats() {
            let n = self.players[s.index()].hand.total();
            if n > 7 {
                pending[s.index()] = u8::try_from(n / 2).unwrap_or(u8::MAX);
            }
        }
        if pending.iter().any(|&n| n > 0) {
            self.set_phase(Phase::Discard { pending }, out);
        } else {
            self.set_phase(
                Phase::MoveRobber {
                    resume: Resume::Main,
                },
                out,
            );
        }
    }

    /// production, with decided per resource.
    pub(crate) fn produce(&mut self, number: u8, out: &mut Vec<Event>) {
        let topo = topology();
        let players = usize::from(self.options.players);
        let mut owed = [Resources::ZERO; MAX_SEATS];
        // The resources anyone is owed, as a bit set by resource index.
        let mut kinds = 0u8;
        for t in 0..TILE_COUNT {
            if self.map.numbers[t] != number || self.robber.index() == t {
                continue;
            }
            let Some(r) = self.map.terrain[t].resource() else {
                continue;
            };
            let corners = topo.tile_vertex_mask[t];
            for (o, p) in owed[..players].iter_mut().zip(&self.players) {
                let (settlements, cities) = (p.settlements & corners, p.cities & corners);
                if settlements | cities != 0 {
                    // 1 card per settlement, 2 per city; at most 6 corners.
                    let n = settlements.count_ones() + 2 * cities.count_ones();
                    *o.get_mut(r) += n as u8;
                    kinds |= 1 << r.index();
                }
            }
        }
        if kinds == 0 {
            return;
        }
        let mut got = [Resources::ZERO; MAX_SEATS];
        for r in Resource::ALL {
            if kinds & (1 << r.index()) == 0 {
                continue;
            }
            let total: u32 = owed[..players].iter().map(|o| u32::from(o.get(r))).sum();
            let in_bank = self.bank.get(r);
            if u32::from(in_bank) >= total {
                for s in 0..players {
                    *got[s].get_mut(r) = owed[s].get(r);
                }
            } else {
                let mut owed_seats = (0..players).filter(|&s| owed[s].get(r) > 0);
                if let (Some(only), None) = (owed_seats.next(), owed_seats.next()) {
                    *got[only].get_mut(r) = in_bank;
                } else {
                    out.push(Event::Shortage { resource: r });
                }
            }
        }
        for (s, cards) in got[..players].iter().enumerate() {
            if !cards.is_empty() {
                self.bank.sub(cards);
                self.players[s].hand.add(cards);
                out.push(Event::Produced {
                    seat: Seat(s as u8),
                    cards: *cards,
                });
            }
        }
    }
}
