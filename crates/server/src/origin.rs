//! Which web pages may use this server: the CORS allow-list and the same check on
//! WebSocket upgrades, so another site cannot drive a player's seat from a browser.

use axum::http::{HeaderMap, HeaderValue, header};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The configured allow-list.
#[derive(Debug, Clone, Default)]
pub struct OriginPolicy {
    /// Allowed origins, normalized (lower case, no trailing slash).
    allowed: Vec<String>,
}

fn normalize(o: &str) -> String {
    o.trim().trim_end_matches('/').to_ascii_lowercase()
}

impl OriginPolicy {
    /// A policy allowing exactly `origins` (plus same-origin requests).
    #[must_use]
    pub fn new(origins: &[String]) -> OriginPolicy {
        OriginPolicy {
            allowed: origins
                .iter()
                .map(|o| normalize(o))
                .filter(|o| !o.is_empty())
                .collect(),
        }
    }

    /// Whether a request with these headers may proceed: no `Origin` (not a
    /// browser), an origin on the list, or the page's own origin (`Origin` equal to
    /// `http(s)://` + `Host`).
    #[must_use]
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
            return true;
        };
        let origin = normalize(origin);
        if self.allowed.iter().any(|a| *a == origin || a == "*") {
            return true;
        }
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase);
        host.is_some_and(|h| origin == format!("http://{h}") || origin == format!("https://{h}"))
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

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn foreign_origins_are_refused_unless_listed() {
        let p = OriginPolicy::new(&["https://catan.example.org/".into()]);
        assert!(p.allows(&headers(None, "127.0.0.1:8080")));
        assert!(p.allows(&headers(Some("http://127.0.0.1:8080"), "127.0.0.1:8080")));
        assert!(p.allows(&headers(
            Some("https://catan.example.org"),
            "127.0.0.1:8080"
        )));
        assert!(!p.allows(&headers(Some("https://evil.example"), "127.0.0.1:8080")));
    }
}
