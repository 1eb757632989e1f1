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
    let commands: [(&str, &[&str], &str); 7] = [
        (index, &["build"], "build"),
        (index, &["search"], "search"),
        (index, &["trend"], "trend"),
        (index, &["terms"], "terms"),
        (index, &["check"], "check"),
        (index, &["stats"], "stats"),
        (index, &["import"], "import"),
    ];
    // archilyzer-dev's commands: indexer/dev/tests/docs.rs.
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
