//! One misbehaving client per room (`--misbehave`): a spectator connection beside the
//! four well-behaved seats that does one of the things an abusive or broken client
//! does, for as long as the room's game runs, reconnecting whenever the server
//! closes it. The room slot's own clients are measured as usual: the soak asks
//! that no room stalls, memory stays flat and their latency stays near a clean run.

use std::collections::BTreeMap;
use std::time::Duration;

use catan_protocol::ClientMessage;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use uuid::Uuid;

use crate::target::Target;

/// What a misbehaving client does, chosen by room slot in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Misbehaviour {
    /// Sends chat and pings as fast as the socket takes them, reading what comes.
    Flood,
    /// Never reads: the server's queue for it fills until it is dropped.
    SlowReader,
    /// Sends garbage: malformed JSON, unknown types, wrong fields, binary frames.
    Garbage,
    /// Connects, reads the snapshot, leaves, again and again.
    Churn,
}

impl Misbehaviour {
    /// Every kind, in the order room slots take them.
    pub(super) const ALL: [Misbehaviour; 4] = [
        Misbehaviour::Flood,
        Misbehaviour::SlowReader,
        Misbehaviour::Garbage,
        Misbehaviour::Churn,
    ];

    /// The kind for room slot `slot`.
    #[must_use]
    pub(super) fn for_slot(slot: usize) -> Misbehaviour {
        Misbehaviour::ALL[slot % Misbehaviour::ALL.len()]
    }
}

/// What the misbehaving clients of one slot saw.
#[derive(Debug, Clone, Default)]
pub(super) struct MisbehaviourStats {
    /// Connections opened.
    pub(super) connections: u64,
    /// Upgrades the server refused (e.g. a connection cap).
    pub(super) refused: u64,
    /// Frames sent.
    pub(super) sent: u64,
    /// Closes by the server, by close code (1006: none, the socket just ended).
    pub(super) closes: BTreeMap<u16, u64>,
}

impl MisbehaviourStats {
    pub(super) fn absorb(&mut self, o: &MisbehaviourStats) {
        self.connections += o.connections;
        self.refused += o.refused;
        self.sent += o.sent;
        for (code, n) in &o.closes {
            *self.closes.entry(*code).or_default() += n;
        }
    }

    fn closed(&mut self, frame: Option<&CloseFrame>) {
        let code = frame.map_or(1006, |f| u16::from(f.code));
        *self.closes.entry(code).or_default() += 1;
    }
}

/// Garbage frames, sent in turn.
const GARBAGE: [&str; 6] = [
    "{nope",
    r#"{"type":"dance"}"#,
    r#"{"type":"action","request_id":"x","action":{"type":"build_city","vertex":999}}"#,
    r#"{"type":"sync","x":1}"#,
    "[1,2,3]",
    r#"{"type":"chat","text":""}"#,
];

/// Misbehaves in `room` as `kind` until the task is aborted (the room slot aborts
/// it when its game ends), updating `stats` as it goes.
pub(super) async fn misbehave(
    target: Target,
    room: Uuid,
    kind: Misbehaviour,
    stats: std::sync::Arc<std::sync::Mutex<MisbehaviourStats>>,
) {
    let url = format!(
        "{}/api/rooms/{room}/ws?protocol={}",
        target.ws,
        catan_protocol::PROTOCOL_VERSION
    );
    let mut n: u64 = 0;
    loop {
        let connected = match target.tcp().await {
            Ok(stream) => tokio_tungstenite::client_async(&url, stream).await.ok(),
            Err(_) => None,
        };
        let Some((ws, _)) = connected else {
            stats.lock().expect("stats").refused += 1;
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        stats.lock().expect("stats").connections += 1;
        let (mut tx, mut rx) = ws.split();
        match kind {
            Misbehaviour::SlowReader => {
                // Hold the socket without reading for a while, then start over.
                tokio::time::sleep(Duration::from_secs(5)).await;
                let close = rx.next().await;
                if let Some(Ok(Message::Close(f))) = close {
                    stats.lock().expect("stats").closed(f.as_ref());
                }
                continue;
            }
            Misbehaviour::Churn => {
                let _ = rx.next().await;
                let _ = tx.close().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Misbehaviour::Flood | Misbehaviour::Garbage => {}
        }
        // Flood and garbage: send without pause while reading whatever comes.
        loop {
            n += 1;
            let frame = match kind {
                Misbehaviour::Flood => {
                    let msg = if n.is_multiple_of(2) {
                        ClientMessage::Chat {
                            text: format!("flood {n} 洪水 {}", "x".repeat((n % 200) as usize)),
                        }
                    } else {
                        ClientMessage::Ping {
                            request_id: Some(n.to_string()),
                        }
                    };
                    Message::text(serde_json::to_string(&msg).expect("client messages serialize"))
                }
                _ if n.is_multiple_of(7) => Message::binary(vec![0u8; 64]),
                _ => Message::text(GARBAGE[(n as usize) % GARBAGE.len()]),
            };
            tokio::select! {
                sent = tx.send(frame) => {
                    if sent.is_err() { break; }
                    stats.lock().expect("stats").sent += 1;
                }
                m = rx.next() => match m {
                    Some(Ok(Message::Close(f))) => {
                        stats.lock().expect("stats").closed(f.as_ref());
                        break;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        stats.lock().expect("stats").closed(None);
                        break;
                    }
                },
            }
            if n.is_multiple_of(64) {
                // Let the runtime breathe: one task must not starve the others
                // of this load generator, only flood the server.
                tokio::task::yield_now().await;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
