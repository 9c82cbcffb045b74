//! Forwarding (docs/cluster.md, *Reaching the owner*): a request for a room this
//! instance does not hold, which another live instance owns, is passed to that
//! instance: plain HTTP as a proxied request, a WebSocket as a relay of frames
//! between the client's socket here and one this instance opens to the owner
//! (browsers do not follow redirects of WebSockets). A forwarded request carries the
//! cluster's secret and the client's address, so that the owner applies the
//! per-address limits to the client, trusts the origin check made here, and never
//! forwards it again.

use std::net::IpAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::{self, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};
use tracing::{debug, warn};
use uuid::Uuid;

use crate::AppState;
use crate::error::{ApiError, LobbyError};
use crate::listen::PeerAddr;

/// The header that carries the cluster's secret on a forwarded request.
const SECRET_HEADER: &str = "x-catan-cluster-secret";
/// The header that names the client's address on a forwarded request.
const CLIENT_HEADER: &str = "x-catan-client-address";
/// Headers of one hop only, not passed on.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
];

/// The client's address named by a request that another instance of this cluster
/// forwarded (it carries the cluster's secret); `None` for any other request.
#[must_use]
pub fn forwarded_client(state: &AppState, headers: &HeaderMap) -> Option<IpAddr> {
    let secret = state.cluster.as_ref()?.secret()?;
    let given = headers.get(SECRET_HEADER)?.to_str().ok()?;
    if !crate::token::matches(secret, given) {
        return None;
    }
    headers.get(CLIENT_HEADER)?.to_str().ok()?.parse().ok()
}

/// How long a question to the other instances (their rooms, whether a player
/// holds a seat in one) waits for each.
const LIST_WAIT: Duration = Duration::from_millis(500);

/// The listed rooms of the other live instances, at most `limit` of each (each
/// answers for its own: the request is a forwarded one). An instance that does
/// not answer within [`LIST_WAIT`] is left out of this listing.
pub async fn other_rooms(state: &AppState, limit: usize) -> Vec<catan_protocol::RoomInfo> {
    let Some(cluster) = &state.cluster else {
        return Vec::new();
    };
    ask_others::<catan_protocol::RoomList>(cluster, &format!("/api/rooms?limit={limit}"))
        .await
        .into_iter()
        .flat_map(|list| list.rooms)
        .collect()
}

