//! The checks behind the fuzz targets, as plain functions, so that every input a
//! fuzzer found (kept in `fuzz/regressions/<target>/`) is also run by the test
//! command on the stable toolchain (`tests/regressions.rs`).

use catan_engine::invariants;
use catan_engine::playout::seat_to_act;
use catan_engine::{Action, Actor, Game, GameOptions, MapKind, Seat};
use catan_protocol::{
    AddBotRequest, ClientMessage, CreateRoomRequest, ErrorCode, LobbyError, RoomOptions,
    TakeSeatRequest, parse_body,
};

/// Reads the fuzzer's bytes one at a time; zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn byte(&mut self) -> u8 {
        self.next().unwrap_or(0)
    }
}

/// The most steps one input plays: enough for a whole game, bounded for speed.
const MAX_STEPS: usize = 1_500;

/// Plays the actions that `data` describes on a game it seeds, and checks after
/// each one what the engine promises (STYLE: `apply` refuses without a trace, and
/// `legal_actions` lists only what `apply` accepts):
/// - no panic;
/// - a refused action leaves the game exactly as it was (`Game: PartialEq`);
/// - a listed action is accepted;
/// - after every accepted action the invariants hold (cards conserved, pieces,
///   board, awards: `invariants::check`).
///
/// Each step is a listed action of whoever must act (most steps, so that games get
/// far), or a listed action of anyone turned into a near miss: a field changed to
/// a byte of the input, by any seat, 0..=255 (seats outside the game included), or
/// by the system.
///
/// # Panics
/// When one of the checks fails: that is the finding.
pub fn engine_apply(data: &[u8]) {
    let mut input = Bytes(data);
    let mut seed = [0u8; 8];
    for b in &mut seed {
        *b = input.byte();
    }
    let flags = input.byte();
    let options = GameOptions::default()
        .with_players(3 + (flags & 1))
        .with_map(if flags & 2 == 0 {
            MapKind::Random
        } else {
            MapKind::Beginner
        })
        .with_vp_target(3 + (flags >> 2) % 18);
    let Ok(mut game) = Game::new(options, u64::from_le_bytes(seed)) else {
        return;
    };
    for _ in 0..MAX_STEPS {
        let Some(mode) = input.next() else { return };
        if game.is_over() {
            return;
        }
        let (actor, action, listed) = match mode {
            0..=199 => {
                let actor = if mode % 16 == 0 {
                    Actor::System
                } else {
                    Actor::Seat(seat_to_act(&game))
                };
                let listed = game.legal_actions(actor);
                if listed.is_empty() {
                    continue;
                }
                let a = listed[usize::from(input.byte()) % listed.len()];
                (actor, a, true)
            }
            _ => {
                let by = input.byte();
                let actor = if by == 255 {
                    Actor::System
                } else {
                    Actor::Seat(Seat(by))
                };
                let any = Actor::Seat(Seat(input.byte() % options.players));
                let listed = game.legal_actions(any);
                let Some(&template) = listed.get(usize::from(input.byte()) % listed.len().max(1))
                else {
                    continue;
                };
                let Some(a) = near_miss(template, input.byte(), input.byte()) else {
                    continue;
                };
                let listed = game.legal_actions(actor).contains(&a);
                (actor, a, listed)
            }
        };
        step(&mut game, actor, action, listed);
    }
}

/// `action` with its `field`-th numeric value (in JSON order) set to `value`, if
/// that is still an action.
fn near_miss(action: Action, field: u8, value: u8) -> Option<Action> {
    let mut json = serde_json::to_value(action).ok()?;
    let mut numbers: Vec<&mut serde_json::Value> = Vec::new();
    collect_numbers(&mut json, &mut numbers);
    if numbers.is_empty() {
        return Some(action);
    }
    let n = numbers.len();
    *numbers[usize::from(field) % n] = value.into();
    serde_json::from_value(json).ok()
}

