//! docs/commands.md keeps up with archilyzer-dev: every option `gen` and
//! `bench` list in their `--help` is named in their sections.

#[path = "../../tests/doc_sections/mod.rs"]
mod doc_sections;

use doc_sections::{doc, names, options, section};

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
