//! Games over days beyond one room (docs/protocol/27-games-over-days.md). The clock
//! itself is the room's (`room::state` keeps it as a fold over the log); here is
//! what spans rooms.
//!
//! # Layout
//!
//! - [`mine`]: `GET /api/me/games`, every game a player has a seat in, the moves
//!   that are theirs first.

pub mod mine;
