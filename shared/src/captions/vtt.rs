//! WebVTT, read the way the W3C WebVTT parsing algorithm reads it,
//! including YouTube's rolling auto-captions.
//!
//! What the standard's parser does, and so this one:
//! - line endings are CRLF, LF or CR, in any mix; the file starts with
//!   `WEBVTT`, alone or followed by a space or tab and anything;
//! - header blocks are skipped: the lines after the signature, `NOTE`
//!   comments anywhere, `STYLE` and `REGION` blocks;
//! - a block is a cue when its first or second line holds `-->`; a line
//!   holding `-->` later in a block ends that block and starts the next,
//!   so a cue identifier may hold `-->`-like text only as its own line;
//! - a timing line is `start --> end` with any whitespace around the
//!   arrow and optional settings after the end; a timestamp is
//!   `[hh…:]mm:ss.ttt` (hours of any length and optional, minutes and
//!   seconds two digits and at most 59, exactly three fraction digits);
//! - a cue whose timing cannot be read is dropped, and the rest of the
//!   file is read; a cue whose end precedes its start is kept as written.
//!
//! Beyond the standard: each dropped cue (and each block that is not a
//! cue) is reported with its line and why, and a file that has no cue at
//! all is an error. YouTube's automatic captions repeat each line as it
//! scrolls up and mark word timings with `<00:00:01.234><c>` tags; such a
//! file (recognised by those tags) is folded so each spoken line comes
//! out once, at the start of the cue where it first appeared.

use super::{clean_text, CaptionError, Parsed, Skipped};
use crate::format::Cue;

/// A cue block as written: its times and its text lines, cleaned.
struct Block {
    start: f64,
    end: f64,
    lines: Vec<String>,
}

/// Parses a WebVTT file; bad cues are skipped and named.
pub fn parse(text: &str) -> Result<Parsed, CaptionError> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    if !is_signature(lines[0]) {
        return Err(CaptionError::File(
            "not a WebVTT file: the first line must be WEBVTT (alone, or followed by a space or tab)"
                .into(),
        ));
    }
    let mut skipped = Vec::new();
    let blocks = read_blocks(&lines, &mut skipped);
    if blocks.is_empty() {
        return Err(CaptionError::File(match skipped.first() {
            Some(s) => format!("no readable cue (line {}: {})", s.line, s.reason),
            None => "no cue in this WebVTT file".into(),
        }));
    }
    let cues = if text.contains("</c>") {
        fold_rolling(blocks)
    } else {
        blocks
            .into_iter()
            .map(|b| Cue {
                start: b.start,
                end: b.end,
                text: b.lines.join(" "),
            })
            .collect()
    };
    Ok(Parsed { cues, skipped })
}

fn is_signature(line: &str) -> bool {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    match line.strip_prefix("WEBVTT") {
        Some(rest) => rest.is_empty() || rest.starts_with([' ', '\t']),
        None => false,
    }
}

/// The cue blocks of the file, in order; what is not a readable cue goes
/// to `skipped` (comments and style or region blocks silently, as they
/// are not meant to be cues).
fn read_blocks(lines: &[&str], skipped: &mut Vec<Skipped>) -> Vec<Block> {
    let mut out = Vec::new();
    // The header: the signature line and the lines after it up to a blank
    // line, unless one of them is already a timing line.
    let mut i = 1;
    while i < lines.len() && !lines[i].is_empty() && !lines[i].contains("-->") {
        i += 1;
    }
    while i < lines.len() {
        if lines[i].is_empty() {
            i += 1;
            continue;
        }
        let first = i;
        let mut arrow = None;
        i += 1;
        if lines[first].contains("-->") {
            arrow = Some(first);
        }
        while i < lines.len() && !lines[i].is_empty() {
            if lines[i].contains("-->") {
                if arrow.is_none() && i == first + 1 {
                    arrow = Some(i);
                } else {
                    break; // starts the next block
                }
            }
            i += 1;
        }
        match arrow {
            Some(t) => match timing(lines[t]) {
                Ok((start, end)) => out.push(Block {
                    start,
                    end,
                    lines: lines[t + 1..i]
                        .iter()
                        .map(|l| clean_text(&[l]))
                        .filter(|l| !l.is_empty())
                        .collect(),
                }),
                Err(reason) => skipped.push(Skipped {
                    line: t + 1,
                    reason: format!(
                        "{reason} in timing line {:?}; this cue was skipped",
                        lines[t]
                    ),
                }),
            },
            None if is_header_block(lines[first]) => {}
            None => skipped.push(Skipped {
                line: first + 1,
                reason: format!(
                    "a block with no `start --> end` timing line, so not a cue: {:?}",
                    lines[first]
                ),
            }),
        }
    }
    out
}

