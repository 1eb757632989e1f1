//! WebVTT, including YouTube's rolling auto-captions.
//!
//! YouTube's automatic captions repeat each line as it scrolls up and mark
//! word timings with `<00:00:01.234><c>` tags. Such a file (recognised by
//! those tags) is folded so each spoken line comes out once, with the
//! start of the cue where it first appeared. Any other file gives exactly
//! one cue per cue block.

use super::{clean_text, parse_timing, CaptionError};
use crate::format::Cue;

/// A cue block as written: its times and its text lines, cleaned.
struct Block {
    start: f64,
    end: f64,
    lines: Vec<String>,
}

pub fn parse(text: &str) -> Result<Vec<Cue>, CaptionError> {
    let blocks = blocks(text)?;
    if text.contains("</c>") {
        Ok(fold_rolling(blocks))
    } else {
        Ok(blocks
            .into_iter()
            .map(|b| Cue {
                start: b.start,
                end: b.end,
                text: b.lines.join(" "),
            })
            .collect())
    }
}

fn blocks(text: &str) -> Result<Vec<Block>, CaptionError> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if !lines.first().is_some_and(|l| l.starts_with("WEBVTT")) {
        return Err(CaptionError::File(
            "not a WebVTT file: the first line must be WEBVTT".into(),
        ));
    }
    let mut out = Vec::new();
    let mut i = 1;
    // Header lines run to the first blank line.
    while i < lines.len() && !lines[i].is_empty() {
        i += 1;
    }
    while i < lines.len() {
        if lines[i].is_empty() {
            i += 1;
            continue;
        }
        let start_line = i;
        while i < lines.len() && !lines[i].is_empty() {
            i += 1;
        }
        let block = &lines[start_line..i];
        if let Some(b) = cue_block(block, start_line + 1)? {
            out.push(b);
        }
    }
    Ok(out)
}

/// One block: a cue (optional identifier line, timing line, text lines),
/// or a NOTE / STYLE / REGION block, which gives `None`.
fn cue_block(block: &[&str], first_line_no: usize) -> Result<Option<Block>, CaptionError> {
    let head = block[0];
    if head.starts_with("NOTE") || head == "STYLE" || head == "REGION" {
        return Ok(None);
    }
    let Some(t) = block.iter().take(2).position(|l| l.contains("-->")) else {
        return Err(CaptionError::Line {
            line: first_line_no,
            reason: format!("a block without a `start --> end` timing line: {head:?}"),
        });
    };
    let (start, end) = parse_timing(block[t], first_line_no + t)?;
    let lines = block[t + 1..]
        .iter()
        .map(|l| clean_text(&[l]))
        .filter(|l| !l.is_empty())
        .collect();
    Ok(Some(Block { start, end, lines }))
}

/// Each line once: a line already on screen in the previous cue is a
/// repeat of the scroll, not new speech.
fn fold_rolling(blocks: Vec<Block>) -> Vec<Cue> {
    let mut out = Vec::new();
    let mut on_screen: Vec<String> = Vec::new();
    for b in blocks {
        for line in &b.lines {
            if !on_screen.contains(line) {
                out.push(Cue {
                    start: b.start,
                    end: b.end,
                    text: line.clone(),
                });
            }
        }
        on_screen = b.lines;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whisper_vtt_gives_one_cue_per_block() {
        let text = "WEBVTT\n\n00:00.000 --> 00:15.920\nHello and welcome\n\n1\n01:00:15.920 --> 01:00:20.880 align:start\nline one\nline two\n\nNOTE a comment\n\n00:21.000 --> 00:22.000\n\n";
        let cues = parse(text).unwrap();
        assert_eq!(cues.len(), 3);
        assert_eq!(cues[0].text, "Hello and welcome");
        assert_eq!((cues[1].start, cues[1].end), (3615.92, 3620.88));
        assert_eq!(cues[1].text, "line one line two");
        assert_eq!(cues[2].text, "", "an empty cue is kept, not dropped");
    }

    #[test]
    fn youtube_rolling_auto_captions_give_each_line_once() {
        let text = "WEBVTT\nKind: captions\nLanguage: en\n\n\
00:00:00.000 --> 00:00:02.350 align:start position:0%\n \nhello<00:00:00.320><c> world</c><00:00:00.640><c> this</c>\n\n\
00:00:02.350 --> 00:00:02.360 align:start position:0%\nhello world this\n \n\n\
00:00:02.360 --> 00:00:05.000 align:start position:0%\nhello world this\nis<00:00:02.800><c> the</c><00:00:03.000><c> next</c>\n\n\
00:00:05.000 --> 00:00:05.010 align:start position:0%\nis the next\n \n\n\
00:00:05.010 --> 00:00:07.000 align:start position:0%\nis the next\nline &amp; more<00:00:05.500><c> words</c>\n";
        let cues = parse(text).unwrap();
        let got: Vec<(f64, &str)> = cues.iter().map(|c| (c.start, c.text.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (0.0, "hello world this"),
                (2.36, "is the next"),
                (5.01, "line & more words")
            ]
        );
    }

    #[test]
    fn a_half_parsed_timing_is_an_error_naming_the_line() {
        let err = parse("WEBVTT\n\n00:01.000 --> 00:0x.000\nhi\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 3: unreadable end time in timing line \"00:01.000 --> 00:0x.000\""
        );
        let err = parse("hello\n").unwrap_err().to_string();
        assert!(err.contains("first line must be WEBVTT"), "{err}");
    }
}
