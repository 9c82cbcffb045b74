//! every game ends. A room of heuristic bots at a target of 20 (which they
//! rarely reach) with the lowest turn limit ends with no winner: `game_over` with
//! `winner: null`, stored as finished with a NULL winner, listed, and replayable.

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_engine::{Actor, Event, Game, Phase};
use catan_protocol::{BotKind, GameList, GameStatus, Replay, ServerMessage};
use catan_server::store::{SqlStore, Store};
use serde_json::{Value, json};

use crate::persistence::wait_until_stored;

async fn a_room_at_its_turn_limit_ends_with_no_winner(server: &TestServer, url: &str) {
    let created = server
        .create_room(json!({ "players": 4, "vp_target": 20, "turn_limit": 100 }))
        .await;
    let room = created.room_id;
    assert_eq!(created.room.options.game.turn_limit, 100);
    let bots = server.url(&format!("/api/rooms/{room}/bots"));
    for _ in 0..4 {
        let r = server
            .http
            .post(&bots)
            .bearer_auth(&created.host_token)
            .json(&json!({ "kind": "heuristic" }))
            .send()
            .await
            .expect("http");
        assert_eq!(r.status(), 201);
    }
    let mut spectator = server.connect(room, None, None).await;
    server.start_game(room, &created.host_token).await;
    let over = spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let ServerMessage::GameOver(over) = over else {
        unreachable!()
    };
    assert_eq!(over.winner, None, "nobody reached 20 in 100 turns");
    // The events just before: the last turn ended, and the game with it.
    let ended = spectator.received.iter().rev().any(|(_, m)| {
        matches!(m, ServerMessage::Events { events, .. }
            if events.contains(&Event::TurnLimitReached { turn: 100 })
                && events.last() == Some(&Event::PhaseChanged { phase: Phase::Over { winner: None } }))
    });
    assert!(ended, "turn_limit_reached and phase over sent");
    let (text, _) = spectator
        .received
        .iter()
        .rev()
        .find(|(_, m)| matches!(m, ServerMessage::GameOver(_)))
        .expect("game_over");
    let raw: Value = serde_json::from_str(text).expect("json");
    assert_eq!(raw["winner"], Value::Null, "winner: null on the wire");
    // The room is finished and says so.
    let room_msg = spectator
        .recv_until(|m| matches!(m, ServerMessage::Room { .. }))
        .await;
    let ServerMessage::Room { room: info, .. } = room_msg else {
        unreachable!()
    };
    assert_eq!(info.status, catan_protocol::RoomStatus::Finished);

    // Stored as finished, with no winner and the scores as they stood.
    let summary = wait_until_stored(server, room).await;
    assert_eq!(summary.status, GameStatus::Finished);
    assert_eq!(summary.winner, None);
    assert!(summary.finished_at.is_some());
    assert_eq!(summary.seed.as_deref(), Some(over.seed.as_str()));
    for (p, s) in summary.players.iter().zip(&over.scores) {
        assert_eq!(p.final_vp, Some(s.points));
        assert_eq!(p.bot, Some(BotKind::Medium));
    }
    let store = SqlStore::connect(url).await.expect("store");
    let record = store.game(room).await.expect("record");
    let finish = record.finished.expect("a result");
    assert_eq!(finish.winner, None, "a NULL winner");
    assert_eq!(finish.scores, over.scores);

    // Listed among the finished games, with `winner: null`.
    let list: Value = server
        .http
        .get(server.url("/api/games?per_page=100"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed = list["games"]
        .as_array()
        .expect("games")
        .iter()
        .find(|g| g["id"] == json!(room.to_string()))
        .expect("listed");
    assert_eq!(listed["winner"], Value::Null);
    assert_eq!(listed["options"]["turn_limit"], json!(100));
    let typed: GameList = serde_json::from_value(list).expect("a game list");
    assert!(typed.games.iter().any(|g| g.id == room));

    // The replay rebuilds the game to the same end.
    let replay: Replay = server
        .http
        .get(server.url(&format!("/api/games/{room}/replay")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(replay.engine_options.turn_limit, 100);
    let mut game = Game::new(replay.engine_options, over.seed.parse().unwrap()).unwrap();
    for step in &replay.actions {
        let actor = step.seat.map_or(Actor::System, Actor::Seat);
        let events = game
            .apply(actor, step.action)
            .expect("stored actions replay");
        assert_eq!(events, step.events);
    }
    assert!(game.is_over());
    assert_eq!((game.winner(), game.turn()), (None, 100));
    assert_eq!(game.final_scores(), over.scores);
    assert_eq!(replay.final_scores, over.scores);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heuristic_bots_at_twenty_points_end_at_the_turn_limit_with_no_winner_in_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    a_room_at_its_turn_limit_ends_with_no_winner(&server, &url).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heuristic_bots_at_twenty_points_end_at_the_turn_limit_with_no_winner_in_postgres() {
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    a_room_at_its_turn_limit_ends_with_no_winner(&server, &url).await;
    server.stop().await;
}
