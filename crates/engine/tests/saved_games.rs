//! Saved games as JSON: a serialized game holds no number a JSON reader would round
//! (none above 2^53), reads back equal, and games saved in the format before positions
//! (format 1, `tests/fixtures/game_v1.json`) still load, checked, and play on exactly
//! as the game they were saved from.

mod common;

use catan_engine::{
    DEFAULT_TURN_LIMIT, Game, GameOptions, MapKind, Position, TURN_LIMIT_MIN, board::topology,
};
use common::{RandomPlayer, Style};
use serde_json::{Value, json};

/// The largest integer every JSON reader (JavaScript, a `serde_json::Value` as `f64`)
/// keeps exact.
const MAX_SAFE: u64 = 1 << 53;

/// The format-1 fixture: how it was made and the game as then serialized.
fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/game_v1.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The raw text of the fixture's game, which a `Value` cannot hold exactly (its road
/// masks are 128-bit numbers).
fn fixture_game_text() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/game_v1.json");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("\"game\": ").unwrap() + "\"game\": ".len();
    let end = text[start..].find("},\n  \"player_seed\"").unwrap() + start + 1;
    text[start..end].to_owned()
}

/// The game the fixture was saved from, replayed, and its random player.
fn original() -> (Game, RandomPlayer) {
    let f = fixture();
    let seed: u64 = f["seed"].as_str().unwrap().parse().unwrap();
    let options = GameOptions::default()
        .with_players(4)
        .with_vp_target(10)
        .with_map(MapKind::Random)
        .with_turn_limit(DEFAULT_TURN_LIMIT);
    let mut game = Game::new(options, seed).unwrap();
    let mut player = RandomPlayer::new(f["player_seed"].as_u64().unwrap(), Style::FULL);
    for _ in 0..f["steps"].as_u64().unwrap() {
        let (by, action) = player.choose(&game).unwrap();
        game.apply(by, action).unwrap();
    }
    (game, player)
}

