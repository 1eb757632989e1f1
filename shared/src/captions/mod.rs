//! Caption files as people have them, parsed into cues.
//!
//! Formats: WebVTT (incl. YouTube's rolling auto-captions), SRT, Whisper's
//! TSV and JSON, and YouTube's json3 and srv3. Promises: a timestamp is
//! parsed in full or the file is refused naming the line (never a silent
//! `0`); every cue the file holds comes out once, in file order, with
//! markup stripped and entities decoded; YouTube's rolling auto-caption
//! VTT gives each spoken line once, at the time it first appears.

pub mod choose;
pub mod info;
mod srt;
mod vtt;
mod whisper;
mod youtube;

use std::path::Path;

use crate::format::Cue;

/// A caption file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CaptionFormat {
    /// YouTube's timed-text JSON.
    Json3,
    /// YouTube's timed-text XML.
    Srv3,
    /// WebVTT (rolling auto-captions are folded).
    Vtt,
    /// SubRip.
    Srt,
    /// Whisper's JSON output (segments).
    WhisperJson,
    /// Whisper's TSV output (milliseconds).
    WhisperTsv,
}

impl CaptionFormat {
    /// The format of a file, from its extension.
    pub fn of_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "json3" => CaptionFormat::Json3,
            "srv3" => CaptionFormat::Srv3,
            "vtt" => CaptionFormat::Vtt,
            "srt" => CaptionFormat::Srt,
            "json" => CaptionFormat::WhisperJson,
            "tsv" => CaptionFormat::WhisperTsv,
            _ => return None,
        })
    }

    /// The extension this format is written with.
    pub fn extension(self) -> &'static str {
        match self {
            CaptionFormat::Json3 => "json3",
            CaptionFormat::Srv3 => "srv3",
            CaptionFormat::Vtt => "vtt",
            CaptionFormat::Srt => "srt",
            CaptionFormat::WhisperJson => "json",
            CaptionFormat::WhisperTsv => "tsv",
        }
    }
}

/// Why a caption file could not be parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaptionError {
    /// One line is wrong: fix that line, or the file's exporter.
    #[error("line {line}: {reason}")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The whole file is unusable (not UTF-8 JSON, no cues).
    #[error("{0}")]
    File(String),
}

/// A cue that was not read: the line it starts on and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The line number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// What a caption file gave: its cues, and what was skipped.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    /// The cues, in file order.
    pub cues: Vec<Cue>,
    /// Cues (or blocks) that could not be read; the rest of the file was.
    pub skipped: Vec<Skipped>,
}

impl From<Vec<Cue>> for Parsed {
    fn from(cues: Vec<Cue>) -> Self {
        Parsed {
            cues,
            skipped: Vec::new(),
        }
    }
}

/// Parses caption text of a known format, skipping (and naming) the cues
/// of a WebVTT or SRT file whose timing cannot be read, as WebVTT's
/// standard parser does; a file with no readable cue is an error.
pub fn read(format: CaptionFormat, text: &str) -> Result<Parsed, CaptionError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        CaptionFormat::Vtt => vtt::parse(text),
        CaptionFormat::Srt => srt::parse(text),
        CaptionFormat::WhisperTsv => whisper::parse_tsv(text).map(Parsed::from),
        CaptionFormat::WhisperJson => whisper::parse_json(text).map(Parsed::from),
        CaptionFormat::Json3 => youtube::parse_json3(text).map(Parsed::from),
        CaptionFormat::Srv3 => youtube::parse_srv3(text).map(Parsed::from),
    }
}

/// Parses caption text of a known format, strictly: a cue that cannot be
/// read refuses the whole file, naming its line (what a tool that must
/// never present a partial transcript as whole needs).
pub fn parse(format: CaptionFormat, text: &str) -> Result<Vec<Cue>, CaptionError> {
    let parsed = read(format, text)?;
    match parsed.skipped.into_iter().next() {
        Some(s) => Err(CaptionError::Line {
            line: s.line,
            reason: s.reason,
        }),
        None => Ok(parsed.cues),
    }
}

/// Parses `h:mm:ss.mmm`, `mm:ss.mmm` (`,` also accepted before the
/// milliseconds, as SRT writes it) into seconds: [`crate::time::Clock::Caption`].
pub fn parse_timestamp(text: &str) -> Option<f64> {
    crate::time::parse_clock(text, crate::time::Clock::Caption)
}

