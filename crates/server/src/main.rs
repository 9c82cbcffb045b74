//! `catan-server`: the command line is [`catan_server::cli`]; `catan-server --help`
//! lists it.

/// jemalloc instead of the C library's allocator: glibc's `malloc` and `free` were
/// 8.6% of the server's CPU at the saturation load (1,000 rooms), jemalloc's are
/// about 2%. The server spends 9-14% less CPU an action there and 6-8% less at the
/// latency load, with a lower p99, for 1.1-1.5 KiB more a seat under load and 0.2
/// KiB less while games wait (bench/results-2026-12.md, "The allocator"). Its
/// build-time settings are in `.cargo/config.toml`.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    catan_server::cli::main()
}
