//! `catan-arena`: plays many games between bot strategies and reports each one's
//! share of the wins.
//!
//! ```text
//! catan-arena --games 1000 --bots heuristic,random,random,random --seed 1
//! catan-arena --games 1000 --bots heuristic,heuristic,heuristic,heuristic --json
//! ```
//!
//! `--bots` names one strategy per seat; the lineup rotates one seat per game, so
//! each entry sits in every seat equally often. Game `i` uses the game seed
//! `seed * 1_000_003 + i`, so a run gives the same games whatever `--threads` is.
//! Every bot decides from `game.view(Some(seat))` and `game.legal_actions(seat)`; a
//! choice the engine refuses is counted as an error and makes the exit status 1.

use std::process::ExitCode;
use std::time::Instant;

use catan_bots::BotKind;
use catan_bots::arena::{self, Tally};
use catan_engine::{GameOptions, MapKind};

/// Command-line options.
#[derive(Debug)]
struct Args {
    /// Games to play.
    games: u64,
    /// One strategy per seat, rotating game by game.
    lineup: Vec<BotKind>,
    /// Base seed.
    seed: u64,
    /// Victory points to win.
    vp_target: u8,
    /// Fixed beginner map instead of random maps.
    beginner: bool,
    /// Worker threads.
    threads: u64,
    /// One JSON object on stdout instead of text.
    json: bool,
}

const USAGE: &str = "usage: catan-arena [--games N] [--bots K,K,K[,K]] [--seed S] \
[--vp-target T] [--beginner] [--threads N] [--json]\n  bot kinds: random, heuristic";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        games: 1000,
        lineup: vec![
            BotKind::Heuristic,
            BotKind::Random,
            BotKind::Random,
            BotKind::Random,
        ],
        seed: 1,
        vp_target: 10,
        beginner: false,
        threads: 1,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--games" => args.games = number(&value()?)?,
            "--seed" => args.seed = number(&value()?)?,
            "--threads" => args.threads = number::<u64>(&value()?)?.max(1),
            "--vp-target" => args.vp_target = number(&value()?)?,
            "--bots" => {
                args.lineup = value()?
                    .split(',')
                    .map(|k| k.parse::<BotKind>().map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?;
            }
            "--beginner" => args.beginner = true,
            "--json" => args.json = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("not a number: {s}"))
}

/// Splits the games into `threads` contiguous ranges played in parallel.
fn run(args: &Args, options: GameOptions) -> Tally {
    let per = args.games.div_ceil(args.threads);
    let mut total = Tally::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..args.threads)
            .map(|t| {
                let range = (t * per).min(args.games)..((t + 1) * per).min(args.games);
                s.spawn(move || arena::run(&args.lineup, options, args.seed, range))
            })
            .collect();
        for h in handles {
            total.merge(h.join().expect("a worker panicked"));
        }
    });
    total
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("catan-arena: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let options = GameOptions {
        players: u8::try_from(args.lineup.len()).unwrap_or(0),
        vp_target: args.vp_target,
        map: if args.beginner {
            MapKind::Beginner
        } else {
            MapKind::Random
        },
    };
    if let Err(e) = options.validate() {
        eprintln!("catan-arena: {e} (one --bots entry per seat)");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let tally = run(&args, options);
    let secs = started.elapsed().as_secs_f64();
    report(&args, &tally, secs);
    for e in tally.errors.iter().take(10) {
        eprintln!("catan-arena: {e}");
    }
    if tally.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints the summary, as text or one JSON object.
fn report(args: &Args, tally: &Tally, secs: f64) {
    let mut kinds: Vec<BotKind> = args.lineup.clone();
    kinds.sort();
    kinds.dedup();
    let finished = tally.finished().max(1) as f64;
    let summary = Summary {
        lineup: args.lineup.iter().map(|k| k.name()).collect(),
        kinds: kinds
            .iter()
            .map(|&k| (k, tally.share(&args.lineup, k)))
            .collect(),
        entries: tally.wins.iter().map(|&w| w as f64 / finished).collect(),
        mean_turns: tally.turns as f64 / finished,
        mean_actions: tally.actions as f64 / tally.games.max(1) as f64,
        games_per_sec: tally.games as f64 / secs.max(1e-9),
    };
    if args.json {
        print_json(args, tally, &summary, secs);
    } else {
        print_text(args, tally, &summary, secs);
    }
}

/// The figures of a run, as printed.
struct Summary {
    /// Kind of each lineup entry.
    lineup: Vec<&'static str>,
    /// Win share per kind present.
    kinds: Vec<(BotKind, f64)>,
    /// Win share per lineup entry.
    entries: Vec<f64>,
    /// Mean normal turns of the finished games.
    mean_turns: f64,
    /// Mean actions per game.
    mean_actions: f64,
    /// Throughput.
    games_per_sec: f64,
}

fn print_json(args: &Args, tally: &Tally, s: &Summary, secs: f64) {
    let kinds: Vec<String> = s
        .kinds
        .iter()
        .map(|(k, share)| format!("\"{k}\":{share:.4}"))
        .collect();
    let entries: Vec<String> = s.entries.iter().map(|e| format!("{e:.4}")).collect();
    println!(
        "{{\"games\":{},\"finished\":{},\"errors\":{},\"seed\":{},\"vp_target\":{},\
\"lineup\":[\"{}\"],\"win_share_by_entry\":[{}],\"win_share_by_kind\":{{{}}},\
\"mean_turns\":{:.2},\"mean_actions\":{:.1},\"elapsed_sec\":{:.3},\"games_per_sec\":{:.1}}}",
        tally.games,
        tally.finished(),
        tally.errors.len(),
        args.seed,
        args.vp_target,
        s.lineup.join("\",\""),
        entries.join(","),
        kinds.join(","),
        s.mean_turns,
        s.mean_actions,
        secs,
        s.games_per_sec
    );
}

fn print_text(args: &Args, tally: &Tally, s: &Summary, secs: f64) {
    println!(
        "{} games ({} finished, {} errors), lineup {} rotating, seed {}, {} thread(s), {:.2} s",
        tally.games,
        tally.finished(),
        tally.errors.len(),
        s.lineup.join(","),
        args.seed,
        args.threads,
        secs
    );
    for (k, share) in &s.kinds {
        println!("win share {k}: {:.1}%", 100.0 * share);
    }
    let entries: Vec<String> = s
        .entries
        .iter()
        .zip(&s.lineup)
        .enumerate()
        .map(|(i, (e, k))| format!("#{i} {k} {:.1}%", 100.0 * e))
        .collect();
    println!("by entry: {}", entries.join(", "));
    println!(
        "mean turns/game: {:.1}   mean actions/game: {:.1}   games/s: {:.1}",
        s.mean_turns, s.mean_actions, s.games_per_sec
    );
}
