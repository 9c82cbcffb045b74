//! The end-to-end suite: one test binary driving the real server over real sockets.

mod admin;
mod bad_input;
mod browser;
mod deploy;
mod game;
mod idle;
mod loadgen;
mod lobby;
mod persistence;
mod protocol_doc;
mod reconnect;
mod shutdown;
mod store;
mod timers;
