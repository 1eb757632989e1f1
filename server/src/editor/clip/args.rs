//! `fetch_clip`'s arguments, every error found before a request is sent:
//! a new fetch (a window, or the full video) or a resume by job id.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{DEFAULT_PAD, DEFAULT_WAIT, MAX_WAIT, REASON_MAX};
use archilyzer_core::clip::{parse_seconds, plan_window, Window};

/// `fetch_clip`'s arguments, as sent; `parse_args` checks them.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ClipArgs {
    /// The channel slug, as cited.
    #[serde(default)]
    pub channel: Option<String>,
    /// The archive's video id, as cited.
    #[serde(default)]
    pub video: Option<String>,
    /// Start of the cited span: seconds, mm:ss or h:mm:ss.
    #[serde(default)]
    pub start: Option<Moment>,
    /// End of the cited span: seconds, mm:ss or h:mm:ss.
    #[serde(default)]
    pub end: Option<Moment>,
    /// Seconds added before and after (default 3).
    #[serde(default)]
    pub pad: Option<f64>,
    /// One line on why these seconds are needed (stored beside the file;
    /// at most 400 characters are kept).
    #[serde(default)]
    pub reason: Option<String>,
    /// The report this clip is for, if any.
    #[serde(default)]
    pub report: Option<String>,
    /// The whole recording instead of a window; start, end and pad are
    /// then ignored.
    #[serde(default)]
    pub full: bool,
    /// Cap on the source height (a window defaults to 720).
    #[serde(default, rename = "maxHeight")]
    #[schemars(range(min = 144, max = 2160))]
    pub max_height: Option<u64>,
    /// How long to wait for the editor's job (default 90, 0 to 300).
    #[serde(default)]
    pub wait_seconds: Option<f64>,
    /// Resume waiting for this job (the other arguments are then
    /// ignored).
    #[serde(default)]
    pub job: Option<String>,
    /// The citing corpus.
    #[serde(flatten)]
    pub source: crate::sources::Source,
}

/// A moment as a call gives it: seconds, or text (`mm:ss`, `h:mm:ss`).
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct Moment(pub Value);

impl JsonSchema for Moment {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Moment".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": ["number", "string"]})
    }
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
pub fn parse_args(args: &ClipArgs) -> Result<(Ask, Duration), String> {
    let wait = args
        .wait_seconds
        .filter(|w| w.is_finite())
        .unwrap_or(DEFAULT_WAIT)
        .clamp(0.0, MAX_WAIT);
    let wait = Duration::from_secs_f64(wait);
    let text = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if let Some(job) = text(&args.job) {
        return Ok((Ask::Resume(job), wait));
    }
    let channel = text(&args.channel)
        .ok_or("fetch_clip: channel is required (the channel's slug, as citations show it)")?;
    let video = text(&args.video)
        .ok_or("fetch_clip: video is required (the archive's video id, as cited)")?;
    if !valid_id(&video) {
        return Err(format!(
            "fetch_clip: video {video:?} is not an id: it must be letters, digits, `_`, `.` or `-`"
        ));
    }
    let span = if args.full {
        Span::Full
    } else {
        Span::Window(window_args(args)?)
    };
    let reason = text(&args.reason).ok_or(
        "fetch_clip: reason is required: one line on why these seconds are needed (the editor stores it beside the file)",
    )?;
    Ok((
        Ask::New(NewFetch {
            channel,
            video,
            span,
            reason: reason.chars().take(REASON_MAX).collect(),
            report: text(&args.report),
            max_height: args.max_height,
        }),
        wait,
    ))
}

pub(super) fn window_args(args: &ClipArgs) -> Result<Window, String> {
    let time = |name: &str, given: &Option<Moment>| {
        let v = given.as_ref().map_or(Value::Null, |m| m.0.clone());
        parse_seconds(&v).ok_or_else(|| {
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            format!("fetch_clip: {name} {shown:?} is not a time: give seconds, mm:ss or h:mm:ss")
        })
    };
    let (start, end) = (time("start", &args.start)?, time("end", &args.end)?);
    let pad = match args.pad {
        None => DEFAULT_PAD,
        Some(p) if p.is_finite() && p >= 0.0 => p,
        Some(p) => {
            return Err(format!(
                "fetch_clip: pad must be a number of seconds, 0 or more, got {p}"
            ))
        }
    };
    plan_window(start, end, pad).map_err(|e| format!("fetch_clip: {e}"))
}
