//! Test harness for the end-to-end suite: starts the real server on a loopback port
//! and talks to it like a client would, over HTTP and WebSocket.

use std::net::SocketAddr;
use std::time::Duration;

use catan_bots::{RandomBot, SeatDriver};
use catan_protocol::{CreateRoomResponse, RoomInfo, ServerMessage, TakeSeatResponse};
use catan_server::Config;
use futures_util::{SinkExt, StreamExt};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// How long a test waits for any one message before failing.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(20);

/// Tests that load the whole machine take turns: one browser's scenarios (timed
/// by what the page shows), and clusters of several server processes with many
/// rooms. Run beside each other on two cores, a spectator page fell behind and was
/// given a snapshot instead of the events it counts.
pub static MACHINE_HEAVY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A server running in this process on an ephemeral loopback port.
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
    pub output: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Dropping or firing this stops the server.
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    /// The server task.
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    /// The server process, for servers run in a child process.
    child: Option<std::process::Child>,
}

impl TestServer {
    /// Starts a server with test defaults (no bot think time), adjusted by `tweak`.
    /// With an admin token set, the admin listener runs on its own loopback port.
    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let mut config = Config::for_tests();
        tweak(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (admin, admin_addr) = bind_admin(&config).await;
        let admin_token = config.admin_token().map(|t| t.expose_secret().to_owned());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(catan_server::run_with(
            listener,
            admin,
            config,
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer {
            addr,
            admin_addr,
            admin_token,
            http: reqwest::Client::new(),
            output: std::sync::Arc::default(),
            stop: Some(stop),
            task: Some(task),
            child: None,
        }
    }

    /// Starts a server in this process on `store` (e.g. one that injects faults).
    pub async fn start_with_store(
        tweak: impl FnOnce(&mut Config),
        store: std::sync::Arc<dyn catan_server::store::Store>,
    ) -> TestServer {
        let mut config = Config::for_tests();
        tweak(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (admin, admin_addr) = bind_admin(&config).await;
        let admin_token = config.admin_token().map(|t| t.expose_secret().to_owned());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = catan_server::AppState::new(config, store);
        let task = tokio::spawn(catan_server::serve(listener, admin, state, async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            admin_addr,
            admin_token,
            http: reqwest::Client::new(),
            output: std::sync::Arc::default(),
            stop: Some(stop),
            task: Some(task),
            child: None,
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
    pub fn spawn_process_with(database_url: &str, env: &[(&str, &str)]) -> TestServer {
        use std::io::BufRead;
        let mut command = child_server_command(database_url, env);
        let admin_token = env
            .iter()
            .find(|(k, _)| *k == "CATAN_ADMIN_TOKEN")
            .map(|(_, v)| (*v).to_owned());
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn server process");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = std::io::BufReader::new(stdout).lines();
        let output: std::sync::Arc<std::sync::Mutex<Vec<String>>> = std::sync::Arc::default();
        let mut admin_addr = None;
        let addr = loop {
            let line = lines
                .next()
                .expect("server process exited early")
                .expect("read");
            output.lock().expect("output").push(line.clone());
            if let Some((_, a)) = line.split_once("ADMIN LISTENING ") {
                admin_addr = Some(a.trim().parse().expect("address"));
            } else if let Some((_, a)) = line.split_once("LISTENING ") {
                break a.trim().parse().expect("address");
            }
        };
        // Keep draining its output so it never blocks on a full pipe.
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in lines.by_ref().map_while(Result::ok) {
                kept.lock().expect("output").push(line);
            }
        });
        TestServer {
            addr,
            admin_addr,
            admin_token,
            http: reqwest::Client::new(),
            output,
            stop: None,
            task: None,
            child: Some(child),
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
        use std::io::BufRead;
        let mut child = child_server_command(database_url, env)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn server process");
        let output: std::sync::Arc<std::sync::Mutex<Vec<String>>> = std::sync::Arc::default();
        let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
        let kept = output.clone();
        let errors = std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                kept.lock().expect("output").push(line);
            }
        });
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut admin_addr = None;
        let addr = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.wait();
                let _ = errors.join();
                return Err(output.lock().expect("output").clone());
            };
            output.lock().expect("output").push(line.clone());
            if let Some((_, a)) = line.split_once("ADMIN LISTENING ") {
                admin_addr = Some(a.trim().parse().expect("address"));
            } else if let Some((_, a)) = line.split_once("LISTENING ") {
                break a.trim().parse().expect("address");
            }
        };
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in lines.by_ref().map_while(Result::ok) {
                kept.lock().expect("output").push(line);
            }
        });
        Ok(TestServer {
            addr,
            admin_addr,
            admin_token: env
                .iter()
                .find(|(k, _)| *k == "CATAN_ADMIN_TOKEN")
                .map(|(_, v)| (*v).to_owned()),
            http: reqwest::Client::new(),
            output,
            stop: None,
            task: None,
            child: Some(child),
        })
    }

    /// Waits up to `within` until a child-process server answers `GET /readyz` with
    /// 200 (it listens before it connects to its database).
    ///
    /// # Errors
    /// Everything the process printed, when it exited (or was still not ready).
    pub async fn wait_ready(&mut self, within: Duration) -> Result<(), Vec<String>> {
        let started = std::time::Instant::now();
        loop {
            let child = self.child.as_mut().expect("a child-process server");
            let exited = child.try_wait().expect("wait").is_some();
            if exited || started.elapsed() > within {
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
        let mut child = self.child.take().expect("a child-process server");
        let started = std::time::Instant::now();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -TERM failed");
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return (status, started.elapsed());
            }
            if started.elapsed() > within {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the server did not exit within {within:?} of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops an in-process server and waits for `serve` to return, however long it
    /// takes (up to a minute); returns how long that was.
    ///
    /// # Panics
    /// If the server returns an error or has not returned within a minute.
    pub async fn shutdown(mut self) -> Duration {
        let started = std::time::Instant::now();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let task = self.task.take().expect("an in-process server");
        tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .expect("serve returned within a minute")
            .expect("server task")
            .expect("serve returned Ok");
        started.elapsed()
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

    /// `GET` on the admin listener with the admin token.
    pub async fn admin_get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(self.admin_url(path))
            .bearer_auth(self.admin_token.as_deref().expect("admin token"))
            .send()
            .await
            .expect("http")
    }

    /// `POST` on the admin listener with the admin token and a JSON body.
    pub async fn admin_post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(self.admin_url(path))
            .bearer_auth(self.admin_token.as_deref().expect("admin token"))
            .json(body)
            .send()
            .await
            .expect("http")
    }

    /// Sends `signal` (e.g. `STOP`, `CONT`) to a child-process server.
    ///
    /// # Panics
    /// Without a child process, or if `kill` fails.
    pub fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("a child-process server");
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{signal} failed");
    }

    /// Kills a child-process server with SIGKILL: no shutdown, no flushing.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().expect("kill");
            let _ = c.wait();
        }
    }

    /// Starts a server with test defaults.
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    /// Full URL of an HTTP path.
    #[must_use]
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// `POST /api/rooms` with `body`; panics unless created.
    pub async fn create_room(&self, body: Value) -> CreateRoomResponse {
        let r = self
            .http
            .post(self.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "create room: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// Takes a seat; panics unless it works.
    pub async fn take_seat(&self, room: Uuid, name: &str) -> TakeSeatResponse {
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/seats")))
            .json(&json!({ "name": name }))
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "take seat: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// Adds a bot of the default kind; panics unless it works.
    pub async fn add_bot(&self, room: Uuid, host: &str) {
        self.add_bot_of_kind(room, host, None).await;
    }

    /// Adds a bot of `kind` (`"random"`, `"medium"`...; `None`: the default);
    /// panics unless it works.
    pub async fn add_bot_of_kind(&self, room: Uuid, host: &str, kind: Option<&str>) {
        let body = kind.map_or_else(|| json!({}), |k| json!({ "kind": k }));
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/bots")))
            .bearer_auth(host)
            .json(&body)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            201,
            "add bot: {}",
            r.text().await.unwrap_or_default()
        );
    }

    /// Starts the game; panics unless it works.
    pub async fn start_game(&self, room: Uuid, host: &str) -> RoomInfo {
        let r = self
            .http
            .post(self.url(&format!("/api/rooms/{room}/start")))
            .bearer_auth(host)
            .send()
            .await
            .expect("http");
        assert_eq!(
            r.status(),
            200,
            "start: {}",
            r.text().await.unwrap_or_default()
        );
        r.json().await.expect("json")
    }

    /// Opens a WebSocket as a seat (`Some(token)`) or a spectator.
    pub async fn connect(&self, room: Uuid, token: Option<&str>, last_seq: Option<u64>) -> Client {
        let mut query = String::new();
        if let Some(t) = token {
            query.push_str(&format!("token={t}&"));
        }
        if let Some(s) = last_seq {
            query.push_str(&format!("last_seq={s}"));
        }
        self.connect_query(room, &query).await
    }

    /// Opens a WebSocket with `query` as the upgrade's query string, as it is.
    pub async fn connect_query(&self, room: Uuid, query: &str) -> Client {
        let url = format!("ws://{}/api/rooms/{room}/ws?{query}", self.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("websocket connect");
        Client {
            ws,
            received: Vec::new(),
            closed_with: None,
        }
    }

    /// Stops the server and waits for it to finish.
    pub async fn stop(mut self) {
        self.kill();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), t).await;
        }
    }
}

