//! Ratings (protocol 25.8 and 25.9): rated rooms update their players' ratings once
//! per finished game, in the transaction that stores the result, on SQLite and on
//! PostgreSQL; the game record names each seat's player and rating change; profiles
//! and the leaderboard show them; a recomputation from the stored games equals the
//! live ratings (`catan-server ratings`); a server killed (SIGKILL) between the
//! game's last action and its result rates the game once, when restored; rated
//! rooms refuse seats that cannot be rated.

use std::process::Command;
use std::time::Duration;

use catan_e2e::{TestServer, fresh_postgres_url, fresh_sqlite_url, play_randomly};
use catan_protocol::{GameStatus, GameSummary, Leaderboard, PlayerProfile, SignedIn};
use catan_server::store::{SqlStore, Store, bot_player_id};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// A game in a new room of `people` and one bot of level `bot`, `rated` or not,
/// played to its end by random legal actions; returns the game's id once its result
/// is stored (or, with `stored` false, once every person heard it end).
async fn play_game(
    server: &TestServer,
    people: &[&SignedIn],
    bot: &str,
    rated: bool,
    seed: u64,
    stored: bool,
) -> Uuid {
    let players = people.len() + 1;
    let created = server
        .create_room(json!({
            "players": players, "vp_target": 5, "turn_limit": 100, "rated": rated,
            "stand_in_secs": 0
        }))
        .await;
    let room = created.room_id;
    let mut clients = Vec::new();
    for p in people {
        let token = server.seat_as(room, p).await;
        clients.push(server.connect(room, Some(&token), None).await);
    }
    server
        .add_bot_of_kind(room, &created.host_token, Some(bot))
        .await;
    server.start_game(room, &created.host_token).await;
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(play_randomly(c, seed * 10 + i as u64)))
        .collect();
    for t in tasks {
        t.await.expect("a player");
    }
    if stored {
        game_when_finished(server, room).await;
    }
    room
}

