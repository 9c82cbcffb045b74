//! The documentation holds together: every rule id cited in the docs, the code and
//! the tests is one docs/RULES.md defines, and the docs' links stay inside the
//! repository and lead to files that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The repository's root.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

/// The files under `dir` (recursively) whose names end with `ext`, leaving out build
/// output, installed packages and browser downloads.
fn files_under(dir: &Path, ext: &str, recurse: bool, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            let skipped = name.starts_with('.')
                || ["target", "node_modules", "artifacts"].contains(&name.as_str());
            if recurse && !skipped {
                files_under(&path, ext, recurse, out);
            }
        } else if kind.is_file() && name.ends_with(ext) {
            out.push(path);
        }
    }
}

/// The documents whose links and paths are checked: the Markdown files at the root
/// (README.md and its translations, protocol.md, ...), everything under docs/ (the
/// protocol's sections in docs/protocol/ too), bench/'s results and the examples'
/// READMEs.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = Vec::new();
    files_under(root, ".md", false, &mut docs);
    files_under(&root.join("docs"), ".md", true, &mut docs);
    files_under(&root.join("bench"), ".md", true, &mut docs);
    files_under(&root.join("examples"), ".md", true, &mut docs);
    docs.sort();
    docs
}

/// Where rule ids may be cited: the documents, the Rust sources of the crates and
/// the tests (but this one), and the browser client's scripts.
fn citing_files(root: &Path) -> Vec<PathBuf> {
    let mut files = documents(root);
    files_under(&root.join("crates"), ".rs", true, &mut files);
    files_under(&root.join("tests"), ".rs", true, &mut files);
    files_under(&root.join("web"), ".js", false, &mut files);
    // This file's examples are not citations.
    files.retain(|f| !f.ends_with("tests/e2e/docs.rs"));
    files.sort();
    files
}

/// The rule ids in `text` with their 1-based lines: `R-` (not inside a word) and a
/// number, then `.` and a number if there is one (`R-7`, `R-7.2`; a range
/// `R-7.2..R-7.3` is two).
fn rule_ids(text: &str) -> Vec<(usize, String)> {
    let mut ids = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let mut i = 0;
        while let Some(at) = line[i..].find("R-") {
            let start = i + at;
            i = start + 2;
            let inside_word = start > 0
                && (b[start - 1].is_ascii_alphanumeric()
                    || b[start - 1] == b'_'
                    || b[start - 1] == b'-');
            let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
            let major = digits(i);
            if inside_word || major == 0 {
                continue;
            }
            let mut end = i + major;
            if b.get(end) == Some(&b'.') {
                let minor = digits(end + 1);
                if minor > 0 {
                    end += 1 + minor;
                }
            }
            ids.push((n + 1, line[start..end].to_owned()));
            i = end;
        }
    }
    ids
}

