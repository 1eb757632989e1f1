//! The editor-backed tools against the fake editor (a real HTTP server on
//! 127.0.0.1 that follows docs/editor-contract.md), on a scripted clock so
//! that no test waits for real. Each test asserts what an agent relies
//! on: the request bodies, the key facts in the texts, and that nothing is
//! sent when an argument is wrong.

use crate::common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use archilyzer_mcp::editor::{Clock, EditorSetup};
use archilyzer_mcp::tools::{call, Context, Output, Tick};
use common::fake_editor::{FakeEditor, JobScript};
use serde_json::{json, Value};

const TOKEN: &str = "s3cret-worker-token";

/// A clock that moves only when slept on, and remembers each sleep.
#[derive(Default)]
struct FakeClock {
    nanos: AtomicU64,
    sleeps: Mutex<Vec<Duration>>,
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
    fn sleep(&self, d: Duration) {
        self.sleeps.lock().unwrap().push(d);
        self.nanos.fetch_add(d.as_nanos() as u64, Ordering::SeqCst);
    }
}

fn alpha() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha")
}

struct Rig {
    editor: FakeEditor,
    clock: Arc<FakeClock>,
    ctx: Context,
}

/// A fake editor that archives `daily-dispatch` (youtube) and
/// `dispatch-rumble` (rumble), and a server context pointed at it.
fn rig() -> Rig {
    let editor = FakeEditor::start(Some(TOKEN));
    editor.add_channel("daily-dispatch", "youtube");
    editor.add_channel("dispatch-rumble", "rumble");
    let clock = Arc::new(FakeClock::default());
    let setup = EditorSetup::new(Some(&editor.url()), Some(TOKEN), clock.clone());
    Rig {
        ctx: context(setup),
        editor,
        clock,
    }
}

fn context(editor: EditorSetup) -> Context {
    Context {
        editor,
        ..common::alpha_context()
    }
}

fn run(ctx: &Context, tool: &str, args: Value) -> (Output, Vec<Tick>) {
    let mut ticks = Vec::new();
    let out = call(ctx, tool, args.as_object().unwrap(), &mut |t| ticks.push(t));
    assert!(!out.text.contains(TOKEN), "the token leaked: {}", out.text);
    assert!(!out.structured.to_string().contains(TOKEN));
    (out, ticks)
}

fn posts(e: &FakeEditor) -> Vec<Value> {
    e.requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body.unwrap_or(Value::Null))
        .collect()
}

/// The first record of the archive whose watch URL satisfies `pred`.
fn record(pred: impl Fn(&str, &str) -> bool) -> (String, String, String) {
    let dir = alpha().join("transcripts");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flat_map(|c| std::fs::read_dir(c.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("page-")
        })
        .collect();
    pages.sort();
    for p in pages {
        let page: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        for v in page["videos"].as_array().unwrap() {
            let (slug, url) = (
                v["slug"].as_str().unwrap(),
                v["webpageUrl"].as_str().unwrap_or(""),
            );
            if pred(slug, url) {
                let channel = page["channel"].as_str().unwrap().to_string();
                return (channel, slug.to_string(), url.to_string());
            }
        }
    }
    panic!("no such record in testdata");
}

fn window(video: &str) -> Value {
    json!({"channel": "daily-dispatch", "video": video, "start": 10, "end": "0:20", "reason": "the quote in claim 3"})
}

#[test]
fn without_a_token_every_editor_tool_names_both_variables_and_sends_nothing() {
    let ctx = context(EditorSetup::new(None, None, Arc::new(FakeClock::default())));
    for (tool, args) in [
        ("fetch_clip", window("abc")),
        ("get_job", json!({"job": "job-1"})),
        ("enqueue", json!({"channel": "x", "kind": "sync"})),
        ("channel_coverage", json!({"channel": "x"})),
    ] {
        let (out, _) = run(&ctx, tool, args);
        assert!(out.is_error, "{tool}");
        assert!(
            out.text.starts_with(&format!(
                "Error: {tool}: no editor is configured, so nothing was sent."
            )) && out
                .text
                .contains("ARCHILYZER_EDITOR_URL (for example http://localhost:3001)")
                && out
                    .text
                    .contains("WORKER_TOKEN (the token the editor itself runs with"),
            "{}",
            out.text
        );
    }
    let (out, _) = run(&ctx, "fetch_clip", window("abc"));
    assert!(
        out.text
            .contains("README's \"Editor-backed tools\" section"),
        "{}",
        out.text
    );
    let bad = context(EditorSetup::new(
        Some("localhost:3001"),
        Some(TOKEN),
        Arc::new(FakeClock::default()),
    ));
    let (out, _) = run(&bad, "get_job", json!({"job": "j"}));
    assert!(
        out.text.contains(
            "ARCHILYZER_EDITOR_URL is \"localhost:3001\", which is not an http:// or https:// URL"
        ),
        "{}",
        out.text
    );
    assert!(!format!("{:?}", rig().ctx.editor).contains(TOKEN));
}

