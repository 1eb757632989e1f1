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
    /// The tiny model the passages were embedded with (the server is
    /// given it as ARCHILYZER_MODEL).
    model: std::path::PathBuf,
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
    let model = scratch.path().join("tiny-model");
    archilyzer_embed::tiny::write(&model, 5).unwrap();
    let embedder = archilyzer_embed::Embedder::load(&model, "tiny").unwrap();
    archilyzer_core::passages::embed(&archive, index.path(), &embedder, &|_| {}).unwrap();
    Fixture {
        python,
        root,
        archive_dir,
        index,
        editor,
        umtool,
        made,
        model,
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
        .env("ARCHILYZER_MODEL", &f.model)
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
        .env("ARCHILYZER_MODEL", &f.model)
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

/// Writes `frames` (one per line) to a stdio server and reads one answer
/// line per frame (none for a notification).
fn raw_stdio(frames: &[&[u8]]) -> Vec<serde_json::Value> {
    use std::io::{BufRead, Write};
    let mut server = Command::new(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .args(["--local", &common::testdata("alpha").display().to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut answers = Vec::new();
    for frame in frames {
        stdin.write_all(frame).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if frame.starts_with(br#"{"jsonrpc":"2.0","method":"notifications/"#) {
            continue;
        }
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str(&line).unwrap_or(serde_json::Value::Null));
    }
    drop(stdin);
    let _ = server.wait();
    answers
}

#[test]
fn over_stdio_a_malformed_frame_gets_the_specifications_error_and_the_server_goes_on() {
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let answers = raw_stdio(&[
        init,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        br#"{"jsonrpc":"2.0","id":1,"meth"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"\ud800"}}"#,
        deep.as_bytes(),
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_channels","arguments":[1]}}"#,
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_channels","arguments":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
    ]);
    assert_eq!(answers[0]["id"], 0, "{}", answers[0]);
    let codes: Vec<(serde_json::Value, i64)> = answers[1..6]
        .iter()
        .map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap_or(0)))
        .collect();
    assert_eq!(
        codes,
        [
            (serde_json::Value::Null, -32700),
            (serde_json::Value::Null, -32700),
            (serde_json::Value::Null, -32700),
            (4.into(), -32602),
            (5.into(), -32602),
        ],
        "{answers:?}"
    );
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the frame is not JSON"),
        "{}",
        answers[1]
    );
    assert_eq!(
        answers[6]["id"], 6,
        "the server still answers: {}",
        answers[6]
    );
}

