//! A property test of the queue's life in the store: random joins, leaves,
//! formings (two instances forming from the same read of the queue, their writes
//! interleaved), drops, starts, given-up and lost tables, and forgetting, checked
//! after every step against a model of where each player is: nobody is ever
//! seated at two tables, nobody seated is still waiting, and every row of the
//! store is where the model says.

use std::collections::BTreeMap;

use proptest::prelude::*;
use uuid::Uuid;

use super::matcher::{self, Schedule};
use super::tables::{pools, tickets};
use crate::store::{
    PlayerRow, QueueRow, QueueSeat, QueueStore, QueueTable, SqlStore, Store, StoreError,
};

const PLAYERS: usize = 10;

#[derive(Debug, Clone)]
enum Op {
    /// Player `p` (alone, or with the next player as a party when `pair`) joins
    /// for `seats`, bots or not.
    Join {
        p: usize,
        pair: bool,
        seats: u8,
        bots: bool,
    },
    Leave(usize),
    /// One forming (`twice`: two instances from the same read), `dt` ms later.
    Form {
        twice: bool,
        dt: u64,
    },
    /// The player's table drops them (they did not connect).
    Drop(usize),
    /// The game of the player's table starts.
    Start(usize),
    /// The player's table ends before its start: its players wait again
    /// (`requeue`, a lost instance) or leave (given up).
    Unseat {
        p: usize,
        requeue: bool,
    },
    /// Seated rows of started tables older than `age` ms are forgotten.
    Forget(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..PLAYERS, any::<bool>(), prop_oneof![Just(3u8), Just(4u8)], any::<bool>())
            .prop_map(|(p, pair, seats, bots)| Op::Join { p, pair, seats, bots }),
        1 => (0..PLAYERS).prop_map(Op::Leave),
        3 => (any::<bool>(), 0..90_000u64).prop_map(|(twice, dt)| Op::Form { twice, dt }),
        1 => (0..PLAYERS).prop_map(Op::Drop),
        1 => (0..PLAYERS).prop_map(Op::Start),
        1 => (0..PLAYERS, any::<bool>()).prop_map(|(p, requeue)| Op::Unseat { p, requeue }),
        1 => (0..200_000u64).prop_map(Op::Forget),
    ]
}

/// Where the model says a player is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    Out,
    Waiting,
    /// Seated at the table of this room; whether its game started.
    Seated(Uuid, bool),
}

struct World {
    store: SqlStore,
    ids: Vec<Uuid>,
    model: Vec<Where>,
    /// When each seated player was seated (for forgetting).
    seated_at: Vec<u64>,
    now: u64,
}

impl World {
    fn player(&self, id: Uuid) -> usize {
        self.ids
            .iter()
            .position(|x| *x == id)
            .expect("a known player")
    }

