//! The simulator's loop makes no heap allocation per action: warmed-up random games,
//! played through `legal_actions_into` and `apply_into` with reused vectors, allocate
//! nothing at all. A counting global allocator proves it.

use std::alloc::System;

use catan_engine::playout::RandomPlayer;
use catan_engine::{Game, GameOptions};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Actions after which a game counts as runaway.
const MAX_ACTIONS: u64 = 100_000;

#[test]
fn random_games_allocate_nothing_per_action() {
    let mut events = Vec::with_capacity(64);
    let mut player = RandomPlayer::new(1);
    // Warm up: the topology is built on first use, the scratch vectors grow.
    for (players, seed) in [(4, 0), (3, 1), (4, 2)] {
        let options = GameOptions::default().with_players(players);
        let mut game = Game::new(options, seed).unwrap();
        player
            .play_to_end(&mut game, &mut events, MAX_ACTIONS)
            .unwrap();
    }
    // Games are created outside the measured loop: `Game::new` allocates the
    // development deck, once per game.
    let mut games: Vec<Game> = (0..40u64)
        .map(|seed| {
            let options = GameOptions::default().with_players(if seed % 4 == 0 { 3 } else { 4 });
            Game::new(options, 1_000 + seed).unwrap()
        })
        .collect();

    let region = Region::new(GLOBAL);
    let mut actions = 0;
    for game in &mut games {
        actions += player.play_to_end(game, &mut events, MAX_ACTIONS).unwrap();
    }
    let stats = region.change();

    assert!(games.iter().all(|g| g.winner().is_some()));
    assert!(actions > 10_000, "only {actions} actions were measured");
    assert_eq!(
        (stats.allocations, stats.reallocations),
        (0, 0),
        "{stats:?} over {actions} actions"
    );
}
