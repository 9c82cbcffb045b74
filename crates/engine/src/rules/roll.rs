//! Rolling the dice (R-4.2) and production with the bank shortage rule (R-6).

use rand::Rng;

use crate::board::{Map, topology};
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::{Phase, Resume};
use crate::position_error::PositionError;
use crate::resource::{Resource, Resources};
use crate::seat::{MAX_SEATS, Seat};

impl Game {
    /// Fixes the next rolls (R-4.2), after any scripted already, next first: each roll
    /// takes the next pair instead of drawing from the generator, which it leaves
    /// untouched. For tests, puzzles and tutorials; like the seed, scripted dice are
    /// never in a view. A [`crate::Position`] scripts them the same way
    /// (`scripted_dice`).
    ///
    /// ```
    /// use catan_engine::playout::RandomPlayer;
    /// use catan_engine::{Action, Event, Game, GameOptions};
    ///
    /// // A game just past setup.
    /// let mut game = Game::new(GameOptions::default(), 3).unwrap();
    /// let mut player = RandomPlayer::new(3);
    /// while game.turn() == 0 {
    ///     player.step(&mut game, &mut Vec::new()).unwrap();
    /// }
    /// let seat = game.current();
    /// game.script_dice([[6, 6], [1, 2]]).unwrap();
    /// let events = game.apply(seat, Action::RollDice).unwrap();
    /// assert!(events.contains(&Event::DiceRolled { seat, dice: [6, 6] }));
    /// assert_eq!(game.scripted_dice(), &[[1, 2]]);
    ///
    /// // A die is 1-6 (R-4.2): nothing is scripted then.
    /// assert_eq!(game.script_dice([[3, 3], [0, 7]]).unwrap_err().code(), "die");
    /// assert_eq!(game.scripted_dice(), &[[1, 2]]);
    /// ```
    ///
    /// # Errors
    /// [`PositionError::Die`] for a die that is not 1-6; nothing is scripted then.
    pub fn script_dice(
        &mut self,
        rolls: impl IntoIterator<Item = [u8; 2]>,
    ) -> Result<(), PositionError> {
        let start = self.dice.len();
        self.dice.extend(rolls);
        let bad = self.dice[start..]
            .iter()
            .flatten()
            .find(|d| !(1..=6).contains(*d));
        if let Some(&die) = bad {
            self.dice.truncate(start);
            return Err(PositionError::Die(die));
        }
        Ok(())
    }

