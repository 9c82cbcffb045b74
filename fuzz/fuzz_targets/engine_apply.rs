//! The engine's `apply` on arbitrary action sequences (see `catan_fuzz::engine_apply`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| catan_fuzz::engine_apply(data));
