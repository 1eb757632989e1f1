//! YouTube's timed-text formats: `json3` (events with text segments) and
//! `srv3` (XML `<p t="ms" d="ms">` paragraphs).

use serde::Deserialize;

use super::{clean_text, decode_entities, ms, span, strip_tags, CaptionError};
use crate::format::Cue;

#[derive(Deserialize)]
struct Json3 {
    events: Vec<Event>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    /// Absent on a malformed event; never read as 0 (a cue with text and
    /// no start is refused, not stamped at the start of the video).
    t_start_ms: Option<f64>,
    #[serde(default)]
    d_duration_ms: f64,
    #[serde(default)]
    segs: Vec<Seg>,
}

#[derive(Deserialize)]
struct Seg {
    #[serde(default)]
    utf8: String,
}

/// Events without text (window definitions, bare line breaks) are layout,
/// not cues, and are skipped.
pub fn parse_json3(text: &str) -> Result<Vec<Cue>, CaptionError> {
    let doc: Json3 = serde_json::from_str(text).map_err(|e| {
        CaptionError::File(format!(
            "not a json3 caption file (an object with `events`): {e}"
        ))
    })?;
    let mut cues = Vec::new();
    for (i, e) in doc.events.into_iter().enumerate() {
        let joined: String = e.segs.iter().map(|s| s.utf8.as_str()).collect();
        let text = clean_text(&[&joined]);
        if text.is_empty() {
            continue;
        }
        let start = e.t_start_ms.ok_or_else(|| {
            CaptionError::File(format!(
                "event {i} has text but no tStartMs, so it has no time (it is not stamped at 0:00)"
            ))
        })?;
        let (start, end) = span(
            ms(start),
            ms(start + e.d_duration_ms),
            &format!("event {i}"),
        )?;
        cues.push(Cue { start, end, text });
    }
    Ok(cues)
}

/// Each `<p t=".." d="..">` is a cue; an empty one is layout.
pub fn parse_srv3(text: &str) -> Result<Vec<Cue>, CaptionError> {
    if !text.contains("<timedtext") {
        return Err(CaptionError::File(
            "not an srv3 file: no <timedtext> element".into(),
        ));
    }
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = find_p(rest) {
        let open_end = rest[at..]
            .find('>')
            .ok_or_else(|| CaptionError::File("a <p> element is not closed".into()))?
            + at;
        let attrs = &rest[at + 2..open_end];
        let close = rest[open_end..].find("</p>").map(|c| c + open_end);
        let (inner, next) = match close {
            _ if attrs.ends_with('/') => ("", open_end + 1),
            Some(c) => (&rest[open_end + 1..c], c + 4),
            None => return Err(CaptionError::File("a <p> element has no </p>".into())),
        };
        let t = attr(attrs, "t")
            .ok_or_else(|| CaptionError::File(format!("a <p> without a numeric t=: <p{attrs}>")))?;
        let d = attr(attrs, "d").unwrap_or(0.0);
        let text = decode_entities(&strip_tags(inner))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !text.is_empty() {
            let (start, end) = span(ms(t), ms(t + d), &format!("<p t=\"{t}\">"))?;
            out.push(Cue { start, end, text });
        }
        rest = &rest[next..];
    }
    Ok(out)
}

/// The next `<p` that opens a `p` element (not `<pen`).
fn find_p(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find("<p") {
        let at = from + i;
        match text.as_bytes().get(at + 2) {
            Some(b' ' | b'>' | b'/' | b'\t' | b'\n') => return Some(at),
            _ => from = at + 2,
        }
    }
    None
}

fn attr(attrs: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let start = format!(" {attrs}").find(&key)? + key.len() - 1;
    let value = &attrs[start..];
    value[..value.find('"')?].parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn json3_events_become_cues() {
        let text = r#"{"wireMagic":"pb3","events":[{"tStartMs":0,"dDurationMs":9000,"id":1,"wpWinPosId":1},
            {"tStartMs":120,"dDurationMs":2500,"wWinId":1,"segs":[{"utf8":"hello"},{"utf8":" world","tOffsetMs":400}]},
            {"tStartMs":2620,"dDurationMs":10,"aAppend":1,"segs":[{"utf8":"\n"}]},
            {"tStartMs":2630,"dDurationMs":2000,"segs":[{"utf8":"again &amp; again"}]}]}"#;
        let cues = super::parse_json3(text).unwrap();
        let got: Vec<(f64, f64, &str)> = cues
            .iter()
            .map(|c| (c.start, c.end, c.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![(0.12, 2.62, "hello world"), (2.63, 4.63, "again & again")]
        );
    }

    #[test]
    fn a_json3_cue_without_a_start_is_refused_never_stamped_at_zero() {
        let text = r#"{"events":[{"tStartMs":5000,"segs":[{"utf8":"first"}]},{"dDurationMs":900,"segs":[{"utf8":"no start"}]}]}"#;
        let err = super::parse_json3(text).unwrap_err().to_string();
        assert_eq!(
            err,
            "event 1 has text but no tStartMs, so it has no time (it is not stamped at 0:00)"
        );
        let layout_only =
            r#"{"events":[{"dDurationMs":900},{"tStartMs":1000,"segs":[{"utf8":"ok"}]}]}"#;
        assert_eq!(super::parse_json3(layout_only).unwrap().len(), 1);
    }

    #[test]
    fn srv3_paragraphs_become_cues() {
        let text = r#"<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><head><pen id="1"/></head><body>
<p t="1000" d="2000" w="1"><s ac="0">Hi</s><s t="300"> there</s></p>
<p t="3000" d="10" w="1" a="1">
</p>
<p t="4000" d="1500">Tom &amp; Jerry</p></body></timedtext>"#;
        let cues = super::parse_srv3(text).unwrap();
        let got: Vec<(f64, f64, &str)> = cues
            .iter()
            .map(|c| (c.start, c.end, c.text.as_str()))
            .collect();
        assert_eq!(got, vec![(1.0, 3.0, "Hi there"), (4.0, 5.5, "Tom & Jerry")]);
        assert!(super::parse_srv3("<p t=\"1\">x</p>").is_err());
    }
}
