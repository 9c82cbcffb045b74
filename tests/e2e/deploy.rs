//! Self-hosting files: the compose files and the Dockerfile checked against what
//! the server actually reads. (They are run for real by deploy/compose-test.sh,
//! which needs a container engine and is not part of this suite.)

mod env_example;
mod proxy;

use std::collections::BTreeSet;
use std::time::Duration;

use clap::CommandFactory;
use serde_norway::Value;

fn compose() -> Value {
    serde_norway::from_str(include_str!("../../docker-compose.yml"))
        .expect("docker-compose.yml parses")
}

/// Every environment variable the server reads (from its clap definition), plus
/// the log filter.
fn server_env_vars() -> BTreeSet<String> {
    let cmd = catan_server::Config::command();
    let mut vars: BTreeSet<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_env().map(|e| e.to_string_lossy().into_owned()))
        .collect();
    vars.insert("RUST_LOG".into());
    vars
}

#[test]
fn the_compose_file_runs_postgres_with_a_volume_and_a_health_check() {
    let c = compose();
    let db = &c["services"]["db"];
    assert!(
        db["image"]
            .as_str()
            .expect("db image")
            .starts_with("postgres")
    );
    let volume = db["volumes"][0].as_str().expect("db volume");
    assert!(volume.ends_with(":/var/lib/postgresql/data"));
    let name = volume.split(':').next().expect("volume name");
    assert!(
        c["volumes"].get(name).is_some(),
        "the named volume {name} is declared"
    );
    let check = db["healthcheck"]["test"][1].as_str().expect("health check");
    assert!(check.contains("pg_isready"));
    // Over TCP, as the server connects: during the image's first initialisation
    // PostgreSQL listens on its Unix socket only, and a socket check passes then.
    assert!(
        check.contains("-h 127.0.0.1"),
        "the health check goes over TCP: {check}"
    );
    assert!(db["restart"].as_str().is_some());
    // PostgreSQL's fast shutdown writes a checkpoint: more than Docker's 10 s.
    let grace = duration(
        db["stop_grace_period"]
            .as_str()
            .expect("the db service has a stop_grace_period"),
    );
    assert!(grace >= Duration::from_secs(30), "{grace:?}");
}

#[test]
fn the_compose_file_starts_the_server_after_a_healthy_database_with_variables_it_reads() {
    let c = compose();
    let server = &c["services"]["server"];
    assert_eq!(server["build"].as_str(), Some("."));
    assert_eq!(
        server["depends_on"]["db"]["condition"].as_str(),
        Some("service_healthy")
    );
    assert!(server["restart"].as_str().is_some());
    let known = server_env_vars();
    let env = server["environment"].as_mapping().expect("environment");
    for key in env.keys() {
        let key = key.as_str().expect("variable name");
        assert!(
            known.contains(key),
            "the server does not read {key}; it reads {known:?}"
        );
    }
    let url = env
        .get("DATABASE_URL")
        .and_then(Value::as_str)
        .expect("DATABASE_URL");
    assert!(
        url.starts_with("postgres://") && url.contains("@db:5432/"),
        "points at the db service"
    );
    assert!(
        env.contains_key("CATAN_ADMIN_TOKEN"),
        "self-hosters must set an admin token"
    );
    let bind = env
        .get("CATAN_BIND")
        .and_then(Value::as_str)
        .expect("CATAN_BIND");
    let port = bind.rsplit(':').next().expect("port");
    let ports: Vec<&str> = server["ports"]
        .as_sequence()
        .expect("ports")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // The public port is reached through the proxy only: published on the host, a
    // client could go round the proxy (and its HTTPS).
    assert!(
        ports.iter().all(|p| !p.ends_with(&format!(":{port}"))),
        "the server's public port {port} is not published: {ports:?}"
    );
    let expose: Vec<String> = server["expose"]
        .as_sequence()
        .expect("expose")
        .iter()
        .map(|p| match p {
            Value::String(s) => s.clone(),
            other => format!("{}", other.as_u64().expect("a port")),
        })
        .collect();
    assert_eq!(
        expose,
        [port],
        "the proxy reaches it on the compose network"
    );
    let admin = env
        .get("CATAN_ADMIN_BIND")
        .and_then(Value::as_str)
        .expect("CATAN_ADMIN_BIND");
    let admin_port = admin.rsplit(':').next().expect("port");
    let published: Vec<&&str> = ports
        .iter()
        .filter(|p| p.ends_with(&format!(":{admin_port}")))
        .collect();
    assert_eq!(published.len(), 1, "the admin port is published: {ports:?}");
    assert!(
        published.iter().all(|p| p.starts_with("127.0.0.1:")),
        "the admin port is only published on the host's loopback"
    );
}

