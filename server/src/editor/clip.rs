//! `fetch_clip`: the media behind a cited moment, fetched by the editor.
//!
//! The server never fetches media itself. It asks the editor
//! (`POST /api/media/fetch-window`), whose job is paced per platform,
//! cookie-aware and provenanced, then polls the job once a second until it
//! ends or `wait_seconds` pass. Promises:
//! - every argument error is found before any request is sent;
//! - a window is the cited span widened by `pad` on each side, rounded to
//!   hundredths, clamped at 0, and at most [`MAX_WINDOW`] seconds *after*
//!   padding;
//! - resuming by `job` only polls: it never sends a second POST (a second
//!   POST while a fetch runs would queue a second download);
//! - a Rumble citation's embed id is mapped to the editor's slug id through
//!   the record's `webpageUrl` ([`super::video_id`]);
//! - one progress tick per poll, so a reset-on-progress client timeout
//!   stays alive while the editor works.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::video_id::editor_id;
use super::{Editor, EditorSetup, Reply};
use crate::tool::{bool_arg, str_arg, Context, Failure, Progress, Tick, ToolResult};
use archilyzer_core::source::SourceHandle;

/// The most seconds one window may span, padding included.
pub const MAX_WINDOW: f64 = 900.0;
/// Seconds added before and after the cited span by default.
pub const DEFAULT_PAD: f64 = 3.0;
/// Seconds to wait for a job by default, and at most.
pub const DEFAULT_WAIT: f64 = 90.0;
pub const MAX_WAIT: f64 = 300.0;
/// The editor's own default height cap for a window.
pub const DEFAULT_HEIGHT: u64 = 720;
/// How long between two polls of a job.
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// The most characters of `reason` sent (the editor stores it).
pub const REASON_MAX: usize = 400;

/// Seconds from a number or `ss`, `mm:ss`, `h:mm:ss` (the last part may
/// have a fraction); `None` for anything else.
pub fn parse_seconds(v: &Value) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return (n.is_finite() && n >= 0.0).then_some(n);
    }
    let text = v.as_str()?.trim();
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let (last, rest) = parts.split_last()?;
    let seconds = decimal(last)?;
    if !rest.is_empty() && seconds >= 60.0 {
        return None;
    }
    let whole = |p: &str| {
        p.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| p.parse::<f64>().ok())?
    };
    let total = match rest {
        [] => Some(seconds),
        [m] => Some(whole(m)? * 60.0 + seconds),
        [h, m] => {
            let m = whole(m)?;
            (m < 60.0).then_some(whole(h)? * 3600.0 + m * 60.0 + seconds)
        }
        _ => None,
    }?;
    // So many digits that the value overflows is not a time either.
    total.is_finite().then_some(total)
}

