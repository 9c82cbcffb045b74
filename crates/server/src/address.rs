//! Who a request comes from: the client's address behind trusted reverse proxies, and
//! the key that per-address limits count it under (an IPv6 client by its /64, an
//! IPv4-mapped IPv6 address as the IPv4 address it is).

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::http::{HeaderMap, HeaderName};
use ipnet::IpNet;

/// Which peers may name the client in a header, and which header.
///
/// A header such as `X-Forwarded-For` is believed only from a peer on the trusted
/// list (the proxy in front): anyone else could write any address in it and dodge
/// every per-address limit. From a trusted peer the client is the right-most entry
/// not itself on the list: each proxy appends the address it saw, so entries to the
/// left of the first untrusted one were written by the client and prove nothing.
#[derive(Debug, Clone, Default)]
pub struct ClientAddresses {
    /// The header naming the client (`--client-address-header`), if any.
    header: Option<HeaderName>,
    /// The proxies believed (`--trusted-proxies`).
    trusted: Vec<IpNet>,
}

impl ClientAddresses {
    /// Believes `header` from peers in `trusted` only. An unset header, or one that
    /// is not a valid header name, is never read.
    #[must_use]
    pub fn new(header: Option<&str>, trusted: &[IpNet]) -> ClientAddresses {
        ClientAddresses {
            header: header.and_then(|h| HeaderName::try_from(h.trim()).ok()),
            trusted: trusted.iter().map(IpNet::trunc).collect(),
        }
    }

    /// Whether a header is configured but no proxy is trusted to send it (then it is
    /// ignored, which the server says at start-up).
    #[must_use]
    pub fn header_without_proxies(&self) -> bool {
        self.header.is_some() && self.trusted.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies.
    #[must_use]
    pub fn is_trusted(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.trusted.iter().any(|net| net.contains(&ip))
    }

    /// The client's address for a request from `peer` with `headers`: the peer's
    /// own, unless the peer is a trusted proxy and the header names someone else.
    /// Without a peer (a request not served by [`crate::listen::serve`], in tests)
    /// it is the unspecified address.
    #[must_use]
    pub fn client_ip(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> IpAddr {
        let Some(peer) = peer.map(|p| p.to_canonical()) else {
            return IpAddr::from([0, 0, 0, 0]);
        };
        let Some(name) = &self.header else {
            return peer;
        };
        if !self.is_trusted(peer) {
            return peer;
        }
        // Every value of the header, in order, as one list (a proxy may add a line
        // of its own rather than append to the last).
        let entries: Vec<&str> = headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        let mut client = peer;
        for entry in entries.iter().rev() {
            let Some(ip) = parse_entry(entry) else {
                // Not an address: nothing left of it can be believed either.
                break;
            };
            client = ip;
            if !self.is_trusted(ip) {
                break;
            }
        }
        client
    }
}

/// One entry of `X-Forwarded-For`: `203.0.113.7`, `2001:db8::1`, `[2001:db8::1]:443`
/// or `203.0.113.7:443`.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .map(|ip| ip.to_canonical())
}

/// The key per-address limits count `ip` under: an IPv4 address as it is (an
/// IPv4-mapped IPv6 address too), an IPv6 address by its /64, the smallest block
/// one subscriber is usually given, so that one home or phone cannot be 2^64
/// clients.
#[must_use]
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(prefix))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn forwarded(values: &[&'static str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn without_a_header_the_peer_is_the_client() {
        let c = ClientAddresses::new(None, &["10.0.0.0/8".parse().unwrap()]);
        let h = forwarded(&["198.51.100.7"]);
        assert_eq!(c.client_ip(&h, Some(ip("10.0.0.2"))), ip("10.0.0.2"));
        assert_eq!(c.client_ip(&h, None), ip("0.0.0.0"));
    }

    #[test]
    fn the_header_is_ignored_from_a_peer_that_is_not_a_trusted_proxy() {
        let c = ClientAddresses::new(Some("X-Forwarded-For"), &["10.0.0.2/32".parse().unwrap()]);
        let h = forwarded(&["198.51.100.7"]);
        assert_eq!(c.client_ip(&h, Some(ip("192.0.2.9"))), ip("192.0.2.9"));
        let none = ClientAddresses::new(Some("X-Forwarded-For"), &[]);
        assert!(none.header_without_proxies());
        assert_eq!(none.client_ip(&h, Some(ip("10.0.0.2"))), ip("10.0.0.2"));
    }

    #[test]
    fn from_a_trusted_proxy_the_right_most_untrusted_entry_is_the_client() {
        let c = ClientAddresses::new(
            Some("x-forwarded-for"),
            &[
                "10.0.0.0/8".parse().unwrap(),
                "2001:db8:ffff::/48".parse().unwrap(),
            ],
        );
        let peer = Some(ip("10.0.0.2"));
        // A client's own claim, then the address the proxy saw.
        let h = forwarded(&["203.0.113.9, 198.51.100.1"]);
        assert_eq!(c.client_ip(&h, peer), ip("198.51.100.1"));
        // Two proxies: the inner one's entry is skipped.
        let h = forwarded(&["203.0.113.9, 198.51.100.1, 10.1.2.3"]);
        assert_eq!(c.client_ip(&h, peer), ip("198.51.100.1"));
        // Values on several lines read as one list.
        let h = forwarded(&["203.0.113.9", "198.51.100.1:4711", "10.1.2.3"]);
        assert_eq!(c.client_ip(&h, peer), ip("198.51.100.1"));
        // IPv6 entries, bracketed with a port or not, and a trusted IPv6 hop.
        let h = forwarded(&["[2001:db8::7]:443, 2001:db8:ffff::1"]);
        assert_eq!(c.client_ip(&h, peer), ip("2001:db8::7"));
        // Junk where the client should be: the last proxy's entry counts, not the junk.
        let h = forwarded(&["junk, 10.1.2.3"]);
        assert_eq!(c.client_ip(&h, peer), ip("10.1.2.3"));
        // No header: the proxy itself.
        assert_eq!(c.client_ip(&HeaderMap::new(), peer), ip("10.0.0.2"));
        // A peer that is an IPv4-mapped address of a trusted proxy is that proxy.
        let h = forwarded(&["198.51.100.1"]);
        assert_eq!(
            c.client_ip(&h, Some(ip("::ffff:10.0.0.2"))),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn ipv6_clients_are_limited_by_their_64_and_mapped_ones_as_ipv4() {
        assert_eq!(limit_key(ip("192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(limit_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(limit_key(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            limit_key(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
            limit_key(ip("2001:db8:1:2::9"))
        );
        assert_ne!(
            limit_key(ip("2001:db8:1:3::1")),
            limit_key(ip("2001:db8:1:2::1"))
        );
    }
}
