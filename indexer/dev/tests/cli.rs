//! The developers' tools are all in `archilyzer-dev` (the command line
//! people install has none of them: indexer/tests/suite/first_run.rs).

use std::process::Command;

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
