//! Which web pages may use this server: the CORS allow-list and the same check on
//! WebSocket upgrades, so another site cannot drive a player's seat from a browser.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, HeaderValue, header};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The configured allow-list.
#[derive(Debug, Clone, Default)]
pub struct OriginPolicy {
    /// Allowed origins, normalized (lower case, no trailing slash).
    allowed: Vec<String>,
    /// The origins of the server's own pages (`--public-origins`), normalized; when
    /// empty, those of the address each connection came in on.
    public: Vec<String>,
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

impl OriginPolicy {
    /// A policy allowing exactly `origins`, plus the server's own pages: those of
    /// `public`, or when it is empty, of the address each request came in on.
    #[must_use]
    pub fn new(origins: &[String], public: &[String]) -> OriginPolicy {
        OriginPolicy {
            allowed: normalize_all(origins),
            public: normalize_all(public),
        }
    }

    /// Whether a request with these headers, which came in on `local`, may proceed:
    /// no `Origin` (not a browser), an origin on the list, or one of the server's own
    /// pages. The `Host` header plays no part (a page of a foreign name that
    /// resolves to this server, DNS rebinding, is foreign), and an `Origin` that is
    /// not readable text is refused, not taken for absent.
    #[must_use]
    pub fn allows(&self, headers: &HeaderMap, local: Option<SocketAddr>) -> bool {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let origin = normalize(origin);
        if self.allowed.iter().any(|a| *a == origin || a == "*") {
            return true;
        }
        if !self.public.is_empty() {
            return self.public.contains(&origin);
        }
        local.is_some_and(|l| own_origins(l).contains(&origin))
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
