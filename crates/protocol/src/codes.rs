//! Every machine-readable code the server sends outside the engine's own
//! [`catan_engine::ActionError`]: the codes of `error` and room-level `rejected`
//! messages, the reasons of `closing` messages, the WebSocket close codes and the
//! HTTP error codes. Each enum has a stable `code()` and an `ALL` list, so tests and
//! client authors can enumerate them (protocol.md documents every value).

use std::fmt;

use strum::{EnumCount, FromRepr, IntoStaticStr, VariantArray};

mod lobby;
pub use lobby::LobbyError;

/// Codes of `error` messages (a message that could not be processed at all) and of
/// the room's own `rejected` messages (refusals before the engine is asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, VariantArray, EnumCount, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    /// The text was not JSON.
    MalformedJson,
    /// The `type` field names no client message.
    UnknownMessageType,
    /// A known message type with missing or wrong fields.
    InvalidMessage,
    /// The frame exceeds the server's text message size.
    MessageTooLarge,
    /// Too many messages in a short time; this one was dropped.
    RateLimited,
    /// Binary frames are not part of the protocol.
    BinaryNotSupported,
    /// Chat text that breaks the rules of [`crate::text::clean_chat`].
    InvalidChat,
    /// An action before the game started.
    NotStarted,
    /// A spectator sent an action.
    Spectator,
    /// A request id longer than [`crate::MAX_REQUEST_ID_BYTES`].
    InvalidRequestId,
    /// The action could not be stored, so it was not applied.
    StoreUnavailable,
    /// The action no longer applies: the game moved on after the `expect_seq` it
    /// was chosen at.
    StaleAction,
    /// An administrator muted the player of this seat: chat is refused until the
    /// mute ends (protocol 22.9).
    Muted,
}

impl ErrorCode {
    /// Every code, in a fixed order.
    pub const ALL: [ErrorCode; ErrorCode::COUNT] =
        *ErrorCode::VARIANTS.first_chunk().expect("COUNT variants");

    /// Stable machine-readable code: the variant's name in snake case.
    #[must_use]
    pub fn code(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why the server sends `closing` before it closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, VariantArray, EnumCount, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum ClosingReason {
    /// The server is shutting down.
    ShuttingDown,
    /// The room was closed (by an administrator, or because it ended).
    RoomClosed,
    /// An administrator disconnected this client.
    Kicked,
    /// The client asked for a protocol version (`?protocol=`) the server does not
    /// speak.
    UnsupportedVersion,
    /// Another instance of the cluster owns the room now (this one lost its lease):
    /// reconnect, with the same token and `last_seq`, to the instance that owns it.
    RoomMoved,
}

impl ClosingReason {
    /// Every reason, in a fixed order.
    pub const ALL: [ClosingReason; ClosingReason::COUNT] = *ClosingReason::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    /// Stable machine-readable code, the `code` of the `closing` message: the
    /// variant's name in snake case.
    #[must_use]
    pub fn code(self) -> &'static str {
        self.into()
    }
}

/// WebSocket close codes the server uses, each variant's number its close code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, VariantArray, EnumCount, FromRepr)]
#[repr(u16)]
pub enum CloseCode {
    /// 1001: the server is shutting down.
    GoingAway = 1001,
    /// 4000: another connection took over this seat.
    Replaced = 4000,
    /// 4008: the client sent messages faster than the rate limit, repeatedly.
    RateLimited = 4008,
    /// 4009: the client did not read its messages fast enough.
    TooSlow = 4009,
    /// 4010: the room was closed.
    RoomClosed = 4010,
    /// 4011: an administrator disconnected this client.
    Kicked = 4011,
    /// 4012: the client asked for a protocol version the server does not speak.
    UnsupportedVersion = 4012,
    /// 4013: the client sent nothing, not even a pong to the server's pings, for
    /// longer than the server waits.
    Unresponsive = 4013,
    /// 4014: another instance of the cluster owns the room now.
    RoomMoved = 4014,
}

impl CloseCode {
    /// Every close code, in a fixed order.
    pub const ALL: [CloseCode; CloseCode::COUNT] =
        *CloseCode::VARIANTS.first_chunk().expect("COUNT variants");

    /// The numeric WebSocket close code.
    #[must_use]
    pub const fn code(self) -> u16 {
        self as u16
    }