#[test]
fn every_setting_in_dot_env_reaches_the_server() {
    let c = compose();
    let server = &c["services"]["server"];
    let files = server["env_file"].as_sequence().expect("env_file");
    assert!(
        files
            .iter()
            .any(|f| f.as_str() == Some(".env") || f["path"].as_str() == Some(".env")),
        "the server gets the whole .env: {files:?}"
    );
}

/// The Dockerfile's instructions, continuation lines joined and comments left out,
/// each as (keyword, the rest).
fn dockerfile_instructions() -> Vec<(String, String)> {
    include_str!("../../Dockerfile")
        .replace("\\\n", " ")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (keyword, rest) = l.split_once(' ').unwrap_or((l, ""));
            (keyword.to_ascii_uppercase(), rest.trim().to_owned())
        })
        .collect()
}

#[test]
fn the_dockerfile_builds_the_dependencies_in_a_layer_before_the_sources() {
    let all = dockerfile_instructions();
    // The stage that builds the binary the runtime copies.
    let runtime_copy = all
        .iter()
        .rev()
        .find(|(k, rest)| k == "COPY" && rest.contains("catan-server /usr/local/bin/"))
        .expect("the runtime copies the binary");
    let stage = runtime_copy
        .1
        .strip_prefix("--from=")
        .and_then(|r| r.split_whitespace().next())
        .expect("COPY --from=STAGE");
    let start = all
        .iter()
        .position(|(k, rest)| k == "FROM" && rest.ends_with(&format!(" AS {stage}")))
        .expect("the build stage");
    let end = all[start + 1..]
        .iter()
        .position(|(k, _)| k == "FROM")
        .map_or(all.len(), |i| start + 1 + i);
    let body = &all[start + 1..end];
    let first_build = body
        .iter()
        .position(|(k, rest)| k == "RUN" && rest.contains("cargo build --release --locked"))
        .expect("a cargo build");
    let sources = body
        .iter()
        .position(|(k, rest)| k == "COPY" && rest == ". .")
        .expect("the sources are copied");
    assert!(
        first_build < sources,
        "the dependencies are built before the sources come in: {body:?}"
    );
    // Before that build, only the skeleton: manifests, lock file, stubs.
    for (k, rest) in &body[..first_build] {
        assert!(
            k != "COPY" || rest.starts_with("--from="),
            "nothing of the sources before the dependency build: COPY {rest}"
        );
    }
    // After the sources, the workspace's crates are forced out of date and built.
    let last = body[sources..]
        .iter()
        .find(|(k, rest)| k == "RUN" && rest.contains("cargo build"))
        .expect("the real build");
    assert!(last.1.contains("touch"), "{}", last.1);
}

#[test]
fn the_image_runs_as_a_user_without_a_home_or_anonymous_volume() {
    let all = dockerfile_instructions();
    assert!(
        all.iter().all(|(k, _)| k != "VOLUME"),
        "a VOLUME leaves an anonymous volume per compose down/up"
    );
    let runtime = &all[all.iter().rposition(|(k, _)| k == "FROM").expect("FROM")..];
    let user = runtime
        .iter()
        .rev()
        .find(|(k, _)| k == "USER")
        .expect("the runtime sets a USER");
    assert!(
        !matches!(user.1.as_str(), "root" | "0" | "0:0"),
        "not root: {}",
        user.1
    );
    let useradd = runtime
        .iter()
        .find(|(k, rest)| k == "RUN" && rest.contains("useradd"))
        .expect("the user is made");
    assert!(
        useradd.1.contains("--no-create-home") && !useradd.1.contains("--create-home "),
        "no home directory (its dot files would land in the data volume): {}",
        useradd.1
    );
    assert!(
        runtime
            .iter()
            .any(|(k, rest)| k == "HEALTHCHECK" && !rest.is_empty())
    );
}

