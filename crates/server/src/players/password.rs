//! Passwords: Argon2id with the parameters OWASP recommends (19 MiB of memory, 2
//! passes, 1 lane: the `argon2` crate's defaults), kept as PHC strings (algorithm,
//! parameters and salt in the string, so they can change later). Hashing is
//! deliberately slow, so it runs on the blocking pool, never on the async threads.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use catan_protocol::LobbyError;

fn failed(e: impl std::fmt::Display) -> LobbyError {
    tracing::error!(error = %e, "password hashing failed");
    LobbyError::StoreUnavailable
}

/// The PHC string of `password` with a fresh random salt.
///
/// # Errors
/// `store_unavailable` if hashing fails (it does not with these parameters).
pub async fn hash(password: String) -> Result<String, LobbyError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(failed)
    })
    .await
    .map_err(failed)?
}

/// Whether `password` is the one `phc` was made from (false for a malformed
/// string).
///
/// # Errors
/// `store_unavailable` if the blocking pool is gone.
pub async fn verify(password: String, phc: String) -> Result<bool, LobbyError> {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&phc).is_ok_and(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
    })
    .await
    .map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_own_hash_only() {
        let phc = hash("correct horse".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(verify("correct horse".into(), phc.clone()).await.unwrap());
        assert!(!verify("correct horse!".into(), phc.clone()).await.unwrap());
        let again = hash("correct horse".into()).await.unwrap();
        assert_ne!(phc, again, "a fresh salt each time");
        assert!(!verify("x".into(), "not a phc string".into()).await.unwrap());
    }
}
