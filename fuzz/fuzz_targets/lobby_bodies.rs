//! The lobby request bodies (see `catan_fuzz::lobby_bodies`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| catan_fuzz::lobby_bodies(data));
