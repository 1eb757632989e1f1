//! The real server, driven by the real Python `mcp` client (2.3.0) over
//! stdio in both protocol eras: the 2026-07-28 `server/discover` exchange
//! and the 2025 `initialize` handshake. The checks live in
//! `mcp_client.py`; this test builds the index it needs and runs it.

mod common;

use std::path::Path;
use std::process::Command;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::query::Request;
use archilyzer_core::source::SourceHandle;
use archilyzer_index::search;
use common::fake_editor::{FakeEditor, JobScript};
use common::fake_umtool::FakeUmtool;

const TOKEN: &str = "protocol-test-token-7f3a";

#[test]
fn a_real_mcp_client_gets_the_same_tools_and_answers_in_both_eras() {
    let python = common::python();
    let has_client = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_client,
        "the Python MCP client (mcp 2.3.0) is not importable by {}: {}",
        python.display(),
        common::PYTHON_SETUP
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let archive_dir = std::fs::canonicalize(root.join("testdata/archive/alpha")).unwrap();
    let index = tempfile::tempdir().unwrap();
    let archive =
        Archive::open(&SourceHandle::local(&archive_dir), &OpenOptions::default()).unwrap();
    archilyzer_core::index::build(&archive, index.path(), &|_| {}).unwrap();
    let editor = FakeEditor::start(Some(TOKEN));
    editor.add_channel("daily-dispatch", "youtube");
    editor.add_video("daily-dispatch", "a", "first", Some("20240101"));
    editor.add_video("daily-dispatch", "b", "second", Some("20240301"));
    for _ in 0..2 {
        // Done at the first poll: the server never sleeps between polls.
        editor.next_job(JobScript::Done { polls: 1 });
    }
    let umtool = FakeUmtool::start();
    umtool.add_target("article/k-cups", "The K-Cup affair", "articles/k-cups.md");
    umtool.add_note(
        "article/k-cups",
        serde_json::json!({"id": "n1", "anchor": "p3", "anchorText": "the second paragraph",
            "text": "Cite the moment here", "author": "op", "createdAt": "2026-11-28", "status": "open"}),
    );
    let scratch = tempfile::tempdir().unwrap();
    let made = made_by_the_command_line(&archive_dir, index.path(), scratch.path());
    let out = Command::new(&python)
        .arg(root.join("server/tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .arg(&archive_dir)
        .arg(index.path())
        .arg(editor.url())
        .arg(TOKEN)
        .arg(&made)
        .arg(umtool.url())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"check\": \"the two eras differ\", \"ok\": true"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("service answered"),
        "debug logs were on: {stderr}"
    );
    assert!(
        !stderr.contains(TOKEN),
        "the token reached the log: {stderr}"
    );
}

/// What `archilyzer-index search --json --share-link --exclude torlyan
/// --state available --state deleted really` prints for `archive_dir`,
/// made by the same library code, into a file the client reads.
fn made_by_the_command_line(archive_dir: &Path, index: &Path, into: &Path) -> std::path::PathBuf {
    let archive =
        Archive::open(&SourceHandle::local(archive_dir), &OpenOptions::default()).unwrap();
    let mut request = Request {
        query: "really".into(),
        use_aliases: true,
        exclude: vec!["torlyan".into()],
        ..Request::default()
    };
    request.filters.states = vec!["available".into(), "deleted".into()];
    let link = search::share_link(&archive, None, &request).unwrap();
    let mut out = Vec::new();
    search::run(
        &archive,
        Some(index),
        &request,
        None,
        true,
        Some(&link),
        archilyzer_core::query::order::Order::Archive,
        &mut out,
    )
    .unwrap();
    let path = into.join("made.json");
    std::fs::write(&path, out).unwrap();
    path
}