/// Every number in `v`, with its path.
fn numbers<'a>(v: &'a Value, path: &str, out: &mut Vec<(String, &'a serde_json::Number)>) {
    match v {
        Value::Number(n) => out.push((path.to_owned(), n)),
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                numbers(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(fields) => {
            for (k, x) in fields {
                numbers(x, &format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn a_game_saved_before_positions_loads_and_plays_on_identically() {
    let (mut original, mut player) = original();
    let mut loaded: Game = serde_json::from_str(&fixture_game_text()).unwrap();
    assert_eq!(loaded, original);
    // saved before the turn limit existed, it reads with the default.
    assert!(!fixture_game_text().contains("turn_limit"));
    assert_eq!(loaded.options().turn_limit, DEFAULT_TURN_LIMIT);
    assert!(!loaded.offers().is_empty(), "the fixture has an open offer");
    let mut steps = 0;
    while let Some((by, action)) = player.choose(&original) {
        let expected = original.apply(by, action);
        assert_eq!(loaded.apply(by, action), expected, "step {steps}");
        steps += 1;
        assert!(steps < 20_000, "the game does not end");
    }
    assert_eq!(loaded, original);
    assert!(loaded.winner().is_some() && steps > 100);
}

#[test]
fn a_game_saved_before_positions_is_still_checked() {
    let text = fixture_game_text();
    // A recorded route one longer than the board's.
    let first = text.find("\"road_length\":").unwrap() + "\"road_length\":".len();
    let digits = text[first..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let length: u8 = text[first..first + digits].parse().unwrap();
    let tampered = format!(
        "{}{}{}",
        &text[..first],
        length + 1,
        &text[first + digits..]
    );
    let err = serde_json::from_str::<Game>(&tampered)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a legal game: R-10.1"), "{err}");
    // A generator that is not the seed's stream.
    let tampered = text.replacen("\"stream\":0", "\"stream\":1", 1);
    let err = serde_json::from_str::<Game>(&tampered)
        .unwrap_err()
        .to_string();
    assert!(err.contains("R-2.4"), "{err}");
}

#[test]
fn a_game_saved_before_positions_with_a_six_next_to_an_eight_is_refused() {
    // format 1 was only checked for the token counts; now adjacency too.
    let text = fixture_game_text();
    let game: Game = serde_json::from_str(&text).unwrap();
    let numbers = game.map().numbers;
    let six = numbers.iter().position(|&n| n == 6).unwrap();
    let next = topology().tile_neighbors[six]
        .iter()
        .map(|t| t.index())
        .find(|&t| numbers[t] != 0)
        .unwrap();
    let eight = numbers.iter().position(|&n| n == 8).unwrap();
    let mut swapped = numbers;
    swapped.swap(next, eight);
    let old = format!("\"numbers\":{}", serde_json::to_string(&numbers).unwrap());
    let new = format!("\"numbers\":{}", serde_json::to_string(&swapped).unwrap());
    assert!(text.contains(&old));
    let err = serde_json::from_str::<Game>(&text.replace(&old, &new))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("R-2.2") && err.contains("adjacent tiles"),
        "{err}"
    );
}

#[test]
fn a_serialized_game_holds_no_number_above_2_53_and_survives_a_value_round_trip() {
    // A long playout: every road, late rng positions, a seed above 2^53.
    for (seed, player_seed) in [(u64::MAX - 5, 1), (0xDEAD_BEEF_CAFE_F00D, 2), (3, 3)] {
        let mut game = Game::new(GameOptions::default(), seed).unwrap();
        let mut player = RandomPlayer::new(player_seed, Style::FULL);
        let mut step = 0;
        while let Some((by, action)) = player.choose(&game) {
            game.apply(by, action).unwrap();
            step += 1;
            if step % 50 == 0 || game.is_over() {
                let value = serde_json::to_value(&game).unwrap();
                let mut found = Vec::new();
                numbers(&value, "$", &mut found);
                for (path, n) in found {
                    let ok = n.as_u64().is_some_and(|n| n <= MAX_SAFE)
                        || n.as_i64().is_some_and(|n| n.unsigned_abs() <= MAX_SAFE);
                    assert!(ok, "{path} = {n} at step {step}");
                }
                let back: Game = serde_json::from_value(value).unwrap();
                assert_eq!(back, game, "step {step}");
            }
        }
        assert!(game.winner().is_some());
    }
}

#[test]
fn every_position_of_random_playouts_makes_the_same_game_again() {
    // `from_position(to_position(g)) == g`: the generator, the awards and the
    // computed bank and routes included.
    for seed in 0..6 {
        let map = if seed % 3 == 0 {
            MapKind::Beginner
        } else {
            MapKind::Random
        };
        // one game ends at the lowest turn limit, with no winner.
        let turn_limit = if seed == 5 {
            TURN_LIMIT_MIN
        } else {
            DEFAULT_TURN_LIMIT
        };
        let options = GameOptions::default()
            .with_players(3 + (seed % 2) as u8)
            .with_map(map)
            .with_turn_limit(turn_limit);
        let mut game = Game::new(options, seed).unwrap();
        let mut player = RandomPlayer::new(seed + 100, Style::FULL);
        loop {
            let position: Position = game.to_position();
            assert_eq!(Game::from_position(position).as_ref(), Ok(&game));
            let Some((by, action)) = player.choose(&game) else {
                break;
            };
            game.apply(by, action).unwrap();
        }
    }
}

#[test]
fn a_position_is_plain_json_a_script_can_edit() {
    // the bank follows from the hands; a number field may come as a number.
    let game = Game::new(GameOptions::default(), 5).unwrap();
    let position = game.to_position();
    let words = u64::try_from(position.rng_word_pos).unwrap();
    let mut value = serde_json::to_value(position).unwrap();
    assert_eq!(value["seed"], json!("5"));
    value["seed"] = json!(5);
    value["rng_word_pos"] = json!(words);
    let p: Position = serde_json::from_value(value).unwrap();
    assert_eq!(Game::from_position(p).unwrap(), game);
}
