//! The backup and restore commands of docs/self-hosting.md, run as written there (for PostgreSQL,
//! the part after `docker compose exec db`): a finished game is backed up from a
//! running server, the backup is restored into a fresh store, and a server started
//! on it has the game, its result and its replay as before.

use catan_e2e::{TestServer, fresh_postgres_url};
use catan_protocol::{GameSummary, Replay};
use uuid::Uuid;

use crate::persistence::{bots_game, wait_until_stored};
use crate::upgrade::run_tool;

/// The stored record and replay of `id`, as the server answers them.
async fn record(server: &TestServer, id: Uuid) -> (GameSummary, Replay) {
    let summary = wait_until_stored(server, id).await;
    let r = server
        .http
        .get(server.url(&format!("/api/games/{id}/replay")))
        .send()
        .await
        .expect("http");
    assert_eq!(r.status(), 200);
    (summary, r.json().await.expect("replay"))
}

/// The commands of docs/self-hosting.md, which this test runs, must still be there.
fn self_hosting_says(command: &str) {
    let readme = include_str!("../../docs/self-hosting.md");
    assert!(
        readme.contains(command),
        "docs/self-hosting.md no longer gives `{command}`: update it and this test together"
    );
}

#[tokio::test]
async fn an_sqlite_backup_taken_while_the_server_runs_restores_every_game() {
    self_hosting_says(r#"sqlite3 catan.db ".backup backup.db""#);
    self_hosting_says("cp backup.db catan.db");
    let dir = tempfile::tempdir().expect("tempdir");
    let live = dir.path().join("catan.db");
    let url = format!("sqlite://{}", live.display());
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let (id, _, _) = bots_game(&server, 3).await;
    let before = record(&server, id).await;

    // Backed up while the server runs, then restored over a fresh file.
    let backup = dir.path().join("backup.db");
    let backup_arg = format!(".backup {}", backup.display());
    run_tool(
        "sqlite3",
        &[live.to_str().expect("utf-8"), &backup_arg],
        None,
    );
    server.stop().await;
    let restored_dir = tempfile::tempdir().expect("tempdir");
    let restored = restored_dir.path().join("catan.db");
    std::fs::copy(&backup, &restored).expect("cp backup.db catan.db");

    let url = format!("sqlite://{}", restored.display());
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    assert_eq!(record(&server, id).await, before);
    server.stop().await;
}

#[tokio::test]
async fn a_pg_dump_restored_with_psql_into_a_fresh_database_has_every_game() {
    self_hosting_says("pg_dump -U catan catan > catan-$(date +%F).sql");
    self_hosting_says("psql -U catan -d catan < catan-2026-01-31.sql");
    let url = fresh_postgres_url().await;
    let server = TestServer::start_with(|c| c.store.database_url = url.clone().into()).await;
    let (id, _, _) = bots_game(&server, 4).await;
    let before = record(&server, id).await;

    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("catan.sql");
    let out = std::process::Command::new("pg_dump")
        .args(["-d", &url])
        .output()
        .expect("run pg_dump");
    assert!(
        out.status.success(),
        "pg_dump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&dump, &out.stdout).expect("write the dump");
    server.stop().await;

    let fresh = fresh_postgres_url().await;
    run_tool(
        "psql",
        &["-q", "-v", "ON_ERROR_STOP=1", "-d", &fresh],
        Some(&dump),
    );
    let server = TestServer::start_with(|c| c.store.database_url = fresh.clone().into()).await;
    assert_eq!(record(&server, id).await, before);
    server.stop().await;
}
