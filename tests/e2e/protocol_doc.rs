//! protocol.md is the contract for client authors. These tests keep it honest: every
//! JSON example parses into the Rust type its marker names and survives a round trip
//! (server output exactly as the server would write it), every wire message, action,
//! event and phase has an example, every error code, close code and limit is
//! documented, and the board tables are the engine's topology.

use std::collections::BTreeSet;
use std::fmt::Debug;

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

/// The document under test.
const DOC: &str = include_str!("../../protocol.md");

/// The marker that must precede every JSON block: `<!-- parse: Type -->`.
const MARKER_OPEN: &str = "<!-- parse:";

/// One marked JSON example.
struct Example {
    /// 1-based line of the opening fence, for messages.
    line: usize,
    /// The Rust type named by the marker.
    ty: String,
    /// The block's text.
    json: String,
}

/// The document's JSON examples, and what is wrong with its markers and fences.
fn scan() -> (Vec<Example>, Vec<String>) {
    let lines: Vec<&str> = DOC.lines().collect();
    let mut examples = Vec::new();
    let mut problems = Vec::new();
    // (opening line index, marked type if a JSON block, collected text)
    let mut open: Option<(usize, Option<Option<String>>, String)> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if let Some((start, json, text)) = &mut open {
            if trimmed.starts_with("```") {
                if let Some(ty) = json.take().flatten() {
                    examples.push(Example {
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
                        "line {}: JSON block without a `<!-- parse: Type -->` marker on the line before",
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
                    "line {}: a parse marker must be exactly `<!-- parse: Type -->` directly before a ```json block",
                    i + 1
                ));
            }
        }
    }
    if let Some((start, _, _)) = open {
        problems.push(format!("line {}: code block never closed", start + 1));
    }
    (examples, problems)
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
        "RoomList" => round_trip::<RoomList>(ex, true),
        "TakeSeatResponse" => round_trip::<TakeSeatResponse>(ex, true),
        "AddBotResponse" => round_trip::<AddBotResponse>(ex, true),
        "ErrorBody" => round_trip::<ErrorBody>(ex, true),
        "Event" => round_trip::<Event>(ex, true),
        "GameView" => round_trip::<GameView>(ex, true),
        "GameSummary" => round_trip::<catan_protocol::GameSummary>(ex, true),
        // The admin API.
        "CloseRoomRequest" => round_trip::<catan_protocol::CloseRoomRequest>(ex, false),
        "KickRequest" => round_trip::<catan_protocol::KickRequest>(ex, false),
        "AdminRoomList" => round_trip::<catan_protocol::AdminRoomList>(ex, true),
        "AdminRoomDetail" => admin_detail(ex),
        "CloseRoomResponse" => round_trip::<catan_protocol::CloseRoomResponse>(ex, true),
        "ServerStats" => round_trip::<catan_protocol::ServerStats>(ex, true),
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
                .unwrap_or_else(|| panic!("line {}: no string `type`", e.line))
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

const SERVER_TYPES: [&str; 11] = [
    "snapshot",
    "events",
    "rejected",
    "error",
    "chat",
    "presence",
    "room",
    "resumed",
    "game_over",
    "pong",
    "closing",
];

fn server_type(m: &ServerMessage) -> &'static str {
    match m {
        ServerMessage::Snapshot(_) => "snapshot",
        ServerMessage::Events { .. } => "events",
        ServerMessage::Rejected { .. } => "rejected",
        ServerMessage::Error { .. } => "error",
        ServerMessage::Chat { .. } => "chat",
        ServerMessage::Presence { .. } => "presence",
        ServerMessage::Room { .. } => "room",
        ServerMessage::Resumed { .. } => "resumed",
        ServerMessage::GameOver(_) => "game_over",
        ServerMessage::Pong { .. } => "pong",
        ServerMessage::Closing { .. } => "closing",
    }
}

const CLIENT_TYPES: [&str; 4] = ["action", "chat", "ping", "sync"];

