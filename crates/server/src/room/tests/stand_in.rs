//! Stand-ins on tokio's paused clock: a bot plays an absent person's seat after
//! exactly the room's `stand_in_secs` of a decision of theirs, never with 0, and
//! stops when the person is back, who then acts again.

use std::sync::Arc;
use std::time::Duration;

use catan_engine::{Event, Seat};
use tokio::time::Instant;

use super::{
    Connected, Outbound, RoomHandle, Switchable, answer_of, context, first_mover, recv_until,
    started_in,
};
use catan_protocol::{ClientMessage, RoomOptions, ServerMessage};

/// A started room of three people, each bot (stand-ins) thinking `think` before
/// each action, with the room's options tweaked.
async fn room_of_people(
    think: Duration,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (RoomHandle, Vec<Connected>, Vec<String>) {
    let mut ctx = context(Arc::new(Switchable::default()));
    let bots = crate::bot::Bots::new(crate::Config::for_tests().bots.settings());
    ctx.bots = Arc::new(bots.thinking(think));
    started_in(ctx, tweak).await
}

/// Everything queued for `c` now, without waiting.
fn queued(c: &mut Connected) -> Vec<ServerMessage> {
    let mut out = Vec::new();
    while let Ok(o) = c.rx.try_recv() {
        match o {
            Outbound::Message(m) => out.push((*m).clone()),
            Outbound::Text(t) => panic!("an in-process client got text: {t}"),
        }
    }
    out
}

fn stand_in_of(m: &ServerMessage) -> Option<(Seat, bool)> {
    match m {
        ServerMessage::StandIn { seat, active, .. } => Some((*seat, *active)),
        _ => None,
    }
}

fn built_by(m: &ServerMessage, who: Seat) -> bool {
    matches!(m, ServerMessage::Events { events, .. }
        if events.iter().any(|e| matches!(e, Event::SettlementBuilt { seat, .. } if *seat == who)))
}

#[tokio::test(start_paused = true)]
async fn a_stand_in_plays_after_exactly_the_option_and_stops_when_the_person_is_back() {
    let think = Duration::from_secs(1);
    let (room, mut conns, tokens) = room_of_people(think, |o| o.stand_in_secs = 30).await;
    let (i, _) = first_mover(&mut conns).await;
    let (me, watcher) = (Seat(u8::try_from(i).unwrap()), (i + 1) % 3);
    // The person whose placement it is goes away.
    room.disconnect(conns[i].conn).await;
    let left = Instant::now();
    let m = recv_until(&mut conns[watcher], |m| stand_in_of(m).is_some()).await;
    assert_eq!(stand_in_of(&m), Some((me, true)));
    let waited = left.elapsed();
    assert!(
        waited >= Duration::from_secs(30) && waited < Duration::from_secs(31),
        "the stand-in came after {waited:?}"
    );
    let info = room.info().await.expect("room");
    let seat = &info.seats[i];
    assert!(seat.stand_in && !seat.connected, "{seat:?}");

    // It plays the seat: the settlement, after its think time.
    recv_until(&mut conns[watcher], |m| built_by(m, me)).await;
    assert_eq!(left.elapsed(), Duration::from_secs(31));

    // The person is back before the stand-in's next decision (the road), with the
    // same token: the stand-in stops.
    let mut back = room
        .connect_in_process(tokens[i].clone())
        .await
        .expect("the token still works");
    let m = recv_until(&mut conns[watcher], |m| stand_in_of(m).is_some()).await;
    assert_eq!(stand_in_of(&m), Some((me, false)));
    let ServerMessage::Snapshot(snap) =
        recv_until(&mut back, |m| matches!(m, ServerMessage::Snapshot(_))).await
    else {
        unreachable!()
    };
    assert!(!snap.room.seats[i].stand_in && snap.room.seats[i].connected);
    let road = *snap
        .legal
        .first()
        .expect("the road is the person's to place");

    // Nobody places it for them, however long they take.
    tokio::time::sleep(Duration::from_secs(600)).await;
    let meanwhile = queued(&mut conns[watcher]);
    assert!(
        !meanwhile
            .iter()
            .any(|m| matches!(m, ServerMessage::Events { .. })),
        "the game waited for the person: {meanwhile:?}"
    );
    assert!(!meanwhile.iter().any(|m| stand_in_of(m).is_some()));

    // And the person acts again.
    let act = ClientMessage::Action {
        request_id: "back".into(),
        action: road,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(room.client_message(back.conn, act).await);
    let answer = answer_of(&mut back).await;
    assert!(
        matches!(&answer, ServerMessage::Events { request_id: Some(r), .. } if r == "back"),
        "{answer:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn with_zero_no_stand_in_ever_comes() {
    let (room, mut conns, _) = room_of_people(Duration::ZERO, |o| o.stand_in_secs = 0).await;
    let (i, _) = first_mover(&mut conns).await;
    let watcher = (i + 1) % 3;
    room.disconnect(conns[i].conn).await;
    tokio::time::sleep(Duration::from_secs(3000)).await;
    let meanwhile = queued(&mut conns[watcher]);
    assert!(
        !meanwhile
            .iter()
            .any(|m| stand_in_of(m).is_some() || matches!(m, ServerMessage::Events { .. })),
        "{meanwhile:?}"
    );
    let info = room.info().await.expect("room");
    assert!(!info.seats[i].stand_in);
}

#[tokio::test(start_paused = true)]
async fn the_countdown_starts_again_when_the_person_leaves_again() {
    let (room, mut conns, tokens) = room_of_people(Duration::ZERO, |o| o.stand_in_secs = 30).await;
    let (i, _) = first_mover(&mut conns).await;
    let watcher = (i + 1) % 3;
    room.disconnect(conns[i].conn).await;
    tokio::time::sleep(Duration::from_secs(20)).await;
    // Back after 20 s, away again 5 s later: the 30 s count from then.
    let again = room
        .connect_in_process(tokens[i].clone())
        .await
        .expect("token");
    tokio::time::sleep(Duration::from_secs(5)).await;
    room.disconnect(again.conn).await;
    let left = Instant::now();
    recv_until(&mut conns[watcher], |m| stand_in_of(m).is_some()).await;
    assert_eq!(left.elapsed(), Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn a_seat_whose_decision_it_is_not_gets_no_stand_in() {
    let (room, mut conns, _) = room_of_people(Duration::ZERO, |o| o.stand_in_secs = 30).await;
    let (i, _) = first_mover(&mut conns).await;
    // Someone who is not to act goes away; the one on turn stays and waits.
    let other = (i + 1) % 3;
    room.disconnect(conns[other].conn).await;
    tokio::time::sleep(Duration::from_secs(600)).await;
    let meanwhile = queued(&mut conns[i]);
    assert!(
        !meanwhile.iter().any(|m| stand_in_of(m).is_some()),
        "{meanwhile:?}"
    );
}
