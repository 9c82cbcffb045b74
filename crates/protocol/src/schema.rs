//! The protocol as one JSON Schema (draft 2020-12): every WebSocket message in both
//! directions and every JSON body of the HTTP API, generated from the types of this
//! crate and the engine's (with `schemars`, which reads their serde attributes).
//!
//! Each type is described the way it travels:
//!
//! - what a **client sends** ([`ClientMessage`], the request bodies) as the server
//!   reads it: optional fields may be left out, unknown fields are refused where serde
//!   refuses them;
//! - what the **server writes** ([`ServerMessage`], the answers) exactly as it writes
//!   it: a field that is always written is `required` (`null` when empty), a field
//!   left out when empty is not.
//!
//! A type that reads more loosely than it is written (today only the engine's
//! `Action`, whose `victim` and `to` may be left out) appears twice: `Action` as the
//! server writes it (legal actions, replays) and `ActionInput` as a client may send it.
//!
//! The bundle is committed as `schema/catan-protocol.schema.json` ([`SCHEMA_JSON`], which
//! the server serves at `GET /api/schema.json`) and TypeScript declarations generated
//! from it as `web/protocol.d.ts`; `tests/schema` fails when either differs from what
//! this code generates (`CATAN_BLESS=1 cargo test -p catan-protocol` rewrites both).
//!
//! ```
//! use catan_protocol::schema::{SCHEMA_JSON, bundle};
//!
//! let committed: serde_json::Value = serde_json::from_str(SCHEMA_JSON).unwrap();
//! assert!(committed["$defs"]["ServerMessage"].is_object());
//! assert!(bundle()["$defs"]["ActionInput"].is_object());
//! ```

use std::collections::BTreeSet;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::admin::{
    AdminPlayer, AdminPlayerDetail, AdminPlayerList, AdminRoomDetail, AdminRoomList,
    CloseRoomRequest, CloseRoomResponse, KickRequest, ModerationRequest, ServerStats,
};
use crate::lobby::{
    AddBotRequest, AddBotResponse, CreateRoomRequest, CreateRoomResponse, ErrorBody, GameList,
    GameSummary, RematchResponse, Replay, RoomList, TakeSeatRequest, TakeSeatResponse,
};
use crate::players::{
    ClaimRequest, GuestRequest, Leaderboard, PartyInfo, PasskeyChallenge, PasskeyList,
    PasskeyRegistrationRequest, PasskeySignInRequest, PlayerInfo, PlayerProfile,
    QueueClientMessage, QueueRequest, QueueServerMessage, QueueStatus, RenameRequest, SessionList,
    SignInRequest, SignedIn,
};
use crate::room::RoomInfo;
use crate::ws::{ClientMessage, ServerMessage};

/// The committed bundle (`crates/protocol/schema/catan-protocol.schema.json`).
pub const SCHEMA_JSON: &str = include_str!("../schema/catan-protocol.schema.json");

/// Where the bundle keeps its definitions: `#/$defs/{name}`.
const DEFS: &str = "#/$defs/";

/// The suffix of a client-sent form that differs from the server-written one.
pub const INPUT_SUFFIX: &str = "Input";

/// The types clients send, by the names of their definitions.
pub const CLIENT_SENT: [&str; 16] = [
    "ClientMessage",
    "CreateRoomRequest",
    "TakeSeatRequest",
    "AddBotRequest",
    "CloseRoomRequest",
    "KickRequest",
    "GuestRequest",
    "ClaimRequest",
    "SignInRequest",
    "RenameRequest",
    "ModerationRequest",
    "PasskeyRegistrationRequest",
    "PasskeySignInRequest",
    "QueueRequest",
    "QueueClientMessage",
    "NotifyChannelRequest",
];

/// The types the server writes, by the names of their definitions.
pub const SERVER_WRITTEN: [&str; 34] = [
    "ServerMessage",
    "CreateRoomResponse",
    "RoomList",
    "RoomInfo",
    "TakeSeatResponse",
    "AddBotResponse",
    "ErrorBody",
    "GameList",
    "GameSummary",
    "Replay",
    "AdminRoomList",
    "AdminRoomDetail",
    "CloseRoomResponse",
    "ServerStats",
    "BoardGeometry",
    "RematchResponse",
    "PlayerInfo",
    "SignedIn",
    "SessionList",
    "PlayerProfile",
    "Leaderboard",
    "AdminPlayerList",
    "AdminPlayerDetail",
    "AdminPlayer",
    "PasskeyChallenge",
    "PasskeyList",
    "QueueStatus",
    "PartyInfo",
    "QueueServerMessage",
    "MyGames",
    "NotifyChannelList",
    "NotifyChannelInfo",
    "VapidKey",
    "AdminNoticeList",
];

