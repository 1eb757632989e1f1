//! docs/commands.md keeps up with the command line: every option each
//! command's `--help` lists is named in that command's section, and every
//! field `search --json` prints is named in its `--json` row. (The
//! commands the docs show are run by `scripts/docs_commands.py` in CI.)

use std::path::Path;
use std::process::Command;

fn doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/commands.md"))
        .unwrap()
}

/// The text of the section whose heading starts with "## `NAME ".
fn section<'a>(doc: &'a str, name: &str) -> &'a str {
    let heading = format!("\n## `{name} ");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/commands.md has no section for `{name}`"));
    let rest = &doc[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The long options `--help` of `args` lists, but the ones every command
/// shares (described once, under "Choosing an archive").
fn options(bin: &str, args: &[&str]) -> Vec<String> {
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
fn names(text: &str, option: &str) -> bool {
    text.match_indices(option).any(|(i, _)| {
        let next = text[i + option.len()..].chars().next();
        !next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn every_option_of_every_command_is_in_its_section_of_the_commands_doc() {
    let doc = doc();
    let index = env!("CARGO_BIN_EXE_archilyzer-index");
    let dev = env!("CARGO_BIN_EXE_archilyzer-dev");
    let commands: [(&str, &[&str], &str); 9] = [
        (index, &["build"], "build"),
        (index, &["search"], "search"),
        (index, &["trend"], "trend"),
        (index, &["terms"], "terms"),
        (index, &["check"], "check"),
        (index, &["stats"], "stats"),
        (index, &["import"], "import"),
        (dev, &["gen"], "archilyzer-dev gen"),
        (dev, &["bench"], "archilyzer-dev bench"),
    ];
    let mut missing = Vec::new();
    for (bin, args, name) in commands {
        // `trend` takes search's options and filters, described there.
        let text = match name {
            "trend" => format!("{}{}", section(&doc, name), section(&doc, "search")),
            _ => section(&doc, name).to_string(),
        };
        for option in options(bin, args) {
            if !names(&text, &option) {
                missing.push(format!("{name} {option}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/commands.md: {missing:?}");
}

#[test]
fn every_field_search_json_prints_is_named_in_the_commands_doc() {
    let alpha = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha");
    let out = Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
        .args(["search", "--no-index", "--json", "--local"])
        .arg(&alpha)
        .arg("k cups")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc = doc();
    let row = section(&doc, "search")
        .lines()
        .find(|l| l.starts_with("| `--json`"))
        .expect("a --json row");
    let video = &v["videos"][0];
    let fields = v
        .as_object()
        .unwrap()
        .keys()
        .chain(video.as_object().unwrap().keys())
        .chain(video["hits"][0].as_object().unwrap().keys());
    let missing: Vec<&String> = fields
        .filter(|k| !row.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "search --json fields not in its row: {missing:?}"
    );
}
