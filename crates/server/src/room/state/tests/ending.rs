//! How games end: a win, the turn limit, and rooms restored from the log of
//! a game in progress, won, or ended by the limit.

use super::*;
use crate::room::Deadlines;
use crate::room::state::SEQ_BLOCK;
use crate::room::state::play::Refusal;
use catan_engine::ActionError;

#[test]
fn a_win_finishes_the_room_reveals_the_seed_and_returns_the_result() {
    let (mut r, seats) = full_room(options(3, |o| {
        o.game.vp_target = 3;
        o.turn_timer_secs = 60;
    }));
    start(&mut r);
    drain(&mut r);
    let mut bot = catan_bots::strategy(BotKind::Medium);
    let mut rng = StdRng::seed_from_u64(5);
    let finish = (0..2000)
        .find_map(|_| {
            let (seat, action) = next_move(&r, bot.as_mut(), &mut rng);
            play(&mut r, seat, action)
        })
        .expect("a game to 3 VP ends");
    assert_eq!(r.status(), RoomStatus::Finished);
    assert_eq!(r.next_deadline(), None, "no timers after the end");
    let sent = drain(&mut r);
    let over = sent.to(seats[0].1).into_iter().find_map(|m| match m {
        ServerMessage::GameOver(o) => Some(o.clone()),
        _ => None,
    });
    let over = over.expect("game_over");
    assert_eq!(over.winner, finish.winner);
    let winner = finish.winner.expect("a game to 3 VP is won");
    assert_eq!(over.seed, "7");
    assert_eq!(over.seed_salt, "salt");
    assert_eq!(r.snapshot(Some(Seat(0))).game_over, Some(over));
    assert!(r.legal_for(Some(winner)).is_empty());
    assert!(
        matches!(
            r.stage_action(Actor::Seat(winner), Action::EndTurn, None),
            Err(Refusal::Engine(ActionError::GameOver))
        ),
        "nothing is played after the end, refused as the engine would (protocol.md 18.1)"
    );
}

/// Options of a game nobody wins: target 20 and the lowest turn limit.
fn endless(o: &mut RoomOptions) {
    o.game.vp_target = 20;
    o.game.turn_limit = catan_engine::TURN_LIMIT_MIN;
}

#[test]
fn a_game_ended_by_the_turn_limit_finishes_the_room_as_a_win_does_with_no_winner() {
    // the last allowed turn ends without a winner; the room finishes exactly
    // as after a win: game_over to everyone with the seed and salt, the result to
    // store, no timers, nothing more to play.
    let (mut r, seats) = full_room(options(3, |o| {
        endless(o);
        o.turn_timer_secs = 60;
    }));
    start(&mut r);
    drain(&mut r);
    let mut bot = catan_bots::strategy(BotKind::Random);
    let mut rng = StdRng::seed_from_u64(5);
    let finish = (0..20_000)
        .find_map(|_| {
            let (seat, action) = next_move(&r, bot.as_mut(), &mut rng);
            // Only what the last action sends is left at the end.
            drain(&mut r);
            play(&mut r, seat, action)
        })
        .expect("every game ends");
    assert_eq!(finish.winner, None);
    assert_eq!(finish.finished_at, t0().unix_ms);
    assert_eq!(r.status(), RoomStatus::Finished);
    assert_eq!(r.next_deadline(), None, "no timers after the end");
    assert_eq!(r.metrics.games_finished(), 1);
    let Stage::Finished { game: m, .. } = &r.stage else {
        panic!("finished")
    };
    assert_eq!(
        m.game().turn(),
        100,
        "ended with turn 100, not before or after"
    );
    assert_eq!(finish.scores, m.game().final_scores());
    let sent = drain(&mut r);
    for (_, conn) in &seats {
        let msgs = sent.to(*conn);
        // The events of the last action end the game; then game_over, then the room.
        let ended = msgs.iter().any(|m| {
            matches!(m, ServerMessage::Events { events, .. }
                if events.contains(&Event::TurnLimitReached { turn: 100 }))
        });
        assert!(ended, "turn_limit_reached sent");
        let over = msgs
            .iter()
            .find_map(|m| match m {
                ServerMessage::GameOver(o) => Some(o.clone()),
                _ => None,
            })
            .expect("game_over");
        assert_eq!(over.winner, None);
        assert_eq!((over.seed.as_str(), over.seed_salt.as_str()), ("7", "salt"));
        assert_eq!(over.scores, finish.scores);
        assert_eq!(r.snapshot(Some(Seat(0))).game_over, Some(over));
        assert!(matches!(msgs.last(), Some(ServerMessage::Room { .. })));
    }
    for s in 0..3 {
        assert!(r.legal_for(Some(Seat(s))).is_empty());
        assert!(
            r.stage_action(Actor::Seat(Seat(s)), Action::EndTurn, None)
                .is_err()
        );
    }
    assert!(r.stage_timer(super::super::Timer::Phase(None)).is_err());
}