/// `12` or `12.5`: digits with an optional fraction, nothing else.
fn decimal(p: &str) -> Option<f64> {
    let (int, frac) = p.split_once('.').unwrap_or((p, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(int) && digits(frac)).then(|| p.parse().ok())?
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Seconds as the texts show them: at most two decimals, no trailing zeros.
pub fn secs(x: f64) -> String {
    let s = format!("{:.2}", round2(x));
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The span the editor is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub from: f64,
    pub to: f64,
    /// The padding already applied to `from` and `to` (the editor records it).
    pub pad: f64,
}

/// `[start - pad, end + pad]`, rounded, clamped at 0, at most
/// [`MAX_WINDOW`] seconds long.
pub fn plan_window(start: f64, end: f64, pad: f64) -> Result<Window, String> {
    let usable = |t: f64| t.is_finite() && t >= 0.0;
    if !(usable(start) && usable(end) && usable(pad)) {
        return Err(format!(
            "fetch_clip: start ({start}), end ({end}) and pad ({pad}) must be seconds, 0 or more"
        ));
    }
    if start >= end {
        return Err(format!(
            "fetch_clip: start ({}) must be before end ({})",
            secs(start),
            secs(end)
        ));
    }
    let w = Window {
        from: round2((start - pad).max(0.0)),
        to: round2(end + pad),
        pad,
    };
    let length = round2(w.to - w.from);
    if length <= 0.0 {
        return Err(format!(
            "fetch_clip: the window {}–{} is empty once rounded to hundredths of a second: cite a longer span",
            secs(w.from),
            secs(w.to)
        ));
    }
    if length > MAX_WINDOW {
        return Err(format!(
            "fetch_clip: the window {}–{} (padding included) is {}s long, and the editor fetches at most {}s per window: cite a narrower span",
            secs(w.from),
            secs(w.to),
            secs(length),
            MAX_WINDOW
        ));
    }
    Ok(w)
}

/// An id the editor accepts as a directory name: `[A-Za-z0-9_.-]+`, not
/// `.` or `..`. A leading `-` is fine (it is data, never an option).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

/// What to fetch: a window of the recording, or all of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Window(Window),
    Full,
}

/// A new fetch, every argument checked.
#[derive(Debug, Clone)]
pub struct NewFetch {
    pub channel: String,
    pub video: String,
    pub span: Span,
    pub reason: String,
    pub report: Option<String>,
    pub max_height: Option<u64>,
}

/// A call: a new fetch, or a resume of a job by id.
#[derive(Debug, Clone)]
pub enum Ask {
    New(NewFetch),
    Resume(String),
}

/// Checks the arguments; the error is the text the call answers.
pub fn parse_args(args: &Map<String, Value>) -> Result<(Ask, Duration), String> {
    let wait = args
        .get("wait_seconds")
        .and_then(Value::as_f64)
        .unwrap_or(DEFAULT_WAIT)
        .clamp(0.0, MAX_WAIT);
    let wait = Duration::from_secs_f64(wait);
    if let Some(job) = str_arg(args, "job")
        .map(str::trim)
        .filter(|j| !j.is_empty())
    {
        return Ok((Ask::Resume(job.to_string()), wait));
    }
    let text = |k| str_arg(args, k).map(str::trim).filter(|s| !s.is_empty());
    let channel = text("channel")
        .ok_or("fetch_clip: channel is required (the channel's slug, as citations show it)")?;
    let video =
        text("video").ok_or("fetch_clip: video is required (the archive's video id, as cited)")?;
    if !valid_id(video) {
        return Err(format!(
            "fetch_clip: video {video:?} is not an id: it must be letters, digits, `_`, `.` or `-`"
        ));
    }
    let span = if bool_arg(args, "full", false) {
        Span::Full
    } else {
        Span::Window(window_args(args)?)
    };
    let reason = text("reason").ok_or(
        "fetch_clip: reason is required: one line on why these seconds are needed (the editor stores it beside the file)",
    )?;
    Ok((
        Ask::New(NewFetch {
            channel: channel.into(),
            video: video.into(),
            span,
            reason: reason.chars().take(REASON_MAX).collect(),
            report: text("report").map(str::to_string),
            max_height: args.get("maxHeight").and_then(Value::as_u64),
        }),
        wait,
    ))
}

fn window_args(args: &Map<String, Value>) -> Result<Window, String> {
    let time = |name: &str| {
        let v = args.get(name).cloned().unwrap_or(Value::Null);
        parse_seconds(&v).ok_or_else(|| {
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            format!("fetch_clip: {name} {shown:?} is not a time: give seconds, mm:ss or h:mm:ss")
        })
    };
    let (start, end) = (time("start")?, time("end")?);
    let pad = match args.get("pad") {
        None => DEFAULT_PAD,
        Some(v) => v
            .as_f64()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| {
                format!("fetch_clip: pad must be a number of seconds, 0 or more, got {v}")
            })?,
    };
    plan_window(start, end, pad)
}

/// The video as the editor knows it.
#[derive(Debug, Clone)]
pub struct Target {
    pub editor_id: String,
    pub webpage_url: Option<String>,
    /// Said before the result when the id could not be checked.
    pub note: Option<String>,
}

