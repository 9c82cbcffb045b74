//! A random-legal player, for the simulator, the benchmarks and playout tests.
//!
//! Whoever must act acts: during [`Phase::Discard`] the first seat that still owes
//! cards, otherwise the current player. That seat lists its legal actions, drops the
//! player-trade kinds (`offer_trade`, `counter_offer`), picks one uniformly and
//! applies it. For `discard`, which the listing gives as one representative, the
//! owed cards are drawn uniformly at random from the hand instead.
//!
//! Everything is seeded, so a playout is as reproducible as the game itself. Once
//! the two scratch vectors have grown, a step allocates nothing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::action::Action;
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::{Actor, Seat};

/// Why a random playout could not go on. Each of these is an engine bug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayoutError {
    /// The seat that must act has no legal action (a dead end).
    #[error("{seat} has no legal action in {phase:?}")]
    NoLegalAction {
        /// The seat that must act.
        seat: Seat,
        /// The phase it is stuck in.
        phase: Phase,
    },
    /// `apply` refused an action that `legal_actions` listed.
    #[error("{seat}: listed {action:?} was refused: {error}")]
    Refused {
        /// Who acted.
        seat: Seat,
        /// The listed action.
        action: Action,
        /// The refusal.
        error: ActionError,
    },
    /// The game did not end within the allowed number of actions.
    #[error("not over after {0} actions")]
    TooLong(u64),
}

/// The seat that must act now: during a discard the first seat still owing cards
/// otherwise the current player.
#[must_use]
pub fn seat_to_act(game: &Game) -> Seat {
    if let Phase::Discard { pending } = game.phase()
        && let Some(s) = pending.iter().position(|&n| n > 0)
    {
        return Seat(u8::try_from(s).unwrap_or(0));
    }
    game.current()
}

/// A seeded player that picks uniformly among the legal actions without player trades.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    /// The player's own randomness, separate from the game's.
    rng: ChaCha8Rng,
    /// Scratch list of legal actions, reused by every step.
    actions: Vec<Action>,
}

impl RandomPlayer {
    /// A player whose choices follow from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
            actions: Vec::with_capacity(256),
        }
    }

    /// One action: the seat that must act lists its legal actions, chooses one and
    /// applies it, appending the events to `events`. Returns the seat and the action.
    ///
    /// # Errors
    /// [`PlayoutError`] if the seat has no legal action or a listed action is refused.
    #[inline]
    pub fn step(
        &mut self,
        game: &mut Game,
        events: &mut Vec<Event>,
    ) -> Result<(Seat, Action), PlayoutError> {
        let seat = seat_to_act(game);
        self.actions.clear();
        game.legal_actions_into(Actor::Seat(seat), &mut self.actions);
        // Uniform among the non-trade actions: a drawn trade offer is dropped and the
        // draw repeated among the rest (rejection, cheaper than filtering the list).
        let i = loop {
            if self.actions.is_empty() {
                return Err(PlayoutError::NoLegalAction {
                    seat,
                    phase: game.phase(),
                });
            }
            let i = self.rng.random_range(0..self.actions.len());
            if matches!(
                self.actions[i],
                Action::OfferTrade { .. } | Action::CounterOffer { .. }
            ) {
                self.actions.swap_remove(i);
            } else {
                break i;
            }
        };
        // Applied where it is listed, not copied first; a discard's cards are drawn.
        let mut action = self.actions[i];
        let result = if let Action::Discard { cards } = action {
            action = Action::Discard {
                cards: self.random_cards(game.player(seat).hand, cards.total()),
            };
            game.apply_ref(Actor::Seat(seat), &action, events)
        } else {
            game.apply_ref(Actor::Seat(seat), &self.actions[i], events)
        };
        result.map_err(|error| PlayoutError::Refused {
            seat,
            action,
            error,
        })?;
        Ok((seat, action))
    }

    /// Plays `game` to its end (a win, or the turn limit: ), at most
    /// `max_actions` actions, clearing `events` before each step. Returns the number
    /// of actions taken.
    ///
    /// # Errors
    /// As [`RandomPlayer::step`], or [`PlayoutError::TooLong`].
    pub fn play_to_end(
        &mut self,
        game: &mut Game,
        events: &mut Vec<Event>,
        max_actions: u64,
    ) -> Result<u64, PlayoutError> {
        let mut n = 0;
        while !game.is_over() {
            if n >= max_actions {
                return Err(PlayoutError::TooLong(n));
            }
            events.clear();
            self.step(game, events)?;
            n += 1;
        }
        Ok(n)
    }

    /// `n` cards drawn one by one, uniformly, from `hand`.
    fn random_cards(&mut self, mut hand: Resources, n: u32) -> Resources {
        let mut cards = Resources::ZERO;
        for _ in 0..n {
            if hand.is_empty() {
                break;
            }
            let Some(r) = hand.nth_card(self.rng.random_range(0..hand.total())) else {
                break;
            };
            *hand.get_mut(r) -= 1;
            *cards.get_mut(r) += 1;
        }
        cards
    }
}
