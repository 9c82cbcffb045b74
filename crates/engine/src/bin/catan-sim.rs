//! `catan-sim`: plays many random-legal games to the end and reports throughput and
//! outcomes; with `--check` it also verifies the engine's invariants after every action.
//!
//! ```text
//! catan-sim --games 10000 --players 4 --seed 1            # one thread, progress bar
//! catan-sim --games 100000 --check --threads 2 --json     # one JSON object on stdout
//! ```
//!
//! Game `i` of a run uses the game seed `seed * 1_000_003 + i` and a player seeded
//! from that, so a run gives the same games whatever the number of threads.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use catan_engine::playout::RandomPlayer;
use catan_engine::{DEFAULT_TURN_LIMIT, Game, GameOptions, MAX_SEATS, MapKind, invariants};
use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Actions after which a game counts as runaway (a violation).
const MAX_ACTIONS: u64 = 100_000;
/// Games a worker plays between two progress-bar updates.
const PROGRESS_EVERY: u64 = 64;
/// Errors printed in full before the rest are only counted.
const MAX_REPORTED: u64 = 10;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "catan-sim",
    version,
    about = "Plays random-legal Catan games and reports throughput"
)]
struct Args {
    /// Number of games to play.
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Players per game (3 or 4).
    #[arg(long, default_value_t = 4)]
    players: u8,
    /// Base seed; game `i` uses `seed * 1_000_003 + i`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Victory points needed to win (3..=20).
    #[arg(long, default_value_t = 10)]
    vp_target: u8,
    /// Play on the fixed beginner map instead of random maps.
    #[arg(long)]
    beginner: bool,
    /// Turns after which a game ends with no winner (R-10.5; 100..=5000).
    #[arg(long, default_value_t = DEFAULT_TURN_LIMIT)]
    turn_limit: u16,
    /// Worker threads; the games are split among them.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Verify the engine invariants after every action; exit non-zero on a violation.
    #[arg(long)]
    check: bool,
    /// Print the summary as one JSON object (and no progress bar).
    #[arg(long)]
    json: bool,
}

/// What one worker (or the whole run) counted.
#[derive(Debug, Default, Clone)]
struct Tally {
    /// Games played to the end or abandoned on an error.
    games: u64,
    /// Actions applied (list + choose + apply).
    actions: u64,
    /// Normal turns of the games won.
    turns: u64,
    /// Wins per seat.
    wins: [u64; MAX_SEATS],
    /// Games the turn limit ended with no winner (R-10.5).
    no_winner: u64,
    /// Engine errors and invariant violations.
    violations: u64,
    /// The first few violations, described.
    reports: Vec<String>,
    /// Order-independent fingerprint of every game's outcome, to compare builds.
    digest: u64,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.games += other.games;
        self.actions += other.actions;
        self.turns += other.turns;
        self.no_winner += other.no_winner;
        for (a, b) in self.wins.iter_mut().zip(other.wins) {
            *a += b;
        }
        self.violations += other.violations;
        self.reports.extend(other.reports);
        self.digest = self.digest.wrapping_add(other.digest);
    }

    fn violation(&mut self, what: String) {
        self.violations += 1;
        if (self.reports.len() as u64) < MAX_REPORTED {
            self.reports.push(what);
        }
    }
}

/// The seed of game `i` of a run with base seed `seed`.
fn game_seed(seed: u64, i: u64) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(i)
}

/// A hash of how game `i` ended: FNV-1a over its length, winner, bank and pieces.
fn fingerprint(i: u64, actions: u64, game: &Game) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(i);
    eat(actions);
    eat(u64::from(game.turn()));
    eat(game.winner().map_or(u64::MAX, |w| u64::from(w.0)));
    for n in game.bank().0 {
        eat(u64::from(n));
    }
    for s in game.seats() {
        let p = game.player(s);
        eat(p.settlements);
        eat(p.cities);
        eat(p.roads as u64);
        eat((p.roads >> 64) as u64);
        eat(u64::from(p.road_length) << 8 | u64::from(p.knights_played));
    }
    h
}

/// CPU time used by the whole process so far (user + system), from `/proc/self/stat`
/// in clock ticks of 10 ms; `None` where that file does not exist.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// Plays games `range` and counts them.
fn worker(
    args: &Args,
    options: GameOptions,
    range: std::ops::Range<u64>,
    bar: &ProgressBar,
) -> Tally {
    let mut tally = Tally::default();
    let mut events = Vec::with_capacity(64);
    let mut since_update = 0;
    for i in range {
        let seed = game_seed(args.seed, i);
        let mut game = Game::new(options, seed).expect("options were validated");
        let mut player = RandomPlayer::new(seed ^ 0x9E37_79B9_7F4A_7C15);
        tally.games += 1;
        let mut actions = 0;
        while !game.is_over() {
            if actions >= MAX_ACTIONS {
                tally.violation(format!(
                    "game {i} (seed {seed}): not over after {actions} actions"
                ));
                break;
            }
            events.clear();
            if let Err(e) = player.step(&mut game, &mut events) {
                tally.violation(format!("game {i} (seed {seed}), action {actions}: {e}"));
                break;
            }
            actions += 1;
            if args.check
                && let Err(e) = invariants::check(&game)
            {
                tally.violation(format!(
                    "game {i} (seed {seed}), action {actions}: invariant: {e}"
                ));
                break;
            }
        }
        tally.actions += actions;
        tally.digest = tally.digest.wrapping_add(fingerprint(i, actions, &game));
        if let Some(w) = game.winner() {
            tally.turns += u64::from(game.turn());
            tally.wins[w.index()] += 1;
        } else if game.is_over() {
            tally.no_winner += 1;
        }
        since_update += 1;
        if since_update == PROGRESS_EVERY {
            bar.inc(since_update);
            since_update = 0;
        }
    }
    bar.inc(since_update);
    tally
}