#[test]
fn every_argument_error_is_answered_before_any_request() {
    let r = rig();
    let base = window("abc").as_object().unwrap().clone();
    let with = |k: &str, v: Value| {
        let mut a = base.clone();
        if v.is_null() {
            a.remove(k);
        } else {
            a.insert(k.into(), v);
        }
        Value::Object(a)
    };
    let cases = [
        (with("channel", Value::Null), "fetch_clip: channel is required (the channel's slug, as citations show it)"),
        (with("channel", json!("  ")), "fetch_clip: channel is required"),
        (with("video", Value::Null), "fetch_clip: video is required (the archive's video id, as cited)"),
        (with("video", json!("../etc")), "fetch_clip: video \"../etc\" is not an id: it must be letters, digits, `_`, `.` or `-`"),
        (with("video", json!("..")), "is not an id"),
        (with("start", json!("1:75")), "fetch_clip: start \"1:75\" is not a time: give seconds, mm:ss or h:mm:ss"),
        (with("start", Value::Null), "fetch_clip: start \"null\" is not a time"),
        (with("end", json!("soon")), "fetch_clip: end \"soon\" is not a time"),
        (with("end", json!(5)), "fetch_clip: start (10) must be before end (5)"),
        (with("end", json!("15:10")), "fetch_clip: the window 7–913 (padding included) is 906s long, and the editor fetches at most 900s per window: cite a narrower span"),
        (with("pad", json!(-1)), "fetch_clip: pad must be a number of seconds, 0 or more, got -1"),
        (with("reason", Value::Null), "fetch_clip: reason is required: one line on why these seconds are needed"),
        (with("reason", json!(" ")), "fetch_clip: reason is required"),
        (with("maxHeight", json!(100)), "fetch_clip: `maxHeight` must be a whole number from 144 to 2160, got 100"),
        (with("start", json!(true)), "fetch_clip: `start` must be a number or a string, got true"),
        (with("wait", json!(3)), "fetch_clip has no argument `wait`"),
    ];
    for (args, want) in cases {
        let (out, _) = run(&r.ctx, "fetch_clip", args.clone());
        assert!(out.is_error, "{args}");
        assert!(
            out.text.contains(want),
            "{args}\nwant: {want}\ngot: {}",
            out.text
        );
    }
    assert!(r.editor.requests().is_empty(), "{:?}", r.editor.requests());
}

#[test]
fn a_narrower_request_gets_the_wider_cached_window_with_its_span_and_height() {
    let r = rig();
    let (_, id, url) = record(|_, u| u.contains("youtube.com"));
    r.editor
        .cache_window("daily-dispatch", &id, 0.0, 100.0, 1080);
    let mut args = window(&id);
    args["report"] = json!("fact-check-7");
    let (out, ticks) = run(&r.ctx, "fetch_clip", args);
    assert!(!out.is_error, "{}", out.text);
    let file = format!(
        "/srv/archilyzer/transcripts/channels/daily-dispatch/data/{id}/clips/0.00-100.00.mp4"
    );
    for want in [
        "Already on disk: a wider cached window, 0–100, that contains the 7–23 asked for. (requested by operator)",
        &format!("file: {file}"),
        "window: 0–100 (100s)",
        "height: 1080p (taller than the 720p asked: a file already on disk is returned as it is",
        "bytes: 12000000",
        "read-only corpus artifact: play or copy it, never move, edit or delete it",
        "provenance sits beside it as 0.00-100.00.json",
    ] {
        assert!(out.text.contains(want), "want {want}\n{}", out.text);
    }
    assert!(ticks.is_empty());
    assert_eq!(out.structured["outcome"], "cached");
    assert_eq!(out.structured["file"], json!(file));
    assert_eq!(
        posts(&r.editor),
        vec![json!({
            "channelSlug": "daily-dispatch", "videoId": id, "webpageUrl": url,
            "from": 7.0, "to": 23.0, "pad": 3.0, "requestedBy": "mcp",
            "manifest": "fact-check-7", "reason": "the quote in claim 3"
        })]
    );
    let auth = r.editor.requests()[0].authorization.clone();
    assert_eq!(auth.as_deref(), Some(&*format!("Bearer {TOKEN}")));
}

