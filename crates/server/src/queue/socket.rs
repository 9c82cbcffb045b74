//! The queue over a WebSocket (`GET /api/queue/ws`; docs/protocol/26-quick-play.md,
//! 26.5): the signed-in player joins and leaves with messages, and the server sends
//! their status when they connect, after each message, and whenever anything but
//! the time waited changes (it looks every [`LOOK_EVERY`]), so that a client
//! waits without polling and hears of its seat within a second.

use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use catan_protocol::{CloseCode, LobbyError, QueueClientMessage, QueueServerMessage};
use futures_util::{SinkExt, StreamExt};
use tracing::debug;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{ClientIp, Open};
use crate::players::Session;
use crate::players::api::Me;

/// How often the server looks at the player's place in the queue.
pub const LOOK_EVERY: Duration = Duration::from_secs(1);

/// How often the server pings a socket that has heard nothing else (so that
/// proxies keep it open).
const PING_EVERY: Duration = Duration::from_secs(25);

/// Largest message a client may send on this socket (a join is ~50 bytes).
const MAX_MESSAGE: usize = 1024;

/// Refused messages a client may send before it is closed with 4008.
const MAX_STRIKES: u32 = 20;

/// `GET /api/queue/ws`: the signed-in player's queue as a socket.
pub async fn websocket(
    State(state): State<AppState>,
    _: Open,
    ip: ClientIp,
    Me(me): Me,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    state.websocket_limiter.check(ip.0)?;
    let slot = state.sockets.open(ip.0)?;
    let tasks = state.tasks.clone();
    let counted = state.metrics.connection();
    let limiter = state.websocket_limiter.clone();
    let cool_down = Duration::from_secs(state.config.limits.websocket_cool_down_secs);
    Ok(upgrade
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| {
            tasks.track_future(async move {
                let _counted = (counted, slot);
                // A flooder is refused new sockets for a while, as on a room's.
                if serve(&state, &me, socket).await == Some(CloseCode::RateLimited) {
                    limiter.cool_down(ip.0, cool_down);
                }
            })
        }))
}

/// The player's status as a message: `None` when the store could not say.
async fn look(state: &AppState, me: &Session) -> Option<QueueServerMessage> {
    match state.queue.status(me).await {
        Ok(s) => Some(QueueServerMessage::Status(s)),
        Err(LobbyError::NotQueued) => Some(QueueServerMessage::NotQueued),
        Err(e) => {
            debug!(error = %e, "the queue's status could not be read");
            None
        }
    }
}

/// Whether `a` and `b` differ in more than the time waited.
fn changed(a: Option<&QueueServerMessage>, b: &QueueServerMessage) -> bool {
    match (a, b) {
        (Some(QueueServerMessage::Status(x)), QueueServerMessage::Status(y)) => {
            x.seats != y.seats
                || x.rated != y.rated
                || x.bots != y.bots
                || x.since != y.since
                || x.position != y.position
                || x.seated != y.seated
        }
        (Some(a), b) => a != b,
        (None, _) => true,
    }
}

fn refusal(e: &LobbyError) -> QueueServerMessage {
    QueueServerMessage::Error {
        code: e.code().to_owned(),
        message: e.to_string(),
    }
}

/// What one text message from the client does: the refusal to send, if any.
async fn handle(state: &AppState, me: &Session, text: &str) -> Option<LobbyError> {
    let msg = match serde_json::from_str::<QueueClientMessage>(text) {
        Ok(m) => m,
        Err(e) => return Some(LobbyError::BadRequest(format!("invalid message: {e}"))),
    };
    let done = match msg {
        QueueClientMessage::Join(req) => state.queue.join(me, &req).await.map(|_| ()),
        QueueClientMessage::Leave => state.queue.leave(me).await,
    };
    done.err()
}

async fn send(
    socket: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    msg: &QueueServerMessage,
) -> bool {
    let text = serde_json::to_string(msg).expect("queue messages serialize");
    socket.send(Message::Text(text.into())).await.is_ok()
}

/// Serves one socket until the client closes it, the server shuts down, or the
/// client sends too many refused messages: the close code the server chose.
async fn serve(state: &AppState, me: &Session, socket: WebSocket) -> Option<CloseCode> {
    let (mut tx, mut rx) = socket.split();
    let mut last: Option<QueueServerMessage> = None;
    let mut strikes = 0;
    let mut looks = tokio::time::interval(LOOK_EVERY);
    looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
    let close = loop {
        let force = tokio::select! {
            () = state.shutdown.cancelled() => break Some(CloseCode::GoingAway),
            _ = looks.tick() => false,
            _ = pings.tick() => {
                if tx.send(Message::Ping(Vec::new().into())).await.is_err() {
                    break None;
                }
                continue;
            }
            msg = rx.next() => match msg {
                None | Some(Err(_) | Ok(Message::Close(_))) => break None,
                Some(Ok(Message::Text(text))) => {
                    if let Some(e) = handle(state, me, text.as_str()).await {
                        strikes += 1;
                        if !send(&mut tx, &refusal(&e)).await {
                            break None;
                        }
                        if strikes > MAX_STRIKES {
                            break Some(CloseCode::RateLimited);
                        }
                    }
                    true
                }
                Some(Ok(Message::Binary(_))) => {
                    strikes += 1;
                    let e = LobbyError::BadRequest("send text messages (JSON)".into());
                    if !send(&mut tx, &refusal(&e)).await || strikes > MAX_STRIKES {
                        break Some(CloseCode::RateLimited);
                    }
                    continue;
                }
                Some(Ok(_)) => continue, // pings and pongs
            },
        };
        let Some(now) = look(state, me).await else {
            continue;
        };
        if force || changed(last.as_ref(), &now) {
            if !send(&mut tx, &now).await {
                break None;
            }
            last = Some(now);
        }
    };
    if let Some(code) = close {
        let frame = CloseFrame {
            code: code.code(),
            reason: "".into(),
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), tx.send(Message::Close(Some(frame))))
            .await;
    }
    close
}
