//! Stand-ins in the state machine: a restored room knows of none, and starts the
//! countdown of the absent person whose decision it is from the restart; the
//! stand-in's own connection, not the seat's, goes when the person is back.

use super::*;
use crate::room::state::Timer;
use crate::room::{Deadlines, Wire};

#[test]
fn a_restored_room_counts_down_for_the_absent_person_on_turn_from_the_restart() {
    let (r, seats) = full_room(options(3, |o| o.stand_in_secs = 45));
    let pending = r.prepare_start(HOST, 7, "salt".into()).expect("startable");
    let record = crate::store::GameRecord {
        players: pending.record.players.clone(),
        game: pending.record.clone(),
        status: crate::store::GameStatus::Playing,
        finished: None,
        seq_reserved: None,
        slept_seq: None,
    };
    // The server restarts 10 minutes on, before the first placement.
    let restart = after(t0(), 600);
    let restored = Room::restore(
        record,
        &[],
        Arc::new(Config::for_tests().room_settings()),
        Arc::new(Metrics::default()),
        restart,
        Deadlines::Restart,
    )
    .expect("restores");
    let mut r2 = restored.room;
    assert!(r2.info().seats.iter().all(|s| !s.stand_in && !s.connected));
    r2.follow_stand_ins();
    assert_eq!(
        r2.next_deadline(),
        Some(restart.at + Duration::from_secs(45)),
        "one countdown, from the restart"
    );
    let Stage::Playing { game, .. } = &r2.stage else {
        panic!("playing")
    };
    let first = game.game().current();
    r2.at(after(restart, 45), true);
    assert_eq!(r2.take_due(), vec![Timer::StandIn(first)]);
    let conn = r2.start_stand_in(first).expect("a stand-in");
    assert!(r2.info().seats[first.index()].stand_in);
    assert!(
        !r2.info().seats[first.index()].connected,
        "not the seat's connection"
    );
    let sent = drain(&mut r2);
    assert!(matches!(sent.to(conn)[..], [ServerMessage::Snapshot(s)]
        if s.you == Some(first) && !s.legal.is_empty() && s.room.seats[first.index()].stand_in));
    r2.follow_stand_ins();
    assert_eq!(
        r2.next_deadline(),
        None,
        "no countdown while the stand-in plays"
    );

    // The person is back with their token: the stand-in's connection is dropped.
    let token = &seats[first.index()].0;
    let (back, _) = r2
        .connect(Some(token), None, Wire::Text)
        .expect("the token works");
    let sent = drain(&mut r2);
    assert!(sent.closed.contains(&(conn, CloseCode::Replaced)));
    let to_back = sent.to(back);
    assert!(
        matches!(to_back[..], [.., ServerMessage::Snapshot(s)] if !s.room.seats[first.index()].stand_in),
        "{to_back:?}"
    );
    // An action the stand-in sends from now on is not taken: its connection is gone.
    let legal = r2.legal_for(Some(first));
    assert!(
        r2.client_message(
            conn,
            ClientMessage::Action {
                request_id: "late".into(),
                action: legal[0],
                expect_seq: None,
                offer_expires_secs: None,
            }
        )
        .is_none()
    );
}