#[test]
fn a_fetch_is_polled_once_a_second_through_queued_and_running_to_done() {
    let r = rig();
    let (_, id, _) = record(|_, u| u.contains("youtube.com"));
    let mut args = window(&id);
    args["maxHeight"] = json!(480);
    let (out, ticks) = run(&r.ctx, "fetch_clip", args.clone());
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with(&format!("Fetched 7–23 of daily-dispatch/{id} (job job-1, 2s waited).\nfile: /srv/archilyzer/transcripts/channels/daily-dispatch/data/{id}/clips/7.00-23.00.mp4\nwindow: 7–23 (16s)\nheight: 480p\nbytes: 1920000\n")),
        "{}",
        out.text
    );
    let messages: Vec<&str> = ticks.iter().map(|t| t.message.as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "editor job job-1: queued (0s of 90s waited)",
            "editor job job-1: running (1s of 90s waited)",
            "editor job job-1: done (2s of 90s waited)"
        ]
    );
    assert_eq!(
        *r.clock.sleeps.lock().unwrap(),
        vec![Duration::from_secs(1); 2]
    );
    assert_eq!(posts(&r.editor)[0]["maxHeight"], 480);
    // Once done, the same request finds the file cached.
    let (again, _) = run(&r.ctx, "fetch_clip", args);
    assert!(
        again
            .text
            .starts_with("Already on disk: the exact window asked for. (requested by mcp)"),
        "{}",
        again.text
    );
}

