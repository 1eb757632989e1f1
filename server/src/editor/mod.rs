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

pub use crate::service::{Reply, Service};

/// The editor's origin when `ARCHILYZER_EDITOR_URL` is not set.
pub const DEFAULT_URL: &str = "http://localhost:3001";

/// Where time comes from: real in the server, scripted in tests.
pub trait Clock: Send + Sync {
    /// Time since an arbitrary fixed start.
    fn now(&self) -> Duration;
    /// Waits `d`.
    fn sleep(&self, d: Duration);
}

/// The wall clock.
pub struct RealClock(Instant);

impl RealClock {
    /// The system clock.
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

/// Whether an editor can be asked, and if not, why.
#[derive(Debug)]
pub enum EditorSetup {
    /// No `WORKER_TOKEN`.
    Missing,
    /// `ARCHILYZER_EDITOR_URL` is not an http(s) URL (the message says so).
    Invalid(String),
    /// The editor at this address, with this token.
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
        match Service::new("the editor", "ARCHILYZER_EDITOR_URL", url, Some(token)) {
            Ok(service) => EditorSetup::Ready(Editor { service, clock }),
            Err(e) => EditorSetup::Invalid(format!("{e}, for example {DEFAULT_URL}")),
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

/// A configured editor: its HTTP service and the clock its waits use.
pub struct Editor {
    service: Service,
    /// Where time comes from while a job is polled.
    pub clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Editor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Editor")
            .field("service", &self.service)
            .finish()
    }
}

impl std::ops::Deref for Editor {
    type Target = Service;
    fn deref(&self) -> &Service {
        &self.service
    }
}

impl Reply {
    /// The text for an editor's refusal: a token problem (401, 503) says
    /// how to fix the token; anything else carries the editor's words
    /// verbatim.
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
