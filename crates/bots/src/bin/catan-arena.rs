//! `catan-arena`: plays many games between bot strategies and reports each one's
//! share of the wins.
//!
//! ```text
//! catan-arena --games 2000 --bots medium,easy,easy,easy --seed 1
//! catan-arena --games 200 --bots hard,medium,medium,medium --hard-ms 20 --json
//! catan-arena --games 600 --bots easy,medium,hard --hard-ms 0 --ratings
//! ```
//!
//! Each kind's win share is printed with its 95% confidence interval (normal
//! approximation of the binomial over the finished games), and the time its
//! decisions took (every `choose`: median, 99th percentile and longest, wall clock,
//! so on a loaded machine a preempted decision shows in the maximum). The hard level
//! thinks `--hard-ms` per searched decision (default 200), playing at most
//! `--hard-turn-playouts` whole games per searched decision of a turn (0: its turns
//! are the medium bot's) and `--hard-setup-playouts` per setup settlement (half as
//! many per setup road); `--hard-ms 0` leaves only those caps, so a run is
//! reproducible.
//!
//! `--playouts` also prints how many whole-game playouts the hard level's searched
//! decisions played (setup placements and turns apart: mean, median, fewest), the
//! measure of how much search its clock buys.
//!
//! `--bots` names one strategy per seat; the lineup rotates one seat per game, so
//! each entry sits in every seat equally often. Game `i` uses the game seed
//! `seed * 1_000_003 + i`, so a run gives the same games whatever `--threads` is.
//! Every bot decides from `game.view(Some(seat))` and `game.legal_actions(seat)`; a
//! choice the engine refuses is counted as an error and makes the exit status 1.
//! Every game ends (R-10.5): a game whose last allowed turn (`--turn-limit`, default
//! 1000) ends without a winner is finished with no winner, reported as such.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catan_bots::arena::{self, Tally};
use catan_bots::{BotKind, Budget, SearchBot, Strategy};
use catan_engine::{Action, DEFAULT_TURN_LIMIT, Event, GameOptions, GameView, MapKind};
use clap::Parser;
use rand::RngCore;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "catan-arena",
    version,
    about = "Plays many games between bot strategies and reports each one's share of the wins"
)]
struct Args {
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// One strategy per seat, rotating one seat per game: easy, medium, hard (levels),
    /// random (baseline).
    #[arg(
        long = "bots",
        value_name = "K,K,K[,K]",
        value_delimiter = ',',
        default_value = "medium,easy,easy,easy"
    )]
    lineup: Vec<BotKind>,
    /// Base seed; game `i` uses `seed * 1_000_003 + i`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Victory points to win (3..=20).
    #[arg(long, default_value_t = 10)]
    vp_target: u8,
    /// Turns after which a game ends with no winner (R-10.5; 100..=5000).
    #[arg(long, default_value_t = DEFAULT_TURN_LIMIT)]
    turn_limit: u16,
    /// Play on the fixed beginner map instead of random maps.
    #[arg(long)]
    beginner: bool,
    /// Worker threads; the games are split among them (0 counts as 1).
    #[arg(long, default_value_t = 1)]
    threads: u64,
    /// Print one JSON object on stdout instead of text.
    #[arg(long)]
    json: bool,
    /// Also rate each lineup entry as the server rates players (catan-ratings:
    /// Weng-Lin over each game's final order, every entry from a new player's
    /// rating, the games in order) and print each entry's mean and uncertainty:
    /// the calibration of the bots' fixed ratings (lineup of distinct levels).
    #[arg(long)]
    ratings: bool,
    /// The hard level's time per searched decision, in milliseconds (0: only the
    /// playout caps limit it, so a run is reproducible).
    #[arg(long, value_name = "MS", default_value_t = Budget::DEFAULT_TIME.as_millis() as u64)]
    hard_ms: u64,
    /// Whole games the hard level plays per searched decision of a turn, at most
    /// (0: its turns are the medium bot's).
    #[arg(long, value_name = "N", default_value_t = Budget::DEFAULT_TURN_PLAYOUTS)]
    hard_turn_playouts: u32,
    /// Whole games the hard level plays per setup settlement, at most (half as many
    /// per setup road).
    #[arg(long, value_name = "N", default_value_t = Budget::DEFAULT_SETUP_PLAYOUTS)]
    hard_setup_playouts: u32,
    /// Also print the whole-game playouts of the hard level's searched decisions.
    #[arg(long)]
    playouts: bool,
}

