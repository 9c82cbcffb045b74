//! A determinization: a whole [`Game`] built from one seat's [`GameView`], with what
//! the view hides drawn at random, consistently with what it shows.
//!
//! Known exactly: the board, pieces, the bank, the viewer's own hand and cards, every
//! seat's card counts, played Knights, open offers, awards and the phase. Drawn:
//! opponents' resource cards (dealt from the cards neither in the bank nor in the
//! viewer's hand, so each opponent gets exactly its count), opponents' development
//! cards and the deck's order (dealt from the 25-card deck minus the viewer's cards
//! and every played Knight), and the dice (a fresh seed). During setup the first seat follows from the
//! placement index and the current seat. Nothing else is read: the
//! input is the view alone, so two games that differ only in what the seat cannot see
//! give the same determinizations.

use catan_engine::{
    BANK_PER_RESOURCE, DevCard, DevCards, Game, GameView, Phase, PlayerView, Position, Resource,
    Resources, Seat, SeatPosition,
};
use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

/// Tries before giving up on a view (a draw can be refused, e.g. hidden VP cards that
/// would have won already).
const TRIES: usize = 8;

/// A game consistent with `view`, or `None` for a spectator's view or a view no draw
/// makes valid.
pub(crate) fn determinize(view: &GameView, rng: &mut dyn RngCore) -> Option<Game> {
    let me = view.me?;
    (0..TRIES).find_map(|_| Game::from_position(position(view, me.seat, rng)).ok())
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
fn position(view: &GameView, me: Seat, rng: &mut dyn RngCore) -> Position {
    let mut cards = hidden_resources(view);
    cards.shuffle(rng);
    let mut devs = hidden_dev_cards(view);
    devs.shuffle(rng);
    let seats = view
        .players
        .iter()
        .map(|p| seat_position(view, p, me, &mut cards, &mut devs))
        .collect();
    devs.truncate(usize::from(view.dev_deck));
    Position {
        options: view.options,
        seed: rng.random(),
        rng_word_pos: 0,
        scripted_dice: Vec::new(),
        map: view.map.clone(),
        robber: view.robber,
        seats,
        dev_deck: devs,
        phase: view.phase,
        current: view.current,
        first: first_seat(view),
        turn: view.turn,
        dev_played: view.dev_card_played,
        last_roll: view.last_roll,
        longest_road: view.longest_road,
        largest_army: view.largest_army,
        offers: view.offers.clone(),
        next_offer: view.offers.iter().map(|o| o.id.0 + 1).max().unwrap_or(1),
    }
}

/// What `p`'s seat holds: its pieces from the view, and its cards: the viewer's own, or
/// an opponent's count of each kind dealt from the tops of `cards` and `devs`.
fn seat_position(
    view: &GameView,
    p: &PlayerView,
    me: Seat,
    cards: &mut Vec<Resource>,
    devs: &mut Vec<DevCard>,
) -> SeatPosition {
    let seat = p.seat;
    let mut s = SeatPosition {
        knights_played: p.knights_played,
        ..SeatPosition::default()
    };
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
            for _ in 0..p.resource_cards {
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

/// The resource cards in opponents' hands, one entry a card: all cards less the
/// bank's and the viewer's.
fn hidden_resources(view: &GameView) -> Vec<Resource> {
    let mine = view.me.map_or(Resources::ZERO, |m| m.hand);
    Resource::ALL
        .into_iter()
        .flat_map(|r| {
            let n = BANK_PER_RESOURCE
                .saturating_sub(view.bank.get(r))
                .saturating_sub(mine.get(r));
            std::iter::repeat_n(r, usize::from(n))
        })
        .collect()
}

/// The development cards the viewer cannot place: the deck's 25 less its own cards
/// and every Knight played (other played cards are not in the view, so a few more
/// may be in the pool than in play; the deck takes what is left after the hands).
fn hidden_dev_cards(view: &GameView) -> Vec<DevCard> {
    let mine = view.me.map_or(DevCards::default(), |m| m.dev_cards);
    let knights: u8 = view.players.iter().map(|p| p.knights_played).sum();
    DevCard::ALL
        .into_iter()
        .flat_map(|c| {
            let mut n = c.deck_count().saturating_sub(mine.get(c));
            if c == DevCard::Knight {
                n = n.saturating_sub(knights);
            }
            std::iter::repeat_n(c, usize::from(n))
        })
        .collect()
}
