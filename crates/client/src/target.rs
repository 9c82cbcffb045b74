//! Server URLs: `ws://HOST:PORT` or `http://HOST:PORT`, turned into the HTTP base of
//! the lobby and the WebSocket base. The load generator only ever targets loopback.

use std::net::IpAddr;

/// A server to talk to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `http://HOST:PORT`, the lobby API's base.
    pub http: String,
    /// `ws://HOST:PORT`, the WebSocket base.
    pub ws: String,
    /// The host as written.
    pub host: String,
    /// `HOST:PORT`, where connections go.
    pub authority: String,
    /// The local address connections are made from (`None`: the system's choice).
    /// The load generator gives each room its own loopback address, so the
    /// server's per-address limits see one client per room, not one for all.
    pub source: Option<IpAddr>,
}

impl Target {
    /// This target, reached from the local address `source`.
    #[must_use]
    pub fn from_source(&self, source: IpAddr) -> Target {
        Target {
            source: Some(source),
            ..self.clone()
        }
    }

    /// A TCP connection to the target (from [`Target::source`] if set), with
    /// `TCP_NODELAY` on.
    ///
    /// # Errors
    /// When the name does not resolve to an address of the source's family, or the
    /// connection fails.
    pub async fn tcp(&self) -> std::io::Result<tokio::net::TcpStream> {
        let stream = match self.source {
            None => tokio::net::TcpStream::connect(&self.authority).await?,
            Some(source) => {
                let peer = tokio::net::lookup_host(&self.authority)
                    .await?
                    .find(|a| a.is_ipv4() == source.is_ipv4())
                    .ok_or_else(|| {
                        std::io::Error::new(
                            std::io::ErrorKind::AddrNotAvailable,
                            format!(
                                "{} has no address of the family of {source}",
                                self.authority
                            ),
                        )
                    })?;
                let socket = if source.is_ipv4() {
                    tokio::net::TcpSocket::new_v4()?
                } else {
                    tokio::net::TcpSocket::new_v6()?
                };
                socket.bind(std::net::SocketAddr::new(source, 0))?;
                socket.connect(peer).await?
            }
        };
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

/// Why a URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not a URL at all.
    #[error("invalid URL {0:?}: {1}")]
    Invalid(String, String),
    /// A scheme other than ws, wss, http or https.
    #[error("unsupported scheme {0:?} (use ws:// or http://)")]
    Scheme(String),
    /// The load generator refuses to load anything but this machine.
    #[error(
        "refusing non-loopback target {0:?}: the load generator only targets 127.0.0.0/8, ::1 or localhost"
    )]
    NotLoopback(String),
}

/// Parses `url` (`ws://`, `wss://`, `http://` or `https://`, host and port).
///
/// # Errors
/// [`TargetError::Invalid`] or [`TargetError::Scheme`].
pub fn parse(url: &str) -> Result<Target, TargetError> {
    let u =
        url::Url::parse(url).map_err(|e| TargetError::Invalid(url.to_owned(), e.to_string()))?;
    let (http, ws) = match u.scheme() {
        "ws" | "http" => ("http", "ws"),
        "wss" | "https" => ("https", "wss"),
        other => return Err(TargetError::Scheme(other.to_owned())),
    };
    let host = u
        .host_str()
        .ok_or_else(|| TargetError::Invalid(url.to_owned(), "no host".to_owned()))?
        .to_owned();
    let authority = match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.clone(),
    };
    Ok(Target {
        http: format!("{http}://{authority}"),
        ws: format!("{ws}://{authority}"),
        host,
        authority,
        source: None,
    })
}

/// Parses `url` and accepts it only if its host is loopback: an IPv4 address in
/// 127.0.0.0/8, `::1`, or the name `localhost`. No name is resolved.
///
/// # Errors
/// [`TargetError::NotLoopback`] for any other host, or a parse error.
pub fn parse_loopback(url: &str) -> Result<Target, TargetError> {
    let t = parse(url)?;
    let bare = t.host.trim_start_matches('[').trim_end_matches(']');
    let ok = bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| match ip {
            IpAddr::V4(v4) => v4.is_loopback(),
            IpAddr::V6(v6) => v6.is_loopback(),
        });
    if ok {
        Ok(t)
    } else {
        Err(TargetError::NotLoopback(t.host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_accepted_and_others_refused() {
        for ok in [
            "ws://127.0.0.1:8080",
            "ws://127.3.2.1:1",
            "http://localhost:8080",
            "ws://[::1]:8080",
        ] {
            assert!(parse_loopback(ok).is_ok(), "{ok}");
        }
        for bad in [
            "ws://10.0.0.1:8080",
            "ws://example.org:8080",
            "ws://0.0.0.0:8080",
            "ws://[::]:8080",
            "ws://128.0.0.1:80",
            "ws://localhost.example.org:80",
        ] {
            assert!(
                matches!(parse_loopback(bad), Err(TargetError::NotLoopback(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_loopback("ftp://127.0.0.1"),
            Err(TargetError::Scheme(_))
        ));
    }

    #[test]
    fn both_bases_are_derived_from_either_scheme() {
        let t = parse("http://127.0.0.1:9000").expect("url");
        assert_eq!(t.ws, "ws://127.0.0.1:9000");
        assert_eq!(t.http, "http://127.0.0.1:9000");
    }
}
