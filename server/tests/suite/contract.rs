//! The answer contract at its edges: every tool's answer within its
//! budget whatever the corpus path, paging that always advances, and the
//! batch read's refusals. `contract.py` checks the same through the real
//! Python client in both eras, on the test archive here and on TWIML in
//! CI (`.ci/run`).

use crate::common;

use std::path::Path;
use std::process::Command;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::source::SourceHandle;
use common::fake_editor::{FakeEditor, JobScript};
use common::fake_umtool::FakeUmtool;
use common::{alpha_context, context, run, testdata};
use serde_json::{json, Value};

/// What a client counts: the text and the compact JSON.
fn size(out: &archilyzer_mcp::tools::Output) -> usize {
    out.text.chars().count() + archilyzer_mcp::budget::structured_len(&out.structured)
}

#[test]
fn every_answer_fits_its_budget_whatever_the_corpus_path() {
    // A clone may sit anywhere; the trailer names the path, so a long one
    // must not push an answer over.
    let deep = tempfile::tempdir().unwrap();
    let long = deep
        .path()
        .join("a-very-long-folder-name-".repeat(8))
        .join("alpha");
    common::copy_dir(&testdata("alpha"), &long);
    let ctx = context(SourceHandle::local(&std::fs::canonicalize(&long).unwrap()));
    for (tool, args) in [
        ("enumerate_matches", json!({"query": "the", "fuzzy": 2})),
        (
            "search_transcripts",
            json!({"query": "the", "limit": 200, "fuzzy": 2}),
        ),
        ("get_transcripts", json!({"video_ids": ["x1", "x2", "x3"]})),
        ("similar_terms", json!({"word": "really"})),
        (
            "significant_terms",
            json!({"query": "the", "limit": 1000, "min_videos": 1}),
        ),
        (
            "related_videos",
            json!({"video_id": "RTOHlVpUe9M", "terms": 100, "limit": 200}),
        ),
        (
            "mention_trend",
            json!({"queries": ["the", "really"], "by": "month"}),
        ),
    ] {
        for budget in [2000, 2001, 10_000] {
            let mut args = args.clone();
            args["max_chars"] = json!(budget);
            let out = run(&ctx, tool, args.clone());
            assert!(
                size(&out) <= budget,
                "{tool} {args}: {} characters\n{}",
                size(&out),
                out.text
            );
        }
    }
}

#[test]
fn a_search_page_lists_a_video_while_more_remain_so_offset_paging_advances() {
    let ctx = alpha_context();
    let (mut offset, mut seen) = (0, Vec::new());
    loop {
        let page = run(
            &ctx,
            "search_transcripts",
            json!({"query": "really", "offset": offset, "max_chars": 2000}),
        );
        let s = &page.structured;
        let listed: Vec<String> = s["videos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| format!("{}/{}", v["channel"], v["slug"]))
            .collect();
        let more = s["has_more"].as_bool().unwrap();
        assert!(
            !listed.is_empty() || !more,
            "a stalled page:\n{}",
            page.text
        );
        offset += listed.len();
        seen.extend(listed);
        if !more {
            let total = s["total"].as_u64().unwrap() as usize;
            let once: std::collections::BTreeSet<_> = seen.iter().collect();
            assert_eq!((seen.len(), once.len()), (total, total));
            return;
        }
    }
}

#[test]
fn the_exact_count_leads_a_page_and_the_incomplete_warning_follows_it() {
    let out = run(
        &alpha_context(),
        "search_transcripts",
        json!({"query": "k cups", "limit": 2}),
    );
    let lines: Vec<&str> = out.text.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        lines[0].contains("for \"k cups\" exactly as typed;"),
        "{}",
        out.text
    );
    assert!(lines[1].starts_with("⚠ INCOMPLETE PAGE — showing videos 1–2 of the "));
}

/// The ids of a few videos of the test archive.
fn some_ids(n: usize) -> Vec<String> {
    let out = run(
        &alpha_context(),
        "search_transcripts",
        json!({"query": "really", "limit": n, "max_chars": 150_000}),
    );
    common::slugs(&out)
}

#[test]
fn a_batch_read_refuses_no_ids_an_id_twice_and_an_unknown_kind_or_scope() {
    let ctx = alpha_context();
    let id = some_ids(1).remove(0);
    for (args, want) in [
        (json!({"video_ids": []}), "video_ids is empty: give the ids".to_string()),
        (
            json!({"video_ids": [id, id]}),
            format!("video_ids names {id:?} twice: give each id once"),
        ),
        (
            json!({"video_ids": [id], "content_types": ["vidoe"]}),
            "content_types \"vidoe\" is not one of video, post; did you mean \"video\"?".into(),
        ),
        (
            json!({"video_ids": [id], "query": "really", "scopes": ["chat"]}),
            "scopes \"chat\" cannot be counted in a transcript: a transcript read counts captions (transcripts) and titles (metadata) only; a search reaches the other fields (search_transcripts)".into(),
        ),
        (
            json!({"video_ids": [id], "channel": "late-night-lve"}),
            "channel \"late-night-lve\" matches no channel of this archive; did you mean \"late-night-live\"?".into(),
        ),
    ] {
        let out = run(&ctx, "get_transcripts", args.clone());
        assert!(
            out.is_error && out.text.starts_with(&format!("Error: {want}")),
            "{args}: {}",
            out.text
        );
    }
}

