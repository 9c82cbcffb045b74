//! WebSocket messages: one enum per direction ([`ClientMessage`], [`ServerMessage`])
//! and the structures they carry.

use catan_engine::{Action, Event, FinalScore, GameView, OfferId, Seat};
use serde::{Deserialize, Serialize};

use crate::codes::{ClosingReason, ErrorCode};
use crate::room::RoomInfo;

// ----- WebSocket: client to server -------------------------------------------

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Apply a game action from the client's seat.
    Action {
        /// Chosen by the client; echoed in the acknowledgement or rejection.
        request_id: String,
        /// The engine action.
        action: Action,
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
}

impl ClientMessage {
    /// The `type` of every client message, so a server can tell an unknown type
    /// from a known one with wrong fields (a test checks it against the enum).
    pub const TYPES: [&'static str; 4] = ["action", "chat", "ping", "sync"];
}

// ----- WebSocket: server to client -------------------------------------------

/// A message to a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    },
    /// A message that could not be processed at all (malformed, too large, flood...).
    Error {
        /// Stable machine-readable code.
        code: String,
        /// Human-readable explanation.
        message: String,
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
    },
    /// The game ended: final scores with VP cards revealed and the seed.
    GameOver(GameOverInfo),
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The result, once the game is over.
    pub game_over: Option<GameOverInfo>,
}

/// When a trade offer expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferDeadline {
    /// The offer.
    pub offer: OfferId,
    /// Expiry time, Unix ms.
    pub deadline: u64,
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOverInfo {
    /// Room-wide sequence number.
    pub seq: u64,
    /// The winner.
    pub winner: Seat,
    /// Every seat's total, VP cards revealed.
    pub scores: Vec<FinalScore>,
    /// The game's seed, revealed only now, as a decimal string (it exceeds 2^53).
    pub seed: String,
    /// The salt of the seed commitment, revealed with the seed.
    pub seed_salt: String,
}

impl ServerMessage {
    /// An `error` message with one of the connection-level codes.
    #[must_use]
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error {
            code: code.code().to_owned(),
            message: message.into(),
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

    #[test]
    fn the_list_of_client_types_names_every_client_message() {
        let all = [
            ClientMessage::Action {
                request_id: "r".into(),
                action: Action::RollDice,
            },
            ClientMessage::Chat { text: "hi".into() },
            ClientMessage::Ping { request_id: None },
            ClientMessage::Sync,
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
}
