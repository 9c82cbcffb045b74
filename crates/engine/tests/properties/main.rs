//! Properties over random legal playouts: invariants, legality, redaction and serde.
//!
//! Every case plays a random game (seeded options and map) with a seeded random
//! player that makes every kind of move, player trades and system time-outs
//! included, and checks a property after each action. One module per family of
//! properties; the playout and the proptest configuration are shared from here.

#[path = "../common/mod.rs"]
mod common;

mod invariants;
mod legality;
mod redaction;
mod round_trip;

use catan_engine::{
    Action, Actor, DEFAULT_TURN_LIMIT, Event, Game, GameOptions, MapKind, TURN_LIMIT_MAX,
    TURN_LIMIT_MIN,
};
use common::{RandomPlayer, Style};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Actions per case; with the case counts of the modules the suite runs in well under
/// 30 s in debug builds.
const STEPS: usize = 400;

/// Random options: mostly the default turn limit, often the lowest (R-10.5: a game
/// of 100 turns ends within a playout of [`STEPS`] actions more often than not).
fn options() -> impl Strategy<Value = GameOptions> {
    (
        3u8..=4,
        prop_oneof![3u8..=5, 6u8..=10],
        prop_oneof![Just(MapKind::Random), Just(MapKind::Beginner)],
        turn_limit(),
    )
        .prop_map(|(players, vp_target, map, turn_limit)| {
            GameOptions::default()
                .with_players(players)
                .with_vp_target(vp_target)
                .with_map(map)
                .with_turn_limit(turn_limit)
        })
}

/// A turn limit: the default, the lowest, or any in range.
fn turn_limit() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(DEFAULT_TURN_LIMIT),
        Just(TURN_LIMIT_MIN),
        TURN_LIMIT_MIN..=TURN_LIMIT_MAX,
    ]
}

/// Plays up to `steps` actions of a random game, calling `each` after every one with
/// the step, the game before, the actor and action, the events and the game after.
fn playout(
    options: GameOptions,
    game_seed: u64,
    player_seed: u64,
    steps: usize,
    each: impl FnMut(usize, &Game, Actor, Action, &[Event], &Game),
) -> Game {
    let game = Game::new(options, game_seed).expect("valid options");
    playout_from(game, player_seed, steps, each)
}

/// Like [`playout`], from a given game.
fn playout_from(
    mut game: Game,
    player_seed: u64,
    steps: usize,
    mut each: impl FnMut(usize, &Game, Actor, Action, &[Event], &Game),
) -> Game {
    let mut player = RandomPlayer::new(player_seed, Style::FULL);
    for step in 0..steps {
        let Some((actor, action)) = player.choose(&game) else {
            assert!(game.is_over(), "nobody can act in {:?}", game.phase());
            break;
        };
        let before = game.clone();
        let events = game
            .apply(actor, action)
            .unwrap_or_else(|e| panic!("step {step}: {actor:?} {action:?} refused: {e}"));
        each(step, &before, actor, action, &events, &game);
    }
    game
}

/// Panics with the step and action if `game` breaks an invariant.
fn assert_invariants(step: usize, actor: Actor, action: Action, game: &Game) {
    if let Err(e) = catan_engine::invariants::check(game) {
        panic!("step {step} after {actor:?} {action:?}: {e}");
    }
}

/// `cases` random games per property, shrinking briefly on failure. Failures are
/// kept beside the module that found them (`<module>.proptest-regressions`).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}