#[test]
fn the_dockerfile_builds_the_server_binary_in_stages_and_uses_the_same_variables() {
    let d = include_str!("../../Dockerfile");
    assert!(d.matches("FROM ").count() >= 2, "multi-stage");
    assert!(d.contains("cargo build --release --locked -p catan-server"));
    assert!(d.contains("ENTRYPOINT [\"/usr/local/bin/catan-server\"]"));
    let known = server_env_vars();
    for line in d.lines().map(str::trim) {
        let line = line.strip_prefix("ENV ").unwrap_or(line);
        if let Some((name, _)) = line.split_once('=')
            && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            && !name.is_empty()
        {
            assert!(
                known.contains(name),
                "the Dockerfile sets {name}, which the server does not read"
            );
        }
    }
}

/// The repository's root, where the Dockerfile, the compose file and the ignore
/// files live.
fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

/// Files that hold secrets (compose reads `.env`), and the template that may be
/// committed beside them.
const SECRET_FILES: [&str; 6] = [
    ".env",
    ".env.local",
    ".env.production",
    "prod.env",
    "deploy/.env",
    "deploy/db.env",
];
const TEMPLATE: &str = ".env.example";

#[test]
fn git_ignores_secrets_files_but_not_the_template() {
    // git itself decides, from .gitignore (`--no-index`: also for files it tracks).
    let ignored = |path: &str| {
        let out = std::process::Command::new("git")
            .current_dir(repo_root())
            .args(["-c", "core.excludesFile=/dev/null"])
            .args(["check-ignore", "--no-index", "-q", path])
            .status()
            .expect("run git check-ignore");
        match out.code() {
            Some(0) => true,
            Some(1) => false,
            other => panic!("git check-ignore {path}: exit {other:?}"),
        }
    };
    for path in SECRET_FILES {
        assert!(ignored(path), "git does not ignore {path}");
    }
    assert!(!ignored(TEMPLATE), "git ignores {TEMPLATE}");
    assert!(!ignored("docker-compose.yml"));
}

/// Whether `.dockerignore` keeps `path` out of the build context, by Docker's rules:
/// patterns relative to the context root (`*` and `?` within one path element, `**`
/// across any number), a pattern that matches a directory excludes what is inside,
/// `!` re-includes, and the last pattern that matches decides.
fn docker_ignores(patterns: &str, path: &str) -> bool {
    fn glob(p: &[u8], s: &[u8]) -> bool {
        match p {
            [] => s.is_empty(),
            [b'*', b'*', rest @ ..] => {
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                (0..=s.len()).any(|i| (i == 0 || s[i - 1] == b'/') && glob(rest, &s[i..]))
            }
            [b'*', rest @ ..] => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != b'/')
                .any(|i| glob(rest, &s[i..])),
            [b'?', rest @ ..] => s.first().is_some_and(|&c| c != b'/') && glob(rest, &s[1..]),
            [c, rest @ ..] => s.first() == Some(c) && glob(rest, &s[1..]),
        }
    }
    let mut ignored = false;
    for line in patterns.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keep, pattern) = match line.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, line),
        };
        let pattern = pattern.trim_start_matches('/').trim_end_matches('/');
        // The path itself or any directory above it.
        let matches = path
            .match_indices('/')
            .map(|(i, _)| &path[..i])
            .chain([path])
            .any(|prefix| glob(pattern.as_bytes(), prefix.as_bytes()));
        if matches {
            ignored = !keep;
        }
    }
    ignored
}

#[test]
fn the_docker_build_context_leaves_out_secrets_build_output_and_git() {
    let patterns =
        std::fs::read_to_string(repo_root().join(".dockerignore")).expect(".dockerignore exists");
    for path in SECRET_FILES
        .into_iter()
        .chain(["target/release/catan-server", ".git/HEAD"])
        .chain(["web/node_modules/typescript/package.json"])
    {
        assert!(
            docker_ignores(&patterns, path),
            "the build context includes {path}"
        );
    }
    for path in [
        TEMPLATE,
        "Cargo.toml",
        "Cargo.lock",
        "crates/server/src/main.rs",
        "migrations/0001_games.sql",
        "web/index.html",
    ] {
        assert!(
            !docker_ignores(&patterns, path),
            "the build context leaves out {path}, which the build needs"
        );
    }
}

