//! A position described from outside: public fields that may be nonsense, made into a
//! [`Game`] only through the validating [`Game::from_position`] (as shakmaty's
//! `Setup` becomes a `Chess` through `from_setup`).
//!
//! A puzzle, a board editor or a test writes what is on the table: the board, the
//! pieces as lists of ids, the hands, the cards, the phase, and optionally the dice to
//! come. What follows from that is computed, never asked for: the bank (19 of each
//! resource minus the hands, R-2.5), every route length (R-10.1), who holds Longest
//! Road and Largest Army (R-10.3), and whether the current player has already won
//! (R-10.4).
//!
//! ```
//! use catan_engine::board::topology;
//! use catan_engine::playout::RandomPlayer;
//! use catan_engine::{Action, Event, Game, GameOptions, Phase, Seat};
//!
//! // A game just past setup, as a position.
//! let mut game = Game::new(GameOptions::default(), 7).unwrap();
//! let mut player = RandomPlayer::new(7);
//! while game.turn() == 0 {
//!     player.step(&mut game, &mut Vec::new()).unwrap();
//! }
//! let mut p = game.to_position();
//! assert_eq!(p.phase, Phase::PreRoll);
//!
//! // Fix the next two rolls: a 7, then double six. Give the roller a Knight.
//! p.scripted_dice = vec![[3, 4], [6, 6]];
//! let knight = p.dev_deck.iter().position(|&c| c == catan_engine::DevCard::Knight);
//! p.dev_deck.remove(knight.unwrap());
//! *p.seats[p.current.index()].dev_cards.get_mut(catan_engine::DevCard::Knight) += 1;
//! let mut puzzle = Game::from_position(p.clone()).unwrap();
//! assert_eq!(Game::from_position(puzzle.to_position()).unwrap(), puzzle);
//! let seat = puzzle.current();
//! let events = puzzle.apply(seat, Action::RollDice).unwrap();
//! assert!(events.contains(&Event::DiceRolled { seat, dice: [3, 4] }));
//! assert_eq!(puzzle.scripted_dice(), &[[6, 6]]);
//!
//! // A broken rule is refused with a stable code and the rule's id.
//! let taken = p.seats[0].settlements[0];
//! p.seats[1].settlements.push(topology().vertex_neighbors[taken.index()][0]);
//! let err = Game::from_position(p).unwrap_err();
//! assert_eq!(err.code(), "distance_rule");
//! assert!(err.to_string().starts_with("R-5.3"), "{err}");
//! ```

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::board::{EDGE_COUNT, EdgeId, EdgeMask, Map, TileId, VERTEX_COUNT, VertexId, VertexMask};
use crate::decimal::text;
use crate::dev_card::{DevCard, DevCards};
use crate::game::{BANK_PER_RESOURCE, Game, Player, SeatBuildings};
use crate::options::GameOptions;
use crate::phase::Phase;
use crate::position_error::{Piece, PositionError};
use crate::resource::{Resource, Resources};
use crate::rules::{LARGEST_ARMY_MIN, LONGEST_ROAD_MIN, longest_route};
use crate::seat::{MAX_SEATS, Seat};
use crate::trade::TradeOffer;

