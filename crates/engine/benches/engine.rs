//! Criterion benchmarks of the engine's hot paths: `apply` (a recorded random game
//! replayed action by action), the legal-action listing on positions taken from random
//! games, and whole random games as the simulator plays them.
//!
//! `cargo bench -p catan-engine --bench engine`

// criterion's macros generate public functions without docs.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use catan_engine::playout::RandomPlayer;
use catan_engine::{Action, Actor, Game, GameOptions};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

/// Actions after which a game counts as runaway.
const MAX_ACTIONS: u64 = 100_000;

/// A complete random game: its start and every (actor, action) that was applied.
fn recorded_game(seed: u64) -> (Game, Vec<(Actor, Action)>) {
    let start = Game::new(GameOptions::default(), seed).expect("default options");
    let mut game = start.clone();
    let mut player = RandomPlayer::new(seed);
    let mut events = Vec::new();
    let mut log = Vec::new();
    while !game.is_over() {
        events.clear();
        let (seat, action) = player.step(&mut game, &mut events).expect("legal play");
        log.push((Actor::Seat(seat), action));
    }
    (start, log)
}

/// Every tenth position of a few random games, with the seat that must act there.
fn positions() -> Vec<(Game, Actor)> {
    let mut out = Vec::new();
    for seed in 0..4 {
        let mut game = Game::new(GameOptions::default(), seed).expect("default options");
        let mut player = RandomPlayer::new(seed);
        let mut events = Vec::new();
        let mut n = 0;
        while !game.is_over() {
            if n % 10 == 0 {
                let seat = catan_engine::playout::seat_to_act(&game);
                out.push((game.clone(), Actor::Seat(seat)));
            }
            events.clear();
            player.step(&mut game, &mut events).expect("legal play");
            n += 1;
        }
    }
    out
}

fn apply(c: &mut Criterion) {
    let (start, log) = recorded_game(7);
    let mut group = c.benchmark_group("apply");
    group.throughput(Throughput::Elements(log.len() as u64));
    group.bench_function("replay_random_game", |b| {
        let mut events = Vec::with_capacity(64);
        b.iter_batched_ref(
            || start.clone(),
            |game| {
                for &(by, action) in &log {
                    events.clear();
                    game.apply_into(by, action, &mut events)
                        .expect("recorded actions replay");
                }
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn legal_actions(c: &mut Criterion) {
    let positions = positions();
    let mut group = c.benchmark_group("legal_actions");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("positions_from_random_games", |b| {
        let mut actions = Vec::with_capacity(256);
        b.iter(|| {
            let mut total = 0;
            for (game, by) in &positions {
                actions.clear();
                game.legal_actions_into(*by, &mut actions);
                total += actions.len();
            }
            black_box(total)
        });
    });
    group.finish();
}

fn random_game(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_game");
    group.throughput(Throughput::Elements(1));
    group.bench_function("four_players_to_the_end", |b| {
        let mut player = RandomPlayer::new(1);
        let mut events = Vec::with_capacity(64);
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut game = Game::new(GameOptions::default(), seed).expect("default options");
            player
                .play_to_end(&mut game, &mut events, MAX_ACTIONS)
                .expect("legal play")
        });
    });
    group.finish();
}

fn config() -> Criterion {
    // The machine is small and shared: moderate sample counts, a few seconds each.
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = apply, legal_actions, random_game
}
criterion_main!(benches);