impl Args {
    /// Worker threads, at least one.
    fn threads(&self) -> u64 {
        self.threads.max(1)
    }

    /// The hard level's budget per decision.
    fn hard(&self) -> Budget {
        Budget {
            time: (self.hard_ms > 0).then(|| Duration::from_millis(self.hard_ms)),
            turn_playouts: self.hard_turn_playouts,
            setup_playouts: self.hard_setup_playouts,
        }
    }
}

/// Decision times in nanoseconds, one list per bot kind (in [`BotKind::ALL`] order).
type Times = Vec<Vec<u64>>;

/// Playouts per searched decision: the setup placements', then the turns'.
type Playouts = [Vec<u64>; 2];

/// A strategy whose every decision is timed into a shared list of its kind.
struct Timed {
    /// The strategy timed.
    inner: Box<dyn Strategy + Send>,
    /// Where its decision times go.
    times: Arc<Mutex<Vec<u64>>>,
    /// Where the playouts of its searched decisions go (hard bots' only).
    playouts: Arc<Mutex<Playouts>>,
}

impl Strategy for Timed {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        let begun = catan_bots::playouts_begun();
        let start = Instant::now();
        let a = self.inner.choose(view, legal, rng);
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.times.lock().expect("times lock").push(ns);
        let played = catan_bots::playouts_begun() - begun;
        if played > 0 {
            let setup = matches!(view.phase, catan_engine::Phase::Setup { .. });
            self.playouts.lock().expect("playouts lock")[usize::from(!setup)].push(played);
        }
        a
    }

    fn observe(&mut self, event: &Event) {
        self.inner.observe(event);
    }
}

/// Splits the games into `threads` contiguous ranges played in parallel; returns
/// the totals, every decision's time by kind and the hard level's playouts.
fn run(args: &Args, options: GameOptions) -> (Tally, Times, Playouts) {
    let threads = args.threads();
    let hard = args.hard();
    let per = args.games.div_ceil(threads);
    let mut total = Tally::default();
    let mut times: Times = vec![Vec::new(); BotKind::ALL.len()];
    let mut playouts = Playouts::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let range = (t * per).min(args.games)..((t + 1) * per).min(args.games);
                s.spawn(move || {
                    let lists: Vec<Arc<Mutex<Vec<u64>>>> =
                        BotKind::ALL.iter().map(|_| Arc::default()).collect();
                    let played: Arc<Mutex<Playouts>> = Arc::default();
                    let make = |k: BotKind| -> Box<dyn Strategy + Send> {
                        let inner: Box<dyn Strategy + Send> = match k {
                            BotKind::Hard => Box::new(SearchBot::new(hard)),
                            k => catan_bots::strategy(k),
                        };
                        let times = Arc::clone(&lists[kind_index(k)]);
                        let playouts = Arc::clone(&played);
                        Box::new(Timed {
                            inner,
                            times,
                            playouts,
                        })
                    };
                    let tally = arena::run_with(&args.lineup, options, args.seed, range, &make);
                    let lists: Times = lists
                        .iter()
                        .map(|l| std::mem::take(&mut *l.lock().expect("times lock")))
                        .collect();
                    let played = std::mem::take(&mut *played.lock().expect("playouts lock"));
                    (tally, lists, played)
                })
            })
            .collect();
        for h in handles {
            let (tally, lists, played) = h.join().expect("a worker panicked");
            total.merge(tally);
            for (all, l) in times.iter_mut().zip(lists) {
                all.extend(l);
            }
            for (all, p) in playouts.iter_mut().zip(played) {
                all.extend(p);
            }
        }
    });
    for t in times.iter_mut().chain(playouts.iter_mut()) {
        t.sort_unstable();
    }
    (total, times, playouts)
}

