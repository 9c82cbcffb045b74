//! One room slot: sets rooms up over HTTP (create, take the 4 seats, open their
//! WebSockets, start), then plays each game to its end as 4 well-behaved random
//! clients on one task, or in idle mode holds the sockets open until the window ends.

use std::time::{Duration, Instant};

use catan_bots::{RandomBot, SeatDriver};
use catan_protocol::{ClientMessage, GameOverInfo, ServerMessage};
use futures_util::stream::{SplitSink, select_all};
use futures_util::{FutureExt, SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;
use uuid::Uuid;

use super::misbehave::{Misbehaviour, misbehave};
use super::report::SlotStats;
use super::{LoadConfig, SEATS, Starting, Window};
use crate::lobby::Lobby;
use crate::seat::{self, Ws};
use crate::target::Target;

/// A room with its 4 seats taken and connected (and the host token to start it).
struct ReadyRoom {
    id: Uuid,
    host: String,
    sockets: Vec<Ws>,
}

/// Creates a room, takes its 4 seats over HTTP and (if `connect`) opens their
/// WebSockets; at most `setup_concurrency` rooms at a time. In idle mode no bot
/// stands in for the seats: the rooms whose seats are not connected (beyond the
/// open-file limit) would otherwise be played by stand-ins from a minute after
/// their start (5,512 rooms played 11,024 moves in a 10,000-room idle run), and
/// the figure would no longer be that of rooms waiting.
async fn set_up(
    config: &LoadConfig,
    (lobby, sockets_at): (&Lobby, &Target),
    setup: &Semaphore,
    connect: bool,
) -> Result<ReadyRoom, String> {
    let _permit = setup.acquire().await.map_err(|e| e.to_string())?;
    let created = lobby
        .create_room(SEATS as u8, config.vp_target, config.idle.then_some(0))
        .await
        .map_err(|e| e.to_string())?;
    let mut tokens = Vec::with_capacity(SEATS);
    for i in 0..SEATS {
        let seat = lobby
            .take_seat(created.room_id, &format!("load{i}"))
            .await
            .map_err(|e| e.to_string())?;
        tokens.push(seat.token);
    }
    let mut sockets = Vec::with_capacity(SEATS);
    if connect {
        for t in &tokens {
            sockets.push(
                seat::connect(sockets_at, created.room_id, t)
                    .await
                    .map_err(|e| e.to_string())?,
            );
        }
    }
    Ok(ReadyRoom {
        id: created.room_id,
        host: created.host_token,
        sockets,
    })
}

/// Holds a set-up, started room until the window ends, reading whatever comes.
pub(super) async fn idle_slot(
    config: &LoadConfig,
    at: (&Lobby, &Target),
    setup: &Semaphore,
    starting: &Starting,
    connect: bool,
    stats: &mut SlotStats,
) {
    let room = match set_up(config, at, setup, connect).await {
        Ok(r) => r,
        Err(e) => {
            starting.arrive().await;
            return stats.error(e);
        }
    };
    if let Err(e) = at.0.start(room.id, &room.host).await {
        starting.arrive().await;
        return stats.error(e.to_string());
    }
    stats.connected = room.sockets.len();
    let mut merged = select_all(room.sockets.into_iter().map(|ws| ws.map(|m| m.map(|_| ()))));
    // Read from the start, while the other slots are still setting up (thousands of
    // rooms take a while), so that the server's pings are answered.
    let end = async {
        let window = starting.arrive().await;
        tokio::time::sleep_until(window.end.into()).await;
    };
    tokio::pin!(end);
    loop {
        tokio::select! {
            () = &mut end => break,
            m = merged.next(), if connect => match m {
                Some(Ok(())) => {}
                Some(Err(e)) => { stats.dropped += 1; stats.error(format!("idle socket: {e}")); break; }
                None => { stats.dropped += 1; stats.error("idle socket closed"); break; }
            },
        }
    }
}

/// The window, once this slot's first setup is done (`window` holds it after).
async fn window_after_setup(window: &mut Option<Window>, starting: &Starting) -> Window {
    match *window {
        Some(w) => w,
        None => *window.insert(starting.arrive().await),
    }
}

/// Plays games in one room slot until the window ends. The first game waits, once
/// started, until every slot has started its first (the window opens a warm-up
/// after that).
pub(super) async fn play_slot(
    config: &LoadConfig,
    at: (&Lobby, &Target),
    setup: &Semaphore,
    starting: &Starting,
    slot: usize,
    stats: &mut SlotStats,
) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(
        config.seed ^ (slot as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    );
    let mut known = None;
    while known.is_none_or(|w: Window| Instant::now() < w.end) {
        let room = match set_up(config, at, setup, true).await {
            Ok(r) => r,
            Err(e) => {
                stats.error(e);
                window_after_setup(&mut known, starting).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        stats.connected = SEATS;
        let first = known.is_none();
        let started = at.0.start(room.id, &room.host).await;
        let window = window_after_setup(&mut known, starting).await;
        if let Err(e) = started {
            stats.error(e.to_string());
            continue;
        }
        if first && !config.think.is_zero() {
            // The rooms all start at once: each begins at its own point of a think
            // time, as rooms that started at different times would, instead of all
            // acting in step.
            let offset = rng.random_range(Duration::ZERO..config.think);
            tokio::time::sleep(offset).await;
        }
        let misbehaving = config.misbehave.then(|| {
            let task = misbehave(
                config.slot_target(slot, true),
                room.id,
                Misbehaviour::for_slot(slot),
                stats.misbehaviour.clone(),
            );
            match &config.misbehave_runtime {
                Some(runtime) => runtime.spawn(task),
                None => tokio::spawn(task),
            }
        });
        let go_on = play_game(config, window, room.sockets, &mut rng, stats).await;
        if let Some(task) = misbehaving {
            task.abort();
        }
        if !go_on {
            return;
        }
    }
}

/// One seat of a room being played.
struct SeatState {
    sink: SplitSink<Ws, Message>,
    driver: SeatDriver,
    /// Request id and send time of the action in flight.
    pending: Option<(String, Instant)>,
    /// When this seat acts next (after its think time).
    due: Option<Instant>,
    over: bool,
}

/// Plays one game on 4 sockets. Returns false when the slot should stop (the window
/// ended or the room failed beyond use).
#[allow(clippy::too_many_lines)]
async fn play_game(
    config: &LoadConfig,
    window: Window,
    sockets: Vec<Ws>,
    rng: &mut rand::rngs::StdRng,
    stats: &mut SlotStats,
) -> bool {
    let mut seats = Vec::with_capacity(SEATS);
    let mut streams = Vec::with_capacity(SEATS);
    for (i, ws) in sockets.into_iter().enumerate() {
        let (sink, stream) = ws.split();
        seats.push(SeatState {
            sink,
            driver: SeatDriver::new(),
            pending: None,
            due: None,
            over: false,
        });
        streams.push(stream.map(move |m| (i, m)));
    }
    let mut merged = select_all(streams);
    let far = Instant::now() + Duration::from_secs(3600);
    let mut stopping = false;
    let result = 'game: loop {
        // When the next thing happens without a message: a seat's think time ends,
        // an acknowledgement is overdue, or the window closes.
        let now = Instant::now();
        if !stopping && now >= window.end {
            stopping = true;
            for s in &mut seats {
                s.due = None;
            }
        }
        if stopping && seats.iter().all(|s| s.pending.is_none()) {
            break 'game false;
        }
        let mut wake = if stopping { far } else { window.end };
        for s in &seats {
            if let Some(d) = s.due {
                wake = wake.min(d);
            }
            if let Some((_, at)) = &s.pending {
                wake = wake.min(*at + config.action_timeout);
            }
        }
        let first = tokio::select! {
            m = merged.next() => Some(m),
            () = tokio::time::sleep_until(wake.into()) => None,
        };
        let mut batch = Vec::new();
        if let Some(m) = first {
            batch.push(m);
            // Take in everything already received before acting, so each seat acts
            // on its newest legal list.
            while let Some(m) = merged.next().now_or_never() {
                batch.push(m);
            }
        }
        for m in batch {
            let Some((i, m)) = m else {
                if !seats.iter().all(|s| s.over) {
                    stats.dropped += 1;
                    stats.error("all sockets closed before the end of the game");
                }
                break 'game !stopping;
            };
            let text = match m {
                Ok(Message::Text(t)) => t,
                Ok(Message::Close(frame)) => {
                    if !seats[i].over {
                        stats.dropped += 1;
                        stats.error(format!("seat {i} closed by the server: {frame:?}"));
                        break 'game !stopping;
                    }
                    continue;
                }
                Ok(_) => continue,
                Err(e) => {
                    stats.dropped += 1;
                    stats.error(format!("seat {i}: {e}"));
                    break 'game !stopping;
                }
            };
            let msg: ServerMessage = match serde_json::from_str(&text) {
                Ok(m) => m,
                Err(e) => {
                    stats.error(format!("unparsable message: {e}"));
                    continue;
                }
            };
            let now = Instant::now();
            let seat = &mut seats[i];
            let pending = seat.pending.as_ref().map(|(id, _)| id.as_str());
            match &msg {
                ServerMessage::Events {
                    request_id: Some(id),
                    ..
                } if Some(id.as_str()) == pending => {
                    let (_, sent) = seat.pending.take().expect("pending");
                    stats.actions_total += 1;
                    if window.contains(now) {
                        stats.actions += 1;
                        let us = u64::try_from((now - sent).as_micros()).unwrap_or(u64::MAX);
                        stats.hist.saturating_record(us.max(1));
                    }
                }
                ServerMessage::Rejected { request_id, .. }
                    if Some(request_id.as_str()) == pending =>
                {
                    seat.pending = None;
                    stats.rejected += 1;
                    if stats.samples.len() < 2 {
                        stats.samples.push(format!("rejected: {text}"));
                    }
                }
                ServerMessage::Error { .. } => stats.error(format!("server error message: {text}")),
                ServerMessage::GameOver(GameOverInfo { winner, scores, .. }) => {
                    seat.over = true;
                    if i == 0 {
                        stats.games_total += 1;
                        if window.contains(now) {
                            stats.games += 1;
                        }
                        // A winner must be at the target; no winner (the turn limit,
                        // ) is a result too.
                        if winner.is_some_and(|w| {
                            !scores
                                .iter()
                                .any(|s| s.seat == w && s.points >= config.vp_target)
                        }) {
                            stats.bad_results += 1;
                        }
                    }
                }
                _ => {}
            }
            seat.driver.observe(&msg);
            if !stopping && seat.driver.ready() && seat.due.is_none() {
                seat.due = Some(now + config.think);
            }
        }
        if seats.iter().all(|s| s.over) {
            break 'game true;
        }
        let now = Instant::now();
        for (i, seat) in seats.iter_mut().enumerate() {
            if let Some((_, at)) = &seat.pending
                && now >= *at + config.action_timeout
            {
                stats.stalled += 1;
                stats.error(format!(
                    "seat {i}: no acknowledgement within {:?}",
                    config.action_timeout
                ));
                break 'game !stopping;
            }
            if seat.due.is_some_and(|d| d <= now) {
                seat.due = None;
                if stopping || !seat.driver.ready() {
                    continue;
                }
                let Some(msg) = seat.driver.decide(&mut RandomBot::new(), rng) else {
                    continue;
                };
                let ClientMessage::Action { request_id, .. } = &msg else {
                    // A `sync` after a refusal: its answer is a snapshot, not an ack.
                    let text = serde_json::to_string(&msg).expect("client messages serialize");
                    if let Err(e) = seat.sink.send(Message::Text(text.into())).await {
                        stats.dropped += 1;
                        stats.error(format!("seat {i}: send: {e}"));
                        break 'game !stopping;
                    }
                    continue;
                };
                seat.pending = Some((request_id.clone(), Instant::now()));
                let text = serde_json::to_string(&msg).expect("client messages serialize");
                if let Err(e) = seat.sink.send(Message::Text(text.into())).await {
                    stats.dropped += 1;
                    stats.error(format!("seat {i}: send: {e}"));
                    break 'game !stopping;
                }
            }
        }
    };
    for mut s in seats {
        let _ = s.sink.close().await;
    }
    result
}
