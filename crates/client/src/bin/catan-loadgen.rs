//! `catan-loadgen`: plays many rooms of 4 random clients against a catan-server on
//! this machine (loopback only) and reports throughput, latency, rejections, errors
//! and the server's memory and CPU per action. See `bench/load.sh`.

use std::process::ExitCode;
use std::time::Duration;

use catan_client::loadgen::{self, LoadConfig};
use catan_client::target;
use clap::Parser;

/// Load generator for catan-server (loopback targets only).
#[derive(Debug, Parser)]
#[command(name = "catan-loadgen", version)]
struct Args {
    /// Server URL, e.g. `ws://127.0.0.1:8080`; only 127.0.0.0/8, ::1 or localhost.
    /// Given more than once, the instances of one cluster: room slots go to them in
    /// turn.
    #[arg(long, default_value = "ws://127.0.0.1:8080")]
    url: Vec<String>,
    /// With several `--url`s: open each room's WebSockets at the next instance after
    /// the one that owns it, so every socket is forwarded (the cost of forwarding).
    #[arg(long)]
    forward: bool,
    /// Concurrent room slots (4 seats each), at most 10000.
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Measured window in seconds (at most 600).
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// Warm-up before the window in seconds (at most 120), from the moment every
    /// room has been set up and started.
    #[arg(long, default_value_t = 2)]
    warmup: u64,
    /// Pause before each action, ms (0 = as fast as the server answers).
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// The server's process id, for its RSS and CPU time.
    #[arg(long)]
    server_pid: Option<u32>,
    /// An action not acknowledged within this many ms is an error.
    #[arg(long, default_value_t = 10_000)]
    action_timeout_ms: u64,
    /// Rooms set up at once (HTTP calls and WebSocket upgrades).
    #[arg(long, default_value_t = 64)]
    setup_concurrency: usize,
    /// Idle mode: create, seat, connect and start the rooms, then hold them.
    #[arg(long)]
    idle: bool,
    /// In idle mode, connect the seats of at most this many rooms (default: as many
    /// as this process's open-file limit allows).
    #[arg(long)]
    idle_connect_rooms: Option<usize>,
    /// Server RSS sampling interval, s.
    #[arg(long, default_value_t = 10)]
    sample_secs: u64,
    /// Seed of the clients' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Add one misbehaving spectator to each room, by room in turn: flooding chat
    /// and pings, never reading, sending garbage, or reconnecting without end.
    /// The report's latency and counts stay those of the well-behaved seats.
    #[arg(long)]
    misbehave: bool,
    /// Connect every client from the system's choice of local address instead of
    /// one loopback address per room (127.1.x.y, misbehaving spectators 127.2.x.y);
    /// the server's per-address limits then see all of them as one client.
    #[arg(long)]
    one_address: bool,
    /// Quick play, first step: make `--queue-people` guests (at the `--url`s in
    /// turn) and write DIR/people.jsonl and DIR/ratings.sql (the SQL that gives
    /// each a rating drawn around 1000, spread 300; apply it to the database).
    #[arg(long, value_name = "DIR")]
    queue_prepare: Option<std::path::PathBuf>,
    /// Quick play, second step: the people of DIR/people.jsonl arrive at
    /// `--queue-per-sec`, join the queue over its WebSocket for a table of four
    /// allowing bots, and connect to their seats; reports the waits, the tables
    /// completed by bots and the rating spread at tables.
    #[arg(long, value_name = "DIR")]
    queue_run: Option<std::path::PathBuf>,
    /// Guests `--queue-prepare` makes.
    #[arg(long, default_value_t = 2400)]
    queue_people: usize,
    /// People arriving per second in `--queue-run`.
    #[arg(long, default_value_t = 20.0)]
    queue_per_sec: f64,
    /// Seconds after the last arrival that people still waiting may take.
    #[arg(long, default_value_t = 90)]
    queue_grace_secs: u64,
}

/// The quick-play steps (`--queue-prepare`, `--queue-run`).
fn queue(args: &Args, targets: Vec<target::Target>) -> ExitCode {
    use loadgen::queue;
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    if let Some(dir) = &args.queue_prepare {
        return match runtime.block_on(queue::prepare(&targets, args.queue_people, args.seed, dir)) {
            Ok(()) => {
                println!("{} people in {}", args.queue_people, dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("catan-loadgen: {e}");
                ExitCode::from(1)
            }
        };
    }
    let Some(dir) = &args.queue_run else {
        return ExitCode::from(2);
    };
    let people = match queue::read_people(dir) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("catan-loadgen: {e}");
            return ExitCode::from(2);
        }
    };
    if !(args.queue_per_sec > 0.0 && args.queue_per_sec <= 1000.0) {
        eprintln!("catan-loadgen: --queue-per-sec must be in (0, 1000]");
        return ExitCode::from(2);
    }
    let load = queue::QueueLoad {
        targets,
        per_sec: args.queue_per_sec,
        grace: Duration::from_secs(args.queue_grace_secs.min(600)),
    };
    let r = runtime.block_on(queue::run(&load, &people));
    println!(
        "queue: {} people at {}/s on {} instance(s): seated {} unseated {} errors {}",
        r.people, r.per_sec, r.instances, r.seated, r.unseated, r.errors
    );
    for e in &r.error_samples {
        println!("  error: {e}");
    }
    println!(
        "wait s p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}; seat to start s p50 {:.1} p99 {:.1}",
        r.wait_p50_s, r.wait_p90_s, r.wait_p99_s, r.wait_max_s, r.start_p50_s, r.start_p99_s
    );
    println!(
        "tables {} with bots {:.1}% (bot seats {:.1}%); rating spread at a table p50 {:.0} p90 {:.0} max {:.0} (ratings sd {:.0})",
        r.tables,
        100.0 * r.tables_with_bots,
        100.0 * r.bot_seats,
        r.spread_p50,
        r.spread_p90,
        r.spread_max,
        r.rating_sd
    );
    if args.json {
        println!("{}", serde_json::to_string(&r).expect("report serializes"));
    }
    if r.errors > 0 || r.unseated > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// This process's soft limit on open files (`/proc/self/limits`).
