//! protocol.md and its sections (one file each under docs/protocol/) are the
//! contract for client authors. These tests keep them honest: every
//! JSON example parses into the Rust type its marker names and survives a round trip
//! (server output exactly as the server would write it) and validates against that
//! type's definition in the JSON Schema the server serves, every wire message, action,
//! event and phase has an example, every error code, close code and limit is
//! documented, and the board tables are the engine's topology.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use catan_engine::board::topology;
use catan_engine::{Action, ActionError, Event, GameView, Phase};
use catan_protocol::LobbyError;
use catan_protocol::{
    AddBotRequest, AddBotResponse, ClientMessage, CloseCode, ClosingReason, CreateRoomRequest,
    CreateRoomResponse, ErrorBody, ErrorCode, MAX_CHAT_CHARS, MAX_NAME_CHARS, MAX_REQUEST_ID_BYTES,
    PROTOCOL_VERSION, RoomInfo, RoomList, ServerMessage, TakeSeatRequest, TakeSeatResponse,
};
use catan_server::Config;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The repository's root.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

/// The folder of the protocol's sections, one file per numbered section.
const SECTIONS_DIR: &str = "docs/protocol";

/// The names of the Markdown files in `dir` (relative to the repository) that start
/// with `prefix`, sorted.
fn markdown_in(dir: &str, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.starts_with(prefix) && n.ends_with(".md"))
        .collect();
    names.sort();
    names
}

/// The documents under test, in order, each as (its path in the repository, its
/// text): the index protocol.md, every section file of docs/protocol/ by name, and
/// the client quick start (docs/client-quickstart*.md, every language), whose
/// examples are checked like the protocol's.
fn doc_files() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = repo_root();
        let read = |name: String| {
            let text =
                std::fs::read_to_string(root.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        };
        let mut files = vec![read("protocol.md".to_owned())];
        for name in markdown_in(SECTIONS_DIR, "") {
            files.push(read(format!("{SECTIONS_DIR}/{name}")));
        }
        for name in markdown_in("docs", "client-quickstart") {
            files.push(read(format!("docs/{name}")));
        }
        files
    })
}

/// The whole protocol as one text, every file's in order: for the checks that a
/// code, row or table is documented somewhere.
fn doc() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        doc_files()
            .iter()
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The marker that must precede every JSON block: `<!-- parse: Type -->`.
const MARKER_OPEN: &str = "<!-- parse:";

/// One marked JSON example.
struct Example {
    /// The file it is in, for messages.
    file: &'static str,
    /// 1-based line of the opening fence, for messages.
    line: usize,
    /// The Rust type named by the marker.
    ty: String,
    /// The block's text.
    json: String,
}

/// The documents' JSON examples, and what is wrong with their markers and fences.
fn scan() -> (Vec<Example>, Vec<String>) {
    let mut examples = Vec::new();
    let mut problems = Vec::new();
    for (file, text) in doc_files() {
        scan_file(file, text, &mut examples, &mut problems);
    }
    (examples, problems)
}

/// The JSON examples of one file into `examples`, what is wrong with its markers and
/// fences into `problems`.
fn scan_file(
    file: &'static str,
    text: &'static str,
    examples: &mut Vec<Example>,
    problems: &mut Vec<String>,
) {
    let lines: Vec<&str> = text.lines().collect();
    // (opening line index, marked type if a JSON block, collected text)
    let mut open: Option<(usize, Option<Option<String>>, String)> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if let Some((start, json, text)) = &mut open {
            if trimmed.starts_with("```") {
                if let Some(ty) = json.take().flatten() {
                    examples.push(Example {
                        file,
                        line: *start + 1,
                        ty,
                        json: std::mem::take(text),
                    });
                }
                open = None;
            } else {
                text.push_str(line);
                text.push('\n');
            }
            continue;
        }
        if let Some(info) = trimmed.strip_prefix("```") {
            let is_json = info.trim().to_ascii_lowercase().starts_with("json");
            let marked = if is_json {
                let ty = i
                    .checked_sub(1)
                    .and_then(|p| marker_type(lines[p]))
                    .map(str::to_owned);
                if ty.is_none() {
                    problems.push(format!(
                        "{file}:{}: JSON block without a `<!-- parse: Type -->` marker on the line before",
                        i + 1
                    ));
                }
                Some(ty)
            } else {
                None
            };
            open = Some((i, marked, String::new()));
            continue;
        }
        if line.contains(MARKER_OPEN) {
            let next_is_json = lines
                .get(i + 1)
                .is_some_and(|n| n.trim_start().starts_with("```json"));
            if marker_type(line).is_none() || !next_is_json {
                problems.push(format!(
                    "{file}:{}: a parse marker must be exactly `<!-- parse: Type -->` directly before a ```json block",
                    i + 1
                ));
            }
        }
    }
    if let Some((start, _, _)) = open {
        problems.push(format!("{file}:{}: code block never closed", start + 1));
    }
}

