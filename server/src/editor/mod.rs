//! The local Archilyzer editor: the one service this server asks to do
//! work that writes (fetch clip media, queue archival jobs) or to read what
//! is not published yet (jobs, coverage, fresh transcripts). The contract
//! is docs/editor-contract.md.
//!
//! Promises:
//! - configured only by `ARCHILYZER_EDITOR_URL` (default
//!   `http://localhost:3001`) and `WORKER_TOKEN`; without a token every
//!   editor tool answers an error naming both and sends nothing;
//! - the token goes out in the `Authorization` header and nowhere else: it
//!   is never logged, never debug-printed, and scrubbed from anything the
//!   editor or the network says before that reaches a result;
//! - every wait goes through a [`Clock`], so tests need no real time.

pub mod clip;
pub mod coverage;
pub mod ops;
pub mod transcript;
pub mod video_id;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use url::Url;

/// The editor's origin when `ARCHILYZER_EDITOR_URL` is not set.
pub const DEFAULT_URL: &str = "http://localhost:3001";

/// Where time comes from: real in the server, scripted in tests.
pub trait Clock: Send + Sync {
    /// Time since an arbitrary fixed start.
    fn now(&self) -> Duration;
    fn sleep(&self, d: Duration);
}

/// The wall clock.
pub struct RealClock(Instant);

impl RealClock {
    pub fn new() -> Self {
        RealClock(Instant::now())
    }
}

impl Default for RealClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for RealClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// The worker token. It has no `Display`, and its `Debug` hides it.
#[derive(Clone)]
struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(hidden)")
    }
}

/// Whether an editor can be asked, and if not, why.
#[derive(Debug)]
pub enum EditorSetup {
    /// No `WORKER_TOKEN`.
    Missing,
    /// `ARCHILYZER_EDITOR_URL` is not an http(s) URL (the message says so).
    Invalid(String),
    Ready(Editor),
}

impl EditorSetup {
    /// From `ARCHILYZER_EDITOR_URL` and `WORKER_TOKEN`, on the real clock.
    pub fn from_env() -> Self {
        let url = std::env::var("ARCHILYZER_EDITOR_URL").ok();
        let token = std::env::var("WORKER_TOKEN").ok();
        Self::new(url.as_deref(), token.as_deref(), Arc::new(RealClock::new()))
    }

    /// From an origin (default [`DEFAULT_URL`]) and a token; an empty
    /// value counts as unset.
    pub fn new(url: Option<&str>, token: Option<&str>, clock: Arc<dyn Clock>) -> Self {
        let Some(token) = token.map(str::trim).filter(|t| !t.is_empty()) else {
            return EditorSetup::Missing;
        };
        let url = url
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .unwrap_or(DEFAULT_URL);
        let base = match Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => u,
            _ => {
                return EditorSetup::Invalid(format!(
                    "ARCHILYZER_EDITOR_URL is {url:?}, which is not an http:// or https:// URL: set it to the editor's origin, for example {DEFAULT_URL}"
                ))
            }
        };
        match archilyzer_core::net::client(Duration::from_secs(5), Duration::from_secs(30)) {
            Ok(client) => EditorSetup::Ready(Editor {
                base,
                token: Token(token.to_string()),
                client,
                clock,
            }),
            Err(e) => EditorSetup::Invalid(e),
        }
    }

    /// The editor, or the error `tool` answers without one.
    pub fn ready(&self, tool: &str) -> Result<&Editor, String> {
        match self {
            EditorSetup::Ready(e) => Ok(e),
            EditorSetup::Invalid(why) => Err(format!("{tool}: {why}")),
            EditorSetup::Missing => Err(format!(
                "{tool}: no editor is configured, so nothing was sent. This tool asks a local Archilyzer editor: set ARCHILYZER_EDITOR_URL (for example {DEFAULT_URL}) and WORKER_TOKEN (the token the editor itself runs with, from its .env) in this server's environment when you register it."
            )),
        }
    }
}

/// A configured editor.
pub struct Editor {
    base: Url,
    token: Token,
    client: reqwest::Client,
    pub clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Editor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Editor")
            .field("base", &self.base.as_str())
            .finish()
    }
}

/// What the editor answered: its status and JSON body (a body that is not
/// a JSON object is carried as `{"error": <its text>}`).
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The editor's `error` text, or the status when it gave none.
    pub fn error(&self) -> String {
        match self.body["error"].as_str() {
            Some(e) if !e.trim().is_empty() => e.trim().to_string(),
            _ => format!("no error text (HTTP {})", self.status),
        }
    }

    /// The text for a refusal: a token problem (401, 503) says how to fix
    /// the token; anything else carries the editor's words verbatim.
    pub fn refusal(&self) -> String {
        match self.status {
            401 | 503 => {
                let mut s = format!(
                    "The editor refused the token (HTTP {}): {}. WORKER_TOKEN must be the value the editor runs with (its .env).",
                    self.status,
                    self.error()
                );
                if self.status == 503 && self.error().contains("disabled") {
                    s.push_str(" The editor itself has no WORKER_TOKEN, so its worker endpoints are switched off.");
                }
                s
            }
            s => format!("The editor refused (HTTP {s}): {}", self.error()),
        }
    }
}

impl Editor {
    /// The editor's origin, for messages.
    pub fn origin(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    /// The text for an editor that could not be reached.
    pub fn unreachable(&self, why: &str) -> String {
        format!(
            "Could not reach the editor at {}: {why}. Is it running?",
            self.origin()
        )
    }

    fn url(&self, segments: &[&str], query: &[(&str, String)]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        url
    }

    /// `GET` the path made of `segments` (each percent-encoded as data).
    /// `Err` is the text for an unreachable editor.
    pub fn get(&self, segments: &[&str], query: &[(&str, String)]) -> Result<Reply, String> {
        self.send(self.client.get(self.url(segments, query)))
    }

    /// `POST` `body` as JSON to the path made of `segments`.
    pub fn post(&self, segments: &[&str], body: &Value) -> Result<Reply, String> {
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        self.send(
            self.client
                .post(self.url(segments, &[]))
                .header("Content-Type", "application/json")
                .body(bytes),
        )
    }

    fn send(&self, request: reqwest::RequestBuilder) -> Result<Reply, String> {
        let request = request.bearer_auth(&self.token.0);
        let result = archilyzer_core::net::block_on(async move {
            let resp = request.send().await?;
            let status = resp.status().as_u16();
            Ok::<_, reqwest::Error>((status, resp.bytes().await?))
        });
        let (status, bytes) = result
            .map_err(|e| self.unreachable(&self.scrub(&archilyzer_core::net::describe(&e))))?;
        let text = self.scrub(&String::from_utf8_lossy(&bytes));
        let body = match serde_json::from_str::<Value>(&text) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({"error": text.trim()}),
        };
        tracing::debug!(status, origin = self.origin(), "editor answered");
        Ok(Reply { status, body })
    }

    /// `s` with every occurrence of the token replaced.
    pub fn scrub(&self, s: &str) -> String {
        s.replace(&self.token.0, "[WORKER_TOKEN]")
    }
}
