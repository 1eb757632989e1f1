//! A fake Archilyzer editor: the worker API of docs/editor-contract.md on
//! 127.0.0.1, for the tests of the editor-backed tools.
//!
//! It keeps the contract's observable behaviour and nothing else: bearer
//! auth (401 for a wrong token, 503 "worker endpoint disabled" when it has
//! none), channels it archives (404 otherwise), cached clip windows (a
//! narrower request gets the wider file), fetch jobs that move through
//! `queued → running → <end>` one status per poll (so no test waits on a
//! clock), a platform cooldown (409), a full disk (507), ops jobs,
//! coverage and unpublished transcripts. Every request is recorded so a
//! test can assert bodies, headers, and that a resume sent no POST.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use archilyzer_testkit::{respond, Listener, Request};

/// Where the fake editor says its files are.
pub const ROOT: &str = "/srv/archilyzer/transcripts";

/// The most seconds one window may span.
pub const MAX_WINDOW: f64 = 900.0;

/// How the next fetch job ends.
#[derive(Debug, Clone)]
pub enum JobScript {
    /// `done` at poll `polls` (queued first, then running).
    Done { polls: u32 },
    /// `done`, but naming no file (a whole recording whose pointer is gone).
    DoneWithoutFile { polls: u32 },
    /// `failed` at poll `polls`, with this log.
    Failed { polls: u32, log: String },
    /// `cancelled` at poll `polls`.
    Cancelled { polls: u32 },
    /// Runs forever.
    Never,
}

/// A request as the editor saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub authorization: Option<String>,
    pub body: Option<Value>,
}

#[derive(Debug, Clone)]
struct Job {
    id: String,
    kind: String,
    channel: String,
    status: String,
    polls: u32,
    script: JobScript,
    /// The file and span a fetch job reports when done.
    result: Value,
    log: Vec<String>,
    queue: String,
    position: u32,
}

#[derive(Debug, Clone)]
struct Clip {
    video: String,
    from: f64,
    to: f64,
    full: bool,
    height: u32,
    requested_by: String,
}

#[derive(Default)]
struct State {
    token: Option<String>,
    channels: BTreeMap<String, String>,
    videos: BTreeMap<String, Vec<Value>>,
    recorded_basis: BTreeMap<String, bool>,
    transcripts: HashMap<(String, String), Value>,
    clips: BTreeMap<String, Vec<Clip>>,
    jobs: Vec<Job>,
    scripts: VecDeque<JobScript>,
    cooldown: Option<(String, u64)>,
    disk_full: bool,
    canned: VecDeque<(u16, String)>,
    log: Vec<Recorded>,
}

/// A running fake editor; stops when dropped.
pub struct FakeEditor {
    listener: Listener,
    state: Arc<Mutex<State>>,
}

impl FakeEditor {
    /// An editor whose worker token is `token` (`None`: it has none, so
    /// its worker endpoints answer 503).
    pub fn start(token: Option<&str>) -> FakeEditor {
        let state = Arc::new(Mutex::new(State {
            token: token.map(str::to_string),
            ..State::default()
        }));
        let st = state.clone();
        let listener = Listener::spawn(move |req, mut conn| {
            let (status, body) = route(&st, &req);
            let _ = reply(&mut conn, status, &body);
        });
        FakeEditor { listener, state }
    }

