//! The machine-readable contract: the committed schema bundle and TypeScript
//! declarations are what the code generates, and what the server really writes (and a
//! client may send) validates against the bundle, over whole played games.

mod typescript;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use catan_engine::playout::RandomPlayer;
use catan_engine::{Action, Actor, Game, GameOptions, MapKind, Phase, Resource, Resources, Seat};
use catan_protocol::schema::{CLIENT_SENT, SERVER_WRITTEN};
use catan_protocol::{
    AdminRoomDetail, AdminRoomSummary, ClientMessage, GameOverInfo, GameStatus, GameSummary,
    OfferDeadline, PlayerResult, Replay, ReplayStep, RoomInfo, RoomOptions, RoomStatus, SeatInfo,
    ServerMessage, Snapshot,
};
use serde::Serialize;
use serde_json::{Value, json};
use uuid::Uuid;

/// The command that rewrites every generated file.
const BLESS: &str = "CATAN_BLESS=1 cargo test -p catan-protocol";

/// The schema bundle, relative to this crate.
const SCHEMA_FILE: &str = "schema/catan-protocol.schema.json";

/// The TypeScript declarations, relative to this crate.
const TYPESCRIPT_FILE: &str = "../../web/protocol.d.ts";

fn crate_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn blessing() -> bool {
    std::env::var_os("CATAN_BLESS").is_some_and(|v| !v.is_empty())
}

/// Compares `generated` with the committed file `relative`, or writes it with
/// `CATAN_BLESS`.
fn check_generated(relative: &str, generated: &str) {
    let path = crate_file(relative);
    if blessing() {
        std::fs::write(&path, generated)
            .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()))
            + 1;
        panic!(
            "{} is stale: it differs from what the code generates from line {line} on \
             (committed: {:?}, generated: {:?}).\nRegenerate it with `{BLESS}` and commit it.",
            path.display(),
            committed.lines().nth(line - 1).unwrap_or("<end of file>"),
            generated.lines().nth(line - 1).unwrap_or("<end of file>"),
        );
    }
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    check_generated(SCHEMA_FILE, &catan_protocol::schema::bundle_text());
}

#[test]
fn the_committed_typescript_declarations_are_generated_from_the_schema() {
    let source = format!("crates/protocol/{SCHEMA_FILE}");
    let ts = typescript::declarations(&catan_protocol::schema::bundle(), &source, BLESS);
    check_generated(TYPESCRIPT_FILE, &ts);
}

#[test]
fn the_embedded_schema_is_the_committed_file() {
    if blessing() {
        return; // the constant is rebuilt with the next compilation
    }
    let committed = std::fs::read_to_string(crate_file(SCHEMA_FILE)).expect("committed schema");
    assert!(
        catan_protocol::schema::SCHEMA_JSON == committed,
        "SCHEMA_JSON is stale; rebuild"
    );
}

#[test]
fn every_root_is_a_definition_and_the_bundle_is_a_valid_schema() {
    let bundle = catan_protocol::schema::bundle();
    for name in CLIENT_SENT.iter().chain(SERVER_WRITTEN.iter()) {
        assert!(
            bundle["$defs"][name].is_object(),
            "{name} has no definition"
        );
    }
    jsonschema::meta::validate(&bundle).expect("the bundle is a valid draft 2020-12 schema");
    // Only `Action` reads more loosely than it is written (protocol.md says so).
    let inputs: Vec<&String> = bundle["$defs"]
        .as_object()
        .expect("defs")
        .keys()
        .filter(|k| k.ends_with(catan_protocol::schema::INPUT_SUFFIX))
        .collect();
    assert_eq!(inputs, ["ActionInput"]);
}

// ----- what really travels validates -----------------------------------------------

/// One validator per definition name, built on the bundle.
struct Schemas {
    bundle: Value,
    validators: std::sync::Mutex<std::collections::BTreeMap<String, jsonschema::Validator>>,
}

static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| Schemas {
    bundle: catan_protocol::schema::bundle(),
    validators: std::sync::Mutex::default(),
});

