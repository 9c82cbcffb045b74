//! The game: the one validated, complete state, and the entry point `apply`.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::board::{EdgeMask, Map, TileId, VertexId, VertexMask, topology};
use crate::dev_card::{DevCard, DevCards};
use crate::error::ActionError;
use crate::event::Event;
use crate::options::MapKind;
use crate::options::{GameOptions, OptionsError};
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::{Actor, MAX_SEATS, Seat};
use crate::trade::TradeOffer;

mod points;
#[cfg(test)]
use points::building_points;
pub(crate) use points::{SeatBuildings, public_vp, total_vp};

/// Cards of each resource in the bank at the start.
pub const BANK_PER_RESOURCE: u8 = 19;
/// Roads per player.
pub const ROADS_PER_PLAYER: u8 = 15;
/// Settlements per player.
pub const SETTLEMENTS_PER_PLAYER: u8 = 5;
/// Cities per player.
pub const CITIES_PER_PLAYER: u8 = 4;

/// What one seat owns. Private parts (`hand`, `dev_cards`) reach other seats only as
/// counts, through [`crate::GameView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Resource cards in hand.
    pub hand: Resources,
    /// Unplayed development cards, including those bought this turn and VP cards.
    pub dev_cards: DevCards,
    /// The part of `dev_cards` bought during the current turn (not playable, R-8.1).
    pub dev_cards_new: DevCards,
    /// Knights played so far, for Largest Army.
    pub knights_played: u8,
    /// Intersections holding this seat's settlements.
    pub settlements: VertexMask,
    /// Intersections holding this seat's cities.
    pub cities: VertexMask,
    /// Paths holding this seat's roads.
    pub roads: EdgeMask,
    /// This seat's longest route, kept current after every road or building.
    pub road_length: u8,
}

impl Player {
    /// A seat with nothing yet.
    pub(crate) fn new() -> Player {
        Player {
            hand: Resources::ZERO,
            dev_cards: DevCards::default(),
            dev_cards_new: DevCards::default(),
            knights_played: 0,
            settlements: 0,
            cities: 0,
            roads: 0,
            road_length: 0,
        }
    }

    /// Roads left in supply.
    #[must_use]
    pub fn roads_left(&self) -> u8 {
        ROADS_PER_PLAYER - u8::try_from(self.roads.count_ones()).unwrap_or(ROADS_PER_PLAYER)
    }

    /// Settlements left in supply; a city returns its settlement.
    #[must_use]
    pub fn settlements_left(&self) -> u8 {
        SETTLEMENTS_PER_PLAYER
            - u8::try_from(self.settlements.count_ones()).unwrap_or(SETTLEMENTS_PER_PLAYER)
    }

    /// Cities left in supply.
    #[must_use]
    pub fn cities_left(&self) -> u8 {
        CITIES_PER_PLAYER - u8::try_from(self.cities.count_ones()).unwrap_or(CITIES_PER_PLAYER)
    }

    /// Playable (not bought this turn) cards of kind `c`.
    #[must_use]
    pub fn playable(&self, c: DevCard) -> u8 {
        self.dev_cards.get(c) - self.dev_cards_new.get(c)
    }

    /// Intersections with any building of this seat.
    #[must_use]
    pub fn buildings(&self) -> VertexMask {
        self.settlements | self.cities
    }
}

/// A game of Catan. Only constructed through [`Game::new`] or the validating
/// [`Game::from_position`], and only changed through [`Game::apply`], so holding a
/// `Game` means holding a legal position. It serializes as its [`crate::Position`];
/// deserializing one checks every invariant of [`crate::invariants`] and refuses a
/// tampered game (see `saved.rs` for the formats read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// The options the game was created with.
    pub(crate) options: GameOptions,
    /// The seed; revealed only in the replay after the game (never in a view).
    pub(crate) seed: u64,
    /// The single source of randomness (R-2.4, dice, deck, steals, timeouts).
    pub(crate) rng: ChaCha8Rng,
    /// Terrain, numbers, harbors.
    pub(crate) map: Map,
    /// The tiles carrying each number, by number (`rules::tiles_by_number` of
    /// `map`, which never changes): a roll's tiles in one look-up.
    pub(crate) tiles_by_number: [u32; 13],
    /// The robber's tile.
    pub(crate) robber: TileId,
    /// One entry per seat, `options.players` long in effect.
    pub(crate) players: [Player; MAX_SEATS],
    /// What each seat's buildings give it, as [`SeatBuildings::of`] finds it: kept
    /// current wherever a building is placed ([`Game::place_settlement`],
    /// [`Game::place_city`]) and set wherever a game is made, so the win check and the
    /// trades read it instead of counting the buildings every time.
    pub(crate) buildings: [SeatBuildings; MAX_SEATS],
    /// The bank's resource cards.
    pub(crate) bank: Resources,
    /// The development deck, top card last. Never in a view.
    pub(crate) dev_deck: Vec<DevCard>,
    /// The current step.
    pub(crate) phase: Phase,
    /// Whose turn it is.
    pub(crate) current: Seat,
    /// Who placed first.
    pub(crate) first: Seat,
    /// Normal turns started so far (0 during setup).
    pub(crate) turn: u32,
    /// A development card was played this turn.
    pub(crate) dev_played: bool,
    /// The last dice.
    pub(crate) last_roll: Option<[u8; 2]>,
    /// Holder of Longest Road; `None`: nobody.
    pub(crate) longest_road: Option<Seat>,
    /// Holder of Largest Army; `None`: nobody.
    pub(crate) largest_army: Option<Seat>,
    /// Open player-trade offers, oldest first.
    pub(crate) offers: Vec<TradeOffer>,
    /// The id the next offer gets.
    pub(crate) next_offer: u32,
    /// Scripted dice, next roll first: rolls use these before the RNG, so a
    /// [`crate::Position`] or [`Game::script_dice`] can fix what comes up.
    pub(crate) dice: Vec<[u8; 2]>,
}