/// `NOTE`, `STYLE` and `REGION` blocks: not cues, and never reported.
fn is_header_block(first: &str) -> bool {
    ["NOTE", "STYLE", "REGION"].iter().any(|k| {
        first
            .strip_prefix(k)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    })
}

const WHITESPACE: [char; 3] = [' ', '\t', '\u{c}'];

/// A timing line: start, `-->`, end, then optional settings.
fn timing(line: &str) -> Result<(f64, f64), &'static str> {
    let (a, rest) = line.split_once("-->").ok_or("no `-->`")?;
    let start = timestamp(a.trim_matches(&WHITESPACE[..])).ok_or("unreadable start time")?;
    let rest = rest.trim_start_matches(&WHITESPACE[..]);
    let end_text = rest.split(&WHITESPACE[..]).next().unwrap_or("");
    let end = timestamp(end_text).ok_or("unreadable end time")?;
    Ok((start, end))
}

/// A WebVTT timestamp, `[h…:]mm:ss.ttt`, in seconds.
pub(super) fn timestamp(text: &str) -> Option<f64> {
    crate::time::parse_clock(text, crate::time::Clock::Vtt)
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

    fn cues(text: &str) -> Vec<(f64, f64, String)> {
        parse(text)
            .unwrap()
            .cues
            .into_iter()
            .map(|c| (c.start, c.end, c.text))
            .collect()
    }

    #[test]
    fn whisper_vtt_gives_one_cue_per_block() {
        let text = "WEBVTT\n\n00:00.000 --> 00:15.920\nHello and welcome\n\n1\n01:00:15.920 --> 01:00:20.880 align:start\nline one\nline two\n\nNOTE a comment\n\n00:21.000 --> 00:22.000\n\n";
        let got = cues(text);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].2, "Hello and welcome");
        assert_eq!((got[1].0, got[1].1), (3615.92, 3620.88));
        assert_eq!(got[1].2, "line one line two");
        assert_eq!(got[2].2, "", "an empty cue is kept, not dropped");
    }

    #[test]
    fn youtube_rolling_auto_captions_give_each_line_once() {
        let text = "WEBVTT\nKind: captions\nLanguage: en\n\n\
00:00:00.000 --> 00:00:02.350 align:start position:0%\n \nhello<00:00:00.320><c> world</c><00:00:00.640><c> this</c>\n\n\
00:00:02.350 --> 00:00:02.360 align:start position:0%\nhello world this\n \n\n\
00:00:02.360 --> 00:00:05.000 align:start position:0%\nhello world this\nis<00:00:02.800><c> the</c><00:00:03.000><c> next</c>\n\n\
00:00:05.000 --> 00:00:05.010 align:start position:0%\nis the next\n \n\n\
00:00:05.010 --> 00:00:07.000 align:start position:0%\nis the next\nline &amp; more<00:00:05.500><c> words</c>\n";
        let got: Vec<(f64, String)> = cues(text).into_iter().map(|c| (c.0, c.2)).collect();
        assert_eq!(
            got,
            vec![
                (0.0, "hello world this".to_string()),
                (2.36, "is the next".to_string()),
                (5.01, "line & more words".to_string())
            ]
        );
    }

    #[test]
    fn a_cue_with_an_unreadable_timing_is_skipped_and_named_and_the_rest_is_read() {
        let parsed = parse(
            "WEBVTT\n\n00:01.000 --> 00:02.000\nbefore\n\n00:40:56.546 --> 00:40:60.000\nlost\n\n00:03.000 --> 00:04.000\nafter\n",
        )
        .unwrap();
        let texts: Vec<&str> = parsed.cues.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["before", "after"]);
        assert_eq!(
            parsed.skipped,
            [Skipped {
                line: 6,
                reason: "unreadable end time in timing line \"00:40:56.546 --> 00:40:60.000\"; this cue was skipped".into()
            }]
        );
        let err = parse("WEBVTT\n\n00:01.000 --> 00:0x.000\nhi\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no readable cue (line 3: unreadable end time in timing line \"00:01.000 --> 00:0x.000\"; this cue was skipped)"
        );
        let err = parse("hello\n").unwrap_err().to_string();
        assert!(err.contains("first line must be WEBVTT"), "{err}");
        assert!(parse("WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n").is_err());
    }

    #[test]
    fn line_endings_headers_and_identifiers_are_read_as_the_standard_reads_them() {
        // CR only, CRLF, a REGION and a STYLE header, a NOTE, an
        // identifier, settings with tabs, hours omitted and long hours.
        let cr = "WEBVTT\r\r00:00.000 --> 00:01.000\rone\r\r00:01.000 --> 00:02.000\rtwo\r";
        assert_eq!(cues(cr).len(), 2);
        let crlf = "WEBVTT - a title\r\nREGION\r\nid:fred\r\n\r\nSTYLE\r\n::cue { color: red }\r\n\r\nNOTE\r\nsome note\r\n\r\nid --> not a timing\r\n00:00.000\t-->\t00:01.000\tregion:fred align:left\r\nhi\r\n\r\n100:00:00.000 --> 100:00:01.000\r\nlate\r\n";
        let got = cues(crlf);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], (0.0, 1.0, "hi".to_string()));
        assert_eq!(got[1].0, 360000.0);
        // An identifier cannot hold `-->`: that line is read as a timing
        // line, fails, and its block is skipped, while the real timing
        // line under it starts the next cue.
        let parsed = parse(crlf).unwrap();
        assert_eq!(parsed.skipped.len(), 1, "{:?}", parsed.skipped);
        assert_eq!(parsed.skipped[0].line, 11);
    }

    #[test]
    fn an_arrow_line_inside_a_cue_starts_the_next_cue_and_a_reversed_cue_is_kept() {
        let text = "WEBVTT\n\n00:00.000 --> 00:01.000\nfirst\n00:02.000 --> 00:03.000\nsecond\n\n00:05.000 --> 00:04.000\nbackwards\n";
        let got = cues(text);
        assert_eq!(
            got,
            [
                (0.0, 1.0, "first".to_string()),
                (2.0, 3.0, "second".to_string()),
                (5.0, 4.0, "backwards".to_string())
            ]
        );
    }

    #[test]
    fn timestamps_follow_the_standard() {
        assert_eq!(timestamp("00:15.920"), Some(15.92));
        assert_eq!(timestamp("1:02:03.500"), Some(3723.5));
        assert_eq!(timestamp("123:00:00.000"), Some(442800.0));
        for bad in [
            "0:15.920",
            "00:60.000",
            "00:1.000",
            "00:15.92",
            "00:15,920",
            "00:15",
            "1:2:03.000",
            "00:61:00.000",
        ] {
            assert_eq!(timestamp(bad), None, "{bad}");
        }
    }

    /// Cases modelled on the WebVTT file-parsing suite of
    /// web-platform-tests (`webvtt/parsing/file-parsing`): each file, and
    /// the cue texts (with start and end) the standard's parser keeps.
    #[test]
    fn cases_from_the_web_platform_tests_file_parsing_suite() {
        let ok = |t: &str| (0.0, 1.0, t.to_string());
        type Case = (&'static str, String, Vec<(f64, f64, String)>);
        let cases: Vec<Case> = vec![
            (
                "arrows: a line holding --> ends a cue and is read as a timing line",
                "WEBVTT\n\n-->\n00:00:00.000 --> 00:00:01.000\ntext1\nfoo-->\n00:00:00.000 --> 00:00:01.000\ntext2\n-->foo\n00:00:00.000 --> 00:00:01.000\ntext3\n--->\n00:00:00.000 --> 00:00:01.000\ntext4\n-->-->\n00:00:00.000 --> 00:00:01.000\ntext5\n00:00:00.000 --> 00:00:01.000\ntext6\n\n00:00:00.000 -a -->\n\n00:00:00.000 --a -->\n".into(),
                (1..=6).map(|i| ok(&format!("text{i}"))).collect(),
            ),
            (
                "omitted hours on either side",
                "WEBVTT\n\n00:00.000 --> 00:00:01.000\ntext1\n\n00:00:00.000 --> 00:01.000\ntext2\n\n00:00.000 --> 00:01.000\ntext3\n".into(),
                (1..=3).map(|i| ok(&format!("text{i}"))).collect(),
            ),
            (
                "timestamps with too few digits are not timestamps",
                ["0:00:00.000 --> 00:00:01.000\ntext1", "0000:00.000 --> 00:00:01.000\nbad", "00:0:00.000 --> 00:00:01.000\nbad",
                 "00:00:0.000 --> 00:00:01.000\nbad", "00:00:00.00 --> 00:00:01.000\nbad", "00:00:00 --> 00:00:01.000\nbad",
                 "00:00. --> 00:01.000\nbad", " --> 00:00:01.000\nbad", "00:00.000 --> 0:01.000\nbad",
                 "00:00:00.000 --> 0:00:01.000\ntext2"]
                    .iter()
                    .fold("WEBVTT\n".to_string(), |acc, b| format!("{acc}\n{b}\n")),
                vec![ok("text1"), ok("text2")],
            ),
            (
                "spaces, tabs and form feeds around the arrow; a vertical tab is not whitespace",
                "WEBVTT\n\nspaces\n   00:00:00.000    -->  00:00:01.000 \n   text1\n\ntabs\n\t\t00:00:00.000\t\t-->\t00:00:01.000\t\ntext2\n\nform feed\n\u{c}00:00:00.000\u{c}-->\u{c}00:00:01.000\u{c}\ntext3\n\nvertical tab\n\u{b}00:00:00.000\u{b}-->\u{b}00:00:01.000\u{b}\ntext4\n".into(),
                (1..=3).map(|i| ok(&format!("text{i}"))).collect(),
            ),
            (
                "identifiers may hold spaces and arrow-like text that is not -->",
                "WEBVTT\n\n leading space\n00:00:00.000 --> 00:00:01.000\ntext1\n\n-- >\n00:00:00.000 --> 00:00:01.000\ntext2\n\n->\n00:00:00.000 --> 00:00:01.000\ntext3\n\n \n00:00:00.000 --> 00:00:01.000\ntext4".into(),
                (1..=4).map(|i| ok(&format!("text{i}"))).collect(),
            ),
            (
                "REGION and STYLE header blocks, and a signature followed by text",
                "WEBVTT\tsome title\n\nREGION\nid:r1 width:40%\n\nSTYLE\n::cue { color: lime }\n\n00:00:00.000 --> 00:00:01.000 region:r1\ntext1\n".into(),
                vec![ok("text1")],
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(cues(&text), want, "{name}");
        }
    }
}