/// The type named by a marker line, if the line is exactly a marker.
fn marker_type(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix(MARKER_OPEN)?
        .strip_suffix("-->")
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.contains(char::is_whitespace))
}

fn examples() -> Vec<Example> {
    scan().0
}

/// Parses an example as `T`, reserializes and parses again, expecting an equal value.
/// With `exact`, the example must also be exactly what serializing the value gives
/// (for messages the server writes: every field present or absent as serde makes it).
fn round_trip<T>(ex: &Example, exact: bool) -> Result<Value, String>
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let value: T = serde_json::from_str(&ex.json).map_err(|e| format!("does not parse: {e}"))?;
    let text = serde_json::to_string(&value).map_err(|e| format!("does not serialize: {e}"))?;
    let again: T = serde_json::from_str(&text)
        .map_err(|e| format!("reserialized form does not parse: {e}"))?;
    if again != value {
        return Err(format!(
            "round trip changed the value: {value:?} vs {again:?}"
        ));
    }
    let written: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if exact {
        let given: Value = serde_json::from_str(&ex.json).map_err(|e| e.to_string())?;
        if given != written {
            return Err(format!(
                "the server would write this differently:\n  doc:    {given}\n  server: {written}"
            ));
        }
    }
    Ok(written)
}

/// The marked types that clients send: the schema describes them as the server reads
/// them (`{name}Input` where that differs from the server-written form).
const CLIENT_SENT: [&str; 12] = [
    "ClientMessage",
    "CreateRoomRequest",
    "TakeSeatRequest",
    "AddBotRequest",
    "Action",
    "CloseRoomRequest",
    "KickRequest",
    "GuestRequest",
    "ClaimRequest",
    "SignInRequest",
    "RenameRequest",
    "ModerationRequest",
];

/// The schema definition an example marked `ty` must validate against.
fn schema_definition(ty: &str, defs: &serde_json::Map<String, Value>) -> Option<String> {
    let input = format!("{ty}{}", catan_protocol::schema::INPUT_SUFFIX);
    if CLIENT_SENT.contains(&ty) && defs.contains_key(&input) {
        Some(input)
    } else {
        defs.contains_key(ty).then(|| ty.to_owned())
    }
}

/// Checks one example against the type its marker names; returns it as written back.
fn check(ex: &Example) -> Result<Value, String> {
    match ex.ty.as_str() {
        // Sent by clients: optional fields may be left out, so only the round trip.
        "ClientMessage" => round_trip::<ClientMessage>(ex, false),
        "CreateRoomRequest" => round_trip::<CreateRoomRequest>(ex, false),
        "TakeSeatRequest" => round_trip::<TakeSeatRequest>(ex, false),
        "AddBotRequest" => round_trip::<AddBotRequest>(ex, false),
        "Action" => round_trip::<Action>(ex, false),
        // Written by the server: exactly as serde writes them.
        "ServerMessage" => round_trip::<ServerMessage>(ex, true),
        "CreateRoomResponse" => round_trip::<CreateRoomResponse>(ex, true),
        "RoomInfo" => round_trip::<RoomInfo>(ex, true),
        "RoomOptions" => round_trip::<catan_protocol::RoomOptions>(ex, true),
        "RoomList" => round_trip::<RoomList>(ex, true),
        "TakeSeatResponse" => round_trip::<TakeSeatResponse>(ex, true),
        "AddBotResponse" => round_trip::<AddBotResponse>(ex, true),
        "ErrorBody" => round_trip::<ErrorBody>(ex, true),
        "Event" => round_trip::<Event>(ex, true),
        "GameView" => round_trip::<GameView>(ex, true),
        "GameSummary" => round_trip::<catan_protocol::GameSummary>(ex, true),
        "Replay" => round_trip::<catan_protocol::Replay>(ex, true),
        "RematchResponse" => round_trip::<catan_protocol::RematchResponse>(ex, true),
        // The admin API.
        "CloseRoomRequest" => round_trip::<catan_protocol::CloseRoomRequest>(ex, false),
        "KickRequest" => round_trip::<catan_protocol::KickRequest>(ex, false),
        "AdminRoomList" => round_trip::<catan_protocol::AdminRoomList>(ex, true),
        "AdminRoomDetail" => admin_detail(ex),
        "CloseRoomResponse" => round_trip::<catan_protocol::CloseRoomResponse>(ex, true),
        "ServerStats" => round_trip::<catan_protocol::ServerStats>(ex, true),
        "AdminPlayerList" => round_trip::<catan_protocol::AdminPlayerList>(ex, true),
        "ModerationEntry" => round_trip::<catan_protocol::ModerationEntry>(ex, true),
        "ModerationRequest" => round_trip::<catan_protocol::ModerationRequest>(ex, false),
        // Players (section 25).
        "GuestRequest" => round_trip::<catan_protocol::GuestRequest>(ex, false),
        "ClaimRequest" => round_trip::<catan_protocol::ClaimRequest>(ex, false),
        "SignInRequest" => round_trip::<catan_protocol::SignInRequest>(ex, false),
        "RenameRequest" => round_trip::<catan_protocol::RenameRequest>(ex, false),
        "PlayerInfo" => round_trip::<catan_protocol::PlayerInfo>(ex, true),
        "SignedIn" => round_trip::<catan_protocol::SignedIn>(ex, true),
        "SessionList" => round_trip::<catan_protocol::SessionList>(ex, true),
        "PlayerProfile" => round_trip::<catan_protocol::PlayerProfile>(ex, true),
        "Leaderboard" => round_trip::<catan_protocol::Leaderboard>(ex, true),
        "PasskeyChallenge" => round_trip::<catan_protocol::PasskeyChallenge>(ex, true),
        "PasskeyList" => round_trip::<catan_protocol::PasskeyList>(ex, true),
        "PasskeyRegistrationRequest" => {
            round_trip::<catan_protocol::PasskeyRegistrationRequest>(ex, false)
        }
        "PasskeySignInRequest" => round_trip::<catan_protocol::PasskeySignInRequest>(ex, false),
        // Quick play (section 26).
        "QueueRequest" => round_trip::<catan_protocol::QueueRequest>(ex, false),
        "QueueStatus" => round_trip::<catan_protocol::QueueStatus>(ex, true),
        "PartyInfo" => round_trip::<catan_protocol::PartyInfo>(ex, true),
        "QueueClientMessage" => round_trip::<catan_protocol::QueueClientMessage>(ex, false),
        "QueueServerMessage" => round_trip::<catan_protocol::QueueServerMessage>(ex, true),
        "MyGames" => round_trip::<catan_protocol::MyGames>(ex, true),
        // Notifications (section 27.6).
        "NotifyChannelRequest" => round_trip::<catan_protocol::NotifyChannelRequest>(ex, false),
        "NotifyChannelInfo" => round_trip::<catan_protocol::NotifyChannelInfo>(ex, true),
        "NotifyChannelList" => round_trip::<catan_protocol::NotifyChannelList>(ex, true),
        "VapidKey" => round_trip::<catan_protocol::VapidKey>(ex, true),
        "AdminNoticeList" => round_trip::<catan_protocol::AdminNoticeList>(ex, true),
        other => Err(format!("unknown type `{other}` in the parse marker")),
    }
}