/// Looks `video` up in the corpus for its watch URL and editor id.
fn locate(ctx: &Context, handle: &SourceHandle, f: &NewFetch) -> Target {
    let hints = [f.channel.clone()];
    let record = ctx.sources.archive(handle).and_then(|a| {
        a.find_video(&f.video, &hints)
            .map_err(|e| e.to_string())
            .map(|found| found.map(|v| v.video.webpage_url))
    });
    let as_cited = "so it went to the editor as cited (for a Rumble citation that may be the embed id, which the editor files elsewhere: pass the corpus the citation came from as source)";
    let note = match record {
        Ok(Some(url)) => {
            return Target {
                editor_id: url
                    .as_deref()
                    .and_then(editor_id)
                    .unwrap_or_else(|| f.video.clone()),
                webpage_url: url,
                note: None,
            }
        }
        Ok(None) => format!("note: {:?} is not in corpus {handle}, {as_cited}.", f.video),
        Err(e) => format!("note: corpus {handle} could not be read ({e}), {as_cited}."),
    };
    Target {
        editor_id: f.video.clone(),
        webpage_url: None,
        note: Some(note),
    }
}

/// How a call ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// 200: the file was already on disk.
    Cached(Value),
    /// The job finished with a file (the poll's body).
    Fetched {
        job: String,
        waited: f64,
        body: Value,
    },
    /// The job finished but named no file.
    NoFile { job: String },
    /// Still queued or running when the wait ran out.
    Queued {
        job: String,
        status: String,
        waited: f64,
    },
    /// 409: the platform is cooling down.
    Cooldown {
        platform: String,
        seconds: u64,
        error: String,
    },
    /// Any other refusal of the POST.
    Refused(Reply),
    /// The job ended `failed` or `cancelled`.
    Ended {
        job: String,
        status: String,
        log: String,
    },
    /// A poll got an HTTP error.
    PollFailed { job: String, reply: Reply },
    /// The editor could not be reached (the text says where).
    Unreachable { job: Option<String>, text: String },
}

/// Sends the fetch (unless resuming) and polls until the job ends or
/// `wait` passes.
pub fn run(
    editor: &Editor,
    ask: &Ask,
    target: Option<&Target>,
    wait: Duration,
    progress: Progress,
) -> Outcome {
    let job = match ask {
        Ask::Resume(job) => job.clone(),
        Ask::New(f) => {
            let body = post_body(f, target);
            let reply = match editor.post(&["api", "media", "fetch-window"], &body) {
                Ok(r) => r,
                Err(text) => return Outcome::Unreachable { job: None, text },
            };
            match (reply.status, reply.body["jobId"].as_str()) {
                (200, _) => return Outcome::Cached(reply.body),
                (202, Some(job)) => job.to_string(),
                (409, _) => return cooldown(&reply),
                _ => return Outcome::Refused(reply),
            }
        }
    };
    poll(editor, &job, wait, progress)
}

/// The POST body: a window, or `full: true` instead of any span.
pub fn post_body(f: &NewFetch, target: Option<&Target>) -> Value {
    let mut body = json!({
        "channelSlug": f.channel,
        "videoId": target.map_or(&f.video, |t| &t.editor_id),
        "requestedBy": "mcp",
        "reason": f.reason,
    });
    match &f.span {
        Span::Full => body["full"] = json!(true),
        Span::Window(w) => {
            body["from"] = json!(w.from);
            body["to"] = json!(w.to);
            body["pad"] = json!(w.pad);
            if let Some(url) = target.and_then(|t| t.webpage_url.as_ref()) {
                body["webpageUrl"] = json!(url);
            }
        }
    }
    if let Some(report) = &f.report {
        body["manifest"] = json!(report);
    }
    if let Some(h) = f.max_height {
        body["maxHeight"] = json!(h);
    }
    body
}

fn cooldown(reply: &Reply) -> Outcome {
    let ms = reply.body["cooldownMs"].as_f64().unwrap_or(0.0).max(0.0);
    Outcome::Cooldown {
        platform: reply.body["platform"]
            .as_str()
            .unwrap_or("platform")
            .to_string(),
        seconds: (ms / 1000.0).ceil() as u64,
        error: reply.error(),
    }
}

