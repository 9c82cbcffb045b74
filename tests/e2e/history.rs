//! The history API as clients read it right after a game: finished games of
//! unlisted rooms stay out of the public list, and a game's record is finished, and
//! whole, by the time anyone hears `game_over`.

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url};
use catan_protocol::{GameList, GameOverInfo, GameStatus, GameSummary, ServerMessage};
use serde_json::json;
use uuid::Uuid;

/// Plays a game of three bots to `game_over`, as a spectator sees it; right then
/// reads `GET /api/games/{id}`.
async fn bots_game_then_read(
    server: &TestServer,
    listed: bool,
) -> (Uuid, GameOverInfo, GameSummary) {
    let created = server
        .create_room(json!({ "players": 3, "vp_target": 3, "listed": listed }))
        .await;
    let id = created.room_id;
    for _ in 0..3 {
        server.add_bot(id, &created.host_token).await;
    }
    let mut spectator = server.connect(id, None, None).await;
    server.start_game(id, &created.host_token).await;
    let ServerMessage::GameOver(over) = spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await
    else {
        unreachable!()
    };
    let r = server
        .http
        .get(server.url(&format!("/api/games/{id}")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200);
    (id, over, r.json().await.expect("summary"))
}

/// What is wrong with a record read right after `game_over`, if anything.
fn not_finished_whole(over: &GameOverInfo, g: &GameSummary) -> Option<String> {
    let whole = g.status == GameStatus::Finished
        && g.finished_at.is_some()
        && g.winner == over.winner
        && g.seed.as_deref() == Some(over.seed.as_str())
        && g.players.iter().all(|p| {
            over.scores
                .iter()
                .any(|s| s.seat == p.seat && p.final_vp == Some(s.points))
        });
    (!whole).then(|| format!("{:?} {:?}", g.status, g.players))
}

/// Over many fast games, the record read right after `game_over` is never `playing`
/// nor half-written (the result is stored before `game_over` is broadcast, and a
/// record is read in one statement).
async fn every_record_is_finished_at_game_over(url: &str) {
    const GAMES: usize = 40;
    const AT_ONCE: usize = 8;
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    let mut bad = Vec::new();
    for _ in 0..GAMES / AT_ONCE {
        let games = (0..AT_ONCE).map(|_| bots_game_then_read(&server, true));
        for (id, over, g) in futures_util::future::join_all(games).await {
            if let Some(wrong) = not_finished_whole(&over, &g) {
                bad.push(format!("{id}: {wrong}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {GAMES} records read right after game_over were not finished whole:\n{}",
        bad.len(),
        bad.join("\n")
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_finished_in_the_history_when_game_over_is_heard_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    every_record_is_finished_at_game_over(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_finished_in_the_history_when_game_over_is_heard_postgres() {
    every_record_is_finished_at_game_over(&fresh_postgres_url().await).await;
}

/// The finished game of an unlisted room is not in `GET /api/games` (nor with a
/// player filter), only by its id.
async fn unlisted_games_are_not_listed(url: &str) {
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    let (public, _, _) = bots_game_then_read(&server, true).await;
    let (private, over, g) = bots_game_then_read(&server, false).await;
    assert_eq!(not_finished_whole(&over, &g), None, "reachable by its id");
    let list = |query: &str| {
        let url = server.url(&format!("/api/games{query}"));
        let http = server.http.clone();
        async move {
            let r = http.get(url).send().await.expect("http");
            assert_eq!(r.status(), 200);
            let list: GameList = r.json().await.expect("list");
            list.games.iter().map(|g| g.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(list("").await, vec![public]);
    let name = &g.players[0].name;
    let by_name = list(&format!("?player={}", name.replace(' ', "%20"))).await;
    assert!(
        by_name.contains(&public) && !by_name.contains(&private),
        "{by_name:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_games_stay_out_of_the_public_history_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    unlisted_games_are_not_listed(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_games_stay_out_of_the_public_history_postgres() {
    unlisted_games_are_not_listed(&fresh_postgres_url().await).await;
}
