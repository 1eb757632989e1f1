//! SubRip (`.srt`): numbered blocks of a timing line and text lines.

use super::{clean_text, parse_timing, CaptionError};
use crate::format::Cue;

pub fn parse(text: &str) -> Result<Vec<Cue>, CaptionError> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim().is_empty() {
            i += 1;
            continue;
        }
        let first = i;
        while i < lines.len() && !lines[i].trim().is_empty() {
            i += 1;
        }
        let block = &lines[first..i];
        let Some(t) = block.iter().take(2).position(|l| l.contains("-->")) else {
            return Err(CaptionError::Line {
                line: first + 1,
                reason: format!(
                    "a block without a `start --> end` timing line: {:?}",
                    block[0]
                ),
            });
        };
        let (start, end) = parse_timing(block[t], first + t + 1)?;
        out.push(Cue {
            start,
            end,
            text: clean_text(&block[t + 1..]),
        });
    }
    if out.is_empty() && !text.trim().is_empty() {
        return Err(CaptionError::File("no SRT cue found".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn srt_blocks_parse_with_comma_milliseconds() {
        let text = "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i>\r\nthere\r\n\r\n2\r\n00:01:00,000 --> 00:01:01,000\r\nagain\r\n";
        let cues = super::parse(text).unwrap();
        assert_eq!(cues.len(), 2);
        assert_eq!(
            (cues[0].start, cues[0].end, cues[0].text.as_str()),
            (1.0, 2.5, "Hello there")
        );
        assert_eq!(cues[1].start, 60.0);
        let err = super::parse("1\n00:00:01,000 -> 00:00:02,000\nx\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("line 1: a block without"), "{err}");
    }
}
