//! How long an offer lasts: the room's `trade_timeout_secs`, or less when
//! its author says so (`offer_expires_secs`); in a game over days until the end of
//! its turn, or less when its author says so (protocol 27.2).

use super::*;

/// Plays until a seat may offer a trade; that seat, its connection and the offer.
fn an_offer(r: &mut Room, seats: &[(String, ConnId)]) -> (Seat, ConnId, Action) {
    let offerer = |r: &Room| {
        (0..3).map(Seat).find_map(|s| {
            r.legal_for(Some(s))
                .into_iter()
                .find(|a| a.kind() == ActionKind::OfferTrade)
                .map(|a| (s, a))
        })
    };
    play_until(r, 500, |r| offerer(r).is_some());
    let (seat, offer) = offerer(r).expect("an offer is legal");
    (seat, seats[seat.index()].1, offer)
}

/// Makes `offer` through the connection, as a client would, with `secs`.
fn make(r: &mut Room, conn: ConnId, offer: Action, secs: Option<u32>) {
    let msg = ClientMessage::Action {
        request_id: "offer".into(),
        action: offer,
        expect_seq: None,
        offer_expires_secs: secs,
    };
    let staged = r.client_message(conn, msg).expect("staged");
    r.commit(staged);
}

fn offer_deadline(r: &Room) -> Option<u64> {
    r.deadlines().offers.first().map(|o| o.deadline)
}

#[test]
fn the_author_may_give_an_offer_less_than_the_rooms_timeout_not_more() {
    for (asked, lasts) in [(Some(10), 10), (Some(600), 60), (None, 60), (Some(0), 1)] {
        let (mut r, seats) = full_room(options(3, |o| o.trade_timeout_secs = 60));
        start(&mut r);
        let (_, conn, offer) = an_offer(&mut r, &seats);
        let now = after(t0(), 100);
        r.at(now, true);
        make(&mut r, conn, offer, asked);
        assert_eq!(
            offer_deadline(&r),
            Some(now.unix_ms + lasts * 1000),
            "{asked:?}"
        );
    }
}

#[test]
fn over_days_an_offer_lasts_until_its_turn_ends_unless_its_author_says_less() {
    let days = catan_protocol::DaysOptions::preset(24);
    let (mut r, seats) = full_room(options(3, |o| o.days = Some(days)));
    start(&mut r);
    let (seat, conn, offer) = an_offer(&mut r, &seats);
    let now = after(t0(), 100);
    r.at(now, true);
    make(&mut r, conn, offer, None);
    assert_eq!(
        offer_deadline(&r),
        None,
        "no expiry but the end of the turn"
    );
    let Stage::Playing { game, .. } = &r.stage else {
        panic!()
    };
    assert_eq!(game.game().offers().len(), 1);
    // The turn ends: the offer with it.
    play(&mut r, seat, Action::EndTurn);
    let Stage::Playing { game, .. } = &r.stage else {
        panic!()
    };
    assert!(game.game().offers().is_empty());

    // An author who says an hour: it expires in an hour.
    let (_, conn, offer) = an_offer(&mut r, &seats);
    let now = after(t0(), 200);
    r.at(now, true);
    make(&mut r, conn, offer, Some(3600));
    assert_eq!(offer_deadline(&r), Some(now.unix_ms + 3_600_000));
}
