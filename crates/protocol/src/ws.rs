//! WebSocket messages: one enum per direction ([`ClientMessage`], [`ServerMessage`])
//! and the structures they carry.

use catan_engine::{Action, Event, FinalScore, GameStats, GameView, OfferId, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::codes::{ClosingReason, ErrorCode};
use crate::days::SeatClock;
use crate::room::RoomInfo;

// ----- WebSocket: client to server -------------------------------------------

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Apply a game action from the client's seat.
    Action {
        /// Chosen by the client; echoed in the acknowledgement or rejection.
        request_id: String,
        /// The engine action.
        action: Action,
        /// The `seq` of the last message the client saw when it chose the action.
        /// If the game has moved on since and the action no longer applies, it is
        /// refused as `stale_action` (with the current `seq`) instead of with the
        /// engine's code; an action that still applies is taken. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_seq: Option<u64>,
        /// For `offer_trade`: seconds after which the offer expires, when sooner than
        /// the room's own expiry (`trade_timeout_secs`; in a game over days, the
        /// end of the turn, protocol 27.2). At least 1 (0 counts as 1); ignored for
        /// any other action. Optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offer_expires_secs: Option<u32>,
    },
    /// Say something to everyone in the room.
    Chat {
        /// At most [`crate::MAX_CHAT_CHARS`] characters.
        text: String,
    },
    /// Liveness check; answered with `pong`.
    Ping {
        /// Echoed back.
        #[serde(default)]
        request_id: Option<String>,
    },
    /// Ask for a fresh `snapshot` (to this connection only), e.g. to decide from the
    /// whole current view instead of rebuilding it from events.
    Sync,
    /// Ask for what this connection's seat may see of the room's history (to this
    /// connection only): the events of every action from the game's start, redacted
    /// for the seat, and the chat the room keeps; answered with `history`.
    History,
}

impl ClientMessage {
    /// The `type` of every client message, so a server can tell an unknown type
    /// from a known one with wrong fields (a test checks it against the enum).
    pub const TYPES: [&'static str; 5] = ["action", "chat", "ping", "sync", "history"];

    /// Parses one client text frame, or says precisely what is wrong with it: the
    /// server's own reading of every frame (protocol.md 18.3), so that any client
    /// or tool can check a message exactly as the server will.
    ///
    /// # Errors
    /// [`ParseError`]: `malformed_json`, `unknown_message_type` or
    /// `invalid_message`, with what is wrong.
    pub fn parse(text: &str) -> Result<ClientMessage, ParseError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            ParseError::new(ErrorCode::MalformedJson, format!("not valid JSON: {e}"))
        })?;
        let kind = value
            .get("type")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| {
                ParseError::new(
                    ErrorCode::InvalidMessage,
                    "a message needs a string field \"type\"",
                )
            })?;
        if !ClientMessage::TYPES.contains(&kind) {
            return Err(ParseError::new(
                ErrorCode::UnknownMessageType,
                format!(
                    "unknown message type {kind:?}; expected one of {}",
                    ClientMessage::TYPES.join(", ")
                ),
            ));
        }
        let msg = ClientMessage::deserialize(&value)
            .map_err(|e| ParseError::new(ErrorCode::InvalidMessage, e.to_string()))?;
        // serde's `deny_unknown_fields` does not reach the unit variants of an
        // internally tagged enum (`sync`, and actions without arguments such as
        // `roll_dice`): they are checked here, with serde's wording for the others.
        match &msg {
            ClientMessage::Sync | ClientMessage::History => only_type(&value)?,
            ClientMessage::Action { action, .. } => {
                let unit = serde_json::to_value(action)
                    .ok()
                    .and_then(|v| v.as_object().map(serde_json::Map::len))
                    == Some(1);
                if unit && let Some(a) = value.get("action") {
                    only_type(a)?;
                }
            }
            ClientMessage::Chat { .. } | ClientMessage::Ping { .. } => {}
        }
        Ok(msg)
    }
}