/// Binds a loopback admin listener when `config` has an admin token.
async fn bind_admin(config: &Config) -> (Option<tokio::net::TcpListener>, Option<SocketAddr>) {
    if config.admin_token().is_none() {
        return (None, None);
    }
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind admin");
    let addr = l.local_addr().expect("admin addr");
    (Some(l), Some(addr))
}

/// Plays as a random-legal client until the game ends, with the same driver as the
/// built-in bots ([`catan_bots::SeatDriver`]). Returns the client with everything it
/// received and the number of rejections it got.
pub async fn play_randomly(client: Client, seed: u64) -> (Client, usize) {
    play_randomly_paced(client, seed, Duration::ZERO).await
}

/// [`play_randomly`] with a pause of `pause` before each action (a person's pace).
pub async fn play_randomly_paced(
    mut client: Client,
    seed: u64,
    pause: Duration,
) -> (Client, usize) {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut driver = SeatDriver::new();
    let mut rejections = 0;
    // Pick up where an earlier reader of this client stopped.
    for (_, msg) in &client.received {
        driver.observe(msg);
    }
    loop {
        if driver.over() {
            break;
        }
        if let Some(m) = driver.decide(&mut RandomBot::new(), &mut rng) {
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            client
                .send_text(&serde_json::to_string(&m).expect("json"))
                .await;
        }
        let Some(msg) = client.recv().await else {
            break;
        };
        if matches!(msg, ServerMessage::Rejected { .. }) {
            rejections += 1;
        }
        driver.observe(&msg);
    }
    (client, rejections)
}

