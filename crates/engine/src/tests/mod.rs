//! Rule scenarios: one file per part of RULES.md (trading, the longest, is a folder of
//! three), each test named as a sentence and citing the rule ids it covers. Positions
//! are built by editing the game's [`crate::Position`] (see `support`), then driven
//! through `Game::apply` only; `position` covers `Game::from_position` itself.

pub(crate) mod support;

mod awards;
mod build;
mod dev_cards;
mod position;
mod production;
mod redaction;
mod robber;
mod setup;
mod trade;
mod turn;
mod turn_limit;
mod win;