/// Refuses any field but `type` in the object of a unit variant.
fn only_type(object: &serde_json::Value) -> Result<(), ParseError> {
    match object
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "type"))
    {
        Some(k) => Err(ParseError::new(
            ErrorCode::InvalidMessage,
            format!("unknown field `{k}`, there are no fields"),
        )),
        None => Ok(()),
    }
}

/// Why a client's text frame is not a message (protocol.md 18.3): the server
/// answers `error` with `code` and `message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({})", .code.code())]
pub struct ParseError {
    /// `malformed_json`, `unknown_message_type` or `invalid_message`.
    pub code: ErrorCode,
    /// What is wrong, for people.
    pub message: String,
}

impl ParseError {
    fn new(code: ErrorCode, message: impl Into<String>) -> ParseError {
        ParseError {
            code,
            message: message.into(),
        }
    }
}

// ----- WebSocket: server to client -------------------------------------------

/// A message to a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The full state as this client may see it; always the first message.
    Snapshot(Box<Snapshot>),
    /// Events of one accepted action, redacted for this client.
    Events {
        /// Room-wide sequence number of this message.
        seq: u64,
        /// What happened, in order.
        events: Vec<Event>,
        /// The request id, only for the client whose action this was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        /// Deadline of the current phase (Unix ms), when the room has a turn timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline: Option<u64>,
        /// Expiry of each open trade offer (Unix ms).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        offer_deadlines: Vec<OfferDeadline>,
        /// In a game over days, each seat's clock (protocol 27).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        clocks: Vec<SeatClock>,
        /// The actions this client's seat may take now (absent when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal: Vec<Action>,
    },
    /// The client's action was refused; nothing changed.
    Rejected {
        /// The request id of the refused action.
        request_id: String,
        /// Stable machine-readable code.
        code: String,
        /// Human-readable explanation.
        message: String,
        /// The room's current `seq`, with `stale_action`: the client has missed the
        /// messages up to it (they are on their way) and may choose again from them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
    },
    /// A message that could not be processed at all (malformed, too large, flood...).
    Error {
        /// Stable machine-readable code.
        code: String,
        /// Human-readable explanation.
        message: String,
        /// The `request_id` of the dropped message, when it had one that could be
        /// read (sent with `rate_limited`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// A chat line.
    Chat {
        /// Room-wide sequence number.
        seq: u64,
        /// The speaker's seat; absent for spectators.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// The speaker's display name.
        name: String,
        /// The text.
        text: String,
    },
    /// A seat's connection came or went.
    Presence {
        /// Room-wide sequence number.
        seq: u64,
        /// The seat.
        seat: Seat,
        /// Whether a client is connected to it now.
        connected: bool,
    },
    /// A built-in bot began (`active`) or stopped playing a person's seat while the
    /// person is away (the room's `stand_in_secs`); the person takes over again by
    /// reconnecting.
    StandIn {
        /// Room-wide sequence number.
        seq: u64,
        /// The seat.
        seat: Seat,
        /// Whether a stand-in plays the seat now.
        active: bool,
    },
    /// The room changed outside the game (seat taken or left, bot added, started).
    Room {
        /// Room-wide sequence number.
        seq: u64,
        /// The room now.
        room: RoomInfo,
    },
    /// Sent after the missed messages of a reconnect: the client is up to date as of
    /// `seq`, and here is what it may do now.
    Resumed {
        /// [`crate::PROTOCOL_VERSION`]: the server's answer to the version the client
        /// stated, as in a snapshot (a resumed client gets no snapshot).
        protocol_version: u32,
        /// Sequence number of the last message the client now has.
        seq: u64,
        /// The actions this client's seat may take now.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal: Vec<Action>,
        /// Deadline of the current phase (Unix ms), when the room has a turn timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline: Option<u64>,
        /// Expiry of each open trade offer (Unix ms).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        offer_deadlines: Vec<OfferDeadline>,
        /// In a game over days, each seat's clock (protocol 27).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        clocks: Vec<SeatClock>,
    },
    /// The game ended: final scores with VP cards revealed, the statistics and the
    /// seed.
    GameOver(GameOverInfo),
    /// Someone asked for a rematch of this room's finished game: a new room with the
    /// same options and the same bots is open for the people of this one.
    Rematch {
        /// Room-wide sequence number.
        seq: u64,
        /// The new room.
        room_id: Uuid,
    },
    /// Answer to `history`: what this connection may see of the room's past, as of
    /// `seq`.
    History(Box<History>),
    /// Answer to `ping`.
    Pong {
        /// The ping's request id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// The server is about to close this connection, and why.
    Closing {
        /// Stable machine-readable reason.
        code: String,
        /// Human-readable explanation.
        message: String,
    },
}

/// The first message on every connection, and the answer to a reconnect that is
/// too far behind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Snapshot {
    /// [`crate::PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// The room, its seats and their connection status.
    pub room: RoomInfo,
    /// The client's seat; absent for spectators.
    pub you: Option<Seat>,
    /// Sequence number of the last message included in this snapshot.
    pub seq: u64,
    /// The game as this client may see it, once started.
    pub view: Option<GameView>,
    /// Actions this client may take now.
    pub legal: Vec<Action>,
    /// Deadline of the current phase (Unix ms), when the room has a turn timer.
    pub deadline: Option<u64>,
    /// Expiry of each open trade offer (Unix ms).
    pub offer_deadlines: Vec<OfferDeadline>,
    /// In a game over days, each seat's clock (protocol 27; left out otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clocks: Vec<SeatClock>,
    /// The result, once the game is over.
    pub game_over: Option<GameOverInfo>,
    /// The rematch room, once someone asked for one (absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Uuid>,
}

