//! Which web pages may use this server: the CORS allow-list and the same check on
//! WebSocket upgrades, so another site cannot drive a player's seat from a browser.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, header};
use tokio::time::Instant;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tracing::warn;

/// How often one refused origin is logged at most.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// Refused origins remembered for [`LOG_EVERY`] before old ones are forgotten.
const LOGGED_AT_MOST: usize = 1024;

/// The configured allow-list.
#[derive(Debug, Default)]
pub struct OriginPolicy {
    /// Allowed origins, normalized (lower case, no trailing slash).
    allowed: Vec<String>,
    /// The origins of the server's own pages (`--public-origins`), normalized; when
    /// empty, those of the address each connection came in on.
    public: Vec<String>,
    /// When each refused origin was last logged: an operator learns of a refusal,
    /// a page retrying it does not flood the log.
    logged: Mutex<HashMap<String, Instant>>,
}

fn normalize(o: &str) -> String {
    o.trim().trim_end_matches('/').to_ascii_lowercase()
}

fn normalize_all(origins: &[String]) -> Vec<String> {
    origins
        .iter()
        .map(|o| normalize(o))
        .filter(|o| !o.is_empty())
        .collect()
}

/// The origins of a page served from `local`, the address a connection came in on:
/// `http://` and `https://` with the address, and with `localhost` for a loopback one.
fn own_origins(local: SocketAddr) -> Vec<String> {
    let port = local.port();
    let mut hosts = vec![match local.ip() {
        IpAddr::V4(ip) => format!("{ip}:{port}"),
        IpAddr::V6(ip) => format!("[{ip}]:{port}"),
    }];
    if local.ip().is_loopback() {
        hosts.push(format!("localhost:{port}"));
    }
    hosts
        .iter()
        .flat_map(|h| [format!("http://{h}"), format!("https://{h}")])
        .collect()
}

/// Whether `origin` (normalized) is `http(s)://` and an IP address (with its port,
/// if any) that is exactly the request's `Host`.
fn same_ip_address(origin: &str, headers: &HeaderMap) -> bool {
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    if !authority.eq_ignore_ascii_case(host.trim()) {
        return false;
    }
    // The host part is an IP literal: `203.0.113.7`, `203.0.113.7:8080`, `[2001:db8::1]:8080`.
    authority.parse::<IpAddr>().is_ok()
        || authority.parse::<SocketAddr>().is_ok()
        || authority
            .strip_prefix('[')
            .and_then(|a| a.strip_suffix(']'))
            .is_some_and(|a| a.parse::<std::net::Ipv6Addr>().is_ok())
}

impl OriginPolicy {
    /// A policy allowing exactly `origins`, plus the server's own pages: those of
    /// `public`, or when it is empty, of the address each request came in on.
    #[must_use]
    pub fn new(origins: &[String], public: &[String]) -> OriginPolicy {
        OriginPolicy {
            allowed: normalize_all(origins),
            public: normalize_all(public),
            logged: Mutex::default(),
        }
    }

