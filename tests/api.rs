//! The HTTP API as a test calls it: the lobby's calls that must succeed (each panics
//! with the server's answer otherwise), and the admin API with the admin token.

use catan_protocol::{CreateRoomResponse, RoomInfo, SignedIn, TakeSeatResponse};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::TestServer;

impl TestServer {
    /// Any call: its status, JSON body (`Null` when empty) and headers; signed in
    /// with bearer token `token` when given.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut req = self.http.request(method, self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let r = req.send().await.expect("http");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().await.expect("body");
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
        };
        (status, value, headers)
    }

    /// `POST /api/guests`; panics unless created. The answer's headers too (the
    /// session cookie).
    pub async fn guest(&self, name: &str) -> (SignedIn, reqwest::header::HeaderMap) {
        let (status, body, headers) = self
            .call(
                reqwest::Method::POST,
                "/api/guests",
                None,
                Some(json!({ "name": name })),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        (serde_json::from_value(body).expect("SignedIn"), headers)
    }

    /// `POST /api/rooms` with `body`; panics unless created.
    pub async fn create_room(&self, body: Value) -> CreateRoomResponse {
        let r = self
            .http
            .post(self.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "create room: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// Takes a seat; panics unless it works.
    pub async fn take_seat(&self, room: Uuid, name: &str) -> TakeSeatResponse {
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/seats")))
            .json(&json!({ "name": name }))
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "take seat: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// Makes the guest `p` an account of its own name with `password`
    /// (`POST /api/me/claim`); panics unless it works.
    pub async fn claim(&self, p: &SignedIn, password: &str) {
        let (status, body, _) = self
            .call(
                reqwest::Method::POST,
                "/api/me/claim",
                Some(&p.token),
                Some(json!({ "name": p.player.name, "password": password })),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }

    /// Takes a seat in `room` as the signed-in player `p` (its session as a bearer
    /// token, its name); the seat's token. Panics unless it works.
    pub async fn seat_as(&self, room: Uuid, p: &SignedIn) -> String {
        let (status, body, _) = self
            .call(
                reqwest::Method::POST,
                &format!("/api/rooms/{room}/seats"),
                Some(&p.token),
                Some(json!({ "name": p.player.name })),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body["token"].as_str().expect("seat token").to_owned()
    }

    /// Adds a bot of the default kind; panics unless it works.
    pub async fn add_bot(&self, room: Uuid, host: &str) {
        self.add_bot_of_kind(room, host, None).await;
    }

    /// Adds a bot of `kind` (`"random"`, `"medium"`...; `None`: the default);
    /// panics unless it works.
    pub async fn add_bot_of_kind(&self, room: Uuid, host: &str, kind: Option<&str>) {
        let body = kind.map_or_else(|| json!({}), |k| json!({ "kind": k }));
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/bots")))
            .bearer_auth(host)
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "add bot: {}",
            r.text().await.unwrap_or_default()
        );
    }

    /// Starts the game; panics unless it works.
    pub async fn start_game(&self, room: Uuid, host: &str) -> RoomInfo {
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/start")))
            .bearer_auth(host)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            200,
            "start: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// `GET` on the admin listener with the admin token.
    pub async fn admin_get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(self.admin_url(path))
            .bearer_auth(self.admin_token.as_deref().expect("admin token"))
            .send()
            .await
            .expect("http")
    }

    /// `POST` on the admin listener with the admin token and a JSON body.
    pub async fn admin_post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(self.admin_url(path))
            .bearer_auth(self.admin_token.as_deref().expect("admin token"))
            .json(body)
            .send()
            .await
            .expect("http")
    }
}
