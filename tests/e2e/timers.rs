//! Room timers: trade offers expire and the turn timer ends an absent
//! player's turn, so a room never hangs.

use std::time::{Duration, Instant};

use catan_e2e::{Table, TestServer, latest_legal};
use catan_engine::{Action, ActionKind, Event, OfferClosed, Seat};
use catan_protocol::ServerMessage;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trade_offer_expires_after_the_room_timeout_and_everyone_is_told() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "map": "beginner", "trade_timeout_secs": 1 }))
        .await;
    let room = created.room_id;
    let mut clients = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        let seat = server.take_seat(room, name).await;
        clients.push(server.connect(room, Some(&seat.token), None).await);
    }
    server.start_game(room, &created.host_token).await;
    let mut table = Table::new(clients, 7);
    // Play until some seat may offer a trade (R-9.1: its own trade phase).
    table
        .play_until(400, |t| {
            t.clients.iter().any(|c| {
                latest_legal(c)
                    .iter()
                    .any(|a| a.kind() == ActionKind::OfferTrade)
            })
        })
        .await;
    let (i, offer) = table
        .clients
        .iter()
        .enumerate()
        .find_map(|(i, c)| {
            latest_legal(c)
                .into_iter()
                .find(|a| a.kind() == ActionKind::OfferTrade)
                .map(|a| (i, a))
        })
        .expect("an offer is legal");
    let Action::OfferTrade { give, get, .. } = offer else {
        unreachable!()
    };
    let sent = Instant::now();
    table.clients[i]
        .send_json(&json!({"type": "action", "request_id": "offer-1", "action": {"type": "offer_trade", "give": give, "get": get}}))
        .await;
    for c in &mut table.clients {
        let made = c
            .recv_until(|m| matches!(m, ServerMessage::Events { events, .. } if events.iter().any(|e| matches!(e, Event::OfferMade { .. }))))
            .await;
        if let ServerMessage::Events {
            offer_deadlines, ..
        } = made
        {
            assert_eq!(offer_deadlines.len(), 1, "the offer's expiry is announced");
        }
        c.recv_until(|m| {
            matches!(m, ServerMessage::Events { events, .. }
                if events.iter().any(|e| matches!(e, Event::OfferClosed { reason: OfferClosed::Expired, .. })))
        })
        .await;
    }
    let waited = sent.elapsed();
    assert!(
        waited >= Duration::from_millis(900),
        "expired too early: {waited:?}"
    );
    assert!(
        waited < Duration::from_secs(5),
        "expired too late: {waited:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_turn_timer_ends_the_turn_of_an_absent_player() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "map": "beginner", "turn_timer_secs": 1 }))
        .await;
    let room = created.room_id;
    // Seat 0 is taken by a person who never connects; two bots fill the rest.
    let absent = server.take_seat(room, "away").await.seat;
    server.add_bot(room, &created.host_token).await;
    server.add_bot(room, &created.host_token).await;
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;

    let mut absent_turn = false;
    let mut timed_out_in_turn = false;
    let started = Instant::now();
    loop {
        let msg = spectator.recv().await.expect("spectator connected");
        let ServerMessage::Events {
            events, deadline, ..
        } = msg
        else {
            continue;
        };
        assert!(
            deadline.is_some() || events.iter().any(|e| matches!(e, Event::GameWon { .. })),
            "timed rooms announce deadlines"
        );
        for e in events {
            match e {
                Event::TurnStarted { seat, .. } if seat == absent => absent_turn = true,
                Event::TimedOut { seat } if seat == absent && absent_turn => {
                    timed_out_in_turn = true
                }
                Event::TurnStarted { seat, .. } if seat != absent && timed_out_in_turn => {
                    assert_ne!(seat, Seat(absent.0));
                    server.stop().await;
                    return;
                }
                _ => {}
            }
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the room hung");
    }
}