fn collect_numbers<'a>(v: &'a mut serde_json::Value, out: &mut Vec<&'a mut serde_json::Value>) {
    match v {
        serde_json::Value::Number(_) => out.push(v),
        serde_json::Value::Array(items) => {
            for i in items {
                collect_numbers(i, out);
            }
        }
        serde_json::Value::Object(map) => {
            for (_, i) in map.iter_mut() {
                collect_numbers(i, out);
            }
        }
        _ => {}
    }
}

/// Applies one action (`listed`: whether `legal_actions` lists it) and checks the
/// engine's promises.
fn step(game: &mut Game, actor: Actor, action: Action, listed: bool) {
    let before = game.clone();
    match game.apply(actor, action) {
        Ok(_) => {
            if let Err(e) = invariants::check(game) {
                panic!("{actor:?} {action:?} was accepted and broke an invariant: {e}");
            }
        }
        Err(e) => {
            assert!(
                !listed,
                "{actor:?} {action:?} is listed as legal but refused: {e}"
            );
            assert!(
                *game == before,
                "{actor:?} {action:?} was refused ({e}) but changed the game"
            );
        }
    }
}

/// One client text frame read as the server reads it (`ClientMessage::parse`):
/// - no panic, whatever the bytes;
/// - a refusal is one of the three codes protocol.md 18.3 names;
/// - a message that parses writes back as JSON that parses to the same message.
///
/// # Panics
/// When one of the checks fails.
pub fn client_message(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return; // a WebSocket text frame is UTF-8 by definition
    };
    match ClientMessage::parse(text) {
        Ok(msg) => {
            let again = serde_json::to_string(&msg).expect("client messages serialize");
            assert_eq!(
                ClientMessage::parse(&again).as_ref().ok(),
                Some(&msg),
                "{text:?} parsed, but its own JSON {again:?} does not parse back to it"
            );
        }
        Err(catan_protocol::ParseError { code, message }) => {
            assert!(
                matches!(
                    code,
                    ErrorCode::MalformedJson
                        | ErrorCode::UnknownMessageType
                        | ErrorCode::InvalidMessage
                ),
                "{text:?} refused with {code:?}"
            );
            assert!(!message.is_empty(), "{text:?}: a refusal says why");
        }
    }
}

/// A lobby (or player) request body read as the server reads it: no panic; a refusal is
/// `bad_request` or (room options only) `invalid_options`; room options that parse
/// resolve against the defaults without panicking, and either validate or are
/// refused with a message.
///
/// # Panics
/// When one of the checks fails.
pub fn lobby_bodies(data: &[u8]) {
    let defaults = RoomOptions::default();
    match CreateRoomRequest::parse(data, &defaults) {
        Ok(req) => {
            let options = req.resolve(&defaults);
            if let Err(e) = options.validate() {
                assert!(!e.to_string().is_empty());
            }
            let again = serde_json::to_vec(&req).expect("requests serialize");
            assert_eq!(
                CreateRoomRequest::parse(&again, &defaults).as_ref().ok(),
                Some(&req),
                "a room request does not read back from its own JSON"
            );
        }
        Err(e) => assert!(
            matches!(e, LobbyError::BadRequest(_) | LobbyError::InvalidOptions(_)),
            "{e:?}"
        ),
    }
    for result in [
        parse_body::<TakeSeatRequest>(data).map(|_| ()),
        parse_body::<AddBotRequest>(data).map(|_| ()),
        parse_body::<catan_protocol::GuestRequest>(data).map(|_| ()),
        parse_body::<catan_protocol::ClaimRequest>(data).map(|_| ()),
        parse_body::<catan_protocol::SignInRequest>(data).map(|_| ()),
        parse_body::<catan_protocol::RenameRequest>(data).map(|_| ()),
    ] {
        if let Err(e) = result {
            assert!(matches!(e, LobbyError::BadRequest(_)), "{e:?}");
        }
    }
}
