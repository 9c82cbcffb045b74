//! A determinization: a whole [`Game`] built from one seat's [`GameView`], with what
//! the view hides drawn at random, consistently with what it shows.
//!
//! Known exactly: the board, pieces, the bank, the viewer's own hand and cards, every
//! seat's card counts, played Knights, open offers, awards and the phase; and from
//! the events the seat saw ([`Known`]), the cards each opponent certainly holds
//! (public production and trades, steals the viewer took part in) and the other
//! development cards played. Drawn: the rest of opponents' resource cards (each
//! opponent first gets its certain cards, then the rest of its count dealt from the
//! cards neither in the bank, nor in the viewer's hand, nor certain), opponents'
//! development cards and the deck's order (dealt from the 25-card deck minus the
//! viewer's cards and every played card), and the dice (a fresh seed). During setup
//! the first seat follows from the placement index and the current seat.
//! Nothing else is read: the input is the view and what the seat's events showed, so
//! two games that differ only in what the seat cannot see give the same
//! determinizations.

use catan_engine::{
    BANK_PER_RESOURCE, DevCard, DevCards, Game, GameView, MAX_SEATS, Phase, PlayerView, Position,
    Resource, Resources, Seat, SeatPosition,
};
use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::Known;

/// Tries before giving up on a view (a draw can be refused, e.g. hidden VP cards that
/// would have won already).
const TRIES: usize = 8;

/// A game consistent with `view` and what `known` holds, or `None` for a spectator's
/// view or a view no draw makes valid.
pub(crate) fn determinize(view: &GameView, known: &Known, rng: &mut dyn RngCore) -> Option<Game> {
    let me = view.me?;
    let certain = certain_hands(view, me.seat, known);
    (0..TRIES).find_map(|_| Game::from_position(position(view, me.seat, &certain, known, rng)).ok())
}

/// Each opponent's certain cards (the viewer's own entry stays empty), or none at
/// all when together they are more than the cards outside the bank and the
/// viewer's hand (events were missed).
fn certain_hands(view: &GameView, me: Seat, known: &Known) -> [Resources; MAX_SEATS] {
    let mut certain = [Resources::ZERO; MAX_SEATS];
    let mut all = Resources::ZERO;
    for p in view.players.iter().filter(|p| p.seat != me) {
        let hand = known.hand(view, p.seat);
        all.add(&hand);
        certain[p.seat.index()] = hand;
    }
    let pool = Resource::ALL.map(|r| hidden_count(view, r));
    if Resource::ALL
        .into_iter()
        .any(|r| all.get(r) > pool[r.index()])
    {
        return [Resources::ZERO; MAX_SEATS];
    }
    certain
}

/// Who placed first: during setup, the seat that the snake order
/// puts at the current placement's distance back from the current seat; afterwards
/// the engine does not need it (seat 0).
fn first_seat(view: &GameView) -> Seat {
    let Phase::Setup { index, .. } = view.phase else {
        return Seat(0);
    };
    let n = view.options.players;
    let offset = if index < n { index } else { 2 * n - 1 - index };
    Seat((view.current.0 + n - offset % n) % n)
}

/// One draw of the hidden information as a position.
fn position(
    view: &GameView,
    me: Seat,
    certain: &[Resources; MAX_SEATS],
    known: &Known,
    rng: &mut dyn RngCore,
) -> Position {
    let mut cards = hidden_resources(view, certain);
    cards.shuffle(rng);
    let mut devs = hidden_dev_cards(view, known);
    devs.shuffle(rng);
    let seats = view
        .players
        .iter()
        .map(|p| seat_position(view, p, me, certain[p.seat.index()], &mut cards, &mut devs))
        .collect();
    devs.truncate(usize::from(view.dev_deck));
    let mut p = Position::empty(view.options);
    p.seed = rng.random();
    p.map = view.map.clone();
    p.robber = view.robber;
    p.seats = seats;
    p.dev_deck = devs;
    p.phase = view.phase;
    p.current = view.current;
    p.first = first_seat(view);
    p.turn = view.turn;
    p.dev_played = view.dev_card_played;
    p.last_roll = view.last_roll;
    // The view names the holders (`None`: nobody), which the engine would work out
    // the same way from the pieces.
    p.longest_road = view.longest_road.into();
    p.largest_army = view.largest_army.into();
    p.offers = view.offers.clone();
    p.next_offer = view.offers.iter().map(|o| o.id.0 + 1).max().unwrap_or(1);
    p
}

/// What `p`'s seat holds: its pieces from the view, and its cards: the viewer's own, or
/// an opponent's `certain` cards and the rest of its count of each kind dealt from
/// the tops of `cards` and `devs`.
fn seat_position(
    view: &GameView,
    p: &PlayerView,
    me: Seat,
    certain: Resources,
    cards: &mut Vec<Resource>,
    devs: &mut Vec<DevCard>,
) -> SeatPosition {
    let seat = p.seat;
    let mut s = SeatPosition::default();
    s.knights_played = p.knights_played;
    for b in view.buildings.iter().filter(|b| b.seat == seat) {
        if b.city {
            s.cities.push(b.vertex);
        } else {
            s.settlements.push(b.vertex);
        }
    }
    s.roads = view
        .roads
        .iter()
        .filter(|r| r.seat == seat)
        .map(|r| r.edge)
        .collect();
    match view.me {
        Some(mine) if seat == me => {
            s.hand = mine.hand;
            s.dev_cards = mine.dev_cards;
            s.dev_cards_new = mine.dev_cards_new;
        }
        _ => {
            s.hand = certain;
            for _ in certain.total()..p.resource_cards {
                if let Some(r) = cards.pop() {
                    *s.hand.get_mut(r) += 1;
                }
            }
            for _ in 0..p.dev_cards {
                if let Some(c) = devs.pop() {
                    *s.dev_cards.get_mut(c) += 1;
                }
            }
        }
    }
    s
}

/// The cards of `r` in opponents' hands: all cards less the bank's and the viewer's.
fn hidden_count(view: &GameView, r: Resource) -> u8 {
    let mine = view.me.map_or(Resources::ZERO, |m| m.hand);
    BANK_PER_RESOURCE
        .saturating_sub(view.bank.get(r))
        .saturating_sub(mine.get(r))
}

/// The resource cards in opponents' hands that are not certain, one entry a card.
fn hidden_resources(view: &GameView, certain: &[Resources; MAX_SEATS]) -> Vec<Resource> {
    Resource::ALL
        .into_iter()
        .flat_map(|r| {
            let held: u8 = certain.iter().map(|c| c.get(r)).sum();
            let n = hidden_count(view, r).saturating_sub(held);
            std::iter::repeat_n(r, usize::from(n))
        })
        .collect()
}

/// The development cards the viewer cannot place: the deck's 25 less its own cards,
/// every Knight played (from the view) and every other card played (from `known`;
/// a bot that started mid-game may have missed some, so a few more may be in the
/// pool than in play; the deck takes what is left after the hands).
fn hidden_dev_cards(view: &GameView, known: &Known) -> Vec<DevCard> {
    let mine = view.me.map_or(DevCards::default(), |m| m.dev_cards);
    let knights: u8 = view.players.iter().map(|p| p.knights_played).sum();
    let played = known.played();
    DevCard::ALL
        .into_iter()
        .flat_map(|c| {
            let mut n = c
                .deck_count()
                .saturating_sub(mine.get(c))
                .saturating_sub(played.get(c));
            if c == DevCard::Knight {
                n = n.saturating_sub(knights);
            }
            std::iter::repeat_n(c, usize::from(n))
        })
        .collect()
}