/// Plays a 3-VP game with heuristic bots, keeping what the store would hold: the new
/// game and every action record. Returns them with how many actions won it.
fn stored_game(
    tweak: impl FnOnce(&mut RoomOptions),
) -> (crate::store::GameRecord, Vec<crate::store::ActionRecord>) {
    stored_game_of(BotKind::Medium, |o| {
        o.game.vp_target = 3;
        tweak(o);
    })
}

/// Plays a 3-seat game of `kind` bots to its end, keeping what the store would hold.
fn stored_game_of(
    kind: BotKind,
    tweak: impl FnOnce(&mut RoomOptions),
) -> (crate::store::GameRecord, Vec<crate::store::ActionRecord>) {
    let (r, record, log) = played(options(3, tweak), kind, 5, 20_000);
    assert_eq!(
        r.status(),
        RoomStatus::Finished,
        "the game ends within 20000 actions"
    );
    (record, log)
}

/// A started 3-seat room of `opts` whose seats `kind` bots (seeded `seed`) play
/// until its end or `limit` actions: the room, its stored start and its log.
fn played(
    opts: RoomOptions,
    kind: BotKind,
    seed: u64,
    limit: usize,
) -> (
    Room,
    crate::store::GameRecord,
    Vec<crate::store::ActionRecord>,
) {
    let (mut r, _) = full_room(opts);
    let pending = r.prepare_start(HOST, 11, "salt".into()).expect("startable");
    let new = pending.record.clone();
    r.start(pending);
    let mut bot = catan_bots::strategy(kind);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut log = Vec::new();
    while r.status() == RoomStatus::Playing && log.len() < limit {
        let (seat, action) = next_move(&r, bot.as_mut(), &mut rng);
        let staged = r
            .stage_action(Actor::Seat(seat), action, None)
            .expect("legal");
        log.push(staged.record);
        r.commit(staged);
    }
    let record = crate::store::GameRecord {
        players: new.players.clone(),
        game: new,
        status: crate::store::GameStatus::Playing,
        finished: None,
        seq_reserved: None,
        slept_seq: None,
    };
    (r, record, log)
}

fn restore(
    record: crate::store::GameRecord,
    log: &[crate::store::ActionRecord],
) -> super::super::Restored {
    Room::restore(
        record,
        log,
        Arc::new(Config::for_tests().room_settings()),
        Arc::new(Metrics::default()),
        t0(),
        Deadlines::Restart,
    )
    .expect("the log replays")
}

#[test]
fn a_restored_log_plays_on_where_it_stopped() {
    let (record, log) = stored_game(|_| {});
    let cut = log.len() / 2;
    let restored = restore(record.clone(), &log[..cut]);
    let r = restored.room;
    assert_eq!(r.status(), RoomStatus::Playing);
    assert!(restored.finish.is_none());
    let last = log[cut - 1].room_seq;
    assert_eq!(
        r.seq(),
        last + SEQ_BLOCK + 1,
        "with no reservation stored, numbering goes on a block past the log"
    );
    // With one, past it (or past the log, if that is further).
    for (reserved, seq) in [(last + 40, last + 41), (last - 1, last + 1)] {
        let mut record = record.clone();
        record.seq_reserved = Some(reserved);
        assert_eq!(restore(record, &log[..cut]).room.seq(), seq, "{reserved}");
    }
    // The next stored action is accepted as the next one.
    let next = log[cut];
    let staged = r
        .stage_action(next.actor(), next.action, None)
        .expect("replays");
    assert_eq!(staged.record.seq, next.seq);
}

#[test]
fn a_restored_log_that_ends_in_a_win_is_finished_and_its_result_returned() {
    let (record, log) = stored_game(|o| o.turn_timer_secs = 30);
    let last = *log.last().expect("actions");
    let restored = restore(record, &log);
    let finish = restored.finish.expect("the result to store");
    assert_eq!(
        finish.finished_at, last.at,
        "finished when the winning action was"
    );
    assert!(
        restored.bots.is_empty(),
        "no bot is started for a finished game"
    );
    let r = restored.room;
    assert_eq!(r.status(), RoomStatus::Finished);
    assert_eq!(r.next_deadline(), None);
    let over = r.snapshot(None).game_over.expect("game_over in snapshots");
    assert_eq!((over.winner, over.seed.as_str()), (finish.winner, "11"));
    assert_eq!(
        over.seq,
        last.room_seq + SEQ_BLOCK + 2,
        "numbered after any number the previous run may have used"
    );
}