/// An inspection example: exact like every server answer, and its `game` must be a
/// real engine state that agrees with the room's phase.
fn admin_detail(ex: &Example) -> Result<Value, String> {
    let written = round_trip::<catan_protocol::AdminRoomDetail>(ex, true)?;
    let detail: catan_protocol::AdminRoomDetail =
        serde_json::from_str(&ex.json).map_err(|e| e.to_string())?;
    // Deserializing a `Game` checks every invariant, so a parsed `game` is real.
    if let Some(parsed) = &detail.game
        && Some(parsed.phase()) != detail.room.phase
    {
        return Err("`game` and `room.phase` disagree".to_owned());
    }
    Ok(written)
}

/// The `type` values of the examples marked `ty`.
fn example_types(ty: &str) -> BTreeSet<String> {
    examples()
        .iter()
        .filter(|e| e.ty == ty)
        .map(|e| {
            let v: Value = serde_json::from_str(&e.json).expect("checked by examples_parse");
            v["type"]
                .as_str()
                .unwrap_or_else(|| panic!("{}:{}: no string `type`", e.file, e.line))
                .to_owned()
        })
        .collect()
}

/// The variant names serde knows for an enum tagged by `tag`, read from the error
/// for an unknown tag ("unknown variant `?`, expected one of `a`, `b`, ...").
fn serde_variants<T: DeserializeOwned + Debug>(tag: &str) -> BTreeSet<String> {
    let probe = format!(r#"{{"{tag}": "?"}}"#);
    let err = serde_json::from_str::<T>(&probe)
        .expect_err("`?` is no variant")
        .to_string();
    let list = err
        .split_once("expected one of")
        .unwrap_or_else(|| panic!("unexpected serde error: {err}"))
        .1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

// ----- every variant, with the compiler's help ------------------------------------
//
// Each list comes with an exhaustive `match`: a new variant does not compile until it
// is named here, and the tests compare each list with serde's own list of variants.

const SERVER_TYPES: [&str; 14] = [
    "snapshot",
    "events",
    "rejected",
    "error",
    "chat",
    "presence",
    "stand_in",
    "room",
    "resumed",
    "game_over",
    "pong",
    "closing",
    "rematch",
    "history",
];

fn server_type(m: &ServerMessage) -> &'static str {
    match m {
        ServerMessage::Snapshot(_) => "snapshot",
        ServerMessage::Events { .. } => "events",
        ServerMessage::Rejected { .. } => "rejected",
        ServerMessage::Error { .. } => "error",
        ServerMessage::Chat { .. } => "chat",
        ServerMessage::Presence { .. } => "presence",
        ServerMessage::StandIn { .. } => "stand_in",
        ServerMessage::Room { .. } => "room",
        ServerMessage::Resumed { .. } => "resumed",
        ServerMessage::GameOver(_) => "game_over",
        ServerMessage::Pong { .. } => "pong",
        ServerMessage::Closing { .. } => "closing",
        ServerMessage::Rematch { .. } => "rematch",
        ServerMessage::History(_) => "history",
    }
}

const CLIENT_TYPES: [&str; 5] = ["action", "chat", "ping", "sync", "history"];

fn client_type(m: &ClientMessage) -> &'static str {
    match m {
        ClientMessage::Action { .. } => "action",
        ClientMessage::Chat { .. } => "chat",
        ClientMessage::Ping { .. } => "ping",
        ClientMessage::Sync => "sync",
        ClientMessage::History => "history",
    }
}