/// The ids docs/RULES.md defines: a heading's (`## R-7 Rolling a 7`) and a
/// bullet's (`- R-7.1 **Discard**: ...`), each the first word after the marker.
fn defined_rules(rules: &str) -> BTreeSet<String> {
    let mut defined = BTreeSet::new();
    for line in rules.lines() {
        let rest = if let Some(h) = line.strip_prefix('#') {
            h.trim_start_matches('#').strip_prefix(' ')
        } else {
            line.strip_prefix("- ").or_else(|| line.strip_prefix("* "))
        };
        let Some(first) = rest.and_then(|r| r.split_whitespace().next()) else {
            continue;
        };
        if let [(_, id)] = rule_ids(first).as_slice()
            && id == first
        {
            assert!(defined.insert(id.clone()), "RULES.md defines {id} twice");
        }
    }
    defined
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .expect("inside the repository")
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn every_rule_id_cited_is_defined_in_rules_md() {
    let root = repo_root();
    let rules = std::fs::read_to_string(root.join("docs/RULES.md")).expect("docs/RULES.md");
    let defined = defined_rules(&rules);
    // Ten sections and their rules: the parser found the definitions.
    assert!(
        (1..=10).all(|s| defined.contains(&format!("R-{s}"))) && defined.len() >= 55,
        "RULES.md's ids as parsed: {defined:?}"
    );
    let mut undefined = Vec::new();
    let mut cited = BTreeMap::<String, usize>::new();
    let files = citing_files(&root);
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    for path in &files {
        let name = relative(&root, path);
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (line, id) in rule_ids(&text) {
            *cited.entry(id.clone()).or_default() += 1;
            if defined.contains(&id) {
                continue;
            }
            undefined.push(format!("{name}:{line}: {id}"));
        }
    }
    assert!(cited.len() >= 40, "the citations were found: {cited:?}");
    assert!(
        undefined.is_empty(),
        "rule ids cited but not defined in docs/RULES.md:\n{}",
        undefined.join("\n")
    );
}

#[test]
fn the_rule_id_parser_reads_citations_and_definitions() {
    assert_eq!(
        rule_ids("(R-7.2..R-7.3, R-10.5.) per R-4; not PR-12, SR-1 or R-x"),
        [
            (1, "R-7.2".to_owned()),
            (1, "R-7.3".to_owned()),
            (1, "R-10.5".to_owned()),
            (1, "R-4".to_owned()),
        ]
    );
    let defined = defined_rules(
        "# Rules\n## R-7 Rolling a 7\nOn a 7, as R-6.2 says:\n- R-7.1 **Discard**\n  R-7.9 wrapped\n- see R-8.1\n",
    );
    assert_eq!(
        defined,
        BTreeSet::from(["R-7".to_owned(), "R-7.1".to_owned()])
    );
}

/// The targets of a markdown text's links outside fenced code: inline links and
/// images (`[text](target "title")`, `<target>` too), reference definitions
/// (`[name]: target`) and HTML `href`/`src` attributes; with their lines.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        starts.push(offset);
        offset += line.len();
    }
    let line_of = |at: usize| starts.partition_point(|s| *s <= at);
    // Fenced code blanked out, byte for byte, so that offsets stay the text's.
    let mut prose = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let fence = line.trim_start().starts_with("```");
        if fence {
            fenced = !fenced;
        }
        if fence || fenced {
            prose.extend(line.bytes().map(|c| if c == b'\n' { '\n' } else { ' ' }));
        } else {
            prose.push_str(line);
        }
    }
    let mut rest = 0;
    while let Some(at) = prose[rest..].find("](") {
        let from = rest + at + 2;
        // The destination may start on the next line.
        let tail = prose[from..].trim_start();
        let target = if let Some(t) = tail.strip_prefix('<') {
            t.split('>').next().unwrap_or("")
        } else {
            tail.split([')', ' ', '\n']).next().unwrap_or("")
        };
        out.push((line_of(from), target.to_owned()));
        rest = from;
    }
    for attr in ["href=\"", "src=\""] {
        let mut rest = 0;
        while let Some(at) = prose[rest..].find(attr) {
            let from = rest + at + attr.len();
            let target = prose[from..].split('"').next().unwrap_or("");
            out.push((line_of(from), target.to_owned()));
            rest = from;
        }
    }
    let mut at = 0;
    for line in prose.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some(close) = t.find("]: ")
            && !t[..close].contains('(')
        {
            let target = t[close + 3..].split_whitespace().next().unwrap_or("");
            out.push((line_of(at), target.trim_matches(['<', '>']).to_owned()));
        }
        at += line.len();
    }
    out.sort();
    out
}

/// `base` joined with the relative `target`, `.` and `..` worked out; `None` if
/// the `..` climb above `root`.
fn resolve(root: &Path, base: &Path, target: &str) -> Option<PathBuf> {
    let base = base.strip_prefix(root).expect("inside the repository");
    let mut parts: Vec<String> = base
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(target).components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().fold(root.to_path_buf(), |p, c| p.join(c)))
}

/// Places outside the repository that a document must not name: the machine's
/// working and temporary directories, people's homes, and a rules file shared
/// between checkouts.
const OUTSIDE: [&str; 8] = [
    "/work",
    "/tmp",
    "/home",
    "/root",
    "/Users",
    "/mnt",
    "file://",
    "shared/RULES",
];

