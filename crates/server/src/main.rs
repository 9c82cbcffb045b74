//! `catan-server`: parses the configuration, binds, and serves until Ctrl-C or SIGTERM.

use clap::Parser;
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let config = catan_server::Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let listener = TcpListener::bind(config.bind).await?;
    tracing::info!(addr = %listener.local_addr()?, "listening (lobby API and WebSocket)");
    tracing::debug!(?config, "configuration");
    catan_server::run(listener, config, catan_server::shutdown_signal()).await
}
