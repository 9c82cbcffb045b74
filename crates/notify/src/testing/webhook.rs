//! A local webhook receiver: it records each POST (path, query, headers, body) and
//! answers as the test tells it, so that tests check signatures and bot formats.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use tokio::sync::mpsc;

/// One POST the receiver got.
#[derive(Debug)]
pub struct Hook {
    /// The request path.
    pub path: String,
    /// The query, decoded.
    pub query: Vec<(String, String)>,
    /// The query as sent.
    pub raw_query: String,
    /// The request headers.
    pub headers: HeaderMap,
    /// The body as sent.
    pub body: Bytes,
}

impl Hook {
    /// Header `name`'s value, or "".
    #[must_use]
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    /// Query parameter `name`, if sent.
    #[must_use]
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`null` if it is not).
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }
}

/// What the receiver answers: status, body, and a delay before answering.
pub type Answer = (StatusCode, &'static str, Duration);

/// A 200 every bot format reads as accepted.
pub const OK: Answer = (
    StatusCode::OK,
    r#"{"errcode":0,"errmsg":"ok","code":0}"#,
    Duration::ZERO,
);

/// The receiver's state, shared with the test.
#[derive(Debug)]
pub struct WebhookReceiver {
    /// The answer once `next` is empty.
    answer: Mutex<Answer>,
    /// Answers for the next requests, first first.
    next: Mutex<VecDeque<Answer>>,
    /// Where received hooks go.
    hooks: mpsc::UnboundedSender<Hook>,
}

impl WebhookReceiver {
    /// Answers every request from now on with `answer`.
    ///
    /// # Panics
    /// If the lock is poisoned.
    pub fn answer(&self, answer: Answer) {
        *self.answer.lock().unwrap() = answer;
    }

    /// Answers the next requests with `answers`, in order, then as before.
    ///
    /// # Panics
    /// If the lock is poisoned.
    pub fn answer_next(&self, answers: &[Answer]) {
        self.next.lock().unwrap().extend(answers.iter().copied());
    }
}

async fn receive(
    State(receiver): State<Arc<WebhookReceiver>>,
    request: Request,
) -> (StatusCode, String) {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let raw_query = parts.uri.query().unwrap_or_default().to_owned();
    let query = url::form_urlencoded::parse(raw_query.as_bytes())
        .into_owned()
        .collect();
    let _ = receiver.hooks.send(Hook {
        path: parts.uri.path().to_owned(),
        query,
        raw_query,
        headers: parts.headers,
        body,
    });
    let next = receiver.next.lock().unwrap().pop_front();
    let (status, body, delay) = next.unwrap_or_else(|| *receiver.answer.lock().unwrap());
    tokio::time::sleep(delay).await;
    (status, body.to_owned())
}

/// Starts a receiver on 127.0.0.1 answering `answer`: its base URL
/// (`http://127.0.0.1:PORT`), its state, and the hooks it receives.
///
/// # Panics
/// If it cannot listen on 127.0.0.1.
pub async fn webhook_receiver(
    answer: Answer,
) -> (String, Arc<WebhookReceiver>, mpsc::UnboundedReceiver<Hook>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    let state = Arc::new(WebhookReceiver {
        answer: Mutex::new(answer),
        next: Mutex::new(VecDeque::new()),
        hooks: tx,
    });
    let app = Router::new().fallback(receive).with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, state, rx)
}