const ACTION_TYPES: [&str; 21] = [
    "build_settlement",
    "build_road",
    "build_city",
    "roll_dice",
    "discard",
    "move_robber",
    "buy_dev_card",
    "play_knight",
    "play_road_building",
    "play_year_of_plenty",
    "play_monopoly",
    "maritime_trade",
    "offer_trade",
    "accept_offer",
    "reject_offer",
    "counter_offer",
    "withdraw_offer",
    "confirm_trade",
    "end_turn",
    "expire_offer",
    "time_out",
];

fn action_type(a: &Action) -> &'static str {
    match a {
        Action::BuildSettlement { .. } => "build_settlement",
        Action::BuildRoad { .. } => "build_road",
        Action::BuildCity { .. } => "build_city",
        Action::RollDice => "roll_dice",
        Action::Discard { .. } => "discard",
        Action::MoveRobber { .. } => "move_robber",
        Action::BuyDevCard => "buy_dev_card",
        Action::PlayKnight => "play_knight",
        Action::PlayRoadBuilding => "play_road_building",
        Action::PlayYearOfPlenty { .. } => "play_year_of_plenty",
        Action::PlayMonopoly { .. } => "play_monopoly",
        Action::MaritimeTrade { .. } => "maritime_trade",
        Action::OfferTrade { .. } => "offer_trade",
        Action::AcceptOffer { .. } => "accept_offer",
        Action::RejectOffer { .. } => "reject_offer",
        Action::CounterOffer { .. } => "counter_offer",
        Action::WithdrawOffer { .. } => "withdraw_offer",
        Action::ConfirmTrade { .. } => "confirm_trade",
        Action::EndTurn => "end_turn",
        Action::ExpireOffer { .. } => "expire_offer",
        Action::TimeOut => "time_out",
    }
}

const PHASE_NAMES: [&str; 7] = [
    "setup",
    "pre_roll",
    "discard",
    "move_robber",
    "main",
    "road_building",
    "over",
];

fn phase_name(p: &Phase) -> &'static str {
    match p {
        Phase::Setup { .. } => "setup",
        Phase::PreRoll => "pre_roll",
        Phase::Discard { .. } => "discard",
        Phase::MoveRobber { .. } => "move_robber",
        Phase::Main => "main",
        Phase::RoadBuilding { .. } => "road_building",
        Phase::Over { .. } => "over",
    }
}

fn documented(code: &str) -> bool {
    doc().contains(&format!("`{code}`"))
}

// ----- the tests -----------------------------------------------------------------

#[test]
fn every_json_block_is_marked_with_a_known_type() {
    let (examples, problems) = scan();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        examples.len() > 50,
        "only {} examples found",
        examples.len()
    );
}

