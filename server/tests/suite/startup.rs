//! The server started on an archive that is not there says so on stderr
//! at once, naming how to choose one, and its log lines carry no colour
//! codes (an MCP client keeps its server's stderr in a log file).

use crate::common;

use std::process::{Command, Stdio};

#[test]
fn a_server_started_on_a_missing_archive_says_so_at_start_up() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(tmp.path()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .current_dir(&cwd)
        .env_remove("TRANSCRIPT_LOCAL_DIR")
        .env_remove("TRANSCRIPT_SITE_URL")
        .env_remove("TRANSCRIPT_HUB_URL")
        .env_remove("NO_COLOR")
        .env("ARCHILYZER_LOG", "debug")
        // No client: stdin ends at once, after the start-up checks.
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "archilyzer-mcp: no archive at {}: it does not exist. Choose one with --local DIR, --remote URL or --hub URL (or TRANSCRIPT_LOCAL_DIR, TRANSCRIPT_SITE_URL, TRANSCRIPT_HUB_URL); without any, the archive is ./export/public",
        cwd.join("export/public").display()
    );
    assert!(stderr.lines().any(|l| l == expected), "{stderr}");
    assert!(
        stderr.contains("default source: local:"),
        "debug logs are on: {stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "an escape code reached a pipe: {stderr:?}"
    );
}

#[test]
fn a_tool_call_on_a_missing_archive_says_what_is_missing_and_how_to_choose_one() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = std::fs::canonicalize(tmp.path())
        .unwrap()
        .join("no-archive-here");
    let ctx = common::context(archilyzer_core::source::SourceHandle::local(&missing));
    let out = common::run(&ctx, "list_channels", serde_json::json!({}));
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with(&format!(
            "Error: no archive at {}: it does not exist. Choose one with --local DIR",
            missing.display()
        )),
        "{}",
        out.text
    );
}
