//! One WebSocket connection: reads client messages (size check, rate limit, parsing)
//! and writes what its room queues for it. Generic over `Sink`/`Stream`, so tests can
//! drive it with channels.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::time::Instant;
use tracing::debug;

use crate::protocol::{ClientMessage, ServerMessage, close};
use crate::room::{Connected, Outbound, RoomHandle};

/// Limits applied to one connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Largest text message accepted, in bytes.
    pub max_message_bytes: usize,
    /// Average messages per second allowed; the bucket holds twice that.
    pub rate_per_sec: u32,
}

/// How many refused-for-rate messages a connection may send before it is closed.
const MAX_RATE_STRIKES: u32 = 50;

/// A token bucket: `rate` tokens per second, up to `burst`.
struct Bucket {
    tokens: f64,
    burst: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: u32) -> Bucket {
        let rate = f64::from(rate.max(1));
        Bucket {
            tokens: rate * 2.0,
            burst: rate * 2.0,
            rate,
            last: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn error_text(code: &str, message: &str) -> Message {
    let msg = ServerMessage::Error {
        code: code.to_owned(),
        message: message.to_owned(),
    };
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(&msg).expect("server messages serialize"),
    ))
}

/// Parses one client text frame, or says precisely what is wrong with it.
///
/// # Errors
/// `(code, message)`: `malformed_json`, `unknown_message_type` or `invalid_message`.
pub fn parse_client_message(text: &str) -> Result<ClientMessage, (&'static str, String)> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ("malformed_json", format!("not valid JSON: {e}")))?;
    let kind = value
        .get("type")
        .and_then(serde_json::Value::as_str)
        .ok_or((
            "invalid_message",
            "a message needs a string field \"type\"".to_owned(),
        ))?;
    if !matches!(kind, "action" | "chat" | "ping" | "sync") {
        return Err((
            "unknown_message_type",
            format!("unknown message type {kind:?}; expected action, chat, ping or sync"),
        ));
    }
    serde_json::from_value(value).map_err(|e| ("invalid_message", e.to_string()))
}

/// Serves one attached connection until either side closes it.
pub async fn serve<S>(
    socket: S,
    room: RoomHandle,
    mut conn: Connected,
    limits: ConnLimits,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    let mut bucket = Bucket::new(limits.rate_per_sec);
    let mut strikes = 0u32;
    let close_code: Option<(u16, &str)> = loop {
        tokio::select! {
            () = shutting_down(&mut shutdown) => break Some((close::GOING_AWAY, "server shutting down")),
            out = conn.rx.recv() => match out {
                Some(Outbound::Text(text)) => {
                    if sink.send(Message::Text(text)).await.is_err() {
                        break None;
                    }
                }
                None => {
                    // A room ends its connections when it closes, and when the server
                    // shuts down: then the close says so.
                    let code = if *shutdown.borrow() {
                        close::GOING_AWAY
                    } else {
                        conn.shared.close_code().unwrap_or(close::ROOM_CLOSED)
                    };
                    break Some((code, close_reason(code)));
                }
            },
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        if sink.send(error_text("binary_not_supported", "send JSON text messages")).await.is_err() {
                            break None;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => break None,
                    Some(Ok(_)) => continue, // ping/pong are answered by the library
                };
                if !bucket.take() {
                    strikes += 1;
                    if strikes > MAX_RATE_STRIKES {
                        break Some((close::RATE_LIMITED, "message flood"));
                    }
                    if sink.send(error_text("rate_limited", "too many messages; slow down")).await.is_err() {
                        break None;
                    }
                    continue;
                }
                if text.len() > limits.max_message_bytes {
                    let m = format!("messages are at most {} bytes", limits.max_message_bytes);
                    if sink.send(error_text("message_too_large", &m)).await.is_err() {
                        break None;
                    }
                    continue;
                }
                match parse_client_message(&text) {
                    Ok(msg) => {
                        if !room.client_message(conn.conn, msg).await {
                            break Some((close::ROOM_CLOSED, "room closed"));
                        }
                    }
                    Err((code, message)) => {
                        if sink.send(error_text(code, &message)).await.is_err() {
                            break None;
                        }
                    }
                }
            }
        }
    };
    if let Some((code, reason)) = close_code {
        debug!(code, reason, "closing connection");
        if code == close::GOING_AWAY {
            // Rooms announce their own closes (admin close, kick) through the queue;
            // a shutdown is announced here.
            let msg = ServerMessage::Closing {
                code: "shutting_down".to_owned(),
                message: "the server is shutting down; reconnect shortly".to_owned(),
            };
            let text = serde_json::to_string(&msg).expect("server messages serialize");
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                sink.send(Message::Text(Utf8Bytes::from(text))),
            )
            .await;
        }
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            sink.send(Message::Close(Some(frame))),
        )
        .await;
        // Finish the closing handshake: read (and ignore) until the client's close,
        // so the client sees our close frame rather than a reset connection.
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(Ok(m)) = stream.next().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    room.disconnect(conn.conn).await;
}

/// Completes when the server begins to shut down (or the signal is gone).
async fn shutting_down(rx: &mut tokio::sync::watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn close_reason(code: u16) -> &'static str {
    match code {
        close::GOING_AWAY => "server shutting down",
        close::REPLACED => "another connection took this seat",
        close::RATE_LIMITED => "message flood",
        close::TOO_SLOW => "too slow to read messages",
        close::KICKED => "disconnected by an administrator",
        _ => "room closed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_unknown_types_and_missing_fields_get_distinct_codes() {
        assert_eq!(
            parse_client_message("{nope").unwrap_err().0,
            "malformed_json"
        );
        assert_eq!(
            parse_client_message(r#"{"type":"dance"}"#).unwrap_err().0,
            "unknown_message_type"
        );
        assert_eq!(
            parse_client_message(r#"{"type":"action","request_id":"1"}"#)
                .unwrap_err()
                .0,
            "invalid_message"
        );
        assert_eq!(
            parse_client_message(r#"[1,2]"#).unwrap_err().0,
            "invalid_message"
        );
        assert!(
            parse_client_message(
                r#"{"type":"action","request_id":"1","action":{"type":"roll_dice"}}"#
            )
            .is_ok()
        );
    }
}
