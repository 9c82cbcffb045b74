//! The seat driver at a table: four medium bots, each behind its own `SeatDriver`,
//! play a whole game through protocol messages only (a snapshot each, then every
//! accepted action's events redacted for the seat, with its fresh legal list), as
//! the server's room hands them. Offers wait for their answers, trades are
//! completed, and the game ends.

use catan_bots::{BotKind, SeatDriver, Strategy};
use catan_engine::{Actor, Event, Game, GameOptions, Seat};
use catan_protocol::{
    ClientMessage, PROTOCOL_VERSION, RoomInfo, RoomOptions, RoomStatus, ServerMessage, Snapshot,
};
use rand::SeedableRng;
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
        game_over: None,
        rematch: None,
    }))
}

/// Plays game `seed` to its end; returns the trades completed and the refusals.
fn play(seed: u64) -> (usize, u64) {
    let mut game = Game::new(GameOptions::default(), seed).unwrap();
    let seats: Vec<Seat> = game.seats().collect();
    let mut drivers: Vec<SeatDriver> = seats.iter().map(|_| SeatDriver::new()).collect();
    let mut bots: Vec<Box<dyn Strategy + Send>> = seats
        .iter()
        .map(|_| catan_bots::strategy(BotKind::Medium))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seq = 0;
    for (d, &s) in drivers.iter_mut().zip(&seats) {
        d.observe(&snapshot(&game, s, seq));
    }
    let mut trades = 0;
    for _ in 0..50_000 {
        if game.is_over() {
            let refused = drivers.iter().map(|d| d.counts().1).sum();
            return (trades, refused);
        }
        let Some((i, msg)) = (0..seats.len()).find_map(|i| {
            drivers[i]
                .decide(bots[i].as_mut(), &mut rng)
                .map(|m| (i, m))
        }) else {
            panic!("seed {seed}: nobody acts; an offer waits on itself?");
        };
        let seat = seats[i];
        let (request_id, action) = match msg {
            ClientMessage::Sync => {
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
                    drivers[j].observe(&ServerMessage::Events {
                        seq,
                        events: events.iter().map(|e| e.redact_for(Some(s))).collect(),
                        request_id: (j == i).then(|| request_id.clone()),
                        deadline: None,
                        offer_deadlines: Vec::new(),
                        legal: game.legal_actions(s),
                    });
                }
            }
            Err(e) => drivers[i].observe(&ServerMessage::Rejected {
                request_id,
                code: e.code().to_owned(),
                message: e.to_string(),
                seq: None,
            }),
        }
    }
    panic!("seed {seed}: not over after 50,000 messages");
}

#[test]
fn four_medium_bots_behind_seat_drivers_finish_their_games_with_player_trades() {
    let mut trades = 0;
    for seed in 0..4 {
        let (t, refused) = play(seed);
        assert_eq!(refused, 0, "seed {seed}: every action accepted");
        trades += t;
    }
    assert!(trades >= 4, "only {trades} player trades in 4 games");
}
