//! Listing the legal actions of a seat. Agrees with `apply`: every listed action is
//! accepted, and every accepted action is listed, up to the amounts of cards in the
//! kinds listed by one representative (`discard`, `offer_trade`, `counter_offer`).

use crate::action::Action;
use crate::board::{EdgeId, TILE_COUNT, TileId, VertexId, topology};
use crate::dev_card::DevCard;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::{Resource, Resources};
use crate::rules::MAX_OPEN_OFFERS;
use crate::rules::trade::GENERIC_HARBOR;
use crate::seat::{Actor, MAX_SEATS, Seat};

/// The seat making setup placement `index`: seat order from the first
/// player, then reversed, so the last player places twice in a row.
#[must_use]
pub fn setup_seat(first: Seat, players: u8, index: u8) -> Seat {
    let offset = if index < players {
        index
    } else {
        2 * players - 1 - index
    };
    Seat((first.0 + offset) % players)
}

fn push_vertices(mut m: u64, out: &mut Vec<Action>, f: impl Fn(VertexId) -> Action) {
    while m != 0 {
        let v = m.trailing_zeros() as u8;
        m &= m - 1;
        out.push(f(VertexId(v)));
    }
}

fn push_edges(mut m: u128, out: &mut Vec<Action>) {
    while m != 0 {
        let e = m.trailing_zeros() as u8;
        m &= m - 1;
        out.push(Action::BuildRoad { edge: EdgeId(e) });
    }
}

/// The kinds of a cost of at most one card of each kind, as a bit set by resource index
/// (as [`Resources::at_least`] gives them): a hand meets the cost when it holds them all.
const fn single_kinds(cost: Resources) -> u8 {
    let mut kinds = 0;
    let mut r = 0;
    while r < cost.0.len() {
        assert!(cost.0[r] <= 1, "one card of a kind at most");
        if cost.0[r] == 1 {
            kinds |= 1 << r;
        }
        r += 1;
    }
    kinds
}

/// The kinds of [`Resources::ROAD`].
const ROAD_KINDS: u8 = single_kinds(Resources::ROAD);
/// The kinds of [`Resources::SETTLEMENT`].
const SETTLEMENT_KINDS: u8 = single_kinds(Resources::SETTLEMENT);
/// The kinds of [`Resources::DEV_CARD`].
const DEV_CARD_KINDS: u8 = single_kinds(Resources::DEV_CARD);

/// One card of the first resource held, asking one card of another resource: the
/// representative of the trade-offer kinds.
fn representative_terms(hand: &Resources) -> Option<(Resources, Resources)> {
    let give = hand.first_kind()?;
    // The first other resource: lumber, or brick when lumber is given.
    let get = Resource::ALL[usize::from(give == Resource::Lumber)];
    Some((Resources::single(give, 1), Resources::single(get, 1)))
}

