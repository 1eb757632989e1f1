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
//!
//! Layout: the core's `clip` (time arithmetic), `args` (arguments),
//! `request` (the editor's job: POST and polls), `render` (answers).

mod args;
mod render;
mod request;

use std::time::Duration;

use serde_json::json;

use super::EditorSetup;
use crate::sources::Sources;
use crate::tool::{Failure, Progress, ToolResult};
pub use archilyzer_core::clip::{parse_seconds, plan_window, secs, Window, MAX_WINDOW};
use archilyzer_core::source::SourceHandle;
pub use args::valid_id;
pub use args::ClipArgs;
use args::{parse_args, Ask};
use render::render;
pub use render::ClipFacts;
use request::{locate, run};

/// Seconds added before and after the cited span by default.
pub const DEFAULT_PAD: f64 = 3.0;
/// Seconds to wait for a job by default, and at most.
pub const DEFAULT_WAIT: f64 = 90.0;
/// The longest `wait_seconds` accepted.
pub const MAX_WAIT: f64 = 300.0;
/// The editor's own default height cap for a window.
pub const DEFAULT_HEIGHT: u64 = 720;
/// How long between two polls of a job.
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// The most characters of `reason` sent (the editor stores it).
pub const REASON_MAX: usize = 400;

/// The `fetch_clip` tool.
pub fn fetch_clip(
    setup: &EditorSetup,
    sources: &Sources,
    handle: &SourceHandle,
    args: &ClipArgs,
    progress: Progress,
) -> ToolResult {
    let editor = setup.ready("fetch_clip").map_err(|e| match setup {
        EditorSetup::Missing => format!("{e} Without an editor nothing can be fetched through Archilyzer; the README's \"Editor-backed tools\" section gives the operator's fallback for a machine with none."),
        _ => e,
    })?;
    let (ask, wait) = parse_args(args)?;
    let target = match &ask {
        Ask::New(f) => Some(locate(sources, handle, f)),
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
    fn ids_are_data_even_with_a_leading_dash() {
        assert!(valid_id("-n0qW7LHJRY"));
        assert!(valid_id("v1007ay"));
        for bad in ["", ".", "..", "a/b", "a b", "é", "--exec=x;"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}
