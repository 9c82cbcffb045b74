//! Golden replays: recorded games replayed through the engine must give the very same
//! events and final state, so any change to what a seed and an action log produce
//! shows up here (determinism, STYLE 2 and 10).
//!
//! Each `tests/golden/*.json` file holds the options, the seed, the action log (actor,
//! action and the events that action produced) and a digest of the end: the winner,
//! the final scores and the spectator view. The games were played by the seeded random
//! player of `tests/common` to a winner.
//!
//! When a change to the engine is *meant* to change outcomes or the wire format,
//! regenerate the files and review the diff:
//!
//! ```sh
//! GOLDEN_UPDATE=1 cargo test -p catan-engine --test golden
//! ```

mod common;

use std::path::PathBuf;

use catan_engine::{
    Action, Actor, DEFAULT_TURN_LIMIT, Event, FinalScore, Game, GameOptions, GameView, MapKind,
    Seat,
};
use common::{RandomPlayer, Style};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One recorded game, as stored on disk.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Replay {
    /// What the file shows.
    about: String,
    /// The game's options.
    options: GameOptions,
    /// The game's seed.
    seed: u64,
    /// Every action in order with the events it produced.
    log: Vec<Entry>,
    /// How the game ended.
    end: End,
}

/// One action of the log.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    actor: Actor,
    action: Action,
    events: Vec<Value>,
}

/// The final state digest.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct End {
    winner: Option<Seat>,
    scores: Vec<FinalScore>,
    view: Value,
}

/// How a golden file is made: the game, and the random player that plays it.
struct Spec {
    file: &'static str,
    about: &'static str,
    options: GameOptions,
    seed: u64,
    player_seed: u64,
    style: Style,
}

const SPECS: [Spec; 3] = [
    Spec {
        file: "four_players_random_map.json",
        about: "4 players on a random map (R-2.4), no player trades, to a winner",
        options: GameOptions::DEFAULT
            .with_players(4)
            .with_vp_target(7)
            .with_map(MapKind::Random)
            .with_turn_limit(DEFAULT_TURN_LIMIT),
        seed: 2024,
        player_seed: 1,
        style: Style::QUIET,
    },
    Spec {
        file: "three_players_beginner_map.json",
        about: "3 players on the beginner map (R-2.4), no player trades, to a winner",
        options: GameOptions::DEFAULT
            .with_players(3)
            .with_vp_target(7)
            .with_map(MapKind::Beginner)
            .with_turn_limit(DEFAULT_TURN_LIMIT),
        seed: 7,
        player_seed: 2,
        style: Style::QUIET,
    },
    Spec {
        file: "time_outs_and_trades.json",
        about: "4 players with player trades (R-9.3), offer expiries and time-outs, to a winner",
        options: GameOptions::DEFAULT
            .with_players(4)
            .with_vp_target(6)
            .with_map(MapKind::Random)
            .with_turn_limit(DEFAULT_TURN_LIMIT),
        seed: 99,
        player_seed: 3,
        style: Style::FULL,
    },
];

fn path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

fn json<T: Serialize>(x: &T) -> Value {
    serde_json::to_value(x).expect("serializable")
}

/// Plays `spec`'s game to a winner with its random player and records it.
fn record(spec: &Spec) -> Replay {
    let mut game = Game::new(spec.options, spec.seed).expect("valid options");
    let mut player = RandomPlayer::new(spec.player_seed, spec.style);
    let mut log = Vec::new();
    while let Some((actor, action)) = player.choose(&game) {
        let events = game
            .apply(actor, action)
            .unwrap_or_else(|e| panic!("{}: listed {action:?} refused: {e}", spec.file));
        log.push(Entry {
            actor,
            action,
            events: events.iter().map(json).collect(),
        });
        assert!(log.len() < 20_000, "{} does not end", spec.file);
    }
    assert!(game.winner().is_some(), "{}: nobody can act", spec.file);
    Replay {
        about: spec.about.to_owned(),
        options: spec.options,
        seed: spec.seed,
        log,
        end: end_of(&game),
    }
}

fn end_of(game: &Game) -> End {
    End {
        winner: game.winner(),
        scores: game.final_scores(),
        view: json(&game.view(None)),
    }
}

/// One value as compact JSON.
fn line<T: Serialize>(x: &T) -> String {
    serde_json::to_string(x).expect("serializable")
}