fn client_type(m: &ClientMessage) -> &'static str {
    match m {
        ClientMessage::Action { .. } => "action",
        ClientMessage::Chat { .. } => "chat",
        ClientMessage::Ping { .. } => "ping",
        ClientMessage::Sync => "sync",
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

const EVENT_TYPES: [&str; 27] = [
    "turn_started",
    "phase_changed",
    "settlement_built",
    "road_built",
    "city_built",
    "paid",
    "starting_resources",
    "dice_rolled",
    "produced",
    "shortage",
    "discarded",
    "robber_moved",
    "stolen",
    "dev_card_bought",
    "dev_card_played",
    "year_of_plenty",
    "monopoly",
    "maritime_traded",
    "offer_made",
    "offer_accepted",
    "offer_rejected",
    "offer_closed",
    "trade_completed",
    "longest_road",
    "largest_army",
    "timed_out",
    "game_won",
];

fn event_type(e: &Event) -> &'static str {
    match e {
        Event::TurnStarted { .. } => "turn_started",
        Event::PhaseChanged { .. } => "phase_changed",
        Event::SettlementBuilt { .. } => "settlement_built",
        Event::RoadBuilt { .. } => "road_built",
        Event::CityBuilt { .. } => "city_built",
        Event::Paid { .. } => "paid",
        Event::StartingResources { .. } => "starting_resources",
        Event::DiceRolled { .. } => "dice_rolled",
        Event::Produced { .. } => "produced",
        Event::Shortage { .. } => "shortage",
        Event::Discarded { .. } => "discarded",
        Event::RobberMoved { .. } => "robber_moved",
        Event::Stolen { .. } => "stolen",
        Event::DevCardBought { .. } => "dev_card_bought",
        Event::DevCardPlayed { .. } => "dev_card_played",
        Event::YearOfPlenty { .. } => "year_of_plenty",
        Event::Monopoly { .. } => "monopoly",
        Event::MaritimeTraded { .. } => "maritime_traded",
        Event::OfferMade { .. } => "offer_made",
        Event::OfferAccepted { .. } => "offer_accepted",
        Event::OfferRejected { .. } => "offer_rejected",
        Event::OfferClosed { .. } => "offer_closed",
        Event::TradeCompleted { .. } => "trade_completed",
        Event::LongestRoad { .. } => "longest_road",
        Event::LargestArmy { .. } => "largest_army",
        Event::TimedOut { .. } => "timed_out",
        Event::GameWon { .. } => "game_won",
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
    DOC.contains(&format!("`{code}`"))
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
                .map(|e| format!("line {} ({}): {e}", ex.line, ex.ty))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_server_and_client_message_type_has_an_example() {
    for ex in examples() {
        match ex.ty.as_str() {
            "ServerMessage" => {
                let m: ServerMessage = serde_json::from_str(&ex.json).expect("parses");
                let v: Value = serde_json::from_str(&ex.json).expect("json");
                assert_eq!(v["type"], server_type(&m), "line {}", ex.line);
            }
            "ClientMessage" => {
                let m: ClientMessage = serde_json::from_str(&ex.json).expect("parses");
                let v: Value = serde_json::from_str(&ex.json).expect("json");
                assert_eq!(v["type"], client_type(&m), "line {}", ex.line);
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
    assert_eq!(set(&EVENT_TYPES), serde_variants::<Event>("type"));
    assert_eq!(set(&PHASE_NAMES), serde_variants::<Phase>("name"));
    let mut phases = BTreeSet::new();
    for ex in examples() {
        let v: Value = serde_json::from_str(&ex.json).expect("json");
        match ex.ty.as_str() {
            "Action" => {
                let a: Action = serde_json::from_str(&ex.json).expect("parses");
                assert_eq!(v["type"], action_type(&a), "line {}", ex.line);
            }
            "Event" => {
                let e: Event = serde_json::from_str(&ex.json).expect("parses");
                assert_eq!(v["type"], event_type(&e), "line {}", ex.line);
                if let Event::PhaseChanged { phase } = e {
                    assert_eq!(v["phase"]["name"], phase_name(&phase), "line {}", ex.line);
                    phases.insert(phase_name(&phase).to_owned());
                }
            }
            _ => {}
        }
    }
    for (what, all, ty) in [
        ("action", &ACTION_TYPES[..], "Action"),
        ("event", &EVENT_TYPES[..], "Event"),
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
        if !DOC.contains(&format!("| `{}` |", e.code())) {
            undocumented.push(format!("engine: {}", e.code()));
        }
    }
    let lobby = LobbyError::all();
    let codes: BTreeSet<&str> = lobby.iter().map(LobbyError::code).collect();
    assert_eq!(codes.len(), lobby.len(), "lobby codes are distinct");
    for e in &lobby {
        // With its status, in the table of 4.1: `| `code` | status |`.
        let row = format!("| `{}` | {} |", e.code(), e.status());
        if !DOC.contains(&row) {
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
        if !DOC.contains(&format!("| `{}` |", code.code())) {
            undocumented.push(format!("connection table: {}", code.code()));
        }
    }
    assert!(
        undocumented.is_empty(),
        "missing from protocol.md: {undocumented:?}"
    );
}

#[test]
fn close_codes_version_and_limits_match_the_code() {
    for code in CloseCode::ALL.map(CloseCode::code) {
        assert!(
            DOC.contains(&format!("| {code} |")),
            "close code {code} is not in the table of section 9"
        );
    }
    let version = format!("`protocol_version`, currently **{PROTOCOL_VERSION}**");
    assert!(DOC.contains(&version), "protocol.md must say: {version}");
    let c = Config::for_tests();
    for row in [
        format!("| text message size | {} bytes |", c.max_message_bytes),
        format!(
            "| broadcasts kept for reconnects | {} per room |",
            c.event_backlog
        ),
        format!(
            "| queued outgoing messages per connection | {} |",
            c.outbound_queue
        ),
        format!("| rooms per server | {} |", c.max_rooms),
        format!("| chat text | {MAX_CHAT_CHARS} characters after trimming |"),
        format!("| display name | {MAX_NAME_CHARS} characters after trimming |"),
        format!("| request id | {MAX_REQUEST_ID_BYTES} bytes |"),
        format!(
            "| `trade_timeout_secs` | number or `null` | server's `--trade-timeout-secs` (default `{}`) |",
            c.trade_timeout_secs
        ),
        format!(
            "| `discard_timeout_secs` | number or `null` | server's `--discard-timeout-secs` (default `{}`) |",
            c.discard_timeout_secs
        ),
        format!(
            "| `turn_timer_secs` | number or `null` | server's `--turn-timer-secs` (default `{}`) |",
            c.turn_timer_secs
        ),
    ] {
        assert!(
            DOC.contains(&row),
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

/// The tables of section 14, generated from the engine's topology.
fn board_tables() -> Vec<String> {
    let t = topology();
    let mut tiles = String::from(
        "| tile | q | r | centre (x, y) | corners, clockwise from the top | neighbours |\n\
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
    let mut vertices = String::from(
        "| vertex | x | y | tiles | paths |\n\
         |---:|---:|---:|---|---|\n",
    );
    for (i, &(x, y)) in t.vertex_coords.iter().enumerate() {
        vertices.push_str(&format!(
            "| {i} | {x} | {y} | {} | {} |\n",
            join(t.vertex_tiles[i].iter().map(|v| v.0)),
            join(t.vertex_edges[i].iter().map(|e| e.0)),
        ));
    }
    let mut edges = String::from(
        "| path | ends | path | ends | path | ends | path | ends |\n\
         |---:|---|---:|---|---:|---|---:|---|\n",
    );
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
            DOC.contains(&table),
            "protocol.md (section 14) must contain exactly:\n\n{table}"
        );
    }
}