#[test]
fn a_restored_log_that_ends_at_the_turn_limit_is_finished_with_no_winner() {
    // the server stopped after storing the action that ended the last turn,
    // before the result: the restored room finishes as for a win, with no winner.
    let (record, log) = stored_game_of(BotKind::Random, endless);
    let last = *log.last().expect("actions");
    assert_eq!(last.action, Action::EndTurn);
    let restored = restore(record, &log);
    let finish = restored.finish.expect("the result to store");
    assert_eq!((finish.winner, finish.finished_at), (None, last.at));
    assert!(restored.bots.is_empty());
    let r = restored.room;
    assert_eq!(r.status(), RoomStatus::Finished);
    assert_eq!(r.next_deadline(), None);
    let over = r.snapshot(None).game_over.expect("game_over in snapshots");
    assert_eq!((over.winner, over.seed.as_str()), (None, "11"));
    assert_eq!(over.seq, last.room_seq + SEQ_BLOCK + 2);
}

#[test]
fn a_log_stored_past_the_turn_limit_before_it_existed_ends_at_the_limit() {
    // a game stored before the limit, read with the default, may have gone on
    // past it; restoring ends it where the limit falls, the rest of the log unused.
    let (mut record, log) = stored_game_of(BotKind::Random, |o| {
        endless(o);
        o.game.turn_limit = 130;
    });
    record.game.options.game.turn_limit = 100;
    let restored = restore(record, &log);
    let finish = restored.finish.expect("over at turn 100");
    assert_eq!(finish.winner, None);
    let r = restored.room;
    let Stage::Finished { game: m, over, .. } = &r.stage else {
        panic!("finished")
    };
    assert_eq!(m.game().turn(), 100);
    assert!(
        m.actions() < log.len() as u64,
        "the rest of the log is not played"
    );
    assert_eq!(
        finish.finished_at,
        log[m.actions() as usize - 1].at,
        "finished when the action that ended turn 100 was stored"
    );
    assert_eq!(
        over.seq,
        log.last().unwrap().room_seq + SEQ_BLOCK + 2,
        "numbered after everything the previous run may have announced"
    );
}

#[test]
fn a_restored_room_has_the_statistics_of_the_room_that_played_the_game() {
    let (r, record, log) = played(
        options(3, |o| o.game.vp_target = 3),
        BotKind::Medium,
        9,
        20_000,
    );
    let live = r.snapshot(None).game_over.expect("over").stats;
    assert_eq!(
        live.dice.iter().sum::<u32>(),
        u32::try_from(log.iter().filter(|a| a.action == Action::RollDice).count()).expect("few"),
        "every roll counted once"
    );
    // Restored whole, or from half the log with the rest adopted: the same numbers.
    let whole = restore(record.clone(), &log).room;
    assert_eq!(whole.snapshot(None).game_over.expect("over").stats, live);
    let cut = log.len() / 2;
    let mut half = restore(record, &log[..cut]).room;
    for a in &log[cut..] {
        half.adopt(a).expect("the log applies");
    }
    assert_eq!(half.snapshot(None).game_over.expect("over").stats, live);
}

#[test]
fn a_rematch_is_asked_for_after_the_game_by_its_people_and_made_once() {
    use crate::room::state::RematchPlan;
    let (mut r, seats) = full_room(options(3, |o| o.game.vp_target = 3));
    assert_eq!(r.rematch_plan(HOST), Err(LobbyError::GameNotFinished));
    start(&mut r);
    assert_eq!(
        r.rematch_plan(&seats[0].0),
        Err(LobbyError::GameNotFinished)
    );
    assert_eq!(r.rematch_plan("wrong"), Err(LobbyError::InvalidToken));
    let mut bot = catan_bots::strategy(BotKind::Medium);
    let mut rng = StdRng::seed_from_u64(5);
    while r.status() == RoomStatus::Playing {
        let (seat, action) = next_move(&r, bot.as_mut(), &mut rng);
        play(&mut r, seat, action);
    }
    drain(&mut r);
    // A seated person (or the host) may ask; every seat here is a person's.
    assert_eq!(
        r.rematch_plan(&seats[1].0),
        Ok(RematchPlan::New {
            options: r.options,
            bots: Vec::new()
        })
    );
    let id = Uuid::from_u128(9);
    r.rematch_made(id);
    let sent = drain(&mut r);
    for (_, conn) in &seats {
        assert!(
            sent.to(*conn)
                .iter()
                .any(|m| matches!(m, ServerMessage::Rematch { room_id, .. } if *room_id == id))
        );
    }
    assert_eq!(r.rematch_plan(HOST), Ok(RematchPlan::Exists(id)));
    assert_eq!(r.snapshot(None).rematch, Some(id));
}