fn poll(editor: &Editor, job: &str, wait: Duration, progress: Progress) -> Outcome {
    let start = editor.clock.now();
    let mut n = 0;
    loop {
        n += 1;
        let reply = match editor.get(&["api", "media", "fetch-window", job], &[]) {
            Ok(r) if r.ok() => r,
            Ok(reply) => {
                return Outcome::PollFailed {
                    job: job.into(),
                    reply,
                }
            }
            Err(text) => {
                return Outcome::Unreachable {
                    job: Some(job.into()),
                    text,
                }
            }
        };
        let waited = editor.clock.now().saturating_sub(start);
        let status = reply.body["status"]
            .as_str()
            .unwrap_or("running")
            .to_string();
        progress(Tick {
            done: n as f64,
            total: None,
            message: format!(
                "editor job {job}: {status} ({}s of {}s waited)",
                waited.as_secs(),
                wait.as_secs()
            ),
        });
        let waited_s = waited.as_secs_f64();
        match status.as_str() {
            "done" if reply.body["file"].is_string() => {
                return Outcome::Fetched {
                    job: job.into(),
                    waited: waited_s,
                    body: reply.body,
                }
            }
            "done" => return Outcome::NoFile { job: job.into() },
            "failed" | "cancelled" => {
                return Outcome::Ended {
                    job: job.into(),
                    status,
                    log: reply.error(),
                }
            }
            _ if waited >= wait => {
                return Outcome::Queued {
                    job: job.into(),
                    status,
                    waited: waited_s,
                }
            }
            _ => editor.clock.sleep(POLL_EVERY.min(wait - waited)),
        }
    }
}

/// What the answer says about the file, in the order an agent reads it.
fn footer(body: &Value, full: bool, asked_height: Option<u64>) -> String {
    let mut lines = vec![format!("file: {}", body["file"].as_str().unwrap_or("?"))];
    let (from, to) = (body["from"].as_f64(), body["to"].as_f64());
    if let (false, Some(from), Some(to)) = (full, from, to) {
        lines.push(format!(
            "window: {}–{} ({}s)",
            secs(from),
            secs(to),
            secs(to - from)
        ));
    }
    if let Some(h) = body["height"].as_u64() {
        let taller = asked_height.filter(|a| h > *a).map_or(String::new(), |a| {
            format!(" (taller than the {a}p asked: a file already on disk is returned as it is, never fetched again for another cap)")
        });
        lines.push(format!("height: {h}p{taller}"));
    }
    if let Some(b) = body["bytes"].as_u64() {
        lines.push(format!("bytes: {b}"));
    }
    lines.push(if full {
        "This file is a read-only corpus artifact: play or copy it, never move, edit or delete it. It lives in the editor's saved-video store, not in clips/, and the editor's keep-videos rule decides how long it stays.".to_string()
    } else {
        format!("This file is a read-only corpus artifact: play or copy it, never move, edit or delete it. The editor prunes clips by age (evict-clips); the provenance sits beside it as {}-{}.json.", from.map_or("?".into(), |f| format!("{f:.2}")), to.map_or("?".into(), |t| format!("{t:.2}")))
    });
    lines.join("\n")
}

/// The video as the texts name it.
fn name(ask: &Ask, target: Option<&Target>) -> String {
    match (ask, target) {
        (Ask::New(f), Some(t)) => format!("{}/{}", f.channel, t.editor_id),
        (Ask::New(f), None) => format!("{}/{}", f.channel, f.video),
        (Ask::Resume(_), _) => "the video".to_string(),
    }
}

