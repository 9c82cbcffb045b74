//! `.env.example`, the template of the `.env` docker compose reads: it names only
//! settings something reads, explains each in English and Chinese, and its command
//! that generates the secrets gives a `.env` compose starts with.

use std::collections::BTreeSet;

use super::{compose, interpolate, repo_root, server_env_vars, service_env};

const EXAMPLE: &str = include_str!("../../../.env.example");
const COMPOSE_FILE: &str = include_str!("../../../docker-compose.yml");

/// The variables of the example: `(name, value, commented out)`, for lines
/// `NAME=value` and `#NAME=value`.
fn assignments(text: &str) -> Vec<(String, String, bool)> {
    text.lines()
        .filter_map(|line| {
            let (commented, rest) = match line.strip_prefix('#') {
                Some(r) => (true, r),
                None => (false, line),
            };
            let (name, value) = rest.split_once('=')?;
            let is_name = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            is_name.then(|| (name.to_owned(), value.to_owned(), commented))
        })
        .collect()
}

/// The variables the compose file fills in (`${NAME...}`).
fn compose_variables() -> BTreeSet<String> {
    COMPOSE_FILE
        .match_indices("${")
        .map(|(i, _)| {
            let rest = &COMPOSE_FILE[i + 2..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect()
}

#[test]
fn dot_env_example_names_only_settings_the_server_or_compose_reads() {
    let known = server_env_vars();
    let filled = compose_variables();
    let vars = assignments(EXAMPLE);
    assert!(vars.len() >= 10, "the common settings are listed: {vars:?}");
    for (name, _, _) in &vars {
        assert!(
            known.contains(name) || filled.contains(name),
            ".env.example names {name}, which neither the server nor docker-compose.yml reads"
        );
    }
    // What compose insists on is there, uncommented, for the user to fill in.
    for required in ["CATAN_DOMAIN", "CATAN_ADMIN_TOKEN", "POSTGRES_PASSWORD"] {
        assert!(
            vars.iter()
                .any(|(n, _, commented)| n == required && !commented),
            "{required} is set in .env.example"
        );
    }
}

/// Whether `line` holds a CJK ideograph.
fn has_chinese(line: &str) -> bool {
    line.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn dot_env_example_explains_every_setting_in_english_and_chinese() {
    // Paragraphs: runs of lines between blank ones. Each that sets a variable says
    // what it is in both languages.
    for paragraph in EXAMPLE.split("\n\n") {
        if assignments(paragraph).is_empty() {
            continue;
        }
        let comments: Vec<&str> = paragraph
            .lines()
            .filter(|l| l.starts_with("# ") || *l == "#")
            .collect();
        assert!(
            comments.iter().any(|l| has_chinese(l)),
            "no Chinese in:\n{paragraph}"
        );
        assert!(
            comments
                .iter()
                .any(|l| !has_chinese(l) && l.chars().any(|c| c.is_ascii_alphabetic())),
            "no English in:\n{paragraph}"
        );
    }
}

#[test]
fn the_secrets_command_of_dot_env_example_gives_a_env_compose_starts_with() {
    // The command, as the file gives it (after `cp .env.example .env`).
    let command = EXAMPLE
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(str::trim)
        .find(|l| l.contains("openssl rand"))
        .expect("a command that generates the secrets");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(repo_root().join(".env.example"), dir.path().join(".env")).expect("cp");
    let status = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(dir.path())
        .status()
        .expect("sh");
    assert!(status.success(), "{command}");
    let written = std::fs::read_to_string(dir.path().join(".env")).expect(".env");
    let vars = assignments(&written);
    let set: Vec<(&str, &str)> = vars
        .iter()
        .filter(|(_, _, commented)| !commented)
        .map(|(n, v, _)| (n.as_str(), v.as_str()))
        .collect();
    for secret in ["CATAN_ADMIN_TOKEN", "POSTGRES_PASSWORD"] {
        let value = set
            .iter()
            .find(|(n, _)| *n == secret)
            .map(|(_, v)| *v)
            .expect("set");
        assert!(
            value.len() == 64 && value.chars().all(|c| c.is_ascii_hexdigit()),
            "{secret} is 32 random bytes in hex: {value:?}"
        );
    }
    // Every value compose fills in from it goes through (no `:?` refusal) ...
    let c = compose();
    for service in ["db", "server", "proxy"] {
        service_env(&c, service, &set);
    }
    // ... and the untouched example is refused: the secrets are empty there.
    let untouched: Vec<(String, String, bool)> = assignments(EXAMPLE);
    let untouched: Vec<(&str, &str)> = untouched
        .iter()
        .filter(|(_, _, commented)| !commented)
        .map(|(n, v, _)| (n.as_str(), v.as_str()))
        .collect();
    let token = c["services"]["server"]["environment"]["CATAN_ADMIN_TOKEN"]
        .as_str()
        .expect("token");
    let refused = std::panic::catch_unwind(|| interpolate(token, &untouched));
    assert!(refused.is_err(), "an empty admin token is refused");
}
