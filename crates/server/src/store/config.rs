//! The store's settings: the database URL, its password given apart, and the bound
//! on each call.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

/// Where games are stored (flags of `catan-server`).
#[derive(Clone, Debug, clap::Args)]
pub struct StoreConfig {
    /// Database URL: `postgres://...` for PostgreSQL, `sqlite://FILE` for the embedded
    /// store. Default: an SQLite file `catan.db` in the working directory.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://catan.db")]
    pub database_url: SecretString,

    /// Password for a `postgres://` database URL, given apart from it so that any
    /// password works as it is (`/`, `@`, `:`, `%`... need no escaping): it replaces
    /// the URL's password, if the URL has one. Empty means none.
    #[arg(long, env = "CATAN_DATABASE_PASSWORD", hide_env_values = true)]
    pub database_password: Option<SecretString>,

    /// Longest wait for any one call to the database, in milliseconds (ten times
    /// that for the start-up read of the games to restore); past it the call fails
    /// as `store_unavailable`. An action whose write is not stored within
    /// this (retries included) is refused, and `/readyz` answers 503 within it.
    #[arg(long, env = "CATAN_STORE_TIMEOUT_MS", default_value_t = 2000)]
    pub store_timeout_ms: u64,
}

/// A database URL the server cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--database-url` does not parse as a URL.
    #[error("--database-url / DATABASE_URL is not a valid URL: {0}")]
    DatabaseUrl(String),
    /// A database password was given for a database that is not PostgreSQL.
    #[error("--database-password / CATAN_DATABASE_PASSWORD is for a postgres:// DATABASE_URL")]
    PasswordWithoutPostgres,
}

impl StoreConfig {
    /// The bound on each store call (`--store-timeout-ms`, at least 1 ms).
    #[must_use]
    pub fn store_timeout(&self) -> Duration {
        Duration::from_millis(self.store_timeout_ms.max(1))
    }

    /// The URL the store connects to: `--database-url`, with `--database-password`
    /// (when set) put in as the URL's password, percent-encoded.
    ///
    /// # Errors
    /// If a password is set but the URL is not a `postgres://` URL with a host.
    pub fn database_connect_url(&self) -> Result<SecretString, ConfigError> {
        let raw = self.database_url.expose_secret();
        let Some(password) = self
            .database_password
            .as_ref()
            .map(ExposeSecret::expose_secret)
            .filter(|p| !p.is_empty())
        else {
            return Ok(raw.into());
        };
        // The parse error says where the URL is broken, never what it holds.
        let mut url = url::Url::parse(raw).map_err(|e| ConfigError::DatabaseUrl(e.to_string()))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(ConfigError::PasswordWithoutPostgres);
        }
        // Every byte but letters and digits percent-encoded (`set_password` alone
        // would leave `%` as it is, and sqlx decodes `%41` to `A`).
        let encoded =
            percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC)
                .to_string();
        url.set_password(Some(&encoded))
            .map_err(|()| ConfigError::DatabaseUrl("no host to log in to".into()))?;
        Ok(String::from(url).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_password_goes_into_the_url_percent_encoded() {
        let mut c = crate::Config::for_tests().store;
        c.database_url = "postgres://catan@db:5432/catan?sslmode=prefer".into();
        assert_eq!(
            c.database_connect_url().unwrap().expose_secret(),
            "postgres://catan@db:5432/catan?sslmode=prefer",
            "without a password the URL is used as it is"
        );
        c.database_password = Some("a/b+c=d@e:f%41%g h'\"#?".into());
        let url = c.database_connect_url().unwrap();
        let parsed = url::Url::parse(url.expose_secret()).unwrap();
        assert_eq!(parsed.host_str(), Some("db"));
        assert_eq!(parsed.port(), Some(5432));
        assert_eq!(parsed.username(), "catan");
        assert_eq!(parsed.path(), "/catan");
        assert_eq!(parsed.query(), Some("sslmode=prefer"));
        assert_eq!(
            percent_decode(parsed.password().unwrap()),
            "a/b+c=d@e:f%41%g h'\"#?"
        );
        // It replaces a password in the URL.
        c.database_url = "postgres://catan:old@db/catan".into();
        let url = c.database_connect_url().unwrap();
        assert!(!url.expose_secret().contains("old"));
        // An empty one is none.
        c.database_password = Some("".into());
        assert_eq!(
            c.database_connect_url().unwrap().expose_secret(),
            "postgres://catan:old@db/catan"
        );
        c.database_password = Some("pw".into());
        c.database_url = "sqlite://catan.db".into();
        assert!(matches!(
            c.database_connect_url(),
            Err(ConfigError::PasswordWithoutPostgres)
        ));
    }

    /// As sqlx decodes the URL's password.
    fn percent_decode(s: &str) -> String {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .unwrap()
            .into_owned()
    }
}
