//! One action's broadcast: each connection gets the events as its seat may see them
//! and its own legal actions, and equal messages share one serialization.

use std::sync::Arc;

use catan_engine::Seat;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::{Out, Wire, full_room, next_move, options, play, start};
use crate::room::{ConnId, Outbound};
use catan_protocol::{BotKind, ServerMessage};

#[test]
fn each_seat_gets_its_own_events_and_legal_actions_and_equal_messages_share_their_text() {
    let (mut r, seats) = full_room(options(4, |_| {}));
    let spectators: Vec<ConnId> = (0..2)
        .map(|_| r.connect(None, None, Wire::Text).expect("spectator").0)
        .collect();
    start(&mut r);
    r.take_outbox();
    let mut bot = catan_bots::strategy(BotKind::Medium);
    let mut rng = StdRng::seed_from_u64(11);
    let (mut broadcasts, mut texts, mut shared) = (0, 0, 0);
    for _ in 0..400 {
        let (seat, action) = next_move(&r, bot.as_mut(), &mut rng);
        if play(&mut r, seat, action).is_some() {
            break;
        }
        let ServerMessage::Events { events, .. } = &r.outbox.tail(1)[0] else {
            panic!("an action's broadcast is its events")
        };
        let events = events.clone();
        let mut sent: Vec<(ConnId, Arc<str>)> = Vec::new();
        for out in r.take_outbox() {
            if let Out::Send(conn, Outbound::Text(t)) = out {
                sent.push((conn, t));
            }
        }
        let audience = seats
            .iter()
            .enumerate()
            .map(|(i, (_, c))| (*c, Some(Seat(u8::try_from(i).expect("four seats")))))
            .chain(spectators.iter().map(|c| (*c, None)));
        for (conn, who) in audience {
            let (_, text) = sent
                .iter()
                .find(|(c, _)| *c == conn)
                .expect("each connection hears it");
            let msg: ServerMessage = serde_json::from_str(text).expect("server JSON");
            let ServerMessage::Events {
                events: got, legal, ..
            } = msg
            else {
                panic!("events for {who:?}: {text}")
            };
            let want: Vec<_> = events.iter().map(|e| e.redact_for(who)).collect();
            assert_eq!(got, want, "the events as {who:?} may see them");
            assert_eq!(legal, r.legal_for(who), "{who:?}'s own legal actions");
        }
        // Equal texts are one allocation; different ones are not.
        for (i, (_, a)) in sent.iter().enumerate() {
            for (_, b) in &sent[i + 1..] {
                assert_eq!(a == b, Arc::ptr_eq(a, b), "equal messages share their text");
            }
        }
        broadcasts += 1;
        let mut distinct: Vec<&Arc<str>> = Vec::new();
        for (_, t) in &sent {
            if !distinct.iter().any(|d| Arc::ptr_eq(d, t)) {
                distinct.push(t);
            }
        }
        texts += sent.len();
        shared += sent.len() - distinct.len();
    }
    assert!(broadcasts >= 100, "{broadcasts} actions played");
    // Six connections a broadcast: the second spectator always shares the first's
    // text; seats that are not to act share one another's whenever they hear the
    // same (not always: an offer to answer, a card stolen from one of them).
    assert!(
        shared * 2 > broadcasts * 3,
        "{shared} of {texts} messages shared another's text over {broadcasts} broadcasts"
    );
}
