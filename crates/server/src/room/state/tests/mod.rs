//! The room's rules of play without sockets, a store or a runtime: each test feeds the
//! state machine commands and times and reads what it left in its outbox.

use std::sync::Arc;
use std::time::Duration;

use catan_engine::{Action, ActionKind, Actor, Event, GameOptions, MapKind, Seat};
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::time::Instant;
use uuid::Uuid;

use super::{Now, Out, Room, Stage};
use crate::config::Config;
use crate::error::LobbyError;
use crate::metrics::Metrics;
use crate::room::{ConnId, Outbound, Wire};
use catan_protocol::{
    AddBotRequest, BotKind, ClientMessage, CloseCode, RoomOptions, RoomStatus, ServerMessage,
};

const HOST: &str = "host-secret";

/// A fixed starting time, the same for every call in a test run.
fn t0() -> Now {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    Now {
        at: *START.get_or_init(Instant::now),
        unix_ms: 1_800_000_000_000,
    }
}

/// `now` plus `secs` on both clocks.
fn after(now: Now, secs: u64) -> Now {
    Now {
        at: now.at + Duration::from_secs(secs),
        unix_ms: now.unix_ms + secs * 1000,
    }
}

fn options(players: u8, tweak: impl FnOnce(&mut RoomOptions)) -> RoomOptions {
    let mut o = RoomOptions {
        game: GameOptions::default()
            .with_players(players)
            .with_vp_target(10)
            .with_map(MapKind::Beginner),
        ..RoomOptions::default()
    };
    tweak(&mut o);
    o
}

fn room(options: RoomOptions) -> Room {
    Room::new(
        Uuid::nil(),
        options,
        HOST,
        Arc::new(Config::for_tests().room_settings()),
        Arc::new(Metrics::default()),
        t0(),
    )
}

/// What the room sent, decoded, and the connections it closed.
#[derive(Debug, Default)]
struct Sent {
    msgs: Vec<(ConnId, ServerMessage)>,
    closed: Vec<(ConnId, CloseCode)>,
}

impl Sent {
    fn to(&self, conn: ConnId) -> Vec<&ServerMessage> {
        self.msgs
            .iter()
            .filter(|(c, _)| *c == conn)
            .map(|(_, m)| m)
            .collect()
    }
}

fn decode(out: Outbound) -> ServerMessage {
    match out {
        Outbound::Text(t) => serde_json::from_str(&t).expect("valid server JSON"),
        Outbound::Message(m) => (*m).clone(),
    }
}

fn drain(room: &mut Room) -> Sent {
    let mut sent = Sent::default();
    for out in room.take_outbox() {
        match out {
            Out::Send(conn, o) => sent.msgs.push((conn, decode(o))),
            Out::Close { conn, code, last } => {
                if let Some(o) = last {
                    sent.msgs.push((conn, decode(o)));
                }
                sent.closed.push((conn, code));
            }
        }
    }
    sent
}

/// A room of `players` people, every seat taken and connected; returns their
/// tokens and connections (the start is left to the test).
fn full_room(options: RoomOptions) -> (Room, Vec<(String, ConnId)>) {
    let mut r = room(options);
    let mut seats = Vec::new();
    for i in 0..options.game.players {
        let (_, token) = r.take_seat(&format!("p{i}"), None, None).expect("seat");
        let (conn, _) = r.connect(Some(&token), None, Wire::Text).expect("connect");
        seats.push((token, conn));
    }
    drain(&mut r);
    (r, seats)
}

fn start(r: &mut Room) {
    let pending = r.prepare_start(HOST, 7, "salt".into()).expect("startable");
    r.start(pending);
}

/// The seat to act and one of its legal actions, by a strategy.
fn next_move(r: &Room, bot: &mut dyn catan_bots::Strategy, rng: &mut StdRng) -> (Seat, Action) {
    let Stage::Playing { game, .. } = &r.stage else {
        panic!("no game in progress")
    };
    (0..r.options.game.players)
        .map(Seat)
        .find_map(|s| {
            let legal = game.game().legal_actions(s);
            (!legal.is_empty()).then(|| (s, bot.choose(&game.game().view(Some(s)), &legal, rng)))
        })
        .expect("someone may act")
}

/// Stages and commits `action` for `seat`, as the task does once the store has it.
fn play(r: &mut Room, seat: Seat, action: Action) -> Option<crate::store::Finish> {
    let staged = r
        .stage_action(Actor::Seat(seat), action, None)
        .expect("legal");
    r.commit(staged)
}

