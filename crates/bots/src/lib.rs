//! Bots for Catan that decide only from what their seat may see.
//!
//! A [`Strategy`] gets a seat's [`GameView`] (from `Game::view(Some(seat))` or a
//! server `snapshot`) and the seat's legal actions, and returns one action. It never
//! sees the full `Game`, so a bot cannot peek at hidden hands, the deck or the seed,
//! and the same code runs in the simulator and behind the server's WebSocket.
//!
//! # Layout
//!
//! - `random`: [`RandomBot`], uniform among the legal actions, no player trades
//!   (for tests and load, not a level for players).
//! - `heuristic/`: [`HeuristicBot`], plays to win (setup by pips, cities first, maritime trades,
//!   robber on the leader, development cards, discards that keep the next build,
//!   player trades by its own evaluation): the `medium` level, and weakened the
//!   `easy` one ([`Level`]).
//! - `search/`: [`SearchBot`], the `hard` level, information-set Monte Carlo search over
//!   determinizations of its view with the engine, within a [`Budget`]: whole games
//!   for its setup placements and for the places its turns choose (builds, robber,
//!   a Knight before the roll).
//! - `board`: what a bot reads off a view (who owns what, pips, spots, harbors).
//! - `plan`: goals (city, settlement, road, development card), trades toward them,
//!   discards.
//! - [`arena`]: plays whole games between strategies through the engine, checking that
//!   every decision is accepted; the `catan-arena` binary runs it on many games.
//! - `kind`: [`strategy`], the strategy of each [`catan_protocol::BotKind`], for
//!   rooms and command lines.
//! - `driver`: [`SeatDriver`], the one driver that plays a seat from protocol
//!   messages, for the server's built-in bots and for `catan-bot` over WebSocket.

pub mod arena;
mod board;
mod driver;
mod heuristic;
mod kind;
mod plan;
mod random;
mod search;

use catan_engine::{Action, ActionKind, Event, GameView};
use rand::RngCore;

pub use catan_protocol::BotKind;
pub use driver::SeatDriver;
pub use heuristic::{HeuristicBot, Level};
pub use kind::strategy;
pub use random::RandomBot;
pub use search::{Budget, SearchBot, playouts_begun};

/// A way of playing: picks one of a seat's legal actions from that seat's view.
///
/// `legal` is the seat's legal list as the engine (or the server) gives it, so the
/// `discard`, `offer_trade` and `counter_offer` kinds appear as one representative
/// each: a strategy turns the `discard` representative into its own choice of exactly
/// as many cards from `view.me`'s hand, and makes no offers unless it implements
/// them. Object safe, so rooms and the arena can hold `Box<dyn Strategy>`.
pub trait Strategy {
    /// The strategy's name: its [`BotKind`]'s (`"easy"`, `"medium"`, `"hard"`,
    /// `"random"`).
    fn name(&self) -> &'static str;

    /// Chooses an action. `legal` must not be empty; the result is one of `legal`, or
    /// a `discard` of the representative's count of cards from the seat's own hand.
    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action;

    /// Takes in one event as the seat received it (redacted for it,
    /// [`catan_engine::Event::redact_for`]), in order, before the next `choose`. A
    /// strategy that remembers what it saw (the hard level counts cards) uses it;
    /// the view already holds everything else, so the default ignores it.
    fn observe(&mut self, event: &Event) {
        let _ = event;
    }
}

/// The part of `legal` that asks for a decision now: answers to offers this seat has
/// already accepted or rejected are dropped, so that a bot outside its turn does not
/// flip its answer back and forth while an offer stays open.
#[must_use]
pub fn actionable(view: &GameView, legal: &[Action]) -> Vec<Action> {
    let Some(me) = view.me.map(|m| m.seat) else {
        return Vec::new();
    };
    legal
        .iter()
        .copied()
        .filter(|a| {
            let offer = match *a {
                Action::AcceptOffer { offer }
                | Action::RejectOffer { offer }
                | Action::CounterOffer { offer, .. } => offer,
                _ => return true,
            };
            view.offers
                .iter()
                .find(|o| o.id == offer)
                .is_some_and(|o| !o.has_accepted(me) && !o.has_rejected(me))
        })
        .collect()
}

/// Whether `a` is a player-trade proposal (`offer_trade` or `counter_offer`).
#[must_use]
pub fn is_proposal(a: &Action) -> bool {
    matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer)
}
