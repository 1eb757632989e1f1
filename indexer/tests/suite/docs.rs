//! docs/commands.md keeps up with the command line: every option each
//! command's `--help` lists is named in that command's section, and every
//! field `search --json` prints is named in its `--json` row. (The
//! commands the docs show are run by `scripts/docs_commands.py` in CI.)

use crate::doc_sections;

use std::path::Path;
use std::process::Command;

use doc_sections::{doc, names, options, section};

#[test]
fn every_option_of_every_command_is_in_its_section_of_the_commands_doc() {
    let doc = doc();
    let index = env!("CARGO_BIN_EXE_archilyzer-index");
    let commands: [(&str, &[&str], &str); 8] = [
        (index, &["build"], "build"),
        (index, &["passages"], "passages"),
        (index, &["search"], "search"),
        (index, &["trend"], "trend"),
        (index, &["terms"], "terms"),
        (index, &["check"], "check"),
        (index, &["stats"], "stats"),
        (index, &["import"], "import"),
    ];
    // archilyzer-dev's commands: indexer/dev/tests/cli.rs.
    let mut missing = Vec::new();
    for (bin, args, name) in commands {
        // `trend` and `passages` take search's filters, described there.
        let text = match name {
            "trend" | "passages" => format!("{}{}", section(&doc, name), section(&doc, "search")),
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

#[test]
fn every_workspace_dependency_is_in_the_dependencies_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let listed = std::fs::read_to_string(root.join("docs/dependencies.md")).unwrap();
    let named: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.split(" |").next())
        .flat_map(|cell| cell.split(", "))
        .map(|n| n.split(' ').next().unwrap_or(n))
        .collect();
    let missing: Vec<&str> = manifest
        .split("[workspace.dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with('#') && !named.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/dependencies.md: {missing:?}"
    );
}

#[test]
fn internals_doc_names_every_module_of_the_index_the_engine_and_passages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/internals.md")).unwrap();
    let words: std::collections::HashSet<&str> = doc
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    let mut missing = Vec::new();
    for dir in [
        "shared/src/index",
        "shared/src/query",
        "shared/src/passages",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            let path = entry.path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.extension().is_some_and(|e| e == "rs")
                && stem != "mod"
                && !words.contains(stem.as_str())
            {
                missing.push(format!("{dir}/{stem}.rs"));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "docs/internals.md does not name {missing:?}"
    );
}
