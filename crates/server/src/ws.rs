//! One WebSocket connection: reads client messages (size check, rate limit, parsing)
//! and writes what its room queues for it. Generic over `Sink`/`Stream`, so tests can
//! drive it with channels.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{FutureExt, Sink, SinkExt, Stream, StreamExt};
use serde::Deserialize;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use crate::limits::Bucket;
use crate::room::{ConnShared, Connected, Outbound, RoomHandle};
use catan_protocol::{ClientMessage, CloseCode, ClosingReason, ErrorCode, ServerMessage};

/// Limits applied to one connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Largest text message accepted, in bytes.
    pub max_message_bytes: usize,
    /// Average frames per second allowed; the bucket holds twice that.
    pub rate_per_sec: u32,
    /// How often the server pings.
    pub ping_every: Duration,
    /// How long the client may send nothing at all before it is closed with 4013.
    pub silent_for: Duration,
    /// Chat messages a minute on average (bursts of [`CHAT_BURST`], or of two
    /// seconds' worth when that is more), within the rate.
    pub chat_per_min: u32,
}

/// Chat messages a connection may send at once.
pub const CHAT_BURST: u32 = 5;

/// How many refused-for-rate messages a connection may send before it is closed.
const MAX_RATE_STRIKES: u32 = 50;

/// How long each step of a closing handshake may take: the `closing` message, the
/// close frame, the client's answering close.
const CLOSE_WRITE: Duration = Duration::from_secs(2);

/// How long the close frame of a connection dropped as too slow may wait to be
/// written: it comes after everything already in transit (in the socket's buffers),
/// which the client has to read first. Then the socket is let go all the same.
pub const TOO_SLOW_CLOSE: Duration = Duration::from_secs(10);

/// How often a write that waits for a client to read checks whether the room has
/// dropped the connection as too slow meanwhile.
const SLOW_CHECK: Duration = Duration::from_millis(50);

/// Whether the room has dropped this connection as too slow.
fn too_slow(shared: &ConnShared) -> bool {
    shared.close_code() == Some(CloseCode::TooSlow)
}

/// What became of a write that did not simply go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unsent {
    /// The socket failed: the connection is gone, nothing more can be said.
    Failed,
    /// The room dropped the connection as too slow (4009) while the write waited
    /// for the client to read: the write is abandoned, what it had put in the
    /// socket's buffers stays there, ahead of the close frame.
    TooSlow,
}

impl Unsent {
    /// The close code the server ends the connection with, if it still can.
    fn close_code(self) -> Option<CloseCode> {
        match self {
            Unsent::Failed => None,
            Unsent::TooSlow => Some(CloseCode::TooSlow),
        }
    }
}

/// Writes one message: `Ok` when it was written, else how the connection ends.
async fn send_watched<W>(sink: &mut W, msg: Message, shared: &ConnShared) -> Result<(), Unsent>
where
    W: Sink<Message> + Unpin,
{
    let failed = |r: Result<(), W::Error>| r.map_err(|_| Unsent::Failed);
    let mut send = sink.send(msg);
    // Nearly every write completes at once: those need no timer.
    if let Some(r) = (&mut send).now_or_never() {
        return failed(r);
    }
    let mut check = tokio::time::interval_at(Instant::now() + SLOW_CHECK, SLOW_CHECK);
    loop {
        tokio::select! {
            r = &mut send => return failed(r),
            _ = check.tick() => {
                if too_slow(shared) {
                    return Err(Unsent::TooSlow);
                }
            }
        }
    }
}

fn error_text(code: ErrorCode, message: &str) -> Message {
    to_text(&ServerMessage::error(code, message))
}

fn to_text(msg: &ServerMessage) -> Message {
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(msg).expect("server messages serialize"),
    ))
}

/// What the connection does with one frame from the client.
enum Verdict {
    /// Hand the message to the room.
    Forward(ClientMessage),
    /// Answer this connection only.
    Reply(Message),
    /// Nothing (a control frame; a frame over the rate that gets no answer).
    Ignore,
    /// End the connection: with this close code, or none when the client left.
    Close(Option<CloseCode>),
}

/// The reading side of a connection: its rate limit, strikes and liveness.
struct Reader {
    limits: ConnLimits,
    bucket: Bucket,
    chat: Bucket,
    strikes: u32,
    heard: Instant,
}

/// Just the `request_id` of a client message, for the answer to one that is dropped.
#[derive(Deserialize)]
struct RequestIdOnly {
    request_id: Option<String>,
}