#[test]
fn a_batch_read_counts_as_a_search_of_the_same_scopes_counts() {
    let ctx = alpha_context();
    let ids = some_ids(20);
    for scopes in [json!(["transcripts"]), json!(["metadata"]), json!([])] {
        let search = run(
            &ctx,
            "enumerate_matches",
            json!({"query": "really", "scopes": scopes, "max_chars": 150_000}),
        );
        let by_id: std::collections::HashMap<String, u64> = search.structured["videos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().unwrap().to_string(),
                    r["matches"].as_u64().unwrap(),
                )
            })
            .collect();
        let read = run(
            &ctx,
            "get_transcripts",
            json!({"video_ids": ids, "query": "really", "scopes": scopes, "max_chars": 150_000}),
        );
        assert!(!read.is_error, "{}", read.text);
        for row in read.structured["videos"].as_array().unwrap() {
            let id = row["id"].as_str().unwrap();
            let counted = row["matches"]["really"].as_u64().unwrap_or(0);
            assert_eq!(
                counted,
                by_id.get(id).copied().unwrap_or(0),
                "{id} in scopes {scopes}: {row}"
            );
        }
    }
}

#[test]
fn an_offset_past_the_end_of_a_transcript_says_where_it_ends() {
    let ctx = alpha_context();
    let id = some_ids(1).remove(0);
    let whole = run(&ctx, "get_transcript", json!({"video_id": id}));
    let cues = whole.structured["cues"].as_u64().unwrap();
    let out = run(
        &ctx,
        "get_transcript",
        json!({"video_id": id, "offset": cues}),
    );
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with(&format!(
            "Error: offset {cues} is past the end: {id:?} has {cues} caption line(s), so offsets run from 0 to {}",
            cues - 1
        )),
        "{}",
        out.text
    );
}

/// `contract.py` with the real client, on `archive` (its index built
/// here), with the fake editor and umtool, asking `queries`.
fn contract_py(archive_dir: &Path, queries: &[&str]) {
    let python = common::python();
    let has_client = Command::new(&python)
        .args(["-c", "import mcp, jsonschema"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_client,
        "the Python MCP client is not importable: {}",
        common::PYTHON_SETUP
    );
    let index = tempfile::tempdir().unwrap();
    let archive =
        Archive::open(&SourceHandle::local(archive_dir), &OpenOptions::default()).unwrap();
    archilyzer_core::index::build(&archive, index.path(), &|_| {}).unwrap();
    // Passages embedded with a tiny model, which the server is given.
    let model_dir = tempfile::tempdir().unwrap();
    let model = model_dir.path().join("tiny-model");
    archilyzer_embed::tiny::write(&model, 3).unwrap();
    let embedder = archilyzer_embed::Embedder::load(&model, "tiny").unwrap();
    archilyzer_core::passages::embed(&archive, index.path(), &embedder, &|_| {}).unwrap();
    let editor = FakeEditor::start(Some("contract-token"));
    editor.add_channel("daily-dispatch", "youtube");
    editor.add_video("daily-dispatch", "a", "first", Some("20240101"));
    editor.add_video("daily-dispatch", "b", "second", Some("20240301"));
    for _ in 0..64 {
        editor.next_job(JobScript::Done { polls: 1 });
    }
    let link = {
        let request = archilyzer_core::query::Request {
            query: queries[0].to_string(),
            ..Default::default()
        };
        archilyzer_index::search::share_link(&archive, None, &request).unwrap()
    };
    let umtool = FakeUmtool::start();
    // The fake yt-dlp of tests/fakes, with a video that has captions.
    let fakes = tempfile::tempdir().unwrap();
    let yt_dlp = fakes.path().join("yt-dlp");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/yt-dlp"),
        &yt_dlp,
    )
    .unwrap();
    let scenario = json!({
        "info": {"id": "dQw4w9WgXcQ", "title": "A talk", "channel": "Some Channel", "duration": 60.0,
                 "upload_date": "20261101", "subtitles": {"en": []}, "language": "en"},
        "subs": {"t.en.vtt": "WEBVTT\n\n00:00:09.000 --> 00:00:10.000\nwords of the talk\n"}
    });
    std::fs::write(fakes.path().join("scenario.json"), scenario.to_string()).unwrap();
    let out = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/contract.py"))
        .arg(env!("CARGO_BIN_EXE_archilyzer-mcp"))
        .arg(archive_dir)
        .arg(index.path())
        .args(queries)
        .args(["--env", &format!("ARCHILYZER_EDITOR_URL={}", editor.url())])
        .args(["--env", "WORKER_TOKEN=contract-token"])
        .args(["--env", &format!("UMTOOL_URL={}", umtool.url())])
        .args(["--env", &format!("yt_dlp_path={}", yt_dlp.display())])
        .args(["--env", &format!("ARCHILYZER_MODEL={}", model.display())])
        .args(["--editor-channel", "daily-dispatch", "--link", &link])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("figures").is_some())
        .collect();
    assert_eq!(figures.len(), 2, "both eras ran: {stdout}");
    let tools = archilyzer_mcp::tools::registry::advertised().count();
    for era in &figures {
        let validated = era["answers_validated_against_their_schema_by_tool"]
            .as_array()
            .unwrap();
        assert_eq!(
            validated.len(),
            tools,
            "every tool answered and was validated: {era}"
        );
    }
}