/// Parses a `start --> end` line (cue settings after `end` are ignored).
pub(crate) fn parse_timing(line: &str, line_no: usize) -> Result<(f64, f64), CaptionError> {
    let bad = |what: &str| CaptionError::Line {
        line: line_no,
        reason: format!("{what} in timing line {line:?}"),
    };
    let (a, rest) = line.split_once("-->").ok_or_else(|| bad("no `-->`"))?;
    let b = rest
        .split_whitespace()
        .next()
        .ok_or_else(|| bad("no end time"))?;
    let start = parse_timestamp(a.trim()).ok_or_else(|| bad("unreadable start time"))?;
    let end = parse_timestamp(b).ok_or_else(|| bad("unreadable end time"))?;
    Ok((start, end))
}

/// Removes `<...>` markup (`<c>`, `<i>`, `<00:00:01.234>`, `<v Name>`).
pub(crate) fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = false;
    for c in text.chars() {
        match c {
            '<' => depth = true,
            '>' if depth => depth = false,
            _ if !depth => out.push(c),
            _ => {}
        }
    }
    out
}

/// Decodes the HTML entities caption files use.
pub(crate) fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').filter(|&end| end <= 10).and_then(|end| {
            let c = match &rest[1..end] {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => ' ',
                "lrm" | "rlm" => '\u{200b}',
                e if e.starts_with("#x") || e.starts_with("#X") => {
                    char::from_u32(u32::from_str_radix(&e[2..], 16).ok()?)?
                }
                e if e.starts_with('#') => char::from_u32(e[1..].parse().ok()?)?,
                _ => return None,
            };
            Some((c, end))
        });
        match decoded {
            Some(('\u{200b}', end)) => rest = &rest[end + 1..],
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Markup stripped, entities decoded, lines joined by single spaces.
pub(crate) fn clean_text(lines: &[&str]) -> String {
    let joined = lines
        .iter()
        .map(|l| strip_tags(l))
        .collect::<Vec<_>>()
        .join(" ");
    decode_entities(&joined)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Milliseconds to seconds with three decimals.
pub(crate) fn ms(ms: f64) -> f64 {
    (ms).round() / 1000.0
}

/// A cue's start and end as read: both finite, the start not negative,
/// and the end not before the start (a shorter end becomes the start).
/// `what` names the cue in the error. A time is never invented: a bad one
/// is refused, not replaced by 0.
pub(crate) fn span(start: f64, end: f64, what: &str) -> Result<(f64, f64), CaptionError> {
    if !start.is_finite() || start < 0.0 {
        return Err(CaptionError::File(format!(
            "{what} starts at {start}, which is not a time (a start is 0 or more)"
        )));
    }
    let end = if end.is_finite() {
        end.max(start)
    } else {
        start
    };
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_in_full_or_not_at_all() {
        assert_eq!(parse_timestamp("00:15.920"), Some(15.92));
        assert_eq!(parse_timestamp("1:02:03.5"), Some(3723.5));
        assert_eq!(parse_timestamp("01:02:03,045"), Some(3723.045));
        for bad in [
            "",
            "12",
            ":12.000",
            "00:1x.000",
            "00:61.000",
            "1:60:00.000",
            "00:10.",
            "a:b:c",
            "00:10.1234",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn entities_and_tags_are_cleaned() {
        assert_eq!(
            clean_text(&["<i>Tom &amp; Jerry</i>", "&lt;3 &#39;hi&#x21;"]),
            "Tom & Jerry <3 'hi!"
        );
        assert_eq!(decode_entities("a &bogus; b & c"), "a &bogus; b & c");
    }

    #[test]
    fn formats_are_known_by_extension() {
        assert_eq!(
            CaptionFormat::of_path(Path::new("x.en-orig.json3")),
            Some(CaptionFormat::Json3)
        );
        assert_eq!(
            CaptionFormat::of_path(Path::new("a.mp3.vtt")),
            Some(CaptionFormat::Vtt)
        );
        assert_eq!(CaptionFormat::of_path(Path::new("a.mp3")), None);
    }
}
