//! One server per SQLite file. SQLite is the single-instance store: two servers on
//! one file would each restore and play the same rooms and write the same games.
//! A server takes an exclusive lock on `FILE.lock` beside the database for as long
//! as it runs; a second one finds it held and refuses to start. The operating
//! system releases the lock when the process ends, however it ends (a `kill -9`
//! included), so a restart never finds a stale lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;

/// The held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct SqliteLock {
    _file: File,
    /// The lock file's path.
    pub path: PathBuf,
}

/// The database file a `sqlite:` URL names; `None` for another database or an
/// in-memory one. Read by sqlx's own parser (which decodes `%XX` in the name), so
/// that the lock and the action log's writer use the very file the pool opens.
#[must_use]
pub(super) fn sqlite_file(url: &str) -> Option<PathBuf> {
    if !url.starts_with("sqlite:") || url.contains(":memory:") || url.contains("mode=memory") {
        return None;
    }
    let options = sqlx::sqlite::SqliteConnectOptions::from_str(url).ok()?;
    let file = options.get_filename();
    (!file.as_os_str().is_empty()).then(|| file.to_path_buf())
}

/// Takes the lock of the SQLite file `url` names (nothing for another database).
///
/// Why the SQLite database could not be locked for this server.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another server holds it.
    #[error(
        "another catan-server{holder} is using the SQLite database {} (it holds {}); \
         SQLite serves one server at a time: stop the other one, or point several \
         servers at PostgreSQL",
        .db.display(),
        .lock.display()
    )]
    Held {
        /// ` (pid N)` when the lock file names its holder, else empty.
        holder: String,
        /// The database file.
        db: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// The lock file could not be made or locked.
    #[error("cannot lock {}: {source}", .lock.display())]
    Io {
        /// The lock file.
        lock: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// # Errors
/// [`LockError`]: another process holds the lock, or the lock file cannot be made.
pub fn lock(url: &str) -> Result<Option<SqliteLock>, LockError> {
    let Some(db) = sqlite_file(url) else {
        return Ok(None);
    };
    let mut path = db.clone().into_os_string();
    path.push(".lock");
    let path = PathBuf::from(path);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| LockError::Io {
            lock: path.clone(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => {
            // The holder's pid, for the message of the next one (the lock is what
            // counts; the content is only information).
            let mut f = &file;
            let _ = f.set_len(0);
            let _ = writeln!(f, "{}", std::process::id());
            Ok(Some(SqliteLock { _file: file, path }))
        }
        Err(TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path)
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok())
                .map_or_else(String::new, |pid| format!(" (pid {pid})"));
            Err(LockError::Held {
                holder,
                db,
                lock: path,
            })
        }
        Err(TryLockError::Error(source)) => Err(LockError::Io { lock: path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_of_a_sqlite_url_is_found_and_memory_has_none() {
        for (url, file) in [
            ("sqlite://data/catan.db", Some("data/catan.db")),
            (
                "sqlite:///var/lib/catan.db?mode=rwc",
                Some("/var/lib/catan.db"),
            ),
            ("sqlite:catan.db", Some("catan.db")),
            ("sqlite://my%20games/catan.db", Some("my games/catan.db")),
            ("sqlite::memory:", None),
            ("sqlite://file?mode=memory", None),
            ("postgres://u@h/db", None),
        ] {
            assert_eq!(sqlite_file(url), file.map(PathBuf::from), "{url}");
        }
    }

    #[test]
    fn a_second_lock_on_one_file_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::TempDir::new().unwrap();
        let url = format!("sqlite://{}/games.db", dir.path().display());
        let first = lock(&url).unwrap().expect("a file database is locked");
        let refused = lock(&url).unwrap_err().to_string();
        let me = format!("another catan-server (pid {})", std::process::id());
        assert!(refused.contains(&me), "{refused}");
        assert!(refused.contains("games.db.lock"), "{refused}");
        assert!(lock("sqlite::memory:").unwrap().is_none());
        drop(first);
        assert!(lock(&url).unwrap().is_some(), "free again once dropped");
    }
}
