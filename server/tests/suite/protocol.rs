//! The real server, driven by the real Python `mcp` client (2.3.0) over
//! stdio in both protocol eras: the 2026-07-28 `server/discover` exchange
//! and the 2025 `initialize` handshake. The checks live in
//! `mcp_client.py`; this test builds the index it needs and runs it.

use crate::common;

use std::path::Path;
use std::process::Command;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::query::Request;
use archilyzer_core::source::SourceHandle;
use archilyzer_index::search;
use common::fake_editor::{FakeEditor, JobScript};
use common::fake_umtool::FakeUmtool;

const TOKEN: &str = "protocol-test-token-7f3a";

/// What both protocol tests start: the index, the fake editor and umtool,
/// and the command line's share-link output.
struct Fixture {
    python: std::path::PathBuf,
    root: std::path::PathBuf,
    archive_dir: std::path::PathBuf,
    index: tempfile::TempDir,
    editor: FakeEditor,
    umtool: FakeUmtool,
    made: std::path::PathBuf,
    _scratch: tempfile::TempDir,
}

fn fixture() -> Fixture {
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
    Fixture {
        python,
        root,
        archive_dir,
        index,
        editor,
        umtool,
        made,
        _scratch: scratch,
    }
}

#[test]
fn a_real_mcp_client_gets_the_same_tools_and_answers_in_both_eras() {
    let f = fixture();
    let out = Command::new(&f.python)
        .arg(f.root.join("server/tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .arg(&f.archive_dir)
        .arg(f.index.path())
        .arg(f.editor.url())
        .arg(TOKEN)
        .arg(&f.made)
        .arg(f.umtool.url())
        .output()
        .unwrap();
    let stdout = passed(&out);
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

/// The client's report, after asserting that every check passed.
fn passed(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

const BEARER: &str = "http-test-bearer-91c2d";

/// A loopback listener that counts the connections it accepts and answers
/// `COUNT` with that number: the proof that the server fetched nothing.
fn trap() -> String {
    use std::io::{BufRead, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut seen = 0;
        for conn in listener.incoming().flatten() {
            seen += 1;
            let mut line = String::new();
            let mut reader = std::io::BufReader::new(conn.try_clone().unwrap());
            if reader.read_line(&mut line).is_ok() && line.trim() == "COUNT" {
                let _ = writeln!(&conn, "{seen}");
            }
        }
    });
    url
}

/// A free loopback port (bound, then released for the server).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn over_http_a_real_client_gets_the_same_answers_and_hostile_requests_are_refused() {
    let f = fixture();
    let port = free_port();
    let beside = f.archive_dir.parent().unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .arg("--local")
        .arg(&f.archive_dir)
        .arg("--index")
        .arg(f.index.path())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(["hub", "beta", "cited", "alpha"].iter().flat_map(|d| {
            [
                "--allow-sources".to_string(),
                format!("local:{}", beside.join(d).display()),
            ]
        }))
        .env("ARCHILYZER_HTTP_TOKEN", BEARER)
        .env("ARCHILYZER_EDITOR_URL", f.editor.url())
        .env("WORKER_TOKEN", TOKEN)
        .env("UMTOOL_URL", f.umtool.url())
        .env("ARCHILYZER_LOG", "debug")
        .env("yt_dlp_path", "/no/such/yt-dlp")
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed().as_secs() < 20,
            "the server never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = Command::new(&f.python)
        .arg(f.root.join("server/tests/mcp_client.py"))
        .args(["--http", &format!("http://127.0.0.1:{port}/mcp"), BEARER])
        .arg(&f.archive_dir)
        .arg(TOKEN)
        .arg(&f.made)
        .arg(trap())
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let stdout = passed(&out);
    for check in [
        "http: the two eras differ",
        "http: a spoofed Host is 403 (DNS rebinding)",
        "http: a spoofed Host is 403 on /health too",
        "http: a spoofed Host is 403 on /metrics too",
        "http: /health says ready without a token, and nothing else",
        "http: /metrics gives calls by tool, refusals by kind, latency, pages read, bytes downloaded, index hits",
        "http: the server made no request to an address a caller named",
    ] {
        assert!(
            stdout.contains(&format!("\"check\": \"{check}\", \"ok\": true")),
            "{check}"
        );
    }
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        logged.contains(&format!(
            "archilyzer-mcp: listening at http://127.0.0.1:{port}/mcp (a bearer token is required)"
        )),
        "the server says where it listens: {logged}"
    );
    assert!(logged.contains("service answered"), "debug logs were on");
    assert!(!logged.contains(BEARER), "the bearer token reached the log");
    assert!(!logged.contains(TOKEN), "the worker token reached the log");
}

#[test]
fn off_loopback_without_a_token_the_server_refuses_to_start() {
    let out = Command::new(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .args(["--http", "0.0.0.0:0"])
        .env_remove("ARCHILYZER_HTTP_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to serve 0.0.0.0:0 without a token")
            && stderr.contains("ARCHILYZER_HTTP_TOKEN"),
        "{stderr}"
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
    let shape = search::Shape {
        limit: None,
        json: true,
        share: Some(&link),
        order: archilyzer_core::query::order::Order::Archive,
        fold: false,
    };
    search::run(&archive, Some(index), &request, &shape, &mut out).unwrap();
    let path = into.join("made.json");
    std::fs::write(&path, out).unwrap();
    path
}