/// Everything that decides a game, unvalidated: any field may be nonsense until
/// [`Game::from_position`] accepts it. [`Game::to_position`] gives it back, and a
/// serialized [`Game`] is exactly this shape, with no number above 2^53 (the seed and
/// the generator's position are decimal strings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Position {
    /// Players, target and map kind; must pass [`GameOptions::validate`].
    pub options: GameOptions,
    /// The seed of the game's random generator (R-2.4), which draws everything not
    /// scripted: dice, deck-free steals, time-outs. A decimal string in JSON (a number
    /// is read too).
    #[serde(with = "text")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::decimal::Decimal"))]
    pub seed: u64,
    /// How far the seed's generator has run, in 32-bit words: 0 for a fresh stream.
    /// A decimal string in JSON (a number is read too).
    #[serde(default, with = "text")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::decimal::Decimal"))]
    pub rng_word_pos: u128,
    /// Dice for the next rolls, next first (R-4.2, each die 1-6): rolls take these
    /// before drawing from the generator, which they leave untouched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scripted_dice: Vec<[u8; 2]>,
    /// Terrain, numbers and harbors (R-2.1..R-2.3; no adjacent 6/8 on any map).
    pub map: Map,
    /// The robber's tile (R-2.7).
    pub robber: TileId,
    /// One entry per seat in play, in seat order.
    pub seats: Vec<SeatPosition>,
    /// The development deck, top card (the next one bought) last (R-5.6).
    pub dev_deck: Vec<DevCard>,
    /// The step of the game.
    pub phase: Phase,
    /// Whose turn it is (during setup: who places).
    pub current: Seat,
    /// Who placed first (R-3.1); setup follows the snake order from here.
    pub first: Seat,
    /// Normal turns started so far (0 during setup). The game ends with no winner
    /// when turn `options.turn_limit` ends (R-10.5); a position past its limit (a
    /// game saved before the limit existed) ends when its current turn does.
    pub turn: u32,
    /// A development card was played this turn (R-8.1).
    #[serde(default)]
    pub dev_played: bool,
    /// The last dice rolled, if any.
    #[serde(default)]
    pub last_roll: Option<[u8; 2]>,
    /// Who holds Longest Road: [`Holder::Computed`] (`null`) lets the engine decide, a
    /// seat is named only to say which of several tied leaders kept it (R-10.3).
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(
            with = "Option<Seat>",
            description = "Who holds Longest Road. `None` lets the engine decide: a single longest route\nof at least 5 takes it, tied leaders leave it unheld. Name a seat only to say\nwhich of several tied leaders kept it (R-10.3); anyone else is refused."
        )
    )]
    pub longest_road: Holder,
    /// Who holds Largest Army, decided as `longest_road` with 3 played Knights.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Seat>"))]
    pub largest_army: Holder,
    /// Open player-trade offers, oldest first (R-9.3).
    #[serde(default)]
    pub offers: Vec<TradeOffer>,
    /// The id the next offer gets; above every open offer's.
    #[serde(default = "first_offer_id")]
    pub next_offer: u32,
}

/// What one seat holds in a [`Position`]: pieces as id lists, cards as counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SeatPosition {
    /// Resource cards in hand.
    #[serde(default)]
    pub hand: Resources,
    /// Unplayed development cards, those bought this turn and VP cards included.
    #[serde(default)]
    pub dev_cards: DevCards,
    /// The part of `dev_cards` bought this turn (not playable yet, R-8.1).
    #[serde(default)]
    pub dev_cards_new: DevCards,
    /// Knights played so far (R-8.2).
    #[serde(default)]
    pub knights_played: u8,
    /// Intersections with this seat's settlements.
    #[serde(default)]
    pub settlements: Vec<VertexId>,
    /// Intersections with this seat's cities.
    #[serde(default)]
    pub cities: Vec<VertexId>,
    /// Paths with this seat's roads.
    #[serde(default)]
    pub roads: Vec<EdgeId>,
}

/// Who holds an award (Longest Road or Largest Army) in a [`Position`]: worked out
/// by the engine, or named. A [`Game`] has no such choice: its
/// [`Game::longest_road`] and [`Game::largest_army`] are the holder, `None` for nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(from = "Option<Seat>", into = "Option<Seat>")]
pub enum Holder {
    /// The engine decides from the pieces (R-10.3): the one leader at the minimum (a
    /// route of 5, 3 played Knights) holds it; tied leaders, or nobody at the minimum,
    /// leave it unheld. Written `null`.
    #[default]
    Computed,
    /// This seat holds it: named only to say which of several tied leaders kept it
    /// (R-10.3); any other seat is refused. Written as the seat's number.
    Seat(Seat),
}

impl From<Option<Seat>> for Holder {
    fn from(seat: Option<Seat>) -> Holder {
        seat.map_or(Holder::Computed, Holder::Seat)
    }
}

impl From<Holder> for Option<Seat> {
    fn from(holder: Holder) -> Option<Seat> {
        match holder {
            Holder::Computed => None,
            Holder::Seat(seat) => Some(seat),
        }
    }
}

const fn first_offer_id() -> u32 {
    1
}