/// What in `text` (the document at `path`) points outside the repository: a path
/// starting `../` that climbs above the root, or one of [`OUTSIDE`] as a word of
/// its own; with its line.
fn outside_paths(root: &Path, path: &Path, text: &str) -> Vec<(usize, String)> {
    let dir = path.parent().expect("a directory");
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let word_start = |at: usize| {
            at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b"._-/~".contains(&b[at - 1]))
        };
        let mut i = 0;
        while let Some(at) = line[i..].find("../") {
            let start = i + at;
            i = start + 3;
            if !word_start(start) {
                continue;
            }
            let token = line[start..]
                .split(|c: char| c.is_whitespace() || "`'\"()<>[],;".contains(c))
                .next()
                .unwrap_or("");
            let token = token.split('#').next().unwrap_or("");
            if resolve(root, dir, token).is_none() {
                found.push((n + 1, token.to_owned()));
            }
        }
        for needle in OUTSIDE {
            let mut i = 0;
            while let Some(at) = line[i..].find(needle) {
                let start = i + at;
                let end = start + needle.len();
                i = end;
                let ends_word = b
                    .get(end)
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-'));
                if (word_start(start) || needle == "shared/RULES") && ends_word {
                    found.push((n + 1, line[start..].chars().take(60).collect()));
                }
            }
        }
    }
    found
}

/// References to an issue tracker: "issue 12", "issues #3", "PR 7", "ticket 4", or
/// a bare "#12" (not a markdown anchor or heading).
fn tracker_references(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let b = lower.as_bytes();
        for word in ["issue", "issues", "ticket", "tickets", "pr", "bug"] {
            let mut i = 0;
            while let Some(at) = lower[i..].find(word) {
                let start = i + at;
                let end = start + word.len();
                i = end;
                let alone = (start == 0 || !b[start - 1].is_ascii_alphanumeric())
                    && b.get(end) == Some(&b' ');
                let number = lower[end..].trim_start().trim_start_matches('#');
                if alone && number.starts_with(|c: char| c.is_ascii_digit()) {
                    found.push((n + 1, line[start..].chars().take(40).collect()));
                }
            }
        }
        let mut i = 0;
        while let Some(at) = lower[i..].find('#') {
            let start = i + at;
            i = start + 1;
            let before_ok = start == 0 || b" \t,;:[{".contains(&b[start - 1]);
            let digits = b[start + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let after = b.get(start + 1 + digits);
            let ends =
                after.is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_'));
            if before_ok && digits > 0 && ends {
                found.push((n + 1, line[start..start + 1 + digits].to_owned()));
            }
        }
    }
    // One report a line ("PR #7" is a word and a bare number).
    found.sort();
    found.dedup_by_key(|(line, _)| *line);
    found
}

/// The anchors a markdown text defines, as GitHub makes them: each heading's text
/// (outside fenced code) lower-cased, with every character that is not a letter, a
/// digit, a space, `-` or `_` dropped and spaces made `-`, a repeated one numbered
/// (`-1`, `-2`, ...); and HTML `id`/`name` attributes.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = line.bytes().take_while(|c| *c == b'#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            let slug = slug(line[level..].trim());
            let n = seen.entry(slug.clone()).or_default();
            out.insert(if *n == 0 {
                slug.clone()
            } else {
                format!("{slug}-{n}")
            });
            *n += 1;
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                let value = &rest[at + attr.len()..];
                out.insert(value.split('"').next().unwrap_or("").to_owned());
                rest = value;
            }
        }
    }
    out
}

