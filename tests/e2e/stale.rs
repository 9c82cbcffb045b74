//! Stale actions (protocol.md section 7, rule 7): one client playing all four seats of
//! a room, each seat acting the moment it may, so that seats race each other (answers
//! to an offer its maker withdraws, a trade confirmed while another seat accepts).
//! Without `expect_seq` the overtaken actions are refused with rules codes; with it,
//! every refusal is `stale_action`, and a client that re-reads and retries finishes
//! every game.

use std::collections::BTreeMap;

use catan_bots::{RandomBot, SeatDriver, Strategy};
use catan_e2e::{Client, TestServer};
use catan_engine::{Action, ActionKind, GameView};
use catan_protocol::{ClientMessage, ServerMessage};
use rand::{Rng, RngCore, SeedableRng};
use serde_json::json;

/// Random play that also makes the offers the legal list proposes, so that the
/// other seats have offers to answer while their maker moves on.
struct Trader(RandomBot);

impl Strategy for Trader {
    fn name(&self) -> &'static str {
        "trader"
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        let offer = legal.iter().find(|a| a.kind() == ActionKind::OfferTrade);
        match offer {
            Some(o) if rng.random_bool(0.3) => *o,
            _ => self.0.choose(view, legal, rng),
        }
    }
}

/// Plays one seat to the end, acting as soon as its driver may; returns the codes of
/// the refusals it got, and how many of its actions were taken. `with_expect_seq: false` strips the field, as an older
/// client would send.
async fn play_seat(mut client: Client, seed: u64, with_expect_seq: bool) -> (Vec<String>, u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut driver = SeatDriver::new();
    let mut trader = Trader(RandomBot::new());
    let mut refusals = Vec::new();
    for (_, msg) in &client.received {
        driver.observe(msg);
    }
    for _ in 0..100_000 {
        if driver.over() {
            return (refusals, driver.counts().0);
        }
        // No patience for answers to its own offers (the built-in bots wait for
        // them): the maker moves on at once, so that seats race.
        driver.stop_waiting();
        if let Some(mut m) = driver.decide(&mut trader, &mut rng) {
            if let ClientMessage::Action { expect_seq, .. } = &mut m {
                assert!(expect_seq.is_some(), "the driver says what it saw");
                if !with_expect_seq {
                    *expect_seq = None;
                }
            }
            client
                .send_text(&serde_json::to_string(&m).expect("json"))
                .await;
        }
        let Some(msg) = client.recv().await else {
            panic!("the connection closed before the game ended");
        };
        if let ServerMessage::Rejected { code, seq, .. } = &msg {
            if code == "stale_action" {
                assert!(seq.is_some(), "stale_action carries the current seq");
            }
            refusals.push(code.clone());
        }
        driver.observe(&msg);
    }
    panic!("seat did not finish within 100,000 messages");
}

/// Plays `games` four-seat games with one task per seat; refusal codes by count, and
/// the number of actions taken.
async fn race(
    server: &TestServer,
    games: u64,
    with_expect_seq: bool,
) -> (BTreeMap<String, usize>, u64) {
    let mut tasks = Vec::new();
    for g in 0..games {
        let created = server
            .create_room(json!({ "players": 4, "vp_target": 6, "map": "beginner" }))
            .await;
        let room = created.room_id;
        let mut clients = Vec::new();
        for name in ["ann", "bob", "cyd", "dee"] {
            let seat = server.take_seat(room, name).await;
            clients.push(server.connect(room, Some(&seat.token), None).await);
        }
        server.start_game(room, &created.host_token).await;
        for (i, c) in clients.into_iter().enumerate() {
            tasks.push(tokio::spawn(play_seat(
                c,
                g * 10 + i as u64,
                with_expect_seq,
            )));
        }
    }
    let mut codes = BTreeMap::new();
    let mut taken = 0;
    for t in tasks {
        let (refused, acked) = t.await.expect("seat task");
        taken += acked;
        for code in refused {
            *codes.entry(code).or_insert(0) += 1;
        }
    }
    (codes, taken)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_expect_seq_every_refusal_of_racing_seats_is_stale_and_every_game_ends() {
    // CATAN_STALE_GAMES games each way (default 4); the figures in bench/results-2026-12.md are from 20.
    let games = std::env::var("CATAN_STALE_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    let server = TestServer::start().await;
    let (without, taken_without) = race(&server, games, false).await;
    let (with, taken_with) = race(&server, games, true).await;
    eprintln!(
        "{games} games each way; without expect_seq: {taken_without} actions taken, \
         refusals {without:?}; with: {taken_with} taken, refusals {with:?}"
    );
    let rules: usize = without.values().sum();
    assert!(
        rules > 0 && !without.contains_key("stale_action"),
        "racing seats overtake each other: {without:?}"
    );
    assert!(
        with.keys().all(|c| c == "stale_action"),
        "only stale_action with expect_seq: {with:?}"
    );
    assert!(with.get("stale_action").is_some_and(|n| *n > 0), "{with:?}");
}
