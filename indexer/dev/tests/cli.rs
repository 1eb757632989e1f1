//! The developers' tools, through the real binary: all are in
//! `archilyzer-dev` (the command line people install has none of them:
//! indexer/tests/suite/first_run.rs), and docs/commands.md keeps up with
//! them (every option `gen` and `bench` list in their `--help` is named in
//! their sections). One test binary: each more links the workspace again.

#[path = "../../tests/doc_sections/mod.rs"]
mod doc_sections;

use std::process::Command;

use doc_sections::{doc, names, options, section};

#[test]
fn every_developer_tool_is_a_subcommand_of_archilyzer_dev() {
    for sub in ["gen", "bench", "bench-one", "serve"] {
        let o = Command::new(env!("CARGO_BIN_EXE_archilyzer-dev"))
            .args([sub, "--help"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "archilyzer-dev {sub}: {stderr}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_archilyzer-dev"))
        .args(["bench", "--help"])
        .output()
        .unwrap();
    // Help is wrapped to the terminal: compare its words, not its lines.
    let words = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains("[env: TRANSCRIPT_LOCAL_DIR=]"), "{words}");
}

#[test]
fn every_option_of_every_developer_tool_is_in_its_section_of_the_commands_doc() {
    let doc = doc();
    let dev = env!("CARGO_BIN_EXE_archilyzer-dev");
    let mut missing = Vec::new();
    for (args, name) in [
        (["gen"], "archilyzer-dev gen"),
        (["bench"], "archilyzer-dev bench"),
    ] {
        let text = section(&doc, name);
        for option in options(dev, &args) {
            if !names(text, &option) {
                missing.push(format!("{name} {option}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/commands.md: {missing:?}");
}