/// The answer to `history` (protocol.md 5.2.12): the visible past of the room, current
/// as of `seq`. Game events are redacted for the asking seat exactly as they were
/// broadcast to it (a spectator's view for spectators); chat is the room's last 32
/// lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct History {
    /// Sequence number of the last message included: every numbered message up to it
    /// is covered, later ones arrive as usual.
    pub seq: u64,
    /// The events of every action of the game so far, in order, one entry per
    /// `events` broadcast (empty before the start).
    pub actions: Vec<HistoryActions>,
    /// The room's last 32 chat lines, in order.
    pub chat: Vec<HistoryChat>,
}

/// The events of one action in a [`History`], as its `events` broadcast carried them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryActions {
    /// The room-wide sequence number of the broadcast.
    pub seq: u64,
    /// What happened, redacted for the asking seat.
    pub events: Vec<Event>,
}

/// One chat line in a [`History`], as its `chat` broadcast carried it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryChat {
    /// Room-wide sequence number.
    pub seq: u64,
    /// The speaker's seat; absent for spectators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The speaker's display name.
    pub name: String,
    /// The text.
    pub text: String,
}

/// When a trade offer expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OfferDeadline {
    /// The offer.
    pub offer: OfferId,
    /// Expiry time, Unix ms.
    pub deadline: u64,
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameOverInfo {
    /// Room-wide sequence number.
    pub seq: u64,
    /// The winner; `None` (`null`) when the last allowed turn ended without one
    /// (R-10.5).
    pub winner: Option<Seat>,
    /// Every seat's total, VP cards revealed.
    pub scores: Vec<FinalScore>,
    /// The game's seed, revealed only now, as a decimal string (it exceeds 2^53).
    pub seed: String,
    /// The salt of the seed commitment, revealed with the seed.
    pub seed_salt: String,
    /// Points by source, dice rolled, resources gained and lost, per seat.
    pub stats: GameStats,
}

impl ServerMessage {
    /// The room-wide sequence number the message carries, for the messages that have
    /// one (the state as of a snapshot or resume, or a numbered broadcast).
    #[must_use]
    pub fn seq(&self) -> Option<u64> {
        match self {
            ServerMessage::Snapshot(s) => Some(s.seq),
            ServerMessage::Events { seq, .. }
            | ServerMessage::Chat { seq, .. }
            | ServerMessage::Presence { seq, .. }
            | ServerMessage::StandIn { seq, .. }
            | ServerMessage::Room { seq, .. }
            | ServerMessage::Resumed { seq, .. }
            | ServerMessage::Rematch { seq, .. } => Some(*seq),
            ServerMessage::GameOver(o) => Some(o.seq),
            ServerMessage::History(h) => Some(h.seq),
            ServerMessage::Rejected { .. }
            | ServerMessage::Error { .. }
            | ServerMessage::Pong { .. }
            | ServerMessage::Closing { .. } => None,
        }
    }

