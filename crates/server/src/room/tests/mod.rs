//! The room task as it drives the state machine: timers on tokio's paused clock, and
//! store writes refused and then accepted, over in-process connections.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_trait::async_trait;
use catan_engine::{Event, GameOptions, MapKind};
use tokio::time::Instant;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::{Connected, Outbound, RoomContext, RoomHandle};
use crate::config::Config;
use crate::metrics::Metrics;
use crate::store::{
    ActionRecord, DaysStore, Finish, GameQuery, GameRecord, NewGame, NotifyStore, QueueStore,
    Store, StoreError,
};
use catan_protocol::{ClientMessage, RoomOptions, ServerMessage};

mod days;
mod stand_in;
mod store;

/// A store in memory that refuses action writes while `down` is set, never
/// answers them while `hung` is set, and stores them without ever answering while
/// `ghost` is set (a commit whose answer was lost). Like the database, it refuses
/// a second action at an index of the log (`Conflict`).
#[derive(Default)]
struct Switchable {
    down: AtomicBool,
    hung: AtomicBool,
    ghost: AtomicBool,
    refused: AtomicUsize,
    actions: Mutex<Vec<ActionRecord>>,
    /// The game as stored at its start.
    created: Mutex<Option<NewGame>>,
    /// The highest sequence number reserved.
    reserved: Mutex<Option<u64>>,
    /// Games marked abandoned.
    abandoned: Mutex<Vec<Uuid>>,
}

/// Keeps no queue (the defaults refuse every call).
impl QueueStore for Switchable {}
/// Keeps no notifications (the defaults refuse every call).
impl NotifyStore for Switchable {}
impl DaysStore for Switchable {}