/// Prints the playouts of the hard level's searched decisions (`--playouts`), each
/// list sorted.
fn print_playouts(playouts: &Playouts) {
    for (what, p) in ["setup placements", "turns"].iter().zip(playouts) {
        if p.is_empty() {
            println!("hard playouts, {what}: no searched decision");
            continue;
        }
        let mean = p.iter().sum::<u64>() as f64 / p.len() as f64;
        println!(
            "hard playouts, {what}: mean {mean:.1}, median {}, fewest {} per searched decision over {} decisions",
            p[(p.len() - 1) / 2],
            p[0],
            p.len()
        );
    }
}

/// The position of `k` in [`BotKind::ALL`].
fn kind_index(k: BotKind) -> usize {
    BotKind::ALL.iter().position(|&x| x == k).unwrap_or(0)
}

/// The `q` quantile (0..=1) of sorted `ns`, in milliseconds (nearest rank).
fn quantile_ms(ns: &[u64], q: f64) -> f64 {
    if ns.is_empty() {
        return 0.0;
    }
    let rank = ((q * ns.len() as f64).ceil() as usize).clamp(1, ns.len());
    ns[rank - 1] as f64 / 1e6
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = GameOptions::default()
        .with_players(u8::try_from(args.lineup.len()).unwrap_or(0))
        .with_vp_target(args.vp_target)
        .with_map(if args.beginner {
            MapKind::Beginner
        } else {
            MapKind::Random
        })
        .with_turn_limit(args.turn_limit);
    if let Err(e) = options.validate() {
        eprintln!("catan-arena: {e} (one --bots entry per seat)");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let (tally, times, playouts) = run(&args, options);
    let secs = started.elapsed().as_secs_f64();
    report(&args, &tally, &times, secs);
    if args.playouts {
        print_playouts(&playouts);
    }
    if args.ratings {
        print_ratings(&args.lineup, &tally);
    }
    for e in tally.errors.iter().take(10) {
        eprintln!("catan-arena: {e}");
    }
    if tally.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Rates the lineup's entries through the run's finished games in order and prints
/// each one's final rating, and its mean relative to the medium level's when the
/// lineup has one (the figures `catan_ratings::bot_skill` is calibrated from).
fn print_ratings(lineup: &[BotKind], tally: &Tally) {
    use catan_ratings::{Ledger, Participant};
    let mut ledger = Ledger::default();
    for (_, places) in &tally.places {
        let seats: Vec<(Participant<usize>, u8)> = places
            .iter()
            .enumerate()
            .map(|(entry, &place)| (Participant::Player(entry), place))
            .collect();
        ledger.apply(&seats);
    }
    let medium = lineup.iter().position(|&k| k == BotKind::Medium);
    let anchor = medium.map(|m| ledger.skill(&m).mu);
    println!(
        "ratings over {} finished games, in order:",
        tally.places.len()
    );
    for (entry, kind) in lineup.iter().enumerate() {
        let s = ledger.skill(&entry);
        let relative = anchor.map_or(String::new(), |a| format!(", mu - medium {:+.3}", s.mu - a));
        println!(
            "  entry {entry} ({kind}): mu {:.3}, sigma {:.3}{relative}",
            s.mu, s.sigma
        );
    }
}

/// Prints the summary, as text or one JSON object.
fn report(args: &Args, tally: &Tally, times: &Times, secs: f64) {
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
        decisions: kinds
            .iter()
            .map(|&k| {
                let ns = &times[kind_index(k)];
                DecisionTimes {
                    kind: k,
                    count: ns.len(),
                    p50: quantile_ms(ns, 0.50),
                    p99: quantile_ms(ns, 0.99),
                    max: quantile_ms(ns, 1.0),
                }
            })
            .collect(),
        entries: tally.wins.iter().map(|&w| w as f64 / finished).collect(),
        mean_turns: tally.turns as f64 / finished,
        mean_actions: tally.actions as f64 / tally.games.max(1) as f64,
        games_per_sec: tally.games as f64 / secs.max(1e-9),
        trades_per_game: tally.trades as f64 / tally.games.max(1) as f64,
        finished,
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
    /// Decision times per kind present.
    decisions: Vec<DecisionTimes>,
    /// Win share per lineup entry.
    entries: Vec<f64>,
    /// Mean normal turns of the finished games (won or not).
    mean_turns: f64,
    /// Mean actions per game.
    mean_actions: f64,
    /// Throughput.
    games_per_sec: f64,
    /// Player trades completed per game.
    trades_per_game: f64,
    /// Finished games, the sample of every share.
    finished: f64,
}

/// How long one kind's decisions took (every `choose`, in milliseconds).
struct DecisionTimes {
    /// The kind.
    kind: BotKind,
    /// Decisions timed.
    count: usize,
    /// Median.
    p50: f64,
    /// 99th percentile.
    p99: f64,
    /// Longest.
    max: f64,
}

/// `ms` milliseconds for a reader: in microseconds below a tenth of a millisecond.
fn duration(ms: f64) -> String {
    if ms < 0.1 {
        format!("{:.1} us", ms * 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// Half the width of the 95% confidence interval of a share `p` of `n` games.
fn ci95(p: f64, n: f64) -> f64 {
    1.96 * (p * (1.0 - p) / n.max(1.0)).sqrt()
}

fn print_json(args: &Args, tally: &Tally, s: &Summary, secs: f64) {
    let kinds: Vec<String> = s
        .kinds
        .iter()
        .map(|(k, share)| format!("\"{k}\":{share:.4}"))
        .collect();
    let cis: Vec<String> = s
        .kinds
        .iter()
        .map(|(k, share)| format!("\"{k}\":{:.4}", ci95(*share, s.finished)))
        .collect();
    let entries: Vec<String> = s.entries.iter().map(|e| format!("{e:.4}")).collect();
    let decisions: Vec<String> = s
        .decisions
        .iter()
        .map(|d| {
            format!(
                "\"{}\":{{\"count\":{},\"p50\":{:.4},\"p99\":{:.4},\"max\":{:.4}}}",
                d.kind, d.count, d.p50, d.p99, d.max
            )
        })
        .collect();
    println!(
        "{{\"games\":{},\"finished\":{},\"won\":{},\"no_winner\":{},\"errors\":{},\"seed\":{},\
\"vp_target\":{},\"turn_limit\":{},\"lineup\":[\"{}\"],\"win_share_by_entry\":[{}],\"win_share_by_kind\":{{{}}},\
\"ci95_by_kind\":{{{}}},\"decision_ms_by_kind\":{{{}}},\"mean_turns\":{:.2},\"mean_actions\":{:.1},\"trades_per_game\":{:.2},\
\"elapsed_sec\":{:.3},\"games_per_sec\":{:.1}}}",
        tally.games,
        tally.finished(),
        tally.won(),
        tally.no_winner,
        tally.errors.len(),
        args.seed,
        args.vp_target,
        args.turn_limit,
        s.lineup.join("\",\""),
        entries.join(","),
        kinds.join(","),
        cis.join(","),
        decisions.join(","),
        s.mean_turns,
        s.mean_actions,
        s.trades_per_game,
        secs,
        s.games_per_sec
    );
}

fn print_text(args: &Args, tally: &Tally, s: &Summary, secs: f64) {
    println!(
        "{} games ({} finished: {} won, {} without a winner at the turn limit of {}; {} errors), \
lineup {} rotating, seed {}, {} thread(s), {:.2} s",
        tally.games,
        tally.finished(),
        tally.won(),
        tally.no_winner,
        args.turn_limit,
        tally.errors.len(),
        s.lineup.join(","),
        args.seed,
        args.threads(),
        secs
    );
    for (k, share) in &s.kinds {
        println!(
            "win share {k}: {:.1}% +- {:.1} (95% CI)",
            100.0 * share,
            100.0 * ci95(*share, s.finished)
        );
    }
    let entries: Vec<String> = s
        .entries
        .iter()
        .zip(&s.lineup)
        .enumerate()
        .map(|(i, (e, k))| format!("#{i} {k} {:.1}%", 100.0 * e))
        .collect();
    println!("by entry: {}", entries.join(", "));
    for d in &s.decisions {
        println!(
            "decision time {}: p50 {}, p99 {}, max {} over {} decisions",
            d.kind,
            duration(d.p50),
            duration(d.p99),
            duration(d.max),
            d.count
        );
    }
    println!(
        "mean turns/game: {:.1}   mean actions/game: {:.1}   player trades/game: {:.2}   games/s: {:.1}",
        s.mean_turns, s.mean_actions, s.trades_per_game, s.games_per_sec
    );
}