    /// An `error` message with one of the connection-level codes.
    #[must_use]
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error {
            code: code.code().to_owned(),
            message: message.into(),
            request_id: None,
        }
    }

    /// A `closing` message.
    #[must_use]
    pub fn closing(reason: ClosingReason, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Closing {
            code: reason.code().to_owned(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use catan_engine::Action;

    use super::ClientMessage;
    use super::ParseError;
    use crate::codes::ErrorCode;

    #[test]
    fn malformed_json_unknown_types_and_missing_fields_get_distinct_codes() {
        assert_eq!(
            ClientMessage::parse("{nope").unwrap_err().code,
            ErrorCode::MalformedJson
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"dance"}"#)
                .unwrap_err()
                .code,
            ErrorCode::UnknownMessageType
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"action","request_id":"1"}"#)
                .unwrap_err()
                .code,
            ErrorCode::InvalidMessage
        );
        assert_eq!(
            ClientMessage::parse(r#"[1,2]"#).unwrap_err().code,
            ErrorCode::InvalidMessage
        );
        assert!(
            ClientMessage::parse(
                r#"{"type":"action","request_id":"1","action":{"type":"roll_dice"}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn unit_messages_and_actions_refuse_unknown_fields_like_the_others() {
        // serde's `deny_unknown_fields` does not reach the unit variants of an
        // internally tagged enum: `sync` and actions such as `roll_dice`.
        for text in [
            r#"{"type":"sync","x":1}"#,
            r#"{"type":"action","request_id":"1","action":{"type":"roll_dice","x":1}}"#,
            r#"{"type":"action","request_id":"1","action":{"type":"end_turn","x":null}}"#,
            r#"{"type":"ping","x":1}"#,
            r#"{"type":"action","request_id":"1","action":{"type":"build_road","edge":1,"x":1}}"#,
        ] {
            let ParseError { code, message } = ClientMessage::parse(text).unwrap_err();
            assert_eq!(code, ErrorCode::InvalidMessage, "{text}");
            assert!(message.contains("unknown field `x`"), "{text}: {message}");
        }
        assert_eq!(
            ClientMessage::parse(r#"{"type":"sync"}"#).unwrap(),
            ClientMessage::Sync
        );
        assert!(
            ClientMessage::parse(
                r#"{"type":"action","request_id":"1","action":{"type":"end_turn"}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn the_list_of_client_types_names_every_client_message() {
        let all = [
            ClientMessage::Action {
                request_id: "r".into(),
                action: Action::RollDice,
                expect_seq: None,
                offer_expires_secs: None,
            },
            ClientMessage::Chat { text: "hi".into() },
            ClientMessage::Ping { request_id: None },
            ClientMessage::Sync,
            ClientMessage::History,
        ];
        let types: Vec<String> = all
            .iter()
            .map(|m| {
                serde_json::to_value(m).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(types, ClientMessage::TYPES);
    }

    #[test]
    fn a_game_over_without_a_winner_says_winner_null() {
        // R-10.5: the turn limit ended the game with no winner.
        let over = super::GameOverInfo {
            seq: 9,
            winner: None,
            scores: Vec::new(),
            seed: "1".into(),
            seed_salt: "s".into(),
            stats: catan_engine::GameStats {
                points: Vec::new(),
                dice: vec![0; 11],
                resources: Vec::new(),
            },
        };
        let v = serde_json::to_value(&over).unwrap();
        assert_eq!(v["winner"], serde_json::Value::Null);
        assert_eq!(
            serde_json::from_value::<super::GameOverInfo>(v).unwrap(),
            over
        );
    }
}
