//! A deterministic, I/O-free rules engine for the base game of Catan (3-4 players).
//!
//! It knows every rule of `RULES.md` (cited as R-x.y throughout) and nothing about
//! networks, clocks or databases. A [`Game`] is created from [`GameOptions`] and a
//! seed; it changes only through [`Game::apply`], which either returns the
//! [`Event`]s that happened or an [`ActionError`] and leaves the game untouched.
//!
//! # Layout
//!
//! - [`board`]: fixed topology (19 tiles, 54 intersections, 72 paths, 9 harbors) and maps.
//! - `resource`, `dev_card`, `seat`, `options`, `trade`: vocabulary types.
//! - `action` / `event`: requests and facts; `error`: why a request was refused.
//! - `phase`: where a turn is; `game`: the state and `apply`.
//! - `position`: [`Position`], a game described from outside (a puzzle, an editor, a
//!   test; scripted dice included), made a [`Game`] only by [`Game::from_position`],
//!   which refuses it with a [`PositionError`] (`position_error`) citing the broken rule.
//! - `saved`: a `Game` as JSON, written as its `Position` (no number above 2^53) and
//!   read in that format or the one before it; `decimal`: the wide integers of both
//!   (seed, generator position) as decimal strings.
//! - `replay`: [`Replay`], a log of actions replayed from a game's start, the one way a
//!   stored game is rebuilt (with the turn-limit rule for logs older than it, R-10.5).
//! - `rules/`: one module per part of the rules (setup, roll, build, robber, dev
//!   cards, trade, awards, turn, time-outs) plus the legal-action listing.
//! - `stats`: [`GameStats`] of a finished game (points by source, dice, resources
//!   gained and lost), counted once from its events by a [`Tally`].
//! - [`playout`]: a seeded random-legal player for the simulator, benches and tests.
//! - `view`: per-seat redaction; events are redacted by [`Event::redact_for`]. A
//!   [`GameView`] follows the game from its seat's redacted events
//!   ([`GameView::apply`]) and answers rule questions (distance rule, road spots,
//!   route lengths) with the engine's own rule functions.
//! - [`invariants`]: from-scratch checks of every reachable game, for tests and fuzzing,
//!   and the checks behind `Game::from_position` and deserializing a `Game`.
//!
//! # Walkthrough
//!
//! ```
//! use catan_engine::{Action, Actor, Game, GameOptions, Phase, Seat};
//!
//! let mut game = Game::new(GameOptions::default(), 42).unwrap();
//! // Setup: whoever is first places a settlement, then a road next to it (R-3.2).
//! let seat = game.current();
//! let settle = game.legal_actions(seat)[0];
//! let events = game.apply(seat, settle).unwrap();
//! assert!(!events.is_empty());
//!
//! // Out of turn is refused with a stable code, and nothing changes.
//! let other = Seat((seat.0 + 1) % 4);
//! let before = game.clone();
//! let err = game.apply(other, Action::RollDice).unwrap_err();
//! assert_eq!(err.code(), "not_your_turn");
//! assert_eq!(game, before);
//!
//! // Time enters as a system action: the timer places a road for the absent player.
//! game.apply(Actor::System, Action::TimeOut).unwrap();
//! assert!(matches!(game.phase(), Phase::Setup { index: 1, .. }));
//!
//! // Opponents see counts only (R-8.7); the seed is never in a view.
//! let view = game.view(Some(other));
//! assert_eq!(view.me.unwrap().seat, other);
//! ```

pub mod board;

mod action;
mod decimal;
mod dev_card;
mod error;
mod event;
mod game;
pub mod invariants;
mod options;
mod phase;
pub mod playout;
mod position;
mod position_error;
mod replay;
mod resource;
pub mod rules;
mod saved;
mod seat;
mod stats;
mod trade;
mod view;

#[cfg(test)]
mod tests;

pub use action::{Action, ActionKind};
pub use board::{EdgeId, TileId, VertexId};
pub use dev_card::{DevCard, DevCards};
pub use error::ActionError;
pub use event::Event;
pub use game::{
    BANK_PER_RESOURCE, CITIES_PER_PLAYER, Game, Player, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER,
};
pub use options::{
    DEFAULT_TURN_LIMIT, GameOptions, MapKind, OptionsError, TURN_LIMIT_MAX, TURN_LIMIT_MIN,
};
pub use phase::{Phase, Resume};
pub use position::{Holder, Position, SeatPosition};
pub use position_error::{Award, Piece, PositionError};
pub use replay::{Replay, ReplayError, ReplayedAction};
pub use resource::{Resource, Resources};
pub use seat::{Actor, MAX_SEATS, Seat};
pub use stats::{Gained, GameStats, Lost, PointsBySource, ResourceFlow, Tally};
pub use trade::{OfferClosed, OfferId, TradeOffer};
pub use view::{BuildingView, FinalScore, GameView, PlayerView, PrivateView, RoadView};
