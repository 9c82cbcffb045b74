//! The client-message parser (see `catan_fuzz::client_message`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| catan_fuzz::client_message(data));
