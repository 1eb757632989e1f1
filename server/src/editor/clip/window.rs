//! Clip times: seconds or clock strings in, a padded, rounded, clamped
//! and capped window out.

use archilyzer_core::time::{parse_clock, Clock};
use serde_json::Value;

use super::MAX_WINDOW;

/// Seconds from a number or `ss`, `mm:ss`, `h:mm:ss` (the last part may
/// have a fraction: [`Clock::Typed`]); `None` for anything else.
pub fn parse_seconds(v: &Value) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return (n.is_finite() && n >= 0.0).then_some(n);
    }
    parse_clock(v.as_str()?.trim(), Clock::Typed)
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Seconds as the texts show them: at most two decimals, no trailing zeros.
pub fn secs(x: f64) -> String {
    let s = format!("{:.2}", round2(x));
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The span the editor is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Start, in seconds.
    pub from: f64,
    /// End, in seconds.
    pub to: f64,
    /// The padding already applied to `from` and `to` (the editor records it).
    pub pad: f64,
}

/// `[start - pad, end + pad]`, rounded, clamped at 0, at most
/// [`MAX_WINDOW`] seconds long.
pub fn plan_window(start: f64, end: f64, pad: f64) -> Result<Window, String> {
    let usable = |t: f64| t.is_finite() && t >= 0.0;
    if !(usable(start) && usable(end) && usable(pad)) {
        return Err(format!(
            "fetch_clip: start ({start}), end ({end}) and pad ({pad}) must be seconds, 0 or more"
        ));
    }
    if start >= end {
        return Err(format!(
            "fetch_clip: start ({}) must be before end ({})",
            secs(start),
            secs(end)
        ));
    }
    let w = Window {
        from: round2((start - pad).max(0.0)),
        to: round2(end + pad),
        pad,
    };
    let length = round2(w.to - w.from);
    if length <= 0.0 {
        return Err(format!(
            "fetch_clip: the window {}–{} is empty once rounded to hundredths of a second: cite a longer span",
            secs(w.from),
            secs(w.to)
        ));
    }
    if length > MAX_WINDOW {
        return Err(format!(
            "fetch_clip: the window {}–{} (padding included) is {}s long, and the editor fetches at most {}s per window: cite a narrower span",
            secs(w.from),
            secs(w.to),
            secs(length),
            MAX_WINDOW
        ));
    }
    Ok(w)
}