    /// The close frame's reason text.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            CloseCode::GoingAway => "server shutting down",
            CloseCode::Replaced => "another connection took this seat",
            CloseCode::RateLimited => "message flood",
            CloseCode::TooSlow => "too slow to read messages",
            CloseCode::RoomClosed => "room closed",
            CloseCode::Kicked => "disconnected by an administrator",
            CloseCode::UnsupportedVersion => "unsupported protocol version",
            CloseCode::Unresponsive => "no answer to pings",
            CloseCode::RoomMoved => "room moved to another instance",
        }
    }

    /// The close code with this number, if the server uses it.
    #[must_use]
    pub fn from_code(code: u16) -> Option<CloseCode> {
        CloseCode::from_repr(code)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_list_holds_distinct_codes() {
        let errors: BTreeSet<_> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(errors.len(), ErrorCode::ALL.len());
        let closing: BTreeSet<_> = ClosingReason::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(closing.len(), ClosingReason::ALL.len());
        let close: BTreeSet<_> = CloseCode::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(close.len(), CloseCode::ALL.len());
        let lobby: BTreeSet<_> = LobbyError::all().iter().map(LobbyError::code).collect();
        assert_eq!(lobby.len(), LobbyError::all().len());
    }

    /// Checks that `$all` lists every variant of `$ty` once: the `match` over the
    /// patterns has no `_` arm, so a new variant does not compile until it is added
    /// to the patterns here, and then the test fails until `$all` lists it too.
    macro_rules! assert_lists_every_variant {
        ($ty:ty, $all:expr, [$($variant:pat),+ $(,)?]) => {{
            fn exhaustive(c: &$ty) {
                match c {
                    $($variant)|+ => {}
                }
            }
            let all: Vec<$ty> = $all.to_vec();
            all.iter().for_each(exhaustive);
            let mut patterns = 0;
            $(
                patterns += 1;
                let listed = all.iter().filter(|c| matches!(c, $variant)).count();
                assert_eq!(listed, 1, "{} is listed {listed} times", stringify!($variant));
            )+
            assert_eq!(all.len(), patterns, "{} lists a variant twice", stringify!($all));
        }};
    }

    #[test]
    fn the_derived_codes_are_the_wire_strings() {
        // `code()` is the variant's name: renaming a variant would change the wire,
        // which these pin (protocol.md 18 and the client kits list the same).
        let codes = |all: &[&'static str]| all.join(" ");
        assert_eq!(
            codes(&ErrorCode::ALL.map(ErrorCode::code)),
            "malformed_json unknown_message_type invalid_message message_too_large \
             rate_limited binary_not_supported invalid_chat not_started spectator \
             invalid_request_id store_unavailable stale_action muted"
        );
        assert_eq!(
            codes(&ClosingReason::ALL.map(ClosingReason::code)),
            "shutting_down room_closed kicked unsupported_version room_moved"
        );
        assert_eq!(
            CloseCode::ALL.map(CloseCode::code),
            [1001, 4000, 4008, 4009, 4010, 4011, 4012, 4013, 4014]
        );
    }

    #[test]
    fn lobby_error_all_lists_every_variant() {
        assert_lists_every_variant!(
            LobbyError,
            LobbyError::all(),
            [
                LobbyError::RoomNotFound,
                LobbyError::RoomFull,
                LobbyError::SeatTaken,
                LobbyError::NoSuchSeat,
                LobbyError::InvalidName,
                LobbyError::InvalidOptions(_),
                LobbyError::NotHost,
                LobbyError::InvalidToken,
                LobbyError::AlreadyStarted,
                LobbyError::NotFull,
                LobbyError::SpectatorsNotAllowed,
                LobbyError::TooManyRooms,
                LobbyError::BadRequest(_),
                LobbyError::OriginNotAllowed,
                LobbyError::ShuttingDown,
                LobbyError::StoreUnavailable,
                LobbyError::GameNotFinished,
                LobbyError::Unauthorized,
                LobbyError::NotConnected,
                LobbyError::RateLimited { .. },
                LobbyError::TooManyConnections,
                LobbyError::ServerBusy,
                LobbyError::NotSignedIn,
                LobbyError::InvalidCredentials,
                LobbyError::NameTaken,
                LobbyError::InvalidPassword,
                LobbyError::AlreadyClaimed,
                LobbyError::SessionNotFound,
                LobbyError::PlayerNotFound,
                LobbyError::AlreadySeated,
                LobbyError::BotNotRated,
                LobbyError::Banned,
                LobbyError::NotAnAccount,
                LobbyError::PasskeyFailed,
                LobbyError::PasskeyNotFound,
                LobbyError::PasskeysUnavailable,
                LobbyError::AlreadyQueued,
                LobbyError::SeatedElsewhere,
                LobbyError::NotQueued,
                LobbyError::PartyNotFound,
                LobbyError::PartyFull,
                LobbyError::AlreadyInParty,
                LobbyError::NotInParty,
                LobbyError::NotPartyLeader,
                LobbyError::PushUnavailable,
                LobbyError::ChannelNotFound,
                LobbyError::InvalidChannel(_),
            ]
        );
    }

    #[test]
    fn close_codes_round_trip_through_their_numbers() {
        for c in CloseCode::ALL {
            assert_eq!(CloseCode::from_code(c.code()), Some(c));
        }
        assert_eq!(CloseCode::from_code(1000), None);
    }
}