#[test]
fn a_real_client_in_both_eras_gets_every_answer_within_budget_and_pages_that_advance() {
    contract_py(&testdata("alpha"), &["really", "k cups", "the"]);
}

#[test]
fn the_command_line_and_the_server_give_the_same_totals() {
    // Mirrors folded alike by default, and every upload with the flag
    // (`--keep-mirrors`, `collapse_duplicates: false`).
    let ctx = alpha_context();
    let archive = Archive::open(
        &SourceHandle::local(&testdata("alpha")),
        &OpenOptions::default(),
    )
    .unwrap();
    for query in ["k cups", "really", "the"] {
        for fold in [true, false] {
            let request = archilyzer_core::query::Request {
                query: query.into(),
                use_aliases: true,
                ..Default::default()
            };
            let shape = archilyzer_index::search::Shape {
                limit: Some(1),
                json: true,
                share: None,
                order: archilyzer_core::query::order::Order::Archive,
                fold,
            };
            let mut out = Vec::new();
            archilyzer_index::search::run(&archive, None, &request, &shape, &mut out).unwrap();
            let cli: Value = serde_json::from_slice(&out).unwrap();
            let server = run(
                &ctx,
                "search_transcripts",
                json!({"query": query, "collapse_duplicates": fold, "limit": 1}),
            );
            let s = &server.structured;
            let said = format!("{query} fold={fold}: {cli} / {s}");
            assert_eq!(cli["total_videos"], s["total"], "{said}");
            assert_eq!(cli["total_hits"], s["total_hits"], "{said}");
            assert_eq!(cli["exact"], s["exact"], "{said}");
        }
    }
}

/// Values no argument of any tool can take, or that are past every bound:
/// each is sent, in turn, as every argument of every tool.
fn hostile_values() -> Vec<Value> {
    vec![
        json!("x".repeat(50_000)),
        json!(vec!["w"; 10_000]),
        json!([json!({"a": 1})]),
        json!({"nested": {"deeper": [1, 2, 3]}}),
        json!(-1),
        json!(1e300),
        json!(""),
        json!("\u{0}\u{202e}é\u{1F600}"),
        json!(true),
        json!([]),
    ]
}

#[test]
fn hundreds_of_bad_inputs_get_a_refusal_or_an_answer_within_budget_and_never_structured_content_of_another_shape(
) {
    let ctx = alpha_context();
    let mut calls = 0;
    for tool in archilyzer_mcp::tools::registry::advertised() {
        if [
            "fetch_clip",
            "get_job",
            "enqueue",
            "channel_coverage",
            "notes",
            "transcript",
        ]
        .contains(&tool.name)
        {
            // They ask a service first; their refusals are checked with
            // the fakes (editor.rs, notes.rs, transcript.rs).
            continue;
        }
        let names: Vec<String> = tool.schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .chain(["channel".to_string(), "no_such_argument".to_string()])
            .collect();
        for name in &names {
            for value in hostile_values() {
                for budget in [2000, 5000] {
                    let mut args = json!({"max_chars": budget});
                    args[name.as_str()] = value.clone();
                    let started = std::time::Instant::now();
                    let out = run(&ctx, tool.name, args);
                    calls += 1;
                    let took = started.elapsed();
                    assert!(
                        size(&out) <= budget,
                        "{} {name}: {} characters at {budget}\n{}",
                        tool.name,
                        size(&out),
                        out.text
                    );
                    assert!(
                        out.text.chars().count() < 2000 || !out.is_error,
                        "{} {name}: a refusal of {} characters",
                        tool.name,
                        out.text.chars().count()
                    );
                    if out.is_error {
                        assert!(
                            out.structured.is_null(),
                            "{} {name}: a refusal carries structured content: {}",
                            tool.name,
                            out.structured
                        );
                        assert!(out.text.starts_with("Error: "), "{}", out.text);
                    }
                    assert!(
                        took.as_secs() < 5,
                        "{} {name}: {took:?} for a bad input",
                        tool.name
                    );
                }
            }
        }
    }
    println!("{calls} calls with bad inputs, each refused or answered within its budget");
    assert!(calls > 500, "{calls}");
}