/// One WebSocket client.
pub struct Client {
    /// The socket.
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every message received, raw text and parsed.
    pub received: Vec<(String, ServerMessage)>,
    /// The close code, once the server closed the socket.
    pub closed_with: Option<u16>,
}

impl Client {
    /// The next server message; `None` when the socket closed.
    pub async fn recv(&mut self) -> Option<ServerMessage> {
        loop {
            let Ok(next) = tokio::time::timeout(RECV_TIMEOUT, self.ws.next()).await else {
                let tail: Vec<&str> = self
                    .received
                    .iter()
                    .rev()
                    .take(3)
                    .map(|(t, _)| t.as_str())
                    .collect();
                panic!("timed out waiting for a message; last received: {tail:#?}");
            };
            match next {
                Some(Ok(Message::Text(t))) => {
                    let msg: ServerMessage = serde_json::from_str(&t)
                        .unwrap_or_else(|e| panic!("unparsable server message {t}: {e}"));
                    self.received.push((t.to_string(), msg.clone()));
                    return Some(msg);
                }
                Some(Ok(Message::Close(frame))) => {
                    self.closed_with = frame.map(|f| f.code.into());
                    return None;
                }
                Some(Err(_)) | None => return None,
                Some(Ok(_)) => {}
            }
        }
    }

