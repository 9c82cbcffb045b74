//! Statistics of a game, for the end of it: points by source, the dice rolled, and the
//! resource cards each seat gained and lost by source. Computed once, here, from the
//! game's unredacted events ([`Tally::record`]) and its final state
//! ([`Tally::stats`]), so that every client shows the same numbers and none derives
//! them. Everything here is public once the game is over (the seed is revealed then);
//! during a game the tally holds hidden information (the card of each steal) and is
//! never shown.

use serde::{Deserialize, Serialize};

use crate::dev_card::DevCard;
use crate::event::Event;
use crate::game::Game;
use crate::seat::{MAX_SEATS, Seat};

/// Every seat's points by where they come from: the parts sum to `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PointsBySource {
    /// The seat.
    pub seat: Seat,
    /// One point per settlement on the board.
    pub settlements: u8,
    /// Two points per city on the board.
    pub cities: u8,
    /// One point per Victory Point card held.
    pub vp_cards: u8,
    /// Two points for holding the Longest Road card, else 0.
    pub longest_road: u8,
    /// Two points for holding the Largest Army card, else 0.
    pub largest_army: u8,
    /// The total, VP cards included.
    pub total: u8,
}

/// Resource cards a seat received, by source (card counts over the whole game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Gained {
    /// From the second setup settlement.
    pub setup: u32,
    /// From rolls.
    pub production: u32,
    /// From other players in trades.
    pub trades: u32,
    /// From the bank in maritime trades.
    pub maritime: u32,
    /// Stolen with the robber.
    pub stolen: u32,
    /// Taken with Year of Plenty.
    pub year_of_plenty: u32,
    /// Collected with Monopoly.
    pub monopoly: u32,
}

impl Gained {
    /// All cards received.
    #[must_use]
    pub const fn total(&self) -> u32 {
        self.setup
            + self.production
            + self.trades
            + self.maritime
            + self.stolen
            + self.year_of_plenty
            + self.monopoly
    }
}

/// Resource cards a seat gave up, by cause (card counts over the whole game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Lost {
    /// Paid for roads, settlements, cities and development cards.
    pub spent: u32,
    /// Returned after a 7.
    pub discarded: u32,
    /// Stolen by the robber's mover.
    pub stolen: u32,
    /// Handed over to another seat's Monopoly.
    pub monopoly: u32,
    /// Given to other players in trades.
    pub trades: u32,
    /// Given to the bank in maritime trades.
    pub maritime: u32,
}

impl Lost {
    /// All cards given up.
    #[must_use]
    pub const fn total(&self) -> u32 {
        self.spent + self.discarded + self.stolen + self.monopoly + self.trades + self.maritime
    }
}

/// One seat's resource flow: `gained.total() - lost.total()` is the seat's hand at
/// the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResourceFlow {
    /// The seat.
    pub seat: Seat,
    /// Cards received, by source.
    pub gained: Gained,
    /// Cards given up, by cause.
    pub lost: Lost,
}

/// The statistics of a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameStats {
    /// Per seat, in seat order: points by source.
    pub points: Vec<PointsBySource>,
    /// How often each total was rolled: index 0 is a total of 2, index 10 a 12
    /// 11 numbers.
    pub dice: Vec<u32>,
    /// Per seat, in seat order: resource cards gained and lost.
    pub resources: Vec<ResourceFlow>,
}

/// The running count behind [`GameStats`]: fed every event of a game, unredacted, in
/// order (the steals' cards are hidden information until the end).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rolls per total, 2..=12 at 0..=10.
    dice: [u32; 11],
    /// Per seat.
    flows: [Flow; MAX_SEATS],
}

/// One seat's counts in a [`Tally`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flow {
    gained: Gained,
    lost: Lost,
}

impl Tally {
    /// Counts the events of one action.
    pub fn record(&mut self, events: &[Event]) {
        for e in events {
            self.record_one(e);
        }
    }

    fn flow(&mut self, seat: Seat) -> &mut Flow {
        &mut self.flows[seat.index() % MAX_SEATS]
    }

    fn record_one(&mut self, e: &Event) {
        match *e {
            Event::DiceRolled { dice, .. } => {
                let total = usize::from(dice[0] + dice[1]);
                if let Some(n) = total.checked_sub(2).and_then(|i| self.dice.get_mut(i)) {
                    *n += 1;
                }
            }
            Event::StartingResources { seat, cards } => {
                self.flow(seat).gained.setup += cards.total()
            }
            Event::Produced { seat, cards } => self.flow(seat).gained.production += cards.total(),
            Event::YearOfPlenty { seat, cards } => {
                self.flow(seat).gained.year_of_plenty += cards.total();
            }
            Event::Paid { seat, cards } => self.flow(seat).lost.spent += cards.total(),
            Event::Discarded { seat, cards } => self.flow(seat).lost.discarded += cards.total(),
            Event::Stolen { thief, victim, .. } => {
                self.flow(thief).gained.stolen += 1;
                self.flow(victim).lost.stolen += 1;
            }
            Event::Monopoly { seat, taken, .. } => {
                let mut got = 0;
                for (i, n) in taken.iter().enumerate() {
                    self.flows[i].lost.monopoly += u32::from(*n);
                    got += u32::from(*n);
                }
                self.flow(seat).gained.monopoly += got;
            }
            Event::MaritimeTraded { seat, gave, got } => {
                let f = self.flow(seat);
                f.lost.maritime += gave.total();
                f.gained.maritime += got.total();
            }
            Event::TradeCompleted {
                from,
                to,
                gave,
                got,
                ..
            } => {
                let f = self.flow(from);
                f.lost.trades += gave.total();
                f.gained.trades += got.total();
                let t = self.flow(to);
                t.lost.trades += got.total();
                t.gained.trades += gave.total();
            }
            _ => {}
        }
    }