fn nofile_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(1024)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let targets: Result<Vec<_>, _> = args.url.iter().map(|u| target::parse_loopback(u)).collect();
    let mut targets = match targets {
        Ok(t) => t.into_iter(),
        Err(e) => {
            eprintln!("catan-loadgen: {e}");
            return ExitCode::from(2);
        }
    };
    if args.queue_prepare.is_some() || args.queue_run.is_some() {
        return queue(&args, targets.collect());
    }
    let Some(target) = targets.next() else {
        eprintln!("catan-loadgen: give --url");
        return ExitCode::from(2);
    };
    let fds = nofile_limit();
    // Leave room for the HTTP connections of the set-up and, since the server on the
    // same machine usually has the same limit, for its listener, database and
    // those HTTP connections on its side (1,024 was not always enough for 10,000
    // idle rooms under a 20,000 limit).
    let per_room = if args.misbehave { 5 } else { 4 };
    let fit = fds.saturating_sub(2048) / per_room;
    if !args.idle && args.rooms > fit {
        eprintln!(
            "catan-loadgen: {} rooms need {} sockets but the open-file limit is {fds} (raise it with `ulimit -n`)",
            args.rooms,
            args.rooms * per_room
        );
        return ExitCode::from(2);
    }
    let mut config = LoadConfig::new(target);
    config.more_targets = targets.collect();
    config.forward = args.forward;
    config.rooms = args.rooms;
    config.duration = Duration::from_secs(args.duration);
    config.warmup = Duration::from_secs(args.warmup);
    config.think = Duration::from_millis(args.think_ms);
    config.server_pid = args.server_pid;
    config.action_timeout = Duration::from_millis(args.action_timeout_ms);
    config.setup_concurrency = args.setup_concurrency;
    config.idle = args.idle;
    config.idle_connect_rooms = args.idle_connect_rooms.unwrap_or(fit).min(fit);
    config.sample_every = Duration::from_secs(args.sample_secs.max(1));
    config.seed = args.seed;
    config.misbehave = args.misbehave;
    config.spread_addresses = !args.one_address;
    if let Err(e) = config.check() {
        eprintln!("catan-loadgen: {e}");
        return ExitCode::from(2);
    }
    // The misbehaving clients get a runtime and a thread of their own (see
    // `LoadConfig::misbehave_runtime`); it lives until the end of main.
    let misbehave_runtime = args.misbehave.then(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("misbehave")
            .enable_all()
            .build()
            .expect("tokio runtime for the misbehaving clients")
    });
    config.misbehave_runtime = misbehave_runtime.as_ref().map(|r| r.handle().clone());
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let report = match runtime.block_on(loadgen::run(config)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("catan-loadgen: {e}");
            return ExitCode::from(2);
        }
    };
    let opt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
    println!(
        "mode {} rooms {} connections {} think {} ms window {} s",
        report.mode, report.rooms, report.connections, report.think_ms, report.duration_s
    );
    println!(
        "games finished {} (total {}, bad results {}) actions {} ({:.0}/s, total {})",
        report.games_finished,
        report.games_finished_total,
        report.bad_results,
        report.actions,
        report.actions_per_s,
        report.actions_total
    );
    println!(
        "latency ms p50 {:.2} p90 {:.2} p99 {:.2} p999 {:.2} max {:.2}",
        report.p50_ms, report.p90_ms, report.p99_ms, report.p999_ms, report.max_ms
    );
    println!(
        "rejected {} errors {} dropped {}",
        report.rejected, report.errors, report.dropped
    );
    for e in &report.error_samples {
        println!("  error: {e}");
    }
    println!("stalled rooms {}", report.stalled_rooms);
    if args.misbehave {
        println!(
            "misbehaving clients: {} connections ({} refused), {} frames sent, closed by code {:?}",
            report.misbehaving_connections,
            report.misbehaving_refused,
            report.misbehaving_sent,
            report.misbehaving_closes
        );
    }
    println!(
        "server RSS {} KiB ({} KiB/connection, {} KiB/room, slope {} KiB/min) CPU {}% ({} µs/action), loadgen CPU {}%",
        report
            .server_rss_kib
            .map_or("-".to_owned(), |v| v.to_string()),
        opt(report.rss_per_conn_kib),
        opt(report.rss_per_room_kib),
        opt(report.rss_slope_kib_per_min),
        opt(report.server_cpu_pct),
        opt(report.server_cpu_per_action_us),
        opt(report.loadgen_cpu_pct),
    );
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).expect("report serializes")
        );
    }
    if report.errors > 0 || report.rejected > 0 || report.bad_results > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