/// One success and one refusal of every tool, for `refusals.mjs`; over
/// HTTP the `transcript` tool is refused by design, so it has no success
/// there.
fn ts_cases(f: &Fixture, over_http: bool) -> serde_json::Value {
    use serde_json::json;
    let archive = Archive::open(
        &SourceHandle::local(&f.archive_dir),
        &OpenOptions::default(),
    )
    .unwrap();
    let link = search::share_link(
        &archive,
        None,
        &Request {
            query: "really".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let huge = "x".repeat(50_000);
    let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let clip = json!({"channel": "daily-dispatch", "video": "a", "start": 1, "end": 5, "wait_seconds": 0, "reason": "the TypeScript SDK test"});
    let mut cases = vec![
        (
            "list_channels",
            json!({}),
            json!({"refres": true}),
            "has no argument `refres` (did you mean `refresh`?)",
        ),
        (
            "list_tags",
            json!({}),
            json!({"source": huge}),
            "`source` is 50000 characters long; the bound is 1000",
        ),
        (
            "list_reports",
            json!({}),
            json!({"bogus": 1}),
            "list_reports has no argument `bogus`",
        ),
        (
            "get_report",
            json!({"report": "fact-check-1"}),
            json!({"report": "fact-check-9"}),
            "fact-check-9",
        ),
        (
            "search_transcripts",
            json!({"query": "really", "limit": 2}),
            json!({"query": "really", "date_to": "2015-02-31"}),
            "February 2015 has 28 days",
        ),
        (
            "enumerate_matches",
            json!({"query": "really"}),
            json!({"query": "really", "exclude": words}),
            "`exclude` holds 10000 items; the bound is 32",
        ),
        (
            "mention_trend",
            json!({"query": "really"}),
            json!({"queries": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}),
            "`queries` holds 9 items; the bound is 8",
        ),
        (
            "similar_terms",
            json!({"word": "really"}),
            json!({"word": "really", "max_edits": 3}),
            "`max_edits` must be a whole number from 1 to 2",
        ),
        (
            "significant_terms",
            json!({"query": "really", "min_videos": 1}),
            json!({"query": "really", "scopes": ["captions"]}),
            "did you mean \"transcripts\"?",
        ),
        (
            "find_passages",
            json!({"query": "k cups", "max_chars": 2000}),
            json!({"query": "k cups", "by": "sideways"}),
            "\"sideways\"",
        ),
        (
            "related_videos",
            json!({"video_id": "RTOHlVpUe9M"}),
            json!({"video_id": "RTOHlVpUe9M", "channel": "daily-dispach"}),
            "did you mean \"daily-dispatch\"?",
        ),
        (
            "get_transcript",
            json!({"video_id": "RTOHlVpUe9M", "max_chars": 2000}),
            json!({"video_id": "rtohlvpue9m"}),
            "Did you mean \"RTOHlVpUe9M\"?",
        ),
        (
            "get_transcripts",
            json!({"video_ids": ["RTOHlVpUe9M"], "max_chars": 4000}),
            json!({"video_ids": ["RTOHlVpUe9N"]}),
            "did you mean \"RTOHlVpUe9M\"?",
        ),
        (
            "get_post",
            json!({"post_id": "daily-dispatch-post-000"}),
            json!({"post_id": "daily-dispatch-post-999"}),
            "no post",
        ),
        (
            "get_thread",
            json!({"post_id": "daily-dispatch-post-000"}),
            json!({"post_id": "daily-dispatch-post-999"}),
            "no post",
        ),
        (
            "get_video_metadata",
            json!({"video_id": "RTOHlVpUe9M"}),
            json!({"video_id": huge, "max_chars": 2000}),
            "`video_id` is 50000 characters long; the bound is 1000",
        ),
        (
            "fetch_clip",
            clip.clone(),
            json!({"channel": "never-archived", "video": "a", "start": 1, "end": 5, "wait_seconds": 0, "reason": "the TypeScript SDK test"}),
            "The editor refused (HTTP 404)",
        ),
        (
            "get_job",
            json!({"job": "job-1"}),
            json!({"job": "no-such-job"}),
            "no-such-job",
        ),
        (
            "enqueue",
            json!({"channel": "daily-dispatch", "kind": "sync"}),
            json!({"channel": "daily-dispatch", "kind": "sink"}),
            "`kind` must be one of",
        ),
        (
            "channel_coverage",
            json!({"channel": "daily-dispatch"}),
            json!({"channel": "daily-dispatch", "gap_days": 0}),
            "`gap_days` must be a whole number from 1",
        ),
        (
            "notes",
            json!({}),
            json!({"action": "shout"}),
            "`action` must be one of",
        ),
        (
            "open_link",
            json!({"link": link, "dry_run": true}),
            json!({"link": "https://example.org/?qt=%%%"}),
            "link",
        ),
        (
            "list_sources",
            json!({}),
            json!({"sources": "x"}),
            "list_sources has no argument `sources`",
        ),
        (
            "resolve_source",
            json!({"source": format!("local:{}", f.archive_dir.display())}),
            json!({"source": huge}),
            "the bound is 1000",
        ),
        (
            "transcript",
            json!({"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "asr": false}),
            json!({"url": huge}),
            "the bound is 2000",
        ),
        (
            "sweep_plan",
            json!({"request": "what was said about really?"}),
            json!({"request": huge.clone()}),
            "the bound is 10000",
        ),
        (
            "ask_plan",
            json!({"request": "what was said about really?"}),
            json!({}),
            "ask_plan needs `request`",
        ),
    ];
    if over_http {
        cases.retain(|c| c.0 != "transcript");
    }
    let mut out: Vec<serde_json::Value> = cases
        .into_iter()
        .map(|(tool, ok, refuse, says)| json!({"tool": tool, "ok": ok, "refuse": refuse, "says": says}))
        .collect();
    if over_http {
        out.push(json!({"tool": "transcript", "ok": null, "refuse": {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}, "says": "not offered over HTTP"}));
    }
    serde_json::Value::Array(out)
}

/// Runs `refusals.mjs` with `cases` and the transport arguments, after
/// asserting the SDK is installed (the README's test command installs it).
fn ts_sdk(cases: &serde_json::Value, transport: &[String], env: &[(&str, String)]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the TypeScript SDK is not installed: run `npm ci --prefix server/tests/ts` (the README's test command does)"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), cases.to_string()).unwrap();
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("refusals.mjs"))
        .arg(file.path())
        .args(transport);
    for (k, v) in env {
        cmd.env(k, v);
    }
    passed(&cmd.output().unwrap())
}

/// The fake yt-dlp of tests/fakes in `dir`, with a video that has captions.
fn fake_yt_dlp(dir: &Path) -> std::path::PathBuf {
    let yt_dlp = dir.join("yt-dlp");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/yt-dlp"),
        &yt_dlp,
    )
    .unwrap();
    let scenario = serde_json::json!({
        "info": {"id": "dQw4w9WgXcQ", "title": "A talk", "channel": "Some Channel", "duration": 60.0,
                 "upload_date": "20261101", "subtitles": {"en": []}, "language": "en"},
        "subs": {"t.en.vtt": "WEBVTT\n\n00:00:09.000 --> 00:00:10.000\nwords of the talk\n"}
    });
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
    yt_dlp
}

#[test]
fn the_typescript_sdk_client_reads_every_tools_success_and_refusal_over_stdio_and_http() {
    let f = fixture();
    for _ in 0..8 {
        f.editor.next_job(JobScript::Done { polls: 1 });
    }
    let fakes = tempfile::tempdir().unwrap();
    let env = vec![
        ("ARCHILYZER_EDITOR_URL", f.editor.url()),
        ("WORKER_TOKEN", TOKEN.to_string()),
        ("UMTOOL_URL", f.umtool.url()),
        ("ARCHILYZER_MODEL", f.model.display().to_string()),
        (
            "yt_dlp_path",
            fake_yt_dlp(fakes.path()).display().to_string(),
        ),
    ];
    let stdio = [
        "stdio".to_string(),
        env!("CARGO_BIN_EXE_archilyzer-mcp").to_string(),
        "--local".into(),
        f.archive_dir.display().to_string(),
        "--index".into(),
        f.index.path().display().to_string(),
    ];
    let out = ts_sdk(&ts_cases(&f, false), &stdio, &env);
    assert!(out.contains("\"figures\":\"stdio\""), "{out}");

    let port = free_port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .arg("--local")
        .arg(&f.archive_dir)
        .arg("--index")
        .arg(f.index.path())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("ARCHILYZER_HTTP_TOKEN", BEARER)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(std::process::Stdio::null())
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
    let http = [
        "http".to_string(),
        format!("http://127.0.0.1:{port}/mcp"),
        BEARER.to_string(),
    ];
    let out = ts_sdk(&ts_cases(&f, true), &http, &[]);
    let _ = server.kill();
    let _ = server.wait();
    assert!(out.contains("\"figures\":\"http\""), "{out}");
}