#[test]
fn a_restored_room_gives_the_history_the_live_room_gave() {
    // protocol.md 5.1.5: the history is rebuilt from the game's log, so a room
    // restored from the store answers with the same events, numbered as broadcast.
    let (r, record, log) = played(options(3, |_| {}), BotKind::Medium, 5, 300);
    assert_eq!(
        r.status(),
        RoomStatus::Playing,
        "the game lasts 300 actions"
    );
    let restored = restore(record, &log).room;
    for seat in [Some(Seat(1)), None] {
        let live = r.history(seat);
        assert_eq!(live.actions.len(), 300);
        assert_eq!(restored.history(seat).actions, live.actions, "{seat:?}");
    }
}

#[test]
fn a_room_taken_over_keeps_its_deadlines_and_a_restarted_one_starts_them_afresh() {
    // Deadlines set by the log's actions, all stored at t0 (the room's clock).
    let opts = RoomOptions {
        turn_timer_secs: 60,
        trade_timeout_secs: 30,
        ..RoomOptions::default()
    };
    let (_, record, log) = played(opts, BotKind::Medium, 3, 40);
    let with = |deadlines, later| {
        Room::restore(
            record.clone(),
            &log,
            Arc::new(Config::for_tests().room_settings()),
            Arc::new(Metrics::default()),
            after(t0(), later),
            deadlines,
        )
        .expect("the log replays")
        .room
    };
    let t0_ms = t0().unix_ms;
    // Taken over 25 s later: the turn's minute ran on (it began at t0).
    let moved = with(Deadlines::Continue, 25);
    assert_eq!(moved.deadlines().deadline, Some(t0_ms + 60_000));
    for o in moved.deadlines().offers {
        assert_eq!(o.deadline, t0_ms + 30_000, "offer {o:?}");
    }
    // Restarted 25 s later: a full minute from the restart.
    let restarted = with(Deadlines::Restart, 25);
    assert_eq!(restarted.deadlines().deadline, Some(t0_ms + 85_000));
    // Taken over after the minute: the turn's deadline is due at once.
    let late = with(Deadlines::Continue, 100);
    let due = late.next_deadline().expect("a deadline");
    assert!(due <= after(t0(), 100).at);
}

#[test]
fn a_game_over_days_restored_has_the_clocks_it_had_and_a_passed_deadline_fires_at_once() {
    // Protocol 27.2: the clocks are a fold over the stored log, whichever way the
    // room comes back; a move whose hour ran out meanwhile is a bot's at once.
    let days = catan_protocol::DaysOptions {
        move_hours: 1,
        discard_hours: 1,
        bank_hours: 0,
        bank_add_mins: 0,
        bank_cap_hours: 0,
        vacation_days: 0,
    };
    let opts = RoomOptions {
        days: Some(days),
        ..RoomOptions::default()
    };
    let (live, record, log) = played(opts, BotKind::Medium, 3, 40);
    let clocks = live.deadlines().clocks;
    assert_eq!(clocks.len(), 4);
    let mover = clocks
        .iter()
        .find(|c| c.deadline.is_some())
        .expect("a move");
    assert_eq!(mover.deadline, Some(t0().unix_ms + 3_600_000));
    for (deadlines, later) in [(Deadlines::Restart, 30 * 3600), (Deadlines::Continue, 60)] {
        let mut back = Room::restore(
            record.clone(),
            &log,
            Arc::new(Config::for_tests().room_settings()),
            Arc::new(Metrics::default()),
            after(t0(), later),
            deadlines,
        )
        .expect("the log replays")
        .room;
        assert_eq!(back.deadlines().clocks, clocks, "{deadlines:?}");
        back.follow_stand_ins();
        let due = back.next_deadline().expect("the move's deadline");
        if later > 3600 {
            assert!(due <= after(t0(), later).at, "due at once");
            assert_eq!(
                back.take_due(),
                vec![crate::room::state::Timer::StandIn(mover.seat)]
            );
        } else {
            assert_eq!(due, after(t0(), 3600).at, "due at its hour");
        }
    }
}