    pub(crate) fn roll_dice(
        &mut self,
        seat: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if self.phase != Phase::PreRoll {
            return Err(ActionError::WrongPhase);
        }
        // Scripted dice first (a `Position` may fix them); one length check otherwise.
        let dice = if self.dice.is_empty() {
            [
                self.rng.random_range(1..=6u8),
                self.rng.random_range(1..=6u8),
            ]
        } else {
            self.dice.remove(0)
        };
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

    /// R-7.1: who must discard; then the robber (R-7.2).
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

    /// R-6.1 production, with R-6.2 decided per resource.
    pub(crate) fn produce(&mut self, number: u8, out: &mut Vec<Event>) {
        let topo = topology();
        // What each seat is owed, as words with one byte per resource (see
        // `Resources::from_word`), summed in registers rather than byte by byte in
        // memory. No byte can overflow: even 19 tiles of one resource with a building
        // on each of their 6 corners pay 19 * 6 * 2 = 228 cards. Unused seats own
        // nothing and stay at 0.
        let mut owed = [0u64; MAX_SEATS];
        let occupied = self.occupied_vertices();
        let robber = 1u32.checked_shl(u32::from(self.robber.0)).unwrap_or(0);
        let on_number = self.tiles_by_number.get(usize::from(number)).copied();
        let mut tiles = on_number.unwrap_or(0) & !robber;
        while tiles != 0 {
            let t = tiles.trailing_zeros() as usize;
            tiles &= tiles - 1;
            let Some(r) = self.map.terrain[t].resource() else {
                continue;
            };
            let card = 1u64 << (8 * r.index());
            // Each building on the tile's corners pays its owner: 1 card per settlement,
            // 2 per city. Counted corner by corner; a corner has one owner, the first
            // seat found holding it.
            let mut built = occupied & topo.tile_vertex_mask[t];
            while built != 0 {
                let corner = built & built.wrapping_neg();
                built &= built - 1;
                for (o, p) in owed.iter_mut().zip(&self.players) {
                    if (p.settlements | p.cities) & corner != 0 {
                        *o += card << u32::from(p.cities & corner != 0);
                        break;
                    }
                }
            }
        }
        let mut total: u64 = owed.iter().sum();
        if total == 0 {
            return;
        }
        if !self.bank.contains(&Resources::from_word(total)) {
            self.share_short_resources(&mut owed, out);
            total = owed.iter().sum();
        }
        // Paid word by word: the bank holds `total` now (no byte borrows), and a hand
        // plus what it gets stays within the 19 cards of a resource (R-2.5: bank and
        // hands always add up to them), so no byte carries either.
        debug_assert!(self.bank.contains(&Resources::from_word(total)));
        self.bank = Resources::from_word(self.bank.word() - total);
        let players = usize::from(self.options.players);
        for (s, &o) in owed[..players].iter().enumerate() {
            if o != 0 {
                let cards = Resources::from_word(o);
                let hand = &mut self.players[s].hand;
                *hand = Resources::from_word(hand.word() + o);
                out.push(Event::Produced {
                    seat: Seat(s as u8),
                    cards,
                });
            }
        }
    }

    /// R-6.2 for each resource the bank cannot pay in full, in resource order: a single
    /// owed seat gets what the bank has, otherwise nobody gets any of it.
    fn share_short_resources(&self, owed: &mut [u64; MAX_SEATS], out: &mut Vec<Event>) {
        for r in Resource::ALL {
            let shift = 8 * r.index();
            let of_r = |o: u64| (o >> shift) & 0xff;
            let in_bank = u64::from(self.bank.get(r));
            if owed.iter().map(|&o| of_r(o)).sum::<u64>() <= in_bank {
                continue;
            }
            let mut owed_seats = owed.iter_mut().filter(|o| of_r(**o) > 0);
            if let (Some(only), None) = (owed_seats.next(), owed_seats.next()) {
                *only = (*only & !(0xff << shift)) | (in_bank << shift);
            } else {
                for o in owed.iter_mut() {
                    *o &= !(0xff << shift);
                }
                out.push(Event::Shortage { resource: r });
            }
        }
    }
}

/// The tiles carrying each number (bit `t` for tile `t`), by number: what
/// [`Game`] keeps beside its map so that a roll finds its tiles in one look-up
/// (R-6.1). Numbers above 12 are on no tile of a valid map and are left out.
pub(crate) fn tiles_by_number(map: &Map) -> [u32; 13] {
    let mut tiles = [0u32; 13];
    for (t, &n) in map.numbers.iter().enumerate() {
        if let Some(m) = tiles.get_mut(usize::from(n)) {
            *m |= 1 << t;
        }
    }
    tiles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::TILE_COUNT;

    #[test]
    fn tiles_by_number_finds_exactly_the_tiles_with_each_number() {
        let mut map = Map::beginner();
        for seed in 0..2_000u32 {
            for (t, n) in map.numbers.iter_mut().enumerate() {
                *n = ((seed.wrapping_mul(2_654_435_761) >> (t % 13)) as u8).wrapping_add(t as u8)
                    % 14;
            }
            let tiles = tiles_by_number(&map);
            for number in 0..=12u8 {
                let naive = (0..TILE_COUNT)
                    .filter(|&t| map.numbers[t] == number)
                    .fold(0u32, |m, t| m | 1 << t);
                assert_eq!(
                    tiles[usize::from(number)],
                    naive,
                    "{:?} {number}",
                    map.numbers
                );
            }
        }
    }
}
