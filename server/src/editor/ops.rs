//! `get_job` and `enqueue`: an editor job's state, and queueing archival
//! work the way the editor's channel page does.
//!
//! `enqueue` checks each kind's arguments before anything is sent (an
//! argument a kind does not take is named, never ignored) and sends ids
//! and URLs as JSON data, so an id that begins with `-` is just an id.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::clip::valid_id;
use super::{EditorSetup, Reply};
use crate::tool::ToolResult;

/// `get_job`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct JobArgs {
    /// The job id.
    pub job: String,
    /// Log lines to show (default 40).
    #[schemars(range(max = 2000))]
    #[serde(default = "default_tail")]
    pub tail: usize,
}

fn default_tail() -> usize {
    DEFAULT_TAIL
}

/// `enqueue`'s arguments; which of the optional ones a kind takes is
/// [`KINDS`]'.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct EnqueueArgs {
    /// The channel slug on the editor.
    pub channel: String,
    /// The operation.
    #[schemars(extend("enum" = KINDS.iter().map(|k| k.0).collect::<Vec<_>>()))]
    pub kind: String,
    /// sync, fetch-posts: everything, not only what is new.
    #[serde(default)]
    pub full: Option<bool>,
    /// fetch-posts: go further back than the oldest post held.
    #[serde(default)]
    pub older: Option<bool>,
    /// retry-bucket: which bucket of videos to retry.
    #[serde(default)]
    pub bucket: Option<String>,
    /// retry-bucket, transcribe-bucket: the video ids.
    #[serde(default)]
    pub ids: Option<Vec<String>>,
    /// import-video: the video's http(s) URL.
    #[serde(default)]
    pub url: Option<String>,
}

impl EnqueueArgs {
    /// Whether the call gives the kind-specific argument `name` (one of
    /// [`KIND_ARGS`]).
    fn gives(&self, name: &str) -> bool {
        match name {
            "full" => self.full.is_some(),
            "older" => self.older.is_some(),
            "bucket" => self.bucket.is_some(),
            "ids" => self.ids.is_some(),
            "url" => self.url.is_some(),
            _ => false,
        }
    }
}

/// Log lines `get_job` shows by default.
pub const DEFAULT_TAIL: usize = 40;

/// Each kind `enqueue` takes, with the arguments it needs and allows.
pub const KINDS: &[(&str, &[&str], &[&str])] = &[
    ("sync", &[], &["full"]),
    ("download-missing", &[], &[]),
    ("retry-bucket", &["bucket"], &["ids"]),
    ("transcribe-bucket", &["ids"], &[]),
    ("fetch-posts", &[], &["full", "older"]),
    ("import-video", &["url"], &[]),
];

/// The arguments only some kinds take.
const KIND_ARGS: &[&str] = &["full", "older", "bucket", "ids", "url"];

fn not_found(reply: &Reply, what: &str) -> String {
    if reply.status == 404 && reply.error().starts_with("Channel") {
        format!(
            "{}. The editor works only on channels it archives: check the slug, or add the channel on the editor first.",
            reply.refusal()
        )
    } else if reply.status == 404 {
        format!("{}. {what}", reply.refusal())
    } else {
        reply.refusal()
    }
}

/// An editor job, as `GET /api/ops/job/<id>` answers it
/// (docs/editor-contract.md): `get_job`'s structured content.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// Its id.
    pub job_id: String,
    /// The operation.
    #[serde(default)]
    pub kind: String,
    /// The channel it works on.
    #[serde(default)]
    pub channel: String,
    /// queued, running, done, failed or cancelled.
    pub status: String,
    /// When it was queued.
    #[serde(default)]
    pub created_at: String,
    /// When it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Its exit code, once ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Its queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<Queue>,
    /// The last lines of its log.
    #[serde(default)]
    pub log: Vec<String>,
    /// Lines in its whole log.
    #[serde(default)]
    pub log_lines: u64,
}

/// A job's queue.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Queue {
    /// Its name.
    pub name: String,
    /// Jobs ahead, while the job waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
}

/// A job `POST /api/ops/<kind>` queued: `enqueue`'s structured content.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Queued {
    /// Its id: follow it with `get_job`.
    pub job_id: String,
    /// The operation.
    #[serde(default)]
    pub kind: String,
    /// The channel.
    #[serde(default)]
    pub channel: String,
    /// Its queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// Jobs ahead of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
}

/// The `get_job` tool.
pub fn get_job(setup: &EditorSetup, args: &JobArgs) -> ToolResult {
    let editor = setup.ready("get_job")?;
    let job = args.job.trim();
    if job.is_empty() {
        return Err(
            "get_job: job is required (the id enqueue or fetch_clip answered)"
                .to_string()
                .into(),
        );
    }
    let tail = args.tail;
    let reply = editor.get(&["api", "ops", "job", job], &[("tail", tail.to_string())])?;
    if !reply.ok() {
        let hint = "The editor does not know this job: was it restarted, or does ARCHILYZER_EDITOR_URL name another editor?";
        return Err(not_found(&reply, hint).into());
    }
    let job: Job = reply.parse("get_job", "editor-contract.md")?;
    Ok((job_text(&job, tail), crate::output::content(&job)))
}

