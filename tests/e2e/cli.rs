//! The `catan-server` binary as a process: its `healthcheck` subcommand (what the
//! Dockerfile's and the compose file's health checks run).

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use catan_e2e::TestServer;

/// The server binary (built from crates/server/src/main.rs for this package).
fn catan_server() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_catan-server-e2e"));
    // Only what a test sets: none of the environment's CATAN_* variables.
    for (k, _) in std::env::vars() {
        if k.starts_with("CATAN_") || k == "DATABASE_URL" || k == "RUST_LOG" {
            c.env_remove(k);
        }
    }
    c
}

fn run(mut c: Command) -> Output {
    c.output().expect("run catan-server")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A port nothing listens on (bound, then let go).
fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

#[tokio::test]
async fn healthcheck_exits_0_against_a_running_server() {
    let server = TestServer::start().await;
    let port = server.addr.port();
    // The bind address as configured (CATAN_BIND, as in the Dockerfile), and an
    // unspecified one, which it checks on loopback.
    for bind in [format!("127.0.0.1:{port}"), format!("0.0.0.0:{port}")] {
        let mut c = catan_server();
        c.arg("healthcheck").env("CATAN_BIND", &bind);
        let out = tokio::task::spawn_blocking(move || run(c))
            .await
            .expect("join");
        assert!(
            out.status.success(),
            "{bind}: {} {}{}",
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
        let said = text(&out.stdout);
        assert!(said.starts_with("ok"), "a short message: {said:?}");
        assert!(
            said.contains(&format!("127.0.0.1:{port}/healthz")),
            "{said}"
        );
    }
    // The flag works as well as the variable (and wins), before or after the
    // subcommand.
    let bind = format!("127.0.0.1:{port}");
    for args in [
        ["--bind", bind.as_str(), "healthcheck"],
        ["healthcheck", "--bind", bind.as_str()],
    ] {
        let mut c = catan_server();
        c.args(args).env("CATAN_BIND", "127.0.0.1:1");
        let out = tokio::task::spawn_blocking(move || run(c))
            .await
            .expect("join");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    server.shutdown().await;
}

#[test]
fn healthcheck_exits_non_zero_on_a_dead_port() {
    let port = dead_port();
    let mut c = catan_server();
    c.arg("healthcheck")
        .env("CATAN_BIND", format!("127.0.0.1:{port}"));
    let out = run(c);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(said.starts_with("unhealthy"), "{said:?}");
    assert!(said.contains(&port.to_string()), "{said}");
    assert_eq!(said.lines().count(), 1, "one short line: {said:?}");
}

#[test]
fn healthcheck_exits_non_zero_when_healthz_is_not_200_or_does_not_answer() {
    // A listener that answers 503, and one that never answers.
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for s in l.incoming().take(1) {
            let mut s = s.expect("accept");
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.ends_with(b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let _ = s.write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let mut c = catan_server();
    c.arg("healthcheck")
        .env("CATAN_BIND", format!("127.0.0.1:{port}"));
    let out = run(c);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("503"), "{}", text(&out.stderr));

    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let mut c = catan_server();
    c.args(["healthcheck", "--timeout-secs", "1"])
        .env("CATAN_BIND", format!("127.0.0.1:{port}"));
    let started = Instant::now();
    let out = run(c);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(10), "it gives up");
    drop(silent);
}

/// Runs the server on an in-memory store with `args` and stderr piped (not a
/// terminal), waits until it listens, stops it with SIGTERM and returns what it
/// wrote to stderr and to stdout.
fn serve_and_stop(args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    use std::io::Read;
    let mut c = catan_server();
    c.args(args)
        .env("DATABASE_URL", "sqlite::memory:")
        .env("CATAN_BIND", "127.0.0.1:0")
        .env("CATAN_ADMIN_BIND", "127.0.0.1:0")
        .env("CATAN_ADMIN_TOKEN", "t0ken")
        .env("RUST_LOG", "debug")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn catan-server");
    let mut stderr = child.stderr.take().expect("stderr");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
            let _ = tx.send(all.clone());
        }
        all
    });
    let out_reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = stdout.read_to_end(&mut all);
        all
    });
    // Until the public listener's line is on stderr.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(all) if text(&all).contains("lobby API and WebSocket") => break,
            Ok(all) => seen = all,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the server logged no listening line to stderr within 20 s; it said:\n{}",
                    text(&seen)
                );
            }
        }
    }
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status}");
    (
        reader.join().expect("stderr reader"),
        out_reader.join().expect("stdout reader"),
    )
}