    /// Sends raw text, reporting failure instead of panicking.
    ///
    /// # Errors
    /// When the socket is closed.
    pub async fn ws_send_ok(
        &mut self,
        text: &str,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.ws.send(Message::Text(text.into())).await
    }

    /// Receives until `pred` matches, returning the match.
    pub async fn recv_until(
        &mut self,
        mut pred: impl FnMut(&ServerMessage) -> bool,
    ) -> ServerMessage {
        loop {
            let m = self.recv().await.expect("socket closed while waiting");
            if pred(&m) {
                return m;
            }
        }
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// Sends a JSON value.
    pub async fn send_json(&mut self, v: &Value) {
        self.send_text(&v.to_string()).await;
    }

    /// The close code, after the server closed the socket.
    pub async fn close_code(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(RECV_TIMEOUT, self.ws.next())
                .await
                .expect("timeout")
            {
                Some(Ok(Message::Close(Some(f)))) => return Some(f.code.into()),
                Some(Ok(Message::Close(None)) | Err(_)) | None => return None,
                Some(Ok(_)) => {}
            }
        }
    }
}

/// The legal actions in the newest message that carries them (`snapshot`, `events`,
/// `resumed`; an `events` message without `legal` means none).
#[must_use]
pub fn latest_legal(client: &Client) -> Vec<catan_engine::Action> {
    for (_, m) in client.received.iter().rev() {
        match m {
            ServerMessage::Snapshot(s) => return s.legal.clone(),
            ServerMessage::Events { legal, .. } | ServerMessage::Resumed { legal, .. } => {
                return legal.clone();
            }
            _ => {}
        }
    }
    Vec::new()
}

/// Several clients of one room driven from one task, for tests that need to steer
/// the game into a particular situation.
pub struct Table {
    /// The clients, by seat.
    pub clients: Vec<Client>,
    /// One driver per client.
    pub drivers: Vec<SeatDriver>,
    /// Random choices.
    rng: rand::rngs::StdRng,
}

impl Table {
    /// A table of connected clients.
    #[must_use]
    pub fn new(clients: Vec<Client>, seed: u64) -> Table {
        use rand::SeedableRng;
        // Each driver starts from what its client already received.
        let drivers = clients
            .iter()
            .map(|c| {
                let mut d = SeatDriver::new();
                for (_, msg) in &c.received {
                    d.observe(msg);
                }
                d
            })
            .collect();
        Table {
            clients,
            drivers,
            rng: rand::rngs::StdRng::seed_from_u64(seed),
        }
    }

    /// Reads whatever each client has waiting (briefly), feeding the drivers.
    pub async fn pump(&mut self) {
        for (c, d) in self.clients.iter_mut().zip(self.drivers.iter_mut()) {
            while let Ok(Some(Ok(Message::Text(t)))) =
                tokio::time::timeout(Duration::from_millis(15), c.ws.next()).await
            {
                let msg: ServerMessage = serde_json::from_str(&t).expect("server message");
                d.observe(&msg);
                c.received.push((t.to_string(), msg));
            }
        }
    }