/// Adds `T` to `generator`'s definitions, checking that it is named `name`.
fn add<T: JsonSchema>(generator: &mut SchemaGenerator, name: &str) {
    let reference = generator.subschema_for::<T>();
    assert_eq!(
        reference.get("$ref").and_then(Value::as_str),
        Some(format!("{DEFS}{name}").as_str()),
        "{name} is a definition of its own"
    );
}

/// The definitions of every client-sent type, as the server reads them.
fn client_definitions() -> Map<String, Value> {
    let mut g = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    add::<ClientMessage>(&mut g, CLIENT_SENT[0]);
    add::<CreateRoomRequest>(&mut g, CLIENT_SENT[1]);
    add::<TakeSeatRequest>(&mut g, CLIENT_SENT[2]);
    add::<AddBotRequest>(&mut g, CLIENT_SENT[3]);
    add::<CloseRoomRequest>(&mut g, CLIENT_SENT[4]);
    add::<KickRequest>(&mut g, CLIENT_SENT[5]);
    add::<GuestRequest>(&mut g, CLIENT_SENT[6]);
    add::<ClaimRequest>(&mut g, CLIENT_SENT[7]);
    add::<SignInRequest>(&mut g, CLIENT_SENT[8]);
    add::<RenameRequest>(&mut g, CLIENT_SENT[9]);
    add::<ModerationRequest>(&mut g, CLIENT_SENT[10]);
    add::<PasskeyRegistrationRequest>(&mut g, CLIENT_SENT[11]);
    add::<PasskeySignInRequest>(&mut g, CLIENT_SENT[12]);
    add::<QueueRequest>(&mut g, CLIENT_SENT[13]);
    add::<QueueClientMessage>(&mut g, CLIENT_SENT[14]);
    add::<crate::NotifyChannelRequest>(&mut g, CLIENT_SENT[15]);
    g.take_definitions(true)
}

/// The definitions of every server-written type, as the server writes them.
fn server_definitions() -> Map<String, Value> {
    let mut g = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    add::<ServerMessage>(&mut g, SERVER_WRITTEN[0]);
    add::<CreateRoomResponse>(&mut g, SERVER_WRITTEN[1]);
    add::<RoomList>(&mut g, SERVER_WRITTEN[2]);
    add::<RoomInfo>(&mut g, SERVER_WRITTEN[3]);
    add::<TakeSeatResponse>(&mut g, SERVER_WRITTEN[4]);
    add::<AddBotResponse>(&mut g, SERVER_WRITTEN[5]);
    add::<ErrorBody>(&mut g, SERVER_WRITTEN[6]);
    add::<GameList>(&mut g, SERVER_WRITTEN[7]);
    add::<GameSummary>(&mut g, SERVER_WRITTEN[8]);
    add::<Replay>(&mut g, SERVER_WRITTEN[9]);
    add::<AdminRoomList>(&mut g, SERVER_WRITTEN[10]);
    add::<AdminRoomDetail>(&mut g, SERVER_WRITTEN[11]);
    add::<CloseRoomResponse>(&mut g, SERVER_WRITTEN[12]);
    add::<ServerStats>(&mut g, SERVER_WRITTEN[13]);
    add::<crate::board::BoardGeometry>(&mut g, SERVER_WRITTEN[14]);
    add::<RematchResponse>(&mut g, SERVER_WRITTEN[15]);
    add::<PlayerInfo>(&mut g, SERVER_WRITTEN[16]);
    add::<SignedIn>(&mut g, SERVER_WRITTEN[17]);
    add::<SessionList>(&mut g, SERVER_WRITTEN[18]);
    add::<PlayerProfile>(&mut g, SERVER_WRITTEN[19]);
    add::<Leaderboard>(&mut g, SERVER_WRITTEN[20]);
    add::<AdminPlayerList>(&mut g, SERVER_WRITTEN[21]);
    add::<AdminPlayerDetail>(&mut g, SERVER_WRITTEN[22]);
    add::<AdminPlayer>(&mut g, SERVER_WRITTEN[23]);
    add::<PasskeyChallenge>(&mut g, SERVER_WRITTEN[24]);
    add::<PasskeyList>(&mut g, SERVER_WRITTEN[25]);
    add::<QueueStatus>(&mut g, SERVER_WRITTEN[26]);
    add::<PartyInfo>(&mut g, SERVER_WRITTEN[27]);
    add::<QueueServerMessage>(&mut g, SERVER_WRITTEN[28]);
    add::<crate::MyGames>(&mut g, SERVER_WRITTEN[29]);
    add::<crate::NotifyChannelList>(&mut g, SERVER_WRITTEN[30]);
    add::<crate::NotifyChannelInfo>(&mut g, SERVER_WRITTEN[31]);
    add::<crate::VapidKey>(&mut g, SERVER_WRITTEN[32]);
    add::<crate::AdminNoticeList>(&mut g, SERVER_WRITTEN[33]);
    g.take_definitions(true)
}