/// Checks that `value`, serialized, is valid as the definition `name`.
fn assert_valid<T: Serialize>(name: &str, value: &T) {
    let instance = serde_json::to_value(value).expect("serializes");
    let mut validators = SCHEMAS.validators.lock().expect("not poisoned");
    let validator = validators.entry(name.to_owned()).or_insert_with(|| {
        let mut schema = SCHEMAS.bundle.clone();
        schema["anyOf"] = json!([{ "$ref": format!("#/$defs/{name}") }]);
        jsonschema::validator_for(&schema).expect("the bundle compiles")
    });
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name} does not validate:\n{}\n{instance}",
        errors.join("\n")
    );
}

fn room(options: RoomOptions, status: RoomStatus) -> RoomInfo {
    RoomInfo {
        id: Uuid::from_u128(7),
        status,
        options,
        seats: (0..options.game.players)
            .map(|s| SeatInfo {
                seat: Seat(s),
                occupant: Some(catan_protocol::Occupant {
                    name: format!("p{s}"),
                    bot: (s == 1).then_some(catan_protocol::BotKind::Medium),
                }),
                connected: s != 2,
                stand_in: s == 2,
            })
            .collect(),
        created_at: 1_767_225_600_000,
        seed_commitment: Some("ab".repeat(32)),
    }
}

/// Occasionally a trade offer, so that trade events and answers occur too.
fn offer(game: &Game, seat: Seat) -> Option<Action> {
    let hand = game.player(seat).hand;
    let give = hand.kinds().next()?;
    let get = Resource::ALL.into_iter().find(|r| *r != give)?;
    let action = Action::OfferTrade {
        to: None,
        give: Resources::single(give, 1),
        get: Resources::single(get, 1),
    };
    game.legal_actions(seat)
        .iter()
        .any(|a| matches!(a, Action::OfferTrade { .. }))
        .then_some(action)
}