    /// The statistics of `game`, whose events this tally recorded: points by source
    /// from its state, dice and resources from the events.
    #[must_use]
    pub fn stats(&self, game: &Game) -> GameStats {
        let points = game
            .seats()
            .map(|s| {
                let p = game.player(s);
                let count = |m: u64| u8::try_from(m.count_ones()).unwrap_or(u8::MAX);
                let award = |holder: Option<Seat>| if holder == Some(s) { 2 } else { 0 };
                PointsBySource {
                    seat: s,
                    settlements: count(p.settlements),
                    cities: 2 * count(p.cities),
                    vp_cards: p.dev_cards.get(DevCard::VictoryPoint),
                    longest_road: award(game.longest_road()),
                    largest_army: award(game.largest_army()),
                    total: game.total_vp(s),
                }
            })
            .collect();
        let resources = game
            .seats()
            .map(|s| ResourceFlow {
                seat: s,
                gained: self.flows[s.index()].gained,
                lost: self.flows[s.index()].lost,
            })
            .collect();
        GameStats {
            points,
            dice: self.dice.to_vec(),
            resources,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::RandomPlayer;
    use crate::{GameOptions, Resource, Resources};

    /// A whole game played by random players, its events tallied action by action.
    fn played(seed: u64, players: u8) -> (Game, Tally, u32) {
        let options = GameOptions {
            players,
            ..GameOptions::default()
        };
        let mut game = Game::new(options, seed).unwrap();
        let mut tally = Tally::default();
        let mut player = RandomPlayer::new(seed ^ 0x5eed);
        let mut events = Vec::new();
        let mut rolls = 0;
        while !game.is_over() {
            events.clear();
            player.step(&mut game, &mut events).unwrap();
            rolls += u32::try_from(
                events
                    .iter()
                    .filter(|e| matches!(e, Event::DiceRolled { .. }))
                    .count(),
            )
            .unwrap();
            tally.record(&events);
        }
        (game, tally, rolls)
    }

    #[test]
    fn gains_less_losses_are_each_final_hand_and_points_add_up_to_the_total() {
        for (seed, players) in [(1, 4), (7, 3), (42, 4), (2026, 3)] {
            let (game, tally, rolls) = played(seed, players);
            let stats = tally.stats(&game);
            assert_eq!(stats.points.len(), usize::from(players));
            assert_eq!(stats.resources.len(), usize::from(players));
            assert_eq!(stats.dice.len(), 11);
            // Every roll counted once.
            assert_eq!(stats.dice.iter().sum::<u32>(), rolls, "seed {seed}");
            for (p, r) in stats.points.iter().zip(&stats.resources) {
                let s = p.seat;
                assert_eq!(r.seat, s);
                // buildings, awards and VP cards make the total.
                assert_eq!(
                    p.settlements + p.cities + p.vp_cards + p.longest_road + p.largest_army,
                    p.total,
                    "seed {seed} seat {}",
                    s.0
                );
                assert_eq!(p.total, game.total_vp(s));
                // Nothing appears or vanishes: the flow ends in the final hand.
                assert_eq!(
                    r.gained.total() - r.lost.total(),
                    game.player(s).hand.total(),
                    "seed {seed} seat {}",
                    s.0
                );
            }
            // The winner's points are the ones it won with.
            if let Some(w) = game.winner() {
                assert!(stats.points[w.index()].total >= game.options().vp_target);
            }
            // Cards move between seats: what one gains in a steal another loses.
            let stolen_in: u32 = stats.resources.iter().map(|r| r.gained.stolen).sum();
            let stolen_out: u32 = stats.resources.iter().map(|r| r.lost.stolen).sum();
            assert_eq!(stolen_in, stolen_out);
            assert!(stats.resources.iter().all(|r| r.gained.production > 0));
        }
    }

    #[test]
    fn trades_and_monopoly_count_for_both_sides() {
        let (a, b, c) = (Seat(0), Seat(1), Seat(2));
        let mut tally = Tally::default();
        tally.record(&[
            // a gives 2 lumber for 1 ore.
            Event::TradeCompleted {
                offer: crate::OfferId(1),
                from: a,
                to: b,
                gave: Resources::single(Resource::Lumber, 2),
                got: Resources::single(Resource::Ore, 1),
            },
            // c collects 1 wool from a and 3 from b.
            Event::Monopoly {
                seat: c,
                resource: Resource::Wool,
                taken: [1, 3, 0, 0],
            },
            Event::MaritimeTraded {
                seat: c,
                gave: Resources::single(Resource::Wool, 4),
                got: Resources::single(Resource::Grain, 1),
            },
            Event::DiceRolled {
                seat: a,
                dice: [6, 6],
            },
            Event::DiceRolled {
                seat: b,
                dice: [1, 1],
            },
        ]);
        let game = Game::new(GameOptions::default(), 3).unwrap();
        let stats = tally.stats(&game);
        let r = &stats.resources;
        assert_eq!((r[0].lost.trades, r[0].gained.trades), (2, 1));
        assert_eq!((r[1].lost.trades, r[1].gained.trades), (1, 2));
        assert_eq!((r[0].lost.monopoly, r[1].lost.monopoly), (1, 3));
        assert_eq!(r[2].gained.monopoly, 4);
        assert_eq!((r[2].lost.maritime, r[2].gained.maritime), (4, 1));
        assert_eq!(stats.dice[0], 1);
        assert_eq!(stats.dice[10], 1);
        assert_eq!(stats.dice.iter().sum::<u32>(), 2);
    }
}
