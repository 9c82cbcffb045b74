//! The room task against a store that is slow, hung, or stores a write it did
//! not acknowledge; sequence numbers across a restart; abandoned games.

use super::*;
use crate::room::Deadlines;

/// A [`Switchable`] whose first action write is stored, and then fails as if its
/// answer had been lost.
#[derive(Default)]
struct LosesFirstAnswer {
    inner: Switchable,
    lost: AtomicBool,
}

/// Keeps no queue (the defaults refuse every call).
impl QueueStore for LosesFirstAnswer {}
/// Keeps no notifications (the defaults refuse every call).
impl NotifyStore for LosesFirstAnswer {}
impl DaysStore for LosesFirstAnswer {}

#[async_trait]
impl Store for LosesFirstAnswer {
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.inner.create_game(game).await
    }
    async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
        let stored = self.inner.append_action(game, action).await;
        if stored.is_ok() && !self.lost.swap(true, Ordering::SeqCst) {
            return Err(StoreError::Unavailable("the answer was lost".into()));
        }
        stored
    }
    async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
        self.inner.finish_game(game, finish).await
    }
    async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
        self.inner.abandon_game(game).await
    }
    async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
        self.inner.reserve_seq(game, up_to).await
    }
    async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        self.inner.unfinished_games().await
    }
    async fn finished_games(&self, q: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        self.inner.finished_games(q).await
    }
    async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
        self.inner.game(id).await
    }
    async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
        self.inner.actions(id).await
    }
    async fn health(&self) -> Result<(), StoreError> {
        self.inner.health().await
    }
}

