//! The `catan-server` command: what `main.rs` runs. Parses the configuration,
//! then serves until Ctrl-C or SIGTERM, or runs a subcommand (`healthcheck`).

use std::io::{IsTerminal, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

use crate::Config;
use crate::config::{Command, LogFormat};

/// Runs the command line of this process; returns its exit code.
#[must_use]
pub fn main() -> ExitCode {
    let config = Config::parse();
    if let Some(Command::Healthcheck { timeout_secs }) = config.command {
        return healthcheck(config.listen.bind, Duration::from_secs(timeout_secs));
    }
    init_logging(config.log_format);
    if let Some(Command::Ratings { write }) = config.command {
        return ratings(&config, write);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "stopped");
            ExitCode::FAILURE
        }
    }
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`), as text or JSON lines.
fn init_logging(format: LogFormat) {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => logs.with_ansi(colour(std::env::var_os("NO_COLOR"))).init(),
        LogFormat::Json => logs.json().with_ansi(false).init(),
    }
}

/// Whether text logs are coloured: only on a terminal, and not when `NO_COLOR` is
/// set to anything but the empty string (no-color.org).
fn colour(no_color: Option<std::ffi::OsString>) -> bool {
    std::io::stderr().is_terminal() && no_color.is_none_or(|v| v.is_empty())
}

/// `catan-server ratings [--write]`: recomputes every rating from the stored games
/// (`SqlStore::recompute_ratings`) and says what differs.
fn ratings(config: &Config, write: bool) -> ExitCode {
    let run = async {
        let url = config.store.database_connect_url()?;
        let store =
            crate::store::SqlStore::connect(secrecy::ExposeSecret::expose_secret(&url)).await?;
        Ok::<_, Box<dyn std::error::Error>>(store.recompute_ratings(write).await?)
    };
    let found = match tokio::runtime::Runtime::new().map(|r| r.block_on(run)) {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (id, stored, again) in &found.differ {
        println!(
            "differs: player {id}: stored mu {} sigma {}, recomputed mu {} sigma {}",
            stored.mu, stored.sigma, again.mu, again.sigma
        );
    }
    let verdict = match (found.differ.is_empty(), write) {
        (true, _) => "every stored rating equals its recomputation",
        (false, true) => "the recomputed ratings were written",
        (false, false) => "some stored ratings differ (rerun with --write to replace them)",
    };
    println!(
        "{} rated games, {} rated players, {} differing: {verdict}",
        found.games,
        found.players,
        found.differ.len()
    );
    if found.differ.is_empty() || write {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Binds `--bind` and serves until Ctrl-C or SIGTERM.
async fn serve(config: Config) -> Result<(), crate::ServeError> {
    // Catch SIGTERM and Ctrl-C from here on: one that comes while the server starts
    // shuts it down gracefully once it serves, rather than killing it.
    let shutdown = crate::shutdown_signal();
    let listener = TcpListener::bind(config.listen.bind).await?;
    tracing::info!(addr = %listener.local_addr()?, "listening (lobby API and WebSocket)");
    tracing::debug!(?config, "configuration");
    crate::run(listener, config, shutdown).await
}

/// `catan-server healthcheck`: `GET /healthz` on `bind`; says `ok: URL` on stdout
/// and exits 0 on a 200, or says `unhealthy: URL: why` on stderr and exits 1.
fn healthcheck(bind: SocketAddr, timeout: Duration) -> ExitCode {
    let addr = loopback_if_unspecified(bind);
    let url = format!("http://{addr}/healthz");
    match get_status(addr, timeout) {
        Ok(200) => {
            println!("ok: {url}");
            ExitCode::SUCCESS
        }
        Ok(status) => {
            eprintln!("unhealthy: {url}: HTTP {status}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("unhealthy: {url}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Where to reach a listener bound to `bind`: an unspecified address (every
/// interface) is reached on loopback.
fn loopback_if_unspecified(bind: SocketAddr) -> SocketAddr {
    match bind.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => (Ipv4Addr::LOCALHOST, bind.port()).into(),
        IpAddr::V6(ip) if ip.is_unspecified() => (Ipv6Addr::LOCALHOST, bind.port()).into(),
        _ => bind,
    }
}

/// The status code of `GET /healthz` at `addr`, over plain HTTP/1.1.
fn get_status(addr: SocketAddr, timeout: Duration) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    // In one write: a server may answer and close once it has the request line.
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes())?;
    // The status line is all it needs: `HTTP/1.1 200 OK`.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") && head.len() < 256 {
        if stream.read(&mut byte)? == 0 {
            break;
        }
        head.push(byte[0]);
    }
    let line = String::from_utf8_lossy(&head);
    line.strip_prefix("HTTP/1.")
        .and_then(|rest| rest.split(' ').nth(1))
        .and_then(|code| code.trim().parse().ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not an HTTP answer: {:?}", line.trim_end()),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_set_to_anything_turns_colour_off() {
        assert!(!colour(Some("1".into())));
        assert!(!colour(Some("yes".into())));
        // Empty or unset: colour only on a terminal, which a test's stderr may be.
        assert_eq!(colour(Some("".into())), std::io::stderr().is_terminal());
        assert_eq!(colour(None), std::io::stderr().is_terminal());
    }

    #[test]
    fn an_unspecified_bind_address_is_checked_on_loopback() {
        let at = |s: &str| loopback_if_unspecified(s.parse().unwrap()).to_string();
        assert_eq!(at("0.0.0.0:8080"), "127.0.0.1:8080");
        assert_eq!(at("[::]:8080"), "[::1]:8080");
        assert_eq!(at("10.1.2.3:80"), "10.1.2.3:80");
    }
}