/// `GET /api/games/{id}` once the game reads as finished (its result stored).
async fn game_when_finished(server: &TestServer, id: Uuid) -> GameSummary {
    for _ in 0..200 {
        let (status, body, _) = server
            .call(Method::GET, &format!("/api/games/{id}"), None, None)
            .await;
        assert_eq!(status, 200, "{body}");
        let game: GameSummary = serde_json::from_value(body).expect("GameSummary");
        if game.status == GameStatus::Finished {
            return game;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("game {id} was not stored as finished within 10 s");
}

async fn profile(server: &TestServer, id: Uuid, query: &str) -> PlayerProfile {
    let (status, body, _) = server
        .call(
            Method::GET,
            &format!("/api/players/{id}{query}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("PlayerProfile")
}

async fn leaderboard(server: &TestServer, query: &str) -> Leaderboard {
    let (status, body, _) = server
        .call(Method::GET, &format!("/api/leaderboard{query}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("Leaderboard")
}

/// Three rated games and one unrated among three guests and a bot, against the
/// server on `url`: what each record, profile and the leaderboard show, and the
/// recomputation.
async fn rated_games_against(url: &str) {
    let server = TestServer::start_with(|c| c.store.database_url = url.into()).await;
    let (ann, _) = server.guest("Ann").await;
    let (bob, _) = server.guest("Bob").await;
    let (cat, _) = server.guest("Cat").await;
    let people = [&ann, &bob, &cat];
    let mut rated = Vec::new();
    for (i, bot) in ["medium", "easy", "medium"].into_iter().enumerate() {
        rated.push(play_game(&server, &people, bot, true, i as u64, true).await);
    }
    let unrated = play_game(&server, &people, "easy", false, 7, true).await;

    // Each rated record names every seat's player and rating change; the bot's
    // rating is fixed; the winner is first.
    let mut last_after = std::collections::HashMap::new();
    for id in &rated {
        let game = game_when_finished(&server, *id).await;
        assert!(game.options.rated);
        for p in &game.players {
            let change = p
                .rating
                .unwrap_or_else(|| panic!("{id}: no rating change: {p:?}"));
            match p.bot {
                Some(kind) => {
                    assert_eq!(p.player_id, Some(bot_player_id(kind)));
                    assert_eq!(change.before, change.after, "a bot's rating is fixed");
                }
                None => {
                    let who = people
                        .iter()
                        .find(|s| Some(s.player.id) == p.player_id)
                        .unwrap_or_else(|| panic!("seat {p:?} is nobody's"));
                    if let Some(before) = last_after.insert(who.player.id, change.after) {
                        assert_eq!(change.before, before, "ratings carry from game to game");
                    } else {
                        assert_eq!(change.before, 1000, "a new player's");
                    }
                    assert!(change.provisional);
                }
            }
            if game.winner == Some(p.seat) {
                assert_eq!(change.place, 1, "{game:?}");
            }
        }
        let places: Vec<u8> = game
            .players
            .iter()
            .map(|p| p.rating.unwrap().place)
            .collect();
        assert!(places.contains(&1), "{places:?}");
    }
    let game = game_when_finished(&server, unrated).await;
    assert!(game.players.iter().all(|p| p.rating.is_none()), "{game:?}");
    assert!(game.players.iter().all(|p| p.player_id.is_some()));

    // The profile: the rating, every finished game, the recent ones with their
    // changes (newest first: the unrated one).
    let p = profile(&server, ann.player.id, "").await;
    assert_eq!(p.name, "Ann");
    assert!(!p.account && p.bot.is_none());
    assert_eq!(p.rating.games, 3);
    assert_eq!(p.games, 4);
    assert!(p.rating.provisional);
    assert_eq!(Some(&p.rating.value), last_after.get(&ann.player.id));
    assert_eq!(p.recent.len(), 4);
    assert_eq!(p.recent[0].id, unrated);
    assert_eq!(
        p.recent.iter().filter(|g| g.options.rated).count(),
        3,
        "{:?}",
        p.recent.iter().map(|g| g.id).collect::<Vec<_>>()
    );
    let page = profile(&server, ann.player.id, "?offset=1&limit=2").await;
    assert_eq!(
        page.recent.iter().map(|g| g.id).collect::<Vec<_>>(),
        p.recent[1..3].iter().map(|g| g.id).collect::<Vec<_>>()
    );
    let wins = p
        .recent
        .iter()
        .filter(|g| {
            g.players
                .iter()
                .any(|s| s.player_id == Some(ann.player.id) && g.winner == Some(s.seat))
        })
        .count() as u64;
    assert_eq!(p.wins, wins);

    // A bot level's identity: its fixed rating and its games.
    let medium = profile(&server, bot_player_id(catan_protocol::BotKind::Medium), "").await;
    assert_eq!(medium.bot, Some(catan_protocol::BotKind::Medium));
    assert_eq!(
        medium.rating.value,
        catan_ratings::bot_skill(catan_protocol::BotKind::Medium)
            .unwrap()
            .display()
    );
    assert_eq!(medium.games, 2);
    assert_eq!(medium.rating.games, 2);

    // The leaderboard: nobody settled yet; with the provisional, the three people
    // (no bot), best first.
    let board = leaderboard(&server, "").await;
    assert_eq!((board.entries.len(), board.total), (0, 0), "{board:?}");
    let board = leaderboard(&server, "?provisional=true").await;
    assert_eq!(board.total, 3);
    let ids: Vec<Uuid> = board.entries.iter().map(|e| e.id).collect();
    for s in &people {
        assert!(ids.contains(&s.player.id), "{board:?}");
    }
    for w in board.entries.windows(2) {
        assert!(w[0].rating.value >= w[1].rating.value, "{board:?}");
        assert!(
            w[0].rank < w[1].rank || w[0].rating.value == w[1].rating.value,
            "{board:?}"
        );
    }
    assert_eq!(board.entries[0].rank, 1);
    let second = leaderboard(&server, "?provisional=true&offset=1&limit=1").await;
    assert_eq!(second.entries.len(), 1);
    assert_eq!(second.entries[0].id, board.entries[1].id);
    assert_eq!(second.entries[0].rank, board.entries[1].rank);

    // The recomputation from the stored games equals the live ratings, to the bit.
    let store = SqlStore::connect(url).await.expect("store");
    let again = store.recompute_ratings(false).await.expect("recompute");
    assert_eq!((again.games, again.players), (3, 3));
    assert!(again.differ.is_empty(), "{:?}", again.differ);

    // Storing a stored result again (a retry after a lost answer) rates nothing
    // twice.
    let record = store.game(rated[0]).await.expect("game");
    let mut finish = record.finished.clone().expect("finished");
    finish.rated = Some(
        record
            .players
            .iter()
            .map(|p| catan_server::store::Place {
                seat: p.seat,
                place: 1,
                turns: 10,
                stood_in: 0,
            })
            .collect(),
    );
    store.finish_game(rated[0], &finish).await.expect("again");
    assert_eq!(
        profile(&server, ann.player.id, "").await.rating,
        p.rating,
        "unchanged"
    );
    assert!(
        store
            .recompute_ratings(false)
            .await
            .unwrap()
            .differ
            .is_empty()
    );

    // A rating changed by hand is found, and rewritten from the games.
    sqlx::query("UPDATE players SET rating_mu = rating_mu + 1 WHERE id = $1")
        .bind(ann.player.id.to_string())
        .execute(store.pool())
        .await
        .unwrap();
    let found = store.recompute_ratings(false).await.unwrap();
    assert_eq!(found.differ.len(), 1);
    assert_eq!(found.differ[0].0, ann.player.id);
    store.recompute_ratings(true).await.unwrap();
    assert!(
        store
            .recompute_ratings(false)
            .await
            .unwrap()
            .differ
            .is_empty()
    );
    assert_eq!(profile(&server, ann.player.id, "").await.rating, p.rating);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_update_ratings_once_and_a_recomputation_equals_them_on_sqlite() {
    let (url, _dir) = fresh_sqlite_url();
    rated_games_against(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_update_ratings_once_and_a_recomputation_equals_them_on_postgres() {
    rated_games_against(&fresh_postgres_url().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_rooms_refuse_seats_that_cannot_be_rated_and_unknown_players_are_404() {
    let server = TestServer::start().await;
    let (ann, _) = server.guest("Ann").await;
    let created = server.create_room(json!({ "rated": true })).await;
    assert!(created.room.options.rated);
    let room = created.room_id;
    let seats = format!("/api/rooms/{room}/seats");
    let take = |token: Option<String>| {
        let seats = seats.clone();
        let server = &server;
        async move {
            let (status, body, _) = server
                .call(
                    Method::POST,
                    &seats,
                    token.as_deref(),
                    Some(json!({ "name": "Ann" })),
                )
                .await;
            (status, code(&body).to_owned())
        }
    };
    assert_eq!(take(None).await, (401, "not_signed_in".to_owned()));
    assert_eq!(take(Some(ann.token.clone())).await.0, 201);
    assert_eq!(
        take(Some(ann.token.clone())).await,
        (409, "already_seated".to_owned())
    );
    let (status, body, _) = server
        .call(
            Method::POST,
            &format!("/api/rooms/{room}/bots"),
            Some(&created.host_token),
            Some(json!({ "kind": "random" })),
        )
        .await;
    assert_eq!((status, code(&body)), (400, "bot_not_rated"), "{body}");
    // Nothing changed: one seat taken.
    let (_, info, _) = server
        .call(Method::GET, &format!("/api/rooms/{room}"), None, None)
        .await;
    let taken = info["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["occupant"].is_null())
        .count();
    assert_eq!(taken, 1, "{info}");

    for path in [
        format!("/api/players/{}", Uuid::new_v4()),
        "/api/players/not-a-uuid".to_owned(),
    ] {
        let (status, body, _) = server.call(Method::GET, &path, None, None).await;
        assert_eq!((status, code(&body)), (404, "player_not_found"), "{path}");
    }
    for path in [
        "/api/leaderboard?limit=many",
        "/api/leaderboard?sort=name",
        "/api/players/00000000-0000-4000-8000-000000000001?limit=x",
    ] {
        let (status, body, _) = server.call(Method::GET, path, None, None).await;
        assert_eq!(
            (status, code(&body)),
            (400, "bad_request"),
            "{path}: {body}"
        );
    }
    server.stop().await;
}

/// Runs `sql` on the database at `url` (SQLite), outside the server.
async fn execute(url: &str, sql: &str) {
    let store = SqlStore::connect(url).await.expect("store");
    sqlx::query(sql).execute(store.pool()).await.expect(sql);
    store.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_between_the_last_action_and_the_result_rates_the_game_once_when_restored()
{
    let (url, _dir) = fresh_sqlite_url();
    let env = [("CATAN_BOT_THINK_MS", "0")];
    let mut server = TestServer::spawn_process_with(&url, &env);
    server
        .wait_ready(Duration::from_secs(20))
        .await
        .expect("ready");
    let (ann, _) = server.guest("Ann").await;
    let (bob, _) = server.guest("Bob").await;
    // The result cannot be stored (the actions can): the server keeps retrying it
    // in the background, as when the database refuses it for a while.
    execute(
        &url,
        "CREATE TRIGGER refuse_results BEFORE UPDATE OF status ON games \
         WHEN NEW.status = 'finished' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    )
    .await;
    let id = play_game(&server, &[&ann, &bob], "medium", true, 3, false).await;
    let (_, body, _) = server
        .call(Method::GET, &format!("/api/games/{id}"), None, None)
        .await;
    assert_eq!(body["status"], "playing", "{body}");
    // SIGKILL: nothing more is written.
    server.kill();
    execute(&url, "DROP TRIGGER refuse_results").await;

    // Restored, the game's log ends it: its result is stored and rated, once.
    for round in 0..2 {
        let mut server = TestServer::spawn_process_with(&url, &env);
        server
            .wait_ready(Duration::from_secs(20))
            .await
            .expect("ready");
        let game = game_when_finished(&server, id).await;
        assert!(game.players.iter().all(|p| p.rating.is_some()), "{game:?}");
        let p = profile(&server, ann.player.id, "").await;
        assert_eq!(p.rating.games, 1, "round {round}");
        server.kill();
    }
    let store = SqlStore::connect(&url).await.expect("store");
    let again = store.recompute_ratings(false).await.expect("recompute");
    assert_eq!(again.games, 1);
    assert!(again.differ.is_empty(), "{:?}", again.differ);
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rating_changes WHERE game_id = $1")
        .bind(id.to_string())
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(rows, 3, "one row per seat, written once");

    // The command line says the same.
    let out = Command::new(env!("CARGO_BIN_EXE_catan-server-e2e"))
        .args(["--database-url", &url, "ratings"])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run catan-server ratings");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 rated games, 2 rated players, 0 differing"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_a_stand_in_played_for_is_placed_last_in_a_rated_game() {
    let (url, _dir) = fresh_sqlite_url();
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let (ann, _) = server.guest("Ann").await;
    let (bob, _) = server.guest("Bob").await;
    let created = server
        .create_room(json!({
            "players": 3, "vp_target": 5, "turn_limit": 100, "rated": true,
            "stand_in_secs": 1, "stand_in_level": "medium"
        }))
        .await;
    let room = created.room_id;
    let mut tokens = Vec::new();
    for p in [&ann, &bob] {
        tokens.push(server.seat_as(room, p).await);
    }
    server
        .add_bot_of_kind(room, &created.host_token, Some("easy"))
        .await;
    // Ann plays; Bob never comes: a stand-in plays every turn of his.
    let ann_client = server.connect(room, Some(&tokens[0]), None).await;
    server.start_game(room, &created.host_token).await;
    play_randomly(ann_client, 5).await;
    let game = game_when_finished(&server, room).await;
    let bob_seat = game
        .players
        .iter()
        .find(|p| p.player_id == Some(bob.player.id))
        .expect("Bob's seat");
    assert_eq!(
        bob_seat.rating.expect("rated").place,
        3,
        "replaced for every turn, Bob is last whatever his points: {game:?}"
    );
    // Every turn of Bob's was the stand-in's, as stored with the change.
    let store = SqlStore::connect(&url).await.expect("store");
    let (turns, stood_in): (i64, i64) = sqlx::query_as(
        "SELECT turns, stood_in FROM rating_changes WHERE game_id = $1 AND seat = $2",
    )
    .bind(room.to_string())
    .bind(i64::from(bob_seat.seat.0))
    .fetch_one(store.pool())
    .await
    .expect("Bob's change");
    assert!(
        turns > 0 && stood_in == turns,
        "{turns} turns, {stood_in} stood in"
    );
    let (_, body, _) = server
        .call(
            Method::GET,
            &format!("/api/players/{}", bob.player.id),
            None,
            None,
        )
        .await;
    assert_eq!(body["rating"]["games"], 1, "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_whose_owner_is_killed_before_its_result_is_rated_once_by_the_instance_that_takes_it_over()
 {
    let url = fresh_postgres_url().await;
    let plain = SqlStore::connect(&url).await.expect("store");
    let mut a = crate::cluster::instance_at(&url, &plain, "a", "2").await;
    let (ann, _) = a.guest("Ann").await;
    let (bob, _) = a.guest("Bob").await;
    // The owner cannot store the result (the actions it can): it retries in the
    // background until it is killed.
    for sql in [
        "CREATE FUNCTION refuse_results() RETURNS trigger AS $$ BEGIN \
         RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER refuse_results BEFORE UPDATE ON games FOR EACH ROW \
         WHEN (NEW.status = 'finished') EXECUTE FUNCTION refuse_results()",
    ] {
        sqlx::query(sql).execute(plain.pool()).await.expect(sql);
    }
    let room = play_game(&a, &[&ann, &bob], "medium", true, 4, false).await;
    let (_, body, _) = a
        .call(Method::GET, &format!("/api/games/{room}"), None, None)
        .await;
    assert_eq!(
        body["status"], "playing",
        "the result is not stored: {body}"
    );
    a.kill();
    sqlx::query("DROP TRIGGER refuse_results ON games")
        .execute(plain.pool())
        .await
        .expect("drop trigger");
    // Another instance claims the room when the lease runs out, restores the game
    // (its log ends it) and stores the result with the ratings, once.
    let mut b = crate::cluster::instance_at(&url, &plain, "b", "2").await;
    let game = game_when_finished(&b, room).await;
    assert!(game.players.iter().all(|p| p.rating.is_some()), "{game:?}");
    b.kill();
    let mut c = crate::cluster::instance_at(&url, &plain, "c", "2").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    for p in [&ann, &bob] {
        assert_eq!(profile(&c, p.player.id, "").await.rating.games, 1);
    }
    c.kill();
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rating_changes WHERE game_id = $1")
        .bind(room.to_string())
        .fetch_one(plain.pool())
        .await
        .unwrap();
    assert_eq!(rows, 3);
    let again = plain.recompute_ratings(false).await.expect("recompute");
    assert_eq!((again.games, again.players), (1, 2));
    assert!(again.differ.is_empty(), "{:?}", again.differ);
}
