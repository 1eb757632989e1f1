//! What `fetch_clip` answers for each outcome: the text, whether it is an
//! error, and the structured facts.

use serde_json::{json, Value};

use super::args::{Ask, NewFetch, Span};
use super::request::{Outcome, Target};
use super::window::secs;
use super::DEFAULT_HEIGHT;
use crate::editor::Reply;

/// What the answer says about the file, in the order an agent reads it.
pub(super) fn footer(body: &Value, full: bool, asked_height: Option<u64>) -> String {
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
pub(super) fn name(ask: &Ask, target: Option<&Target>) -> String {
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

pub(super) fn cached_text(
    body: &Value,
    ask: &Ask,
    who: &str,
    full: bool,
    asked: Option<u64>,
) -> String {
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

pub(super) fn refused_text(reply: &Reply, full: bool) -> String {
    let mut text = reply.refusal();
    if reply.status == 404 && reply.error().starts_with("Channel") {
        text.push_str(". The editor fetches only for channels it archives: add the channel on the editor first.");
    } else if reply.status == 404 && full {
        text.push_str(". A whole-recording fetch needs a video the editor already knows (its metadata.info.json or a playlist entry): fetch a window instead, or add the video to the channel first.");
    }
    text
}

pub(super) fn facts(outcome: &str, body: &Value) -> Value {
    let mut f = json!({"outcome": outcome});
    for k in ["file", "from", "to", "bytes", "height", "jobId"] {
        if !body[k].is_null() {
            f[k] = body[k].clone();
        }
    }
    f
}