/// Splits `0..games` into `threads` contiguous ranges and plays them in parallel.
fn run(args: &Args, options: GameOptions, bar: &ProgressBar) -> Tally {
    let threads = args.threads.max(1) as u64;
    let per = args.games.div_ceil(threads);
    let mut total = Tally::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let start = (t * per).min(args.games);
                let end = ((t + 1) * per).min(args.games);
                s.spawn(move || worker(args, options, start..end, bar))
            })
            .collect();
        for h in handles {
            total.merge(h.join().expect("a worker panicked"));
        }
    });
    total
}

fn per_sec(n: u64, elapsed: Duration) -> f64 {
    n as f64 / elapsed.as_secs_f64().max(1e-9)
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = GameOptions::default()
        .with_players(args.players)
        .with_vp_target(args.vp_target)
        .with_map(if args.beginner {
            MapKind::Beginner
        } else {
            MapKind::Random
        })
        .with_turn_limit(args.turn_limit);
    if let Err(e) = options.validate() {
        eprintln!("catan-sim: {e}");
        return ExitCode::from(2);
    }
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        // indicatif hides a stderr bar by itself when stderr is not a terminal.
        let bar = ProgressBar::with_draw_target(Some(args.games), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games, {elapsed} elapsed, eta {eta}",
            )
            .expect("valid template"),
        );
        bar
    };
    let cpu_before = cpu_seconds();
    let started = Instant::now();
    let tally = run(&args, options, &bar);
    let elapsed = started.elapsed();
    let cpu_sec = cpu_seconds().zip(cpu_before).map(|(a, b)| a - b);
    bar.finish_and_clear();

    let players = usize::from(args.players);
    let finished: u64 = tally.wins.iter().sum();
    let win_share: Vec<f64> = tally.wins[..players]
        .iter()
        .map(|&w| ratio(w, finished))
        .collect();
    let ns_per_action = elapsed.as_nanos() as f64 / tally.actions.max(1) as f64;
    if args.json {
        let summary = serde_json::json!({
            "games": tally.games,
            "players": args.players,
            "vp_target": args.vp_target,
            "seed": args.seed,
            "threads": args.threads.max(1),
            "check": args.check,
            "elapsed_sec": elapsed.as_secs_f64(),
            "games_per_sec": per_sec(tally.games, elapsed),
            "actions_per_sec": per_sec(tally.actions, elapsed),
            "ns_per_action": ns_per_action,
            "cpu_sec": cpu_sec,
            "cpu_ns_per_action": cpu_sec.map(|c| c * 1e9 / tally.actions.max(1) as f64),
            "digest": format!("{:016x}", tally.digest),
            "mean_actions": ratio(tally.actions, tally.games),
            "mean_turns": ratio(tally.turns, finished),
            "win_share": win_share,
            "no_winner": tally.no_winner,
            "violations": tally.violations,
        });
        println!("{summary}");
    } else {
        println!(
            "{} games, {} players, vp target {}, seed {}, {} thread(s){} in {:.3} s",
            tally.games,
            args.players,
            args.vp_target,
            args.seed,
            args.threads.max(1),
            if args.check {
                ", invariants checked"
            } else {
                ""
            },
            elapsed.as_secs_f64()
        );
        println!(
            "games/s: {:.0}   actions/s: {:.0}   ns/action: {:.1}",
            per_sec(tally.games, elapsed),
            per_sec(tally.actions, elapsed),
            ns_per_action
        );
        if let Some(c) = cpu_sec {
            println!(
                "cpu: {:.3} s, {:.1} ns/action (wall time above includes waiting for a core)",
                c,
                c * 1e9 / tally.actions.max(1) as f64
            );
        }
        println!(
            "mean actions/game: {:.1}   mean turns/game: {:.1}",
            ratio(tally.actions, tally.games),
            ratio(tally.turns, finished)
        );
        let shares: Vec<String> = win_share
            .iter()
            .enumerate()
            .map(|(s, w)| format!("seat {s} {:.1}%", 100.0 * w))
            .collect();
        println!(
            "win share: {}   ended without a winner (turn limit {}): {}",
            shares.join(", "),
            args.turn_limit,
            tally.no_winner
        );
        println!(
            "violations: {}   digest: {:016x}",
            tally.violations, tally.digest
        );
    }
    for r in &tally.reports {
        eprintln!("catan-sim: {r}");
    }
    if tally.violations > 0 {
        if tally.violations > tally.reports.len() as u64 {
            eprintln!(
                "catan-sim: ... and {} more",
                tally.violations - tally.reports.len() as u64
            );
        }
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