    /// Writes the tables one instance formed from `waiting`: the players of the
    /// tables it won are seated, in the model too.
    async fn write(&mut self, formed: Vec<(Uuid, u8, bool, Vec<Uuid>)>) {
        for (room, seats, rated, players) in formed {
            let table = QueueTable {
                room_id: room,
                host_token: "h".into(),
                seats,
                rated,
                formed_at: self.now,
            };
            let given: Vec<(Uuid, QueueSeat)> = players
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    (
                        *p,
                        QueueSeat {
                            room_id: room,
                            seat: u8::try_from(i).expect("seat"),
                            token: format!("t{i}"),
                            at: self.now,
                        },
                    )
                })
                .collect();
            let won = self.store.queue_seat(&table, &given).await.expect("write");
            let all_waiting = players
                .iter()
                .all(|p| self.model[self.player(*p)] == Where::Waiting);
            assert_eq!(
                won, all_waiting,
                "a table is won exactly when all still wait"
            );
            if won {
                for p in players {
                    let i = self.player(p);
                    self.model[i] = Where::Seated(room, false);
                    self.seated_at[i] = self.now;
                }
            }
        }
    }

    /// The tables a forming at `now` makes from `waiting` (rooms new).
    fn form(waiting: &[QueueRow], now: u64) -> Vec<(Uuid, u8, bool, Vec<Uuid>)> {
        let schedule = Schedule {
            bots_after_ms: 60_000,
            ..Schedule::default()
        };
        let mut out = Vec::new();
        for ((seats, rated), pool) in &pools(waiting) {
            for t in matcher::form(usize::from(*seats), &tickets(pool, now), now, &schedule) {
                let players = t
                    .tickets
                    .iter()
                    .flat_map(|k| pool[k].iter().map(|r| r.player_id))
                    .collect();
                out.push((Uuid::new_v4(), *seats, *rated, players));
            }
        }
        out
    }

    async fn step(&mut self, op: Op) {
        match op {
            Op::Join {
                p,
                pair,
                seats,
                bots,
            } => {
                let ticket = Uuid::new_v4();
                let members: Vec<usize> = if pair {
                    vec![p, (p + 1) % PLAYERS]
                } else {
                    vec![p]
                };
                let rows: Vec<QueueRow> = members
                    .iter()
                    .map(|&i| QueueRow {
                        player_id: self.ids[i],
                        ticket,
                        name: format!("P{i}"),
                        seats,
                        rated: false,
                        bots_ok: bots,
                        rating: 900 + 40 * i32::try_from(i).expect("small"),
                        since: self.now,
                        seated: None,
                    })
                    .collect();
                let done = self.store.queue_join(&rows).await;
                let gathering = members
                    .iter()
                    .any(|&i| matches!(self.model[i], Where::Seated(_, false)));
                let waiting = members.iter().any(|&i| self.model[i] == Where::Waiting);
                match done {
                    Ok(true) => {
                        assert!(!gathering && !waiting, "joined while busy");
                        for &i in &members {
                            self.model[i] = Where::Waiting;
                        }
                    }
                    Ok(false) => assert!(gathering, "refused as gathering though not"),
                    Err(StoreError::Conflict(_)) => {
                        assert!(waiting, "refused as waiting though not")
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            Op::Leave(p) => {
                let left = self.store.queue_leave(self.ids[p]).await.expect("leave");
                assert_eq!(left, self.model[p] != Where::Out);
                self.model[p] = Where::Out;
            }
            Op::Form { twice, dt } => {
                self.now += dt;
                let waiting = self.store.queue_waiting().await.expect("read");
                let a = World::form(&waiting, self.now);
                if twice {
                    // A second instance read the same queue a moment later.
                    let b = World::form(&waiting, self.now + 30_000);
                    let mut both: Vec<_> = a.into_iter().zip(b).flat_map(|(x, y)| [x, y]).collect();
                    both.reverse();
                    self.write(both).await;
                } else {
                    self.write(a).await;
                }
            }
            Op::Drop(p) => {
                if let Where::Seated(room, false) = self.model[p] {
                    assert!(
                        self.store
                            .queue_drop(self.ids[p], room)
                            .await
                            .expect("drop")
                    );
                    self.model[p] = Where::Out;
                }
            }
            Op::Start(p) => {
                if let Where::Seated(room, false) = self.model[p] {
                    self.store.queue_started(room).await.expect("start");
                    for w in &mut self.model {
                        if *w == Where::Seated(room, false) {
                            *w = Where::Seated(room, true);
                        }
                    }
                }
            }
            Op::Unseat { p, requeue } => {
                if let Where::Seated(room, false) = self.model[p] {
                    self.store
                        .queue_unseat(room, requeue)
                        .await
                        .expect("unseat");
                    for w in &mut self.model {
                        if *w == Where::Seated(room, false) {
                            *w = if requeue { Where::Waiting } else { Where::Out };
                        }
                    }
                }
            }
            Op::Forget(age) => {
                let before = self.now.saturating_sub(age);
                self.store.queue_forget(before).await.expect("forget");
                for (i, w) in self.model.iter_mut().enumerate() {
                    if matches!(w, Where::Seated(_, true)) && self.seated_at[i] < before {
                        *w = Where::Out;
                    }
                }
            }
        }
    }

    /// The store holds what the model says, and nobody seated is waiting.
    async fn check(&self) {
        let waiting = self.store.queue_waiting().await.expect("read");
        let pending = self.store.queue_pending().await.expect("read");
        let mut seats_of: BTreeMap<Uuid, Vec<u8>> = BTreeMap::new();
        for (i, id) in self.ids.iter().enumerate() {
            let row = self.store.queued(*id).await.expect("read");
            let is_waiting = waiting.iter().any(|r| r.player_id == *id);
            match self.model[i] {
                Where::Out => assert!(row.is_none(), "P{i} has a row: {row:?}"),
                Where::Waiting => {
                    let row = row.expect("a row");
                    assert!(row.seated.is_none() && is_waiting, "P{i} waits");
                }
                Where::Seated(room, started) => {
                    let row = row.expect("a row");
                    let at = row.seated.expect("seated");
                    assert_eq!(at.room_id, room, "P{i} at one table");
                    assert!(!is_waiting, "P{i} seated and still waiting");
                    seats_of.entry(room).or_default().push(at.seat);
                    let gathering = pending.iter().any(|t| {
                        t.table.room_id == room && t.players.iter().any(|r| r.player_id == *id)
                    });
                    assert_eq!(gathering, !started, "P{i}'s table gathering");
                }
            }
        }
        for (room, mut seats) in seats_of {
            let n = seats.len();
            seats.sort_unstable();
            seats.dedup();
            assert_eq!(seats.len(), n, "one player a seat at {room}");
        }
    }
}

fn run(ops: Vec<Op>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let dir = tempfile::tempdir().expect("dir");
        let url = format!("sqlite://{}", dir.path().join("q.db").display());
        let store = SqlStore::connect(&url).await.expect("store");
        let mut ids = Vec::new();
        for i in 0..PLAYERS {
            let id = Uuid::new_v4();
            store
                .create_player(&PlayerRow {
                    id,
                    name: format!("P{i}"),
                    password_hash: None,
                    created_at: 0,
                    deleted: false,
                })
                .await
                .expect("player");
            ids.push(id);
        }
        let mut world = World {
            store,
            ids,
            model: vec![Where::Out; PLAYERS],
            seated_at: vec![0; PLAYERS],
            now: 1_000_000,
        };
        for op in ops {
            world.step(op).await;
            world.check().await;
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn nobody_is_seated_twice_nor_waits_once_seated(ops in proptest::collection::vec(op(), 1..40)) {
        run(ops);
    }
}
