//! Retrying store calls: the backoff policies of the server's store calls, in one
//! place, on one well-kept crate (`backon`).

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use tracing::warn;

use super::{SqlStore, StoreError};

/// Connecting at start-up: every 0.5 s at first, then doubling up to every 10 s,
/// for as long as it takes (a database that starts after the server, as in a fresh
/// `docker compose up`, is waited for rather than given up on).
#[must_use]
pub fn at_start() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(500))
        .with_factor(2.0)
        .with_max_delay(Duration::from_secs(10))
        .without_max_times()
}

impl StoreError {
    /// Whether trying the same call again later may succeed: the database was
    /// unreachable or did not answer.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// Connects to the store at `url` and runs its migrations. A PostgreSQL server that
/// cannot be reached is waited for ([`at_start`]), each failure logged with the
/// wait; an SQLite file that cannot be opened is an error at once (a wrong path
/// does not mend itself).
///
/// # Errors
/// A failure that waiting cannot mend: a refused password, a bad URL, a failed
/// migration, an SQLite file that cannot be opened.
pub async fn connect_at_start(
    url: &str,
    fence: Option<std::sync::Arc<super::Fence>>,
) -> Result<SqlStore, StoreError> {
    if url.starts_with("sqlite:") {
        return SqlStore::connect_with(url, fence).await;
    }
    (|| SqlStore::connect_with(url, fence.clone()))
        .retry(at_start())
        .sleep(tokio::time::sleep)
        .when(StoreError::is_transient)
        .notify(|e, wait| {
            warn!(error = %e, retry_in_ms = wait.as_millis(), "database not reachable yet; retrying");
        })
        .await
}
