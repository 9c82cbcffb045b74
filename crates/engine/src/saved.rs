//! A [`Game`] as JSON: written as its [`Position`] (no number above 2^53, so any JSON
//! reader keeps it exact), read back in that format or in the format before positions.
//!
//! Format 1 (before positions) wrote the game's fields as they were: building masks as
//! `u64` and road masks as `u128` numbers in `players`, the bank, route lengths, and
//! the generator as `{"seed": [32 bytes], "stream", "word_pos"}`. It is still read, by
//! field name (`players` marks it), since its 128-bit numbers can only be read exactly
//! by a typed field; a `serde_json::Value` of it has already lost them.
//!
//! Both formats end in [`crate::invariants::check`]: format 2 through
//! [`Game::from_position`], format 1 directly on the fields read, plus a check that
//! its generator is its seed's stream (as every game's is).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::board::{Map, TileId};
use crate::decimal::text;
use crate::dev_card::DevCard;
use crate::game::{Game, Player, SeatBuildings};
use crate::options::GameOptions;
use crate::phase::Phase;
use crate::position::{Position, SeatPosition};
use crate::position_error::PositionError;
use crate::resource::Resources;
use crate::seat::{MAX_SEATS, Seat};
use crate::trade::TradeOffer;

impl Serialize for Game {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_position().serialize(s)
    }
}

/// Either format, field by field: the fields both share, then each one's own.
#[derive(Deserialize)]
struct Saved {
    options: GameOptions,
    #[serde(with = "text")]
    seed: u64,
    map: Map,
    robber: TileId,
    dev_deck: Vec<DevCard>,
    phase: Phase,
    current: Seat,
    first: Seat,
    turn: u32,
    #[serde(default)]
    dev_played: bool,
    #[serde(default)]
    last_roll: Option<[u8; 2]>,
    #[serde(default)]
    longest_road: Option<Seat>,
    #[serde(default)]
    largest_army: Option<Seat>,
    #[serde(default)]
    offers: Vec<TradeOffer>,
    #[serde(default = "one")]
    next_offer: u32,
    // Format 2 (a `Position`).
    seats: Option<Vec<SeatPosition>>,
    #[serde(default, with = "text")]
    rng_word_pos: u128,
    #[serde(default)]
    scripted_dice: Vec<[u8; 2]>,
    // Format 1.
    players: Option<[Player; MAX_SEATS]>,
    rng: Option<ChaCha8Rng>,
    bank: Option<Resources>,
}

const fn one() -> u32 {
    1
}

impl<'de> Deserialize<'de> for Game {
    /// Accepts either format only as a position every invariant holds in: the engine
    /// relies on them (conservation, pieces on the board, route lengths, phase, R-2.2).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Game, D::Error> {
        let saved = Saved::deserialize(d)?;
        let game = match (saved.seats.is_some(), saved.players.is_some()) {
            (true, false) => from_position(saved),
            (false, true) => from_format_1(saved),
            _ => {
                return Err(D::Error::custom(
                    "a saved game has either `seats` or (format 1) `players`",
                ));
            }
        };
        game.map_err(|e| D::Error::custom(format!("not a legal game: {e}")))
    }
}

fn from_position(s: Saved) -> Result<Game, PositionError> {
    Game::from_position(Position {
        options: s.options,
        seed: s.seed,
        rng_word_pos: s.rng_word_pos,
        scripted_dice: s.scripted_dice,
        map: s.map,
        robber: s.robber,
        seats: s.seats.unwrap_or_default(),
        dev_deck: s.dev_deck,
        phase: s.phase,
        current: s.current,
        first: s.first,
        turn: s.turn,
        dev_played: s.dev_played,
        last_roll: s.last_roll,
        longest_road: s.longest_road.into(),
        largest_army: s.largest_army.into(),
        offers: s.offers,
        next_offer: s.next_offer,
    })
}

/// Format 1: the fields as stored, the recorded bank, routes and awards included, all
/// checked as they are.
fn from_format_1(s: Saved) -> Result<Game, PositionError> {
    let fresh = ChaCha8Rng::seed_from_u64(s.seed);
    let rng = s.rng.unwrap_or_else(|| fresh.clone());
    if rng.get_seed() != fresh.get_seed() || rng.get_stream() != fresh.get_stream() {
        return Err(PositionError::Rng);
    }
    let players = s
        .players
        .unwrap_or_else(|| std::array::from_fn(|_| Player::new()));
    let game = Game {
        options: s.options,
        seed: s.seed,
        rng,
        tiles_by_number: crate::rules::tiles_by_number(&s.map),
        buildings: SeatBuildings::of(&s.map, &players),
        map: s.map,
        robber: s.robber,
        players,
        bank: s.bank.unwrap_or(Resources::ZERO),
        dev_deck: s.dev_deck,
        phase: s.phase,
        current: s.current,
        first: s.first,
        turn: s.turn,
        dev_played: s.dev_played,
        last_roll: s.last_roll,
        longest_road: s.longest_road,
        largest_army: s.largest_army,
        offers: s.offers,
        next_offer: s.next_offer,
        dice: Vec::new(),
    };
    crate::invariants::check(&game)?;
    Ok(game)
}