/// The text of an outcome, whether it is an error, and its facts.
pub fn render(outcome: &Outcome, ask: &Ask, target: Option<&Target>) -> (String, bool, Value) {
    let full = matches!(
        ask,
        Ask::New(NewFetch {
            span: Span::Full,
            ..
        })
    );
    let asked = match ask {
        Ask::New(f) if f.span == Span::Full => f.max_height,
        Ask::New(f) => Some(f.max_height.unwrap_or(DEFAULT_HEIGHT)),
        Ask::Resume(_) => None,
    };
    let who = name(ask, target);
    match outcome {
        Outcome::Cached(body) => (cached_text(body, ask, &who, full, asked), false, facts("cached", body)),
        Outcome::Fetched { job, waited, body } => {
            let full = full || body["from"].is_null();
            let what = if full {
                format!("the whole recording of {who}")
            } else {
                format!("{}–{} of {who}", secs(body["from"].as_f64().unwrap_or(0.0)), secs(body["to"].as_f64().unwrap_or(0.0)))
            };
            let text = format!("Fetched {what} (job {job}, {}s waited).\n{}", waited.round(), footer(body, full, asked));
            (text, false, facts("fetched", body))
        }
        Outcome::NoFile { job } => (
            format!("Editor job {job} finished but named no file; look at the video's page in the editor."),
            true,
            json!({"outcome": "failed", "jobId": job}),
        ),
        Outcome::Queued { job, status, waited } => (
            format!("Still {status} on the editor (job {job}, waited {}s). To keep waiting, call fetch_clip again with job: \"{job}\". Do not repeat the original request while it runs: that would queue a second fetch. Nothing is lost: the fetch goes on on the editor, and once it has finished the same request finds the file cached.", waited.round()),
            false,
            json!({"outcome": "queued", "jobId": job, "status": status}),
        ),
        Outcome::Cooldown { platform, seconds, error } => (
            format!("The editor is in a {platform} rate-limit cooldown with {seconds}s to go. Wait that long, then call fetch_clip again. ({error})"),
            true,
            json!({"outcome": "cooldown", "platform": platform, "cooldownSeconds": seconds}),
        ),
        Outcome::Refused(reply) => (refused_text(reply, full), true, json!({"outcome": "refused", "status": reply.status})),
        Outcome::Ended { job, status, log } => (
            format!("Editor job {job} {status}.\n\nlog tail:\n{log}"),
            true,
            json!({"outcome": "failed", "jobId": job, "status": status}),
        ),
        Outcome::PollFailed { job, reply } => {
            let mut text = format!("Polling editor job {job} failed (HTTP {}): {}", reply.status, reply.error());
            if reply.status == 404 {
                text.push_str(". The editor does not know this job: was it restarted, or does ARCHILYZER_EDITOR_URL name another editor?");
            }
            (text, true, json!({"outcome": "failed", "jobId": job, "status": reply.status}))
        }
        Outcome::Unreachable { job, text } => {
            let mut text = text.clone();
            if let Some(job) = job {
                text.push_str(&format!(" The fetch may still be running there: once the editor answers again, call fetch_clip with job: \"{job}\"."));
            }
            (text, true, json!({"outcome": "unreachable", "jobId": job}))
        }
    }
}

fn cached_text(body: &Value, ask: &Ask, who: &str, full: bool, asked: Option<u64>) -> String {
    let mut head =
        if full {
            format!("Already on disk: the whole recording of {who}.")
        } else {
            let (bf, bt) = (
                body["from"].as_f64().unwrap_or(0.0),
                body["to"].as_f64().unwrap_or(0.0),
            );
            match ask {
                Ask::New(NewFetch {
                    span: Span::Window(w),
                    ..
                }) if (bf - w.from).abs() > 0.02 || (bt - w.to).abs() > 0.02 => format!(
                "Already on disk: a wider cached window, {}–{}, that contains the {}–{} asked for.",
                secs(bf), secs(bt), secs(w.from), secs(w.to)
            ),
                _ => "Already on disk: the exact window asked for.".to_string(),
            }
        };
    if let Some(by) = body["provenance"]["requestedBy"].as_str() {
        head.push_str(&format!(" (requested by {by})"));
    }
    format!("{head}\n{}", footer(body, full, asked))
}

fn refused_text(reply: &Reply, full: bool) -> String {
    let mut text = reply.refusal();
    if reply.status == 404 && reply.error().starts_with("Channel") {
        text.push_str(". The editor fetches only for channels it archives: add the channel on the editor first.");
    } else if reply.status == 404 && full {
        text.push_str(". A whole-recording fetch needs a video the editor already knows (its metadata.info.json or a playlist entry): fetch a window instead, or add the video to the channel first.");
    }
    text
}