impl Reader {
    fn new(limits: ConnLimits) -> Reader {
        let rate = f64::from(limits.rate_per_sec.max(1));
        Reader {
            limits,
            bucket: Bucket::new(rate, rate * 2.0),
            chat: Bucket::new(
                f64::from(limits.chat_per_min.max(1)) / 60.0,
                f64::from(CHAT_BURST.max(limits.chat_per_min / 30)),
            ),
            strikes: 0,
            heard: Instant::now(),
        }
    }

    /// Judges one frame. Every frame counts against the rate limit, control and
    /// binary frames too; only text frames over the rate are answered
    /// (`rate_limited`, with their `request_id` when it can be read).
    fn judge(&mut self, frame: Message) -> Verdict {
        self.heard = Instant::now();
        if matches!(frame, Message::Close(_)) {
            return Verdict::Close(None);
        }
        if self.bucket.take().is_err() {
            return self.strike(&frame, "too many messages; slow down");
        }
        let text = match frame {
            Message::Text(t) => t,
            Message::Binary(_) => {
                let m = error_text(ErrorCode::BinaryNotSupported, "send JSON text messages");
                return Verdict::Reply(m);
            }
            // Pings are answered by the library; pongs only show the client is there.
            _ => return Verdict::Ignore,
        };
        if text.len() > self.limits.max_message_bytes {
            let m = format!(
                "messages are at most {} bytes",
                self.limits.max_message_bytes
            );
            return Verdict::Reply(error_text(ErrorCode::MessageTooLarge, &m));
        }
        match ClientMessage::parse(&text) {
            Ok(ClientMessage::Chat { .. }) if self.chat.take().is_err() => {
                let m = format!(
                    "too many chat messages; at most {} a minute",
                    self.limits.chat_per_min
                );
                self.strike(&Message::Text(text), &m)
            }
            Ok(msg) => Verdict::Forward(msg),
            Err(e) => Verdict::Reply(error_text(e.code, &e.message)),
        }
    }

    /// A frame over a rate: a strike, and for a text frame a `rate_limited` answer
    /// (with its `request_id` when it can be read); too many strikes close with 4008.
    fn strike(&mut self, frame: &Message, message: &str) -> Verdict {
        self.strikes += 1;
        if self.strikes > MAX_RATE_STRIKES {
            return Verdict::Close(Some(CloseCode::RateLimited));
        }
        let Message::Text(text) = frame else {
            return Verdict::Ignore;
        };
        let mut msg = ServerMessage::error(ErrorCode::RateLimited, message);
        if let ServerMessage::Error { request_id, .. } = &mut msg {
            *request_id = self.request_id_of(text);
        }
        Verdict::Reply(to_text(&msg))
    }

    /// The `request_id` of a text within the size limit, when it has a readable one
    /// of at most [`catan_protocol::MAX_REQUEST_ID_BYTES`].
    fn request_id_of(&self, text: &str) -> Option<String> {
        if text.len() > self.limits.max_message_bytes {
            return None;
        }
        serde_json::from_str::<RequestIdOnly>(text)
            .ok()?
            .request_id
            .filter(|r| r.len() <= catan_protocol::MAX_REQUEST_ID_BYTES)
    }

    /// On each ping tick: the ping to send, or the close of a silent client.
    fn on_tick(&self) -> Result<Message, CloseCode> {
        if self.heard.elapsed() >= self.limits.silent_for {
            Err(CloseCode::Unresponsive)
        } else {
            Ok(Message::Ping(axum::body::Bytes::new()))
        }
    }
}