/// A `Game` is written as its [`Position`]; it is read from a position or from format 1
/// (see the module's documentation), and only if every rule holds.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Game {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Game".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let position = generator.subschema_for::<Position>();
        if generator.contract().is_serialize() {
            schemars::json_schema!({
                "description": "A game, written as its position.",
                "allOf": [position],
            })
        } else {
            schemars::json_schema!({
                "description": "A saved game: a position (with `seats`) or the format before \
                                positions (with `players`); read only if every rule holds.",
                "type": "object",
                "anyOf": [{"required": ["seats"]}, {"required": ["players"]}],
            })
        }
    }
}

#[cfg(test)]
mod serde_tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::playout::RandomPlayer;

    /// A game some way into normal play.
    fn played() -> Game {
        let mut game = Game::new(GameOptions::default(), 11).unwrap();
        let mut player = RandomPlayer::new(11);
        let mut events = Vec::new();
        let mut limit = crate::tests::support::StepLimit::new("turn 20");
        while game.turn() < 20 {
            limit.tick(&game);
            player.step(&mut game, &mut events).unwrap();
        }
        game
    }

    /// Serializes `game` and reads it back.
    fn round_trip(game: &Game) -> Result<Game, serde_json::Error> {
        serde_json::from_str(&serde_json::to_string(game).unwrap())
    }

    #[test]
    fn a_serialized_game_reads_back_as_the_same_game() {
        let game = played();
        assert_eq!(round_trip(&game).unwrap(), game);
    }

    #[test]
    fn a_serialized_game_is_its_position_with_the_seed_as_a_string() {
        let game = played();
        let value = serde_json::to_value(&game).unwrap();
        assert_eq!(value["seed"], json!(game.seed().to_string()));
        assert!(value.get("players").is_none() && value.get("bank").is_none());
        let position: Position = serde_json::from_value(value).unwrap();
        assert_eq!(position, game.to_position());
    }

    /// The error of reading `game`'s JSON after `edit`.
    fn refused(game: &Game, edit: impl Fn(&mut Value)) -> String {
        let mut value = serde_json::to_value(game).unwrap();
        edit(&mut value);
        serde_json::from_value::<Game>(value)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_tampered_serialized_game_is_refused_citing_the_rule() {
        let game = played();
        // More ore in one hand than exists.
        let err = refused(&game, |v| v["seats"][0]["hand"]["ore"] = json!(30));
        assert!(err.contains("not a legal game: R-2.5"), "{err}");
        // Six more settlements, side by side.
        let err = refused(&game, |v| {
            v["seats"][0]["settlements"] = json!([0, 1, 2, 3, 4, 5, 6, 7, 8]);
        });
        assert!(err.contains("R-2.6"), "{err}");
        // A harbor moved off its path.
        let err = refused(&game, |v| v["map"]["harbors"][0]["edge"] = json!(40));
        assert!(err.contains("R-2.3"), "{err}");
        // A second desert.
        let err = refused(&game, |v| v["map"]["terrain"][0] = json!("desert"));
        let err2 = refused(&game, |v| v["map"]["terrain"][1] = json!("desert"));
        assert!(err.contains("R-2.1") || err2.contains("R-2.1"), "{err}");
        // A die that shows 9.
        let err = refused(&game, |v| v["scripted_dice"] = json!([[9, 1]]));
        assert!(err.contains("R-4.2"), "{err}");
    }

    #[test]
    fn a_saved_game_with_a_six_next_to_an_eight_is_refused() {
        // swap numbers until a 6 and an 8 touch, on an otherwise legal game.
        let game = played();
        let topo = crate::board::topology();
        let numbers = game.map().numbers;
        let six = numbers.iter().position(|&n| n == 6).unwrap();
        let next = topo.tile_neighbors[six]
            .iter()
            .map(|t| t.index())
            .find(|&t| numbers[t] != 0)
            .unwrap();
        let eight = numbers.iter().position(|&n| n == 8).unwrap();
        let err = refused(&game, |v| {
            let nums = &mut v["map"]["numbers"];
            let (a, b) = (nums[next].clone(), nums[eight].clone());
            nums[next] = b;
            nums[eight] = a;
        });
        assert!(
            err.contains("R-2.2") && err.contains("adjacent tiles"),
            "{err}"
        );
    }
}
