//! A server in a child process: this test binary re-run as `persistence::child_server`,
//! which serves like the `catan-server` binary (SIGTERM and Ctrl-C included), for the
//! tests that kill it, signal it or read its log.

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running server process.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    /// The process.
    child: Child,
}

/// A server process that listens, and what it printed.
#[derive(Debug)]
pub(crate) struct Launched {
    /// The process.
    pub(crate) process: ServerProcess,
    /// Its public listener's address.
    pub(crate) addr: SocketAddr,
    /// Its admin listener's address, when it has one.
    pub(crate) admin_addr: Option<SocketAddr>,
    /// Every line it printed so far and from now on, kept by threads that drain its
    /// output so that it never blocks on a full pipe.
    pub(crate) output: Arc<Mutex<Vec<String>>>,
}

/// Where a server process's standard error goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stderr {
    /// To the test's own (shown with a failing test's output).
    Inherit,
    /// Into the kept output, beside its standard output.
    Keep,
}

/// Starts a server process on `database_url` with the extra variables `env` and
/// waits until it says where it listens.
///
/// # Errors
/// Everything it printed (stdout, and stderr if kept), when it exited before
/// listening.
pub(crate) fn launch(
    database_url: &str,
    env: &[(&str, &str)],
    stderr: Stderr,
) -> Result<Launched, Vec<String>> {
    let mut command = child_server_command(database_url, env);
    command.stdout(Stdio::piped());
    if let Stderr::Keep = stderr {
        command.stderr(Stdio::piped());
    }
    let mut child = command.spawn().expect("spawn server process");
    let output: Arc<Mutex<Vec<String>>> = Arc::default();
    let errors = child.stderr.take().map(|e| {
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(e).lines().map_while(Result::ok) {
                kept.lock().expect("output").push(line);
            }
        })
    });
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut admin_addr = None;
    let addr = loop {
        let Some(Ok(line)) = lines.next() else {
            let _ = child.wait();
            if let Some(e) = errors {
                let _ = e.join();
            }
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
    Ok(Launched {
        process: ServerProcess { child },
        addr,
        admin_addr,
        output,
    })
}

impl ServerProcess {
    /// Whether the process has exited.
    pub(crate) fn exited(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_some()
    }

    /// Sends `signal` (e.g. `STOP`, `CONT`, `TERM`) to the process.
    ///
    /// # Panics
    /// If `kill` fails.
    pub(crate) fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{signal} failed");
    }

    /// Sends SIGTERM and waits up to `within` for the process to exit; returns its
    /// exit status and how long it took.
    ///
    /// # Panics
    /// If the process is still running after `within` (it is killed then).
    pub(crate) fn terminate(mut self, within: Duration) -> (ExitStatus, Duration) {
        let started = Instant::now();
        self.signal("TERM");
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return (status, started.elapsed());
            }
            if started.elapsed() > within {
                self.kill();
                panic!("the server did not exit within {within:?} of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the process with SIGKILL (no shutdown, no flushing) and reaps it.
    pub(crate) fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The command that runs this test binary as a server process
/// (`persistence::child_server`) on `database_url`, on free ports, with the test
/// limits of `Config::for_tests` and the extra variables `env` (which may change
/// those limits, but not the database or the ports: a compose file's `CATAN_BIND`
/// must not move the test server).
fn child_server_command(database_url: &str, env: &[(&str, &str)]) -> Command {
    // The running binary itself: on Linux `/proc/self/exe` still opens it after a
    // build elsewhere in the tree replaced its file (its path then no longer does).
    let own = std::path::Path::new("/proc/self/exe");
    let exe = if own.exists() {
        own.to_path_buf()
    } else {
        std::env::current_exe().expect("test binary")
    };
    let mut command = Command::new(exe);
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
        .env("CATAN_ADMIN_BIND", "127.0.0.1:0");
    // The test limits, unless the caller sets one of them itself.
    for (name, value) in [
        ("CATAN_BOT_THINK_MS", "0"),
        ("CATAN_RATE_LIMIT", "100000"),
        ("CATAN_LOBBY_RATE_PER_MIN", "0"),
        ("CATAN_WEBSOCKET_RATE_PER_MIN", "0"),
        ("CATAN_CHAT_PER_MIN", "100000"),
        ("CATAN_MAX_WEBSOCKETS_PER_ADDRESS", "100000"),
        ("CATAN_MAX_CONNECTIONS_PER_ADDRESS", "0"),
    ] {
        if !env.iter().any(|(k, _)| *k == name) {
            command.env(name, value);
        }
    }
    command
}
