//! What a player costs the server beyond the game: signing in (Argon2id, the
//! deliberate cost of a password check, on the blocking pool) and a rated result
//! (the Weng-Lin update, and the whole transaction that stores a rated game's result
//! with its rating changes, on SQLite).
//!
//! ```text
//! cargo bench -p catan-server --bench players
//! ```

// `criterion_group!` defines an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use catan_engine::{FinalScore, Seat};
use catan_protocol::RoomOptions;
use catan_ratings::{Entry, Skill};
use catan_server::players::password;
use catan_server::store::{
    Finish, NewGame, Place, PlayerRecord, PlayerRow, SqlStore, Store, bot_player_id,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use uuid::Uuid;

fn sign_in(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let phc = rt
        .block_on(password::hash("correct horse battery".into()))
        .expect("hash");
    let mut g = c.benchmark_group("sign_in");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("argon2id_verify", |b| {
        b.iter(|| {
            rt.block_on(password::verify(
                black_box("correct horse battery".into()),
                phc.clone(),
            ))
        });
    });
    g.bench_function("argon2id_hash", |b| {
        b.iter(|| rt.block_on(password::hash(black_box("correct horse battery".into()))));
    });
    g.finish();
}

fn rating(c: &mut Criterion) {
    let entries: Vec<Entry> = (0..4u8)
        .map(|i| Entry {
            skill: Skill {
                mu: 20.0 + f64::from(i) * 3.0,
                sigma: 4.0,
            },
            place: i + 1,
            fixed: i == 3,
        })
        .collect();
    c.bench_function("rating/weng_lin_four_seats", |b| {
        b.iter(|| catan_ratings::rate(black_box(&entries)));
    });
}

/// A started 4-seat rated game of three players and a bot, stored in `store`.
async fn started(store: &SqlStore, players: &[Uuid]) -> Uuid {
    let id = Uuid::new_v4();
    let mut seats: Vec<PlayerRecord> = players
        .iter()
        .enumerate()
        .map(|(i, p)| PlayerRecord {
            seat: Seat(u8::try_from(i).expect("seat")),
            name: format!("p{i}"),
            bot: None,
            token_hash: format!("{i:064}"),
            final_vp: None,
            vp_cards: None,
            player_id: Some(*p),
            rating: None,
        })
        .collect();
    seats.push(PlayerRecord {
        seat: Seat(3),
        name: "Bot 4".into(),
        bot: Some(catan_protocol::BotKind::Medium),
        token_hash: "b".repeat(64),
        final_vp: None,
        vp_cards: None,
        player_id: Some(bot_player_id(catan_protocol::BotKind::Medium)),
        rating: None,
    });
    let game = NewGame {
        id,
        options: RoomOptions {
            rated: true,
            ..RoomOptions::default()
        },
        seed: 1,
        seed_salt: "salt".into(),
        seed_commitment: "c".repeat(64),
        host_token_hash: "h".repeat(64),
        created_at: 1,
        started_at: 2,
        players: seats,
    };
    store.create_game(&game).await.expect("create game");
    id
}

fn rated_result(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let store = rt.block_on(SqlStore::connect(&url)).expect("store");
    let players: Vec<Uuid> = (0..3)
        .map(|i| {
            let p = PlayerRow {
                id: Uuid::new_v4(),
                name: format!("p{i}"),
                password_hash: None,
                created_at: 0,
                deleted: false,
            };
            rt.block_on(store.create_player(&p)).expect("player");
            p.id
        })
        .collect();
    let finish = Finish {
        winner: Some(Seat(0)),
        finished_at: 3,
        scores: (0..4u8)
            .map(|s| FinalScore {
                seat: Seat(s),
                points: 10 - s,
                vp_cards: 0,
            })
            .collect(),
        rated: Some(
            (0..4u8)
                .map(|s| Place {
                    seat: Seat(s),
                    place: s + 1,
                    turns: 20,
                    stood_in: 0,
                })
                .collect(),
        ),
    };
    let mut g = c.benchmark_group("rated_result");
    g.sample_size(30);
    g.bench_function("sqlite_finish_game_with_ratings", |b| {
        b.iter_batched(
            || rt.block_on(started(&store, &players)),
            |id| rt.block_on(store.finish_game(id, &finish)).expect("finish"),
            BatchSize::PerIteration,
        );
    });
    let unrated = Finish {
        rated: None,
        ..finish.clone()
    };
    g.bench_function("sqlite_finish_game_unrated", |b| {
        b.iter_batched(
            || rt.block_on(started(&store, &players)),
            |id| {
                rt.block_on(store.finish_game(id, &unrated))
                    .expect("finish")
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

criterion_group!(benches, sign_in, rating, rated_result);
criterion_main!(benches);