/// Everything a played game puts on the wire validates: events and legal actions for
/// every viewer, snapshots, the admin inspection with the whole game, the replay.
fn play_and_validate(options: RoomOptions, seed: u64) {
    let mut game = Game::new(options.game, seed).expect("valid options");
    let mut player = RandomPlayer::new(seed ^ 0x5eed);
    let viewers: Vec<Option<Seat>> = std::iter::once(None)
        .chain(game.seats().map(Some))
        .collect();
    let info = room(options, RoomStatus::Playing);
    let mut steps = Vec::new();
    let mut broadcasts = Vec::new();
    let start = game.view(None);
    let mut tally = catan_engine::Tally::default();
    for n in 0u64..2_000 {
        if game.winner().is_some() {
            break;
        }
        let mut events = Vec::new();
        let seat = catan_engine::playout::seat_to_act(&game);
        let (by, action) = match (n % 37, game.phase()) {
            (5, Phase::Main) => match offer(&game, seat) {
                Some(a) => {
                    game.apply_into(Actor::Seat(seat), a, &mut events)
                        .expect("a legal offer");
                    (Some(seat), a)
                }
                None => {
                    let (s, a) = player.step(&mut game, &mut events).expect("plays");
                    (Some(s), a)
                }
            },
            (11, _) => {
                game.apply_into(Actor::System, Action::TimeOut, &mut events)
                    .expect("a time-out always applies");
                (None, Action::TimeOut)
            }
            _ => {
                let (s, a) = player.step(&mut game, &mut events).expect("plays");
                (Some(s), a)
            }
        };
        if by.is_some() {
            assert_valid(
                "ClientMessage",
                &ClientMessage::Action {
                    request_id: format!("r{n}"),
                    action,
                    expect_seq: Some(n),
                    offer_expires_secs: None,
                },
            );
        }
        let offer_deadlines: Vec<OfferDeadline> = game
            .offers()
            .iter()
            .map(|o| OfferDeadline {
                offer: o.id,
                deadline: 1_767_225_660_000,
            })
            .collect();
        for viewer in &viewers {
            let legal = viewer.map(|s| game.legal_actions(s)).unwrap_or_default();
            for a in &legal {
                assert_valid(
                    "ClientMessage",
                    &ClientMessage::Action {
                        request_id: "x".into(),
                        action: *a,
                        expect_seq: None,
                        offer_expires_secs: None,
                    },
                );
            }
            let message = ServerMessage::Events {
                seq: n + 1,
                events: events.iter().map(|e| e.redact_for(*viewer)).collect(),
                request_id: (by.is_some() && by == *viewer).then(|| format!("r{n}")),
                deadline: (n % 2 == 0).then_some(1_767_225_630_000),
                offer_deadlines: offer_deadlines.clone(),
                clocks: clocks(n),
                legal: legal.clone(),
            };
            assert_valid("ServerMessage", &message);
            if n % 50 == 0 {
                let snapshot = ServerMessage::Snapshot(Box::new(Snapshot {
                    protocol_version: catan_protocol::PROTOCOL_VERSION,
                    room: info.clone(),
                    you: *viewer,
                    seq: n + 1,
                    view: Some(game.view(*viewer)),
                    legal,
                    deadline: None,
                    offer_deadlines: offer_deadlines.clone(),
                    clocks: clocks(n + 1),
                    game_over: None,
                    rematch: (n % 100 == 0).then(|| Uuid::from_u128(8)),
                }));
                assert_valid("ServerMessage", &snapshot);
            }
        }
        if n % 100 == 0 {
            assert_valid("AdminRoomDetail", &detail(&game, &info, &broadcasts));
        }
        broadcasts.push(ServerMessage::Events {
            seq: n + 1,
            events: events.clone(),
            request_id: None,
            deadline: None,
            offer_deadlines: Vec::new(),
            clocks: Vec::new(),
            legal: Vec::new(),
        });
        tally.record(&events);
        steps.push(ReplayStep {
            seq: n,
            seat: by,
            action,
            at: 1_767_225_600_000 + n,
            public_vp: game.seats().map(|s| game.public_vp(s)).collect(),
            events,
        });
    }
    let winner = game.winner().expect("the game ends within 2000 actions");
    let over = GameOverInfo {
        seq: steps.len() as u64 + 1,
        winner: Some(winner),
        scores: game.final_scores(),
        seed: game.seed().to_string(),
        seed_salt: "cd".repeat(16),
        stats: tally.stats(&game),
    };
    let stand_in = ServerMessage::StandIn {
        seq: 1,
        seat: Seat(2),
        active: true,
    };
    assert_valid("ServerMessage", &stand_in);
    assert_valid("ServerMessage", &ServerMessage::GameOver(over.clone()));
    broadcasts.push(ServerMessage::GameOver(over.clone()));
    let mut detail = detail(&game, &room(options, RoomStatus::Finished), &broadcasts);
    detail.game_over = Some(over);
    assert_valid("AdminRoomDetail", &detail);
    let summary = GameSummary {
        id: Uuid::from_u128(7),
        status: GameStatus::Finished,
        options,
        started_at: 1_767_225_600_000,
        finished_at: Some(1_767_229_200_000),
        winner: Some(winner),
        players: game
            .final_scores()
            .iter()
            .map(|s| PlayerResult {
                seat: s.seat,
                name: format!("p{}", s.seat.0),
                bot: None,
                final_vp: Some(s.points),
                vp_cards: Some(s.vp_cards),
                player_id: None,
                rating: None,
            })
            .collect(),
        seed_commitment: "ab".repeat(32),
        seed: Some(game.seed().to_string()),
        seed_salt: Some("cd".repeat(16)),
    };
    assert_valid(
        "Replay",
        &Replay {
            game: summary,
            engine_options: options.game,
            map: game.map().clone(),
            robber_start: game.map().desert(),
            first: Seat(0),
            seat_order: (0..options.game.players).map(Seat).collect(),
            start: start.clone(),
            actions: steps,
            final_scores: game.final_scores(),
            stats: tally.stats(&game),
        },
    );
}

