//! The rules, one module per part of RULES.md. Each adds methods to [`crate::Game`]
//! that validate first and only then change the game, so a refusal changes nothing.

mod awards;
mod build;
mod dev_card;
mod legal;
mod robber;
mod roll;
mod setup;
mod timeout;
mod trade;
mod turn;

pub use awards::{LARGEST_ARMY_MIN, LONGEST_ROAD_MIN};
pub use awards::{longest_route, route_length};
pub use build::{distance_ok, distance_ok_vertices, road_spots, settlement_spots};
pub use legal::setup_seat;
pub(crate) use roll::tiles_by_number;
pub use trade::MAX_OPEN_OFFERS;
pub(crate) use trade::{harbors_in_reach, maritime_ratios};
