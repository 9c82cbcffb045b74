//! The end-to-end suite: one test binary driving the real server over real sockets.

mod bad_input;
mod browser;
mod deploy;
mod game;
mod loadgen;
mod lobby;
mod persistence;
mod protocol_doc;
mod reconnect;
mod store;
mod timers;
