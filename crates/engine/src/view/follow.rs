//! Following a game from events: a [`GameView`] that applies, in order, the events its
//! viewer receives (each [`Event::redact_for`] the viewer) stays equal to
//! `game.view(viewer)`. Clients keep one snapshot up to date this way without knowing
//! any rule: what the events state is copied, what follows from it (points, route
//! lengths, pieces left, maritime ratios, setup order) is recomputed by the same
//! functions the game uses.

use crate::board::{EdgeId, VertexId};
use crate::dev_card::DevCard;
use crate::event::Event;
use crate::game::{Player, public_vp, total_vp};
use crate::phase::Phase;
use crate::resource::{Resource, Resources};
use crate::rules;
use crate::seat::{MAX_SEATS, Seat};
use crate::trade::{OfferId, TradeOffer};
use crate::view::{BuildingView, GameView, RoadView};

impl GameView {
    /// Applies one event, as this view's viewer received it, so that a view taken
    /// from `game.view(viewer)` and fed every later event of the game, redacted with
    /// `event.redact_for(viewer)`, equals `game.view(viewer)` after each action.
    ///
    /// Events out of order, missing or from another game leave a meaningless view
    /// (never a panic in release builds); take a fresh snapshot then.
    ///
    /// ```
    /// use catan_engine::{Actor, Game, GameOptions, Seat};
    ///
    /// let mut game = Game::new(GameOptions::default(), 7).unwrap();
    /// let me = Some(Seat(2));
    /// let mut view = game.view(me); // the snapshot a client gets on joining
    /// for _ in 0..20 {
    ///     let events = game.apply(Actor::System, catan_engine::Action::TimeOut).unwrap();
    ///     for e in &events {
    ///         view.apply(&e.redact_for(me)); // what the server sends this seat
    ///     }
    ///     assert_eq!(view, game.view(me));
    /// }
    /// ```
    pub fn apply(&mut self, event: &Event) {
        match *event {
            Event::TurnStarted { seat, turn } => self.turn_started(seat, turn),
            Event::PhaseChanged { phase } => self.phase_changed(phase),
            Event::SettlementBuilt { seat, vertex } => self.built(seat, vertex, false),
            Event::CityBuilt { seat, vertex } => self.built(seat, vertex, true),
            Event::RoadBuilt { seat, edge } => self.road_built(seat, edge),
            Event::Paid { seat, cards } | Event::Discarded { seat, cards } => {
                self.pay_bank(seat, &cards);
            }
            Event::StartingResources { seat, cards }
            | Event::Produced { seat, cards }
            | Event::YearOfPlenty { seat, cards } => self.draw_bank(seat, &cards),
            Event::DiceRolled { dice, .. } => self.last_roll = Some(dice),
            Event::Shortage { .. } | Event::TimedOut { .. } => {}
            Event::RobberMoved { tile, .. } => self.robber = tile,
            Event::Stolen {
                thief,
                victim,
                resource,
            } => self.stolen(thief, victim, resource),
            Event::DevCardBought { seat, card } => self.dev_card_bought(seat, card),
            Event::DevCardPlayed { seat, card } => self.dev_card_played(seat, card),
            Event::Monopoly {
                seat,
                resource,
                taken,
            } => self.monopoly(seat, resource, &taken),
            Event::MaritimeTraded { seat, gave, got } => {
                self.pay_bank(seat, &gave);
                self.draw_bank(seat, &got);
            }
            Event::OfferMade { offer } => self.offers.push(offer),
            Event::OfferAccepted { offer, seat } => self.answer(offer, |o| o.accept(seat)),
            Event::OfferRejected { offer, seat } => self.answer(offer, |o| o.reject(seat)),
            Event::OfferClosed { offer, .. } => self.offers.retain(|o| o.id != offer),
            Event::TradeCompleted {
                from,
                to,
                gave,
                got,
                ..
            } => {
                self.hand_to_hand(from, to, &gave);
                self.hand_to_hand(to, from, &got);
            }
            Event::LongestRoad { holder, .. } => {
                self.longest_road = holder;
                self.refresh_points();
            }
            Event::LargestArmy { holder, .. } => {
                self.largest_army = holder;
                self.refresh_points();
            }
            Event::GameWon { seat, .. } => self.winner = Some(seat),
            // R-10.5: the `over` phase (no winner) follows; nothing else changes.
            Event::TurnLimitReached { .. } => {}
        }
    }

