//! One seat's WebSocket, the way a well-behaved client plays: parse every
//! [`ServerMessage`], keep only the newest `legal` list, send one action at a time
//! and wait for its acknowledgement (the `events` message carrying its request id)
//! or its rejection before the next ([`Driver`], protocol.md section 7).

use catan_engine::{Action, ActionKind, FinalScore, GameView, Seat};
use catan_server::bot::{Driver, Envelope};
use catan_server::protocol::{ClientMessage, GameOverInfo, ServerMessage};
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
/// a 4 KiB read buffer: game messages are small).
///
/// # Errors
/// When the connection or the upgrade fails (e.g. an invalid token).
pub async fn connect(target: &Target, room: Uuid, token: &str) -> Result<Ws, ClientError> {
    let url = format!("{}/api/rooms/{room}/ws?token={token}", target.ws);
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
        .await
        .map_err(|e| ClientError::WebSocket(format!("connect: {e}")))?;
    Ok(ws)
}

/// A strategy picks one of the legal actions, given what the seat can see.
pub trait Strategy {
    /// One element of `legal` (never empty).
    fn choose(&mut self, view: Option<&GameView>, legal: &[Action]) -> Action;
}

/// Uniform among the legal actions (player trades are never offered).
#[derive(Debug)]
pub struct RandomStrategy {
    /// The random source; seeded, so a run can be repeated.
    rng: rand::rngs::StdRng,
}

impl RandomStrategy {
    /// A random strategy with this seed.
    #[must_use]
    pub fn new(seed: u64) -> RandomStrategy {
        use rand::SeedableRng;
        RandomStrategy {
            rng: rand::rngs::StdRng::seed_from_u64(seed),
        }
    }
}

impl Strategy for RandomStrategy {
    fn choose(&mut self, _view: Option<&GameView>, legal: &[Action]) -> Action {
        use rand::Rng;
        legal[self.rng.random_range(0..legal.len())]
    }
}

/// How a seat's game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// This client's seat.
    pub seat: Option<Seat>,
    /// The winner.
    pub winner: Seat,
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

/// A seat being played over its WebSocket.
pub struct SeatClient {
    /// The socket.
    ws: Ws,
    /// The discipline: when this seat may act.
    driver: Driver,
    /// The newest legal list (player trades filtered out, as the driver does).
    legal: Vec<Action>,
    /// The newest view: from the last snapshot (events are applied by the server,
    /// so a strategy that needs a current view should ask for a fresh snapshot).
    view: Option<GameView>,
    /// This client's seat, from the first snapshot.
    seat: Option<Seat>,
    /// Request id of the action in flight.
    pending: Option<String>,
    /// Acknowledged actions.
    acked: u64,
    /// Rejected actions.
    rejected: u64,
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
            driver: Driver::default(),
            legal: Vec::new(),
            view: None,
            seat: None,
            pending: None,
            acked: 0,
            rejected: 0,
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
            self.observe(&parsed);
            return Ok(Some(parsed));
        }
    }

    fn observe(&mut self, msg: &ServerMessage) {
        let (kind, legal, request_id) = match msg {
            ServerMessage::Snapshot(s) => {
                self.seat = s.you;
                self.view.clone_from(&s.view);
                ("snapshot", Some(&s.legal), None)
            }
            ServerMessage::Events {
                legal, request_id, ..
            } => ("events", Some(legal), request_id.clone()),
            ServerMessage::Resumed { legal, .. } => ("resumed", Some(legal), None),
            ServerMessage::Rejected { request_id, .. } => {
                ("rejected", None, Some(request_id.clone()))
            }
            ServerMessage::GameOver(_) => ("game_over", None, None),
            _ => ("other", None, None),
        };
        let ours = request_id.is_some() && request_id == self.pending;
        if ours {
            self.pending = None;
            if kind == "rejected" {
                self.rejected += 1;
            } else {
                self.acked += 1;
            }
        }
        if let Some(l) = legal {
            self.legal.clone_from(l);
            self.legal
                .retain(|a| !matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer));
        }
        self.driver.observe(Envelope {
            kind: kind.to_owned(),
            legal: legal.cloned().unwrap_or_default(),
            request_id,
        });
    }

    /// Whether this seat should act now.
    #[must_use]
    pub fn ready(&self) -> bool {
        self.driver.ready() && !self.legal.is_empty()
    }

    /// The newest legal actions.
    #[must_use]
    pub fn legal(&self) -> &[Action] {
        &self.legal
    }

    /// The view of the last snapshot.
    #[must_use]
    pub fn view(&self) -> Option<&GameView> {
        self.view.as_ref()
    }

    /// Sends `action` (which should be one of [`SeatClient::legal`]).
    ///
    /// # Errors
    /// When the socket is closed.
    pub async fn act(&mut self, action: Action) -> Result<(), ClientError> {
        let msg = self.driver.send(action);
        if let ClientMessage::Action { request_id, .. } = &msg {
            self.pending = Some(request_id.clone());
        }
        let text = serde_json::to_string(&msg).map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| ClientError::WebSocket(e.to_string()))
    }

    /// Plays with `strategy` until the game ends.
    ///
    /// # Errors
    /// When the connection fails or closes before the end.
    pub async fn play_to_end(
        &mut self,
        strategy: &mut dyn Strategy,
    ) -> Result<Outcome, ClientError> {
        loop {
            let Some(msg) = self.next().await? else {
                return Err(ClientError::WebSocket(
                    "closed before the game ended".into(),
                ));
            };
            if let ServerMessage::GameOver(GameOverInfo { winner, scores, .. }) = msg {
                let _ = self.ws.close(None).await;
                return Ok(Outcome {
                    seat: self.seat,
                    winner,
                    scores,
                    actions: self.acked,
                    rejected: self.rejected,
                });
            }
            if self.ready() {
                let action = strategy.choose(self.view.as_ref(), &self.legal);
                self.act(action).await?;
            }
        }
    }
}