#[test]
fn the_dockerignore_matcher_follows_dockers_rules() {
    let p = "target\n**/*.env\n!keep.env\n# comment\nweb/node_modules/\n";
    assert!(docker_ignores(p, "target"));
    assert!(docker_ignores(p, "target/debug/x"));
    assert!(!docker_ignores(p, "crates/target"));
    assert!(docker_ignores(p, "a.env"));
    assert!(docker_ignores(p, "x/y/a.env"));
    assert!(!docker_ignores(p, "keep.env"));
    assert!(!docker_ignores(p, "a.envx"));
    assert!(docker_ignores(p, "web/node_modules/a/b"));
    assert!(!docker_ignores(p, "web/index.html"));
    assert!(
        !docker_ignores("*.env", "x/a.env"),
        "`*` stays in one element"
    );
}

/// A value of the compose file with its `${VAR}`, `${VAR:-default}`,
/// `${VAR-default}`, `${VAR:+alternative}`, `${VAR+alternative}`,
/// `${VAR:?message}` and `${VAR?message}` filled in from `vars`, as docker compose
/// fills them from `.env`: a default or alternative may itself hold `${...}`, and
/// `$$` is a `$`.
fn interpolate(value: &str, vars: &[(&str, &str)]) -> String {
    let get = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('$') {
            out.push('$');
            rest = r;
            continue;
        }
        let r = rest
            .strip_prefix('{')
            .expect("only ${...} in the compose file");
        // The closing brace of this expression, past any nested ones.
        let mut depth = 1;
        let end = r
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map(|(i, _)| i)
            .expect("closing brace");
        let (expr, after) = (&r[..end], &r[end + 1..]);
        rest = after;
        let name_end = expr
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(expr.len());
        let (name, op) = expr.split_at(name_end);
        let set = get(name);
        let non_empty = set.filter(|v| !v.is_empty());
        let word = |skip: usize| interpolate(&op[skip..], vars);
        let filled = match op {
            "" => set.unwrap_or("").to_owned(),
            _ if op.starts_with(":-") => non_empty.map_or_else(|| word(2), str::to_owned),
            _ if op.starts_with('-') => set.map_or_else(|| word(1), str::to_owned),
            _ if op.starts_with(":+") => non_empty.map_or_else(String::new, |_| word(2)),
            _ if op.starts_with('+') => set.map_or_else(String::new, |_| word(1)),
            _ if op.starts_with(":?") || op.starts_with('?') => set
                .filter(|v| !(op.starts_with(':') && v.is_empty()))
                .unwrap_or_else(|| panic!("compose refuses to start: {name}: {op}"))
                .to_owned(),
            _ => panic!("unsupported interpolation ${{{expr}}}"),
        };
        out.push_str(&filled);
    }
    out.push_str(rest);
    out
}

/// The `environment` of a compose service, filled in from `vars`.
fn service_env(c: &Value, service: &str, vars: &[(&str, &str)]) -> Vec<(String, String)> {
    c["services"][service]["environment"]
        .as_mapping()
        .expect("environment")
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                other => panic!("unexpected value {other:?}"),
            };
            (k.as_str().expect("name").to_owned(), interpolate(&v, vars))
        })
        .collect()
}

#[test]
fn compose_interpolation_is_filled_in_like_docker_compose_does() {
    let vars = [("A", "x"), ("E", "")];
    assert_eq!(interpolate("p${A}q", &vars), "pxq");
    assert_eq!(interpolate("${B:-d}", &vars), "d");
    assert_eq!(interpolate("${E:-d}|${E-d}", &vars), "d|");
    assert_eq!(interpolate("${A:?set A}$$", &vars), "x$");
    assert_eq!(
        interpolate("${A:+a-${A}}|${E:+e}|${E+e}|${B+b}", &vars),
        "a-x||e|"
    );
    assert_eq!(interpolate("${B:-${E:-${A}}/}", &vars), "x/");
}

#[test]
fn the_compose_file_keeps_the_database_password_out_of_the_url() {
    let c = compose();
    let env = c["services"]["server"]["environment"]
        .as_mapping()
        .expect("environment");
    let url = env["DATABASE_URL"].as_str().expect("DATABASE_URL");
    assert!(
        !url.contains('$'),
        "no variable is pasted into DATABASE_URL ({url}): a password with / @ : breaks it"
    );
    assert_eq!(
        env.get("CATAN_DATABASE_PASSWORD").and_then(Value::as_str),
        c["services"]["db"]["environment"]["POSTGRES_PASSWORD"].as_str(),
        "the server gets the password the database is created with"
    );
}

