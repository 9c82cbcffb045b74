//! Test harness for the end-to-end suite: starts the real server on a loopback port
//! and talks to it like a client would, over HTTP and WebSocket.
//!
//! # Layout
//!
//! - `server`: [`TestServer`], the server under test, started in this process (on
//!   test defaults, a tweaked configuration or a given store) or as a child process,
//!   and stopped, shut down, signalled or killed.
//! - `process`: the child-process server (this test binary re-run as
//!   `persistence::child_server`), its output kept line by line.
//! - `api`: the lobby's HTTP calls a test needs to succeed, and the admin API with
//!   the admin token.
//! - `client`: [`Client`], one WebSocket client of a room, every message parsed and
//!   kept, each wait bounded by [`RECV_TIMEOUT`].
//! - `play`: random play to the end with the built-in bots' driver
//!   ([`play_randomly`]), and a [`Table`] of clients steered together.
//! - `databases`: a fresh SQLite file, a fresh PostgreSQL database, the scratch
//!   PostgreSQL cluster with passwords and TLS ([`ScratchPostgres`]).
//! - `faulty`: [`FaultyStore`], a store that refuses, delays or hangs on command.
//! - `machine`: the machine's cores, held by the tests that keep several busy
//!   ([`hold_cores`]).

mod api;
mod client;
mod databases;
mod faulty;
mod machine;
mod play;
mod process;
mod server;

pub use client::{Client, RECV_TIMEOUT, latest_legal};
pub use databases::{
    ScratchPostgres, fresh_postgres_url, fresh_sqlite_url, postgres_admin_url, scratch_postgres,
};
pub use faulty::FaultyStore;
pub use machine::{HeldCores, Load, hold_cores};
pub use play::{Table, play_randomly, play_randomly_paced};
pub use server::TestServer;
