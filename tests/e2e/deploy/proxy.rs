//! The proxy in front of the server (docker-compose.yml, deploy/Caddyfile): HTTPS
//! for the domain or plain HTTP without one, the server reached through it only,
//! the client-address header believed from it only; every service's log rotation
//! and resource limits; the cluster's proxy retrying another instance.

use std::net::Ipv4Addr;
use std::time::Duration;

use serde_norway::Value;

use super::{cluster_compose, compose, duration, interpolate, service_env};

const CADDYFILE: &str = include_str!("../../../deploy/Caddyfile");
const CLUSTER_CADDYFILE: &str = include_str!("../../../deploy/cluster/Caddyfile");

/// The secrets compose insists on, so that interpolation goes through.
const SECRETS: [(&str, &str); 2] = [("CATAN_ADMIN_TOKEN", "t"), ("POSTGRES_PASSWORD", "p")];

/// `SECRETS` and `more`.
fn with(more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    SECRETS.iter().chain(more).copied().collect()
}

/// One variable of a service's environment, filled in from `vars`.
fn env_of(c: &Value, service: &str, name: &str, vars: &[(&str, &str)]) -> Option<String> {
    service_env(c, service, vars)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// A string or number of the compose file, as text.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => panic!("not a scalar: {other:?}"),
    }
}

/// Whether `addr` lies in `cidr` (`a.b.c.d/len`).
fn in_cidr(addr: Ipv4Addr, cidr: &str) -> bool {
    let (net, len) = cidr.split_once('/').expect("a CIDR range");
    let net: Ipv4Addr = net.parse().expect("an IPv4 network");
    let len: u32 = len.parse().expect("a prefix length");
    let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
    u32::from(addr) & mask == u32::from(net) & mask
}

/// The port of the server's public listener inside its container.
fn server_port(c: &Value) -> String {
    let bind = env_of(c, "server", "CATAN_BIND", &with(&[])).expect("CATAN_BIND");
    bind.rsplit(':').next().expect("port").to_owned()
}

#[test]
fn in_cidr_compares_the_network_bits() {
    let a = Ipv4Addr::new(10, 203, 47, 2);
    assert!(in_cidr(a, "10.203.47.0/24"));
    assert!(!in_cidr(a, "10.203.47.128/25"));
    assert!(in_cidr(a, "0.0.0.0/0"));
    assert!(!in_cidr(a, "10.203.48.0/24"));
}