/// Outside this crate a position starts from [`Position::empty`] or
/// [`Game::to_position`] and has its fields set, and a seat's from
/// [`SeatPosition::default`], never from a struct literal (both are
/// `#[non_exhaustive]`): a field added later leaves such code unchanged.
impl Position {
    /// The empty position of a game with `options`: the beginner map (R-2.4; set `map`
    /// for another) with the robber on its desert (R-2.7), no piece on the board and no
    /// card in any hand, the whole development deck in [`DevCard::ALL`] order (R-5.6),
    /// and seat 0 to place the first settlement of setup (R-3.1); seed 0, no dice
    /// scripted. It is a legal game as it is; a puzzle, an editor or a test starts from
    /// it and sets what it needs.
    ///
    /// ```
    /// use catan_engine::{Game, GameOptions, Phase, Position, Seat};
    ///
    /// let mut p = Position::empty(GameOptions::default().with_players(3));
    /// assert_eq!(p.seats.len(), 3);
    /// p.current = Seat(2);
    /// p.first = Seat(2);
    /// let game = Game::from_position(p).unwrap();
    /// assert!(matches!(game.phase(), Phase::Setup { index: 0, .. }));
    /// assert_eq!(game.current(), Seat(2));
    /// ```
    #[must_use]
    pub fn empty(options: GameOptions) -> Position {
        let map = Map::beginner();
        let robber = map.desert();
        let dev_deck = DevCard::ALL
            .into_iter()
            .flat_map(|c| std::iter::repeat_n(c, usize::from(c.deck_count())))
            .collect();
        Position {
            options,
            seed: 0,
            rng_word_pos: 0,
            scripted_dice: Vec::new(),
            map,
            robber,
            seats: vec![SeatPosition::default(); usize::from(options.players)],
            dev_deck,
            phase: Phase::Setup {
                index: 0,
                settlement: None,
            },
            current: Seat(0),
            first: Seat(0),
            turn: 0,
            dev_played: false,
            last_roll: None,
            longest_road: Holder::Computed,
            largest_army: Holder::Computed,
            offers: Vec::new(),
            next_offer: first_offer_id(),
        }
    }
}

impl Game {
    /// Makes `position` a game, computing the bank, the routes, the award holders and
    /// the win (a current player at the target has won, R-10.4), then checking every
    /// rule through [`crate::invariants::check`].
    ///
    /// # Errors
    /// The first broken rule, as a [`PositionError`] whose message cites it.
    pub fn from_position(position: Position) -> Result<Game, PositionError> {
        let game = Game::from_position_unchecked(position)?;
        crate::invariants::check(&game)?;
        Ok(game)
    }

    /// [`Game::from_position`] without [`crate::invariants::check`]: the derived values
    /// are computed the same way. Only for rule scenarios, whose positions are often not
    /// reachable (an empty board after setup); never for positions from outside.
    pub(crate) fn from_position_unchecked(position: Position) -> Result<Game, PositionError> {
        let p = position;
        p.options.validate()?;
        if p.seats.len() != usize::from(p.options.players) {
            return Err(PositionError::SeatCount {
                players: p.options.players,
                found: p.seats.len(),
            });
        }
        let mut players: [Player; MAX_SEATS] = std::array::from_fn(|_| Player::new());
        for (i, s) in p.seats.iter().enumerate() {
            players[i] = seat_player(Seat(i as u8), s)?;
        }
        let bank = bank_after(&players)?;
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        rng.set_word_pos(p.rng_word_pos);
        let mut game = Game {
            options: p.options,
            seed: p.seed,
            rng,
            tiles_by_number: crate::rules::tiles_by_number(&p.map),
            buildings: SeatBuildings::of(&p.map, &players),
            map: p.map,
            robber: p.robber,
            players,
            bank,
            dev_deck: p.dev_deck,
            phase: p.phase,
            current: p.current,
            first: p.first,
            turn: p.turn,
            dev_played: p.dev_played,
            last_roll: p.last_roll,
            longest_road: None,
            largest_army: None,
            offers: p.offers,
            next_offer: p.next_offer,
            dice: p.scripted_dice,
        };
        game.derive(p.longest_road, p.largest_army);
        Ok(game)
    }

    /// The position this game is in: [`Game::from_position`] of it gives back an equal
    /// game (the generator's state included).
    #[must_use]
    pub fn to_position(&self) -> Position {
        let seats = self
            .seats()
            .map(|s| {
                let p = &self.players[s.index()];
                SeatPosition {
                    hand: p.hand,
                    dev_cards: p.dev_cards,
                    dev_cards_new: p.dev_cards_new,
                    knights_played: p.knights_played,
                    settlements: vertex_list(p.settlements),
                    cities: vertex_list(p.cities),
                    roads: edge_list(p.roads),
                }
            })
            .collect();
        Position {
            options: self.options,
            seed: self.seed,
            rng_word_pos: self.rng.get_word_pos(),
            scripted_dice: self.dice.clone(),
            map: self.map.clone(),
            robber: self.robber,
            seats,
            dev_deck: self.dev_deck.clone(),
            phase: self.phase,
            current: self.current,
            first: self.first,
            turn: self.turn,
            dev_played: self.dev_played,
            last_roll: self.last_roll,
            longest_road: self.longest_road.into(),
            largest_army: self.largest_army.into(),
            offers: self.offers.clone(),
            next_offer: self.next_offer,
        }
    }

