//! Self-hosting files: no Docker engine runs here, so the compose file and the
//! Dockerfile are checked against what the server actually reads.

use std::collections::BTreeSet;

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
    assert!(db["restart"].as_str().is_some());
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
    assert!(
        ports.iter().any(|p| p.ends_with(&format!(":{port}"))),
        "the public port is published"
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
    assert!(
        published.iter().all(|p| p.starts_with("127.0.0.1:")),
        "the admin port is only published on the host's loopback"
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