    /// [`GameView::apply`] to each event in order.
    pub fn apply_events(&mut self, events: &[Event]) {
        for e in events {
            self.apply(e);
        }
    }

    /// Whether the viewer is `seat`.
    fn is_me(&self, seat: Seat) -> bool {
        self.me.is_some_and(|m| m.seat == seat)
    }

    /// R-4.4: the seat that ended its turn may play the cards it bought (R-8.1).
    fn turn_started(&mut self, seat: Seat, turn: u32) {
        if self.is_me(self.current)
            && let Some(me) = &mut self.me
        {
            me.dev_cards_new = crate::dev_card::DevCards::default();
        }
        self.dev_card_played = false;
        self.current = seat;
        self.turn = turn;
    }

    /// The new phase; a new setup placement also names the seat that makes it, in
    /// the snake order of R-3.2 ([`rules::setup_seat`]).
    fn phase_changed(&mut self, phase: Phase) {
        if let Phase::Setup {
            index,
            settlement: None,
        } = phase
            && let Some(done) = index.checked_sub(1)
        {
            let players = self.options.players;
            // The seat of placement `done` fixes the first player, hence the next seat.
            if let Some(first) = (0..players)
                .map(Seat)
                .find(|&f| rules::setup_seat(f, players, done) == self.current)
            {
                self.current = rules::setup_seat(first, players, index);
            }
        }
        self.phase = phase;
        self.winner = match phase {
            Phase::Over { winner } => winner,
            _ => None,
        };
    }

    /// A settlement placed, or one turned into a city (R-5.5).
    fn built(&mut self, seat: Seat, vertex: VertexId, city: bool) {
        let b = BuildingView { vertex, seat, city };
        match self.buildings.binary_search_by_key(&vertex, |b| b.vertex) {
            Ok(i) => self.buildings[i] = b,
            Err(i) => self.buildings.insert(i, b),
        }
        self.refresh_pieces();
    }

    /// A road placed.
    fn road_built(&mut self, seat: Seat, edge: EdgeId) {
        let r = RoadView { edge, seat };
        if let Err(i) = self.roads.binary_search_by_key(&edge, |r| r.edge) {
            self.roads.insert(i, r);
        }
        self.refresh_pieces();
    }

    /// `seat` hands `cards` to the bank.
    fn pay_bank(&mut self, seat: Seat, cards: &Resources) {
        self.take_cards(seat, cards);
        self.bank.add(cards);
    }

    /// The bank hands `cards` to `seat`.
    fn draw_bank(&mut self, seat: Seat, cards: &Resources) {
        take(&mut self.bank, cards);
        self.give_cards(seat, cards);
    }

    /// `cards` move from `from`'s hand to `to`'s.
    fn hand_to_hand(&mut self, from: Seat, to: Seat, cards: &Resources) {
        self.take_cards(from, cards);
        self.give_cards(to, cards);
    }

    /// R-7.3: one card moves; which one only thief and victim learn.
    fn stolen(&mut self, thief: Seat, victim: Seat, resource: Option<Resource>) {
        let cards = resource.map_or(Resources::ZERO, |r| Resources::single(r, 1));
        self.hand_to_hand(victim, thief, &cards);
        if resource.is_none() {
            self.count(victim, |n| n.saturating_sub(1));
            self.count(thief, |n| n + 1);
        }
    }

    /// R-8.5: every opponent's cards of `resource` go to `seat`.
    fn monopoly(&mut self, seat: Seat, resource: Resource, taken: &[u8; MAX_SEATS]) {
        for s in (0..self.options.players).map(Seat) {
            if s != seat {
                self.hand_to_hand(s, seat, &Resources::single(resource, taken[s.index()]));
            }
        }
    }