/// A generated password with every character that means something in a URL.
const AWKWARD_PASSWORD: &str = "p/a+s=s@w:o%rd%41?#[]&' x";

/// The database the compose file's `db` service creates (its user, password and
/// database), made in the scratch cluster as the postgres image would make it;
/// returns the cluster's port.
async fn create_compose_database(db_env: &[(String, String)]) -> u16 {
    use sqlx::Connection;
    let get = |k: &str| {
        db_env
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("db sets {k}"))
    };
    let (user, password, db) = (
        get("POSTGRES_USER"),
        get("POSTGRES_PASSWORD"),
        get("POSTGRES_DB"),
    );
    let cluster = catan_e2e::scratch_postgres().await;
    let port = cluster.port;
    let admin = cluster.admin_url("postgres");
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .expect("scratch cluster");
    let quoted = password.replace('\'', "''");
    for sql in [
        format!("DROP DATABASE IF EXISTS \"{db}\" WITH (FORCE)"),
        format!("DROP ROLE IF EXISTS \"{user}\""),
        format!("CREATE ROLE \"{user}\" LOGIN PASSWORD '{quoted}'"),
        format!("CREATE DATABASE \"{db}\" OWNER \"{user}\""),
    ] {
        sqlx::raw_sql(&sql).execute(&mut conn).await.expect(&sql);
    }
    port
}

/// The compose file's `server` environment with `POSTGRES_PASSWORD` set to
/// `password`, pointed at the scratch cluster instead of the `db` service.
fn compose_server_env(c: &Value, password: &str, port: u16) -> (String, Vec<(String, String)>) {
    let vars = [
        ("POSTGRES_PASSWORD", password),
        ("CATAN_ADMIN_TOKEN", "t0ken"),
    ];
    let mut env = service_env(c, "server", &vars);
    let i = env
        .iter()
        .position(|(k, _)| k == "DATABASE_URL")
        .expect("DATABASE_URL");
    let (_, url) = env.remove(i);
    assert!(url.contains("@db:5432/"), "{url}");
    let url = url.replace("@db:5432/", &format!("@127.0.0.1:{port}/"));
    (url, env)
}

#[tokio::test]
async fn the_compose_database_credentials_work_with_any_password() {
    let c = compose();
    let db_env = service_env(&c, "db", &[("POSTGRES_PASSWORD", AWKWARD_PASSWORD)]);
    let port = create_compose_database(&db_env).await;

    let (url, env) = compose_server_env(&c, AWKWARD_PASSWORD, port);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut server = catan_e2e::TestServer::try_spawn_process_with(&url, &env)
        .unwrap_or_else(|out| panic!("the server did not start:\n{}", out.join("\n")));
    if let Err(out) = server.wait_ready(Duration::from_secs(30)).await {
        panic!("the server did not get ready:\n{}", out.join("\n"));
    }
    let (status, _) = server.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status}");

    // The password is checked (the cluster asks for it): a wrong one is refused.
    let (url, env) = compose_server_env(&c, "not-the-password", port);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let out = match catan_e2e::TestServer::try_spawn_process_with(&url, &env) {
        Err(out) => out,
        Ok(mut server) => server
            .wait_ready(Duration::from_secs(30))
            .await
            .expect_err("a wrong password is refused"),
    };
    assert!(
        out.iter()
            .any(|l| l.contains("password authentication failed")),
        "{out:?}"
    );
}

/// A compose or Dockerfile duration (`30s`, `1m30s`, `500ms`, `1h`).
fn duration(s: &str) -> Duration {
    let mut total = Duration::ZERO;
    let mut rest = s.trim();
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).expect("a unit");
        let n: u64 = rest[..digits].parse().expect("a number");
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        total += match &rest[..unit] {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n * 60),
            "h" => Duration::from_secs(n * 3600),
            other => panic!("unit {other:?} in {s:?}"),
        };
        rest = &rest[unit..];
    }
    total
}