    /// The editor's origin, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.listener.url("").trim_end_matches('/').to_string()
    }

    /// A channel the editor archives, on `platform` (its queue name).
    pub fn add_channel(&self, slug: &str, platform: &str) {
        let mut s = self.state.lock().unwrap();
        s.channels.insert(slug.into(), platform.into());
        s.videos.entry(slug.into()).or_default();
    }

    /// A video on the editor's disk, dated `date` (YYYYMMDD) or undated.
    pub fn add_video(&self, channel: &str, id: &str, title: &str, date: Option<&str>) {
        let mut s = self.state.lock().unwrap();
        s.videos
            .entry(channel.into())
            .or_default()
            .push(json!({"id": id, "title": title, "date": date}));
    }

    /// Dates the channel's videos by their recorded date (a title rule).
    pub fn date_by_recording(&self, channel: &str) {
        let mut s = self.state.lock().unwrap();
        s.recorded_basis.insert(channel.into(), true);
    }

    /// A transcript on the editor's disk that the archive does not have.
    pub fn add_transcript(&self, channel: &str, video: &str, body: Value) {
        let mut s = self.state.lock().unwrap();
        s.transcripts.insert((channel.into(), video.into()), body);
    }

    /// A clip window already on disk, fetched at `height`.
    pub fn cache_window(&self, channel: &str, video: &str, from: f64, to: f64, height: u32) {
        self.add_clip(channel, video, from, to, false, height);
    }

    /// A whole recording already in the saved-video store.
    pub fn cache_full(&self, channel: &str, video: &str, height: u32) {
        self.add_clip(channel, video, 0.0, 0.0, true, height);
    }

    fn add_clip(&self, channel: &str, video: &str, from: f64, to: f64, full: bool, height: u32) {
        let clip = Clip {
            video: video.into(),
            from,
            to,
            full,
            height,
            requested_by: "operator".into(),
        };
        let mut s = self.state.lock().unwrap();
        s.clips.entry(channel.into()).or_default().push(clip);
    }

    /// How the next fetch job behaves (default: done at the third poll).
    pub fn next_job(&self, script: JobScript) {
        self.state.lock().unwrap().scripts.push_back(script);
    }

    /// Puts `platform` into a rate-limit cooldown of `ms` milliseconds.
    pub fn cooldown(&self, platform: &str, ms: u64) {
        self.state.lock().unwrap().cooldown = Some((platform.into(), ms));
    }

    /// Makes every fetch answer 507.
    pub fn fill_disk(&self) {
        self.state.lock().unwrap().disk_full = true;
    }

    /// Answers the next request (after auth) with this status and body;
    /// `{auth}` in the body becomes the request's Authorization header, as
    /// a careless server might echo it.
    pub fn answer_next(&self, status: u16, body: &str) {
        let mut s = self.state.lock().unwrap();
        s.canned.push_back((status, body.to_string()));
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().log.clone()
    }

    /// How many requests used `method`.
    pub fn count(&self, method: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }
}

fn reply(conn: &mut TcpStream, status: u16, body: &Value) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    respond(
        conn,
        status,
        &[("Content-Type", "application/json".into())],
        &bytes,
    )
}

fn error(status: u16, text: &str) -> (u16, Value) {
    (status, json!({"error": text}))
}

fn route(state: &Mutex<State>, req: &Request) -> (u16, Value) {
    let mut s = state.lock().unwrap();
    let auth = req.header("authorization").map(str::to_string);
    s.log.push(Recorded {
        method: req.method.clone(),
        path: req.path.clone(),
        query: req.query.clone(),
        authorization: auth.clone(),
        body: serde_json::from_slice(&req.body).ok(),
    });
    let Some(token) = s.token.clone() else {
        return error(503, "worker endpoint disabled");
    };
    if auth.as_deref() != Some(&format!("Bearer {token}")) {
        return error(401, "unauthorized: bad worker token");
    }
    if let Some((status, body)) = s.canned.pop_front() {
        let body = body.replace("{auth}", auth.as_deref().unwrap_or(""));
        return (
            status,
            serde_json::from_str(&body).unwrap_or(json!({"error": body})),
        );
    }
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let segments: Vec<&str> = req.path.split('/').collect();
    match (req.method.as_str(), segments.as_slice()) {
        ("POST", ["api", "media", "fetch-window"]) => s.fetch(&body),
        ("GET", ["api", "media", "fetch-window", id]) => s.poll(id),
        ("GET", ["api", "ops", "job", id]) => s.job(id, req.param("tail")),
        ("GET", ["api", "ops", "coverage"]) => s.coverage(req.param("channel").unwrap_or("")),
        ("GET", ["api", "ops", "transcript"]) => s.transcript(req),
        ("POST", ["api", "ops", kind]) => s.enqueue(kind, &body),
        _ => error(404, "no such route"),
    }
}

fn channel_missing(slug: &str) -> (u16, Value) {
    error(404, &format!("Channel \"{slug}\" not found"))
}

