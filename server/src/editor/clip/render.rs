//! What `fetch_clip` answers for each outcome: the text, whether it is an
//! error, and the structured facts.

use serde_json::Value;

use super::args::{Ask, NewFetch, Span};
use super::request::{ClipFile, Outcome, Target};
use super::DEFAULT_HEIGHT;
use crate::editor::Reply;
use archilyzer_core::clip::secs;

/// What the answer says about the file, in the order an agent reads it.
pub(super) fn footer(body: &ClipFile, full: bool, asked_height: Option<u64>) -> String {
    let mut lines = vec![format!("file: {}", body.file.as_deref().unwrap_or("?"))];
    let (from, to) = (body.from, body.to);
    if let (false, Some(from), Some(to)) = (full, from, to) {
        lines.push(format!(
            "window: {}–{} ({}s)",
            secs(from),
            secs(to),
            secs(to - from)
        ));
    }
    if let Some(h) = body.height {
        let taller = asked_height.filter(|a| h > *a).map_or(String::new(), |a| {
            format!(" (taller than the {a}p asked: a file already on disk is returned as it is, never fetched again for another cap)")
        });
        lines.push(format!("height: {h}p{taller}"));
    }
    if let Some(b) = body.bytes {
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
            let full = full || body.from.is_none();
            let what = if full {
                format!("the whole recording of {who}")
            } else {
                format!("{}–{} of {who}", secs(body.from.unwrap_or(0.0)), secs(body.to.unwrap_or(0.0)))
            };
            let text = format!("Fetched {what} (job {job}, {}s waited).\n{}", waited.round(), footer(body, full, asked));
            (text, false, facts("fetched", body))
        }
        Outcome::NoFile { job } => (
            format!("Editor job {job} finished but named no file; look at the video's page in the editor."),
            true,
            ClipFacts::job("failed", job, None).into(),
        ),
        Outcome::Queued { job, status, waited } => (
            format!("Still {status} on the editor (job {job}, waited {}s). To keep waiting, call fetch_clip again with job: \"{job}\". Do not repeat the original request while it runs: that would queue a second fetch. Nothing is lost: the fetch goes on on the editor, and once it has finished the same request finds the file cached.", waited.round()),
            false,
            ClipFacts::job("queued", job, Some(status.to_string())).into(),
        ),
        Outcome::Cooldown { platform, seconds, error } => (
            format!("The editor is in a {platform} rate-limit cooldown with {seconds}s to go. Wait that long, then call fetch_clip again. ({error})"),
            true,
            ClipFacts {
                platform: Some(platform.to_string()),
                cooldown_seconds: Some(*seconds),
                ..ClipFacts::of("cooldown")
            }
            .into(),
        ),
        Outcome::Refused(reply) => (
            refused_text(reply, full),
            true,
            ClipFacts { http_status: Some(reply.status), ..ClipFacts::of("refused") }.into(),
        ),
        Outcome::Ended { job, status, log } => (
            format!("Editor job {job} {status}.\n\nlog tail:\n{log}"),
            true,
            ClipFacts::job("failed", job, Some(status.to_string())).into(),
        ),
        Outcome::PollFailed { job, reply } => {
            let mut text = format!("Polling editor job {job} failed (HTTP {}): {}", reply.status, reply.error());
            if reply.status == 404 {
                text.push_str(". The editor does not know this job: was it restarted, or does ARCHILYZER_EDITOR_URL name another editor?");
            }
            let facts = ClipFacts {
                http_status: Some(reply.status),
                ..ClipFacts::job("failed", job, None)
            };
            (text, true, facts.into())
        }
        Outcome::Unreachable { job, text } => {
            let mut text = text.clone();
            if let Some(job) = job {
                text.push_str(&format!(" The fetch may still be running there: once the editor answers again, call fetch_clip with job: \"{job}\"."));
            }
            let facts = ClipFacts {
                job_id: job.clone(),
                ..ClipFacts::of("unreachable")
            };
            (text, true, facts.into())
        }
    }
}

pub(super) fn cached_text(
    body: &ClipFile,
    ask: &Ask,
    who: &str,
    full: bool,
    asked: Option<u64>,
) -> String {
    let mut head =
        if full {
            format!("Already on disk: the whole recording of {who}.")
        } else {
            let (bf, bt) = (body.from.unwrap_or(0.0), body.to.unwrap_or(0.0));
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
    if let Some(by) = &body.provenance.requested_by {
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

pub(super) fn facts(outcome: &str, body: &ClipFile) -> Value {
    ClipFacts {
        file: body.file.clone(),
        from: body.from,
        to: body.to,
        bytes: body.bytes,
        height: body.height,
        job_id: body.job_id.clone(),
        ..ClipFacts::of(outcome)
    }
    .into()
}

/// `fetch_clip`'s structured content: what became of the fetch.
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClipFacts {
    /// cached, fetched, queued, cooldown, refused, failed or unreachable.
    pub outcome: String,
    /// The media file on the editor's disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The file's span start, seconds (absent for a whole recording).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<f64>,
    /// The file's span end, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<f64>,
    /// Its size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Its height, pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u64>,
    /// The editor's job: pass it back as `job` to keep waiting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// The job's state (queued, running, failed, cancelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The editor's HTTP status, when it refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The platform in a rate-limit cooldown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// Seconds left of the cooldown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown_seconds: Option<u64>,
    /// The editor's id of the video (for Rumble, not the archive's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video_id: Option<String>,
}

impl ClipFacts {
    fn of(outcome: &str) -> ClipFacts {
        ClipFacts {
            outcome: outcome.to_string(),
            ..ClipFacts::default()
        }
    }

    fn job(outcome: &str, job: &str, status: Option<String>) -> ClipFacts {
        ClipFacts {
            job_id: Some(job.to_string()),
            status,
            ..ClipFacts::of(outcome)
        }
    }
}

impl From<ClipFacts> for Value {
    fn from(f: ClipFacts) -> Value {
        serde_json::to_value(f).unwrap_or_default()
    }
}
