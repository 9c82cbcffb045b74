//! Stand-ins over real sockets: a person who leaves on their turn is played by a bot
//! of the room's `stand_in_level` after the room's `stand_in_secs`, everyone sees it
//! (`stand_in`, and `stand_in: true` in the room description of later snapshots),
//! and the person takes over again on reconnecting; a game without a turn timer
//! whose one person never comes reaches its end.

use std::time::{Duration, Instant};

use catan_e2e::{Client, Table, TestServer};
use catan_engine::{Event, Seat};
use catan_protocol::ServerMessage;
use serde_json::json;

fn stand_in(m: &ServerMessage) -> Option<(Seat, bool)> {
    match m {
        ServerMessage::StandIn { seat, active, .. } => Some((*seat, *active)),
        _ => None,
    }
}

/// Whether `m` carries an event of `who`'s own doing (a piece built).
fn built_by(m: &ServerMessage, who: Seat) -> bool {
    matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e| matches!(e,
        Event::SettlementBuilt { seat, .. } | Event::RoadBuilt { seat, .. } if *seat == who)))
}

/// The first snapshot with a game view that `c` receives.
async fn game_snapshot(c: &mut Client) -> catan_protocol::Snapshot {
    let ServerMessage::Snapshot(s) = c
        .recv_until(|m| matches!(m, ServerMessage::Snapshot(s) if s.view.is_some()))
        .await
    else {
        unreachable!()
    };
    *s
}

