//! Per-seat views: everything a seat (or a spectator) may see, and nothing more.
//!
//! The seed, the deck order and the RNG state are never part of a view; opponents'
//! hands and development cards appear only as counts. A view can then follow the
//! game from the viewer's redacted events (`follow`) and answer rule questions with
//! the engine's own rules (`query`).

mod follow;
mod query;

use serde::{Deserialize, Serialize};

use crate::board::{EdgeId, Map, TileId, VertexId};
use crate::dev_card::{DevCard, DevCards};
use crate::game::Game;
use crate::options::GameOptions;
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::Seat;
use crate::trade::TradeOffer;

/// A building on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BuildingView {
    /// Where.
    pub vertex: VertexId,
    /// Owner.
    pub seat: Seat,
    /// A city (else a settlement).
    pub city: bool,
}

/// A road on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RoadView {
    /// Where.
    pub edge: EdgeId,
    /// Owner.
    pub seat: Seat,
}

/// What everyone knows about a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlayerView {
    /// The seat.
    pub seat: Seat,
    /// Number of resource cards in hand.
    pub resource_cards: u32,
    /// Number of unplayed development cards.
    pub dev_cards: u32,
    /// Knights played.
    pub knights_played: u8,
    /// Public victory points (no VP cards, R-1.3).
    pub public_vp: u8,
    /// Longest route.
    pub road_length: u8,
    /// Roads left in supply.
    pub roads_left: u8,
    /// Settlements left in supply.
    pub settlements_left: u8,
    /// Cities left in supply.
    pub cities_left: u8,
}

/// What only the viewing seat knows about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PrivateView {
    /// The viewer's seat.
    pub seat: Seat,
    /// Resource cards in hand.
    pub hand: Resources,
    /// Unplayed development cards, VP cards included.
    pub dev_cards: DevCards,
    /// The part of `dev_cards` bought this turn (not playable yet, R-8.1).
    pub dev_cards_new: DevCards,
    /// Total victory points including hidden VP cards.
    pub total_vp: u8,
    /// Maritime ratio per resource in resource order (4, 3 or 2; ).
    pub maritime_ratios: [u8; 5],
}

/// A game as one seat, or a spectator, sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameView {
    /// Whose view this is; `None` for a spectator.
    pub viewer: Option<Seat>,
    /// The game's options.
    pub options: GameOptions,
    /// Terrain, numbers, harbors.
    pub map: Map,
    /// The robber's tile.
    pub robber: TileId,
    /// Current phase.
    pub phase: Phase,
    /// Whose turn it is.
    pub current: Seat,
    /// Normal turns started (0 in setup).
    pub turn: u32,
    /// The last dice.
    pub last_roll: Option<[u8; 2]>,
    /// The bank's resource cards.
    pub bank: Resources,
    /// Cards left in the development deck (the order is secret).
    pub dev_deck: u8,
    /// Every building.
    pub buildings: Vec<BuildingView>,
    /// Every road.
    pub roads: Vec<RoadView>,
    /// Public facts about every seat.
    pub players: Vec<PlayerView>,
    /// Longest Road holder.
    pub longest_road: Option<Seat>,
    /// Largest Army holder.
    pub largest_army: Option<Seat>,
    /// Whether the current player already played a development card this turn.
    pub dev_card_played: bool,
    /// Open trade offers.
    pub offers: Vec<TradeOffer>,
    /// The viewer's private facts; `None` for spectators.
    pub me: Option<PrivateView>,
    /// The winner, once the game is over; `None` also when the turn limit ended it
    /// with no winner: the phase says whether it is over.
    pub winner: Option<Seat>,
}

impl GameView {
    /// Whether the game is over, won or ended by the turn limit.
    #[must_use]
    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over { .. })
    }
}

/// A seat's final result, with VP cards revealed (end of game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FinalScore {
    /// The seat.
    pub seat: Seat,
    /// Total victory points, VP cards included.
    pub points: u8,
    /// Victory Point cards held, now revealed.
    pub vp_cards: u8,
}

impl Game {
    /// The game as `viewer` may see it; `None` is a spectator (public view only).
    #[must_use]
    pub fn view(&self, viewer: Option<Seat>) -> GameView {
        let viewer = viewer.filter(|s| s.0 < self.options.players);
        let mut buildings = Vec::new();
        for s in self.seats() {
            let p = &self.players[s.index()];
            for (mask, city) in [(p.settlements, false), (p.cities, true)] {
                let mut m = mask;
                while m != 0 {
                    let v = m.trailing_zeros() as u8;
                    m &= m - 1;
                    buildings.push(BuildingView {
                        vertex: VertexId(v),
                        seat: s,
                        city,
                    });
                }
            }
        }
        buildings.sort_by_key(|b| b.vertex);
        let mut roads = Vec::new();
        for s in self.seats() {
            let mut m = self.players[s.index()].roads;
            while m != 0 {
                let e = m.trailing_zeros() as u8;
                m &= m - 1;
                roads.push(RoadView {
                    edge: EdgeId(e),
                    seat: s,
                });
            }
        }
        roads.sort_by_key(|r| r.edge);
        let players = self
            .seats()
            .map(|s| {
                let p = &self.players[s.index()];
                PlayerView {
                    seat: s,
                    resource_cards: p.hand.total(),
                    dev_cards: p.dev_cards.total(),
                    knights_played: p.knights_played,
                    public_vp: self.public_vp(s),
                    road_length: p.road_length,
                    roads_left: p.roads_left(),
                    settlements_left: p.settlements_left(),
                    cities_left: p.cities_left(),
                }
            })
            .collect();
        let me = viewer.map(|s| {
            let p = &self.players[s.index()];
            PrivateView {
                seat: s,
                hand: p.hand,
                dev_cards: p.dev_cards,
                dev_cards_new: p.dev_cards_new,
                total_vp: self.total_vp(s),
                maritime_ratios: self.maritime_ratios(s),
            }
        });
        GameView {
            viewer,
            options: self.options,
            map: self.map.clone(),
            robber: self.robber,
            phase: self.phase,
            current: self.current,
            turn: self.turn,
            last_roll: self.last_roll,
            bank: self.bank,
            dev_deck: u8::try_from(self.dev_deck.len()).unwrap_or(u8::MAX),
            buildings,
            roads,
            players,
            longest_road: self.longest_road,
            largest_army: self.largest_army,
            dev_card_played: self.dev_played,
            offers: self.offers.clone(),
            me,
            winner: self.winner(),
        }
    }

    /// Every seat's total with VP cards revealed; meant for the end of the game.
    #[must_use]
    pub fn final_scores(&self) -> Vec<FinalScore> {
        self.seats()
            .map(|s| FinalScore {
                seat: s,
                points: self.total_vp(s),
                vp_cards: self.players[s.index()].dev_cards.get(DevCard::VictoryPoint),
            })
            .collect()
    }
}