/// The arguments of a health check command (after the program) parse as the
/// server's `healthcheck` subcommand; returns its timeout.
fn healthcheck_timeout(program: &str, args: &[&str]) -> Duration {
    assert_eq!(
        program, "/usr/local/bin/catan-server",
        "the health check runs the server binary, which the image has (no curl)"
    );
    let config = <catan_server::Config as clap::Parser>::try_parse_from(
        std::iter::once("catan-server").chain(args.iter().copied()),
    )
    .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    match config.command {
        Some(catan_server::config::Command::Healthcheck { timeout_secs }) => {
            Duration::from_secs(timeout_secs)
        }
        other => panic!("{args:?} is not the healthcheck subcommand: {other:?}"),
    }
}

/// The default of one of the server's flags, from its clap definition.
fn default_of(flag: &str) -> String {
    let cmd = catan_server::Config::command();
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_long() == Some(flag))
        .unwrap_or_else(|| panic!("no --{flag}"));
    arg.get_default_values()[0].to_string_lossy().into_owned()
}

#[test]
fn the_dockerfile_health_check_runs_the_servers_own_healthcheck() {
    let d = include_str!("../../Dockerfile");
    // Instructions with their continuation lines joined.
    let joined = d.replace("\\\n", " ");
    let line = joined
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("HEALTHCHECK "))
        .expect("a HEALTHCHECK");
    let (options, cmd) = line
        .strip_prefix("HEALTHCHECK ")
        .and_then(|l| l.split_once("CMD "))
        .expect("HEALTHCHECK [options] CMD [...]");
    let argv: Vec<String> = serde_json::from_str(cmd.trim()).expect("exec form: a JSON array");
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let check = healthcheck_timeout(argv[0], &argv[1..]);
    let timeout = options
        .split_whitespace()
        .find_map(|o| o.strip_prefix("--timeout="))
        .map(duration)
        .expect("--timeout=");
    assert!(
        timeout > check,
        "Docker's timeout ({timeout:?}) leaves the check ({check:?}) time to say why"
    );
}

#[test]
fn the_compose_file_checks_the_servers_health_and_gives_it_time_to_shut_down() {
    let c = compose();
    let server = &c["services"]["server"];
    let test: Vec<&str> = server["healthcheck"]["test"]
        .as_sequence()
        .expect("a health check test")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect();
    assert_eq!(test[0], "CMD", "exec form: no shell in the image needed");
    let check = healthcheck_timeout(test[1], &test[2..]);
    let timeout = duration(server["healthcheck"]["timeout"].as_str().expect("timeout"));
    assert!(timeout > check, "{timeout:?} > {check:?}");

    // docker compose stop / down: SIGTERM, then SIGKILL after the grace period,
    // which must outlast the server's own bound on a graceful shutdown.
    let grace = duration(
        server["stop_grace_period"]
            .as_str()
            .expect("stop_grace_period (Docker's default, 10 s, is the shutdown timeout)"),
    );
    let env = server["environment"].as_mapping().expect("environment");
    let shutdown = env
        .get("CATAN_SHUTDOWN_TIMEOUT_SECS")
        .and_then(Value::as_str)
        .map_or_else(|| default_of("shutdown-timeout-secs"), str::to_owned);
    let shutdown = Duration::from_secs(shutdown.parse().expect("seconds"));
    assert!(
        grace >= shutdown + Duration::from_secs(5),
        "stop_grace_period {grace:?} is well above the shutdown timeout {shutdown:?}"
    );
}

#[test]
fn durations_read_like_docker_writes_them() {
    assert_eq!(duration("30s"), Duration::from_secs(30));
    assert_eq!(duration("1m30s"), Duration::from_secs(90));
    assert_eq!(duration("500ms"), Duration::from_millis(500));
}

/// The metric names a PromQL expression refers to: identifiers starting `catan_`.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = expr;
    while let Some(i) = rest.find("catan_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        names.insert(tail[..end].to_owned());
        rest = &tail[end..];
    }
    names
}