fn facts(outcome: &str, body: &Value) -> Value {
    let mut f = json!({"outcome": outcome});
    for k in ["file", "from", "to", "bytes", "height", "jobId"] {
        if !body[k].is_null() {
            f[k] = body[k].clone();
        }
    }
    f
}

/// The `fetch_clip` tool.
pub fn fetch_clip(
    ctx: &Context,
    handle: &SourceHandle,
    args: &Map<String, Value>,
    progress: Progress,
) -> ToolResult {
    let editor = ctx.editor.ready("fetch_clip").map_err(|e| match ctx.editor {
        EditorSetup::Missing => format!("{e} Without an editor nothing can be fetched through Archilyzer; the README's \"Editor-backed tools\" section gives the operator's fallback for a machine with none."),
        _ => e,
    })?;
    let (ask, wait) = parse_args(args)?;
    let target = match &ask {
        Ask::New(f) => Some(locate(ctx, handle, f)),
        Ask::Resume(_) => None,
    };
    let outcome = run(editor, &ask, target.as_ref(), wait, progress);
    let (mut text, is_error, mut facts) = render(&outcome, &ask, target.as_ref());
    if let Some(t) = &target {
        facts["videoId"] = json!(t.editor_id);
        if let Some(note) = &t.note {
            text = format!("{note}\n\n{text}");
        }
    }
    if is_error {
        Err(Failure {
            message: text,
            facts,
        })
    } else {
        Ok((text, facts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_seconds_or_clock_strings_and_nothing_else() {
        let p = |v: Value| parse_seconds(&v);
        assert_eq!(p(json!("1:02:03")), Some(3723.0));
        assert_eq!(p(json!("02:03")), Some(123.0));
        assert_eq!(p(json!("90:00")), Some(5400.0));
        assert_eq!(p(json!("83.5")), Some(83.5));
        assert_eq!(p(json!("1:02.25")), Some(62.25));
        assert_eq!(p(json!(12)), Some(12.0));
        assert_eq!(p(json!(0.5)), Some(0.5));
        for bad in [
            json!("1:75"),
            json!("1:60:00"),
            json!("-3"),
            json!(-3),
            json!(""),
            json!("1::2"),
            json!("1:2:3:4"),
            json!("12s"),
            json!("1e3"),
            json!(format!("{}:00", "9".repeat(400))),
            json!(" : "),
            json!(true),
            Value::Null,
        ] {
            assert_eq!(p(bad.clone()), None, "{bad}");
        }
    }

    #[test]
    fn a_window_is_padded_rounded_clamped_and_capped_after_padding() {
        let w = plan_window(10.004, 20.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (7.0, 23.0));
        let w = plan_window(1.0, 2.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (0.0, 5.0));
        let w = plan_window(10.0, 904.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (7.0, 907.0));
        assert_eq!(
            plan_window(10.0, 905.0, 3.0).unwrap_err(),
            "fetch_clip: the window 7–908 (padding included) is 901s long, and the editor fetches at most 900s per window: cite a narrower span"
        );
        assert_eq!(
            plan_window(20.0, 20.0, 3.0).unwrap_err(),
            "fetch_clip: start (20) must be before end (20)"
        );
        assert!(plan_window(1e-300, 2e-300, 0.0)
            .unwrap_err()
            .contains("is empty once rounded"));
        assert!(plan_window(f64::NAN, 2.0, 0.0)
            .unwrap_err()
            .contains("must be seconds, 0 or more"));
        assert_eq!(secs(7.5), "7.5");
        assert_eq!(secs(7.0), "7");
        assert_eq!(secs(7.456), "7.46");
    }

    #[test]
    fn ids_are_data_even_with_a_leading_dash() {
        assert!(valid_id("-n0qW7LHJRY"));
        assert!(valid_id("v1007ay"));
        for bad in ["", ".", "..", "a/b", "a b", "é", "--exec=x;"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}
