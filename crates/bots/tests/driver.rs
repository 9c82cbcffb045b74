//! The seat driver at a table: four medium bots, each behind its own `SeatDriver`,
//! play a whole game through protocol messages only (a snapshot each, then every
//! accepted action's events redacted for the seat, with its fresh legal list), as
//! the server's room hands them. Offers wait for their answers, trades are
//! completed, and the game ends.

use std::sync::{Arc, Mutex};

use catan_bots::{BotKind, SeatDriver, Strategy};
use catan_engine::{Action, Actor, Event, Game, GameOptions, GameView, Seat};
use catan_protocol::{
    ClientMessage, PROTOCOL_VERSION, RoomInfo, RoomOptions, RoomStatus, ServerMessage, Snapshot,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn snapshot(game: &Game, seat: Seat, seq: u64) -> ServerMessage {
    ServerMessage::Snapshot(Box::new(Snapshot {
        protocol_version: PROTOCOL_VERSION,
        room: RoomInfo {
            id: uuid::Uuid::nil(),
            status: RoomStatus::Playing,
            options: RoomOptions::default(),
            seats: Vec::new(),
            created_at: 0,
            seed_commitment: None,
        },
        you: Some(seat),
        seq,
        view: Some(game.view(Some(seat))),
        legal: game.legal_actions(seat),
        deadline: None,
        offer_deadlines: Vec::new(),
        clocks: Vec::new(),
        game_over: None,
        rematch: None,
    }))
}

/// What a game behind seat drivers gave: the trades completed, the refusals, the
/// snapshots asked for (`sync`), and the events each seat received.
struct Played {
    trades: usize,
    refused: u64,
    syncs: u64,
    received: Vec<Vec<Event>>,
}

/// Plays game `seed` to its end, `bots[s]` playing seat `s` behind its own driver.
/// Panics if a driver sends `sync` other than as its first message after a refusal
/// of its own.
fn play(seed: u64, bots: &mut [Box<dyn Strategy + Send>]) -> Played {
    let mut game = Game::new(GameOptions::default(), seed).unwrap();
    let seats: Vec<Seat> = game.seats().collect();
    let mut drivers: Vec<SeatDriver> = seats.iter().map(|_| SeatDriver::new()).collect();
    let mut received = vec![Vec::new(); seats.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seq = 0;
    for (d, &s) in drivers.iter_mut().zip(&seats) {
        d.observe(&snapshot(&game, s, seq));
    }
    let mut trades = 0;
    let mut syncs = 0;
    // Whether the seat's last answer was a refusal and it has sent nothing since.
    let mut just_refused = vec![false; seats.len()];
    for _ in 0..50_000 {
        if game.is_over() {
            let refused = drivers.iter().map(|d| d.counts().1).sum();
            return Played {
                trades,
                refused,
                syncs,
                received,
            };
        }
        let Some((i, msg)) = (0..seats.len()).find_map(|i| {
            drivers[i]
                .decide(bots[i].as_mut(), &mut rng)
                .map(|m| (i, m))
        }) else {
            panic!("seed {seed}: nobody acts; an offer waits on itself?");
        };
        let seat = seats[i];
        let after_refusal = std::mem::take(&mut just_refused[i]);
        let (request_id, action) = match msg {
            ClientMessage::Sync => {
                assert!(
                    after_refusal,
                    "seed {seed}: seat {i} asked for a snapshot, not right after a refusal"
                );
                syncs += 1;
                drivers[i].observe(&snapshot(&game, seat, seq));
                continue;
            }
            ClientMessage::Action {
                request_id, action, ..
            } => (request_id, action),
            other => panic!("unexpected {other:?}"),
        };
        match game.apply(Actor::Seat(seat), action) {
            Ok(events) => {
                seq += 1;
                trades += events
                    .iter()
                    .filter(|e| matches!(e, Event::TradeCompleted { .. }))
                    .count();
                for (j, &s) in seats.iter().enumerate() {
                    let events: Vec<Event> = events.iter().map(|e| e.redact_for(Some(s))).collect();
                    received[j].extend_from_slice(&events);
                    drivers[j].observe(&ServerMessage::Events {
                        seq,
                        events,
                        request_id: (j == i).then(|| request_id.clone()),
                        deadline: None,
                        offer_deadlines: Vec::new(),
                        clocks: Vec::new(),
                        legal: game.legal_actions(s),
                    });
                }
            }
            Err(e) => {
                just_refused[i] = true;
                drivers[i].observe(&ServerMessage::Rejected {
                    request_id,
                    code: e.code().to_owned(),
                    message: e.to_string(),
                    seq: None,
                });
            }
        }
    }
    panic!("seed {seed}: not over after 50,000 messages");
}

#[test]
fn four_medium_bots_behind_seat_drivers_finish_their_games_with_player_trades() {
    let mut trades = 0;
    for seed in 0..4 {
        let mut bots: Vec<Box<dyn Strategy + Send>> = (0..4)
            .map(|_| catan_bots::strategy(BotKind::Medium))
            .collect();
        let played = play(seed, &mut bots);
        assert_eq!(played.refused, 0, "seed {seed}: every action accepted");
        trades += played.trades;
    }
    assert!(trades >= 4, "only {trades} player trades in 4 games");
}

/// A medium bot that, every `every`th decision, sends an action the rules refuse.
struct Blunderer {
    inner: Box<dyn Strategy + Send>,
    every: u32,
    decisions: u32,
}

impl Strategy for Blunderer {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        self.decisions += 1;
        if !self.decisions.is_multiple_of(self.every) {
            return self.inner.choose(view, legal, rng);
        }
        // Rolling is legal only before the roll, when ending the turn is not.
        if legal.contains(&Action::RollDice) {
            Action::EndTurn
        } else {
            Action::RollDice
        }
    }

    fn observe(&mut self, event: &Event) {
        self.inner.observe(event);
    }
}

#[test]
fn seat_drivers_ask_for_a_snapshot_only_right_after_a_refusal() {
    // `play` fails on a `sync` that is not a driver's first message after a refusal
    // of its own; here the counts too: no refusal, no sync (the events keep the view
    // current), and one sync for each refusal.
    for seed in 0..4 {
        let mut bots: Vec<Box<dyn Strategy + Send>> = (0..4)
            .map(|_| catan_bots::strategy(BotKind::Medium))
            .collect();
        let played = play(seed, &mut bots);
        assert_eq!(
            (played.refused, played.syncs),
            (0, 0),
            "seed {seed}: refusals and syncs"
        );
    }
    for seed in 10..12 {
        let mut bots: Vec<Box<dyn Strategy + Send>> = (0..4)
            .map(|_| {
                Box::new(Blunderer {
                    inner: catan_bots::strategy(BotKind::Medium),
                    every: 7,
                    decisions: 0,
                }) as Box<dyn Strategy + Send>
            })
            .collect();
        let played = play(seed, &mut bots);
        assert!(
            played.refused > 10,
            "seed {seed}: {} refusals",
            played.refused
        );
        assert_eq!(
            played.syncs, played.refused,
            "seed {seed}: one sync per refusal"
        );
    }
}

/// A medium bot that keeps every event it observes.
struct Recorder {
    inner: Box<dyn Strategy + Send>,
    seen: Arc<Mutex<Vec<Event>>>,
}

impl Strategy for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], rng: &mut dyn RngCore) -> Action {
        self.inner.choose(view, legal, rng)
    }

    fn observe(&mut self, event: &Event) {
        self.seen.lock().unwrap().push(*event);
    }
}

#[test]
fn the_strategy_observes_the_events_of_its_seat_in_order_before_it_decides() {
    // What the hard level counts cards from: every event the seat received, redacted
    // for it (a stolen card only for thief and victim, R-7.3), none lost or repeated.
    let seen: Vec<Arc<Mutex<Vec<Event>>>> = (0..4).map(|_| Arc::default()).collect();
    let mut bots: Vec<Box<dyn Strategy + Send>> = seen
        .iter()
        .map(|s| {
            Box::new(Recorder {
                inner: catan_bots::strategy(BotKind::Medium),
                seen: Arc::clone(s),
            }) as Box<dyn Strategy + Send>
        })
        .collect();
    let played = play(5, &mut bots);
    for (seat, (seen, received)) in seen.iter().zip(&played.received).enumerate() {
        let seen = seen.lock().unwrap();
        // The events after the seat's last decision are not observed yet.
        assert!(
            received.starts_with(&seen) && seen.len() * 10 > received.len() * 9,
            "seat {seat}: observed {} of {} events, in order",
            seen.len(),
            received.len()
        );
    }
}