#[tokio::test]
async fn a_person_who_leaves_on_their_turn_is_stood_in_for_and_takes_over_on_return() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({
            "players": 3, "map": "beginner", "turn_timer_secs": 0,
            "stand_in_secs": 1, "stand_in_level": "random"
        }))
        .await;
    assert_eq!(created.room.options.stand_in_secs, 1);
    let room = created.room_id;
    let mut seats = Vec::new();
    let mut clients = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        let s = server.take_seat(room, name).await;
        clients.push(server.connect(room, Some(&s.token), None).await);
        seats.push(s);
    }
    server.start_game(room, &created.host_token).await;
    let mut first = None;
    for (i, c) in clients.iter_mut().enumerate() {
        if !game_snapshot(c).await.legal.is_empty() {
            first = Some(i);
        }
    }
    // The person whose placement it is closes their socket.
    let i = first.expect("someone places first");
    let me = seats[i].seat;
    let leaver = clients.remove(i);
    drop(leaver);
    let left = Instant::now();

    // The others see a stand-in take the seat after a second, and play it.
    for c in &mut clients {
        let m = c.recv_until(|m| stand_in(m).is_some()).await;
        assert_eq!(stand_in(&m), Some((me, true)));
    }
    let waited = left.elapsed();
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_secs(10),
        "the stand-in came after {waited:?}"
    );
    clients[0].recv_until(|m| built_by(m, me)).await;
    // Someone who comes later sees it in the room description.
    let mut spectator = server.connect(room, None, None).await;
    let snap = game_snapshot(&mut spectator).await;
    let seat = &snap.room.seats[usize::from(me.0)];
    assert!(seat.stand_in && !seat.connected, "{seat:?}");

    // The person comes back with the same token: the stand-in stops, for everyone.
    let mut back = server.connect(room, Some(&seats[i].token), None).await;
    let snap = game_snapshot(&mut back).await;
    assert!(!snap.room.seats[usize::from(me.0)].stand_in);
    for c in &mut clients {
        let m = c.recv_until(|m| stand_in(m).is_some()).await;
        assert_eq!(stand_in(&m), Some((me, false)));
    }
    // And plays on: the game goes on until the person's own action is acknowledged
    // (their next placement comes after the others' in the snake order).
    let mut everyone = vec![back];
    everyone.extend(clients);
    let mut table = Table::new(everyone, 7);
    table
        .play_until(400, |t| {
            t.clients[0].received.iter().any(|(_, m)| {
                matches!(
                    m,
                    ServerMessage::Events {
                        request_id: Some(_),
                        ..
                    }
                )
            })
        })
        .await;
    for c in &table.clients {
        assert!(
            !c.received
                .iter()
                .any(|(_, m)| stand_in(m) == Some((me, true)) && m.seq() > Some(snap.seq)),
            "no stand-in while the person is connected"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_game_without_a_turn_timer_whose_person_never_comes_reaches_its_end() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({
            "players": 3, "turn_timer_secs": 0, "turn_limit": 100,
            "stand_in_secs": 1, "stand_in_level": "random"
        }))
        .await;
    let room = created.room_id;
    let absent = server.take_seat(room, "gone").await.seat;
    for _ in 0..2 {
        server
            .add_bot_of_kind(room, &created.host_token, Some("random"))
            .await;
    }
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;
    let played = tokio::time::timeout(Duration::from_secs(120), async {
        spectator
            .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await
    })
    .await
    .expect("the game ends within two minutes");
    assert!(matches!(played, ServerMessage::GameOver(_)));
    let seen = |pred: &dyn Fn(&ServerMessage) -> bool| {
        spectator.received.iter().filter(|(_, m)| pred(m)).count()
    };
    assert_eq!(
        seen(&|m| stand_in(m) == Some((absent, true))),
        1,
        "one stand-in, for the whole game"
    );
    assert!(seen(&|m| built_by(m, absent)) > 0, "the stand-in played");
    // Its game over, the stand-in leaves the seat, and says so.
    let m = spectator.recv_until(|m| stand_in(m).is_some()).await;
    assert_eq!(stand_in(&m), Some((absent, false)));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hard_stand_in_searches_the_absent_persons_placements_and_the_person_takes_over_on_return()
 {
    // A hard bot searches each setup placement with whole-game playouts on
    // the server's wall clock, `bot_search_ms` per decision, and stops once the
    // next draw would end past it: a searched placement takes at least half of it
    // (the last draw is part of the time spent). The medium and easy levels place
    // at once. That is what tells the hard stand-in apart on the wire.
    const SEARCH: Duration = Duration::from_millis(400);
    let server = TestServer::start_with(|c| {
        c.bots.bot_search_ms = u64::try_from(SEARCH.as_millis()).expect("ms");
        c.bots.bot_search_threads = 1;
    })
    .await;
    let created = server
        .create_room(json!({
            "players": 3, "map": "beginner", "turn_timer_secs": 0,
            "stand_in_secs": 1, "stand_in_level": "hard"
        }))
        .await;
    assert_eq!(
        created.room.options.stand_in_level,
        catan_protocol::BotKind::Hard
    );
    let room = created.room_id;
    let ann = server.take_seat(room, "ann").await;
    let me = ann.seat;
    for _ in 0..2 {
        server
            .add_bot_of_kind(room, &created.host_token, Some("medium"))
            .await;
    }
    let person = server.connect(room, Some(&ann.token), None).await;
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;

    // The person's first placement comes (the bots before it place at once), and
    // the person's socket closes.
    let person = crate::admin::until_only_this_client_may_act(person).await;
    drop(person);
    let left = Instant::now();
    let m = spectator.recv_until(|m| stand_in(m).is_some()).await;
    assert_eq!(stand_in(&m), Some((me, true)));
    let standing_in = Instant::now();
    let waited = standing_in - left;
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_secs(10),
        "the stand-in came after {waited:?}"
    );
    // The hard stand-in places the settlement after searching it.
    let is_settlement = |m: &ServerMessage| {
        matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e|
            matches!(e, Event::SettlementBuilt { seat, .. } if *seat == me)))
    };
    spectator.recv_until(is_settlement).await;
    let searched = standing_in.elapsed();
    assert!(
        searched >= SEARCH / 2,
        "the stand-in placed after {searched:?}: no search of {SEARCH:?}, not the hard level"
    );
    eprintln!("stand-in after {waited:?}, its settlement after {searched:?} more");
    // The game moves on: another seat places after the stand-in's turn.
    spectator
        .recv_until(|m| {
            matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e|
                matches!(e, Event::SettlementBuilt { seat, .. } if *seat != me)))
        })
        .await;
    let snap = game_snapshot(&mut server.connect(room, None, None).await).await;
    let seat = &snap.room.seats[usize::from(me.0)];
    assert!(seat.stand_in && !seat.connected, "{seat:?}");
    assert_eq!(
        snap.room.options.stand_in_level,
        catan_protocol::BotKind::Hard
    );

    // The person comes back with the seat's token: the stand-in stops, and the
    // seat's next action is the person's own.
    let mut back = server.connect(room, Some(&ann.token), None).await;
    let snap = game_snapshot(&mut back).await;
    assert!(!snap.room.seats[usize::from(me.0)].stand_in);
    let m = spectator.recv_until(|m| stand_in(m).is_some()).await;
    assert_eq!(stand_in(&m), Some((me, false)));
    let mut table = Table::new(vec![back, spectator], 7);
    let acts_since = |c: &Client| {
        c.received
            .iter()
            .filter(|(_, m)| m.seq() > Some(snap.seq) && acted_by(m, me))
            .map(|(_, m)| m.clone())
            .next()
    };
    table
        .play_until(400, |t| acts_since(&t.clients[0]).is_some())
        .await;
    // The seat's first act since the person's snapshot is the person's own: it is
    // acknowledged to them.
    let first = acts_since(&table.clients[0]);
    assert!(
        matches!(
            first,
            Some(ServerMessage::Events {
                request_id: Some(_),
                ..
            })
        ),
        "the seat's first act after the person's return: {first:?}"
    );
    assert!(
        !table.clients[1]
            .received
            .iter()
            .any(|(_, m)| stand_in(m) == Some((me, true)) && m.seq() > Some(snap.seq)),
        "no stand-in while the person is connected"
    );
    server.stop().await;
}

/// Whether `m` carries an event of an action of `who`'s own (a roll, a discard, a
/// piece, a card bought or played, a bank trade).
fn acted_by(m: &ServerMessage, who: Seat) -> bool {
    built_by(m, who)
        || matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e| matches!(e,
            Event::DiceRolled { seat, .. }
            | Event::Discarded { seat, .. }
            | Event::CityBuilt { seat, .. }
            | Event::DevCardBought { seat, .. }
            | Event::DevCardPlayed { seat, .. }
            | Event::MaritimeTraded { seat, .. } if *seat == who)))
}
