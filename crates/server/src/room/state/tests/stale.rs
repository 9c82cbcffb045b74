//! Stale actions: one chosen before the game moved on is refused as `stale_action`
//! with the current seq when it no longer applies (protocol.md section 7).

use super::*;

/// The action `seat` sends, chosen at `expect_seq`.
fn act_at(action: Action, id: &str, expect_seq: Option<u64>) -> ClientMessage {
    ClientMessage::Action {
        request_id: id.into(),
        action,
        expect_seq,
        offer_expires_secs: None,
    }
}

/// The code and `seq` of the one rejection in what was sent.
fn rejection(sent: &Sent) -> (String, Option<u64>) {
    let found = sent.msgs.iter().find_map(|(_, m)| match m {
        ServerMessage::Rejected { code, seq, .. } => Some((code.clone(), *seq)),
        _ => None,
    });
    found.expect("a rejection")
}

#[test]
fn an_action_overtaken_by_the_game_is_refused_as_stale_with_the_current_seq() {
    let (mut r, seats) = full_room(options(3, |_| {}));
    start(&mut r);
    drain(&mut r);
    let first = r.legal_for(Some(Seat(0)));
    assert!(!first.is_empty(), "seed 7 puts seat 0 first");
    let conn = seats[0].1;
    let seen = r.seq();
    let place = first[0];
    let staged = r
        .client_message(conn, act_at(place, "a", Some(seen)))
        .expect("applies");
    r.commit(staged);
    // A chat does not move the game on: the seat's next choice is still current.
    r.client_message(seats[1].1, ClientMessage::Chat { text: "hi".into() });
    drain(&mut r);
    let (seq, view) = (r.seq(), r.snapshot(Some(Seat(0))).view);
    // The same settlement again, chosen before it was placed: stale, not a rules error.
    assert!(
        r.client_message(conn, act_at(place, "b", Some(seen)))
            .is_none()
    );
    assert_eq!(
        rejection(&drain(&mut r)),
        ("stale_action".to_owned(), Some(seq))
    );
    assert_eq!((r.seq(), r.snapshot(Some(Seat(0))).view), (seq, view));
    // Without expect_seq, or chosen at the current seq, the engine's own code.
    assert!(r.client_message(conn, act_at(place, "c", None)).is_none());
    let (code, at) = rejection(&drain(&mut r));
    assert_ne!(code, "stale_action");
    assert_eq!(at, None);
    assert!(
        r.client_message(conn, act_at(place, "d", Some(r.seq())))
            .is_none()
    );
    assert_eq!(rejection(&drain(&mut r)).0, code);
    // Chosen before the game moved on but still applying: taken.
    let road = r.legal_for(Some(Seat(0)))[0];
    assert!(
        r.client_message(conn, act_at(road, "e", Some(seen)))
            .is_some()
    );
}
