//! Clip times: the span a citation asks the editor for. Seconds or clock
//! strings in, a padded, rounded, clamped and capped window out; the
//! server's `fetch_clip` calls it, and the fuzzer reaches it without the
//! protocol stack.

use serde_json::Value;

use crate::time::{parse_clock, Clock};

/// The most seconds one window may span, padding included (the editor's
/// limit per fetch).
pub const MAX_WINDOW: f64 = 900.0;

/// Seconds from a number or `ss`, `mm:ss`, `h:mm:ss` (the last part may
/// have a fraction: [`Clock::Typed`]); `None` for anything else.
pub fn parse_seconds(v: &Value) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return (n.is_finite() && n >= 0.0).then_some(n);
    }
    parse_clock(v.as_str()?.trim(), Clock::Typed)
}

/// `x` rounded to hundredths.
pub fn round2(x: f64) -> f64 {
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
            "start ({start}), end ({end}) and pad ({pad}) must be seconds, 0 or more"
        ));
    }
    if start >= end {
        return Err(format!(
            "start ({}) must be before end ({})",
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
            "the window {}–{} is empty once rounded to hundredths of a second: cite a longer span",
            secs(w.from),
            secs(w.to)
        ));
    }
    if length > MAX_WINDOW {
        return Err(format!(
            "the window {}–{} (padding included) is {}s long, and the editor fetches at most {}s per window: cite a narrower span",
            secs(w.from),
            secs(w.to),
            secs(length),
            MAX_WINDOW
        ));
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_are_seconds_or_clock_strings_and_nothing_else() {
        let p = |v: Value| parse_seconds(&v);
        assert_eq!(p(json!("1:02:03")), Some(3723.0));
        assert_eq!(p(json!("02:03")), Some(123.0));
        assert_eq!(p(json!("90:00")), Some(5400.0));
        assert_eq!(p(json!("83.5")), Some(83.5));
        assert_eq!(p(json!("1:02.25")), Some(62.25));
        assert_eq!(p(json!(12)), Some(12.0));
        assert_eq!(p(json!(0.5)), Some(0.5));
        for bad in [
            json!("1:75"),
            json!("1:60:00"),
            json!("-3"),
            json!(-3),
            json!(""),
            json!("1::2"),
            json!("1:2:3:4"),
            json!("12s"),
            json!("1e3"),
            json!(format!("{}:00", "9".repeat(400))),
            json!(" : "),
            json!(true),
            Value::Null,
        ] {
            assert_eq!(p(bad.clone()), None, "{bad}");
        }
    }

    #[test]
    fn a_window_is_padded_rounded_clamped_and_capped_after_padding() {
        let w = plan_window(10.004, 20.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (7.0, 23.0));
        let w = plan_window(1.0, 2.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (0.0, 5.0));
        let w = plan_window(10.0, 904.0, 3.0).unwrap();
        assert_eq!((w.from, w.to), (7.0, 907.0));
        assert_eq!(
            plan_window(10.0, 905.0, 3.0).unwrap_err(),
            "the window 7–908 (padding included) is 901s long, and the editor fetches at most 900s per window: cite a narrower span"
        );
        assert_eq!(
            plan_window(20.0, 20.0, 3.0).unwrap_err(),
            "start (20) must be before end (20)"
        );
        assert!(plan_window(1e-300, 2e-300, 0.0)
            .unwrap_err()
            .contains("is empty once rounded"));
        assert!(plan_window(f64::NAN, 2.0, 0.0)
            .unwrap_err()
            .contains("must be seconds, 0 or more"));
        assert_eq!(secs(7.5), "7.5");
        assert_eq!(secs(7.0), "7");
        assert_eq!(secs(7.456), "7.46");
    }
}