#[test]
fn logs_on_a_pipe_are_plain_text_on_stderr() {
    let (stderr, stdout) = serve_and_stop(&[]);
    assert!(
        !stderr.contains(&0x1b),
        "no ANSI escapes when stderr is not a terminal:\n{}",
        text(&stderr)
    );
    let log = text(&stderr);
    for line in [
        "listening (lobby API and WebSocket)",
        "SIGTERM received",
        "shut down cleanly",
    ] {
        assert!(log.contains(line), "{line:?} in\n{log}");
    }
    assert!(
        log.lines()
            .all(|l| l.contains("INFO") || l.contains("DEBUG") || l.contains("WARN"))
    );
    assert!(stdout.is_empty(), "nothing on stdout: {}", text(&stdout));
}

#[test]
fn log_format_json_writes_one_json_object_per_line() {
    for args in [&["--log-format", "json"][..], &["--log-format=json"]] {
        let (stderr, stdout) = serve_and_stop(args);
        assert!(!stderr.contains(&0x1b));
        assert!(stdout.is_empty(), "nothing on stdout: {}", text(&stdout));
        let log = text(&stderr);
        let lines: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
            .collect();
        assert!(lines.len() >= 3, "{log}");
        for l in &lines {
            assert!(l["timestamp"].is_string() && l["level"].is_string(), "{l}");
        }
        let listening = lines
            .iter()
            .find(|l| l["fields"]["message"] == "listening (lobby API and WebSocket)")
            .expect("the listening line");
        assert_eq!(listening["level"], "INFO");
        assert!(
            listening["fields"]["addr"]
                .as_str()
                .is_some_and(|a| a.starts_with("127.0.0.1:")),
            "{listening}"
        );
    }
}

#[test]
fn an_unknown_log_format_is_refused_and_the_variable_is_listed() {
    let mut c = catan_server();
    c.args(["--log-format", "xml"]);
    let out = run(c);
    assert_eq!(out.status.code(), Some(2), "an unknown format is refused");
    assert!(text(&out.stderr).contains("json"), "{}", text(&out.stderr));

    let mut c = catan_server();
    c.arg("--help");
    let out = run(c);
    assert!(text(&out.stdout).contains("CATAN_LOG_FORMAT"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_sqlite_file_refuses_to_start_and_the_first_runs_on() {
    let (url, _dir) = catan_e2e::fresh_sqlite_url();
    let mut first = TestServer::spawn_process(&url);
    first
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("the first server");
    let out = match TestServer::try_spawn_process_with(&url, &[]) {
        Err(out) => out,
        Ok(mut second) => second
            .wait_ready(Duration::from_secs(30))
            .await
            .expect_err("a second server on the same file must not start"),
    };
    assert!(
        out.iter().any(|l| l.contains("another catan-server (pid ")
            && l.contains("is using the SQLite database")),
        "{out:?}"
    );
    // The first one serves on, and a server started after it stopped (or died)
    // finds the file free.
    let health = first
        .http
        .get(first.url("/readyz"))
        .send()
        .await
        .expect("http");
    assert_eq!(health.status(), 200);
    first.kill();
    let mut again = TestServer::spawn_process(&url);
    again
        .wait_ready(Duration::from_secs(30))
        .await
        .expect("the file is free once the first server is gone, even after SIGKILL");
    let (status, _) = again.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status}");
}