#[test]
fn a_failed_or_cancelled_job_answers_its_log_tail() {
    let r = rig();
    r.editor.next_job(JobScript::Failed {
        polls: 2,
        log: "ERROR: [youtube] Sign in to confirm you're not a bot".into(),
    });
    let (out, _) = run(&r.ctx, "fetch_clip", window("abc"));
    assert!(out.is_error);
    assert!(
        out.text.contains("Editor job job-1 failed.\n\nlog tail:\nERROR: [youtube] Sign in to confirm you're not a bot"),
        "{}",
        out.text
    );
    r.editor.next_job(JobScript::Cancelled { polls: 1 });
    let (out, _) = run(&r.ctx, "fetch_clip", window("abd"));
    assert!(
        out.text
            .contains("Editor job job-2 cancelled.\n\nlog tail:\ncancelled by the operator"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["jobId"], "job-2");
}

#[test]
fn when_the_wait_runs_out_the_job_is_resumed_by_id_without_a_second_post() {
    let r = rig();
    r.editor.next_job(JobScript::Done { polls: 8 });
    let mut args = window("abc");
    args["wait_seconds"] = json!(3);
    let (out, ticks) = run(&r.ctx, "fetch_clip", args);
    assert!(!out.is_error, "queued is not an error: {}", out.text);
    assert!(
        out.text.contains("\n\nStill running on the editor (job job-1, waited 3s). To keep waiting, call fetch_clip again with job: \"job-1\". Do not repeat the original request while it runs: that would queue a second fetch."),
        "{}",
        out.text
    );
    assert_eq!(ticks.len(), 4);
    assert_eq!(out.structured["jobId"], "job-1");
    let (out, _) = run(
        &r.ctx,
        "fetch_clip",
        json!({"job": "job-1", "wait_seconds": 500}),
    );
    assert!(
        out.text
            .starts_with("Fetched 7–23 of the video (job job-1, 3s waited)."),
        "{}",
        out.text
    );
    assert_eq!(r.editor.count("POST"), 1, "a resume only polls");
    // wait_seconds is clamped: 0 polls once and answers at once.
    r.editor.next_job(JobScript::Never);
    let mut args = window("abe");
    args["wait_seconds"] = json!(-5);
    let (out, ticks) = run(&r.ctx, "fetch_clip", args);
    assert!(
        out.text
            .contains("Still queued on the editor (job job-2, waited 0s)"),
        "{}",
        out.text
    );
    assert_eq!(ticks.len(), 1);
}

#[test]
fn refusals_say_what_the_editor_said_and_what_to_do() {
    let r = rig();
    r.editor.cooldown("youtube", 12_001);
    let (out, _) = run(&r.ctx, "fetch_clip", window("abc"));
    assert!(out.is_error);
    assert!(
        out.text.contains("The editor is in a youtube rate-limit cooldown with 13s to go. Wait that long, then call fetch_clip again. (youtube is cooling down after a 429)"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["cooldownSeconds"], 13);

    let mut args = window("abc");
    args["channel"] = json!("never-archived");
    let (out, _) = run(&r.ctx, "fetch_clip", args);
    assert!(out.text.contains("The editor refused (HTTP 404): Channel \"never-archived\" not found. The editor fetches only for channels it archives"), "{}", out.text);

    let r = rig();
    r.editor.fill_disk();
    let (out, _) = run(&r.ctx, "fetch_clip", window("abc"));
    assert!(
        out.text
            .contains("The editor refused (HTTP 507): not enough free disk space for the fetch"),
        "{}",
        out.text
    );

    let wrong = context(EditorSetup::new(
        Some(&r.editor.url()),
        Some("wrong"),
        Arc::new(FakeClock::default()),
    ));
    let (out, _) = run(&wrong, "fetch_clip", window("abc"));
    assert!(out.text.contains("The editor refused the token (HTTP 401): unauthorized: bad worker token. WORKER_TOKEN must be the value the editor runs with"), "{}", out.text);

    let off = FakeEditor::start(None);
    let ctx = context(EditorSetup::new(
        Some(&off.url()),
        Some(TOKEN),
        Arc::new(FakeClock::default()),
    ));
    let (out, _) = run(&ctx, "fetch_clip", window("abc"));
    assert!(
        out.text
            .contains("The editor refused the token (HTTP 503): worker endpoint disabled.")
            && out.text.contains(
                "The editor itself has no WORKER_TOKEN, so its worker endpoints are switched off."
            ),
        "{}",
        out.text
    );

    let (out, _) = run(&r.ctx, "fetch_clip", json!({"job": "job-99"}));
    assert!(out.text.contains("Polling editor job job-99 failed (HTTP 404): job job-99 not found. The editor does not know this job: was it restarted, or does ARCHILYZER_EDITOR_URL name another editor?"), "{}", out.text);

    let url = r.editor.url();
    drop(r);
    let gone = context(EditorSetup::new(
        Some(&url),
        Some(TOKEN),
        Arc::new(FakeClock::default()),
    ));
    let (out, _) = run(&gone, "fetch_clip", window("abc"));
    assert!(
        out.text.contains(&format!(
            "Could not reach the editor at {url}: could not connect"
        )) && out.text.contains("Is it running?"),
        "{}",
        out.text
    );
}

#[test]
fn the_token_never_reaches_a_result_even_when_the_editor_echoes_it() {
    let r = rig();
    r.editor
        .answer_next(400, r#"{"error": "bad request from {auth}"}"#);
    let (out, _) = run(&r.ctx, "fetch_clip", window("abc"));
    assert!(
        out.text
            .contains("The editor refused (HTTP 400): bad request from Bearer [WORKER_TOKEN]"),
        "{}",
        out.text
    );
}

#[test]
fn a_whole_recording_is_asked_for_with_full_and_no_span() {
    let r = rig();
    let (_, id, _) = record(|_, u| u.contains("youtube.com"));
    r.editor
        .add_video("daily-dispatch", &id, "t", Some("20240101"));
    let mut args = window(&id);
    args["full"] = json!(true);
    args["start"] = json!("garbage, ignored");
    args["maxHeight"] = json!(1080);
    let (out, _) = run(&r.ctx, "fetch_clip", args.clone());
    assert_eq!(
        posts(&r.editor),
        vec![
            json!({"channelSlug": "daily-dispatch", "videoId": id, "full": true, "requestedBy": "mcp", "reason": "the quote in claim 3", "maxHeight": 1080})
        ]
    );
    assert!(out.text.starts_with(&format!("Fetched the whole recording of daily-dispatch/{id} (job job-1, 2s waited).\nfile: /srv/archilyzer/transcripts/saved-videos/daily-dispatch/{id}.mp4\nheight: 1080p\nbytes: 250000000\n")), "{}", out.text);
    assert!(!out.text.contains("window:") && out.text.contains("saved-video store, not in clips/"));
    let (out, _) = run(&r.ctx, "fetch_clip", args);
    assert!(
        out.text.starts_with(&format!(
            "Already on disk: the whole recording of daily-dispatch/{id}."
        )),
        "{}",
        out.text
    );

    let mut unknown = window("unknown1");
    unknown["full"] = json!(true);
    let (out, _) = run(&r.ctx, "fetch_clip", unknown.clone());
    assert!(
        out.text
            .contains("The editor refused (HTTP 404): Could not determine the video URL")
            && out
                .text
                .contains("A whole-recording fetch needs a video the editor already knows"),
        "{}",
        out.text
    );

    r.editor.add_video("daily-dispatch", "unknown1", "t", None);
    r.editor.next_job(JobScript::DoneWithoutFile { polls: 1 });
    let (out, _) = run(&r.ctx, "fetch_clip", unknown);
    assert!(
        out.is_error
            && out
                .text
                .contains("Editor job job-2 finished but named no file"),
        "{}",
        out.text
    );
}

#[test]
fn a_rumble_embed_id_is_sent_as_the_editors_slug_id() {
    let r = rig();
    let (channel, embed, url) = record(|_, u| u.contains("rumble.com"));
    let slug_id = url
        .split('/')
        .nth(3)
        .unwrap()
        .split('-')
        .next()
        .unwrap()
        .to_string();
    assert_ne!(embed, slug_id);
    let (out, _) = run(
        &r.ctx,
        "fetch_clip",
        json!({"channel": channel, "video": embed, "start": "1:00", "end": "1:30", "reason": "r"}),
    );
    assert!(
        out.text
            .starts_with(&format!("Fetched 57–93 of {channel}/{slug_id} ")),
        "{}",
        out.text
    );
    let body = &posts(&r.editor)[0];
    assert_eq!(body["videoId"], json!(slug_id));
    assert_eq!(body["webpageUrl"], json!(url));

    let (out, _) = run(
        &r.ctx,
        "fetch_clip",
        json!({"channel": channel, "video": "vnotinit", "start": 1, "end": 2, "reason": "r"}),
    );
    assert!(out.text.starts_with("note: \"vnotinit\" is not in corpus local:/") && out.text.contains("alpha, so it went to the editor as cited (for a Rumble citation that may be the embed id"), "{}", out.text);
    assert_eq!(posts(&r.editor)[1]["videoId"], "vnotinit");
    assert!(posts(&r.editor)[1].get("webpageUrl").is_none());
}

#[test]
fn an_id_that_begins_with_a_dash_is_data_everywhere() {
    let r = rig();
    let (_, id, _) = record(|s, _| s.starts_with('-'));
    let (out, _) = run(&r.ctx, "fetch_clip", window(&id));
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(posts(&r.editor)[0]["videoId"], json!(id));
    let (out, _) = run(
        &r.ctx,
        "enqueue",
        json!({"channel": "daily-dispatch", "kind": "transcribe-bucket", "ids": [id, "-x"]}),
    );
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(posts(&r.editor)[1]["ids"], json!([id, "-x"]));
    r.editor.add_transcript(
        "daily-dispatch",
        "-newvideo01",
        json!({"source": "cues", "title": "New", "cues": [{"start": 1.0, "text": "hello"}]}),
    );
    let (out, _) = run(&r.ctx, "get_transcript", json!({"video_id": "-newvideo01"}));
    assert!(out.text.contains("[0:01] hello"), "{}", out.text);
    let asked = r.editor.requests().last().unwrap().clone();
    assert_eq!(
        asked.query,
        vec![("video".to_string(), "-newvideo01".to_string())]
    );
    let (out, _) = run(&r.ctx, "get_job", json!({"job": "-job"}));
    assert!(out.text.contains("job -job not found"), "{}", out.text);
}

#[test]
fn get_job_shows_state_queue_and_the_log_tail() {
    let r = rig();
    let (out, _) = run(
        &r.ctx,
        "enqueue",
        json!({"channel": "daily-dispatch", "kind": "sync", "full": true}),
    );
    assert_eq!(out.text.lines().next().unwrap(), "Queued sync on daily-dispatch: job job-1, 0 job(s) ahead of it in the youtube queue. The editor runs it at the platform's own pace; follow it with get_job job: \"job-1\".");
    run(
        &r.ctx,
        "enqueue",
        json!({"channel": "daily-dispatch", "kind": "download-missing"}),
    );
    let (out, _) = run(&r.ctx, "get_job", json!({"job": "job-2", "tail": 3}));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("# Job job-2: download-missing on daily-dispatch, queued\n- created 2026-11-30T10:00:00Z · started not yet · finished not yet\n- waiting in the youtube queue, 1 job(s) ahead of it\n"), "{}", out.text);
    assert!(out.text.contains("last 3 of 60 log line(s):\n```\n[download-missing] step 58\n[download-missing] step 59\n[download-missing] step 60\n```"), "{}", out.text);
    let q = r.editor.requests().last().unwrap().query.clone();
    assert_eq!(q, vec![("tail".to_string(), "3".to_string())]);
    r.editor.next_job(JobScript::Failed {
        polls: 1,
        log: "boom".into(),
    });
    run(&r.ctx, "fetch_clip", window("abc"));
    let (out, _) = run(&r.ctx, "get_job", json!({"job": "job-3"}));
    assert!(
        out.text.contains("fetch-window on daily-dispatch, failed")
            && out.text.contains("- exit code: 1")
            && out.text.contains("last 40 of 60"),
        "{}",
        out.text
    );
}

#[test]
fn enqueue_checks_each_kinds_arguments_before_sending() {
    let r = rig();
    for (args, want) in [
        (
            json!({"channel": "daily-dispatch", "kind": "sync", "older": true}),
            "enqueue: `older` does not apply to kind sync, which takes full",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "download-missing", "ids": ["a"]}),
            "enqueue: `ids` does not apply to kind download-missing, which takes nothing else",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "retry-bucket"}),
            "enqueue: kind retry-bucket needs `bucket`",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "transcribe-bucket", "ids": []}),
            "enqueue: ids is empty",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "transcribe-bucket", "ids": ["a b"]}),
            "enqueue: \"a b\" is not a video id",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "import-video", "url": "--exec=rm"}),
            "enqueue: url \"--exec=rm\" must be an http:// or https:// address",
        ),
        (
            json!({"channel": "daily-dispatch", "kind": "purge"}),
            "enqueue: `kind` must be one of",
        ),
        (
            json!({"channel": " ", "kind": "sync"}),
            "enqueue: channel is required",
        ),
    ] {
        let (out, _) = run(&r.ctx, "enqueue", args.clone());
        assert!(
            out.is_error && out.text.contains(want),
            "{args}\n{}",
            out.text
        );
    }
    assert!(r.editor.requests().is_empty());
    let (out, _) = run(
        &r.ctx,
        "enqueue",
        json!({"channel": "daily-dispatch", "kind": "retry-bucket", "bucket": "failed", "ids": ["a1", "b2"]}),
    );
    assert!(!out.is_error, "{}", out.text);
    run(
        &r.ctx,
        "enqueue",
        json!({"channel": "dispatch-rumble", "kind": "fetch-posts", "older": true}),
    );
    run(
        &r.ctx,
        "enqueue",
        json!({"channel": "daily-dispatch", "kind": "import-video", "url": "https://youtu.be/abc"}),
    );
    let paths: Vec<String> = r.editor.requests().iter().map(|q| q.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "api/ops/retry-bucket",
            "api/ops/fetch-posts",
            "api/ops/import-video"
        ]
    );
    assert_eq!(
        posts(&r.editor),
        vec![
            json!({"channel": "daily-dispatch", "requestedBy": "mcp", "bucket": "failed", "ids": ["a1", "b2"]}),
            json!({"channel": "dispatch-rumble", "requestedBy": "mcp", "older": true}),
            json!({"channel": "daily-dispatch", "requestedBy": "mcp", "url": "https://youtu.be/abc"}),
        ]
    );
    let (out, _) = run(
        &r.ctx,
        "enqueue",
        json!({"channel": "nope", "kind": "sync"}),
    );
    assert!(out.text.contains("The editor refused (HTTP 404): Channel \"nope\" not found. The editor works only on channels it archives"), "{}", out.text);
}