impl Game {
    /// Starts a game: the map, deck and first player come from `seed`.
    ///
    /// # Errors
    /// [`OptionsError`] if the options are out of range.
    pub fn new(options: GameOptions, seed: u64) -> Result<Game, OptionsError> {
        options.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let map = match options.map {
            MapKind::Random => Map::random(&mut rng),
            MapKind::Beginner => Map::beginner(),
        };
        let mut dev_deck = Vec::with_capacity(25);
        for c in DevCard::ALL {
            dev_deck.extend(std::iter::repeat_n(c, usize::from(c.deck_count())));
        }
        rand::seq::SliceRandom::shuffle(dev_deck.as_mut_slice(), &mut rng);
        let first = Seat(rand::Rng::random_range(&mut rng, 0..options.players));
        let robber = map.desert();
        Ok(Game {
            options,
            seed,
            rng,
            tiles_by_number: crate::rules::tiles_by_number(&map),
            map,
            robber,
            players: std::array::from_fn(|_| Player::new()),
            buildings: [SeatBuildings::default(); MAX_SEATS],
            bank: Resources::splat(BANK_PER_RESOURCE),
            dev_deck,
            phase: Phase::Setup {
                index: 0,
                settlement: None,
            },
            current: first,
            first,
            turn: 0,
            dev_played: false,
            last_roll: None,
            longest_road: None,
            largest_army: None,
            offers: Vec::new(),
            next_offer: 1,
            dice: Vec::new(),
        })
    }

    /// Applies `action` by `by` and returns the events, or refuses it.
    ///
    /// # Errors
    /// An [`ActionError`] saying why the action is not legal now; the game is then
    /// exactly as it was.
    pub fn apply(
        &mut self,
        by: impl Into<Actor>,
        action: Action,
    ) -> Result<Vec<Event>, ActionError> {
        let mut events = Vec::new();
        self.apply_into(by.into(), action, &mut events)?;
        Ok(events)
    }

    /// Like [`Game::apply`], but appends the events to `out` (no allocation once `out`
    /// has grown; the simulator uses this).
    ///
    /// # Errors
    /// As [`Game::apply`]; `out` is then unchanged too.
    #[inline]
    pub fn apply_into(
        &mut self,
        by: Actor,
        action: Action,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.apply_ref(by, &action, out)
    }

    /// [`Game::apply_into`] of an action the caller holds (a legal-action list's
    /// entry), read where it is rather than copied.
    pub(crate) fn apply_ref(
        &mut self,
        by: Actor,
        action: &Action,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let mark = out.len();
        let result = self.dispatch(by, action, out);
        if result.is_err() {
            out.truncate(mark);
        }
        result
    }