    /// R-5.6: the buyer alone learns the card.
    fn dev_card_bought(&mut self, seat: Seat, card: Option<DevCard>) {
        self.dev_deck = self.dev_deck.saturating_sub(1);
        if let Some(p) = self.players.get_mut(seat.index()) {
            p.dev_cards += 1;
        }
        if let (Some(me), Some(c)) = (self.me.as_mut().filter(|m| m.seat == seat), card) {
            *me.dev_cards.get_mut(c) += 1;
            *me.dev_cards_new.get_mut(c) += 1;
        }
        self.refresh_points();
    }

    /// R-8.1: one card per turn; a Knight counts toward Largest Army (R-8.2).
    fn dev_card_played(&mut self, seat: Seat, card: DevCard) {
        self.dev_card_played = true;
        if let Some(p) = self.players.get_mut(seat.index()) {
            p.dev_cards = p.dev_cards.saturating_sub(1);
            if card == DevCard::Knight {
                p.knights_played += 1;
            }
        }
        if let Some(me) = self.me.as_mut().filter(|m| m.seat == seat) {
            let n = me.dev_cards.get_mut(card);
            *n = n.saturating_sub(1);
        }
    }

    /// Records an answer to an offer.
    fn answer(&mut self, id: OfferId, record: impl FnOnce(&mut TradeOffer)) {
        if let Some(o) = self.offers.iter_mut().find(|o| o.id == id) {
            record(o);
        }
    }

    /// Takes `cards` out of `seat`'s hand (the count; the cards if it is the viewer).
    fn take_cards(&mut self, seat: Seat, cards: &Resources) {
        let n = cards.total();
        self.count(seat, |c| c.saturating_sub(n));
        if let Some(me) = self.me.as_mut().filter(|m| m.seat == seat) {
            take(&mut me.hand, cards);
        }
    }

    /// Puts `cards` into `seat`'s hand (the count; the cards if it is the viewer).
    fn give_cards(&mut self, seat: Seat, cards: &Resources) {
        let n = cards.total();
        self.count(seat, |c| c + n);
        if let Some(me) = self.me.as_mut().filter(|m| m.seat == seat) {
            me.hand.add(cards);
        }
    }

    /// Changes `seat`'s count of resource cards.
    fn count(&mut self, seat: Seat, change: impl FnOnce(u32) -> u32) {
        if let Some(p) = self.players.get_mut(seat.index()) {
            p.resource_cards = change(p.resource_cards);
        }
    }

    /// What follows from the pieces on the board: pieces left, every route length
    /// (R-10.1), the viewer's maritime ratios (R-9.4), then the points.
    fn refresh_pieces(&mut self) {
        let occupied = self.occupied_vertices();
        for pv in &mut self.players {
            let mut p = Player::new();
            for b in self.buildings.iter().filter(|b| b.seat == pv.seat) {
                if b.city {
                    p.cities |= b.vertex.bit();
                } else {
                    p.settlements |= b.vertex.bit();
                }
            }
            p.roads = self
                .roads
                .iter()
                .filter(|r| r.seat == pv.seat)
                .fold(0, |m, r| m | r.edge.bit());
            pv.road_length = rules::route_length(p.roads, p.buildings(), occupied);
            pv.roads_left = p.roads_left();
            pv.settlements_left = p.settlements_left();
            pv.cities_left = p.cities_left();
        }
        if let Some(seat) = self.me.map(|m| m.seat) {
            let reach = rules::harbors_in_reach(&self.map, self.buildings_of(seat));
            if let Some(me) = &mut self.me {
                me.maritime_ratios = rules::maritime_ratios(reach);
            }
        }
        self.refresh_points();
    }

    /// Every seat's public points and the viewer's total (R-1.3).
    fn refresh_points(&mut self) {
        for i in 0..self.players.len() {
            let seat = self.players[i].seat;
            self.players[i].public_vp = public_vp(
                self.settlements_of(seat),
                self.cities_of(seat),
                self.longest_road == Some(seat),
                self.largest_army == Some(seat),
            );
        }
        if let Some(me) = &mut self.me
            && let Some(p) = self.players.get(me.seat.index())
        {
            me.total_vp = total_vp(p.public_vp, &me.dev_cards);
        }
    }
}

/// Takes `cards` from `from`, never below zero.
fn take(from: &mut Resources, cards: &Resources) {
    for r in Resource::ALL {
        *from.get_mut(r) = from.get(r).saturating_sub(cards.get(r));
    }
}