    /// Plays random legal actions until `done` holds (checked between actions).
    ///
    /// # Panics
    /// If `done` does not hold within `max_actions` actions.
    pub async fn play_until(&mut self, max_actions: usize, mut done: impl FnMut(&Table) -> bool) {
        let mut acted = 0;
        loop {
            self.pump().await;
            if done(self) {
                return;
            }
            assert!(
                acted < max_actions,
                "condition not reached within {max_actions} actions"
            );
            if let Some((i, m)) = (0..self.drivers.len()).find_map(|i| {
                self.drivers[i]
                    .decide(&mut RandomBot::new(), &mut self.rng)
                    .map(|m| (i, m))
            }) {
                self.clients[i]
                    .send_text(&serde_json::to_string(&m).expect("json"))
                    .await;
                acted += 1;
            }
        }
    }
}

/// A fresh SQLite database file in a new temporary directory (kept alive by the
/// returned guard, removed when it is dropped).
///
/// # Panics
/// If the directory cannot be created.
#[must_use]
pub fn fresh_sqlite_url() -> (String, tempfile::TempDir) {
    let dir = tempfile::Builder::new()
        .prefix("catan-e2e-")
        .tempdir()
        .expect("temp dir");
    (
        format!("sqlite://{}", dir.path().join("catan.db").display()),
        dir,
    )
}