impl Game {
    /// Every action `by` may take now (see the module docs for the representatives).
    #[must_use]
    pub fn legal_actions(&self, by: impl Into<Actor>) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions_into(by.into(), &mut out);
        out
    }

    /// Whether `apply` would accept `action` from `by` now.
    #[must_use]
    pub fn is_legal(&self, by: impl Into<Actor>, action: Action) -> bool {
        self.clone().apply(by, action).is_ok()
    }

    /// Appends the legal actions of `by` to `out` (no allocation once `out` has grown).
    ///
    /// Inlined into the caller: a seat's common phases (trade and build, the roll, the
    /// robber) go straight to their listing, the rest to `push_other`.
    #[inline]
    pub fn legal_actions_into(&self, by: Actor, out: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Over { .. }) {
            return;
        }
        let seat = match by {
            Actor::System => return self.push_system(out),
            Actor::Seat(s) if s.0 < self.options.players => s,
            Actor::Seat(_) => return,
        };
        if !self.offers.is_empty() {
            self.push_withdrawals(seat, out);
        }
        let is_current = seat == self.current;
        match self.phase {
            Phase::Main if is_current => self.push_main(seat, out),
            Phase::PreRoll if is_current => {
                out.push(Action::RollDice);
                self.push_dev_plays(seat, out);
            }
            Phase::MoveRobber { .. } if is_current => self.push_robber_moves(seat, out),
            _ => self.push_other(seat, is_current, out),
        }
    }

    /// The system's actions: the time-out and each open offer's expiry.
    #[inline(never)]
    fn push_system(&self, out: &mut Vec<Action>) {
        out.push(Action::TimeOut);
        out.extend(
            self.offers
                .iter()
                .map(|o| Action::ExpireOffer { offer: o.id }),
        );
    }

    /// Withdrawing each own open offer.
    #[inline(never)]
    fn push_withdrawals(&self, seat: Seat, out: &mut Vec<Action>) {
        for o in &self.offers {
            if o.from == seat {
                out.push(Action::WithdrawOffer { offer: o.id });
            }
        }
    }

    /// The phases [`Game::legal_actions_into`] does not list itself: setup, discards,
    /// Road Building, the answers of other seats to offers.
    #[inline(never)]
    fn push_other(&self, seat: Seat, is_current: bool, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Setup { settlement, .. } if is_current => match settlement {
                None => push_vertices(self.distance_ok_vertices(), out, |vertex| {
                    Action::BuildSettlement { vertex }
                }),
                Some(v) => push_edges(
                    topology().vertex_edge_mask[v.index()] & !self.occupied_edges(),
                    out,
                ),
            },
            Phase::Discard { pending } => {
                let owed = pending[seat.index()];
                if owed > 0 {
                    out.push(Action::Discard {
                        cards: first_cards(&self.players[seat.index()].hand, owed),
                    });
                }
            }
            Phase::RoadBuilding { .. } if is_current => push_edges(self.road_spots(seat), out),
            Phase::Main if !is_current => self.push_answers(seat, out),
            _ => {}
        }
    }

    #[inline(never)]
    fn push_robber_moves(&self, seat: Seat, out: &mut Vec<Action>) {
        let topo = topology();
        // Opponents who could be robbed somewhere, with a card and a building,
        // each with the tiles its buildings touch (bit `t` for tile `t`).
        let mut victims = [(Seat(0), 0u32); MAX_SEATS];
        let mut n = 0;
        let mut touched = 0u32;
        for (s, p) in self.players[..usize::from(self.options.players)]
            .iter()
            .enumerate()
        {
            if s == seat.index() || p.hand.is_empty() {
                continue;
            }
            let mut tiles = 0u32;
            let mut buildings = p.buildings();
            while buildings != 0 {
                tiles |= topo.vertex_tile_mask[buildings.trailing_zeros() as usize];
                buildings &= buildings - 1;
            }
            if tiles != 0 {
                victims[n] = (Seat(s as u8), tiles);
                n += 1;
                touched |= tiles;
            }
        }
        // Every other tile (the robber must move, R-7.2), with each possible victim in
        // seat order, or with nobody to rob.
        for t in 0..TILE_COUNT as u8 {
            let bit = 1u32 << t;
            if t == self.robber.0 {
                continue;
            }
            if touched & bit == 0 {
                out.push(Action::MoveRobber {
                    tile: TileId(t),
                    victim: None,
                });
                continue;
            }
            for &(victim, tiles) in &victims[..n] {
                if tiles & bit != 0 {
                    out.push(Action::MoveRobber {
                        tile: TileId(t),
                        victim: Some(victim),
                    });
                }
            }
        }
    }

    /// The card plays of `seat`. Inlined for the common case, no playable card,
    /// which costs one compare: every action card held (VP cards are never played)
    /// was bought this turn; one card per turn.
    #[inline]
    fn push_dev_plays(&self, seat: Seat, out: &mut Vec<Action>) {
        let p = &self.players[seat.index()];
        if self.dev_played || p.dev_cards.0[..4] == p.dev_cards_new.0[..4] {
            return;
        }
        self.push_playable_cards(seat, out);
    }

    /// [`Game::push_dev_plays`] once a card may be playable.
    #[inline(never)]
    fn push_playable_cards(&self, seat: Seat, out: &mut Vec<Action>) {
        let p = &self.players[seat.index()];
        if p.playable(DevCard::Knight) > 0 {
            out.push(Action::PlayKnight);
        }
        if p.playable(DevCard::RoadBuilding) > 0 {
            out.push(Action::PlayRoadBuilding);
        }
        if p.playable(DevCard::YearOfPlenty) > 0 {
            let bank = self.bank;
            match bank.total() {
                0 => out.push(Action::PlayYearOfPlenty {
                    take: Resources::ZERO,
                }),
                1 => out.push(Action::PlayYearOfPlenty { take: bank }),
                _ => {
                    for a in Resource::ALL {
                        for b in Resource::ALL.into_iter().filter(|&b| b >= a) {
                            let mut take = Resources::single(a, 1);
                            *take.get_mut(b) += 1;
                            if bank.contains(&take) {
                                out.push(Action::PlayYearOfPlenty { take });
                            }
                        }
                    }
                }
            }
        }
        if p.playable(DevCard::Monopoly) > 0 {
            out.extend(Resource::ALL.map(|resource| Action::PlayMonopoly { resource }));
        }
    }

    #[inline(never)]
    fn push_main(&self, seat: Seat, out: &mut Vec<Action>) {
        out.push(Action::EndTurn);
        let p = &self.players[seat.index()];
        let hand = p.hand;
        // The hand first: it is cheaper to test than the supply. The costs of one card
        // of each of their kinds are met when the hand holds every kind.
        let held = hand.at_least(1);
        if held & ROAD_KINDS == ROAD_KINDS && p.roads_left() > 0 {
            push_edges(self.road_spots(seat), out);
        }
        if held & SETTLEMENT_KINDS == SETTLEMENT_KINDS && p.settlements_left() > 0 {
            push_vertices(self.settlement_spots(seat), out, |vertex| {
                Action::BuildSettlement { vertex }
            });
        }
        if hand.contains(&Resources::CITY) && p.cities_left() > 0 {
            push_vertices(p.settlements, out, |vertex| Action::BuildCity { vertex });
        }
        if !self.dev_deck.is_empty() && held & DEV_CARD_KINDS == DEV_CARD_KINDS {
            out.push(Action::BuyDevCard);
        }
        self.push_dev_plays(seat, out);
        // Every ratio is at least 2: skip the harbors when no trade is possible.
        let pairs = hand.at_least(2);
        if pairs != 0 {
            // 2 of a resource with its 2:1 harbor, else 3 with a 3:1 harbor, else 4.
            let reach = self.harbors_in_reach(seat);
            let base = if reach & GENERIC_HARBOR != 0 { 3 } else { 4 };
            let mut gives = (pairs & reach & !GENERIC_HARBOR) | hand.at_least(base);
            let in_bank = self.bank.at_least(1);
            while gives != 0 {
                let give = Resource::ALL[gives.trailing_zeros() as usize];
                gives &= gives - 1;
                let mut gets = in_bank & !(1 << give.index());
                while gets != 0 {
                    let get = Resource::ALL[gets.trailing_zeros() as usize];
                    gets &= gets - 1;
                    out.push(Action::MaritimeTrade { give, get });
                }
            }
        }
        if self.offers.len() < MAX_OPEN_OFFERS
            && let Some((give, get)) = representative_terms(&hand)
        {
            out.push(Action::OfferTrade {
                to: None,
                give,
                get,
            });
        }
        for o in &self.offers {
            if o.from == seat {
                let mut accepted = o.accepted;
                while accepted != 0 {
                    let w = accepted.trailing_zeros() as u8;
                    accepted &= accepted - 1;
                    if hand.contains(&o.give) && self.players[usize::from(w)].hand.contains(&o.get)
                    {
                        out.push(Action::ConfirmTrade {
                            offer: o.id,
                            with: Seat(w),
                        });
                    }
                }
            } else if o.is_recipient(seat) {
                if hand.contains(&o.get) && self.players[o.from.index()].hand.contains(&o.give) {
                    out.push(Action::AcceptOffer { offer: o.id });
                }
                if !o.has_rejected(seat) {
                    out.push(Action::RejectOffer { offer: o.id });
                }
            }
        }
    }

    /// A non-current seat's answers to open offers in the trade phase.
    fn push_answers(&self, seat: Seat, out: &mut Vec<Action>) {
        let hand = self.players[seat.index()].hand;
        for o in &self.offers {
            if !o.is_recipient(seat) {
                continue;
            }
            if !o.has_accepted(seat) && hand.contains(&o.get) {
                out.push(Action::AcceptOffer { offer: o.id });
            }
            if !o.has_rejected(seat) {
                out.push(Action::RejectOffer { offer: o.id });
            }
            if self.offers.len() < MAX_OPEN_OFFERS
                && let Some((give, get)) = representative_terms(&hand)
            {
                out.push(Action::CounterOffer {
                    offer: o.id,
                    give,
                    get,
                });
            }
        }
    }
}

/// The first `n` cards of a hand in resource order: the representative discard.
fn first_cards(hand: &Resources, mut n: u8) -> Resources {
    let mut cards = Resources::ZERO;
    for r in Resource::ALL {
        let k = hand.get(r).min(n);
        *cards.get_mut(r) = k;
        n -= k;
    }
    cards
}
