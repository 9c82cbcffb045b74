//! The instances of a cluster forward many clients' sockets to each other, each
//! from its own address: the per-address socket cap (`--max-connections-per-address`)
//! does not count another live instance of the cluster, or a room owned by one
//! instance could be reached by only that many clients through another.

use std::time::Duration;

use catan_protocol::ServerMessage;
use catan_server::store::SqlStore;
use futures_util::StreamExt;
use serde_json::json;

use catan_e2e::fresh_postgres_url;

use crate::cluster::instance_at_with;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_forwards_more_sockets_than_the_per_address_cap_to_another() {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let cap = [("CATAN_MAX_CONNECTIONS_PER_ADDRESS", "4")];
    let a = instance_at_with(&url, &plain, "a", "2", &cap).await;
    let b = instance_at_with(&url, &plain, "b", "2", &cap).await;
    // The instances know each other after a beat.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let room = a.create_room(json!({ "players": 4 })).await;
    // Eight spectators, each from an address of its own, all through B: B forwards
    // every one to A from its single address.
    let mut sockets = Vec::new();
    for i in 2..10u8 {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind(std::net::SocketAddr::from(([127, 0, 0, i], 0)))
            .expect("bind");
        let tcp = socket.connect(b.addr).await.expect("connect to B");
        let url = format!("ws://{}/api/rooms/{}/ws", b.addr, room.room_id);
        let (mut ws, _) = tokio_tungstenite::client_async(url, tcp)
            .await
            .unwrap_or_else(|e| panic!("spectator {i} refused: {e}"));
        let first = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a first message")
            .expect("open")
            .expect("no error");
        let text = first.into_text().expect("text");
        let msg: ServerMessage = serde_json::from_str(text.as_str()).expect("a message");
        assert!(
            matches!(msg, ServerMessage::Snapshot(_)),
            "spectator {i}: {msg:?}"
        );
        sockets.push(ws);
    }
    assert_eq!(sockets.len(), 8);
}