impl State {
    fn fetch(&mut self, body: &Value) -> (u16, Value) {
        let text = |k: &str| body[k].as_str().unwrap_or("").to_string();
        let (channel, video) = (text("channelSlug"), text("videoId"));
        if text("requestedBy").is_empty() {
            return error(400, "requestedBy is required");
        }
        let Some(platform) = self.channels.get(&channel).cloned() else {
            return channel_missing(&channel);
        };
        if let Some((p, ms)) = &self.cooldown {
            if *p == platform {
                let msg = format!("{platform} is cooling down after a 429");
                return (409, json!({"error": msg, "cooldownMs": ms, "platform": p}));
            }
        }
        if self.disk_full {
            return error(507, "not enough free disk space for the fetch");
        }
        let full = body["full"] == json!(true);
        let cap = body["maxHeight"].as_u64().map(|h| h as u32);
        let (from, to) = if full {
            if !self.knows(&channel, &video) {
                return error(404, &format!("Could not determine the video URL: no metadata or playlist entry for {video}"));
            }
            (0.0, 0.0)
        } else {
            let (Some(from), Some(to)) = (body["from"].as_f64(), body["to"].as_f64()) else {
                return error(400, "from and to are required");
            };
            if from >= to || to - from > MAX_WINDOW {
                return error(
                    400,
                    &format!("window must be 0 < to - from <= {MAX_WINDOW}"),
                );
            }
            (from, to)
        };
        if let Some(clip) = self.cached(&channel, &video, from, to, full) {
            return (200, clip_json(&channel, &clip, true));
        }
        let height = if full {
            if cap.unwrap_or(720) <= 720 {
                720
            } else {
                1080
            }
        } else {
            cap.unwrap_or(720).min(1080)
        };
        let clip = Clip {
            video: video.clone(),
            from,
            to,
            full,
            height,
            requested_by: text("requestedBy"),
        };
        let mut result = clip_json(&channel, &clip, false);
        let id = format!("job-{}", self.jobs.len() + 1);
        result["jobId"] = json!(id);
        let script = self
            .scripts
            .pop_front()
            .unwrap_or(JobScript::Done { polls: 3 });
        let kind = if full {
            "redownload-archive"
        } else {
            "fetch-window"
        };
        self.push_job(
            id.clone(),
            kind,
            &channel,
            &platform,
            script,
            result.clone(),
        );
        if full {
            result["file"] = Value::Null;
        }
        if let Some(m) = result.as_object_mut() {
            for k in ["bytes", "height", "provenance"] {
                m.remove(k);
            }
        }
        (202, result)
    }

    fn knows(&self, channel: &str, video: &str) -> bool {
        self.videos
            .get(channel)
            .is_some_and(|vs| vs.iter().any(|v| v["id"] == video))
    }

    fn cached(&self, channel: &str, video: &str, from: f64, to: f64, full: bool) -> Option<Clip> {
        self.clips
            .get(channel)?
            .iter()
            .find(|c| {
                c.video == video && c.full == full && (full || (c.from <= from && c.to >= to))
            })
            .cloned()
    }

    fn push_job(
        &mut self,
        id: String,
        kind: &str,
        channel: &str,
        queue: &str,
        script: JobScript,
        result: Value,
    ) {
        let position = self
            .jobs
            .iter()
            .filter(|j| j.queue == queue && j.status == "queued")
            .count() as u32;
        self.jobs.push(Job {
            id,
            kind: kind.into(),
            channel: channel.into(),
            status: "queued".into(),
            polls: 0,
            script,
            result,
            log: (1..=60).map(|i| format!("[{kind}] step {i}")).collect(),
            queue: queue.into(),
            position,
        });
    }

    fn poll(&mut self, id: &str) -> (u16, Value) {
        let Some(i) = self.jobs.iter().position(|j| j.id == id) else {
            return error(404, &format!("job {id} not found"));
        };
        let job = &mut self.jobs[i];
        job.polls += 1;
        let (end, at) = match &job.script {
            JobScript::Done { polls } | JobScript::DoneWithoutFile { polls } => ("done", *polls),
            JobScript::Failed { polls, .. } => ("failed", *polls),
            JobScript::Cancelled { polls } => ("cancelled", *polls),
            JobScript::Never => ("running", u32::MAX),
        };
        job.status = match job.polls {
            n if n >= at => end,
            1 => "queued",
            _ => "running",
        }
        .to_string();
        let mut out = json!({"status": job.status, "jobId": job.id});
        match (&job.script, job.status.as_str()) {
            (JobScript::Failed { log, .. }, "failed") => out["error"] = json!(log),
            (JobScript::Cancelled { .. }, "cancelled") => {
                out["error"] = json!("cancelled by the operator")
            }
            (JobScript::DoneWithoutFile { .. }, "done") => {}
            (_, "done") => {
                let r = job.result.clone();
                for k in ["file", "from", "to", "bytes", "height"] {
                    out[k] = r[k].clone();
                }
                if r["from"] == json!(0.0) && r["to"] == json!(0.0) {
                    if let Some(m) = out.as_object_mut() {
                        m.remove("from");
                        m.remove("to");
                    }
                }
                let channel = job.channel.clone();
                let clip = Clip {
                    video: r["videoId"].as_str().unwrap_or("").into(),
                    from: r["from"].as_f64().unwrap_or(0.0),
                    to: r["to"].as_f64().unwrap_or(0.0),
                    full: job.kind == "redownload-archive",
                    height: r["height"].as_u64().unwrap_or(720) as u32,
                    requested_by: "mcp".into(),
                };
                self.clips.entry(channel).or_default().push(clip);
            }
            _ => {}
        }
        (200, out)
    }