/// Plays with a strategy until `stop` holds, at most `limit` actions.
fn play_until(r: &mut Room, limit: usize, mut stop: impl FnMut(&Room) -> bool) {
    let mut bot = catan_bots::strategy(BotKind::Medium);
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..limit {
        if stop(r) {
            return;
        }
        let (seat, action) = next_move(r, bot.as_mut(), &mut rng);
        play(r, seat, action);
    }
    panic!("the condition did not hold within {limit} actions");
}

#[test]
fn seats_fill_in_order_and_a_full_room_refuses_more_changing_nothing() {
    let mut r = room(options(3, |_| {}));
    for i in 0..3 {
        let (seat, _) = r.take_seat(&format!("p{i}"), None, None).expect("seat");
        assert_eq!(seat, Seat(i));
    }
    let before = r.info();
    let seq = r.seq();
    drain(&mut r);
    assert_eq!(r.take_seat("late", None, None), Err(LobbyError::RoomFull));
    assert_eq!(
        r.take_seat("late", Some(Seat(1)), None),
        Err(LobbyError::SeatTaken)
    );
    assert_eq!(
        r.take_seat("late", Some(Seat(5)), None),
        Err(LobbyError::NoSuchSeat)
    );
    assert_eq!(r.info(), before);
    assert_eq!(r.seq(), seq);
    assert!(r.take_outbox().is_empty(), "a refusal broadcasts nothing");
}

#[test]
fn names_must_be_printable_and_short() {
    let mut r = room(options(3, |_| {}));
    for bad in ["", "   ", "a\u{7}b", &"x".repeat(40)] {
        assert_eq!(
            r.take_seat(bad, None, None),
            Err(LobbyError::InvalidName),
            "{bad:?}"
        );
    }
    let (_, token) = r.take_seat("  ann  ", None, None).expect("trimmed name");
    assert_eq!(
        r.info().seats[0].occupant.as_ref().map(|o| o.name.as_str()),
        Some("ann")
    );
    assert_eq!(
        r.leave_seat(Seat(0), "wrong"),
        Err(LobbyError::InvalidToken)
    );
    r.leave_seat(Seat(0), &token).expect("own seat");
    assert!(r.info().seats[0].occupant.is_none());
}

#[test]
fn only_the_host_starts_and_only_a_full_room() {
    let mut r = room(options(3, |_| {}));
    r.take_seat("ann", None, None).expect("seat");
    r.add_bot(
        HOST,
        AddBotRequest {
            seat: None,
            kind: BotKind::Random,
        },
    )
    .expect("bot");
    assert_eq!(
        r.add_bot(
            "nope",
            AddBotRequest {
                seat: None,
                kind: BotKind::Random
            }
        )
        .map(|_| ()),
        Err(LobbyError::NotHost)
    );
    assert_eq!(
        r.prepare_start(HOST, 1, "s".into()).map(|_| ()),
        Err(LobbyError::NotFull)
    );
    r.take_seat("cyd", None, None).expect("seat");
    assert_eq!(
        r.prepare_start("nope", 1, "s".into()).map(|_| ()),
        Err(LobbyError::NotHost)
    );
    let pending = r.prepare_start(HOST, 1, "s".into()).expect("startable");
    assert_eq!(
        r.status(),
        RoomStatus::Lobby,
        "nothing changes before the store has it"
    );
    assert_eq!(pending.record.players.len(), 3);
    assert_eq!(pending.record.players[1].bot, Some(BotKind::Random));
    let info = r.start(pending);
    assert_eq!(info.status, RoomStatus::Playing);
    assert!(info.seed_commitment.is_some());
    assert_eq!(
        r.prepare_start(HOST, 1, "s".into()).map(|_| ()),
        Err(LobbyError::AlreadyStarted)
    );
    assert_eq!(
        r.take_seat("late", None, None),
        Err(LobbyError::AlreadyStarted)
    );
}

#[test]
fn the_start_sends_each_connection_a_snapshot_of_its_own_seat() {
    let (mut r, seats) = full_room(options(3, |_| {}));
    let spectator = r.connect(None, None, Wire::Text).expect("spectator").0;
    drain(&mut r);
    start(&mut r);
    let sent = drain(&mut r);
    for (i, (_, conn)) in seats.iter().enumerate() {
        let snap = sent.to(*conn).into_iter().find_map(|m| match m {
            ServerMessage::Snapshot(s) => Some(s.clone()),
            _ => None,
        });
        let snap = snap.expect("a snapshot");
        assert_eq!(snap.you, Some(Seat(u8::try_from(i).unwrap())));
        assert_eq!(snap.view.expect("a view").me.map(|m| m.seat), snap.you);
    }
    let spec = sent.to(spectator);
    assert!(
        spec.iter().any(
            |m| matches!(m, ServerMessage::Snapshot(s) if s.you.is_none() && s.legal.is_empty())
        )
    );
}

