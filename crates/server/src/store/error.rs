//! Why a store call failed ([`StoreError`]), by what a caller can do about it: every
//! `sqlx::Error` classified in one place, by variant, constraint and database code.

/// Why the store failed, by what a caller can do about it. Every `sqlx::Error` is
/// classified in one place, [`StoreError::from`]. Mapped at the edges (a missing game
/// is a 404, anything else `store_unavailable`); details are logged, never sent to
/// clients.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// What was asked for is not stored: no game has this id (or a write refers to
    /// a game that is not stored).
    #[error("not found: {0}")]
    NotFound(String),
    /// A write clashes with what is stored: a unique key is taken, such as a game's
    /// id or an action's index in its game's log. Retrying the same write fails again.
    #[error("conflicts with stored data: {0}")]
    Conflict(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The database cannot be reached or did not answer: connection refused or lost,
    /// pool timed out or closed, the store's writer stopped, I/O errors, a database
    /// shutting down or too busy. Retrying later may succeed.
    #[error("store unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The write was refused because this instance no longer owns the room: another
    /// instance of the cluster claimed its lease (docs/cluster.md). Nothing was
    /// written; retrying cannot succeed, the room must stop here.
    #[error("fenced: {0}")]
    Fenced(String),
    /// A stored value could not be decoded.
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
    /// Migrations failed at start-up.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database refused the query for any other reason (a bug or a schema from
    /// another version rather than a passing condition).
    #[error("database error: {0}")]
    Database(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// The store's writer task is gone (the store is shutting down).
    pub(crate) fn writer_stopped() -> StoreError {
        StoreError::Unavailable("the store's writer task has stopped".into())
    }
}

impl From<sqlx::Error> for StoreError {
    /// Classifies by error variant and, for errors the database sent, by constraint
    /// kind and error code (PostgreSQL SQLSTATE classes, SQLite result codes).
    fn from(e: sqlx::Error) -> StoreError {
        use sqlx::Error as E;
        match e {
            E::RowNotFound => StoreError::NotFound(e.to_string()),
            E::Io(_)
            | E::Tls(_)
            | E::Protocol(_)
            | E::PoolTimedOut
            | E::PoolClosed
            | E::WorkerCrashed
            | E::BeginFailed => StoreError::Unavailable(Box::new(e)),
            E::ColumnDecode { .. } | E::Decode(_) => StoreError::Corrupt(e.to_string()),
            E::Migrate(m) => StoreError::Migrate(*m),
            E::Database(ref db) => match db.kind() {
                sqlx::error::ErrorKind::UniqueViolation => StoreError::Conflict(Box::new(e)),
                sqlx::error::ErrorKind::ForeignKeyViolation => StoreError::NotFound(e.to_string()),
                _ => match db
                    .code()
                    .as_deref()
                    .map(|c| database_code(c, sqlite(&**db)))
                {
                    Some(Code::Unavailable) => StoreError::Unavailable(Box::new(e)),
                    Some(Code::Corrupt) => StoreError::Corrupt(e.to_string()),
                    Some(Code::Other) | None => StoreError::Database(Box::new(e)),
                },
            },
            e => StoreError::Database(Box::new(e)),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    /// The SQLite action log's writer (`group_commit.rs`): classified as sqlx's
    /// SQLite errors are, by extended result code.
    fn from(e: rusqlite::Error) -> StoreError {
        let rusqlite::Error::SqliteFailure(failure, _) = &e else {
            return StoreError::Database(Box::new(e));
        };
        match failure.extended_code {
            // SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE.
            1555 | 2067 => StoreError::Conflict(Box::new(e)),
            // SQLITE_CONSTRAINT_FOREIGNKEY.
            787 => StoreError::NotFound(e.to_string()),
            code => match database_code(&code.to_string(), true) {
                Code::Unavailable => StoreError::Unavailable(Box::new(e)),
                Code::Corrupt => StoreError::Corrupt(e.to_string()),
                Code::Other => StoreError::Database(Box::new(e)),
            },
        }
    }
}

/// What a database error code says, beyond constraint violations.
#[derive(Debug, PartialEq, Eq)]
enum Code {
    /// Unreachable, shutting down, out of resources, busy: retry later.
    Unavailable,
    /// The database file is damaged or not a database.
    Corrupt,
    /// Anything else.
    Other,
}

/// Whether `db` comes from SQLite (else PostgreSQL: the two drivers built in).
fn sqlite(db: &dyn sqlx::error::DatabaseError) -> bool {
    db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some()
}

/// Classifies an SQLite extended result code (a number whose low byte is the primary
/// code) or a PostgreSQL SQLSTATE (five characters, often digits only).
fn database_code(code: &str, sqlite: bool) -> Code {
    if sqlite {
        return match code.parse::<u32>().map_or(0, |n| n & 0xff) {
            // SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_IOERR, SQLITE_FULL,
            // SQLITE_CANTOPEN, SQLITE_PROTOCOL.
            5 | 6 | 7 | 10 | 13 | 14 | 15 => Code::Unavailable,
            // SQLITE_CORRUPT, SQLITE_NOTADB.
            11 | 26 => Code::Corrupt,
            _ => Code::Other,
        };
    }
    match code.get(..2) {
        // Connection exception, insufficient resources, operator intervention
        // (shutdown, cannot connect now), system error.
        Some("08" | "53" | "57" | "58") => Code::Unavailable,
        // Serialization failure, deadlock.
        Some("40") => Code::Unavailable,
        // Data corrupted, index corrupted.
        Some("XX") if code != "XX000" => Code::Corrupt,
        _ => Code::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_codes_are_classified_by_sqlstate_class_and_sqlite_primary_code() {
        assert_eq!(database_code("08006", false), Code::Unavailable);
        assert_eq!(database_code("57P01", false), Code::Unavailable);
        assert_eq!(database_code("53300", false), Code::Unavailable);
        assert_eq!(database_code("XX001", false), Code::Corrupt);
        assert_eq!(database_code("42601", false), Code::Other, "a syntax error");
        assert_eq!(database_code("40001", false), Code::Unavailable);
        assert_eq!(database_code("5", true), Code::Unavailable);
        assert_eq!(
            database_code("517", true),
            Code::Unavailable,
            "SQLITE_BUSY_SNAPSHOT"
        );
        assert_eq!(
            database_code("3338", true),
            Code::Unavailable,
            "SQLITE_IOERR_FSYNC"
        );
        assert_eq!(database_code("26", true), Code::Corrupt);
        assert_eq!(database_code("1", true), Code::Other);
    }

    #[test]
    fn sqlx_errors_map_to_what_a_caller_can_do() {
        assert!(matches!(
            StoreError::from(sqlx::Error::PoolTimedOut),
            StoreError::Unavailable(_)
        ));
        assert!(matches!(
            StoreError::from(sqlx::Error::PoolClosed),
            StoreError::Unavailable(_)
        ));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(matches!(
            StoreError::from(sqlx::Error::Io(refused)),
            StoreError::Unavailable(_)
        ));
        assert!(matches!(
            StoreError::from(sqlx::Error::RowNotFound),
            StoreError::NotFound(_)
        ));
        assert!(matches!(
            StoreError::from(sqlx::Error::Decode("bad".into())),
            StoreError::Corrupt(_)
        ));
        assert!(matches!(
            StoreError::writer_stopped(),
            StoreError::Unavailable(_)
        ));
    }
}
