//! `fetch_clip`'s arguments, every error found before a request is sent:
//! a new fetch (a window, or the full video) or a resume by job id.

use std::time::Duration;

use serde_json::{Map, Value};

use super::window::{parse_seconds, plan_window, Window};
use super::{DEFAULT_PAD, DEFAULT_WAIT, MAX_WAIT, REASON_MAX};
use crate::tool::{bool_arg, str_arg};

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
pub fn parse_args(args: &Map<String, Value>) -> Result<(Ask, Duration), String> {
    let wait = args
        .get("wait_seconds")
        .and_then(Value::as_f64)
        .unwrap_or(DEFAULT_WAIT)
        .clamp(0.0, MAX_WAIT);
    let wait = Duration::from_secs_f64(wait);
    if let Some(job) = str_arg(args, "job")
        .map(str::trim)
        .filter(|j| !j.is_empty())
    {
        return Ok((Ask::Resume(job.to_string()), wait));
    }
    let text = |k| str_arg(args, k).map(str::trim).filter(|s| !s.is_empty());
    let channel = text("channel")
        .ok_or("fetch_clip: channel is required (the channel's slug, as citations show it)")?;
    let video =
        text("video").ok_or("fetch_clip: video is required (the archive's video id, as cited)")?;
    if !valid_id(video) {
        return Err(format!(
            "fetch_clip: video {video:?} is not an id: it must be letters, digits, `_`, `.` or `-`"
        ));
    }
    let span = if bool_arg(args, "full", false) {
        Span::Full
    } else {
        Span::Window(window_args(args)?)
    };
    let reason = text("reason").ok_or(
        "fetch_clip: reason is required: one line on why these seconds are needed (the editor stores it beside the file)",
    )?;
    Ok((
        Ask::New(NewFetch {
            channel: channel.into(),
            video: video.into(),
            span,
            reason: reason.chars().take(REASON_MAX).collect(),
            report: text("report").map(str::to_string),
            max_height: args.get("maxHeight").and_then(Value::as_u64),
        }),
        wait,
    ))
}

pub(super) fn window_args(args: &Map<String, Value>) -> Result<Window, String> {
    let time = |name: &str| {
        let v = args.get(name).cloned().unwrap_or(Value::Null);
        parse_seconds(&v).ok_or_else(|| {
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            format!("fetch_clip: {name} {shown:?} is not a time: give seconds, mm:ss or h:mm:ss")
        })
    };
    let (start, end) = (time("start")?, time("end")?);
    let pad = match args.get("pad") {
        None => DEFAULT_PAD,
        Some(v) => v
            .as_f64()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| {
                format!("fetch_clip: pad must be a number of seconds, 0 or more, got {v}")
            })?,
    };
    plan_window(start, end, pad)
}
