//! One WebSocket connection: reads client messages (size check, rate limit, parsing)
//! and writes what its room queues for it. Generic over `Sink`/`Stream`, so tests can
//! drive it with channels.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::time::Instant;
use tracing::debug;

use crate::room::{Connected, Outbound, RoomHandle};
use catan_protocol::{ClientMessage, CloseCode, ClosingReason, ErrorCode, ServerMessage};

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

fn error_text(code: ErrorCode, message: &str) -> Message {
    let msg = ServerMessage::error(code, message);
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(&msg).expect("server messages serialize"),
    ))
}

/// Parses one client text frame, or says precisely what is wrong with it.
///
/// # Errors
/// `(code, message)`: `malformed_json`, `unknown_message_type` or `invalid_message`.
pub fn parse_client_message(text: &str) -> Result<ClientMessage, (ErrorCode, String)> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| (ErrorCode::MalformedJson, format!("not valid JSON: {e}")))?;
    let kind = value
        .get("type")
        .and_then(serde_json::Value::as_str)
        .ok_or((
            ErrorCode::InvalidMessage,
            "a message needs a string field \"type\"".to_owned(),
        ))?;
    if !ClientMessage::TYPES.contains(&kind) {
        return Err((
            ErrorCode::UnknownMessageType,
            format!(
                "unknown message type {kind:?}; expected one of {}",
                ClientMessage::TYPES.join(", ")
            ),
        ));
    }
    serde_json::from_value(value).map_err(|e| (ErrorCode::InvalidMessage, e.to_string()))
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
    let close_code: Option<CloseCode> = loop {
        tokio::select! {
            () = shutting_down(&mut shutdown) => break Some(CloseCode::GoingAway),
            out = conn.rx.recv() => match out {
                Some(out) => {
                    let text = match out {
                        Outbound::Text(text) => text,
                        // Rooms send typed messages only to clients in the process.
                        Outbound::Message(msg) => Utf8Bytes::from(
                            serde_json::to_string(&*msg).expect("server messages serialize"),
                        ),
                    };
                    if sink.send(Message::Text(text)).await.is_err() {
                        break None;
                    }
                }
                None => {
                    // A room ends its connections when it closes, and when the server
                    // shuts down: then the close says so.
                    let code = if *shutdown.borrow() {
                        CloseCode::GoingAway
                    } else {
                        conn.shared.close_code().unwrap_or(CloseCode::RoomClosed)
                    };
                    break Some(code);
                }
            },
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        if sink.send(error_text(ErrorCode::BinaryNotSupported, "send JSON text messages")).await.is_err() {
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
                        break Some(CloseCode::RateLimited);
                    }
                    if sink.send(error_text(ErrorCode::RateLimited, "too many messages; slow down")).await.is_err() {
                        break None;
                    }
                    continue;
                }
                if text.len() > limits.max_message_bytes {
                    let m = format!("messages are at most {} bytes", limits.max_message_bytes);
                    if sink.send(error_text(ErrorCode::MessageTooLarge, &m)).await.is_err() {
                        break None;
                    }
                    continue;
                }
                match parse_client_message(&text) {
                    Ok(msg) => {
                        if !room.client_message(conn.conn, msg).await {
                            break Some(CloseCode::RoomClosed);
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
    if let Some(code) = close_code {
        debug!(
            code = code.code(),
            reason = code.reason(),
            "closing connection"
        );
        if code == CloseCode::GoingAway {
            // Rooms announce their own closes (admin close, kick) through the queue;
            // a shutdown is announced here.
            let msg = ServerMessage::closing(
                ClosingReason::ShuttingDown,
                "the server is shutting down; reconnect shortly",
            );
            let text = serde_json::to_string(&msg).expect("server messages serialize");
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                sink.send(Message::Text(Utf8Bytes::from(text))),
            )
            .await;
        }
        let frame = CloseFrame {
            code: code.code(),
            reason: Utf8Bytes::from_static(code.reason()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_unknown_types_and_missing_fields_get_distinct_codes() {
        assert_eq!(
            parse_client_message("{nope").unwrap_err().0,
            ErrorCode::MalformedJson
        );
        assert_eq!(
            parse_client_message(r#"{"type":"dance"}"#).unwrap_err().0,
            ErrorCode::UnknownMessageType
        );
        assert_eq!(
            parse_client_message(r#"{"type":"action","request_id":"1"}"#)
                .unwrap_err()
                .0,
            ErrorCode::InvalidMessage
        );
        assert_eq!(
            parse_client_message(r#"[1,2]"#).unwrap_err().0,
            ErrorCode::InvalidMessage
        );
        assert!(
            parse_client_message(
                r#"{"type":"action","request_id":"1","action":{"type":"roll_dice"}}"#
            )
            .is_ok()
        );
    }
}
