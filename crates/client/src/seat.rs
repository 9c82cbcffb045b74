//! One seat's WebSocket, the way a well-behaved client plays: parse every
//! [`ServerMessage`] and hand it to the one bot driver ([`SeatDriver`], protocol.md
//! section 7), which keeps the newest `legal` list and the seat's view, sends one
//! action at a time and waits for its acknowledgement or refusal before the next.

use catan_bots::{SeatDriver, Strategy};
use catan_engine::{FinalScore, Seat};
use catan_protocol::{ClientMessage, GameOverInfo, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use crate::ClientError;
use crate::target::Target;

/// The WebSocket type every connection of this crate uses.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens the WebSocket of `room` for the seat whose token is `token` (TCP_NODELAY on,
/// a 4 KiB read buffer: game messages are small), stating the protocol version this
/// crate speaks (a server that does not speak it closes with 4012).
///
/// # Errors
/// When the connection or the upgrade fails (e.g. an invalid token).
pub async fn connect(target: &Target, room: Uuid, token: &str) -> Result<Ws, ClientError> {
    let url = format!(
        "{}/api/rooms/{room}/ws?token={token}&protocol={}",
        target.ws,
        catan_protocol::PROTOCOL_VERSION
    );
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let stream = target
        .tcp()
        .await
        .map_err(|e| ClientError::WebSocket(format!("connect: {e}")))?;
    let (ws, _) = tokio_tungstenite::client_async_with_config(
        url,
        MaybeTlsStream::Plain(stream),
        Some(config),
    )
    .await
    .map_err(|e| ClientError::WebSocket(format!("connect: {e}")))?;
    Ok(ws)
}

/// How a seat's game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// This client's seat.
    pub seat: Option<Seat>,
    /// The winner; `None` when the turn limit ended the game with no winner.
    pub winner: Option<Seat>,
    /// Every seat's final score.
    pub scores: Vec<FinalScore>,
    /// Actions this client sent and had acknowledged.
    pub actions: u64,
    /// Actions refused by the server (0 for a well-behaved client).
    pub rejected: u64,
}

impl Outcome {
    /// This seat's final points.
    #[must_use]
    pub fn own_points(&self) -> Option<u8> {
        let seat = self.seat?;
        self.scores
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.points)
    }
}

/// A seat being played over its WebSocket by the one bot driver.
#[derive(Debug)]
pub struct SeatClient {
    /// The socket.
    ws: Ws,
    /// The discipline and the seat's view, kept current from the events.
    driver: SeatDriver,
}

impl SeatClient {
    /// Connects to `room` as the seat of `token`.
    ///
    /// # Errors
    /// When the connection fails.
    pub async fn connect(
        target: &Target,
        room: Uuid,
        token: &str,
    ) -> Result<SeatClient, ClientError> {
        Ok(SeatClient {
            ws: connect(target, room, token).await?,
            driver: SeatDriver::new(),
        })
    }

    /// The next server message, parsed and taken into account; `None` once closed.
    ///
    /// # Errors
    /// A WebSocket failure or a message that does not parse.
    pub async fn next(&mut self) -> Result<Option<ServerMessage>, ClientError> {
        loop {
            let msg = match self.ws.next().await {
                None | Some(Ok(Message::Close(_))) => return Ok(None),
                Some(Err(e)) => return Err(ClientError::WebSocket(e.to_string())),
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(_)) => continue,
            };
            let parsed: ServerMessage = serde_json::from_str(&msg)
                .map_err(|e| ClientError::Protocol(format!("{e}: {msg}")))?;
            self.driver.observe(&parsed);
            return Ok(Some(parsed));
        }
    }

    /// The driver: the seat's view, legal actions and counts.
    #[must_use]
    pub fn driver(&self) -> &SeatDriver {
        &self.driver
    }

    /// Sends `msg`.
    ///
    /// # Errors
    /// When the socket is closed.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<(), ClientError> {
        let text = serde_json::to_string(msg).map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| ClientError::WebSocket(e.to_string()))
    }

    /// Plays with `strategy` (its randomness from `seed`) until the game ends.
    ///
    /// # Errors
    /// When the connection fails or closes before the end.
    pub async fn play_to_end(
        &mut self,
        strategy: &mut dyn Strategy,
        seed: u64,
    ) -> Result<Outcome, ClientError> {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        loop {
            if let Some(over) = self.driver.game_over() {
                let GameOverInfo { winner, scores, .. } = over.clone();
                let (actions, rejected) = self.driver.counts();
                let _ = self.ws.close(None).await;
                return Ok(Outcome {
                    seat: self.driver.seat(),
                    winner,
                    scores,
                    actions,
                    rejected,
                });
            }
            if let Some(msg) = self.driver.decide(strategy, &mut rng) {
                self.send(&msg).await?;
            }
            if self.next().await?.is_none() {
                return Err(ClientError::WebSocket(
                    "closed before the game ended".into(),
                ));
            }
        }
    }
}
