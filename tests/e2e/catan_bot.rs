//! The `catan-bot` binary as a process: it creates a room of four on a running
//! server, fills three seats with built-in bots, and plays the fourth to the end.

use std::time::Duration;

use catan_e2e::TestServer;
use catan_engine::Seat;
use catan_protocol::{GameStatus, GameSummary};
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catan_bot_binary_plays_its_seat_to_game_over_against_three_built_in_bots() {
    let server = TestServer::start().await;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_catan-bot-e2e"));
    command
        .args(["--url", &format!("ws://{}", server.addr)])
        .args(["--create", "4", "--strategy", "heuristic", "--seed", "3"])
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(180), command.output())
        .await
        .expect("catan-bot ends its game in time")
        .expect("run catan-bot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "catan-bot failed: {}\n{stdout}\n{stderr}",
        output.status
    );
    let room: Uuid = stdout
        .lines()
        .find_map(|l| l.strip_prefix("created room "))
        .unwrap_or_else(|| panic!("no room in:\n{stdout}"))
        .trim()
        .parse()
        .expect("room id");
    // "game over: winner seat N | me seat M with P points | A actions, 0 rejected"
    let over = stdout
        .lines()
        .find_map(|l| l.strip_prefix("game over: winner seat "))
        .unwrap_or_else(|| panic!("no winner in:\n{stdout}"));
    let winner: u8 = over
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("winner seat");
    assert!(over.ends_with(" 0 rejected"), "{over}");

    // The server's record says the same: finished, that winner, with 10 points, and
    // the three other seats played by built-in bots.
    let r = server
        .http
        .get(server.url(&format!("/api/games/{room}")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200);
    let game: GameSummary = r.json().await.expect("summary");
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.winner, Some(Seat(winner)));
    let top = game
        .players
        .iter()
        .find(|p| p.seat == Seat(winner))
        .expect("the winner's seat");
    assert!(top.final_vp >= Some(10), "{top:?}");
    let people: Vec<_> = game.players.iter().filter(|p| p.bot.is_none()).collect();
    assert_eq!(game.players.len(), 4);
    assert_eq!(people.len(), 1, "catan-bot's seat only: {:?}", game.players);
    assert_eq!(people[0].name, "catan-bot");
    server.stop().await;
}
