//! Retrying store calls: the backoff policies of every store call that is retried,
//! in one place, on one well-kept crate (`backon`). Who retries what: the store's
//! wrapper ([`super::Guarded`]) an action's append and a game's abandonment
//! ([`brief`], within the call's bound); a room a result the store did not take
//! ([`until_stored`], in the background); the start-up the first connection
//! ([`at_start`]).

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use tracing::warn;

use super::{SqlStore, StoreError};

/// A write that a hiccup of the database should not fail: three more tries, after
/// 20, 80 and 320 ms (all within the call's bound, `--store-timeout-ms`).
#[must_use]
pub fn brief() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(20))
        .with_factor(4.0)
        .with_max_delay(Duration::from_millis(320))
        .with_max_times(3)
}

/// A finished game's result the database did not take: from 100 ms, doubling up
/// to every 30 s, until it does (a shutdown waiting for it shortens the waits:
/// see the room's writes).
#[must_use]
pub fn until_stored() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_factor(2.0)
        .with_max_delay(Duration::from_secs(30))
        .without_max_times()
}

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
    /// unreachable or did not answer (never a refusal such as a conflict, or a
    /// fenced write: those fail again).
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

#[cfg(test)]
mod tests {
    use super::*;
    use backon::BackoffBuilder;

    #[test]
    fn the_policies_wait_as_documented() {
        // Whole milliseconds (the crate computes in floating point).
        let ms = |b: ExponentialBuilder, n: usize| -> Vec<u64> {
            b.build()
                .take(n)
                .map(|d| (d.as_secs_f64() * 1000.0).round() as u64)
                .collect()
        };
        assert_eq!(ms(brief(), 10), [20, 80, 320], "three more tries");
        let waits = ms(until_stored(), 12);
        assert_eq!(waits[..3], [100, 200, 400]);
        assert_eq!(waits[11], 30_000, "capped");
        assert_eq!(
            ms(until_stored(), 1000).len(),
            1000,
            "for as long as it takes"
        );
        let waits = ms(at_start(), 8);
        assert_eq!(waits[..3], [500, 1000, 2000]);
        assert_eq!(waits[7], 10_000, "capped");
    }
}
