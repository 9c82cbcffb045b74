//! After a game: the statistics of `game_over` are the replay's, and a rematch opens
//! one new room with the same options and the same bots, refused before the end.

use catan_e2e::TestServer;
use catan_protocol::{BotKind, RematchResponse, Replay, ServerMessage};
use serde_json::{Value, json};
use uuid::Uuid;

async fn rematch(server: &TestServer, room: Uuid, token: &str) -> (u16, Value) {
    let r = server
        .http
        .post(server.url(&format!("/api/rooms/{room}/rematch")))
        .bearer_auth(token)
        .send()
        .await
        .expect("http");
    (r.status().as_u16(), r.json().await.expect("json"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_opens_one_room_with_the_same_bots_once_the_game_is_over() {
    let server = TestServer::start().await;
    let created = server
        .create_room(json!({ "players": 3, "vp_target": 3, "map": "beginner" }))
        .await;
    let id = created.room_id;
    // The kinds by seat; the bots are seated out of order (2, 0, 1): each is named
    // after its seat all the same, and keeps its name in the rematch.
    let kinds = [BotKind::Random, BotKind::Easy, BotKind::Medium];
    for seat in [2, 0, 1] {
        let r = server
            .http
            .post(server.url(&format!("/api/rooms/{id}/bots")))
            .bearer_auth(&created.host_token)
            .json(&json!({ "kind": kinds[seat], "seat": seat }))
            .send()
            .await
            .expect("http");
        assert_eq!(r.status(), 201);
    }
    // Before the start, and during the game: refused with its code, nothing made.
    let (status, body) = rematch(&server, id, &created.host_token).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("game_not_finished"))
    );
    let (status, body) = rematch(&server, id, "not-a-token").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("invalid_token"))
    );
    let mut spectator = server.connect(id, None, None).await;
    server.start_game(id, &created.host_token).await;
    let ServerMessage::GameOver(over) = spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await
    else {
        unreachable!()
    };
    // The statistics: counted once, the same in game_over and in the replay.
    let replay: Replay = server
        .http
        .get(server.url(&format!("/api/games/{id}/replay")))
        .send()
        .await
        .expect("http")
        .json()
        .await
        .expect("replay");
    assert_eq!(replay.stats, over.stats);
    assert_eq!(over.stats.points.len(), 3);
    for (p, s) in over.stats.points.iter().zip(&over.scores) {
        assert_eq!(p.total, s.points);
        assert_eq!(p.vp_cards, s.vp_cards);
    }
    let rolls = replay
        .actions
        .iter()
        .flat_map(|a| &a.events)
        .filter(|e| matches!(e, catan_engine::Event::DiceRolled { .. }))
        .count();
    assert_eq!(over.stats.dice.iter().sum::<u32>() as usize, rolls);
    assert!(replay.start.buildings.is_empty());
    assert!(replay.actions.iter().all(|a| a.public_vp.len() == 3));

    // The first rematch makes the room; everyone in the old one hears of it.
    let (status, body) = rematch(&server, id, &created.host_token).await;
    assert_eq!(status, 201, "{body}");
    let first: RematchResponse = serde_json::from_value(body).expect("answer");
    assert_ne!(first.room_id, id);
    assert!(first.host_token.is_some());
    assert_eq!(first.room.options, replay.game.options);
    let seated: Vec<Option<BotKind>> = first
        .room
        .seats
        .iter()
        .map(|s| s.occupant.as_ref().and_then(|o| o.bot))
        .collect();
    assert_eq!(seated, kinds.map(Some).to_vec());
    let before: Vec<&str> = replay
        .game
        .players
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let after: Vec<&str> = first
        .room
        .seats
        .iter()
        .filter_map(|s| s.occupant.as_ref().map(|o| o.name.as_str()))
        .collect();
    assert_eq!(before, ["Bot 1", "Bot 2", "Bot 3"]);
    assert_eq!(after, before, "the rematch's bots keep their names");
    let heard = spectator
        .recv_until(|m| matches!(m, ServerMessage::Rematch { .. }))
        .await;
    assert!(matches!(heard, ServerMessage::Rematch { room_id, .. } if room_id == first.room_id));
    // Later calls answer the same room, without its host token; snapshots name it.
    let (status, body) = rematch(&server, id, &created.host_token).await;
    assert_eq!(status, 200);
    let again: RematchResponse = serde_json::from_value(body).expect("answer");
    assert_eq!((again.room_id, again.host_token), (first.room_id, None));
    let mut late = server.connect(id, None, None).await;
    let Some(ServerMessage::Snapshot(s)) = late.recv().await else {
        panic!("a snapshot first")
    };
    assert_eq!(s.rematch, Some(first.room_id));
    server.stop().await;
}