    /// Applies `action`, and the win check after the actions that can bring
    /// the current player to the points target: building, buying a card (a VP card),
    /// playing a Knight (Largest Army), ending the turn (the next player may already
    /// hold the points, R-10.4) and the time-out (which does any of these). The others
    /// change neither anyone's points nor whose turn it is, and a game in play never
    /// has its current player at the target (`invariants`, and `Game::from_position`
    /// ends such a position as won), so the check after them could find nothing: it is
    /// skipped, which the simulator measures (a third of the actions are rolls, a
    /// seventh maritime trades).
    fn dispatch(
        &mut self,
        by: Actor,
        action: &Action,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if matches!(self.phase, Phase::Over { .. }) {
            return Err(ActionError::GameOver);
        }
        let seat = match by {
            Actor::System => {
                return match *action {
                    Action::ExpireOffer { offer } => self.expire_offer(offer, out),
                    Action::TimeOut => {
                        let done = self.time_out(out);
                        self.check_win_after(done, out)
                    }
                    _ => Err(ActionError::NotForSystem),
                };
            }
            Actor::Seat(s) if s.0 < self.options.players => s,
            Actor::Seat(_) => return Err(ActionError::NoSuchSeat),
        };
        match *action {
            Action::BuildSettlement { vertex } => {
                let done = self.build_settlement(seat, vertex, out);
                self.check_win_after(done, out)
            }
            Action::BuildRoad { edge } => {
                let done = self.build_road(seat, edge, out);
                self.check_win_after(done, out)
            }
            Action::BuildCity { vertex } => {
                let done = self.build_city(seat, vertex, out);
                self.check_win_after(done, out)
            }
            Action::RollDice => self.roll_dice(seat, out),
            Action::Discard { cards } => self.discard(seat, cards, out),
            Action::MoveRobber { tile, victim } => self.move_robber(seat, tile, victim, out),
            Action::BuyDevCard => {
                let done = self.buy_dev_card(seat, out);
                self.check_win_after(done, out)
            }
            Action::PlayKnight => {
                let done = self.play_knight(seat, out);
                self.check_win_after(done, out)
            }
            Action::PlayRoadBuilding => self.play_road_building(seat, out),
            Action::PlayYearOfPlenty { take } => self.play_year_of_plenty(seat, take, out),
            Action::PlayMonopoly { resource } => self.play_monopoly(seat, resource, out),
            Action::MaritimeTrade { give, get } => self.maritime_trade(seat, give, get, out),
            Action::OfferTrade { to, give, get } => self.offer_trade(seat, to, give, get, out),
            Action::AcceptOffer { offer } => self.accept_offer(seat, offer, out),
            Action::RejectOffer { offer } => self.reject_offer(seat, offer, out),
            Action::CounterOffer { offer, give, get } => {
                self.counter_offer(seat, offer, give, get, out)
            }
            Action::WithdrawOffer { offer } => self.withdraw_offer(seat, offer, out),
            Action::ConfirmTrade { offer, with } => self.confirm_trade(seat, offer, with, out),
            Action::EndTurn => {
                let done = self.end_turn(seat, out);
                self.check_win_after(done, out)
            }
            Action::ExpireOffer { .. } | Action::TimeOut => Err(ActionError::SystemOnly),
        }
    }

    /// The win check after an action that was applied (`done` is `Ok`).
    #[inline]
    fn check_win_after(
        &mut self,
        done: Result<(), ActionError>,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if done.is_ok() {
            self.check_win(out);
        }
        done
    }

    /// Fails with `NotYourTurn` unless `seat` is the current player.
    pub(crate) fn require_turn(&self, seat: Seat) -> Result<(), ActionError> {
        if seat == self.current {
            Ok(())
        } else {
            Err(ActionError::NotYourTurn)
        }
    }

    /// Sets the phase and announces it.
    pub(crate) fn set_phase(&mut self, phase: Phase, out: &mut Vec<Event>) {
        self.phase = phase;
        out.push(Event::PhaseChanged { phase });
    }

    // ----- queries -------------------------------------------------------------

