//! What the server's integration tests share: the test archive, a tool
//! context with nothing configured but the archive, and one tool call.

#![allow(dead_code)]

pub mod fake_editor;
pub mod fake_umtool;

use std::path::PathBuf;

use archilyzer_core::source::SourceHandle;
use archilyzer_mcp::editor::EditorSetup;
use archilyzer_mcp::sources::Sources;
use archilyzer_mcp::tools::{call, Context, Output};
use serde_json::Value;

/// `testdata/archive/<name>`, canonical.
pub fn testdata(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/archive")
        .join(name);
    std::fs::canonicalize(dir).expect("the committed test archive")
}

/// A context reading `default`, with no editor, no umtool and no binaries
/// (override a field with `Context { editor, ..context(h) }`).
pub fn context(default: SourceHandle) -> Context {
    Context {
        sources: Sources::new(default, None),
        editor: EditorSetup::Missing,
        umtool: Err("no umtool".into()),
        binaries: Default::default(),
        passages: archilyzer_mcp::passages::PassageSetup::new(None),
        kept: Default::default(),
        metrics: Default::default(),
    }
}

/// The same, reading `testdata/archive/alpha`.
pub fn alpha_context() -> Context {
    context(SourceHandle::local(&testdata("alpha")))
}

/// Calls `tool` with `args` (a JSON object), ignoring progress.
pub fn run(ctx: &Context, tool: &str, args: Value) -> Output {
    call(
        ctx,
        tool,
        args.as_object().expect("arguments are an object"),
        &mut |_| {},
    )
}

/// The project's test environment for Python (`.venv` at the workspace
/// root, which the README's test command creates), if it exists.
pub fn venv_bin() -> Option<PathBuf> {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin");
    bin.join("python").exists().then_some(bin)
}

/// The Python that runs the protocol tests: the project's `.venv` when the
/// README's test command made it, else `python3` from `PATH`.
pub fn python() -> PathBuf {
    venv_bin()
        .map(|b| b.join("python"))
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// What to do when a Python package the tests drive is missing.
pub const PYTHON_SETUP: &str =
    "run the README's test command, which makes .venv with server/tests/requirements.txt: \
python3 -m venv .venv && .venv/bin/pip install -r server/tests/requirements.txt";

/// A copy of the folder `from` at `to` (created), files and subfolders.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// The slugs of the videos a search answer lists, in order.
pub fn slugs(out: &Output) -> Vec<String> {
    out.structured["videos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["slug"].as_str().unwrap().to_string())
        .collect()
}