    fn job(&self, id: &str, tail: Option<&str>) -> (u16, Value) {
        let Some(job) = self.jobs.iter().find(|j| j.id == id) else {
            return error(404, &format!("job {id} not found"));
        };
        let tail: usize = tail.and_then(|t| t.parse().ok()).unwrap_or(40);
        let log = &job.log[job.log.len().saturating_sub(tail)..];
        let done = matches!(job.status.as_str(), "done" | "failed" | "cancelled");
        (
            200,
            json!({
                "jobId": job.id, "kind": job.kind, "channel": job.channel, "status": job.status,
                "createdAt": "2026-11-30T10:00:00Z",
                "startedAt": if job.status == "queued" { Value::Null } else { json!("2026-11-30T10:00:05Z") },
                "finishedAt": if done { json!("2026-11-30T10:02:00Z") } else { Value::Null },
                "exitCode": match job.status.as_str() { "done" => json!(0), "failed" => json!(1), _ => Value::Null },
                "queue": {"name": job.queue, "position": if job.status == "queued" { json!(job.position) } else { Value::Null }},
                "log": log, "logLines": job.log.len()
            }),
        )
    }

    fn enqueue(&mut self, kind: &str, body: &Value) -> (u16, Value) {
        const KINDS: &[&str] = &[
            "sync",
            "download-missing",
            "retry-bucket",
            "transcribe-bucket",
            "fetch-posts",
            "import-video",
        ];
        if !KINDS.contains(&kind) {
            return error(404, &format!("unknown operation {kind}"));
        }
        let channel = body["channel"].as_str().unwrap_or("").to_string();
        let Some(platform) = self.channels.get(&channel).cloned() else {
            return channel_missing(&channel);
        };
        if kind == "import-video" && !body["url"].is_string() {
            return error(400, "url is required");
        }
        if kind == "retry-bucket" && !body["bucket"].is_string() {
            return error(400, "bucket is required");
        }
        let id = format!("job-{}", self.jobs.len() + 1);
        self.push_job(
            id.clone(),
            kind,
            &channel,
            &platform,
            JobScript::Never,
            Value::Null,
        );
        let position = self.jobs.last().map_or(0, |j| j.position);
        (
            202,
            json!({"jobId": id, "kind": kind, "channel": channel, "queue": platform, "position": position}),
        )
    }

    fn coverage(&self, channel: &str) -> (u16, Value) {
        let Some(videos) = self.videos.get(channel) else {
            return channel_missing(channel);
        };
        let basis = if self.recorded_basis.contains_key(channel) {
            "recorded"
        } else {
            "upload"
        };
        (
            200,
            json!({"channel": channel, "dateBasis": basis, "videos": videos}),
        )
    }

    fn transcript(&self, req: &Request) -> (u16, Value) {
        let video = req.param("video").unwrap_or("");
        let found = self
            .transcripts
            .iter()
            .find(|((c, v), _)| v == video && req.param("channel").is_none_or(|want| want == c));
        match found {
            Some(((c, _), body)) => {
                let mut body = body.clone();
                body["channel"] = json!(c);
                body["videoId"] = json!(video);
                (200, body)
            }
            None => error(404, &format!("no transcript for {video} on this editor")),
        }
    }
}

fn clip_json(channel: &str, clip: &Clip, cached: bool) -> Value {
    let file = if clip.full {
        format!("{ROOT}/saved-videos/{channel}/{}.mp4", clip.video)
    } else {
        format!(
            "{ROOT}/channels/{channel}/data/{}/clips/{:.2}-{:.2}.mp4",
            clip.video, clip.from, clip.to
        )
    };
    let bytes = if clip.full {
        250_000_000
    } else {
        ((clip.to - clip.from) * 120_000.0) as u64
    };
    json!({
        "cached": cached, "file": file, "from": clip.from, "to": clip.to, "bytes": bytes,
        "height": clip.height, "videoId": clip.video,
        "provenance": {"requestedBy": clip.requested_by, "requestedAt": "2026-11-29T12:00:00Z"}
    })
}