#[test]
fn the_proxy_serves_the_domain_over_https_and_plain_http_without_one() {
    let c = compose();
    let proxy = &c["services"]["proxy"];
    assert!(proxy["image"].as_str().expect("image").starts_with("caddy"));
    assert_eq!(
        proxy["depends_on"]["server"]["condition"].as_str(),
        Some("service_healthy"),
        "no 502 while the server starts"
    );
    let mounts: Vec<&str> = proxy["volumes"]
        .as_sequence()
        .expect("volumes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(mounts.contains(&"./deploy/Caddyfile:/etc/caddy/Caddyfile:ro"));
    // Certificates and the ACME account survive a `down` (public CAs rate-limit).
    let data = mounts
        .iter()
        .find(|m| m.ends_with(":/data"))
        .expect("Caddy's /data is a volume");
    let name = data.split(':').next().expect("name");
    assert!(c["volumes"].get(name).is_some(), "{name} is a named volume");

    let ports: Vec<String> = proxy["ports"]
        .as_sequence()
        .expect("ports")
        .iter()
        .map(|p| interpolate(p.as_str().expect("port"), &[]))
        .collect();
    for port in ["80:80", "443:443"] {
        assert!(ports.iter().any(|p| p == port), "{port} in {ports:?}");
    }

    // The site: the domain (automatic HTTPS), else plain HTTP on :80.
    let site = |vars: &[(&str, &str)]| env_of(&c, "proxy", "CATAN_SITE_ADDRESS", vars);
    assert_eq!(
        site(&[("CATAN_DOMAIN", "catan.example.org")]).as_deref(),
        Some("catan.example.org")
    );
    assert_eq!(site(&[]).as_deref(), Some(":80"));
    assert_eq!(site(&[("CATAN_DOMAIN", "")]).as_deref(), Some(":80"));
    let lines: Vec<&str> = CADDYFILE
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert!(lines.contains(&"{$CATAN_SITE_ADDRESS} {"), "the one site");
    assert!(lines.contains(&"import tls-{$CATAN_TLS}"));
    // Each value of CATAN_TLS the compose file documents is a snippet.
    assert_eq!(
        env_of(&c, "proxy", "CATAN_TLS", &[]).as_deref(),
        Some("acme")
    );
    for tls in ["acme", "internal"] {
        assert!(lines.contains(&format!("(tls-{tls}) {{").as_str()), "{tls}");
    }
    let upstream = format!("reverse_proxy server:{} {{", server_port(&c));
    assert!(lines.contains(&upstream.as_str()), "{upstream}");
}

#[test]
fn the_public_origins_follow_the_domain() {
    let c = compose();
    let origins = |vars: &[(&'static str, &'static str)]| {
        env_of(&c, "server", "CATAN_PUBLIC_ORIGINS", &with(vars)).expect("set")
    };
    assert_eq!(
        origins(&[("CATAN_DOMAIN", "catan.example.org")]),
        "https://catan.example.org"
    );
    // No domain: none, so a page opened at http://SERVER_IP is the server's own.
    assert_eq!(origins(&[]), "");
    assert_eq!(origins(&[("CATAN_DOMAIN", "")]), "");
    // Set in .env, it wins (HTTPS on another port, several names).
    assert_eq!(
        origins(&[
            ("CATAN_DOMAIN", "catan.example.org"),
            ("CATAN_PUBLIC_ORIGINS", "https://catan.example.org:8443")
        ]),
        "https://catan.example.org:8443"
    );
}

/// The compose network's subnet and the range its containers get addresses from.
fn network(c: &Value, vars: &[(&str, &str)]) -> (String, String) {
    let ipam = &c["networks"]["default"]["ipam"]["config"][0];
    (
        interpolate(ipam["subnet"].as_str().expect("subnet"), vars),
        interpolate(ipam["ip_range"].as_str().expect("ip_range"), vars),
    )
}

#[test]
fn the_server_believes_the_client_address_header_from_the_proxy_only() {
    let c = compose();
    let header = env_of(&c, "server", "CATAN_CLIENT_ADDRESS_HEADER", &with(&[]));
    assert_eq!(header.as_deref(), Some("X-Forwarded-For"));
    let defaults = with(&[]);
    let moved = with(&[
        ("CATAN_SUBNET", "10.9.8.0/24"),
        ("CATAN_SUBNET_DYNAMIC", "10.9.8.128/25"),
        ("CATAN_PROXY_ADDRESS", "10.9.8.2"),
    ]);
    for vars in [defaults, moved] {
        let trusted = env_of(&c, "server", "CATAN_TRUSTED_PROXIES", &vars).expect("set");
        let proxy = interpolate(
            c["services"]["proxy"]["networks"]["default"]["ipv4_address"]
                .as_str()
                .expect("the proxy has a fixed address"),
            &vars,
        );
        assert_eq!(trusted, proxy, "the server trusts the proxy's address only");
        let address: Ipv4Addr = proxy.parse().expect("an address");
        let (subnet, dynamic) = network(&c, &vars);
        assert!(in_cidr(address, &subnet), "{proxy} in {subnet}");
        assert!(
            !in_cidr(address, &dynamic),
            "no other container can be given {proxy} (they get {dynamic})"
        );
        // The server takes it as its flag.
        let config = <catan_server::Config as clap::Parser>::try_parse_from([
            "catan-server",
            "--trusted-proxies",
            &trusted,
        ])
        .unwrap_or_else(|e| panic!("{trusted}: {e}"));
        assert_eq!(config.listen.trusted_proxies.len(), 1);
    }
    // Nothing else is on the proxy's address: every other service joins the
    // default network without a fixed one.
    for (name, s) in c["services"].as_mapping().expect("services") {
        if name.as_str() != Some("proxy") {
            assert!(s.get("networks").is_none(), "{name:?}");
        }
    }
}

/// Bytes of a compose memory size (`512m`, `1g`, `268435456`).
fn bytes(size: &str) -> u64 {
    let size = size.trim().to_ascii_lowercase();
    let (digits, unit) = size.split_at(
        size.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(size.len()),
    );
    let n: u64 = digits.parse().expect("a number");
    n * match unit.trim_end_matches('b') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        other => panic!("unit {other}"),
    }
}