#[test]
fn the_documents_link_only_inside_the_repository_to_files_that_exist() {
    let root = repo_root();
    let docs = documents(&root);
    assert!(docs.len() >= 4, "{docs:?}");
    let mut bad = Vec::new();
    let mut checked = 0;
    let mut anchored = 0;
    for path in &docs {
        let name = relative(&root, path);
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (line, target) in link_targets(&text) {
            if ["http://", "https://", "mailto:"]
                .iter()
                .any(|s| target.starts_with(s))
            {
                continue;
            }
            let file = target.split(['#', '?']).next().unwrap_or("");
            let fragment = target.split_once('#').map(|(_, f)| f);
            let linked = if file.is_empty() {
                path.clone() // a link within the document
            } else {
                checked += 1;
                let decoded = percent_encoding::percent_decode_str(file).decode_utf8_lossy();
                match resolve(&root, path.parent().expect("dir"), &decoded) {
                    None => {
                        bad.push(format!(
                            "{name}:{line}: {target} leads out of the repository"
                        ));
                        continue;
                    }
                    Some(p) if !p.exists() => {
                        bad.push(format!("{name}:{line}: {target} does not exist"));
                        continue;
                    }
                    Some(p) => p,
                }
            };
            if let Some(fragment) = fragment
                && linked.extension().is_some_and(|e| e == "md")
            {
                anchored += 1;
                let fragment = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
                let text = std::fs::read_to_string(&linked).expect("a linked document");
                if !anchors(&text).contains(fragment.as_ref()) {
                    bad.push(format!(
                        "{name}:{line}: {target}: no heading or id makes that anchor"
                    ));
                }
            }
        }
        for (line, what) in outside_paths(&root, path, &text) {
            bad.push(format!(
                "{name}:{line}: names a place outside the repository: {what}"
            ));
        }
        for (line, what) in tracker_references(&text) {
            bad.push(format!("{name}:{line}: refers to an issue tracker: {what}"));
        }
    }
    assert!(
        checked >= 5 && anchored >= 100,
        "the documents' links to files were found: {checked}, to anchors: {anchored}"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_link_and_path_checks_catch_what_they_are_for() {
    let root = repo_root();
    let doc = root.join("docs/cluster.md");
    let text = "See [the rules](RULES.md#r-7) and [x](\n../README.md), ![s](<screenshots/a b.png>).\n\
                ```\n[not](a-link.md)\n```\n[ref]: ../protocol.md \"t\"\n<img src=\"x.png\">\n";
    let targets: BTreeSet<String> = link_targets(text).into_iter().map(|(_, t)| t).collect();
    let expected = [
        "RULES.md#r-7",
        "../README.md",
        "screenshots/a b.png",
        "../protocol.md",
        "x.png",
    ];
    assert_eq!(targets, expected.map(String::from).into());
    assert_eq!(
        resolve(&root, doc.parent().expect("dir"), "../README.md"),
        Some(root.join("README.md"))
    );
    assert_eq!(
        resolve(&root, doc.parent().expect("dir"), "../../x.md"),
        None
    );
    let outside: Vec<usize> = outside_paths(
        &root,
        &doc,
        "ok: ../README.md, `DELETE .../seats/x`, /api/rooms, /usr/bin/chromium, /workers\n\
         [r](../../shared/RULES.md)\n\
         cd /work/main\n\
         /tmp/x\n",
    )
    .into_iter()
    .map(|(line, _)| line)
    .collect();
    assert_eq!(outside, [2, 2, 3, 4], "../../ and shared/RULES on line 2");
    let tracker: Vec<usize> = tracker_references(
        "[events](#12-events) and ## 4.1 Errors, the print issue\n\
         see issue 12\n\
         fixed in #34.\n\
         PR #7\n",
    )
    .into_iter()
    .map(|(line, _)| line)
    .collect();
    assert_eq!(tracker, [2, 3, 4]);
    let made = anchors(
        "# 4.15 The contract: `GET /api/schema.json`\n## Errors\n## Errors\n\
         ```\n# not a heading\n```\n### 快速开始 (Quick start)\n<a id=\"r-7.1\"></a>\n",
    );
    assert_eq!(
        made,
        [
            "415-the-contract-get-apischemajson",
            "errors",
            "errors-1",
            "快速开始-quick-start",
            "r-7.1",
        ]
        .map(String::from)
        .into()
    );
}

/// The languages of the browser client's string tables (web/strings-*.js), in the
/// glossary's column order: (file suffix, column heading).
const LANGUAGES: [(&str, &str); 3] = [
    ("en", "English"),
    ("zh-hans", "简体中文"),
    ("zh-hant", "繁體中文"),
];

/// One string table of the browser client: (key, text) in the file's order. The
/// files hold one `"key": "text",` per line (the text a JSON string).
fn string_table(root: &Path, language: &str) -> Vec<(String, String)> {
    let name = format!("web/strings-{language}.js");
    let text = std::fs::read_to_string(root.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut table = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('"') else {
            continue;
        };
        let (key, value) = rest
            .split_once("\": ")
            .unwrap_or_else(|| panic!("{name}: not `\"key\": \"text\",`: {line}"));
        let value: String = serde_json::from_str(value.trim_end_matches(','))
            .unwrap_or_else(|e| panic!("{name}: {line}: {e}"));
        table.push((key.to_owned(), value));
    }
    table
}

/// The rules terms of the glossary: (heading, the string tables' keys, or one key
/// prefix for every key that starts with it, in the English table's order). The
/// first column shows the wire value: what follows the prefix.
const TERMS: [(&str, &[&str]); 10] = [
    ("Resources", &["res."]),
    ("Terrain", &["terrain."]),
    ("Pieces", &["piece."]),
    ("Development cards", &["dev."]),
    (
        "Points, awards and cards",
        &[
            "vp_long",
            "longest_road",
            "largest_army",
            "road_long",
            "knights_long",
            "cards_long",
            "dev_long",
            "harbor_3",
            "bank",
        ],
    ),
    ("Phases (`phase.name`)", &["phase."]),
    ("Room status (`status`)", &["status."]),
    ("Maps (`map`)", &["map."]),
    ("Bots (`kind`)", &["bot."]),
    ("Why an offer closed (`offer_closed.reason`)", &["close."]),
];

/// docs/glossary.md as the string tables give it: every rules term and every error
/// code of the protocol in the three languages, with its wire value. Also answers
/// what is missing: an error code or term a table has no text for.
fn glossary(root: &Path) -> (String, Vec<String>) {
    let english = string_table(root, LANGUAGES[0].0);
    let tables: Vec<BTreeMap<String, String>> = LANGUAGES
        .iter()
        .map(|(l, _)| string_table(root, l).into_iter().collect())
        .collect();
    let mut missing = Vec::new();
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut row = |wire: &str, key: &str, out: &mut String| {
        let texts: Vec<String> = tables
            .iter()
            .zip(LANGUAGES)
            .map(|(t, (l, _))| match t.get(key) {
                Some(text) => cell(text),
                None => {
                    missing.push(format!("web/strings-{l}.js has no `{key}`"));
                    String::new()
                }
            })
            .collect();
        out.push_str(&format!("| {wire} | {} |\n", texts.join(" | ")));
    };
    let header = format!(
        "| {{}} | {} |\n|---|---|---|---|\n",
        LANGUAGES.map(|(_, h)| h).join(" | ")
    );
    let mut out = String::from(
        "# Glossary\n\n\
         Every rules term and every error code of the protocol in English, 简体中文 and\n\
         繁體中文, as the browser client shows them: generated from its string tables\n\
         (`web/strings-en.js`, `web/strings-zh-hans.js`, `web/strings-zh-hant.js`), the one\n\
         source. The first column is the value on the wire where there is one. Do not\n\
         edit: change the tables, then run\n\
         `CATAN_BLESS=1 cargo test -p catan-e2e --test e2e docs::the_glossary` (the test\n\
         fails while this file is stale).\n\n\
         每个规则术语和协议的每个错误代码的英文、简体中文和繁體中文名称，由浏览器客户端的字符串表生成。\n\n\
         每個規則術語和協定的每個錯誤代碼的英文、簡體中文和繁體中文名稱，由瀏覽器用戶端的字串表產生。\n\n\
         ## Rules terms\n",
    );
    for (heading, keys) in TERMS {
        out.push_str(&format!("\n### {heading}\n\n"));
        out.push_str(&header.replace("{}", "wire value"));
        let selected: Vec<String> = if let [prefix] = keys
            && prefix.ends_with('.')
        {
            english
                .iter()
                .map(|(k, _)| k)
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect()
        } else {
            keys.iter().map(|k| (*k).to_owned()).collect()
        };
        for key in selected {
            let wire = key
                .split_once('.')
                .map_or(String::new(), |(_, w)| format!("`{w}`"));
            row(&wire, &key, &mut out);
        }
    }
    out.push_str(
        "\n## Error codes\n\n\
         Codes are stable; the texts are the client's translations, for people (the\n\
         server's own `message` is in English). Where each code is sent:\n\
         [protocol.md 18](protocol/18-error-codes.md#18-error-codes) and\n\
         [4.1](protocol/04-http-api.md#41-errors).\n",
    );
    let families: [(&str, Vec<&str>); 3] = [
        (
            "Refusals of an action by the rules (`rejected.code`, 18.1)",
            catan_engine::ActionError::ALL
                .iter()
                .map(|e| e.code())
                .collect(),
        ),
        (
            "Refusals by the room and connection errors (`rejected.code`, `error.code`, 18.2, 18.3)",
            catan_protocol::ErrorCode::ALL
                .iter()
                .map(|e| e.code())
                .collect(),
        ),
        (
            "Lobby (HTTP) errors (`error.code` of the body, 4.1)",
            catan_protocol::LobbyError::all()
                .iter()
                .map(catan_protocol::LobbyError::code)
                .collect(),
        ),
    ];
    for (heading, codes) in families {
        out.push_str(&format!("\n### {heading}\n\n"));
        out.push_str(&header.replace("{}", "code"));
        for code in codes {
            row(&format!("`{code}`"), &format!("err.{code}"), &mut out);
        }
    }
    (out, missing)
}

#[test]
fn the_glossary_is_what_the_clients_string_tables_give() {
    let root = repo_root();
    let (text, missing) = glossary(&root);
    assert!(
        missing.is_empty(),
        "terms or error codes without a translation:\n{}",
        missing.join("\n")
    );
    let path = root.join("docs/glossary.md");
    if std::env::var_os("CATAN_BLESS").is_some() {
        std::fs::write(&path, &text).expect("write docs/glossary.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "docs/glossary.md is stale: run `CATAN_BLESS=1 cargo test -p catan-e2e --test e2e \
         docs::the_glossary` and commit it"
    );
    // It holds what it is for: the terms and every code, in all three languages.
    for needle in [
        "| `lumber` | lumber | 木材 |",
        "| `game_over` | The game is over. |",
        "| `not_full` |",
        "| `stale_action` |",
    ] {
        assert!(text.contains(needle), "the glossary has {needle}");
    }
}

/// The translations kept beside their English sources: (translation, source) for every
/// `NAME.zh-Hans.md` and `NAME.zh-Hant.md` at the root and under docs/.
fn translations(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut files = Vec::new();
    files_under(root, ".md", false, &mut files);
    files_under(&root.join("docs"), ".md", true, &mut files);
    let mut pairs: Vec<(PathBuf, PathBuf)> = files
        .into_iter()
        .filter_map(|f| {
            let name = f.file_name()?.to_str()?.to_owned();
            let stem = name
                .strip_suffix(".zh-Hans.md")
                .or_else(|| name.strip_suffix(".zh-Hant.md"))?;
            let source = f.with_file_name(format!("{stem}.md"));
            Some((f, source))
        })
        .collect();
    pairs.sort();
    pairs
}

/// The sections of an English document: each heading's level and anchor, in order.
fn source_sections(text: &str) -> Vec<(usize, String)> {
    let mut seen = BTreeMap::<String, usize>::new();
    headings(text)
        .into_iter()
        .map(|(level, title, _)| {
            let slug = slug(&title);
            let n = seen.entry(slug.clone()).or_default();
            let anchor = if *n == 0 {
                slug.clone()
            } else {
                format!("{slug}-{n}")
            };
            *n += 1;
            (level, anchor)
        })
        .collect()
}

/// The sections of a translation: each heading's level and the anchor of the English
/// heading it translates, given as `<a id="..."></a>` on the line before it ("" when
/// there is none), in order.
fn translated_sections(text: &str) -> Vec<(usize, String)> {
    headings(text)
        .into_iter()
        .map(|(level, _, before)| {
            let id = before
                .trim()
                .strip_prefix("<a id=\"")
                .and_then(|r| r.strip_suffix("\"></a>"))
                .unwrap_or("");
            (level, id.to_owned())
        })
        .collect()
}

/// The headings of a markdown text outside fenced code: level, title and the line
/// before.
fn headings(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut before = "";
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let level = line.bytes().take_while(|c| *c == b'#').count();
        if !fenced && (1..=6).contains(&level) && line[level..].starts_with(' ') {
            out.push((level, line[level..].trim().to_owned(), before.to_owned()));
        }
        before = line;
    }
    out
}

/// A heading's anchor as GitHub makes it (see [`anchors`]).
fn slug(title: &str) -> String {
    title
        .trim_end_matches('#')
        .trim_end()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || [' ', '-', '_'].contains(c))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// What keeps `translation` from matching the sections of `source`: nothing when it
/// has the same headings, at the same levels, each marked with its English anchor.
fn drift(source: &str, translation: &str) -> Option<String> {
    let (want, got) = (source_sections(source), translated_sections(translation));
    if want == got {
        return None;
    }
    let first = want
        .iter()
        .zip(&got)
        .position(|(w, g)| w != g)
        .unwrap_or(want.len().min(got.len()));
    Some(format!(
        "{} sections where the English has {}; the first that differs is number {} \
         (English: {:?}, translation: {:?})",
        got.len(),
        want.len(),
        first + 1,
        want.get(first),
        got.get(first)
    ))
}

#[test]
fn every_translation_has_the_sections_of_its_english_source() {
    let root = repo_root();
    let pairs = translations(&root);
    assert!(pairs.len() >= 6, "the translations were found: {pairs:?}");
    let mut behind = Vec::new();
    for (translation, source) in &pairs {
        let name = relative(&root, translation);
        let english = std::fs::read_to_string(source)
            .unwrap_or_else(|e| panic!("{name}: its English source: {e}"));
        let text = std::fs::read_to_string(translation).expect("the translation");
        if let Some(what) = drift(&english, &text) {
            behind.push(format!(
                "{name} is behind {}: {what}; translate what changed, with \
                 `<a id=\"ANCHOR\"></a>` before each heading",
                relative(&root, source)
            ));
        }
        // Each page names the others in its first line.
        let source_name = source.file_name().and_then(|n| n.to_str()).expect("name");
        let first = text.lines().next().unwrap_or("");
        if !first.contains(&format!("]({source_name})")) {
            behind.push(format!("{name}: the first line must link {source_name}"));
        }
        let own = translation
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name");
        if !english
            .lines()
            .next()
            .unwrap_or("")
            .contains(&format!("]({own})"))
        {
            behind.push(format!(
                "{}: the first line must link {own}",
                relative(&root, source)
            ));
        }
    }
    assert!(behind.is_empty(), "{}", behind.join("\n"));
}

#[test]
fn a_translation_missing_a_section_or_its_anchor_is_caught() {
    let english =
        "# Title\n\n## Setup\n\ntext\n\n## Setup\n\n```\n# not a heading\n```\n### R-7.1 Discard\n";
    let good = "<a id=\"title\"></a>\n# 标题\n<a id=\"setup\"></a>\n## 摆放\n<a id=\"setup-1\"></a>\n## 摆放\n\
                <a id=\"r-71-discard\"></a>\n### R-7.1 弃牌\n";
    assert_eq!(drift(english, good), None);
    let missing = good.replace("<a id=\"setup-1\"></a>\n## 摆放\n", "");
    assert!(
        drift(english, &missing)
            .is_some_and(|d| d.starts_with("3 sections where the English has 4"))
    );
    let unmarked = good.replace("<a id=\"r-71-discard\"></a>\n", "");
    assert!(drift(english, &unmarked).is_some());
    let wrong_level = good.replace("### R-7.1", "## R-7.1");
    assert!(drift(english, &wrong_level).is_some());
}
