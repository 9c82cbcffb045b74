//! What a seat knows of the other seats' cards beyond their counts, from the events
//! it has seen (card counting, as a player at the table does).
//!
//! Almost every card move is public: production, starting resources,
//! payments, discards, bank and player trades, Year of Plenty
//! and Monopoly. Only a stolen card is hidden, and only from
//! the seats that are neither thief nor victim. So for every seat [`Known`] keeps a
//! lower bound of its hand: cards it is certain to hold. A steal the viewer saw
//! moves the card from the victim's bound to the thief's; a steal it did not see
//! takes one card of each kind off the victim's bound (whichever was taken, the rest
//! is still certain) and adds nothing to the thief's. A card paid that was not in the
//! bound came from the unknown part, so the bound never goes below zero. It also
//! counts the development cards played other than Knights (the view counts those),
//! which are then out of the hidden pool.
//!
//! The bound is sound from any starting point: a bot that starts in the middle of a
//! game (a stand-in, a reconnect) knows nothing and learns from then on. Should it
//! ever disagree with a view (more certain cards than the seat holds, after missed
//! events), [`Known::hand`] drops that seat's bound.

use catan_engine::{DevCard, DevCards, Event, GameView, MAX_SEATS, Resource, Resources, Seat};

/// Certain cards per seat and played development cards, from events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Known {
    /// Per seat, cards it certainly holds.
    hands: [Resources; MAX_SEATS],
    /// Development cards played, Knights left out.
    played: DevCards,
}

impl Known {
    /// Knows nothing yet.
    #[must_use]
    pub(crate) fn new() -> Known {
        Known::default()
    }

    /// Learns from one event, as the seat received it (redacted for it).
    pub(crate) fn observe(&mut self, event: &Event) {
        match *event {
            Event::Produced { seat, cards }
            | Event::StartingResources { seat, cards }
            | Event::YearOfPlenty { seat, cards } => self.gain(seat, &cards),
            Event::Paid { seat, cards } | Event::Discarded { seat, cards } => {
                self.lose(seat, &cards);
            }
            Event::MaritimeTraded { seat, gave, got } => {
                self.lose(seat, &gave);
                self.gain(seat, &got);
            }
            Event::TradeCompleted {
                from,
                to,
                gave,
                got,
                ..
            } => {
                self.lose(from, &gave);
                self.gain(to, &gave);
                self.lose(to, &got);
                self.gain(from, &got);
            }
            Event::Stolen {
                thief,
                victim,
                resource: Some(r),
            } => {
                let card = Resources::single(r, 1);
                self.lose(victim, &card);
                self.gain(thief, &card);
            }
            Event::Stolen {
                victim,
                resource: None,
                ..
            } => self.lose(victim, &Resources::splat(1)),
            Event::Monopoly {
                seat,
                resource,
                taken,
            } => {
                let total: u8 = taken.iter().sum();
                for hand in &mut self.hands {
                    *hand.get_mut(resource) = 0;
                }
                self.gain(seat, &Resources::single(resource, total));
            }
            Event::DevCardPlayed { card, .. } if card != DevCard::Knight => {
                *self.played.get_mut(card) += 1;
            }
            _ => {}
        }
    }

    /// The cards `seat` certainly holds, if that agrees with `view` (no more than
    /// its count of cards); else nothing is certain.
    #[must_use]
    pub(crate) fn hand(&self, view: &GameView, seat: Seat) -> Resources {
        let hand = self.hands.get(seat.index()).copied().unwrap_or_default();
        let count = view
            .players
            .iter()
            .find(|p| p.seat == seat)
            .map_or(0, |p| p.resource_cards);
        if hand.total() <= count {
            hand
        } else {
            Resources::ZERO
        }
    }

    /// Development cards played, Knights left out.
    #[must_use]
    pub(crate) fn played(&self) -> DevCards {
        self.played
    }

    fn gain(&mut self, seat: Seat, cards: &Resources) {
        if let Some(hand) = self.hands.get_mut(seat.index()) {
            hand.add(cards);
        }
    }

    fn lose(&mut self, seat: Seat, cards: &Resources) {
        if let Some(hand) = self.hands.get_mut(seat.index()) {
            for r in Resource::ALL {
                let n = hand.get_mut(r);
                *n = n.saturating_sub(cards.get(r));
            }
        }
    }
}
