//! Every input kept in `fuzz/regressions/<target>/` (crashes a fuzzer found, and a
//! few seeds that reach far into a game) runs through its target's check.

use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(target);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| {
            let p = e.expect("entry").path();
            let bytes = std::fs::read(&p).expect("read input");
            (p.display().to_string(), bytes)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} holds no input", dir.display());
    out
}

#[test]
fn engine_apply_regressions() {
    for (name, data) in inputs("engine_apply") {
        eprintln!("{name}");
        catan_fuzz::engine_apply(&data);
    }
}

#[test]
fn client_message_regressions() {
    for (name, data) in inputs("client_message") {
        eprintln!("{name}");
        catan_fuzz::client_message(&data);
    }
}

#[test]
fn lobby_bodies_regressions() {
    for (name, data) in inputs("lobby_bodies") {
        eprintln!("{name}");
        catan_fuzz::lobby_bodies(&data);
    }
}
