//! Quick play: a queue that seats people at tables of three or four by rating.
//! So far its rule only: the queue itself (its calls, its rows, its work across a
//! cluster's instances) is not built yet, and nothing on the wire uses this.
//!
//! # Layout
//!
//! - [`matcher`]: how tables form from the tickets waiting: the rating window that
//!   widens with the wait, the longest waiting first, parties seated together, bots
//!   after a wait. Pure: no runtime, store or clock.

pub mod matcher;