fn job_text(job: &Job, tail: usize) -> String {
    let known = |v: &str| {
        if v.is_empty() {
            "?".to_string()
        } else {
            v.to_string()
        }
    };
    let when = |v: &Option<String>| v.clone().unwrap_or_else(|| "not yet".to_string());
    let mut out = format!(
        "# Job {}: {} on {}, {}\n- created {} · started {} · finished {}\n",
        known(&job.job_id),
        known(&job.kind),
        known(&job.channel),
        known(&job.status),
        known(&job.created_at),
        when(&job.started_at),
        when(&job.finished_at)
    );
    if let Some(code) = job.exit_code {
        out.push_str(&format!("- exit code: {code}\n"));
    }
    if let Some(queue) = &job.queue {
        match queue.position {
            Some(p) => out.push_str(&format!(
                "- waiting in the {} queue, {p} job(s) ahead of it\n",
                queue.name
            )),
            None => out.push_str(&format!("- queue: {}\n", queue.name)),
        }
    }
    // An editor that does not count its log's lines has shown them all.
    let total = job.log_lines.max(job.log.len() as u64);
    if tail > 0 {
        out.push_str(&format!(
            "\nlast {} of {total} log line(s):\n```\n{}\n```\n",
            job.log.len(),
            job.log.join("\n")
        ));
    }
    out
}

/// Checks `enqueue`'s arguments against its kind; the body to POST.
pub fn enqueue_body(args: &EnqueueArgs) -> Result<(String, Value), String> {
    let kind = args.kind.as_str();
    let Some((_, needs, allows)) = KINDS.iter().find(|k| k.0 == kind) else {
        let names: Vec<&str> = KINDS.iter().map(|k| k.0).collect();
        return Err(format!(
            "enqueue: kind {kind:?} is not one of {}",
            names.join(", ")
        ));
    };
    let channel = args.channel.trim();
    if channel.is_empty() {
        return Err(
            "enqueue: channel is required (the slug of a channel the editor archives)".into(),
        );
    }
    let takes = |a: &str| needs.contains(&a) || allows.contains(&a);
    if let Some(a) = KIND_ARGS.iter().find(|a| args.gives(a) && !takes(a)) {
        let accepted: Vec<&str> = needs.iter().chain(allows.iter()).copied().collect();
        let accepted = if accepted.is_empty() {
            "nothing else".to_string()
        } else {
            accepted.join(", ")
        };
        return Err(format!(
            "enqueue: `{a}` does not apply to kind {kind}, which takes {accepted}"
        ));
    }
    if let Some(a) = needs.iter().find(|a| !args.gives(a)) {
        return Err(format!("enqueue: kind {kind} needs `{a}`"));
    }
    let mut body = json!({"channel": channel, "requestedBy": "mcp"});
    for (flag, given) in [("full", args.full), ("older", args.older)] {
        if let Some(on) = given {
            body[flag] = json!(on);
        }
    }
    if let Some(bucket) = &args.bucket {
        body["bucket"] = json!(bucket);
    }
    if let Some(ids) = &args.ids {
        if let Some(bad) = ids.iter().find(|id| !valid_id(id)) {
            return Err(format!(
                "enqueue: {bad:?} is not a video id: ids are letters, digits, `_`, `.` or `-`"
            ));
        }
        if ids.is_empty() {
            return Err("enqueue: ids is empty: name at least one video".into());
        }
        body["ids"] = json!(ids);
    }
    if let Some(url) = &args.url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "enqueue: url {url:?} must be an http:// or https:// address"
            ));
        }
        body["url"] = json!(url);
    }
    Ok((kind.to_string(), body))
}

/// The `enqueue` tool.
pub fn enqueue(setup: &EditorSetup, args: &EnqueueArgs) -> ToolResult {
    let editor = setup.ready("enqueue")?;
    let (kind, body) = enqueue_body(args)?;
    let reply = editor.post(&["api", "ops", &kind], &body)?;
    if !reply.ok() {
        return Err(not_found(
            &reply,
            "This editor has no such operation: is it an older version?",
        )
        .into());
    }
    let queued: Queued = reply.parse("enqueue", "editor-contract.md")?;
    let job = &queued.job_id;
    let place = match (&queued.queue, queued.position) {
        (Some(q), Some(p)) => format!(", {p} job(s) ahead of it in the {q} queue"),
        (Some(q), None) => format!(" in the {q} queue"),
        _ => String::new(),
    };
    let text = format!(
        "Queued {kind} on {}: job {job}{place}. The editor runs it at the platform's own pace; follow it with get_job job: \"{job}\".",
        args.channel.trim()
    );
    Ok((text, crate::output::content(&queued)))
}
