//! One WebSocket client of a room, as a test drives it: raw text or JSON out, every
//! server message parsed and kept, a bounded wait for each.

use std::time::Duration;

use catan_protocol::ServerMessage;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use crate::TestServer;

/// How long a test waits for any one message before failing.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(20);

/// One WebSocket client.
#[derive(Debug)]
pub struct Client {
    /// The socket.
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every message received, raw text and parsed.
    pub received: Vec<(String, ServerMessage)>,
    /// The close code, once the server closed the socket.
    pub closed_with: Option<u16>,
}

impl TestServer {
    /// Opens a WebSocket as a seat (`Some(token)`) or a spectator.
    pub async fn connect(&self, room: Uuid, token: Option<&str>, last_seq: Option<u64>) -> Client {
        let mut query = String::new();
        if let Some(t) = token {
            query.push_str(&format!("token={t}&"));
        }
        if let Some(s) = last_seq {
            query.push_str(&format!("last_seq={s}"));
        }
        self.connect_query(room, &query).await
    }

    /// Opens a WebSocket with `query` as the upgrade's query string, as it is.
    pub async fn connect_query(&self, room: Uuid, query: &str) -> Client {
        let url = format!("ws://{}/api/rooms/{room}/ws?{query}", self.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("websocket connect");
        Client {
            ws,
            received: Vec::new(),
            closed_with: None,
        }
    }
}

impl Client {
    /// The next server message; `None` when the socket closed.
    pub async fn recv(&mut self) -> Option<ServerMessage> {
        loop {
            let Ok(next) = tokio::time::timeout(RECV_TIMEOUT, self.ws.next()).await else {
                let tail: Vec<&str> = self
                    .received
                    .iter()
                    .rev()
                    .take(3)
                    .map(|(t, _)| t.as_str())
                    .collect();
                panic!("timed out waiting for a message; last received: {tail:#?}");
            };
            match next {
                Some(Ok(Message::Text(t))) => {
                    let msg: ServerMessage = serde_json::from_str(&t)
                        .unwrap_or_else(|e| panic!("unparsable server message {t}: {e}"));
                    self.received.push((t.to_string(), msg.clone()));
                    return Some(msg);
                }
                Some(Ok(Message::Close(frame))) => {
                    self.closed_with = frame.map(|f| f.code.into());
                    return None;
                }
                Some(Err(_)) | None => return None,
                Some(Ok(_)) => {}
            }
        }
    }

    /// Sends raw text, reporting failure instead of panicking.
    ///
    /// # Errors
    /// When the socket is closed.
    pub async fn ws_send_ok(
        &mut self,
        text: &str,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.ws.send(Message::Text(text.into())).await
    }

    /// Receives until `pred` matches, returning the match.
    pub async fn recv_until(
        &mut self,
        mut pred: impl FnMut(&ServerMessage) -> bool,
    ) -> ServerMessage {
        loop {
            let m = self.recv().await.expect("socket closed while waiting");
            if pred(&m) {
                return m;
            }
        }
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// Sends a JSON value.
    pub async fn send_json(&mut self, v: &Value) {
        self.send_text(&v.to_string()).await;
    }

    /// The close code, after the server closed the socket.
    pub async fn close_code(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(RECV_TIMEOUT, self.ws.next())
                .await
                .expect("timeout")
            {
                Some(Ok(Message::Close(Some(f)))) => return Some(f.code.into()),
                Some(Ok(Message::Close(None)) | Err(_)) | None => return None,
                Some(Ok(_)) => {}
            }
        }
    }
}

/// The legal actions in the newest message that carries them (`snapshot`, `events`,
/// `resumed`; an `events` message without `legal` means none).
#[must_use]
pub fn latest_legal(client: &Client) -> Vec<catan_engine::Action> {
    for (_, m) in client.received.iter().rev() {
        match m {
            ServerMessage::Snapshot(s) => return s.legal.clone(),
            ServerMessage::Events { legal, .. } | ServerMessage::Resumed { legal, .. } => {
                return legal.clone();
            }
            _ => {}
        }
    }
    Vec::new()
}
