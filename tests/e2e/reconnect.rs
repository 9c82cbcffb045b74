//! Reconnecting mid-game: the missed messages exactly once, then the game goes on.

use catan_bots::{RandomBot, SeatDriver};
use catan_e2e::{TestServer, play_randomly};
use catan_protocol::ServerMessage;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reconnects_gets_exactly_the_missed_events_and_finishes_the_game() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 4, "vp_target": 8 }))
        .await;
    let room = created.room_id;
    let me = server.take_seat(room, "me").await;
    for _ in 0..3 {
        server.add_bot(room, &created.host_token).await;
    }
    let mut client = server.connect(room, Some(&me.token), None).await;
    server.start_game(room, &created.host_token).await;

    // Play our part for a while, then drop the connection.
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
    let mut driver = SeatDriver::new();
    let mut last_seq = 0;
    let mut acted = 0;
    while acted < 6 {
        let msg = client.recv().await.expect("connected");
        if let Some(s) = msg.seq() {
            last_seq = s;
        }
        driver.observe(&msg);
        assert!(!driver.over(), "game ended before the test could reconnect");
        if let Some(m) = driver.decide(&mut RandomBot::new(), &mut rng) {
            client
                .send_text(&serde_json::to_string(&m).expect("json"))
                .await;
            acted += 1;
        }
    }
    // Stop reading mid-stream: whatever arrived after `last_seq` is "missed".
    drop(client);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let mut client = server.connect(room, Some(&me.token), Some(last_seq)).await;
    let mut expected = last_seq + 1;
    loop {
        let msg = client.recv().await.expect("connected");
        match &msg {
            ServerMessage::Resumed { seq, .. } => {
                assert_eq!(*seq, expected - 1, "resumed at the last replayed message");
                break;
            }
            ServerMessage::Snapshot(_) => {
                panic!("a recent reconnect gets the missed events, not a snapshot")
            }
            other => {
                let s = other
                    .seq()
                    .expect("replayed messages carry a sequence number");
                assert_eq!(s, expected, "no gap and no duplicate");
                expected += 1;
            }
        }
    }
    // The replay included our own disconnection.
    assert!(client.received.iter().any(|(_, m)| matches!(m, ServerMessage::Presence { connected: false, seat, .. } if *seat == me.seat)));

    let (client, rejections) = play_randomly(client, 9).await;
    assert_eq!(rejections, 0);
    assert!(matches!(
        client.received.last().map(|(_, m)| m),
        Some(ServerMessage::GameOver(_))
    ));
    // Sequence numbers after the resume continue without gaps or repeats (`resumed`
    // and a `snapshot` the driver asks for carry the number of the last broadcast:
    // they are the state as of it).
    let seqs: Vec<u64> = client
        .received
        .iter()
        .filter(|(_, m)| {
            !matches!(
                m,
                ServerMessage::Resumed { .. } | ServerMessage::Snapshot(_)
            )
        })
        .filter_map(|(_, m)| m.seq())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous sequence after reconnect"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_from_too_far_back_gets_a_fresh_snapshot() {
    let server = TestServer::start_with(|c| c.rooms.event_backlog = 4).await;
    let created = server
        .create_room(json!({ "players": 3, "vp_target": 5 }))
        .await;
    let room = created.room_id;
    let me = server.take_seat(room, "me").await;
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    server.start_game(room, &created.host_token).await;
    let mut client = server.connect(room, Some(&me.token), Some(0)).await;
    let first = client.recv().await.expect("message");
    assert!(matches!(first, ServerMessage::Snapshot(_)), "got {first:?}");
    server.stop().await;
}

/// The history of a client that connected without `last_seq` (a reloaded page):
/// `history` gives every `events` broadcast of the game as this seat received it
/// live, from the first placement, however small the reconnect backlog, and the chat
/// kept; a spectator's is redacted as spectators' broadcasts were (see
/// protocol.md 15: nobody else's stolen card or bought development card).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_connecting_without_last_seq_gets_its_whole_visible_history() {
    use catan_engine::Event;
    let server = TestServer::start_with(|c| c.rooms.event_backlog = 4).await;
    let created = server
        .create_room(json!({ "players": 4, "vp_target": 6 }))
        .await;
    let room = created.room_id;
    let me = server.take_seat(room, "me").await;
    for _ in 0..3 {
        server.add_bot(room, &created.host_token).await;
    }
    let mut client = server.connect(room, Some(&me.token), None).await;
    client
        .send_json(&json!({"type": "chat", "text": "good luck"}))
        .await;
    client
        .recv_until(|m| matches!(m, ServerMessage::Chat { .. }))
        .await;
    server.start_game(room, &created.host_token).await;
    let (client, _) = play_randomly(client, 21).await;
    let live: Vec<(u64, Vec<Event>)> = client
        .received
        .iter()
        .filter_map(|(_, m)| match m {
            ServerMessage::Events { seq, events, .. } => Some((*seq, events.clone())),
            _ => None,
        })
        .collect();
    assert!(live.len() > 100, "a whole game: {} broadcasts", live.len());
    drop(client);

    let history = |mut c: catan_e2e::Client| async move {
        let first = c.recv().await.expect("snapshot");
        assert!(matches!(first, ServerMessage::Snapshot(_)), "got {first:?}");
        c.send_json(&json!({"type": "history"})).await;
        match c
            .recv_until(|m| matches!(m, ServerMessage::History(_)))
            .await
        {
            ServerMessage::History(h) => *h,
            _ => unreachable!("matched"),
        }
    };
    let mine = history(server.connect(room, Some(&me.token), None).await).await;
    let got: Vec<(u64, Vec<Event>)> = mine
        .actions
        .iter()
        .map(|a| (a.seq, a.events.clone()))
        .collect();
    assert_eq!(
        got, live,
        "the history is what the seat received, redacted for it"
    );
    assert!(mine.seq >= live.last().expect("events").0);
    assert_eq!(mine.chat.len(), 1);
    assert_eq!(
        (mine.chat[0].name.as_str(), mine.chat[0].text.as_str()),
        ("me", "good luck")
    );

    // A spectator's: the same broadcasts, nothing hidden revealed.
    let theirs = history(server.connect(room, None, None).await).await;
    assert_eq!(theirs.actions.len(), live.len());
    let mut hidden = 0;
    for (a, (seq, events)) in theirs.actions.iter().zip(&live) {
        assert_eq!(a.seq, *seq);
        for (e, seen) in a.events.iter().zip(events) {
            match e {
                Event::Stolen { resource, .. } => {
                    assert_eq!(*resource, None, "a spectator sees no stolen card");
                    hidden += 1;
                }
                Event::DevCardBought { card, .. } => {
                    assert_eq!(*card, None, "nor a bought development card");
                    hidden += 1;
                }
                other => assert_eq!(other, seen),
            }
        }
    }
    assert!(hidden > 0, "the game had a steal or a purchase to hide");
    // The seat saw other seats' steals redacted too, its own in the clear.
    for (_, events) in &live {
        for e in events {
            if let Event::Stolen {
                thief,
                victim,
                resource,
            } = e
            {
                assert_eq!(resource.is_some(), *thief == me.seat || *victim == me.seat);
            }
        }
    }
    server.stop().await;
}
