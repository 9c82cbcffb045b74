//! A room over days that slept and woke is the room that never slept (protocol
//! 27.5): everyone leaves, the room is brought back from its stored start, its log,
//! the number of its last broadcast and the backlog it kept, everyone comes back
//! with the number they last had (some of them behind: they get what they missed,
//! as from the room that never slept), and from then on every seat receives exactly what the room that never
//! slept sends, message for message: the same `seq`, views, legal actions, clocks
//! and deadlines.

use super::*;
use crate::room::Deadlines;

/// Every seat's decoded messages since the last drain, in seat order.
fn per_seat(r: &mut Room, conns: &[ConnId]) -> Vec<Vec<ServerMessage>> {
    let sent = drain(r);
    conns
        .iter()
        .map(|c| sent.to(*c).into_iter().cloned().collect())
        .collect()
}

#[test]
fn a_room_that_slept_and_woke_sends_what_the_room_that_never_slept_sends() {
    let days = catan_protocol::DaysOptions::preset(24);
    let (mut awake, seats) = full_room(options(3, |o| o.days = Some(days)));
    let pending = awake
        .prepare_start(HOST, 11, "salt".into())
        .expect("startable");
    let new = pending.record.clone();
    awake.start(pending);
    let mut bot = catan_bots::strategy(BotKind::Medium);
    let mut rng = StdRng::seed_from_u64(8);
    let mut log = Vec::new();
    for _ in 0..120 {
        let (seat, action) = next_move(&awake, bot.as_mut(), &mut rng);
        let staged = awake
            .stage_action(Actor::Seat(seat), action, None)
            .expect("legal");
        log.push(staged.record);
        awake.commit(staged);
    }
    // Everyone leaves: the room that is to sleep is the store's copy from here.
    for (_, conn) in &seats {
        awake.detach(*conn);
        while awake.has_gone() {
            awake.announce_gone();
        }
    }
    drain(&mut awake);
    let slept_at = awake.seq();
    let kept = awake.backlog_to_keep();
    let record = crate::store::GameRecord {
        players: new.players.clone(),
        game: new,
        status: crate::store::GameStatus::Playing,
        finished: None,
        seq_reserved: Some(slept_at + 500),
        slept_seq: Some(slept_at),
    };
    let mut woken = Room::restore(
        record,
        &log,
        Arc::new(Config::for_tests().room_settings()),
        Arc::new(Metrics::default()),
        t0(),
        Deadlines::Continue,
    )
    .expect("the log replays")
    .room;
    assert_eq!(woken.seq(), slept_at, "numbered on from where it slept");
    assert!(
        woken.resume_backlog(&kept),
        "the backlog kept at sleep fits"
    );

    // Everyone comes back to both, each with the number they last had: one was
    // there to the end, the others missed the last 1, 25 and 100 broadcasts.
    let missed = [0, 1, 25, 100];
    let back = |r: &mut Room| -> Vec<ConnId> {
        seats
            .iter()
            .zip(missed)
            .map(|((token, _), m)| {
                r.connect(Some(token), Some(slept_at - m), Wire::Text)
                    .expect("the token still works")
                    .0
            })
            .collect()
    };
    let (a, b) = (back(&mut awake), back(&mut woken));
    let (first_a, first_b) = (per_seat(&mut awake, &a), per_seat(&mut woken, &b));
    for (msgs, m) in first_b.iter().zip(missed) {
        assert!(
            msgs.iter()
                .any(|m| matches!(m, ServerMessage::Resumed { seq, .. } if *seq > slept_at)),
            "a seat resumes where it was: {msgs:?}"
        );
        assert!(
            !msgs.iter().any(|m| matches!(m, ServerMessage::Snapshot(_))),
            "no snapshot: {msgs:?}"
        );
        let replayed = msgs
            .iter()
            .filter_map(ServerMessage::seq)
            .filter(|s| *s <= slept_at)
            .count();
        assert_eq!(
            replayed,
            usize::try_from(m).unwrap(),
            "the {m} missed broadcasts again"
        );
    }
    assert_eq!(first_a, first_b, "the reconnects");
    // A spectator's snapshot is the same too.
    let (sa, _) = awake.connect(None, None, Wire::Text).expect("spectator");
    let (sb, _) = woken.connect(None, None, Wire::Text).expect("spectator");
    let (snap_a, snap_b) = (drain(&mut awake), drain(&mut woken));
    assert_eq!(snap_a.to(sa), snap_b.to(sb), "the spectator's snapshot");

    // And the game goes on the same, message for message, in every seat.
    for i in 0..150 {
        if awake.status() != RoomStatus::Playing {
            break;
        }
        let (seat, action) = next_move(&awake, bot.as_mut(), &mut rng);
        play(&mut awake, seat, action);
        play(&mut woken, seat, action);
        assert_eq!(
            per_seat(&mut awake, &a),
            per_seat(&mut woken, &b),
            "action {i} after waking"
        );
    }
}

#[test]
fn a_backlog_kept_at_another_broadcast_or_unreadable_is_left_out() {
    let days = catan_protocol::DaysOptions::preset(24);
    let (mut room, _seats) = full_room(options(3, |o| o.days = Some(days)));
    let pending = room
        .prepare_start(HOST, 11, "salt".into())
        .expect("startable");
    room.start(pending);
    let kept = room.backlog_to_keep();
    let seq = room.seq();
    room.broadcast_public(|seq| ServerMessage::Chat {
        seq,
        seat: None,
        name: "x".into(),
        text: "later".into(),
    });
    let kept_after = room.backlog_to_keep();
    assert!(
        !room.resume_backlog(&kept),
        "kept at {seq}, the room is at {}",
        room.seq()
    );
    assert!(!room.resume_backlog("{not json"));
    assert!(!room.resume_backlog(r#"{"seq":1}"#));
    assert_eq!(room.backlog_to_keep(), kept_after, "nothing changed");
    assert!(room.resume_backlog(&kept_after));
}
