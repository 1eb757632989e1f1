//! Whisper's own outputs: `.tsv` (milliseconds) and `.json` (segments in
//! seconds).

use serde::Deserialize;

use super::{clean_text, ms, span, CaptionError};
use crate::format::Cue;

pub fn parse_tsv(text: &str) -> Result<Vec<Cue>, CaptionError> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.trim_end() == "start\tend\ttext" => {}
        _ => {
            return Err(CaptionError::File(
                "not a Whisper TSV file: the first line must be `start<TAB>end<TAB>text`".into(),
            ))
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let bad = |reason: &str| CaptionError::Line {
            line: i + 1,
            reason: reason.to_string(),
        };
        let mut cols = line.splitn(3, '\t');
        let (Some(a), Some(b), Some(t)) = (cols.next(), cols.next(), cols.next()) else {
            return Err(bad("expected three tab-separated columns"));
        };
        let start: u64 = a
            .trim()
            .parse()
            .map_err(|_| bad("start is not whole milliseconds"))?;
        let end: u64 = b
            .trim()
            .parse()
            .map_err(|_| bad("end is not whole milliseconds"))?;
        out.push(Cue {
            start: ms(start as f64),
            end: ms(end as f64),
            text: clean_text(&[t]),
        });
    }
    Ok(out)
}

#[derive(Deserialize)]
struct WhisperJson {
    segments: Vec<Segment>,
}

#[derive(Deserialize)]
struct Segment {
    start: f64,
    end: f64,
    text: String,
}

pub fn parse_json(text: &str) -> Result<Vec<Cue>, CaptionError> {
    let doc: WhisperJson = serde_json::from_str(text).map_err(|e| {
        CaptionError::File(format!(
            "not a Whisper JSON file (an object with `segments`): {e}"
        ))
    })?;
    doc.segments
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let (start, end) = span(s.start, s.end, &format!("segment {i}"))?;
            Ok(Cue {
                start,
                end,
                text: clean_text(&[&s.text]),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn whisper_tsv_and_json_parse() {
        let cues =
            super::parse_tsv("start\tend\ttext\n0\t1500\t hello\n1500\t3000\tworld\t!\n").unwrap();
        assert_eq!(cues.len(), 2);
        assert_eq!(
            (cues[0].start, cues[0].end, cues[0].text.as_str()),
            (0.0, 1.5, "hello")
        );
        assert_eq!(cues[1].text, "world !");
        let err = super::parse_tsv("start\tend\ttext\n0\tx\thi\n")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "line 2: end is not whole milliseconds");
        let cues = super::parse_json(r#"{"text":"x","language":"en","segments":[{"id":0,"start":0.0,"end":2.0,"text":" Hi there."}]}"#).unwrap();
        assert_eq!(cues[0].text, "Hi there.");
        assert!(super::parse_json("[]")
            .unwrap_err()
            .to_string()
            .contains("segments"));
    }
}