#[async_trait]
impl Store for Switchable {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        *self.created.lock().expect("lock") = Some(game.clone());
        Ok(())
    }
    async fn append_action(&self, _: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        if self.hung.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        if self
            .actions
            .lock()
            .expect("lock")
            .iter()
            .any(|a| a.seq == action.seq)
        {
            let taken = sqlx::Error::Protocol(format!("action {} is stored", action.seq));
            return Err(StoreError::Conflict(Box::new(taken)));
        }
        if self.ghost.load(Ordering::SeqCst) {
            self.actions.lock().expect("lock").push(*action);
            std::future::pending::<()>().await;
        }
        if self.down.load(Ordering::SeqCst) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            return Err(StoreError::Unavailable("switched off".into()));
        }
        self.actions.lock().expect("lock").push(*action);
        Ok(())
    }
    async fn finish_game(&self, _: Uuid, _: &Finish) -> Result<(), StoreError> {
        Ok(())
    }
    async fn abandon_game(&self, id: Uuid) -> Result<(), StoreError> {
        self.abandoned.lock().expect("lock").push(id);
        Ok(())
    }
    async fn reserve_seq(&self, _: Uuid, up_to: u64) -> Result<(), StoreError> {
        let mut r = self.reserved.lock().expect("lock");
        *r = Some(r.unwrap_or(0).max(up_to));
        Ok(())
    }
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        Ok(Vec::new())
    }
    async fn finished_games(&self, _: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        Ok(Vec::new())
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        Err(StoreError::NotFound(id.to_string()))
    }
    async fn actions(&self, _: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        Ok(self.actions.lock().expect("lock").clone())
    }
    async fn health(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

const HOST: &str = "host";

/// What a room of these tests runs in: `store`, and no shutdown (without a sender
/// the room never sees one).
fn context(store: Arc<dyn Store>) -> RoomContext {
    let shutdown = tokio_util::sync::CancellationToken::new();
    let config = Config::for_tests();
    let metrics = Arc::new(Metrics::default());
    RoomContext {
        settings: Arc::new(config.room_settings()),
        // As the server runs it: bounded, a hiccup retried, writes timed.
        store: Arc::new(crate::store::Guarded::new(
            store,
            config.store.store_timeout(),
            metrics.clone(),
        )),
        metrics,
        tasks: TaskTracker::new(),
        shutdown,
        bots: Arc::new(crate::bot::Bots::new(config.bots.settings())),
        rooms: Weak::<crate::registry::Rooms>::new(),
        sanctions: Arc::default(),
        notices: crate::notify::Handovers::detached(),
    }
}

/// A started three-player room of people, each seat connected in process.
async fn started(
    store: Arc<Switchable>,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (RoomHandle, Vec<Connected>) {
    let (room, conns, _) = started_with_tokens(store, tweak).await;
    (room, conns)
}

/// [`started`] on any store.
async fn started_on(
    store: Arc<dyn Store>,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (RoomHandle, Vec<Connected>) {
    let (room, conns, _) = started_with_tokens(store, tweak).await;
    (room, conns)
}

/// [`started`], with each seat's token.
async fn started_with_tokens(
    store: Arc<dyn Store>,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (RoomHandle, Vec<Connected>, Vec<String>) {
    started_in(context(store), tweak).await
}

/// [`started_with_tokens`] in `ctx`.
async fn started_in(
    ctx: RoomContext,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (RoomHandle, Vec<Connected>, Vec<String>) {
    let mut options = RoomOptions {
        game: GameOptions::default()
            .with_players(3)
            .with_vp_target(10)
            .with_map(MapKind::Beginner),
        ..RoomOptions::default()
    };
    tweak(&mut options);
    let room = RoomHandle::spawn(ctx, options, HOST.to_owned());
    let (mut conns, mut tokens) = (Vec::new(), Vec::new());
    for name in ["ann", "bob", "cyd"] {
        let seat = room.take_seat(name.into(), None, None).await.expect("seat");
        tokens.push(seat.token.clone());
        conns.push(room.connect_in_process(seat.token).await.expect("connect"));
    }
    room.start(HOST.into()).await.expect("start");
    (room, conns, tokens)
}

/// The next message of a connection that satisfies `pred`.
async fn recv_until(c: &mut Connected, pred: impl Fn(&ServerMessage) -> bool) -> ServerMessage {
    loop {
        match c.rx.recv().await.expect("the room is open") {
            Outbound::Message(m) if pred(&m) => return (*m).clone(),
            Outbound::Message(_) => {}
            Outbound::Text(t) => panic!("an in-process client got text: {t}"),
        }
    }
}

/// The answer to the connection's own action: its acknowledgement (the `events`
/// with its request id) or its refusal.
async fn answer_of(c: &mut Connected) -> ServerMessage {
    recv_until(c, |m| {
        matches!(
            m,
            ServerMessage::Rejected { .. }
                | ServerMessage::Events {
                    request_id: Some(_),
                    ..
                }
        )
    })
    .await
}

fn timed_out(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::Events { events, .. }
        if events.iter().any(|e| matches!(e, Event::TimedOut { .. })))
}

/// The connection whose seat is to act first (the seed picks it) and its first legal
/// action, from the snapshots of the start.
async fn first_mover(conns: &mut [Connected]) -> (usize, catan_engine::Action) {
    let mut first = None;
    for (i, c) in conns.iter_mut().enumerate() {
        let snapshot = recv_until(
            c,
            |m| matches!(m, ServerMessage::Snapshot(s) if s.view.is_some()),
        );
        if let ServerMessage::Snapshot(s) = snapshot.await
            && let Some(a) = s.legal.first()
        {
            first = Some((i, *a));
        }
    }
    first.expect("someone acts first")
}

#[tokio::test(start_paused = true)]
async fn the_turn_timer_runs_on_tokios_clock() {
    let (_room, mut conns) = started(Arc::default(), |o| o.turn_timer_secs = 90).await;
    let begun = Instant::now();
    recv_until(&mut conns[1], timed_out).await;
    let waited = begun.elapsed();
    assert!(
        waited >= Duration::from_secs(90) && waited < Duration::from_secs(91),
        "the turn ended after {waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_action_the_store_refuses_is_rejected_and_accepted_once_it_is_back() {
    let store = Arc::new(Switchable::default());
    let (room, mut conns) = started(store.clone(), |_| {}).await;
    let (i, action) = first_mover(&mut conns).await;
    let conn = conns[i].conn;
    let act = |id: &str| ClientMessage::Action {
        request_id: id.into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    store.down.store(true, Ordering::SeqCst);
    assert!(room.client_message(conn, act("r-1")).await);
    let refused = recv_until(&mut conns[i], |m| {
        matches!(m, ServerMessage::Rejected { .. })
    })
    .await;
    let ServerMessage::Rejected {
        code, request_id, ..
    } = refused
    else {
        unreachable!()
    };
    assert_eq!(
        (code.as_str(), request_id.as_str()),
        ("store_unavailable", "r-1")
    );
    assert_eq!(store.refused.load(Ordering::SeqCst), 4, "tried four times");
    store.down.store(false, Ordering::SeqCst);
    assert!(room.client_message(conn, act("r-2")).await);
    let done = recv_until(&mut conns[i], |m| matches!(m, ServerMessage::Events { .. })).await;
    assert!(
        matches!(done, ServerMessage::Events { seq, request_id: Some(r), .. } if r == "r-2" && seq > 0)
    );
    let stored = store.actions.lock().expect("lock").clone();
    assert_eq!(stored.len(), 1, "the refused attempt left nothing behind");
    assert_eq!(stored[0].seq, 0);
}

#[tokio::test(start_paused = true)]
async fn a_time_out_the_store_refuses_is_carried_out_once_it_is_back() {
    let store = Arc::new(Switchable::default());
    store.down.store(true, Ordering::SeqCst);
    let (_room, mut conns) = started(store.clone(), |o| o.turn_timer_secs = 10).await;
    let begun = Instant::now();
    // Refused at 10 s and retried every second after: back at 15 s.
    tokio::time::sleep(Duration::from_secs(15)).await;
    assert!(
        store.refused.load(Ordering::SeqCst) >= 8,
        "retried while down"
    );
    store.down.store(false, Ordering::SeqCst);
    recv_until(&mut conns[0], timed_out).await;
    let waited = begun.elapsed();
    assert!(
        waited >= Duration::from_secs(15) && waited < Duration::from_secs(17),
        "carried out after {waited:?}"
    );
    assert_eq!(store.actions.lock().expect("lock").len(), 1);
}

/// A room waiting for its next command holds its state and what it waits on, not
/// the states of the store calls a command may wait on: those run boxed
/// ([`super::task::RoomTask::run`]). It was 8,048 bytes (debug and release builds
/// alike) for 984 of state; 3,848 with the work boxed but the state held twice (an
/// `async fn` around an `async move` block); 2,856 now, in a debug build.
#[tokio::test]
async fn a_waiting_room_task_holds_little_more_than_its_state() {
    let (handle, rx) = RoomHandle::new(
        Uuid::new_v4(),
        false,
        tokio_util::sync::CancellationToken::new(),
    );
    let task = super::task::RoomTask::new(
        handle.id,
        context(Arc::new(Switchable::default())),
        RoomOptions::default(),
        HOST,
        rx,
        handle.clone(),
    );
    let state = std::mem::size_of_val(&task);
    let run = task.run();
    let waiting = std::mem::size_of_val(&run);
    assert!(
        waiting <= state + 2048,
        "the waiting room task is {waiting} bytes for {state} bytes of state"
    );
}

/// A room's command queue allocates 32 slots of its largest command up front, in
/// every room: the client's message (64 bytes) travels boxed, so that a slot is 56
/// bytes, not 88.
#[test]
fn a_command_is_at_most_56_bytes() {
    assert!(
        std::mem::size_of::<super::Command>() <= 56,
        "a command is {} bytes",
        std::mem::size_of::<super::Command>()
    );
}
