//! Talking to the editor for a clip: where the video is, the POST body,
//! and polling the job once a second until it ends or the wait is over.

use std::time::Duration;

use serde_json::{json, Value};

use super::args::{Ask, NewFetch, Span};
use super::POLL_EVERY;
use crate::editor::video_id::editor_id;
use crate::editor::{Editor, Reply};
use crate::sources::Sources;
use crate::tool::{Progress, Tick};
use archilyzer_core::source::SourceHandle;

/// The video as the editor knows it.
#[derive(Debug, Clone)]
pub struct Target {
    pub editor_id: String,
    pub webpage_url: Option<String>,
    /// Said before the result when the id could not be checked.
    pub note: Option<String>,
}

/// Looks `video` up in the corpus for its watch URL and editor id.
pub(super) fn locate(sources: &Sources, handle: &SourceHandle, f: &NewFetch) -> Target {
    let hints = [f.channel.clone()];
    let record = sources.archive(handle).and_then(|a| {
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

pub(super) fn cooldown(reply: &Reply) -> Outcome {
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

pub(super) fn poll(editor: &Editor, job: &str, wait: Duration, progress: Progress) -> Outcome {
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
