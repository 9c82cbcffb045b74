//! The `# Layout` sections of the crates' `lib.rs` and `mod.rs` files name every
//! module the file declares, so that the map a reader starts from does not drift
//! from the code; and every command a room takes says what it is for.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the repository")
        .to_path_buf()
}

/// Every `lib.rs` and `mod.rs` under `dir`.
fn module_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != "node_modules" {
                module_files(&path, out);
            }
        } else if name == "lib.rs" || name == "mod.rs" {
            out.push(path);
        }
    }
}

/// The modules a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`), but
/// those compiled for tests only.
fn declared(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut test_only = false;
    for line in source.lines() {
        let line = line.trim();
        if line.starts_with("#[cfg(test)]") {
            test_only = true;
            continue;
        }
        let decl = line
            .strip_prefix("pub(crate) mod ")
            .or_else(|| line.strip_prefix("pub(super) mod "))
            .or_else(|| line.strip_prefix("pub mod "))
            .or_else(|| line.strip_prefix("mod "));
        if let Some(rest) = decl
            && let Some(name) = rest.strip_suffix(';')
            && !test_only
        {
            names.push(name.trim().to_owned());
        }
        if !line.starts_with("#[") {
            test_only = false;
        }
    }
    names
}

/// The `# Layout` section of a file's inner doc comment, if it has one: from the
/// heading to the next heading or the end of the comment.
fn layout(source: &str) -> Option<String> {
    let doc: Vec<&str> = source
        .lines()
        .take_while(|l| l.trim_start().starts_with("//!") || l.trim().is_empty())
        .map(|l| l.trim_start().trim_start_matches("//!"))
        .collect();
    let start = doc.iter().position(|l| l.trim() == "# Layout")?;
    let section: Vec<&str> = doc[start + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with('#'))
        .copied()
        .collect();
    Some(section.join("\n"))
}

/// Whether `text` names module `name`: as `` `name` ``, `` [`name`] ``, a path into it
/// (`` `name/` ``, `` `name::` ``) or `name.rs`.
fn names(text: &str, name: &str) -> bool {
    [
        format!("`{name}`"),
        format!("`{name}/"),
        format!("`{name}::"),
        format!("[`{name}`]"),
        format!("{name}.rs"),
        format!("`{name}/`"),
    ]
    .iter()
    .any(|n| text.contains(n.as_str()))
}

#[test]
fn every_module_a_layout_section_belongs_to_is_named_in_it() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["crates", "tests", "fuzz/src"] {
        module_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut checked = 0;
    let mut missing = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("read");
        let Some(section) = layout(&source) else {
            continue;
        };
        checked += 1;
        for name in declared(&source) {
            if !names(&section, &name) {
                missing.push(format!(
                    "{}: module `{name}` is not named in # Layout",
                    file.strip_prefix(&root).unwrap_or(file).display()
                ));
            }
        }
    }
    assert!(
        checked >= 6,
        "only {checked} files with a # Layout section found"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_layout_check_catches_an_unnamed_module() {
    let source = "//! The crate.\n//!\n//! # Layout\n//! - [`a`]: the first.\n//! - `b/`: the second.\n\
                  //!\n//! # Other\n//! `c` is named here only.\n\nmod a;\npub mod b;\npub(crate) mod c;\n\
                  #[cfg(test)]\nmod tests;\n";
    let section = layout(source).expect("a layout section");
    let unnamed: Vec<String> = declared(source)
        .into_iter()
        .filter(|n| !names(&section, n))
        .collect();
    assert_eq!(
        unnamed,
        ["c"],
        "a name outside the section does not count; tests are left out"
    );
}

#[test]
fn every_command_a_room_takes_is_documented() {
    let source =
        std::fs::read_to_string(root().join("crates/server/src/room/mod.rs")).expect("room/mod.rs");
    let start = source
        .find("pub(crate) enum Command {")
        .expect("the Command enum");
    let body = &source[start..];
    let body = &body[..body.find("\n}\n").expect("its end")];
    let mut undocumented = Vec::new();
    let mut previous = "";
    for line in body.lines().skip(1) {
        let trimmed = line.trim();
        // A variant starts at the enum's own indentation.
        let is_variant = line.starts_with("    ")
            && !line.starts_with("     ")
            && trimmed.chars().next().is_some_and(char::is_uppercase);
        if is_variant && !previous.starts_with("///") && !previous.starts_with("#[") {
            undocumented.push(trimmed.to_owned());
        }
        if !trimmed.is_empty() {
            previous = trimmed;
        }
    }
    assert!(
        undocumented.is_empty(),
        "Command variants without a doc comment: {undocumented:?}"
    );
}
