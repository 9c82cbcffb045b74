//! The HTTP lobby calls a client makes before playing: create a room, take a seat,
//! add built-in bots, start the game (protocol.md section 4); become a guest
//! (section 25) and read a room.

use catan_protocol::{
    AddBotRequest, AddBotResponse, BotKind, CreateRoomRequest, CreateRoomResponse, GuestRequest,
    RoomInfo, SignedIn, TakeSeatRequest, TakeSeatResponse,
};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Request, header};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::ClientError;
use crate::target::Target;

/// A lobby client for one server. Each call is one HTTP/1.1 request on its own
/// loopback connection (hyper's client connection; no pool, no framework).
#[derive(Debug, Clone)]
pub struct Lobby {
    /// Where the calls go, and from which local address.
    target: Target,
}

impl Lobby {
    /// A lobby client for `target`.
    #[must_use]
    pub fn new(target: &Target) -> Lobby {
        Lobby {
            target: target.clone(),
        }
    }

    /// Where the calls go.
    #[must_use]
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// `POST path` with `body` as JSON; the answer's body parsed, if it succeeded.
    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: &impl Serialize,
    ) -> Result<T, ClientError> {
        let body =
            serde_json::to_vec(body).map_err(|e| ClientError::Http(format!("POST {path}: {e}")))?;
        self.call(hyper::Method::POST, path, bearer, Some(body))
            .await
    }

    /// `GET path`; the answer's body parsed, if it succeeded.
    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        bearer: Option<&str>,
    ) -> Result<T, ClientError> {
        self.call(hyper::Method::GET, path, bearer, None).await
    }

    /// One call: `method path` with `body` as JSON, if any.
    async fn call<T: DeserializeOwned>(
        &self,
        method: hyper::Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        let fail = |e: &dyn std::fmt::Display| ClientError::Http(format!("{method} {path}: {e}"));
        let stream = self.target.tcp().await.map_err(|e| fail(&e))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| fail(&e))?;
        tokio::spawn(conn);
        let mut req = Request::builder()
            .method(method.clone())
            .uri(path)
            .header(header::HOST, &self.target.authority);
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        if let Some(b) = bearer {
            req = req.header(header::AUTHORIZATION, format!("Bearer {b}"));
        }
        let req = req
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| fail(&e))?;
        let resp = sender.send_request(req).await.map_err(|e| fail(&e))?;
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| fail(&e))?
            .to_bytes();
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes);
            return Err(fail(&format!("{status}: {text}")));
        }
        serde_json::from_slice(&bytes).map_err(|e| fail(&format!("answer: {e}")))
    }

    /// `POST /api/guests`: a new guest named `name`, signed in.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn guest(&self, name: &str) -> Result<SignedIn, ClientError> {
        self.post(
            "/api/guests",
            None,
            &GuestRequest {
                name: name.to_owned(),
            },
        )
        .await
    }

    /// `GET /api/rooms/{id}`.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn room(&self, room: Uuid) -> Result<RoomInfo, ClientError> {
        self.get(&format!("/api/rooms/{room}"), None).await
    }

    /// `POST /api/rooms` for a room of `players` seats playing to `vp_target`, unlisted;
    /// a bot stands in for an absent person after `stand_in_secs` (0: never; `None`:
    /// the server's default).
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn create_room(
        &self,
        players: u8,
        vp_target: u8,
        stand_in_secs: Option<u32>,
    ) -> Result<CreateRoomResponse, ClientError> {
        let request = CreateRoomRequest {
            players: Some(players),
            vp_target: Some(vp_target),
            listed: Some(false),
            stand_in_secs,
            ..CreateRoomRequest::default()
        };
        self.post("/api/rooms", None, &request).await
    }

    /// `POST /api/rooms/{id}/seats`: takes the first free seat as `name`.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn take_seat(&self, room: Uuid, name: &str) -> Result<TakeSeatResponse, ClientError> {
        let request = TakeSeatRequest {
            name: name.to_owned(),
            seat: None,
        };
        self.post(&format!("/api/rooms/{room}/seats"), None, &request)
            .await
    }

    /// `POST /api/rooms/{id}/bots`: a built-in random bot on the first free seat.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn add_bot(&self, room: Uuid, host_token: &str) -> Result<(), ClientError> {
        let request = AddBotRequest {
            seat: None,
            kind: BotKind::Random,
        };
        self.post::<AddBotResponse>(
            &format!("/api/rooms/{room}/bots"),
            Some(host_token),
            &request,
        )
        .await
        .map(drop)
    }

    /// `POST /api/rooms/{id}/start`.
    ///
    /// # Errors
    /// When the server is unreachable or refuses (e.g. the room is not full).
    pub async fn start(&self, room: Uuid, host_token: &str) -> Result<(), ClientError> {
        self.post::<RoomInfo>(
            &format!("/api/rooms/{room}/start"),
            Some(host_token),
            &serde_json::json!({}),
        )
        .await
        .map(drop)
    }
}