/// Both ways: the dashboard charts only families `/metrics` exports, and every
/// `catan_` family it exports; its panels use the provisioned data source.
#[tokio::test]
async fn the_monitoring_profile_scrapes_the_admin_listener_and_charts_all_exported_metrics() {
    let c = compose();
    let root = repo_root();
    // Prometheus and Grafana are optional: only under the `monitoring` profile.
    for service in ["prometheus", "grafana"] {
        let s = &c["services"][service];
        assert_eq!(s["profiles"][0].as_str(), Some("monitoring"), "{service}");
        for v in s["volumes"].as_sequence().expect("volumes") {
            let v = v.as_str().expect("volume");
            if let Some(local) = v.strip_prefix("./") {
                let local = local.split(':').next().expect("path");
                assert!(
                    root.join(local).exists(),
                    "{service} mounts {local}, which exists"
                );
            }
        }
        let ports = s["ports"].as_sequence().expect("ports");
        assert!(
            ports
                .iter()
                .all(|p| p.as_str().is_some_and(|p| p.starts_with("127.0.0.1:"))),
            "{service} is only published on the host's loopback"
        );
    }
    assert!(
        c["configs"]["catan_admin_token"]["content"]
            .as_str()
            .is_some_and(|t| t.contains("CATAN_ADMIN_TOKEN")),
        "Prometheus gets the server's admin token"
    );

    // The scrape target is the server's admin listener, with the token file.
    let prom: Value = serde_norway::from_str(
        &std::fs::read_to_string(root.join("deploy/prometheus.yml")).expect("prometheus.yml"),
    )
    .expect("prometheus.yml parses");
    let job = &prom["scrape_configs"][0];
    assert_eq!(job["metrics_path"].as_str(), Some("/metrics"));
    let admin_bind = c["services"]["server"]["environment"]["CATAN_ADMIN_BIND"]
        .as_str()
        .expect("CATAN_ADMIN_BIND");
    let admin_port = admin_bind.rsplit(':').next().expect("port");
    assert_eq!(
        job["static_configs"][0]["targets"][0].as_str(),
        Some(format!("server:{admin_port}").as_str())
    );
    let token_file = job["authorization"]["credentials_file"]
        .as_str()
        .expect("credentials_file");
    let mounted = c["services"]["prometheus"]["configs"]
        .as_sequence()
        .expect("configs")
        .iter()
        .any(|m| m["target"].as_str() == Some(token_file));
    assert!(mounted, "the token file {token_file} is mounted");

    // Every metric the dashboard charts is one the server exports.
    let server = crate::admin::admin_server(|_| {}).await;
    // One refusal, so that the family of refusals by code has a sample.
    let (room, token) = crate::admin::alice_and_two_bots(&server).await;
    let mut alice = server.connect(room, Some(&token), None).await;
    alice
        .send_json(&serde_json::json!({
            "type": "action", "request_id": "1", "action": { "type": "buy_dev_card" }
        }))
        .await;
    alice
        .recv_until(|m| matches!(m, catan_protocol::ServerMessage::Rejected { .. }))
        .await;
    let exported = server
        .admin_get("/metrics")
        .await
        .text()
        .await
        .expect("metrics");
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("deploy/grafana/dashboards/catan.json"))
            .expect("dashboard"),
    )
    .expect("the dashboard is JSON");
    let mut charted = BTreeSet::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        for t in panel["targets"].as_array().expect("targets") {
            charted.extend(metric_names(t["expr"].as_str().expect("expr")));
        }
    }
    assert!(
        charted.len() >= 6,
        "the dashboard charts the server: {charted:?}"
    );
    // A family is declared by its `# TYPE` line (a counter's with `_total`);
    // a histogram's samples add `_bucket`, `_count` and `_sum`.
    for name in &charted {
        let family = ["_total", "_bucket", "_count", "_sum"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name);
        assert!(
            exported.lines().any(|l| {
                l.starts_with(&format!("# TYPE {name} "))
                    || l.starts_with(&format!("# TYPE {family} "))
            }),
            "the dashboard charts {name}, which /metrics does not export:\n{exported}"
        );
    }
    // And the other way: every family the server exports is charted by a panel.
    let families: BTreeSet<&str> = exported
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with("catan_"))
        .collect();
    assert!(
        families.len() >= 6,
        "/metrics declares the server's families:\n{exported}"
    );
    for family in &families {
        let charted_here = charted.iter().any(|name| {
            name == family
                || ["_total", "_bucket", "_count", "_sum"]
                    .iter()
                    .any(|suffix| name.strip_suffix(suffix) == Some(family))
        });
        assert!(
            charted_here,
            "/metrics exports {family}, which no panel of the dashboard charts: {charted:?}"
        );
    }

    // The panels and their queries use the data source Grafana is provisioned with.
    let provisioned: Value = serde_norway::from_str(
        &std::fs::read_to_string(
            root.join("deploy/grafana/provisioning/datasources/prometheus.yml"),
        )
        .expect("the provisioned data source"),
    )
    .expect("the data source file parses");
    let sources = provisioned["datasources"]
        .as_sequence()
        .expect("datasources");
    let prometheus = sources
        .iter()
        .find(|d| d["type"].as_str() == Some("prometheus"))
        .expect("a Prometheus data source");
    let uid = prometheus["uid"]
        .as_str()
        .expect("the data source has a uid");
    assert_eq!(
        prometheus["url"].as_str(),
        Some("http://prometheus:9090"),
        "the data source is the compose file's Prometheus"
    );
    for panel in dashboard["panels"].as_array().expect("panels") {
        let title = panel["title"].as_str().unwrap_or("?");
        let mut used = vec![&panel["datasource"]];
        used.extend(
            panel["targets"]
                .as_array()
                .expect("targets")
                .iter()
                .map(|t| &t["datasource"]),
        );
        for d in used {
            assert_eq!(
                (d["type"].as_str(), d["uid"].as_str()),
                (Some("prometheus"), Some(uid)),
                "panel {title:?} uses the provisioned data source {uid}"
            );
        }
    }
}