/// The answers of the other live instances to `GET path`, as forwarded requests
/// (each answers for itself); an instance that does not answer within
/// [`LIST_WAIT`], or not with a `T`, is left out.
pub async fn ask_others<T: serde::de::DeserializeOwned>(
    cluster: &super::Cluster,
    path: &str,
) -> Vec<T> {
    let Some(secret) = cluster.secret() else {
        return Vec::new();
    };
    let others = match cluster.others().await {
        Ok(o) => o,
        Err(e) => {
            warn!(error = %e, "could not list the other instances");
            return Vec::new();
        }
    };
    let asks = others.into_iter().map(|owner| {
        let hop = Hop {
            owner,
            secret: secret.to_owned(),
            client: IpAddr::from([0, 0, 0, 0]),
        };
        async move {
            let ask = async {
                let request = axum::http::Request::builder()
                    .uri(path)
                    .body(Body::empty())?;
                let answer = hop.http(request).await?;
                let body = axum::body::to_bytes(answer.into_body(), 4 << 20)
                    .await
                    .map_err(|e| HopError::Answer(e.to_string()))?;
                serde_json::from_slice::<T>(&body).map_err(|e| HopError::Answer(e.to_string()))
            };
            match tokio::time::timeout(LIST_WAIT, ask).await {
                Ok(Ok(answer)) => Some(answer),
                Ok(Err(e)) => {
                    warn!(instance = %hop.owner, %path, error = %e, "an instance did not answer");
                    None
                }
                Err(_) => {
                    warn!(instance = %hop.owner, %path, "an instance did not answer in time");
                    None
                }
            }
        }
    });
    futures_util::future::join_all(asks)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// The room a path names (`/api/rooms/{id}` and everything under it).
fn room_of(uri: &Uri) -> Option<Uuid> {
    let rest = uri.path().strip_prefix("/api/rooms/")?;
    let id = rest.split('/').next()?;
    Uuid::parse_str(id).ok()
}

/// Middleware of the public router: passes a request for a room held by another
/// live instance to it; everything else (and every forwarded request) goes on here.
pub async fn to_owner(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(cluster) = state.cluster.clone() else {
        return next.run(request).await;
    };
    let Some(room) = room_of(request.uri()) else {
        return next.run(request).await;
    };
    if state.rooms.get(room).is_ok() || forwarded_client(&state, request.headers()).is_some() {
        return next.run(request).await;
    }
    let Some(secret) = cluster.secret().map(str::to_owned) else {
        return next.run(request).await;
    };
    let owner = match cluster.owner_address(room).await {
        Ok(Some(owner)) => owner,
        // Nobody else holds it: answered here (a 404 unless it is being restored).
        Ok(None) => return next.run(request).await,
        Err(e) => {
            warn!(%room, error = %e, "could not look the room's owner up");
            return ApiError(LobbyError::StoreUnavailable).into_response();
        }
    };
    let peer = request.extensions().get::<PeerAddr>().map(|p| p.0.ip());
    let client = state.client_addresses.client_ip(request.headers(), peer);
    let hop = Hop {
        owner,
        secret,
        client,
    };
    debug!(%room, owner = %hop.owner, "forwarding to the room's owner");
    let upgrade = request
        .headers()
        .get(axum::http::header::UPGRADE)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket"));
    let answer = if upgrade {
        hop.websocket(&state, request).await
    } else {
        hop.http(request).await
    };
    answer.unwrap_or_else(|e| {
        warn!(%room, error = %e, "could not reach the room's owner");
        ApiError(LobbyError::ServerBusy).into_response()
    })
}

/// Where a request goes, and what it carries there.
struct Hop {
    /// The owner's `--cluster-address`, e.g. `http://10.0.0.7:8080`.
    owner: String,
    secret: String,
    client: IpAddr,
}

/// Why a request could not be passed on.
#[derive(Debug, thiserror::Error)]
enum HopError {
    #[error("bad owner address {0}")]
    Address(String),
    #[error("bad answer: {0}")]
    Answer(String),
    #[error("connect: {0}")]
    Io(#[from] std::io::Error),
    #[error("http: {0}")]
    Http(#[from] hyper::Error),
    #[error("websocket: {0}")]
    WebSocket(#[from] tungstenite::Error),
    #[error("request: {0}")]
    Request(#[from] axum::http::Error),
}

/// How long connecting to the owner may take.
const CONNECT: Duration = Duration::from_secs(5);

impl Hop {
    /// The owner's host and port.
    fn authority(&self) -> Result<(String, u16), HopError> {
        let url =
            url::Url::parse(&self.owner).map_err(|_| HopError::Address(self.owner.clone()))?;
        let host = url
            .host_str()
            .ok_or_else(|| HopError::Address(self.owner.clone()))?
            .to_owned();
        let port = url
            .port_or_known_default()
            .ok_or_else(|| HopError::Address(self.owner.clone()))?;
        Ok((host, port))
    }

    /// The headers of `from` to pass on, with the cluster's own.
    fn headers(&self, from: &HeaderMap, to: &mut HeaderMap) {
        for (name, value) in from {
            if !HOP_BY_HOP.contains(&name.as_str()) && !name.as_str().starts_with("x-catan-") {
                to.append(name.clone(), value.clone());
            }
        }
        if let Ok(v) = HeaderValue::from_str(&self.secret) {
            to.insert(SECRET_HEADER, v);
        }
        if let Ok(v) = HeaderValue::from_str(&self.client.to_string()) {
            to.insert(CLIENT_HEADER, v);
        }
    }

    /// Proxies a plain HTTP request and gives back the owner's answer.
    async fn http(&self, request: Request) -> Result<Response, HopError> {
        let (host, port) = self.authority()?;
        let tcp = tokio::time::timeout(CONNECT, TcpStream::connect((host.as_str(), port)))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                debug!(error = %e, "forwarded connection ended");
            }
        });
        let (parts, body) = request.into_parts();
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let mut out = axum::http::Request::builder()
            .method(parts.method.clone())
            .uri(path)
            .body(body)?;
        self.headers(&parts.headers, out.headers_mut());
        out.headers_mut().insert(
            axum::http::header::HOST,
            HeaderValue::from_str(&format!("{host}:{port}"))
                .map_err(|_| HopError::Address(self.owner.clone()))?,
        );
        let answer = sender.send_request(out).await?;
        Ok(answer.map(Body::new))
    }

    /// Opens a WebSocket to the owner with the client's query and, once the owner
    /// accepted it, accepts the client's upgrade and relays frames between the two.
    /// An upgrade the owner refuses is refused to the client with the owner's answer.
    async fn websocket(&self, state: &AppState, request: Request) -> Result<Response, HopError> {
        let (host, port) = self.authority()?;
        let (mut parts, _) = request.into_parts();
        let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, state).await {
            Ok(u) => u,
            Err(refused) => return Ok(refused.into_response()),
        };
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let mut ask = format!("ws://{host}:{port}{path}").into_client_request()?;
        let mut headers = HeaderMap::new();
        self.headers(&parts.headers, &mut headers);
        for name in [
            "sec-websocket-key",
            "sec-websocket-version",
            "sec-websocket-extensions",
        ] {
            headers.remove(name);
        }
        ask.headers_mut().extend(headers);
        let connect = tokio_tungstenite::connect_async(ask);
        let upstream = match tokio::time::timeout(CONNECT, connect).await {
            Err(_) => return Err(std::io::Error::from(std::io::ErrorKind::TimedOut).into()),
            Ok(Err(tungstenite::Error::Http(refused))) => {
                // The owner's refusal (a bad token, a rate limit): the client gets it.
                let (parts, body) = refused.into_parts();
                let mut answer = Response::new(Body::from(body.unwrap_or_default()));
                *answer.status_mut() = parts.status;
                *answer.headers_mut() = parts.headers;
                return Ok(answer);
            }
            Ok(Err(e)) => return Err(e.into()),
            Ok(Ok((upstream, _))) => upstream,
        };
        let silent_for = Duration::from_secs(state.config.limits.ws_timeout_secs.max(1));
        let tasks = state.tasks.clone();
        let shutdown = state.shutdown.clone();
        Ok(upgrade
            .max_message_size(crate::lobby::TRANSPORT_MAX_MESSAGE)
            .max_frame_size(crate::lobby::TRANSPORT_MAX_MESSAGE)
            .on_upgrade(move |socket| {
                tasks.track_future(relay(socket, upstream, silent_for, shutdown))
            })
            .into_response())
    }
}

/// A frame from the owner, for the client.
fn to_client(m: tungstenite::Message) -> Option<ws::Message> {
    use tungstenite::Message as T;
    Some(match m {
        T::Text(t) => ws::Message::Text(t.as_str().into()),
        T::Binary(b) => ws::Message::Binary(b),
        T::Ping(p) => ws::Message::Ping(p),
        T::Pong(p) => ws::Message::Pong(p),
        T::Close(f) => ws::Message::Close(f.map(|f| ws::CloseFrame {
            code: f.code.into(),
            reason: f.reason.as_str().into(),
        })),
        T::Frame(_) => return None,
    })
}

/// A frame from the client, for the owner.
fn to_owner_frame(m: ws::Message) -> tungstenite::Message {
    use tungstenite::Message as T;
    match m {
        ws::Message::Text(t) => T::Text(t.as_str().into()),
        ws::Message::Binary(b) => T::Binary(b),
        ws::Message::Ping(p) => T::Ping(p),
        ws::Message::Pong(p) => T::Pong(p),
        ws::Message::Close(f) => T::Close(f.map(|f| tungstenite::protocol::CloseFrame {
            code: f.code.into(),
            reason: f.reason.as_str().into(),
        })),
    }
}

/// Relays frames both ways until either side closes; a client silent for
/// `silent_for` (the owner's pings are passed to it, so a live client answers) is
/// cut off, and the owner's socket with it. When this instance shuts down, the
/// client is closed with 1001 (going away), as its own sockets are: it reconnects
/// through another instance.
async fn relay(
    client: WebSocket,
    upstream: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    silent_for: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let (mut to_client_tx, mut from_client) = client.split();
    let (mut to_upstream, mut from_upstream) = upstream.split();
    let mut heard = tokio::time::Instant::now();
    let mut check = tokio::time::interval(silent_for / 3);
    loop {
        tokio::select! {
            m = from_client.next() => match m {
                Some(Ok(m)) => {
                    heard = tokio::time::Instant::now();
                    let close = matches!(m, ws::Message::Close(_));
                    if to_upstream.send(to_owner_frame(m)).await.is_err() || close {
                        break;
                    }
                }
                _ => break,
            },
            m = from_upstream.next() => match m {
                Some(Ok(m)) => {
                    let close = matches!(m, tungstenite::Message::Close(_));
                    if let Some(m) = to_client(m)
                        && (to_client_tx.send(m).await.is_err() || close)
                    {
                        break;
                    }
                }
                _ => break,
            },
            _ = check.tick() => {
                if heard.elapsed() >= silent_for {
                    break;
                }
            }
            () = shutdown.cancelled() => {
                let going = catan_protocol::CloseCode::GoingAway;
                let _ = to_client_tx
                    .send(ws::Message::Close(Some(ws::CloseFrame {
                        code: going.code(),
                        reason: going.reason().into(),
                    })))
                    .await;
                break;
            }
        }
    }
    let _ = to_upstream.close().await;
    let _ = to_client_tx.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_a_room_name_one() {
        let id = Uuid::from_u128(5);
        let uri = |s: &str| s.parse::<Uri>().unwrap();
        assert_eq!(room_of(&uri(&format!("/api/rooms/{id}"))), Some(id));
        assert_eq!(
            room_of(&uri(&format!("/api/rooms/{id}/ws?token=x"))),
            Some(id)
        );
        assert_eq!(room_of(&uri("/api/rooms")), None);
        assert_eq!(room_of(&uri("/api/rooms/not-a-room/seats")), None);
        assert_eq!(room_of(&uri(&format!("/api/games/{id}"))), None);
    }
}