    /// Whether a request with these headers, which came in on `local`, may proceed:
    /// no `Origin` (not a browser), an origin on the list, one of the server's own
    /// pages, or a page opened at an IP address that is the very address the request
    /// was sent to (`Origin: http://203.0.113.7:8080` with `Host: 203.0.113.7:8080`:
    /// same origin by the browser's own rule, so a trial by IP needs no setting).
    /// Otherwise the `Host` header plays no part (a page of a foreign name that
    /// resolves to this server, DNS rebinding, is foreign), and an `Origin` that is
    /// not readable text is refused, not taken for absent.
    ///
    /// A refusal is logged, once a minute per origin, with the setting that would
    /// allow it.
    pub fn allows(&self, headers: &HeaderMap, local: Option<SocketAddr>) -> bool {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            self.log_refusal("(not text)", headers);
            return false;
        };
        let origin = normalize(origin);
        let allowed = self.allowed.iter().any(|a| *a == origin || a == "*")
            || same_ip_address(&origin, headers)
            || if self.public.is_empty() {
                local.is_some_and(|l| own_origins(l).contains(&origin))
            } else {
                self.public.contains(&origin)
            };
        if !allowed {
            self.log_refusal(&origin, headers);
        }
        allowed
    }

    /// Logs a refused origin, unless it was logged less than a minute ago.
    fn log_refusal(&self, origin: &str, headers: &HeaderMap) {
        let now = Instant::now();
        {
            let mut logged = self.logged.lock().expect("origin log lock");
            if logged.get(origin).is_some_and(|t| now < *t + LOG_EVERY) {
                return;
            }
            if logged.len() >= LOGGED_AT_MOST {
                logged.retain(|_, t| now < *t + LOG_EVERY);
            }
            if logged.len() >= LOGGED_AT_MOST {
                return;
            }
            logged.insert(origin.to_owned(), now);
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        warn!(
            origin,
            host,
            public_origins = ?self.public,
            "refused a page's request (403 origin_not_allowed): its origin is not this \
             server's; if players open the server at that address, add it to \
             CATAN_PUBLIC_ORIGINS (--public-origins; with docker compose, set CATAN_DOMAIN), \
             or to CATAN_ALLOWED_ORIGINS for another site's pages"
        );
    }

    /// The CORS layer for the HTTP API: only listed origins get CORS headers.
    pub fn cors(&self) -> CorsLayer {
        let layer = CorsLayer::new()
            .allow_methods([
                axum::http::Method::GET,
                axum::http::Method::POST,
                axum::http::Method::DELETE,
            ])
            .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION]);
        if self.allowed.iter().any(|a| a == "*") {
            return layer.allow_origin(AllowOrigin::any());
        }
        let list: Vec<HeaderValue> = self
            .allowed
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        layer.allow_origin(AllowOrigin::list(list))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("evil.example:8080"));
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn foreign_origins_are_refused_unless_listed() {
        let local = Some("127.0.0.1:8080".parse().unwrap());
        let p = OriginPolicy::new(&["https://catan.example.org/".into()], &[]);
        assert!(p.allows(&headers(None), local));
        assert!(p.allows(&headers(Some("http://127.0.0.1:8080")), local));
        assert!(p.allows(&headers(Some("http://localhost:8080")), local));
        assert!(p.allows(&headers(Some("https://catan.example.org")), local));
        assert!(!p.allows(&headers(Some("https://evil.example")), local));
        assert!(!p.allows(&headers(Some("http://127.0.0.1:8081")), local));
    }

    #[test]
    fn the_host_header_does_not_make_an_origin_the_servers_own() {
        // DNS rebinding: evil.example resolves to the server; its page sends
        // `Origin: http://evil.example:8080` and `Host: evil.example:8080`.
        let local = Some("127.0.0.1:8080".parse().unwrap());
        let p = OriginPolicy::new(&[], &[]);
        assert!(!p.allows(&headers(Some("http://evil.example:8080")), local));
        let public = OriginPolicy::new(&[], &["https://catan.example.org".into()]);
        assert!(public.allows(&headers(Some("https://catan.example.org")), local));
        assert!(
            !public.allows(&headers(Some("http://127.0.0.1:8080")), local),
            "configured public origins replace the address's own"
        );
    }

    fn host_and_origin(host: &str, origin: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        h.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        h
    }

    #[test]
    fn a_page_opened_at_the_servers_ip_address_is_its_own_but_a_name_is_not() {
        // Inside a container behind a proxy: the server's local address is private.
        let local = Some("172.28.0.3:8080".parse().unwrap());
        let p = OriginPolicy::new(&[], &["https://catan.example.org".into()]);
        assert!(p.allows(
            &host_and_origin("203.0.113.7:8080", "http://203.0.113.7:8080"),
            local
        ));
        assert!(p.allows(&host_and_origin("203.0.113.7", "http://203.0.113.7"), local));
        assert!(p.allows(
            &host_and_origin("203.0.113.7", "https://203.0.113.7"),
            local
        ));
        assert!(p.allows(
            &host_and_origin("[2001:db8::7]:8080", "http://[2001:db8::7]:8080"),
            local
        ));
        // Another address or port than the request's: foreign.
        assert!(!p.allows(&host_and_origin("203.0.113.7", "http://203.0.113.8"), local));
        assert!(!p.allows(
            &host_and_origin("203.0.113.7:8080", "http://203.0.113.7:9090"),
            local
        ));
        // A name equal to the Host is DNS rebinding's shape: still foreign.
        assert!(!p.allows(
            &host_and_origin("evil.example", "http://evil.example"),
            local
        ));
        assert!(!p.allows(
            &host_and_origin("1.2.3.4.evil.example", "http://1.2.3.4.evil.example"),
            local
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_origin_is_logged_once_a_minute() {
        let p = OriginPolicy::new(&[], &["https://catan.example.org".into()]);
        let local = Some("127.0.0.1:8080".parse().unwrap());
        let h = host_and_origin("catan.example.net", "https://catan.example.net");
        assert!(!p.allows(&h, local));
        let first = p.logged.lock().unwrap()["https://catan.example.net"];
        tokio::time::advance(Duration::from_secs(30)).await;
        assert!(!p.allows(&h, local));
        assert_eq!(
            p.logged.lock().unwrap()["https://catan.example.net"],
            first,
            "not again yet"
        );
        tokio::time::advance(Duration::from_secs(31)).await;
        assert!(!p.allows(&h, local));
        assert!(
            p.logged.lock().unwrap()["https://catan.example.net"] > first,
            "logged again"
        );
    }

    #[test]
    fn an_origin_that_is_not_text_is_refused_not_ignored() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ORIGIN,
            HeaderValue::from_bytes(b"http://\xff.example").unwrap(),
        );
        let p = OriginPolicy::new(&["*".into()], &[]);
        assert!(!p.allows(&h, Some("127.0.0.1:8080".parse().unwrap())));
    }
}