#[test]
fn a_staged_action_changes_nothing_until_it_is_committed() {
    let (mut r, seats) = full_room(options(3, |_| {}));
    start(&mut r);
    drain(&mut r);
    let conn = &seats[0].1;
    let legal = r.legal_for(Some(Seat(0)));
    let action = legal[0];
    let (seq, view) = (r.seq(), r.snapshot(Some(Seat(0))).view);
    let msg = ClientMessage::Action {
        request_id: "a-1".into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    let staged = r.client_message(*conn, msg.clone()).expect("staged");
    assert_eq!(staged.record.seq, 0);
    assert_eq!(staged.record.room_seq, seq + 1);
    assert_eq!(
        (r.seq(), r.snapshot(Some(Seat(0))).view),
        (seq, view.clone())
    );
    // The store refused it: the client hears so, and the room is as it was.
    r.refuse_unstored(staged);
    let sent = drain(&mut r);
    assert!(matches!(
        sent.to(*conn)[..],
        [ServerMessage::Rejected { code, request_id, .. }] if code == "store_unavailable" && request_id == "a-1"
    ));
    assert_eq!((r.seq(), r.snapshot(Some(Seat(0))).view), (seq, view));
    // Tried again and stored: everyone hears the events; the actor gets its id back.
    let staged = r.client_message(*conn, msg).expect("staged");
    assert!(r.commit(staged).is_none());
    assert_eq!(r.seq(), seq + 1);
    let sent = drain(&mut r);
    for (i, (_, c)) in seats.iter().enumerate() {
        let [
            ServerMessage::Events {
                seq: s, request_id, ..
            },
        ] = &sent.to(*c)[..]
        else {
            panic!("one events message for seat {i}: {:?}", sent.to(*c));
        };
        assert_eq!(*s, seq + 1);
        assert_eq!(request_id.as_deref(), (i == 0).then_some("a-1"));
    }
}

#[test]
fn refusals_carry_their_code_and_change_nothing() {
    let (mut r, seats) = full_room(options(3, |_| {}));
    let spectator = r.connect(None, None, Wire::Text).expect("spectator").0;
    let act = |request_id: &str| ClientMessage::Action {
        request_id: request_id.into(),
        action: Action::EndTurn,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(r.client_message(seats[0].1, act("early")).is_none());
    start(&mut r);
    drain(&mut r);
    let seq = r.seq();
    assert!(r.client_message(spectator, act("spec")).is_none());
    assert!(r.client_message(seats[1].1, act("not-yours")).is_none());
    assert!(r.client_message(seats[0].1, act(&"x".repeat(65))).is_none());
    let sent = drain(&mut r);
    let codes: Vec<&str> = sent
        .msgs
        .iter()
        .filter_map(|(_, m)| match m {
            ServerMessage::Rejected { code, .. } => Some(code.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(codes, ["spectator", "not_your_turn", "invalid_request_id"]);
    assert_eq!(r.seq(), seq);
}

#[test]
fn a_second_connection_replaces_the_first_and_a_resume_replays_what_was_missed() {
    let (mut r, seats) = full_room(options(3, |_| {}));
    start(&mut r);
    let (token, first) = seats[0].clone();
    drain(&mut r);
    let seen = r.seq();
    let (seat, action) = next_move(
        &r,
        catan_bots::strategy(BotKind::Random).as_mut(),
        &mut StdRng::seed_from_u64(1),
    );
    play(&mut r, seat, action);
    r.connect(None, None, Wire::Text).ok(); // a spectator, announced to no one
    let (second, _) = r
        .connect(Some(&token), Some(seen), Wire::Text)
        .expect("resume");
    let sent = drain(&mut r);
    assert_eq!(sent.closed, [(first, CloseCode::Replaced)]);
    let got = sent.to(second);
    assert!(matches!(got[0], ServerMessage::Events { seq, .. } if *seq == seen + 1));
    assert!(matches!(got.last(), Some(ServerMessage::Resumed { seq, .. }) if *seq == r.seq()));
    // Replaced is no departure: no presence message says the seat left.
    r.announce_gone();
    assert!(drain(&mut r).msgs.is_empty());
    assert_eq!(
        r.connect(Some("not-a-token"), None, Wire::Text).map(|_| ()),
        Err(LobbyError::InvalidToken)
    );
}

#[test]
fn the_phase_timer_ends_a_turn_and_restarts_with_the_next() {
    let (mut r, _) = full_room(options(3, |o| o.turn_timer_secs = 30));
    start(&mut r);
    let t = t0();
    assert_eq!(r.next_deadline(), Some(t.at + Duration::from_secs(30)));
    r.at(after(t, 29), false);
    assert!(r.take_due().is_empty());
    r.at(after(t, 30), false);
    let due = r.take_due();
    let [timer] = due[..] else { panic!("{due:?}") };
    assert_eq!(timer.action(), Some(Action::TimeOut));
    assert_eq!(
        r.next_deadline(),
        None,
        "taken until carried out or retried"
    );
    // The store refused the time-out: it runs again a second later.
    r.retry_timer(timer);
    assert_eq!(r.next_deadline(), Some(t.at + Duration::from_secs(31)));
    r.at(after(t, 31), false);
    let [timer] = r.take_due()[..] else { panic!() };
    let staged = r.stage_timer(timer).expect("a time-out applies");
    drain(&mut r);
    r.commit(staged);
    let sent = drain(&mut r);
    assert!(sent.msgs.iter().any(|(_, m)| matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e| matches!(e, Event::TimedOut { .. })))));
    assert_eq!(
        r.next_deadline(),
        Some(t.at + Duration::from_secs(31 + 30)),
        "the next player's timer starts"
    );
}

#[test]
fn a_trade_offer_expires_after_the_trade_timeout() {
    let (mut r, _) = full_room(options(3, |o| o.trade_timeout_secs = 20));
    start(&mut r);
    let offerer = |r: &Room| {
        (0..3).map(Seat).find_map(|s| {
            r.legal_for(Some(s))
                .into_iter()
                .find(|a| a.kind() == ActionKind::OfferTrade)
                .map(|a| (s, a))
        })
    };
    play_until(&mut r, 500, |r| offerer(r).is_some());
    let (seat, offer) = offerer(&r).expect("an offer is legal");
    let now = after(t0(), 100);
    r.at(now, true);
    play(&mut r, seat, offer);
    let Stage::Playing { game, .. } = &r.stage else {
        panic!()
    };
    let id = game.game().offers()[0].id;
    assert_eq!(r.next_deadline(), Some(now.at + Duration::from_secs(20)));
    let offers = r.deadlines().offers;
    assert_eq!(offers[0].deadline, now.unix_ms + 20_000, "sent as Unix ms");
    r.at(after(now, 20), false);
    let [timer] = r.take_due()[..] else { panic!() };
    assert_eq!(timer.action(), Some(Action::ExpireOffer { offer: id }));
    let staged = r.stage_timer(timer).expect("the offer is still open");
    r.commit(staged);
    let Stage::Playing { game, .. } = &r.stage else {
        panic!()
    };
    assert!(game.game().offers().is_empty());
    assert_eq!(r.next_deadline(), None);
}

#[test]
fn an_empty_room_idles_out_and_a_person_keeps_it_open() {
    let mut r = room(options(3, |_| {}));
    let idle = Duration::from_secs(r.settings.rooms.idle_room_secs);
    let empty = Duration::from_secs(r.settings.rooms.empty_room_secs);
    assert!(empty < idle);
    assert_eq!(
        r.idle_deadline(),
        Some(t0().at + empty),
        "nobody joined: the short limit"
    );
    let (_, token) = r.take_seat("ann", None, None).expect("seat");
    assert_eq!(r.idle_deadline(), Some(t0().at + idle), "a seat is taken");
    r.connect(Some(&token), None, Wire::Text).expect("connect");
    assert_eq!(r.idle_deadline(), None);
    // A bot's connection does not keep the room: only people do.
    let mut b = room(options(3, |_| {}));
    let (_, bot_token) = b
        .add_bot(
            HOST,
            AddBotRequest {
                seat: None,
                kind: BotKind::Random,
            },
        )
        .expect("bot");
    b.connect(Some(&bot_token), None, Wire::Typed)
        .expect("connect");
    b.at(after(t0(), 5), true);
    assert_eq!(b.idle_deadline(), Some(after(t0(), 5).at + idle));
    // A room whose only seat-holder left is empty again.
    r.detach(1);
    r.leave_seat(Seat(0), &token).expect("leave");
    r.at(after(t0(), 9), true);
    assert_eq!(r.idle_deadline(), Some(after(t0(), 9).at + empty));
}

mod broadcast;
mod ending;
mod offers;
mod sleep;
mod stale;
mod stand_in;
