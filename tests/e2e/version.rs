//! Protocol versions: a client may state the version it speaks when it connects
//! (`?protocol=`); one the server does not speak is told so and closed with 4012.

use catan_e2e::TestServer;
use catan_protocol::{CloseCode, ClosingReason, PROTOCOL_VERSION, ServerMessage};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_states_its_protocol_version_and_one_the_server_does_not_speak_is_closed_with_4012()
 {
    let server = TestServer::start().await;
    let created = server.create_room(json!({ "players": 3 })).await;
    let room = created.room_id;
    let ann = server.take_seat(room, "ann").await;

    // The version the server speaks, and no version at all (today's clients).
    for query in [
        format!("token={}&protocol={PROTOCOL_VERSION}", ann.token),
        format!("protocol={PROTOCOL_VERSION}"),
        String::new(),
    ] {
        let mut c = server.connect_query(room, &query).await;
        let Some(ServerMessage::Snapshot(s)) = c.recv().await else {
            panic!("{query}: a snapshot first")
        };
        assert_eq!(s.protocol_version, PROTOCOL_VERSION);
    }
    // Resuming with the version: the connection is accepted, so it speaks it.
    let mut c = server
        .connect_query(
            room,
            &format!("token={}&last_seq=0&protocol={PROTOCOL_VERSION}", ann.token),
        )
        .await;
    let m = c
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Resumed { .. } | ServerMessage::Snapshot(_)
            )
        })
        .await;
    assert!(
        matches!(m, ServerMessage::Resumed { protocol_version, .. } if protocol_version == PROTOCOL_VERSION),
        "a resumed client is told the server's version too: {m:?}"
    );

    // Another version: told why, then closed with 4012; the seat is not touched.
    let mut spectator = server.connect(room, None, None).await;
    spectator.recv().await.expect("snapshot");
    for query in [
        format!("token={}&protocol={}", ann.token, PROTOCOL_VERSION + 1),
        "protocol=0".to_owned(),
    ] {
        let mut c = server.connect_query(room, &query).await;
        let first = c.recv().await.expect("a closing message");
        let ServerMessage::Closing { code, message } = first else {
            panic!("{query}: expected closing, got {first:?}")
        };
        assert_eq!(code, ClosingReason::UnsupportedVersion.code());
        assert!(
            message.contains(&PROTOCOL_VERSION.to_string()),
            "the message names the version the server speaks: {message}"
        );
        assert!(c.recv().await.is_none(), "closed right after");
        assert_eq!(c.closed_with, Some(CloseCode::UnsupportedVersion.code()));
    }
    // Nothing was announced: the refused connections never reached the room.
    spectator
        .send_json(&json!({"type": "ping", "request_id": "p"}))
        .await;
    let next = spectator.recv().await.expect("pong");
    assert!(matches!(next, ServerMessage::Pong { .. }), "{next:?}");
    server.stop().await;
}