fn detail(game: &Game, info: &RoomInfo, broadcasts: &[ServerMessage]) -> AdminRoomDetail {
    AdminRoomDetail {
        room: AdminRoomSummary {
            id: info.id,
            status: info.status,
            phase: Some(game.phase()),
            options: info.options,
            seats: info.seats.clone(),
            spectators: 1,
            created_at: info.created_at,
            last_activity: info.created_at + 5,
            seq: broadcasts.len() as u64,
            actions: broadcasts.len() as u64,
        },
        seed_commitment: info.seed_commitment.clone(),
        game: Some(Box::new(game.clone())),
        offers: game.offers().to_vec(),
        deadline: Some(1_767_225_630_000),
        offer_deadlines: Vec::new(),
        game_over: None,
        events: broadcasts[broadcasts.len().saturating_sub(50)..].to_vec(),
        view: Some(Box::new(game.view(Some(Seat(0))))),
    }
}

#[test]
fn the_board_geometry_validates_against_the_schema() {
    assert_valid(
        "BoardGeometry",
        &catan_protocol::BoardGeometry::of_topology(),
    );
}

#[test]
fn whole_played_games_validate_against_the_schema() {
    for (players, map, seed) in [(4, MapKind::Random, 3), (3, MapKind::Beginner, 8)] {
        let options = RoomOptions {
            game: GameOptions::default()
                .with_players(players)
                .with_vp_target(10)
                .with_map(map),
            turn_timer_secs: 60,
            ..RoomOptions::default()
        };
        play_and_validate(options, seed);
    }
}

#[test]
fn what_the_schema_refuses_serde_refuses() {
    // A few documents each side must refuse alike: the schema is no looser than serde
    // where it matters to a client author.
    for (name, bad) in [
        ("ClientMessage", json!({"type": "chat"})),
        ("ClientMessage", json!({"type": "sync", "extra": 1})),
        (
            "ClientMessage",
            json!({"type": "action", "request_id": "r", "action": {"type": "discard", "cards": {"gold": 1}}}),
        ),
        (
            "ClientMessage",
            json!({"type": "action", "request_id": "r", "action": {"type": "fly"}}),
        ),
        ("CreateRoomRequest", json!({"players": "four"})),
        ("TakeSeatRequest", json!({"seat": 1})),
        ("AddBotRequest", json!({"kind": "clever"})),
    ] {
        let mut schema = SCHEMAS.bundle.clone();
        schema["anyOf"] = json!([{ "$ref": format!("#/$defs/{name}") }]);
        assert!(
            !jsonschema::is_valid(&schema, &bad),
            "the schema accepts {bad} as {name}"
        );
    }
    assert!(serde_json::from_value::<ClientMessage>(json!({"type": "chat"})).is_err());
    // And what serde reads with defaults, the schema accepts.
    for (name, good) in [
        ("ClientMessage", json!({"type": "ping"})),
        (
            "ClientMessage",
            json!({"type": "action", "request_id": "r", "action": {"type": "move_robber", "tile": 3}}),
        ),
        ("CreateRoomRequest", json!({})),
        (
            "CreateRoomRequest",
            json!({"players": null, "map": "beginner"}),
        ),
        ("AddBotRequest", json!({})),
    ] {
        let mut schema = SCHEMAS.bundle.clone();
        schema["anyOf"] = json!([{ "$ref": format!("#/$defs/{name}") }]);
        assert!(
            jsonschema::is_valid(&schema, &good),
            "the schema refuses {good} as {name}"
        );
    }
}

/// Seat clocks of a game over days for every third message (none otherwise).
fn clocks(n: u64) -> Vec<catan_protocol::SeatClock> {
    if !n.is_multiple_of(3) {
        return Vec::new();
    }
    (0..4u8)
        .map(|s| catan_protocol::SeatClock {
            seat: Seat(s),
            deadline: (u64::from(s) == n % 4).then_some(1_767_225_630_000 + n),
            bank_ms: 3_600_000 * u64::from(s),
            vacation_days: u32::from(s),
            time_outs: u32::from(s % 2),
            replaced: s == 3 && n.is_multiple_of(2),
        })
        .collect()
}
