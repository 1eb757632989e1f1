//! Talking to the editor for a clip: where the video is, the POST body,
//! and polling the job once a second until it ends or the wait is over.

use std::time::Duration;

use serde_json::Value;

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

/// What the editor says of a clip file: the 200 answer to a fetch of a
/// file already on disk, or a finished job's poll
/// (`docs/editor-contract.md`). Every field may be absent.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipFile {
    /// The media file on the editor's disk.
    #[serde(default)]
    pub file: Option<String>,
    /// The file's span start, seconds (absent for a whole recording).
    #[serde(default)]
    pub from: Option<f64>,
    /// The file's span end, seconds.
    #[serde(default)]
    pub to: Option<f64>,
    /// Its height, pixels.
    #[serde(default)]
    pub height: Option<u64>,
    /// Its size.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// The job that made it.
    #[serde(default)]
    pub job_id: Option<String>,
    /// Who asked for it first.
    #[serde(default)]
    pub provenance: Provenance,
}

/// Who asked for a clip file first.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// `mcp`, an operator…
    #[serde(default)]
    pub requested_by: Option<String>,
}

/// A poll of a job: its status, and its file once done.
#[derive(Debug, Default, serde::Deserialize)]
struct JobPoll {
    #[serde(default)]
    status: Option<String>,
    #[serde(flatten)]
    file: ClipFile,
}

/// The 202 answer to a fetch: the job to poll.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Accepted {
    #[serde(default)]
    job_id: Option<String>,
}

/// The 409 answer to a fetch: the platform cooling down, and for how long.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cooling {
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    cooldown_ms: Option<f64>,
}

/// `reply`'s body read as `T`; a body of another shape reads as `T`'s
/// default (every field absent), as a reply that says nothing would.
fn read<T: serde::de::DeserializeOwned + Default>(reply: &Reply) -> T {
    serde_json::from_value(reply.body.clone()).unwrap_or_default()
}

/// How a call ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// 200: the file was already on disk.
    Cached(ClipFile),
    /// The job finished with a file.
    Fetched {
        job: String,
        waited: f64,
        body: ClipFile,
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
            match (reply.status, read::<Accepted>(&reply).job_id) {
                (200, _) => return Outcome::Cached(read(&reply)),
                (202, Some(job)) => job,
                (409, _) => return cooldown(&reply),
                _ => return Outcome::Refused(reply),
            }
        }
    };
    poll(editor, &job, wait, progress)
}

/// The POST body (`docs/editor-contract.md`): a window, or `full: true`
/// instead of any span.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FetchRequest<'a> {
    channel_slug: &'a str,
    video_id: &'a str,
    requested_by: &'static str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    full: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pad: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    webpage_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    manifest: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_height: Option<u64>,
}

/// The POST body of `f`, for the video `target` names.
pub fn post_body(f: &NewFetch, target: Option<&Target>) -> Value {
    let window = match &f.span {
        Span::Full => None,
        Span::Window(w) => Some(w),
    };
    let request = FetchRequest {
        channel_slug: &f.channel,
        video_id: target.map_or(&f.video, |t| &t.editor_id),
        requested_by: "mcp",
        reason: &f.reason,
        full: window.is_none().then_some(true),
        from: window.map(|w| w.from),
        to: window.map(|w| w.to),
        pad: window.map(|w| w.pad),
        webpage_url: window.and(target.and_then(|t| t.webpage_url.as_deref())),
        manifest: f.report.as_deref(),
        max_height: f.max_height,
    };
    serde_json::to_value(request).unwrap_or_default()
}

pub(super) fn cooldown(reply: &Reply) -> Outcome {
    let cooling: Cooling = read(reply);
    let ms = cooling.cooldown_ms.unwrap_or(0.0).max(0.0);
    Outcome::Cooldown {
        platform: cooling.platform.unwrap_or_else(|| "platform".to_string()),
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
        let poll: JobPoll = read(&reply);
        let status = poll.status.unwrap_or_else(|| "running".to_string());
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
            "done" if poll.file.file.is_some() => {
                return Outcome::Fetched {
                    job: job.into(),
                    waited: waited_s,
                    body: poll.file,
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
