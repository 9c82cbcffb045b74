//! Games over days on tokio's paused clock (protocol 27): a move's time, then its
//! bank, then whole vacation days; then a bot makes the move, and after three
//! time-outs it plays the seat for good. Nobody connected for hours abandons
//! nothing, and no stand-in comes for an absence alone.

use std::sync::Arc;
use std::time::Duration;

use catan_engine::Seat;
use tokio::time::Instant;

use super::{
    Connected, Outbound, RoomHandle, Switchable, context, first_mover, recv_until, started_in,
};
use catan_protocol::{DAYS_TIME_OUTS_REPLACED, DaysOptions, RoomOptions, ServerMessage};

const HOUR: Duration = Duration::from_secs(3600);

/// A started room of three people playing over days with `days`.
async fn over_days(days: DaysOptions) -> (RoomHandle, Vec<Connected>, Vec<String>) {
    let ctx = context(Arc::new(Switchable::default()));
    let bots = crate::bot::Bots::new(crate::Config::for_tests().bots.settings());
    let mut ctx = ctx;
    ctx.bots = Arc::new(bots.thinking(Duration::ZERO));
    started_in(ctx, |o: &mut RoomOptions| o.days = Some(days)).await
}

/// An hour a move, and nothing else.
fn bare() -> DaysOptions {
    DaysOptions {
        move_hours: 1,
        discard_hours: 1,
        bank_hours: 0,
        bank_add_mins: 0,
        bank_cap_hours: 0,
        vacation_days: 0,
    }
}

fn stand_in_of(m: &ServerMessage) -> Option<(Seat, bool)> {
    match m {
        ServerMessage::StandIn { seat, active, .. } => Some((*seat, *active)),
        _ => None,
    }
}

/// Everything queued for `c` now, without waiting.
fn queued(c: &mut Connected) -> Vec<ServerMessage> {
    let mut out = Vec::new();
    while let Ok(o) = c.rx.try_recv() {
        if let Outbound::Message(m) = o {
            out.push((*m).clone());
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn a_move_times_out_after_its_time_bank_and_vacation_and_a_bot_makes_it() {
    // 1 h of move, 2 h of bank, one vacation day: 27 h in all.
    let days = DaysOptions {
        bank_hours: 2,
        bank_cap_hours: 2,
        vacation_days: 1,
        ..bare()
    };
    let (room, mut conns, _) = over_days(days).await;
    let begun = Instant::now();
    let (i, _) = first_mover(&mut conns).await;
    let me = Seat(u8::try_from(i).unwrap());
    let watcher = (i + 1) % 3;
    let info = room.info().await.expect("room");
    assert_eq!(info.options.days, Some(days));
    // The person stays connected and does nothing; others are away: no stand-in
    // comes for an absence, nor is the game abandoned after an hour of it.
    room.disconnect(conns[watcher].conn).await;
    let other = (i + 2) % 3;
    let m = recv_until(&mut conns[other], |m| stand_in_of(m).is_some()).await;
    assert_eq!(stand_in_of(&m), Some((me, true)));
    assert_eq!(
        begun.elapsed(),
        27 * HOUR,
        "the bot came after the move, bank and vacation"
    );
    // The bot makes the seat's move, then stops; its clock shows the time-out.
    let m = recv_until(&mut conns[other], |m| stand_in_of(m).is_some()).await;
    assert_eq!(stand_in_of(&m), Some((me, false)));
    let ServerMessage::Events {
        clocks, deadline, ..
    } = recv_until(&mut conns[other], |m| {
        matches!(m, ServerMessage::Events { .. })
    })
    .await
    else {
        unreachable!()
    };
    let mine = clocks[me.index()];
    assert_eq!(
        (mine.time_outs, mine.bank_ms, mine.vacation_days),
        (1, 0, 0)
    );
    assert!(!mine.replaced && mine.deadline.is_none());
    // The next seat's move is due 27 h from when it began.
    let next = clocks
        .iter()
        .find(|c| c.deadline.is_some())
        .expect("a move is due");
    assert_eq!(deadline, next.deadline);
    assert_eq!(next.bank_ms, 2 * 3_600_000);
}

#[tokio::test(start_paused = true)]
async fn after_three_time_outs_a_bot_plays_the_seat_at_once_until_the_end() {
    // Nobody moves: every seat times out thrice (an hour each), then bots play
    // every seat at once to the end; nobody being connected abandons nothing.
    let (room, mut conns, _) = over_days(bare()).await;
    let begun = Instant::now();
    first_mover(&mut conns).await;
    let watcher = conns.pop().expect("a connection");
    for c in &conns {
        room.disconnect(c.conn).await;
    }
    let mut watcher = watcher;
    let over = recv_until(&mut watcher, |m| matches!(m, ServerMessage::GameOver(_))).await;
    assert!(matches!(over, ServerMessage::GameOver(_)));
    let took = begun.elapsed();
    // Each seat's first three moves waited their hour; nothing waited after (the
    // bots' own pacing takes seconds of the whole game).
    assert!(
        took >= 9 * HOUR && took < 9 * HOUR + Duration::from_secs(120),
        "the game took {took:?}"
    );
    let _ = queued(&mut watcher);
    let info = room.info().await.expect("the room is not abandoned");
    assert_eq!(info.status, catan_protocol::RoomStatus::Finished);
}

#[tokio::test(start_paused = true)]
async fn a_replaced_seat_shows_in_the_clocks() {
    let (_room, mut conns, _) = over_days(bare()).await;
    first_mover(&mut conns).await;
    let mut seen = None;
    while seen.is_none() {
        if let ServerMessage::Events { clocks, .. } =
            recv_until(&mut conns[0], |m| matches!(m, ServerMessage::Events { .. })).await
        {
            seen = clocks.into_iter().find(|c| c.replaced);
        }
    }
    let c = seen.expect("a replaced seat");
    assert!(c.time_outs >= DAYS_TIME_OUTS_REPLACED);
}