/// Serves one attached connection until either side closes it; the close code the
/// server ended it with, if it did.
pub async fn serve<S>(
    socket: S,
    room: RoomHandle,
    mut conn: Connected,
    limits: ConnLimits,
    shutdown: CancellationToken,
) -> Option<CloseCode>
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    let mut reader = Reader::new(limits);
    let first = Instant::now() + limits.ping_every;
    let mut ping = tokio::time::interval_at(first, limits.ping_every);
    let close_code: Option<CloseCode> = loop {
        let verdict = tokio::select! {
            () = shutdown.cancelled() => break Some(CloseCode::GoingAway),
            out = conn.rx.recv() => match out {
                // Dropped as too slow with messages still queued: they are not sent,
                // so that the close frame comes right after what is in transit.
                Some(_) if too_slow(&conn.shared) => break Some(CloseCode::TooSlow),
                Some(out) => Verdict::Reply(Message::Text(match out {
                    Outbound::Text(text) => Utf8Bytes::from(&*text),
                    // Rooms send typed messages only to clients in the process.
                    Outbound::Message(msg) => Utf8Bytes::from(
                        serde_json::to_string(&*msg).expect("server messages serialize"),
                    ),
                })),
                None => {
                    // A room ends its connections when it closes, and when the server
                    // shuts down: then the close says so.
                    break Some(if shutdown.is_cancelled() {
                        CloseCode::GoingAway
                    } else {
                        conn.shared.close_code().unwrap_or(CloseCode::RoomClosed)
                    });
                }
            },
            _ = ping.tick() => match reader.on_tick() {
                Ok(m) => Verdict::Reply(m),
                Err(code) => break Some(code),
            },
            incoming = stream.next() => match incoming {
                Some(Ok(frame)) => reader.judge(frame),
                Some(Err(_)) | None => break None,
            },
        };
        match verdict {
            Verdict::Forward(msg) => {
                if !room.client_message(conn.conn, msg).await {
                    // The room ended while this message was on its way: close with the
                    // code it ended this connection with (4014 when it moved to
                    // another instance, so that the client reconnects), not 4010.
                    break Some(conn.shared.close_code().unwrap_or(CloseCode::RoomClosed));
                }
            }
            Verdict::Reply(m) => {
                if let Err(end) = send_watched(&mut sink, m, &conn.shared).await {
                    break end.close_code();
                }
            }
            Verdict::Ignore => {}
            Verdict::Close(code) => break code,
        }
    };
    if let Some(code) = close_code {
        // Boxed: a closing handshake's futures (timeouts, the `closing` message) are
        // needed once, at the end; a waiting connection does not carry them.
        Box::pin(end(&mut sink, &mut stream, &mut conn, code, &shutdown)).await;
    }
    room.disconnect(conn.conn).await;
    close_code
}

/// Ends a connection the server closes with `code`: a shutdown is announced with
/// `closing` (rooms announce their own closes through the queue), a connection
/// dropped as too slow gets its close frame after what is in transit.
async fn end<W, R>(
    sink: &mut W,
    stream: &mut R,
    conn: &mut Connected,
    code: CloseCode,
    shutdown: &CancellationToken,
) where
    W: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    debug!(
        code = code.code(),
        reason = code.reason(),
        "closing connection"
    );
    // Rooms announce their own closes (admin close, kick) through the queue;
    // a shutdown is announced here.
    let last = (code == CloseCode::GoingAway).then(|| {
        ServerMessage::closing(
            ClosingReason::ShuttingDown,
            "the server is shutting down; reconnect shortly",
        )
    });
    if code == CloseCode::TooSlow {
        // What the room queued after the drop is never sent; the close frame
        // follows what is in transit, for as long as the client takes to read
        // that (up to TOO_SLOW_CLOSE), unless the server shuts down meanwhile.
        conn.rx.close();
        while conn.rx.try_recv().is_ok() {}
        tokio::select! {
            () = close(sink, stream, code, None, TOO_SLOW_CLOSE) => {}
            () = shutdown.cancelled() => {}
        }
    } else {
        close(sink, stream, code, last.as_ref(), CLOSE_WRITE).await;
    }
}

/// Serves a connection that asked for a protocol version the server does not speak:
/// a `closing` message that names the versions it speaks, then close code 4012. The
/// connection never reaches a room.
pub async fn refuse_version<S>(socket: S, asked: u32)
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    let speaks: Vec<String> = catan_protocol::SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .map(u32::to_string)
        .collect();
    let msg = ServerMessage::closing(
        ClosingReason::UnsupportedVersion,
        format!(
            "this server speaks protocol version {}, not {asked}",
            speaks.join(", ")
        ),
    );
    debug!(asked, "refusing an unsupported protocol version");
    close(
        &mut sink,
        &mut stream,
        CloseCode::UnsupportedVersion,
        Some(&msg),
        CLOSE_WRITE,
    )
    .await;
}

/// Closes a connection: `last` (a `closing` message) if given, the close frame with
/// `code` (its write bounded by `write_timeout`), then the rest of the closing
/// handshake, each step bounded in time.
async fn close<W, R>(
    sink: &mut W,
    stream: &mut R,
    code: CloseCode,
    last: Option<&ServerMessage>,
    write_timeout: Duration,
) where
    W: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    if let Some(msg) = last {
        let text = serde_json::to_string(msg).expect("server messages serialize");
        let _ = tokio::time::timeout(CLOSE_WRITE, sink.send(Message::Text(Utf8Bytes::from(text))))
            .await;
    }
    let frame = CloseFrame {
        code: code.code(),
        reason: Utf8Bytes::from_static(code.reason()),
    };
    let _ = tokio::time::timeout(write_timeout, sink.send(Message::Close(Some(frame)))).await;
    // Finish the closing handshake: read (and ignore) until the client's close,
    // so the client sees our close frame rather than a reset connection.
    let _ = tokio::time::timeout(CLOSE_WRITE, async {
        while let Some(Ok(m)) = stream.next().await {
            if matches!(m, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}
