//! The HTTP lobby calls a client makes before playing: create a room, take a seat,
//! add built-in bots, start the game (protocol.md section 4).

use catan_server::protocol::{CreateRoomResponse, TakeSeatResponse};
use serde_json::json;
use uuid::Uuid;

use crate::ClientError;
use crate::target::Target;

/// A lobby client for one server.
#[derive(Debug, Clone)]
pub struct Lobby {
    /// Keeps connections to the server alive between calls.
    http: reqwest::Client,
    /// `http://HOST:PORT`.
    base: String,
}

impl Lobby {
    /// A lobby client for `target`.
    #[must_use]
    pub fn new(target: &Target) -> Lobby {
        Lobby {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(256)
                .build()
                .unwrap_or_default(),
            base: target.http.clone(),
        }
    }

    async fn post(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: serde_json::Value,
    ) -> Result<reqwest::Response, ClientError> {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| ClientError::Http(format!("POST {path}: {e}")))?;
        if resp.status().is_success() {
            Ok(resp)
        } else {
            let status = resp.status();
            let text = resp.text().await.unwrap_or_default();
            Err(ClientError::Http(format!("POST {path}: {status}: {text}")))
        }
    }

    /// `POST /api/rooms` for a room of `players` seats playing to `vp_target`, unlisted.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn create_room(
        &self,
        players: u8,
        vp_target: u8,
    ) -> Result<CreateRoomResponse, ClientError> {
        let r = self
            .post(
                "/api/rooms",
                None,
                json!({ "players": players, "vp_target": vp_target, "listed": false }),
            )
            .await?;
        r.json()
            .await
            .map_err(|e| ClientError::Http(format!("create room answer: {e}")))
    }

    /// `POST /api/rooms/{id}/seats`: takes the first free seat as `name`.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn take_seat(&self, room: Uuid, name: &str) -> Result<TakeSeatResponse, ClientError> {
        let r = self
            .post(
                &format!("/api/rooms/{room}/seats"),
                None,
                json!({ "name": name }),
            )
            .await?;
        r.json()
            .await
            .map_err(|e| ClientError::Http(format!("take seat answer: {e}")))
    }

    /// `POST /api/rooms/{id}/bots`: a built-in random bot on the first free seat.
    ///
    /// # Errors
    /// When the server is unreachable or refuses.
    pub async fn add_bot(&self, room: Uuid, host_token: &str) -> Result<(), ClientError> {
        self.post(
            &format!("/api/rooms/{room}/bots"),
            Some(host_token),
            json!({}),
        )
        .await
        .map(drop)
    }

    /// `POST /api/rooms/{id}/start`.
    ///
    /// # Errors
    /// When the server is unreachable or refuses (e.g. the room is not full).
    pub async fn start(&self, room: Uuid, host_token: &str) -> Result<(), ClientError> {
        self.post(
            &format!("/api/rooms/{room}/start"),
            Some(host_token),
            json!({}),
        )
        .await
        .map(drop)
    }
}
