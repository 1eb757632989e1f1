//! SubRip (`.srt`): numbered blocks of a timing line and text lines.
//!
//! The variants people have are read: CRLF, LF or CR line endings; a
//! block with or without its number; `,` or `.` before the milliseconds
//! (one to three digits); hours omitted; coordinates after the end time.
//! A block whose timing cannot be read is skipped and named, and the rest
//! of the file is read; a file with no readable cue is an error.

use super::{clean_text, parse_timing, CaptionError, Parsed, Skipped};
use crate::format::Cue;

pub fn parse(text: &str) -> Result<Parsed, CaptionError> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    let mut out = Parsed::default();
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
        read_block(&lines[first..i], first + 1, &mut out);
    }
    if out.cues.is_empty() {
        return Err(CaptionError::File(match out.skipped.first() {
            Some(s) => format!("no readable SRT cue (line {}: {})", s.line, s.reason),
            None => "no SRT cue found".into(),
        }));
    }
    Ok(out)
}

/// One block (lines numbered from `line_no`): a cue, or a skip.
fn read_block(block: &[&str], line_no: usize, out: &mut Parsed) {
    let Some(t) = block.iter().take(2).position(|l| l.contains("-->")) else {
        out.skipped.push(Skipped {
            line: line_no,
            reason: format!(
                "a block with no `start --> end` timing line, so not a cue: {:?}",
                block[0]
            ),
        });
        return;
    };
    match parse_timing(block[t], line_no + t) {
        Ok((start, end)) => out.cues.push(Cue {
            start,
            end,
            text: clean_text(&block[t + 1..]),
        }),
        Err(CaptionError::Line { line, reason }) => out.skipped.push(Skipped {
            line,
            reason: format!("{reason}; this cue was skipped"),
        }),
        Err(CaptionError::File(reason)) => out.skipped.push(Skipped {
            line: line_no + t,
            reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn srt_blocks_parse_with_comma_milliseconds() {
        let text = "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i>\r\nthere\r\n\r\n2\r\n00:01:00,000 --> 00:01:01,000\r\nagain\r\n";
        let cues = super::parse(text).unwrap().cues;
        assert_eq!(cues.len(), 2);
        assert_eq!(
            (cues[0].start, cues[0].end, cues[0].text.as_str()),
            (1.0, 2.5, "Hello there")
        );
        assert_eq!(cues[1].start, 60.0);
        let err = super::parse("1\n00:00:01,000 -> 00:00:02,000\nx\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("no readable SRT cue (line 1: a block with no"),
            "{err}"
        );
    }

    #[test]
    fn srt_variants_are_read_and_a_bad_cue_is_skipped_alone() {
        // CR line endings, no numbers, dots, hours omitted, coordinates.
        let text = "00:01.5 --> 00:02.25 X1:10 X2:20\rfirst\r\r3\r00:00:03,000 --> 00:00:6x,000\rbroken\r\r4\r00:00:07.000 --> 00:00:08.000\rlast\r";
        let parsed = super::parse(text).unwrap();
        let got: Vec<(f64, f64, &str)> = parsed
            .cues
            .iter()
            .map(|c| (c.start, c.end, c.text.as_str()))
            .collect();
        assert_eq!(got, [(1.5, 2.25, "first"), (7.0, 8.0, "last")]);
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.skipped[0].line, 5);
        assert!(parsed.skipped[0].reason.contains("unreadable end time"));
    }
}