#[test]
fn coverage_counts_years_and_gaps_in_the_asked_range_and_keeps_undated_videos() {
    let r = rig();
    for (id, date) in [
        ("a", Some("20230110")),
        ("b", Some("20230301")),
        ("c", Some("20230305")),
        ("d", Some("20240102")),
        ("e", None),
        ("f", Some("2024-13-01")),
    ] {
        r.editor
            .add_video("daily-dispatch", id, &format!("title {id}"), date);
    }
    let (out, _) = run(
        &r.ctx,
        "channel_coverage",
        json!({"channel": "daily-dispatch"}),
    );
    assert!(out.text.starts_with("# What daily-dispatch holds on the editor's disk\n- 4 dated video(s), each dated by its upload date\n- first: 2023-01-10 · last: 2024-01-02\n- per year: 2023: 3 · 2024: 1\n- gaps longer than 30 day(s): 2\n  - 2023-01-10 → 2023-03-01: 50 days without a video\n  - 2023-03-05 → 2024-01-02: 303 days without a video\n- undated: 2 video(s), not in the figures above\n"), "{}", out.text);
    r.editor.date_by_recording("daily-dispatch");
    let (out, _) = run(
        &r.ctx,
        "channel_coverage",
        json!({"channel": "daily-dispatch", "date_from": "2023-02-01", "date_to": "20230630", "gap_days": 40, "list": true}),
    );
    assert!(out.text.contains("- 2 dated video(s) from 2023-02-01 to 2023-06-30, each dated by its recorded date (the channel has a title rule)"), "{}", out.text);
    assert!(
        out.text
            .contains("  - 2023-03-05 → 2023-06-30: 117 days without a video")
            && !out.text.contains("2023-02-01 → 2023-03-01"),
        "{}",
        out.text
    );
    assert!(out.text.contains("## Videos\n- 2023-03-01 · b · title b\n- 2023-03-05 · c · title c\n- no date · e · title e\n"), "{}", out.text);
    assert_eq!(out.structured["count"], 2);
    let (out, _) = run(
        &r.ctx,
        "channel_coverage",
        json!({"channel": "daily-dispatch", "date_from": "2023-02-30"}),
    );
    assert!(
        out.text.contains(
            "channel_coverage: date_from \"2023-02-30\" is not a date: February 2023 has 28 days"
        ),
        "{}",
        out.text
    );
    let (out, _) = run(&r.ctx, "channel_coverage", json!({"channel": "nope"}));
    assert!(
        out.text.contains("(HTTP 404): Channel \"nope\" not found"),
        "{}",
        out.text
    );
}