    /// The computed parts of a position: route lengths (R-10.1), award holders
    /// (R-10.3, a named holder kept for the check to judge) and the win (R-10.4).
    fn derive(&mut self, longest_road: Holder, largest_army: Holder) {
        let occupied = self.occupied_vertices();
        let n = usize::from(self.options.players);
        for p in &mut self.players[..n] {
            // Off-board pieces were refused already; a robber off the board is refused
            // by the check, and routes do not depend on it.
            p.road_length = longest_route(p.roads, occupied & !p.buildings());
        }
        let lengths: Vec<u8> = self.players[..n].iter().map(|p| p.road_length).collect();
        let knights: Vec<u8> = self.players[..n].iter().map(|p| p.knights_played).collect();
        self.longest_road = match longest_road {
            Holder::Computed => sole_leader(&lengths, LONGEST_ROAD_MIN),
            Holder::Seat(seat) => Some(seat),
        };
        self.largest_army = match largest_army {
            Holder::Computed => sole_leader(&knights, LARGEST_ARMY_MIN),
            Holder::Seat(seat) => Some(seat),
        };
        let playing = !matches!(self.phase, Phase::Setup { .. } | Phase::Over { .. });
        if playing
            && self.current.0 < self.options.players
            && self.total_vp(self.current) >= self.options.vp_target
        {
            self.phase = Phase::Over {
                winner: Some(self.current),
            };
            self.offers.clear();
        }
    }
}

/// The one seat with the highest value, if it reaches `min` and nobody ties it.
fn sole_leader(values: &[u8], min: u8) -> Option<Seat> {
    let max = values.iter().copied().max()?;
    let mut leaders = (0..values.len()).filter(|&s| values[s] == max);
    match (leaders.next(), leaders.next()) {
        (Some(s), None) if max >= min => Some(Seat(s as u8)),
        _ => None,
    }
}

/// A seat's pieces as masks; ids off the board or listed twice are refused.
fn seat_player(seat: Seat, s: &SeatPosition) -> Result<Player, PositionError> {
    let mut settlements: VertexMask = 0;
    let mut cities: VertexMask = 0;
    for (piece, list, mask) in [
        (Piece::Settlement, &s.settlements, &mut settlements),
        (Piece::City, &s.cities, &mut cities),
    ] {
        for &v in list {
            if v.index() >= VERTEX_COUNT {
                return Err(PositionError::PieceOffBoard { seat, piece });
            }
            if *mask & v.bit() != 0 {
                return Err(PositionError::SharedIntersection(v));
            }
            *mask |= v.bit();
        }
    }
    let mut roads: EdgeMask = 0;
    for &e in &s.roads {
        if e.index() >= EDGE_COUNT {
            return Err(PositionError::PieceOffBoard {
                seat,
                piece: Piece::Road,
            });
        }
        if roads & e.bit() != 0 {
            return Err(PositionError::SharedPath(e));
        }
        roads |= e.bit();
    }
    Ok(Player {
        hand: s.hand,
        dev_cards: s.dev_cards,
        dev_cards_new: s.dev_cards_new,
        knights_played: s.knights_played,
        settlements,
        cities,
        roads,
        road_length: 0,
    })
}

/// R-2.5: the bank holds what the hands do not.
fn bank_after(players: &[Player]) -> Result<Resources, PositionError> {
    let mut bank = Resources::ZERO;
    for resource in Resource::ALL {
        let held: u32 = players
            .iter()
            .map(|p| u32::from(p.hand.get(resource)))
            .sum();
        let left = u32::from(BANK_PER_RESOURCE)
            .checked_sub(held)
            .ok_or(PositionError::BankNegative { resource, held })?;
        *bank.get_mut(resource) = left as u8;
    }
    Ok(bank)
}

/// The intersections of `mask`, lowest first.
fn vertex_list(mask: VertexMask) -> Vec<VertexId> {
    (0..VERTEX_COUNT as u8)
        .map(VertexId)
        .filter(|v| mask & v.bit() != 0)
        .collect()
}

/// The paths of `mask`, lowest first.
fn edge_list(mask: EdgeMask) -> Vec<EdgeId> {
    (0..EDGE_COUNT as u8)
        .map(EdgeId)
        .filter(|e| mask & e.bit() != 0)
        .collect()
}