#[tokio::test(start_paused = true)]
async fn a_hung_store_refuses_the_action_within_the_store_timeout_and_reads_do_not_wait() {
    let store = Arc::new(Switchable::default());
    let (room, mut conns) = started(store.clone(), |_| {}).await;
    let (i, action) = first_mover(&mut conns).await;
    store.hung.store(true, Ordering::SeqCst);
    let begun = Instant::now();
    let act = ClientMessage::Action {
        request_id: "r-1".into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(room.client_message(conns[i].conn, act).await);
    // The room is waiting for the store: reads are answered at once (no time passes
    // on the paused clock), as the room stands.
    tokio::task::yield_now().await;
    let info = room.info().await.expect("info");
    let summary = room.admin_summary().await.expect("summary");
    let detail = room.admin_detail(5, None).await.expect("detail");
    assert_eq!(begun.elapsed(), Duration::ZERO, "reads did not wait");
    assert_eq!(info.status, catan_protocol::RoomStatus::Playing);
    assert_eq!((summary.actions, detail.room.actions), (0, 0));
    let refused = recv_until(&mut conns[i], |m| {
        matches!(m, ServerMessage::Rejected { .. })
    })
    .await;
    let waited = begun.elapsed();
    assert!(
        matches!(&refused, ServerMessage::Rejected { code, .. } if code == "store_unavailable"),
        "{refused:?}"
    );
    let limit = Config::for_tests().store.store_timeout();
    assert!(
        waited >= limit && waited < limit + Duration::from_millis(10),
        "refused after {waited:?}, the bound is {limit:?}"
    );
    // Back: the next attempt is stored and announced.
    store.hung.store(false, Ordering::SeqCst);
    let again = ClientMessage::Action {
        request_id: "r-2".into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(room.client_message(conns[i].conn, again).await);
    recv_until(&mut conns[i], |m| matches!(m, ServerMessage::Events { .. })).await;
    assert_eq!(store.actions.lock().expect("lock").len(), 1);
}

#[tokio::test(start_paused = true)]
async fn after_a_restart_no_sequence_number_is_used_twice() {
    // Chat after the last stored action, then a restart, then new broadcasts. A
    // watcher who saw the chat resumes with a `last_seq` past the stored log: it must
    // get a snapshot, not a `resumed` that skips the new road.
    let store = Arc::new(Switchable::default());
    let (room, mut conns, tokens) = started_with_tokens(store.clone(), |_| {}).await;
    let (mover, action) = first_mover(&mut conns).await;
    let act = |id: &str, action| ClientMessage::Action {
        request_id: id.into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(
        room.client_message(conns[mover].conn, act("a-1", action))
            .await
    );
    let watcher = (mover + 1) % 3;
    recv_until(&mut conns[watcher], |m| {
        matches!(m, ServerMessage::Events { .. })
    })
    .await;
    for i in 0..4 {
        let chat = ClientMessage::Chat {
            text: format!("chat {i}"),
        };
        assert!(room.client_message(conns[watcher].conn, chat).await);
    }
    let mut last_seq = 0;
    for _ in 0..4 {
        let m = recv_until(&mut conns[watcher], |m| {
            matches!(m, ServerMessage::Chat { .. })
        })
        .await;
        last_seq = m.seq().expect("numbered");
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
    let stored = store.actions.lock().expect("lock").clone();
    assert_eq!(stored.len(), 1);
    assert!(
        last_seq > stored[0].room_seq,
        "the chat came after the action"
    );
    let reserved = store.reserved.lock().expect("lock").expect("reserved");
    assert!(
        reserved >= last_seq,
        "reserved ahead: {reserved} for {last_seq}"
    );

    // The server restarts: the room is rebuilt from the store.
    drop((room, conns));
    let game = store.created.lock().expect("lock").clone().expect("stored");
    let record = GameRecord {
        players: game.players.clone(),
        game,
        status: crate::store::GameStatus::Playing,
        finished: None,
        seq_reserved: Some(reserved),
        slept_seq: None,
    };
    let room = RoomHandle::restore(
        context(store.clone()),
        record,
        &stored,
        Deadlines::Restart,
        None,
    )
    .expect("restores");
    let mut others = Vec::new();
    for i in [mover, 3 - mover - watcher] {
        let c = room
            .connect_in_process(tokens[i].clone())
            .await
            .expect("back");
        others.push(c);
    }
    let snapshot = recv_until(&mut others[0], |m| matches!(m, ServerMessage::Snapshot(_))).await;
    let ServerMessage::Snapshot(s) = snapshot else {
        unreachable!()
    };
    assert!(s.seq > reserved, "numbered past the reservation: {}", s.seq);
    let road = *s.legal.first().expect("the mover places a road");
    assert!(room.client_message(others[0].conn, act("a-2", road)).await);
    let new = recv_until(&mut others[0], |m| {
        matches!(m, ServerMessage::Events { .. })
    })
    .await;
    let new_seq = new.seq().expect("numbered");
    assert!(
        new_seq > last_seq,
        "never a number of the previous run: {new_seq}"
    );
    assert_eq!(store.actions.lock().expect("lock")[1].room_seq, new_seq);

    // The watcher comes back with what it saw before the restart.
    let mut back = room
        .connect(Some(tokens[watcher].clone()), Some(last_seq))
        .await
        .expect("back");
    match back.rx.recv().await.expect("a message") {
        Outbound::Text(t) => {
            let m: ServerMessage = serde_json::from_str(&t).expect("message");
            assert!(
                matches!(m, ServerMessage::Snapshot(ref s) if s.seq >= new_seq),
                "a snapshot with the new road, not {m:?}"
            );
        }
        Outbound::Message(m) => panic!("a socket client got a typed message: {m:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_game_without_players_for_the_abandon_time_is_abandoned_and_its_room_closed() {
    // `--abandon-after-secs` (3600 s by default) without a person in a seat;
    // spectators do not count.
    let store = Arc::new(Switchable::default());
    // No stand-ins either: they would play the game to its end meanwhile.
    let (room, conns) = started(store.clone(), |o| {
        o.turn_timer_secs = 0;
        o.stand_in_secs = 0;
    })
    .await;
    let mut spectator = room.connect(None, None).await.expect("spectator");
    let after = Duration::from_secs(Config::for_tests().rooms.abandon_after_secs);
    // Two of the three leave; the third stays for two hours: nothing happens.
    room.disconnect(conns[0].conn).await;
    room.disconnect(conns[1].conn).await;
    tokio::time::sleep(2 * after).await;
    assert!(room.info().await.is_ok(), "a player is still connected");
    // The last one leaves: an hour later, not before, the game is abandoned.
    room.disconnect(conns[2].conn).await;
    let left = Instant::now();
    tokio::time::sleep(after - Duration::from_secs(1)).await;
    assert!(room.info().await.is_ok(), "not yet");
    assert!(store.abandoned.lock().expect("lock").is_empty());
    let mut last = None;
    while let Some(m) = spectator.rx.recv().await {
        last = Some(m);
    }
    let closed_after = left.elapsed();
    assert!(
        closed_after >= after && closed_after < after + Duration::from_secs(1),
        "closed {closed_after:?} after the last player left"
    );
    let Some(Outbound::Text(t)) = last else {
        panic!("the spectator was told: {last:?}")
    };
    assert!(t.contains("room_closed") && t.contains("abandoned"), "{t}");
    assert_eq!(*store.abandoned.lock().expect("lock"), vec![room.id]);
    assert!(room.info().await.is_err(), "the room is gone");
}

/// Waits `total`, emptying the connections' queues each (paused-clock) minute so
/// that none is dropped as too slow while bots play.
async fn wait_draining(conns: &mut [&mut Connected], total: Duration) {
    let step = Duration::from_secs(60);
    let end = Instant::now() + total;
    while Instant::now() < end {
        tokio::time::sleep(step.min(end - Instant::now())).await;
        for c in conns.iter_mut() {
            while c.rx.try_recv().is_ok() {}
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_game_of_one_person_and_bots_is_abandoned_while_the_bots_and_a_stand_in_play_on() {
    // The sibling of the test above with bots: only people count. Two bots and a
    // stand-in for the absent person keep the game moving (and the store writing)
    // for the whole abandon time, and the game is abandoned all the same; while the
    // person is connected it is not.
    let store = Arc::new(Switchable::default());
    let mut ctx = context(store.clone());
    // Slow bots and a target of 20: the game is far from over after hours.
    let bots = crate::bot::Bots::new(Config::for_tests().bots.settings());
    ctx.bots = Arc::new(bots.thinking(Duration::from_secs(10)));
    let after = Duration::from_secs(ctx.settings.rooms.abandon_after_secs);
    let options = RoomOptions {
        game: GameOptions::default()
            .with_players(3)
            .with_vp_target(20)
            .with_map(MapKind::Beginner),
        turn_timer_secs: 0,
        stand_in_secs: 30,
        stand_in_level: catan_protocol::BotKind::Easy,
        ..RoomOptions::default()
    };
    let room = RoomHandle::spawn(ctx, options, HOST.to_owned());
    let ann = room
        .take_seat("ann".into(), None, None)
        .await
        .expect("seat");
    for _ in 0..2 {
        let bot = catan_protocol::AddBotRequest {
            seat: None,
            kind: catan_protocol::BotKind::Easy,
        };
        room.add_bot(HOST.into(), bot).await.expect("bot");
    }
    let mut person = room.connect_in_process(ann.token).await.expect("connect");
    let me = person.seat.expect("a seat").index();
    room.start(HOST.into()).await.expect("start");
    let mut spectator = room.connect(None, None).await.expect("spectator");

    // The person stays connected (and never acts) for twice the abandon time: the
    // bots play up to the person's decision, and the game stays.
    wait_draining(&mut [&mut person, &mut spectator], 2 * after).await;
    assert!(room.info().await.is_ok(), "the person is connected");
    assert!(store.abandoned.lock().expect("lock").is_empty());

    // The person leaves: a stand-in takes the seat, and it and the bots play on.
    room.disconnect(person.conn).await;
    let left = Instant::now();
    wait_draining(&mut [&mut spectator], after / 2).await;
    let halfway = store.actions.lock().expect("lock").len();
    wait_draining(&mut [&mut spectator], after / 2 - Duration::from_secs(1)).await;
    let info = room.info().await.expect("not yet abandoned");
    assert!(
        info.seats[me].stand_in && !info.seats[me].connected,
        "{info:?}"
    );
    let late = store.actions.lock().expect("lock").len();
    assert!(
        late > halfway + 10,
        "the game went on in the second half hour: {halfway} -> {late} actions"
    );
    assert!(store.abandoned.lock().expect("lock").is_empty());

    // An abandon time after the person left, not later, the game is abandoned
    // (bounded: the bots would otherwise play on on the paused clock for ever).
    let mut last = None;
    let closed = tokio::time::timeout(Duration::from_secs(2), async {
        while let Some(m) = spectator.rx.recv().await {
            last = Some(m);
        }
    })
    .await;
    assert!(
        closed.is_ok(),
        "the room was still open {:?} after the person left, with {} actions stored",
        left.elapsed(),
        store.actions.lock().expect("lock").len()
    );
    let closed_after = left.elapsed();
    assert!(
        closed_after >= after && closed_after < after + Duration::from_secs(1),
        "closed {closed_after:?} after the person left"
    );
    let Some(Outbound::Text(t)) = last else {
        panic!("the spectator was told: {last:?}")
    };
    assert!(t.contains("room_closed") && t.contains("abandoned"), "{t}");
    assert_eq!(*store.abandoned.lock().expect("lock"), vec![room.id]);
    assert!(room.info().await.is_err(), "the room is gone");
}

#[tokio::test(start_paused = true)]
async fn an_action_stored_after_its_refusal_is_taken_in_when_the_log_says_so() {
    // The bound on store calls (point 2) has a cost: a write can be stored after
    // the room gave up on it. The next write at that index conflicts; the room then
    // takes the stored action in (everyone hears it) and stages its action again.
    let store = Arc::new(Switchable::default());
    let (room, mut conns) = started(store.clone(), |_| {}).await;
    let (i, action) = first_mover(&mut conns).await;
    let act = |id: &str, action| ClientMessage::Action {
        request_id: id.into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    store.ghost.store(true, Ordering::SeqCst);
    assert!(room.client_message(conns[i].conn, act("g-1", action)).await);
    let refused = recv_until(&mut conns[i], |m| {
        matches!(m, ServerMessage::Rejected { .. })
    })
    .await;
    assert!(
        matches!(refused, ServerMessage::Rejected { ref code, .. } if code == "store_unavailable")
    );
    store.ghost.store(false, Ordering::SeqCst);
    assert_eq!(
        store.actions.lock().expect("lock").len(),
        1,
        "stored all the same"
    );
    // The client tries another action: the room catches up with the log, then
    // finds that one no longer applies (the game moved on by the one taken in).
    let seat = catan_engine::Seat(u8::try_from(i).expect("seat"));
    let before = room
        .admin_detail(0, None)
        .await
        .expect("detail")
        .game
        .expect("game");
    let another = before.legal_actions(seat)[1];
    assert!(
        room.client_message(conns[i].conn, act("g-2", another))
            .await
    );
    let other = (i + 1) % 3;
    let heard = recv_until(&mut conns[other], |m| {
        matches!(m, ServerMessage::Events { .. })
    })
    .await;
    let ServerMessage::Events { seq, .. } = heard else {
        unreachable!()
    };
    assert_eq!(store.actions.lock().expect("lock")[0].room_seq, seq);
    let answer = answer_of(&mut conns[i]).await;
    assert!(
        matches!(&answer, ServerMessage::Rejected { code, request_id, .. } if code == "stale_action" && request_id == "g-2"),
        "{answer:?}"
    );
    // The game goes on from the stored log.
    let summary = room.admin_summary().await.expect("summary");
    assert_eq!(summary.actions, 1);
    let detail = room.admin_detail(0, None).await.expect("detail");
    let game = detail.game.expect("a game");
    let next = *game.legal_actions(seat).first().expect("the road");
    assert!(room.client_message(conns[i].conn, act("g-3", next)).await);
    let done = answer_of(&mut conns[i]).await;
    assert!(
        matches!(&done, ServerMessage::Events { request_id: Some(r), .. } if r == "g-3"),
        "{done:?}"
    );
    let seqs: Vec<u64> = store
        .actions
        .lock()
        .expect("lock")
        .iter()
        .map(|a| a.seq)
        .collect();
    assert_eq!(seqs, vec![0, 1]);
}

#[tokio::test(start_paused = true)]
async fn a_write_stored_by_an_attempt_whose_answer_was_lost_is_the_action_itself() {
    // The first attempt is stored but its answer lost (it fails); the retry of the
    // same record conflicts: the log holds this very action, which is then
    // committed as the client's own (acknowledged with its request id).
    let store = Arc::new(LosesFirstAnswer::default());
    let (room, mut conns) = started_on(store.clone(), |_| {}).await;
    let (i, action) = first_mover(&mut conns).await;
    let act = ClientMessage::Action {
        request_id: "l-1".into(),
        action,
        expect_seq: None,
        offer_expires_secs: None,
    };
    assert!(room.client_message(conns[i].conn, act).await);
    let answer = answer_of(&mut conns[i]).await;
    assert!(
        matches!(&answer, ServerMessage::Events { request_id: Some(r), .. } if r == "l-1"),
        "{answer:?}"
    );
    assert_eq!(store.inner.actions.lock().expect("lock").len(), 1);
}