/// Writes a replay with one log entry per line, so diffs stay readable.
fn write(replay: &Replay, file: &str) {
    let entries: Vec<String> = replay
        .log
        .iter()
        .map(|e| format!("    {}", line(e)))
        .collect();
    let s = format!(
        "{{\n  \"about\": {},\n  \"options\": {},\n  \"seed\": {},\n  \"log\": [\n{}\n  ],\n  \"end\": {}\n}}\n",
        line(&replay.about),
        line(&replay.options),
        replay.seed,
        entries.join(",\n"),
        line(&replay.end),
    );
    std::fs::create_dir_all(path("")).expect("golden directory");
    std::fs::write(path(file), s).expect("write golden file");
}

/// Replays `replay` and checks every event and the end against the recording.
fn replay_and_compare(replay: &Replay, file: &str) {
    let mut game = Game::new(replay.options, replay.seed).expect("valid options");
    for (i, entry) in replay.log.iter().enumerate() {
        let events: Vec<Event> = game
            .apply(entry.actor, entry.action)
            .unwrap_or_else(|e| panic!("{file} entry {i}: {:?} refused: {e}", entry.action));
        let recorded: Vec<Event> = entry
            .events
            .iter()
            .map(|v| serde_json::from_value(v.clone()).expect("a recorded event"))
            .collect();
        assert_eq!(
            events, recorded,
            "{file} entry {i} ({:?} by {:?}) produced other events",
            entry.action, entry.actor
        );
        // The same events must also keep their wire form.
        let got: Vec<Value> = events.iter().map(json).collect();
        assert_eq!(got, entry.events, "{file} entry {i}: event JSON changed");
    }
    let end = end_of(&game);
    assert!(
        end.winner.is_some(),
        "{file}: the log does not reach a winner"
    );
    assert_eq!(end.winner, replay.end.winner, "{file}: another winner");
    assert_eq!(end.scores, replay.end.scores, "{file}: other final scores");
    assert_eq!(end.view, replay.end.view, "{file}: another final state");
    // The stored digest is still a valid view, not just matching JSON.
    let _: GameView = serde_json::from_value(replay.end.view.clone()).expect("a view");
}

/// Reads `spec`'s golden file; with `GOLDEN_UPDATE` set, (re)writes every file first,
/// once per test run.
fn load(spec: &Spec) -> Replay {
    static UPDATED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        UPDATED.get_or_init(|| {
            for s in &SPECS {
                write(&record(s), s.file);
            }
        });
    }
    let text = std::fs::read_to_string(path(spec.file)).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with GOLDEN_UPDATE=1 cargo test -p catan-engine --test golden",
            spec.file
        )
    });
    let replay: Replay = serde_json::from_str(&text).expect("a replay file");
    assert_eq!(replay.options, spec.options, "{}: options", spec.file);
    replay
}

#[test]
fn recorded_games_replay_to_the_same_events_and_final_state() {
    // R-1.1, R-2.4, R-3..R-10: the engine is a pure function of seed and action log.
    for spec in &SPECS {
        replay_and_compare(&load(spec), spec.file);
    }
}

#[test]
fn the_golden_games_use_every_part_of_the_rules_they_claim_to() {
    // R-2.4, R-9.3: each file covers what its name says, so it cannot silently shrink.
    for spec in &SPECS {
        let replay = load(spec);
        let kinds = |pred: fn(&Entry) -> bool| replay.log.iter().filter(|e| pred(e)).count();
        assert!(
            kinds(|e| matches!(e.action, Action::RollDice)) > 10,
            "{}",
            spec.file
        );
        if spec.style.trades {
            assert!(
                kinds(|e| e.actor == Actor::System) > 0,
                "{}: no time-outs",
                spec.file
            );
            assert!(
                kinds(|e| matches!(
                    e.action,
                    Action::ConfirmTrade { .. } | Action::AcceptOffer { .. }
                )) > 0,
                "{}: no completed trades",
                spec.file
            );
        }
        assert!(
            !replay.log.is_empty() && replay.end.winner.is_some(),
            "{}: not a complete game",
            spec.file
        );
    }
}

#[test]
fn a_changed_event_in_a_golden_log_is_detected() {
    // R-4.2 (dice from the seed): a tampered roll in a recording must not replay cleanly,
    // which guards the comparison itself.
    let spec = &SPECS[1];
    let mut replay = load(spec);
    let i = replay
        .log
        .iter()
        .position(|e| matches!(e.action, Action::RollDice))
        .expect("a roll");
    replay.log[i].events[0]["dice"] = serde_json::json!([7, 7]);
    let result = std::panic::catch_unwind(|| replay_and_compare(&replay, spec.file));
    assert!(result.is_err());
}