/// Every service of `c` rotates its logs and has memory and CPU limits that fit a
/// small host (defaults: CPUs at most 1, which any host has).
fn assert_logs_and_limits(c: &Value, file: &str) {
    let vars = with(&[]);
    for (name, s) in c["services"].as_mapping().expect("services") {
        let name = name.as_str().expect("name");
        let logging = &s["logging"];
        match logging["driver"].as_str() {
            Some("local") => {}
            Some("json-file") => {
                let opts = &logging["options"];
                let size = opts["max-size"].as_str().expect("max-size");
                assert!(bytes(size) <= 100 << 20, "{file} {name}: {size}");
                assert!(
                    text(&opts["max-file"]).parse::<u32>().is_ok(),
                    "{file} {name}: max-file"
                );
            }
            other => panic!("{file} {name}: logs not rotated ({other:?})"),
        }
        let limits = &s["deploy"]["resources"]["limits"];
        let memory = interpolate(&text(&limits["memory"]), &vars);
        assert!(
            (64 << 20..=2 << 30).contains(&bytes(&memory)),
            "{file} {name}: memory {memory}"
        );
        let cpus: f64 = interpolate(&text(&limits["cpus"]), &vars)
            .parse()
            .expect("cpus");
        assert!(cpus > 0.0 && cpus <= 1.0, "{file} {name}: cpus {cpus}");
    }
}

#[test]
fn every_service_rotates_its_logs_and_has_memory_and_cpu_limits() {
    assert_eq!(bytes("512m"), 512 << 20);
    assert_eq!(bytes("10M"), 10 << 20);
    assert_logs_and_limits(&compose(), "docker-compose.yml");
    assert_logs_and_limits(&cluster_compose(), "deploy/cluster/docker-compose.yml");
}

#[test]
fn the_cluster_proxy_retries_another_instance_and_is_the_only_trusted_one() {
    let lines: Vec<&str> = CLUSTER_CADDYFILE
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .collect();
    let try_for = lines
        .iter()
        .find_map(|l| l.strip_prefix("lb_try_duration "))
        .expect("a failed request is tried on another instance");
    assert!(duration(try_for) >= Duration::from_secs(1), "{try_for}");
    let c = cluster_compose();
    let vars = with(&[]);
    let proxy = interpolate(
        c["services"]["proxy"]["networks"]["default"]["ipv4_address"]
            .as_str()
            .expect("the proxy has a fixed address"),
        &vars,
    );
    let (subnet, dynamic) = network(&c, &vars);
    let address: Ipv4Addr = proxy.parse().expect("an address");
    assert!(in_cidr(address, &subnet) && !in_cidr(address, &dynamic));
    for n in 1..=3 {
        let name = format!("catan-{n}");
        assert_eq!(
            env_of(&c, &name, "CATAN_TRUSTED_PROXIES", &vars),
            Some(proxy.clone()),
            "{name}"
        );
        assert_eq!(
            env_of(&c, &name, "CATAN_CLIENT_ADDRESS_HEADER", &vars).as_deref(),
            Some("X-Forwarded-For")
        );
    }
}