#[test]
fn every_example_parses_into_its_type_and_round_trips() {
    let failures: Vec<String> = examples()
        .iter()
        .filter_map(|ex| {
            check(ex)
                .err()
                .map(|e| format!("{}:{} ({}): {e}", ex.file, ex.line, ex.ty))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `error` as lines `at /json/pointer: what is wrong`. A value that matches no variant
/// of a union is explained by the one variant it was meant to be (its tag matches,
/// and it is not `null`), so that the line points into the example.
fn explain(error: &jsonschema::ValidationError<'_>, out: &mut Vec<String>) {
    use jsonschema::error::ValidationErrorKind as Kind;
    let here = error.instance_path().as_str().to_owned();
    if let Kind::AnyOf { context } | Kind::OneOfNotValid { context } = error.kind() {
        let tag = |path: &str| path == format!("{here}/type") || path == format!("{here}/name");
        let meant: Vec<_> = context
            .iter()
            .filter(|branch| {
                !branch.iter().any(|e| {
                    let at = e.instance_path().as_str();
                    matches!(e.kind(), Kind::Constant { .. }) && tag(at)
                        || matches!(e.kind(), Kind::Type { .. }) && at == here
                })
            })
            .collect();
        if let [branch] = meant.as_slice() {
            for e in branch.iter() {
                explain(e, out);
            }
            return;
        }
    }
    let here = if here.is_empty() { "/" } else { &here };
    out.push(format!("at {here}: {error}"));
}

#[test]
fn every_example_validates_against_the_served_schema() {
    // The committed bundle, exactly what `GET /api/schema.json` serves.
    let bundle: Value = serde_json::from_str(catan_protocol::schema::SCHEMA_JSON)
        .expect("the committed schema is JSON");
    let defs = bundle["$defs"]
        .as_object()
        .expect("the bundle has $defs")
        .clone();
    let mut validators: BTreeMap<String, jsonschema::Validator> = BTreeMap::new();
    let mut failures = Vec::new();
    let all = examples();
    for ex in &all {
        let Some(name) = schema_definition(&ex.ty, &defs) else {
            failures.push(format!(
                "{}:{} ({}): the schema has no definition `{}`",
                ex.file, ex.line, ex.ty, ex.ty
            ));
            continue;
        };
        let validator = validators.entry(name.clone()).or_insert_with(|| {
            let mut schema = bundle.clone();
            let root = schema.as_object_mut().expect("an object");
            root.remove("anyOf");
            root.insert("$ref".into(), format!("#/$defs/{name}").into());
            jsonschema::validator_for(&schema).expect("the schema compiles")
        });
        let Ok(instance) = serde_json::from_str::<Value>(&ex.json) else {
            failures.push(format!("{}:{} ({}): not JSON", ex.file, ex.line, ex.ty));
            continue;
        };
        let mut problems = Vec::new();
        for error in validator.iter_errors(&instance) {
            explain(&error, &mut problems);
        }
        for problem in problems {
            failures.push(format!(
                "{}:{} ({} as #/$defs/{name}): {problem}",
                ex.file, ex.line, ex.ty
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "protocol.md examples that do not validate against the schema \
         (crates/protocol/schema/catan-protocol.schema.json):\n{}",
        failures.join("\n")
    );
    assert!(all.len() > 50, "only {} examples found", all.len());
}

#[test]
fn every_server_and_client_message_type_has_an_example() {
    for ex in examples() {
        match ex.ty.as_str() {
            "ServerMessage" => {
                let m: ServerMessage = serde_json::from_str(&ex.json).expect("parses");
                let v: Value = serde_json::from_str(&ex.json).expect("json");
                assert_eq!(v["type"], server_type(&m), "{}:{}", ex.file, ex.line);
            }
            "ClientMessage" => {
                let m: ClientMessage = serde_json::from_str(&ex.json).expect("parses");
                let v: Value = serde_json::from_str(&ex.json).expect("json");
                assert_eq!(v["type"], client_type(&m), "{}:{}", ex.file, ex.line);
            }
            _ => {}
        }
    }
    assert_eq!(set(&SERVER_TYPES), serde_variants::<ServerMessage>("type"));
    assert_eq!(set(&CLIENT_TYPES), serde_variants::<ClientMessage>("type"));
    let missing: Vec<_> = set(&SERVER_TYPES)
        .difference(&example_types("ServerMessage"))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "server messages without an example: {missing:?}"
    );
    let missing: Vec<_> = set(&CLIENT_TYPES)
        .difference(&example_types("ClientMessage"))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "client messages without an example: {missing:?}"
    );
}

#[test]
fn every_action_event_and_phase_is_documented_with_an_example() {
    assert_eq!(set(&ACTION_TYPES), serde_variants::<Action>("type"));
    assert_eq!(set(&Event::TYPES), serde_variants::<Event>("type"));
    assert_eq!(set(&PHASE_NAMES), serde_variants::<Phase>("name"));
    let mut phases = BTreeSet::new();
    for ex in examples() {
        let v: Value = serde_json::from_str(&ex.json).expect("json");
        match ex.ty.as_str() {
            "Action" => {
                let a: Action = serde_json::from_str(&ex.json).expect("parses");
                assert_eq!(v["type"], action_type(&a), "{}:{}", ex.file, ex.line);
            }
            "Event" => {
                let e: Event = serde_json::from_str(&ex.json).expect("parses");
                assert_eq!(v["type"], e.type_name(), "{}:{}", ex.file, ex.line);
                if let Event::PhaseChanged { phase } = e {
                    assert_eq!(
                        v["phase"]["name"],
                        phase_name(&phase),
                        "{}:{}",
                        ex.file,
                        ex.line
                    );
                    phases.insert(phase_name(&phase).to_owned());
                }
            }
            _ => {}
        }
    }
    for (what, all, ty) in [
        ("action", &ACTION_TYPES[..], "Action"),
        ("event", &Event::TYPES[..], "Event"),
    ] {
        let undocumented: Vec<_> = all.iter().filter(|n| !documented(n)).collect();
        assert!(
            undocumented.is_empty(),
            "{what} types not in protocol.md: {undocumented:?}"
        );
        let missing: Vec<_> = set(all).difference(&example_types(ty)).cloned().collect();
        assert!(
            missing.is_empty(),
            "{what} types without an example: {missing:?}"
        );
    }
    let missing: Vec<_> = set(&PHASE_NAMES).difference(&phases).cloned().collect();
    assert!(
        missing.is_empty(),
        "phases without a phase_changed example: {missing:?}"
    );
}

#[test]
fn every_error_code_is_documented() {
    let mut undocumented = Vec::new();
    for e in ActionError::ALL {
        // Engine codes sit in the table of 18.1: `| `code` | meaning |`.
        if !doc().contains(&format!("| `{}` |", e.code())) {
            undocumented.push(format!("engine: {}", e.code()));
        }
    }
    let lobby = LobbyError::all();
    let codes: BTreeSet<&str> = lobby.iter().map(LobbyError::code).collect();
    assert_eq!(codes.len(), lobby.len(), "lobby codes are distinct");
    for e in &lobby {
        // With its status, in the table of 4.1: `| `code` | status |`.
        let row = format!("| `{}` | {} |", e.code(), e.status());
        if !doc().contains(&row) {
            undocumented.push(format!("lobby: {row}"));
        }
    }
    // Codes of `error` messages, the room's own rejections and `closing` messages.
    let connection: Vec<&str> = ErrorCode::ALL
        .iter()
        .map(|c| c.code())
        .chain(ClosingReason::ALL.iter().map(|c| c.code()))
        .collect();
    for code in &connection {
        if !documented(code) {
            undocumented.push(format!("connection: {code}"));
        }
    }
    for code in ErrorCode::ALL {
        if !doc().contains(&format!("| `{}` |", code.code())) {
            undocumented.push(format!("connection table: {}", code.code()));
        }
    }
    assert!(
        undocumented.is_empty(),
        "missing from protocol.md: {undocumented:?}"
    );
}

#[test]
fn the_unknown_message_type_row_names_every_client_message_type() {
    let row = doc()
        .lines()
        .find(|l| l.starts_with("| `unknown_message_type` |"))
        .expect("18.3 has a row for unknown_message_type");
    for ty in ClientMessage::TYPES {
        assert!(
            row.contains(&format!("`{ty}`")),
            "18.3 must name `{ty}` among the message types: {row}"
        );
    }
}

#[test]
fn close_codes_version_and_limits_match_the_code() {
    for code in CloseCode::ALL.map(CloseCode::code) {
        assert!(
            doc().contains(&format!("| {code} |")),
            "close code {code} is not in the table of section 9"
        );
    }
    let version = format!("`protocol_version`, currently **{PROTOCOL_VERSION}**");
    assert!(doc().contains(&version), "protocol.md must say: {version}");
    let c = Config::for_tests();
    for row in [
        format!(
            "| text message size | {} bytes |",
            c.limits.max_message_bytes
        ),
        format!(
            "| broadcasts kept for reconnects | {} per room |",
            c.rooms.event_backlog
        ),
        format!(
            "| queued outgoing messages per connection | {} |",
            c.limits.outbound_queue
        ),
        format!("| rooms per server | {} |", c.limits.max_rooms),
        format!(
            "within **{} s** of being dropped",
            catan_server::ws::TOO_SLOW_CLOSE.as_secs()
        ),
        format!("| chat text | {MAX_CHAT_CHARS} characters after trimming |"),
        format!("| display name | {MAX_NAME_CHARS} characters after trimming |"),
        format!("| request id | {MAX_REQUEST_ID_BYTES} bytes |"),
        format!(
            "| `trade_timeout_secs` | number or `null` | server's `--trade-timeout-secs` (default `{}`) |",
            c.rooms.trade_timeout_secs
        ),
        format!(
            "| `discard_timeout_secs` | number or `null` | server's `--discard-timeout-secs` (default `{}`) |",
            c.rooms.discard_timeout_secs
        ),
        format!(
            "| `turn_timer_secs` | number or `null` | server's `--turn-timer-secs` (default `{}`) |",
            c.rooms.turn_timer_secs
        ),
    ] {
        assert!(
            doc().contains(&row),
            "protocol.md must contain the row: {row}"
        );
    }
}

// ----- board geometry --------------------------------------------------------------

fn join<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fields of the first element of `list` in the answer of `GET /api/board`, to
/// hold the tables' column names to the API's: `names` must all be among them.
fn board_fields(list: &str, names: &[&str]) -> Vec<String> {
    let board = serde_json::to_value(catan_protocol::BoardGeometry::of_topology()).unwrap();
    let first = &board[list][0];
    names
        .iter()
        .map(|n| {
            assert!(
                first.get(*n).is_some(),
                "`{list}[].{n}` is not a field of GET /api/board"
            );
            (*n).to_owned()
        })
        .collect()
}

/// The tables of section 14, generated from the engine's topology, with the column
/// names of `GET /api/board`.
fn board_tables() -> Vec<String> {
    let t = topology();
    let [q, r, x, y, corners, neighbors] =
        &board_fields("tiles", &["q", "r", "x", "y", "vertices", "neighbors"])[..]
    else {
        unreachable!()
    };
    let mut tiles = format!(
        "| tile | {q} | {r} | centre ({x}, {y}) | {corners} | {neighbors} |\n\
         |---:|---:|---:|---|---|---|\n",
    );
    for (i, &(q, r)) in t.tile_coords.iter().enumerate() {
        let (q, r) = (i16::from(q), i16::from(r));
        tiles.push_str(&format!(
            "| {i} | {q} | {r} | ({}, {}) | {} | {} |\n",
            2 * q + r,
            3 * r,
            join(t.tile_vertices[i].iter().map(|v| v.0)),
            join(t.tile_neighbors[i].iter().map(|n| n.0)),
        ));
    }
    let [x, y, touching, meeting] = &board_fields("vertices", &["x", "y", "tiles", "edges"])[..]
    else {
        unreachable!()
    };
    let mut vertices = format!(
        "| vertex | {x} | {y} | {touching} | {meeting} |\n\
         |---:|---:|---:|---|---|\n",
    );
    for (i, &(x, y)) in t.vertex_coords.iter().enumerate() {
        vertices.push_str(&format!(
            "| {i} | {x} | {y} | {} | {} |\n",
            join(t.vertex_tiles[i].iter().map(|v| v.0)),
            join(t.vertex_edges[i].iter().map(|e| e.0)),
        ));
    }
    let [a, b] = &board_fields("edges", &["a", "b"])[..] else {
        unreachable!()
    };
    let mut edges = format!("| edge | {a}, {b} ").repeat(4);
    edges.push_str("|\n|---:|---|---:|---|---:|---|---:|---|\n");
    for row in t.edge_vertices.chunks(4).enumerate() {
        let (r, pairs) = row;
        let cells: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(k, [a, b])| format!("{} | {}, {}", 4 * r + k, a.0, b.0))
            .collect();
        edges.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let coast = format!(
        "Coastal paths, clockwise from intersection 0: {}.",
        join(t.coast.iter().map(|e| e.0))
    );
    let harbors = format!(
        "Harbor paths, in that order: {}.",
        join(t.harbor_edges.iter().map(|e| e.0))
    );
    vec![tiles, vertices, edges, coast, harbors]
}

#[test]
fn board_tables_are_the_engine_topology() {
    for table in board_tables() {
        assert!(
            doc().contains(&table),
            "protocol.md (section 14) must contain exactly:\n\n{table}"
        );
    }
}

// ----- examples against the server ---------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_snapshot_example_is_what_a_seat_connecting_gets() {
    // 5.2.1: the seat is taken (and announced) first, then the snapshot is built,
    // so the own seat shows `connected: true` and no `presence` follows for it.
    let example = examples()
        .into_iter()
        .filter(|e| e.ty == "ServerMessage")
        .map(|e| serde_json::from_str::<Value>(&e.json).expect("example"))
        .find(|v| v["type"] == "snapshot" && v["view"].is_null())
        .expect("5.2.1 has a lobby snapshot example");
    let server = catan_e2e::TestServer::start().await;
    let created = server
        .create_room(serde_json::json!({
            "players": 3, "map": "beginner", "turn_timer_secs": 90,
            "trade_timeout_secs": 30, "discard_timeout_secs": 60, "spectators": false
        }))
        .await;
    let alice = server.take_seat(created.room_id, "alice").await;
    let mut client = server
        .connect(created.room_id, Some(&alice.token), None)
        .await;
    let Some(ServerMessage::Snapshot(got)) = client.recv().await else {
        panic!("a snapshot first")
    };
    let got = serde_json::to_value(ServerMessage::Snapshot(got)).unwrap();
    for field in ["you", "seq", "legal", "game_over"] {
        assert_eq!(got[field], example[field], "`{field}` of the 5.2.1 example");
    }
    assert_eq!(
        got["room"]["seats"], example["room"]["seats"],
        "the seats of the 5.2.1 example"
    );
    assert_eq!(got["room"]["options"], example["room"]["options"]);
    client
        .send_json(&serde_json::json!({"type": "ping", "request_id": "next"}))
        .await;
    let next = client.recv().await.expect("an answer");
    assert!(
        matches!(next, ServerMessage::Pong { .. }),
        "no presence follows the snapshot for the own seat: {next:?}"
    );
    server.stop().await;
}

#[test]
fn each_section_is_a_numbered_file_that_the_index_links() {
    let files = doc_files();
    let (_, index) = &files[0];
    let sections: Vec<_> = files
        .iter()
        .filter(|(path, _)| path.starts_with(&format!("{SECTIONS_DIR}/")))
        .collect();
    assert!(
        sections.len() >= 24,
        "the sections were found: {}",
        sections.len()
    );
    let mut problems = Vec::new();
    for (k, (path, text)) in sections.iter().enumerate() {
        let n = k + 1;
        let name = path.rsplit('/').next().expect("a file name");
        if !name.starts_with(&format!("{n:02}-")) {
            problems.push(format!(
                "{path}: section files are numbered 01, 02, ... in order"
            ));
        }
        let first = text.lines().next().unwrap_or("");
        if !first.starts_with(&format!("# {n}. ")) {
            problems.push(format!(
                "{path}: the first line must be `# {n}. Title`: {first}"
            ));
        }
        // Every other heading is a subsection of this one: `## n.1 ...`, `### n.1.2 ...`.
        let mut fenced = false;
        for (i, line) in text.lines().enumerate().skip(1) {
            fenced ^= line.trim_start().starts_with("```");
            let Some(heading) = line.strip_prefix("##") else {
                continue;
            };
            let number = heading.trim_start_matches('#').trim_start();
            if !fenced && !number.starts_with(&format!("{n}.")) {
                problems.push(format!("{path}:{}: not numbered {n}.x: {line}", i + 1));
            }
        }
        if !index.contains(&format!("](docs/protocol/{name})")) {
            problems.push(format!("protocol.md does not link {path}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The sentences of the protocol's section files that contain `needle` (a sentence
/// ends at ". " or at a blank line), each on one line.
fn sentences_naming(needle: &str) -> Vec<String> {
    doc_files()
        .iter()
        .filter(|(path, _)| path.starts_with(SECTIONS_DIR))
        .flat_map(|(_, text)| text.split("\n\n"))
        .flat_map(|paragraph| paragraph.split(". "))
        .filter(|s| s.contains(needle))
        .map(|s| s.replace('\n', " "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_query_gets_the_error_body_and_a_bad_path_plain_text_as_4_1_says() {
    // 2.4 and 4.1: a query parameter of the wrong type is `bad_request` with an
    // `ErrorBody`; a path parameter the router rejects is plain text.
    let server = catan_e2e::TestServer::start().await;
    let room = server
        .create_room(serde_json::json!({ "players": 3 }))
        .await
        .room_id;
    for (query, documented) in [
        ("/api/rooms?limit=abc".to_owned(), "limit=abc"),
        (format!("/api/rooms/{room}/ws?last_seq=-1"), "last_seq=-1"),
        (format!("/api/rooms/{room}/ws?protocol=abc"), "protocol=abc"),
    ] {
        // The sentence of 2.4 or 4.1 that gives this example says what the server does.
        let said = sentences_naming(&format!("`{documented}`"));
        assert!(!said.is_empty(), "the docs name {documented}");
        for s in &said {
            assert!(
                s.contains("bad_request") && !s.contains("plain"),
                "the docs say of {documented}: {s}"
            );
        }
        let r = server
            .http
            .get(server.url(&query))
            .send()
            .await
            .expect("http");
        assert_eq!(r.status(), 400, "{query}");
        let body: ErrorBody = r.json().await.expect("an ErrorBody");
        assert_eq!(body.error.code, "bad_request", "{query}");
        assert!(!body.error.message.is_empty());
    }
    let r = server
        .http
        .delete(server.url(&format!("/api/rooms/{room}/seats/x")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 400);
    for s in sentences_naming("`DELETE .../seats/x`") {
        assert!(s.contains("plain-text"), "4.1 says of a bad path: {s}");
    }
    let kind = r.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(kind.starts_with("text/plain"), "{kind}");
    let text = r.text().await.expect("body");
    assert!(
        serde_json::from_str::<ErrorBody>(&text).is_err(),
        "not an ErrorBody: {text}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_after_the_game_is_over_is_refused_with_game_over_as_18_1_says() {
    let server = catan_e2e::TestServer::start().await;
    let created = server
        .create_room(serde_json::json!({ "players": 3, "vp_target": 3 }))
        .await;
    let room = created.room_id;
    let me = server.take_seat(room, "me").await;
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    server.start_game(room, &created.host_token).await;
    let client = server.connect(room, Some(&me.token), None).await;
    let (mut client, _) = catan_e2e::play_randomly(client, 7).await;
    assert!(
        client
            .received
            .iter()
            .any(|(_, m)| matches!(m, ServerMessage::GameOver(_))),
        "the game ended"
    );
    client
        .send_json(&serde_json::json!({
            "type": "action", "request_id": "late", "action": {"type": "end_turn"}
        }))
        .await;
    let refusal = client
        .recv_until(|m| matches!(m, ServerMessage::Rejected { .. }))
        .await;
    let ServerMessage::Rejected {
        request_id, code, ..
    } = refusal
    else {
        unreachable!()
    };
    assert_eq!(request_id, "late");
    assert_eq!(code, ActionError::GameOver.code());
    assert_eq!(code, "game_over");
    assert!(doc().contains("| `game_over` | The game is over"));
    server.stop().await;
}