/// The PostgreSQL server tests use: `CATAN_TEST_POSTGRES_URL`, by default the local
/// server `.ci/run` starts (trust auth, user `postgres`).
#[must_use]
pub fn postgres_admin_url() -> String {
    std::env::var("CATAN_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// The scratch PostgreSQL cluster on 127.0.0.1 that `.ci/pg-scratch` creates or
/// starts (once per test process; the script is idempotent and takes a lock):
/// `postgres` connects over TCP without a password; every other role needs its
/// password (SCRAM), and the role `catan_tls` TLS too. TLS is on, with a server
/// certificate for `localhost` and `127.0.0.1` signed by the CA in `ca_cert`.
#[derive(Debug)]
pub struct ScratchPostgres {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The CA certificate (PEM) its server certificate is signed by.
    pub ca_cert: std::path::PathBuf,
}

impl ScratchPostgres {
    /// A URL for the superuser, `postgres`, on database `db`.
    #[must_use]
    pub fn admin_url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }
}

/// The scratch cluster (see [`ScratchPostgres`]), started if need be.
///
/// # Panics
/// If the script fails, e.g. not run as root or without Debian's postgresql-common.
pub async fn scratch_postgres() -> &'static ScratchPostgres {
    static CLUSTER: tokio::sync::OnceCell<ScratchPostgres> = tokio::sync::OnceCell::const_new();
    CLUSTER
        .get_or_init(|| async {
            let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/pg-scratch");
            // Bounded: a daemon that kept the script's stdout open would otherwise
            // hold this (and every test waiting on it) until CI's own limit.
            let out = tokio::time::timeout(
                std::time::Duration::from_secs(120),
                tokio::process::Command::new("bash")
                    .arg(&script)
                    .stdin(std::process::Stdio::null())
                    .kill_on_drop(true)
                    .output(),
            )
            .await
            .expect(".ci/pg-scratch did not finish within 120 s (does a process it started keep its stdout open?)")
            .expect("run .ci/pg-scratch");
            assert!(
                out.status.success(),
                ".ci/pg-scratch failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout);
            let said = || {
                format!(
                    "stdout: {text:?}, stderr: {:?}",
                    String::from_utf8_lossy(&out.stderr)
                )
            };
            let mut lines = text.lines();
            ScratchPostgres {
                port: lines
                    .next()
                    .and_then(|l| l.trim().parse().ok())
                    .unwrap_or_else(|| panic!(".ci/pg-scratch prints the port first ({})", said())),
                ca_cert: lines.next().map(|l| l.trim().into()).unwrap_or_else(|| {
                    panic!(
                        ".ci/pg-scratch prints the CA certificate's path second ({})",
                        said()
                    )
                }),
            }
        })
        .await
}

/// Creates a fresh, empty PostgreSQL database and returns its URL.
///
/// # Panics
/// If PostgreSQL is unreachable: run the suite through `.ci/run`, which starts it.
pub async fn fresh_postgres_url() -> String {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| {
        panic!("PostgreSQL at {admin} is unreachable ({e}); `.ci/run` starts it, or set CATAN_TEST_POSTGRES_URL")
    });
    let name = format!("catan_test_{}", Uuid::new_v4().simple());
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create database");
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A store that fails or stalls on command around a real one, standing for an
/// unreachable or slow database. Every other call goes straight through.
pub struct FaultyStore {
    /// The real store.
    pub inner: catan_server::store::SqlStore,
    /// While set, appends to the action log fail.
    pub fail_appends: std::sync::atomic::AtomicBool,
    /// Appends of an action at this index of its game's log or later fail, in every
    /// game, until it is set back to `u64::MAX` (the default: none fail). Each game
    /// then stalls at the same point of its log, however fast it ran until then.
    pub fail_appends_from_seq: std::sync::atomic::AtomicU64,
    /// Appends refused so far, by game: every call, and the distinct records.
    refused: std::sync::Mutex<std::collections::HashMap<Uuid, Refused>>,
    /// Result writes still to fail; `u32::MAX` fails them forever.
    pub fail_finishes: std::sync::atomic::AtomicU32,
    /// Result writes attempted.
    pub finish_calls: std::sync::atomic::AtomicU32,
    /// How long each result write takes before it succeeds or fails.
    pub finish_delay: Duration,
    /// While set, every call hangs (a database that accepted the connection and
    /// never answers), until it is cleared.
    pub hang: std::sync::atomic::AtomicBool,
}

impl FaultyStore {
    /// A pass-through wrapper around `inner`.
    #[must_use]
    pub fn new(inner: catan_server::store::SqlStore) -> FaultyStore {
        FaultyStore {
            inner,
            fail_appends: std::sync::atomic::AtomicBool::new(false),
            fail_appends_from_seq: std::sync::atomic::AtomicU64::new(u64::MAX),
            refused: std::sync::Mutex::default(),
            fail_finishes: std::sync::atomic::AtomicU32::new(0),
            finish_calls: std::sync::atomic::AtomicU32::new(0),
            finish_delay: Duration::ZERO,
            hang: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Appends refused so far in `game`'s log, every call (the room retries a
    /// write itself before it refuses the action).
    ///
    /// # Panics
    /// If the lock is poisoned.
    #[must_use]
    pub fn refused_appends(&self, game: Uuid) -> u32 {
        self.refusals(game).calls
    }

    /// Distinct action records refused in `game`'s log, a record the room retried
    /// counted once: the attempts its clients made to act (each new attempt is a new
    /// record, with its own time).
    ///
    /// # Panics
    /// If the lock is poisoned.
    #[must_use]
    pub fn refused_actions(&self, game: Uuid) -> u32 {
        self.refusals(game).records
    }

    /// Waits for as long as [`FaultyStore::hang`] is set.
    async fn hang_while_set(&self) {
        while self.hang.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn refusals(&self, game: Uuid) -> Refused {
        self.refused
            .lock()
            .expect("refusals")
            .get(&game)
            .cloned()
            .unwrap_or_default()
    }

    fn refuse(&self, game: Uuid, record: &catan_server::store::ActionRecord) {
        let mut all = self.refused.lock().expect("refusals");
        let r = all.entry(game).or_default();
        r.calls += 1;
        if r.last.as_ref() != Some(record) {
            r.records += 1;
            r.last = Some(*record);
        }
    }
}

/// What a [`FaultyStore`] refused of one game's log.
#[derive(Debug, Clone, Default)]
struct Refused {
    calls: u32,
    records: u32,
    last: Option<catan_server::store::ActionRecord>,
}

mod faulty {
    use std::sync::atomic::Ordering;

    use async_trait::async_trait;
    use catan_server::store::{
        ActionRecord, Finish, GameQuery, GameRecord, NewGame, Store, StoreError,
    };
    use uuid::Uuid;

    use super::FaultyStore;

    fn down() -> StoreError {
        StoreError::from(sqlx::Error::PoolTimedOut)
    }

    #[async_trait]
    impl Store for FaultyStore {
        async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
            self.hang_while_set().await;
            self.inner.create_game(game).await
        }
        async fn append_action(&self, game: Uuid, action: &ActionRecord) -> Result<(), StoreError> {
            self.hang_while_set().await;
            if self.fail_appends.load(Ordering::SeqCst)
                || action.seq >= self.fail_appends_from_seq.load(Ordering::SeqCst)
            {
                self.refuse(game, action);
                return Err(down());
            }
            self.inner.append_action(game, action).await
        }
        async fn finish_game(&self, game: Uuid, finish: &Finish) -> Result<(), StoreError> {
            self.hang_while_set().await;
            self.finish_calls.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(self.finish_delay).await;
            let left = self.fail_finishes.load(Ordering::SeqCst);
            if left > 0 {
                if left != u32::MAX {
                    self.fail_finishes.fetch_sub(1, Ordering::SeqCst);
                }
                return Err(down());
            }
            self.inner.finish_game(game, finish).await
        }
        async fn abandon_game(&self, game: Uuid) -> Result<(), StoreError> {
            self.hang_while_set().await;
            self.inner.abandon_game(game).await
        }
        async fn reserve_seq(&self, game: Uuid, up_to: u64) -> Result<(), StoreError> {
            self.hang_while_set().await;
            self.inner.reserve_seq(game, up_to).await
        }
        async fn unfinished_games(&self) -> Result<Vec<GameRecord>, StoreError> {
            self.hang_while_set().await;
            self.inner.unfinished_games().await
        }
        async fn finished_games(&self, q: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
            self.hang_while_set().await;
            self.inner.finished_games(q).await
        }
        async fn game(&self, id: Uuid) -> Result<GameRecord, StoreError> {
            self.hang_while_set().await;
            self.inner.game(id).await
        }
        async fn actions(&self, id: Uuid) -> Result<Vec<ActionRecord>, StoreError> {
            self.hang_while_set().await;
            self.inner.actions(id).await
        }
        async fn health(&self) -> Result<(), StoreError> {
            self.hang_while_set().await;
            self.inner.health().await
        }
    }
}

/// The command that runs this test binary as a server process
/// (`persistence::child_server`) on `database_url`, on free ports, with the test
/// limits of [`Config::for_tests`] and the extra variables `env` (which cannot
/// override those: a compose file's `CATAN_BIND` must not move the test server).
fn child_server_command(database_url: &str, env: &[(&str, &str)]) -> std::process::Command {
    let exe = std::env::current_exe().expect("test binary");
    let mut command = std::process::Command::new(exe);
    command
        .envs(env.iter().copied())
        .args([
            "--exact",
            "persistence::child_server",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CATAN_E2E_CHILD", "1")
        .env("DATABASE_URL", database_url)
        .env("CATAN_BIND", "127.0.0.1:0")
        .env("CATAN_ADMIN_BIND", "127.0.0.1:0")
        .env("CATAN_BOT_THINK_MS", "0")
        .env("CATAN_RATE_LIMIT", "100000")
        .env("CATAN_LOBBY_RATE_PER_MIN", "0")
        .env("CATAN_WEBSOCKET_RATE_PER_MIN", "0")
        .env("CATAN_CHAT_PER_MIN", "100000")
        .env("CATAN_MAX_WEBSOCKETS_PER_ADDRESS", "100000")
        .env("CATAN_MAX_CONNECTIONS_PER_ADDRESS", "0");
    command
}
