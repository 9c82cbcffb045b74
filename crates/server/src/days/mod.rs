//! Games over days beyond one room (docs/protocol/27-games-over-days.md). The clock
//! itself is the room's (`room::state` keeps it as a fold over the log); here is
//! what spans rooms.
//!
//! # Layout
//!
//! - [`mine`]: `GET /api/me/games`, every game a player has a seat in, the moves
//!   that are theirs first.
//! - [`wake`]: the loop that wakes sleeping rooms whose deadline comes (the rooms
//!   themselves fall asleep in their task; a request wakes one in
//!   `AppState::room`, both through `restore::Restorer::wake`).

pub mod mine;
pub mod wake;
