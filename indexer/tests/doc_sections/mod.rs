//! Reading docs/commands.md beside a command's `--help`: its sections,
//! and the options a help lists. Shared by the docs tests of
//! archilyzer-index and of archilyzer-dev.

use std::path::Path;
use std::process::Command;

/// docs/commands.md, found above the crate being tested.
pub fn doc() -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = manifest
        .ancestors()
        .map(|dir| dir.join("docs/commands.md"))
        .find(|p| p.is_file())
        .expect("docs/commands.md above the crate");
    std::fs::read_to_string(path).unwrap()
}

/// The text of the section whose heading starts with "## `NAME ".
pub fn section<'a>(doc: &'a str, name: &str) -> &'a str {
    let heading = format!("\n## `{name} ");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/commands.md has no section for `{name}`"));
    let rest = &doc[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The long options `--help` of `args` lists, but the ones every command
/// shares (described once, under "Choosing an archive").
pub fn options(bin: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new(bin).args(args).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let shared = ["--local", "--remote", "--hub", "--help", "--version"];
    let mut found: Vec<String> = help
        .lines()
        // Option lines start with `-`; descriptions may name options too.
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(',').to_string())
        .filter(|w| !shared.contains(&w.as_str()))
        .collect();
    found.dedup();
    found
}

/// Whether `text` names `option` as a whole word (`--index` is not
/// named by `--index-dir`).
pub fn names(text: &str, option: &str) -> bool {
    text.match_indices(option).any(|(i, _)| {
        let next = text[i + option.len()..].chars().next();
        !next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}
