//! The random-legal bot: a baseline to measure other strategies against.

use catan_engine::{Action, GameView, Resources};
use rand::{Rng, RngCore};

use crate::{Strategy, is_proposal};

/// Picks uniformly among the legal actions other than player-trade proposals, and
/// discards cards drawn uniformly from its own hand. Like the engine's
/// `playout::RandomPlayer`, but deciding from a view.
#[derive(Debug, Clone, Default)]
pub struct RandomBot;

impl RandomBot {
    /// A random bot (all its randomness comes from the `rng` passed to `choose`).
    #[must_use]
    pub fn new() -> RandomBot {
        RandomBot
    }
}

impl Strategy for RandomBot {
    fn name(&self) -> &'static str {
        "random"
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        let candidates = legal.iter().filter(|a| !is_proposal(a)).count();
        let action = if candidates == 0 {
            // Only proposals are legal (never the case for a seat that must act).
            legal[0]
        } else {
            let k = rng.random_range(0..candidates);
            *legal
                .iter()
                .filter(|a| !is_proposal(a))
                .nth(k)
                .unwrap_or(&legal[0])
        };
        match (action, view.me) {
            (Action::Discard { cards }, Some(me)) => Action::Discard {
                cards: random_cards(me.hand, cards.total(), rng),
            },
            _ => action,
        }
    }
}

/// `n` cards drawn one by one, uniformly, from `hand`.
pub(crate) fn random_cards(mut hand: Resources, n: u32, rng: &mut dyn RngCore) -> Resources {
    let mut cards = Resources::ZERO;
    for _ in 0..n {
        if hand.is_empty() {
            break;
        }
        let Some(r) = hand.nth_card(rng.random_range(0..hand.total())) else {
            break;
        };
        *hand.get_mut(r) -= 1;
        *cards.get_mut(r) += 1;
    }
    cards
}