/// The definition names `schema` refers to.
fn references(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix(DEFS) {
                            out.insert(name.to_owned());
                        }
                    }
                    _ => references(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

/// Points every reference of `schema` to a name in `renamed` at its input form.
fn rename_references(schema: &mut Value, renamed: &BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix(DEFS)
                            && renamed.contains(name)
                        {
                            *r = format!("{DEFS}{name}{INPUT_SUFFIX}");
                        }
                    }
                    (_, v) => rename_references(v, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_references(v, renamed)),
        _ => {}
    }
}

/// The whole bundle: both directions' definitions under `$defs` (a client-sent form
/// that differs from the written one renamed `{name}Input`, and so is everything that
/// refers to it), and a root that accepts any one message or body of the protocol.
#[must_use]
pub fn bundle() -> Value {
    let written = server_definitions();
    let read = client_definitions();
    // Which read forms need names of their own: those that differ from the written
    // form, then (until nothing changes) those that refer to one that does.
    let mut renamed: BTreeSet<String> = read
        .iter()
        .filter(|(name, schema)| written.get(*name).is_some_and(|w| w != *schema))
        .map(|(name, _)| name.clone())
        .collect();
    loop {
        let more: BTreeSet<String> = read
            .iter()
            .filter(|(name, schema)| {
                written.contains_key(*name) && !renamed.contains(*name) && {
                    let mut refs = BTreeSet::new();
                    references(schema, &mut refs);
                    !refs.is_disjoint(&renamed)
                }
            })
            .map(|(name, _)| name.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        renamed.extend(more);
    }
    let mut defs = written;
    for (name, mut schema) in read {
        rename_references(&mut schema, &renamed);
        if renamed.contains(&name) {
            let input = format!("{name}{INPUT_SUFFIX}");
            assert!(!defs.contains_key(&input), "{input} is taken");
            defs.insert(input, schema);
        } else {
            defs.insert(name, schema);
        }
    }
    let roots: Vec<Value> = CLIENT_SENT
        .iter()
        .chain(SERVER_WRITTEN.iter())
        .map(|name| json!({ "$ref": format!("{DEFS}{name}") }))
        .collect();
    for schema in defs.values_mut() {
        plain_descriptions(schema);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "catan-server protocol",
        "description": format!(
            "Every WebSocket message (ClientMessage, ServerMessage) and every JSON body of \
             the HTTP API of catan-server, protocol version {}: what clients send as the \
             server reads it, what the server writes exactly as it writes it (see \
             protocol.md). The root accepts any one of them; validate against \
             `#/$defs/{{name}}` for one type.",
            crate::PROTOCOL_VERSION
        ),
        "anyOf": roots,
        "$defs": defs,
    })
}

/// [`bundle`] as the committed file holds it: pretty-printed, keys sorted (whatever
/// `serde_json`'s features), one final newline.
#[must_use]
pub fn bundle_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&canonical(bundle())).expect("a JSON value serializes");
    text.push('\n');
    text
}

/// `value` with every object's keys inserted in sorted order.
fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, canonical(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

/// Rustdoc links in descriptions as plain code: ``[`crate::a::B`]`` becomes `` `a::B` ``.
fn plain_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match (k.as_str(), v) {
                    ("description", Value::String(text)) => *text = unlink(text),
                    (_, v) => plain_descriptions(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[`") {
        let Some(len) = rest[start + 2..].find("`]") else {
            break;
        };
        let inner = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        out.push('`');
        out.push_str(inner.strip_prefix("crate::").unwrap_or(inner));
        out.push('`');
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}
