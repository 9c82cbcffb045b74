//! The server under test: started in this process on loopback ports, or as a child
//! process (see `process`), and stopped however the test needs.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use catan_server::Config;
use secrecy::ExposeSecret;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::process::{self, Launched, ServerProcess, Stderr};

/// A running server, in this process or in a child process; dropping it kills a
/// child process (an in-process server stops with the test's runtime).
#[derive(Debug)]
pub struct TestServer {
    /// Its address.
    pub addr: SocketAddr,
    /// The admin listener's address, when an admin token was configured.
    pub admin_addr: Option<SocketAddr>,
    /// The admin token, when one was configured.
    pub admin_token: Option<String>,
    /// HTTP client.
    pub http: reqwest::Client,
    /// Lines the child-process server printed (its log), for servers run in a child.
    pub output: Arc<Mutex<Vec<String>>>,
    /// An in-process server: what stops it and the task serving.
    in_process: Option<InProcess>,
    /// A child-process server.
    process: Option<ServerProcess>,
}

/// A server run by `catan_server` in this process.
#[derive(Debug)]
struct InProcess {
    /// Dropping or firing this stops the server.
    stop: oneshot::Sender<()>,
    /// The server task: `serve`'s outcome, its error as text.
    task: JoinHandle<Result<(), String>>,
}

