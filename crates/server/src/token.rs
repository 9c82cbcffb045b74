//! Secrets: seat and host tokens (128 random bits) and their constant-time comparison.

/// A fresh token: 128 bits from the OS-seeded CSPRNG, as 32 hex digits. Unrelated
/// to room ids or seat numbers, so it cannot be guessed from them.
#[must_use]
pub fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Compares two tokens (or their digests) without leaking where they differ through
/// timing. Every token check (host, seat, admin) goes through here. Only the lengths
/// may show; callers compare SHA-256 digests, whose length is public.
#[must_use]
pub fn matches(expected: &str, given: &str) -> bool {
    use subtle::ConstantTimeEq;
    expected.as_bytes().ct_eq(given.as_bytes()).into()
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
}