/// The cluster's compose file, YAML merge keys (`<<:`) applied as compose does.
fn cluster_compose() -> Value {
    let mut c: Value =
        serde_norway::from_str(include_str!("../../deploy/cluster/docker-compose.yml"))
            .expect("deploy/cluster/docker-compose.yml parses");
    c.apply_merge().expect("merge keys");
    for service in ["catan-1", "catan-2", "catan-3"] {
        let s = &mut c["services"][service];
        s.apply_merge().expect("merge keys");
        s["environment"].apply_merge().expect("merge keys");
    }
    c
}

#[test]
fn the_cluster_compose_file_runs_three_instances_on_one_postgres_behind_a_proxy() {
    let c = cluster_compose();
    let known = server_env_vars();
    let vars = [("CATAN_ADMIN_TOKEN", "t"), ("POSTGRES_PASSWORD", "p")];
    let mut urls = BTreeSet::new();
    for n in 1..=3 {
        let name = format!("catan-{n}");
        let s = &c["services"][name.as_str()];
        assert_eq!(
            s["build"].as_str(),
            Some("../.."),
            "{name} builds the server"
        );
        assert_eq!(
            s["depends_on"]["db"]["condition"].as_str(),
            Some("service_healthy")
        );
        let env: std::collections::BTreeMap<String, String> =
            service_env(&c, &name, &vars).into_iter().collect();
        for var in env.keys() {
            assert!(
                known.contains(var),
                "{name}: the server does not read {var}"
            );
        }
        // Each instance is reached by the others at its own service name.
        assert_eq!(
            env.get("CATAN_CLUSTER_ADDRESS").map(String::as_str),
            Some(format!("http://{name}:8080").as_str())
        );
        assert_eq!(
            env.get("CATAN_BIND").map(String::as_str),
            Some("0.0.0.0:8080")
        );
        urls.insert(env["DATABASE_URL"].clone());
        let grace = duration(s["stop_grace_period"].as_str().expect("grace"));
        assert!(grace > Duration::from_secs(10), "past the shutdown timeout");
        assert!(
            s.get("ports").is_none(),
            "{name} is reached through the proxy only"
        );
    }
    assert_eq!(urls.len(), 1, "one database: {urls:?}");
    assert!(urls.iter().all(|u| u.starts_with("postgres://")));
    // The proxy: the committed Caddyfile, naming the three instances.
    let proxy = &c["services"]["proxy"];
    assert!(proxy["image"].as_str().expect("image").starts_with("caddy"));
    let mount = proxy["volumes"][0].as_str().expect("volume");
    assert_eq!(mount, "./Caddyfile:/etc/caddy/Caddyfile:ro");
    let caddyfile = include_str!("../../deploy/cluster/Caddyfile");
    for n in 1..=3 {
        assert!(caddyfile.contains(&format!("catan-{n}:8080")));
    }
    assert!(caddyfile.contains("health_uri /healthz"));
    assert_eq!(
        proxy["ports"][0].as_str().map(|p| interpolate(p, &[])),
        Some("8080:8080".to_owned())
    );
}