#[test]
fn get_transcript_reads_an_unpublished_video_off_the_editor() {
    let r = rig();
    r.editor.add_transcript("daily-dispatch", "fresh123", json!({
        "source": "raw", "title": "Fresh upload", "uploadDate": "20261129",
        "cues": [{"start": 0.0, "text": "first"}, {"text": "no time"}, {"start": "7", "text": "string time"}, {"start": 65.2, "text": "second"}]
    }));
    let (out, _) = run(
        &r.ctx,
        "get_transcript",
        json!({"video_id": "fresh123", "channel": "daily-dispatch"}),
    );
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("# Fresh upload\n- id: fresh123 · channel: daily-dispatch · 20261129\n- NOT PUBLISHED YET: read off the local editor's disk (from the raw transcript, normalised in memory). The archive has no page for this video yet, so there are no moment links"), "{}", out.text);
    assert!(
        out.text.contains(
            "- 2 cue(s) without a usable time were left out\n\n[0:00] first\n[1:05] second\n"
        ),
        "{}",
        out.text
    );
    assert_eq!(out.structured["published"], false);
    r.editor.add_transcript("dispatch-rumble", "vttonly1", json!({"source": "vtt", "title": "V", "vtt": "WEBVTT\n\n00:00:02.000 --> 00:00:03.000\nfrom vtt\n"}));
    let (out, _) = run(&r.ctx, "get_transcript", json!({"video_id": "vttonly1"}));
    assert!(
        out.text.contains("(from the English VTT)") && out.text.contains("[0:02] from vtt"),
        "{}",
        out.text
    );
    let (out, _) = run(&r.ctx, "get_transcript", json!({"video_id": "nowhere1"}));
    assert!(
        out.is_error
            && out.text.contains("no video \"nowhere1\" in this corpus")
            && out
                .text
                .contains("the local editor has no transcript of it either"),
        "{}",
        out.text
    );
    let none = context(EditorSetup::Missing);
    let (out, _) = run(&none, "get_transcript", json!({"video_id": "fresh123"}));
    assert!(out.is_error && !out.text.contains("editor"), "{}", out.text);
}
