//! Secrets: seat, host and admin tokens (128 random bits), the bearer token of a
//! request, and [`TokenHash`], the only form in which a token is kept and compared.

use axum::http::{HeaderMap, header};

/// A fresh token: 128 bits from the OS-seeded CSPRNG, as 32 hex digits. Unrelated
/// to room ids or seat numbers, so it cannot be guessed from them.
#[must_use]
pub fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Compares two secrets without leaking where they differ through timing. Only the
/// lengths may show: compare digests ([`TokenHash::verifies`]) or secrets of a
/// public length.
#[must_use]
pub fn matches(expected: &str, given: &str) -> bool {
    use subtle::ConstantTimeEq;
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

/// The bearer token of a request (`Authorization: Bearer <token>`), if any.
#[must_use]
pub fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_owned())
}

/// The SHA-256 digest of a token, as hex: what is stored and compared, never the
/// token itself. Every token check (host, seat, admin) is [`TokenHash::verifies`]:
/// the given token is hashed and the two fixed-length digests are compared in
/// constant time, so not even the token's length shows.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct TokenHash(String);

impl TokenHash {
    /// The digest of `token`.
    #[must_use]
    pub fn of(token: &str) -> TokenHash {
        TokenHash(crate::store::sha256_hex(token))
    }

    /// A digest as stored (hex).
    #[must_use]
    pub fn from_stored(hex: String) -> TokenHash {
        TokenHash(hex)
    }

    /// The digest as hex, to store.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `token` is the token of this digest.
    #[must_use]
    pub fn verifies(&self, token: &str) -> bool {
        !self.0.is_empty() && matches(&self.0, &crate::store::sha256_hex(token))
    }
}

impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A digest is no secret, but a log has no use for it either.
        f.write_str("TokenHash(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bits_and_distinct() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(matches(&a, &a.clone()));
        assert!(!matches(&a, &b));
        assert!(!matches(&a, ""));
        assert!(!matches(&a, &a[..31]), "a prefix is not the token");
    }

    #[test]
    fn a_token_hash_verifies_its_token_only_and_does_not_show_in_debug_output() {
        let t = new_token();
        let h = TokenHash::of(&t);
        assert!(h.verifies(&t));
        assert!(!h.verifies(&new_token()));
        assert!(!h.verifies(""));
        assert_eq!(h.as_str().len(), 64);
        assert_eq!(TokenHash::from_stored(h.as_str().to_owned()), h);
        assert!(
            !TokenHash::default().verifies(""),
            "an empty digest verifies nothing"
        );
        assert!(!format!("{h:?}").contains(h.as_str()));
    }
}