    /// The options.
    #[must_use]
    pub fn options(&self) -> &GameOptions {
        &self.options
    }
    /// The seed. Server-side only: never send it before the game is over.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The map.
    #[must_use]
    pub fn map(&self) -> &Map {
        &self.map
    }
    /// The current phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Whose turn it is (during setup: who places).
    #[must_use]
    pub fn current(&self) -> Seat {
        self.current
    }
    /// The seat that placed first.
    #[must_use]
    pub fn first(&self) -> Seat {
        self.first
    }
    /// Normal turns started so far.
    #[must_use]
    pub fn turn(&self) -> u32 {
        self.turn
    }
    /// The robber's tile.
    #[must_use]
    pub fn robber(&self) -> TileId {
        self.robber
    }
    /// The bank.
    #[must_use]
    pub fn bank(&self) -> Resources {
        self.bank
    }
    /// Cards left in the development deck.
    #[must_use]
    pub fn dev_deck_len(&self) -> usize {
        self.dev_deck.len()
    }
    /// A seat's full state (private parts included: server-side only).
    #[must_use]
    pub fn player(&self, seat: Seat) -> &Player {
        &self.players[seat.index()]
    }
    /// The seats in play.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + use<> {
        (0..self.options.players).map(Seat)
    }
    /// Open trade offers.
    #[must_use]
    pub fn offers(&self) -> &[TradeOffer] {
        &self.offers
    }
    /// Who holds Longest Road; `None`: nobody does.
    #[must_use]
    pub fn longest_road(&self) -> Option<Seat> {
        self.longest_road
    }
    /// Who holds Largest Army; `None`: nobody does.
    #[must_use]
    pub fn largest_army(&self) -> Option<Seat> {
        self.largest_army
    }
    /// A development card was played this turn.
    #[must_use]
    pub fn dev_card_played_this_turn(&self) -> bool {
        self.dev_played
    }
    /// The last dice rolled.
    #[must_use]
    pub fn last_roll(&self) -> Option<[u8; 2]> {
        self.last_roll
    }
    /// The scripted dice still to come, next roll first (server-side only, like the
    /// seed: never in a view).
    #[must_use]
    pub fn scripted_dice(&self) -> &[[u8; 2]] {
        &self.dice
    }
    /// The winner, once the game is over; `None` while it goes on and when it ended
    /// at the turn limit with no winner: ask [`Game::is_over`] whether it is.
    #[must_use]
    pub fn winner(&self) -> Option<Seat> {
        match self.phase {
            Phase::Over { winner } => winner,
            _ => None,
        }
    }

    /// Whether the game is over: won, or ended by the turn limit with no
    /// winner. Nothing is legal any more.
    #[must_use]
    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over { .. })
    }

    /// The owner of the building on `v`, and whether it is a city.
    #[must_use]
    pub fn building_at(&self, v: VertexId) -> Option<(Seat, bool)> {
        let bit = v.bit();
        if self.occupied_vertices() & bit == 0 {
            return None;
        }
        self.seats().find_map(|s| {
            let p = &self.players[s.index()];
            if p.settlements & bit != 0 {
                Some((s, false))
            } else if p.cities & bit != 0 {
                Some((s, true))
            } else {
                None
            }
        })
    }

    /// Every intersection with a building.
    #[must_use]
    pub fn occupied_vertices(&self) -> VertexMask {
        self.players
            .iter()
            .fold(0, |m, p| m | p.settlements | p.cities)
    }

    /// Every path with a road.
    #[must_use]
    pub fn occupied_edges(&self) -> EdgeMask {
        self.players.iter().fold(0, |m, p| m | p.roads)
    }

    /// Public victory points: buildings and awards, not VP cards.
    #[must_use]
    #[inline]
    pub fn public_vp(&self, seat: Seat) -> u8 {
        // The buildings' points as kept (`invariants` recounts them from the board).
        let vp = u32::from(self.buildings[seat.index()].points)
            + 2 * u32::from(self.longest_road == Some(seat))
            + 2 * u32::from(self.largest_army == Some(seat));
        u8::try_from(vp).unwrap_or(u8::MAX)
    }

    /// Total victory points, hidden VP cards included.
    #[must_use]
    #[inline]
    pub fn total_vp(&self, seat: Seat) -> u8 {
        total_vp(self.public_vp(seat), &self.players[seat.index()].dev_cards)
    }

    /// the current player wins as soon as their total reaches the target.
    #[inline]
    fn check_win(&mut self, out: &mut Vec<Event>) {
        if matches!(self.phase, Phase::Over { .. } | Phase::Setup { .. }) {
            return;
        }
        let points = self.total_vp(self.current);
        if points >= self.options.vp_target {
            self.win(points, out);
        }
    }

    /// The current player, with `points`, wins: open offers close, the game
    /// is over.
    #[cold]
    #[inline(never)]
    fn win(&mut self, points: u8, out: &mut Vec<Event>) {
        let winner = self.current;
        for o in self.offers.drain(..) {
            out.push(Event::OfferClosed {
                offer: o.id,
                reason: crate::trade::OfferClosed::GameOver,
            });
        }
        out.push(Event::GameWon {
            seat: winner,
            points,
        });
        self.set_phase(
            Phase::Over {
                winner: Some(winner),
            },
            out,
        );
    }

    /// The next seat in turn order.
    pub(crate) fn next_seat(&self, s: Seat) -> Seat {
        // A compare rather than `%`: a division is slow, and this runs every turn.
        let next = s.0 + 1;
        Seat(if next >= self.options.players {
            0
        } else {
            next
        })
    }

    /// Whether `seat` has a building on one of `tile`'s corners.
    #[cfg_attr(not(test), allow(dead_code, reason = "used by the rule scenarios"))]
    pub(crate) fn touches_tile(&self, seat: Seat, tile: TileId) -> bool {
        self.players[seat.index()].buildings() & topology().tile_vertex_mask[tile.index()] != 0
    }
}

#[cfg(test)]
mod tests;
