//! `server.json`, the MCP Registry's description of this server, checked
//! by `registry_check.py` against the registry's schema (a copy kept in
//! `server/tests/registry/`) and against the code.

use crate::common;

use std::process::Command;

#[test]
fn server_json_validates_against_the_registry_schema_and_matches_the_code() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(common::python())
        .arg(root.join("server/tests/registry_check.py"))
        .arg(&root)
        .arg(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .output()
        .expect("python runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("ok   server.json validates against the registry's schema"),
        "{text}"
    );
}