impl TestServer {
    /// Starts a server with test defaults.
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    /// Starts a server with test defaults (no bot think time), adjusted by `tweak`.
    /// With an admin token set, the admin listener runs on its own loopback port.
    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let mut config = Config::for_tests();
        tweak(&mut config);
        Self::in_process(config, |listener, admin, config, stopped| async move {
            catan_server::run_with(listener, admin, config, stopped)
                .await
                .map_err(|e| e.to_string())
        })
        .await
    }

    /// Starts a server in this process on `store` (e.g. one that injects faults).
    pub async fn start_with_store(
        tweak: impl FnOnce(&mut Config),
        store: Arc<dyn catan_server::store::Store>,
    ) -> TestServer {
        let mut config = Config::for_tests();
        tweak(&mut config);
        Self::in_process(config, |listener, admin, config, stopped| async move {
            let state = catan_server::AppState::new(config, store);
            catan_server::serve(listener, admin, state, stopped)
                .await
                .map_err(|e| e.to_string())
        })
        .await
    }

    /// Binds the listeners of `config` on loopback and spawns `serve` on them, with a
    /// shutdown future that resolves when the server is stopped.
    async fn in_process<F, Fut>(config: Config, serve: F) -> TestServer
    where
        F: FnOnce(
            TcpListener,
            Option<TcpListener>,
            Config,
            std::pin::Pin<Box<dyn Future<Output = ()> + Send>>,
        ) -> Fut,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (admin, admin_addr) = bind_admin(&config).await;
        let admin_token = config.admin_token().map(|t| t.expose_secret().to_owned());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(
            listener,
            admin,
            config,
            Box::pin(async move {
                let _ = stopped.await;
            }),
        ));
        TestServer {
            addr,
            admin_addr,
            admin_token,
            http: reqwest::Client::new(),
            output: Arc::default(),
            in_process: Some(InProcess { stop, task }),
            process: None,
        }
    }

    /// Starts the server in a separate process (this test binary re-run as
    /// `persistence::child_server`, which serves like the `catan-server` binary,
    /// SIGTERM and Ctrl-C included), so that a test can kill it with SIGKILL.
    pub fn spawn_process(database_url: &str) -> TestServer {
        Self::spawn_process_with(database_url, &[])
    }

    /// [`TestServer::spawn_process`] with extra environment variables (flags), e.g.
    /// `CATAN_ADMIN_TOKEN`. The child's log lines are kept in `output`.
    ///
    /// # Panics
    /// If the process exits before it listens.
    pub fn spawn_process_with(database_url: &str, env: &[(&str, &str)]) -> TestServer {
        match process::launch(database_url, env, Stderr::Inherit) {
            Ok(launched) => Self::from_process(launched, env),
            Err(_) => panic!("server process exited early"),
        }
    }

    /// [`TestServer::spawn_process_with`], but a server process that exits before it
    /// listens is an `Err` with everything it printed (stdout and stderr), e.g. for
    /// a configuration that must be refused.
    ///
    /// # Errors
    /// The lines the process printed, when it exited before listening.
    pub fn try_spawn_process_with(
        database_url: &str,
        env: &[(&str, &str)],
    ) -> Result<TestServer, Vec<String>> {
        process::launch(database_url, env, Stderr::Keep).map(|l| Self::from_process(l, env))
    }

    /// The test server of a launched process, with the admin token of its `env`.
    fn from_process(launched: Launched, env: &[(&str, &str)]) -> TestServer {
        TestServer {
            addr: launched.addr,
            admin_addr: launched.admin_addr,
            admin_token: env
                .iter()
                .find(|(k, _)| *k == "CATAN_ADMIN_TOKEN")
                .map(|(_, v)| (*v).to_owned()),
            http: reqwest::Client::new(),
            output: launched.output,
            in_process: None,
            process: Some(launched.process),
        }
    }

    /// Waits up to `within` until a child-process server answers `GET /readyz` with
    /// 200 (it listens before it connects to its database).
    ///
    /// # Errors
    /// Everything the process printed, when it exited (or was still not ready).
    pub async fn wait_ready(&mut self, within: Duration) -> Result<(), Vec<String>> {
        let started = std::time::Instant::now();
        loop {
            let process = self.process.as_mut().expect("a child-process server");
            if process.exited() || started.elapsed() > within {
                // Let the threads that read its output catch up.
                tokio::time::sleep(Duration::from_millis(200)).await;
                return Err(self.output.lock().expect("output").clone());
            }
            if let Ok(r) = self.http.get(self.url("/readyz")).send().await
                && r.status() == 200
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends SIGTERM to a child-process server and waits up to `within` for it to
    /// exit; returns its exit status and how long it took.
    ///
    /// # Panics
    /// If the process is still running after `within`.
    pub fn terminate(&mut self, within: Duration) -> (std::process::ExitStatus, Duration) {
        self.process
            .take()
            .expect("a child-process server")
            .terminate(within)
    }

    /// Sends `signal` (e.g. `STOP`, `CONT`) to a child-process server.
    ///
    /// # Panics
    /// Without a child process, or if `kill` fails.
    pub fn signal(&self, signal: &str) {
        self.process
            .as_ref()
            .expect("a child-process server")
            .signal(signal);
    }

    /// Kills a child-process server with SIGKILL: no shutdown, no flushing.
    pub fn kill(&mut self) {
        if let Some(p) = self.process.take() {
            p.kill();
        }
    }

    /// Stops an in-process server and waits for `serve` to return, however long it
    /// takes (up to a minute); returns how long that was.
    ///
    /// # Panics
    /// If the server returns an error or has not returned within a minute.
    pub async fn shutdown(mut self) -> Duration {
        let started = std::time::Instant::now();
        let InProcess { stop, task } = self.in_process.take().expect("an in-process server");
        let _ = stop.send(());
        let served = tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .expect("serve returned within a minute")
            .expect("server task");
        if let Err(e) = served {
            panic!("serve returned an error: {e}");
        }
        started.elapsed()
    }

    /// Stops the server (a child process with SIGKILL) and waits up to 10 s for an
    /// in-process one to finish.
    pub async fn stop(mut self) {
        self.kill();
        if let Some(InProcess { stop, task }) = self.in_process.take() {
            let _ = stop.send(());
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }

    /// Full URL of an HTTP path.
    #[must_use]
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Full URL of an admin path.
    ///
    /// # Panics
    /// Without an admin listener.
    #[must_use]
    pub fn admin_url(&self, path: &str) -> String {
        format!(
            "http://{}{}",
            self.admin_addr.expect("admin listener"),
            path
        )
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Binds a loopback admin listener when `config` has an admin token.
async fn bind_admin(config: &Config) -> (Option<TcpListener>, Option<SocketAddr>) {
    if config.admin_token().is_none() {
        return (None, None);
    }
    let l = TcpListener::bind("127.0.0.1:0").await.expect("bind admin");
    let addr = l.local_addr().expect("admin addr");
    (Some(l), Some(addr))
}
