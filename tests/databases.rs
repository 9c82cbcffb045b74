//! The databases a test runs a server on: a fresh SQLite file, a fresh database on the
//! PostgreSQL server `.ci/run` starts, or the scratch PostgreSQL cluster (passwords
//! and TLS) that `.ci/pg-scratch` makes.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use uuid::Uuid;

/// A fresh SQLite database file in a new temporary directory (kept alive by the
/// returned guard, removed when it is dropped).
///
/// # Panics
/// If the directory cannot be created.
#[must_use]
pub fn fresh_sqlite_url() -> (String, tempfile::TempDir) {
    let dir = tempfile::Builder::new()
        .prefix("catan-e2e-")
        .tempdir()
        .expect("temp dir");
    (
        format!("sqlite://{}", dir.path().join("catan.db").display()),
        dir,
    )
}

/// The PostgreSQL server tests use: `CATAN_TEST_POSTGRES_URL`, by default the local
/// server `.ci/run` starts (trust auth, user `postgres`).
#[must_use]
pub fn postgres_admin_url() -> String {
    std::env::var("CATAN_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// Creates a fresh, empty PostgreSQL database and returns its URL.
///
/// # Panics
/// If PostgreSQL is unreachable: run the suite through `.ci/run`, which starts it.
pub async fn fresh_postgres_url() -> String {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| {
        panic!("PostgreSQL at {admin} is unreachable ({e}); `.ci/run` starts it, or set CATAN_TEST_POSTGRES_URL")
    });
    let name = format!("catan_test_{}", Uuid::new_v4().simple());
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create database");
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

/// The scratch PostgreSQL cluster on 127.0.0.1 that `.ci/pg-scratch` creates or
/// starts (once per test process; the script is idempotent and takes a lock):
/// `postgres` connects over TCP without a password; every other role needs its
/// password (SCRAM), and the role `catan_tls` TLS too. TLS is on, with a server
/// certificate for `localhost` and `127.0.0.1` signed by the CA in `ca_cert`.
#[derive(Debug)]
pub struct ScratchPostgres {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The CA certificate (PEM) its server certificate is signed by.
    pub ca_cert: PathBuf,
}

impl ScratchPostgres {
    /// A URL for the superuser, `postgres`, on database `db`.
    #[must_use]
    pub fn admin_url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }
}

/// The scratch cluster (see [`ScratchPostgres`]), started if need be.
///
/// # Panics
/// If the script fails, e.g. not run as root or without Debian's postgresql-common.
pub async fn scratch_postgres() -> &'static ScratchPostgres {
    static CLUSTER: tokio::sync::OnceCell<ScratchPostgres> = tokio::sync::OnceCell::const_new();
    CLUSTER.get_or_init(start_scratch_postgres).await
}

/// Runs `.ci/pg-scratch` and reads the port and CA certificate it prints.
async fn start_scratch_postgres() -> ScratchPostgres {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/pg-scratch");
    // Bounded: a daemon that kept the script's stdout open would otherwise hold this
    // (and every test waiting on it) until CI's own limit.
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new("bash")
            .arg(&script)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect(
        ".ci/pg-scratch did not finish within 120 s (does a process it started keep its stdout open?)",
    )
    .expect("run .ci/pg-scratch");
    assert!(
        out.status.success(),
        ".ci/pg-scratch failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let said = || {
        format!(
            "stdout: {text:?}, stderr: {:?}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let mut lines = text.lines();
    ScratchPostgres {
        port: lines
            .next()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!(".ci/pg-scratch prints the port first ({})", said())),
        ca_cert: lines.next().map(|l| l.trim().into()).unwrap_or_else(|| {
            panic!(
                ".ci/pg-scratch prints the CA certificate's path second ({})",
                said()
            )
        }),
    }
}
