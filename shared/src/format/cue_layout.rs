//! Where a video's cues lie in its JSON text, found without parsing them:
//! one walk over the video object's members and, inside its `cues` array,
//! one SIMD pass for quotes and backslashes, so a reader can parse the
//! few cues it needs and only count the rest.
//!
//! Promise: for text the parser accepts as a video, [`cue_layout`] finds
//! each cue exactly where the parser reads it, or answers `None`. The walk
//! follows the grammar strictly where it decides structure (nesting at
//! most [`MAX_DEPTH`] deep, valid escapes, numbers as JSON writes them,
//! only white space between tokens) and accepts cues of exactly the shape
//! the archive writes (`[start, end, "text"]`, two numbers and a string).
//! Anything else (another shape, a key spelt with an escape, `cues`
//! twice) is `None`, and the caller parses the video whole. The walk does
//! not look inside a string for what the parser would refuse there (a
//! control character): [`Walked::cue_text`] does, for each text a reader
//! uses, and the caller checks the text is UTF-8 once for the whole
//! video.

use std::borrow::Cow;
use std::ops::Range;

use memchr::memchr2;

use super::VideoView;

/// Nesting deeper than this in the members around the cues gives up.
pub const MAX_DEPTH: usize = 64;

/// One cue's place in the video's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCue {
    /// The cue's array, `[` to `]` inclusive.
    pub whole: Range<usize>,
    /// Its text's bytes between the quotes, as written.
    pub text: Range<usize>,
    /// Whether the text holds an escape (its bytes are not its chars).
    pub escaped: bool,
}

/// Where the cues of `video` (one video object, nothing around it but
/// white space) lie: the `cues` value's bytes (`[` to `]`; `None` when
/// the video has no `cues` member), each cue appended to `cues` (cleared
/// first). `None` when the text is not a video this walk can vouch for.
pub fn cue_layout(video: &[u8], cues: &mut Vec<RawCue>) -> Option<Option<Range<usize>>> {
    cues.clear();
    let mut w = Walk {
        bytes: video,
        at: 0,
    };
    let mut array = None;
    w.blank();
    w.seq(b'{', b'}', |w| {
        let key = w.key()?;
        w.colon()?;
        if key != b"cues" {
            return w.value(0);
        }
        if array.is_some() {
            return None;
        }
        let from = w.at;
        w.cues(cues)?;
        array = Some(from..w.at);
        Some(())
    })?;
    w.blank();
    (w.at == video.len()).then_some(array)
}

/// A video walked by [`cue_layout`]: what a reader parses in place of
/// the whole text, each cue's text read where it lies.
pub struct Walked<'a> {
    /// The video's text.
    pub text: &'a str,
    /// The same text with `[]` in place of the cues' array: the other
    /// members, which [`Walked::view`] parses.
    head: String,
    /// Where each cue lies in `text`.
    pub cues: Vec<RawCue>,
}

impl<'a> Walked<'a> {
    /// `text` walked; `None` when the walk cannot vouch for it (the
    /// caller then parses it whole).
    pub fn of(text: &'a str) -> Option<Walked<'a>> {
        let mut cues = Vec::new();
        // The array's ends are its brackets, so the cuts fall between chars.
        let head = match cue_layout(text.as_bytes(), &mut cues)? {
            Some(array) => [&text[..array.start], "[]", &text[array.end..]].concat(),
            None => text.to_string(),
        };
        Some(Walked { text, head, cues })
    }

    /// The video's members other than its cues, parsed (its `cues` left
    /// empty); `None` when they do not parse.
    pub fn view(&self) -> Option<VideoView<'_>> {
        serde_json::from_str(&self.head).ok()
    }

    /// The text of `cue` as the parser reads it: its bytes as written, or
    /// unescaped when it holds an escape; `None` where the parser refuses
    /// it (a control character, a bad escape).
    pub fn cue_text(&self, cue: &RawCue) -> Option<Cow<'a, str>> {
        if !cue.escaped {
            let written = &self.text[cue.text.clone()];
            // Folded, not stopped at the first: the loop vectorises.
            let control = written.bytes().fold(false, |any, b| any | (b < 0x20));
            return (!control).then_some(Cow::Borrowed(written));
        }
        let quoted = &self.text[cue.text.start - 1..cue.text.end + 1];
        serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
    }
}

/// A cursor over the video's bytes.
struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Walk<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let here = self.peek() == Some(b);
        self.at += usize::from(here);
        here
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    /// Skips JSON white space.
    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    /// A member's key, which must be written without escapes.
    fn key(&mut self) -> Option<&'a [u8]> {
        let (text, escaped) = self.string()?;
        let bytes = self.bytes;
        (!escaped).then(|| &bytes[text])
    }

    /// A string: the bytes between its quotes, and whether it holds an
    /// escape.
    fn string(&mut self) -> Option<(Range<usize>, bool)> {
        self.expect(b'"')?;
        let from = self.at;
        let mut escaped = false;
        loop {
            let rest = &self.bytes[self.at..];
            let stop = memchr2(b'"', b'\\', rest)?;
            self.at += stop;
            if self.eat(b'"') {
                return Some((from..self.at - 1, escaped));
            }
            escaped = true;
            self.at += 1;
            self.escape()?;
        }
    }

    /// The rest of an escape, after its backslash.
    fn escape(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
            b'u' => {
                let hex = self.bytes.get(self.at + 1..self.at + 5)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                self.at += 5;
            }
            _ => return None,
        }
        Some(())
    }

    /// A number as JSON writes it ([`number_end`]).
    fn number(&mut self) -> Option<()> {
        self.at = number_end(self.bytes, self.at)?;
        Some(())
    }

    /// Any value, `depth` levels inside the video object.
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.members(depth + 1),
            b'[' => self.elements(depth + 1),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let here = self.bytes.get(self.at..self.at + word.len())?;
        (here == word).then(|| self.at += word.len())
    }

    /// A `:` between a key and its value, with white space around it.
    fn colon(&mut self) -> Option<()> {
        self.blank();
        self.expect(b':')?;
        self.blank();
        Some(())
    }

    /// `open`, then items separated by commas, then `close`, white space
    /// allowed between any two; `item` reads one item.
    fn seq(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(open)?;
        self.blank();
        if self.eat(close) {
            return Some(());
        }
        loop {
            self.blank();
            item(self)?;
            self.blank();
            if self.eat(close) {
                return Some(());
            }
            self.expect(b',')?;
        }
    }

    /// An object, at `depth`.
    fn members(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.seq(b'{', b'}', |w| {
            w.string()?;
            w.colon()?;
            w.value(depth)
        })
    }

    /// An array, at `depth`.
    fn elements(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.seq(b'[', b']', |w| w.value(depth))
    }

    /// The `cues` array, each cue appended to `cues`: one SIMD pass over
    /// it for quotes and backslashes, checking what lies between a text
    /// and the next is the end of one cue and the start of another.
    fn cues(&mut self, cues: &mut Vec<RawCue>) -> Option<()> {
        self.expect(b'[')?;
        self.blank();
        if self.eat(b']') {
            return Some(());
        }
        let bytes = self.bytes;
        let mut stops = memchr::memchr2_iter(b'"', b'\\', &bytes[self.at..]).map(|i| i + self.at);
        let mut from = self.at;
        loop {
            let open = stops.next();
            let gap = &bytes[from..open.unwrap_or(bytes.len())];
            let cue_from = match between(gap, cues.is_empty())? {
                Between::End(len) => {
                    self.at = from + len;
                    return Some(());
                }
                Between::Cue(start) => from + start,
            };
            let open = open.filter(|&i| bytes[i] == b'"')?;
            let mut escaped = false;
            let close = loop {
                let stop = stops.next()?;
                if bytes[stop] == b'"' {
                    break stop;
                }
                escaped = true;
                let len = escape_len(&bytes[stop + 1..])?;
                let resume = stop + 1 + len;
                // A quote or backslash inside the escape is not a stop.
                while let Some(next) = stops.clone().next() {
                    if next >= resume {
                        break;
                    }
                    stops.next();
                }
            };
            let rest = &bytes[close + 1..];
            let after = rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))?;
            if rest[after] != b']' {
                return None;
            }
            from = close + 1 + after + 1;
            cues.push(RawCue {
                whole: cue_from..from,
                text: open + 1..close,
                escaped,
            });
        }
    }
}

/// What lies between one cue's text and the next one's.
enum Between {
    /// The array ends: its last `]` ends this many bytes in.
    End(usize),
    /// Another cue, whose `[` is this many bytes in.
    Cue(usize),
}

/// `gap`, the bytes after a cue's `]` (or, for the `first`, after the
/// array's `[`) up to the next quote.
fn between(gap: &[u8], first: bool) -> Option<Between> {
    let mut at = skip_blank(gap, 0);
    if !first {
        match gap.get(at)? {
            b']' => return Some(Between::End(at + 1)),
            b',' => at = skip_blank(gap, at + 1),
            _ => return None,
        }
    }
    (gap.get(at) == Some(&b'[') && times(&gap[at + 1..])).then_some(Between::Cue(at))
}

fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        at += 1;
    }
    at
}

/// The length of an escape after its backslash; `None` if it is not one.
fn escape_len(rest: &[u8]) -> Option<usize> {
    match rest.first()? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(1),
        b'u' => rest
            .get(1..5)?
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(5),
        _ => None,
    }
}

/// Whether `bytes` are a cue's two times as written before its text:
/// `number , number ,`, with white space around each.
fn times(bytes: &[u8]) -> bool {
    let mut at = 0;
    for _ in 0..2 {
        let Some(end) = number_end(bytes, skip_blank(bytes, at)) else {
            return false;
        };
        at = skip_blank(bytes, end);
        if bytes.get(at) != Some(&b',') {
            return false;
        }
        at += 1;
    }
    skip_blank(bytes, at) == bytes.len()
}

/// Where the number JSON writes (`-? int frac? exp?`) starting at `at`
/// ends; `None` if none starts there.
fn number_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let digits = |from: usize| {
        let rest = bytes.get(from..).unwrap_or_default();
        rest.iter().take_while(|b| b.is_ascii_digit()).count()
    };
    at += usize::from(bytes.get(at) == Some(&b'-'));
    let int = digits(at);
    if int == 0 || (int > 1 && bytes[at] == b'0') {
        return None;
    }
    at += int;
    if bytes.get(at) == Some(&b'.') {
        let frac = digits(at + 1);
        if frac == 0 {
            return None;
        }
        at += 1 + frac;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        at += usize::from(matches!(bytes.get(at), Some(b'+' | b'-')));
        let exp = digits(at);
        if exp == 0 {
            return None;
        }
        at += exp;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::VideoView;

    /// The layout of `json`, and what the parser makes of the same text.
    fn both(json: &str) -> (Option<Option<Range<usize>>>, Vec<RawCue>, bool) {
        let mut cues = Vec::new();
        let layout = cue_layout(json.as_bytes(), &mut cues);
        let parses = serde_json::from_str::<VideoView>(json).is_ok();
        (layout, cues, parses)
    }

    #[test]
    fn each_cue_is_found_where_the_parser_reads_it() {
        let json = r#" {"slug":"s","title":"t \"q\"","tags":["a"],"extra":{"x":[1,true,null,{}]},
            "cues" : [ [0.0,7.44,"plain"], [ -1.5e3 , 2E+1 , "esc \u00e9\n" ] ],"duration":12} "#;
        let (layout, cues, parses) = both(json);
        assert!(parses);
        let array = layout.unwrap().unwrap();
        assert!(json[array.clone()].starts_with("[ [0.0") && json[array].ends_with("\" ] ]"));
        let view: VideoView = serde_json::from_str(json).unwrap();
        assert_eq!(cues.len(), view.cues.len());
        for (raw, cue) in cues.iter().zip(&view.cues) {
            let parsed: crate::format::CueView =
                serde_json::from_str(&json[raw.whole.clone()]).unwrap();
            assert_eq!(parsed.text, cue.text);
            let written = &json[raw.text.clone()];
            assert_eq!(raw.escaped, written != cue.text);
        }
    }

    #[test]
    fn a_video_without_cues_has_no_array() {
        assert_eq!(both(r#"{"slug":"s","title":"t"}"#).0, Some(None));
        assert_eq!(both(r#"{}"#).0, Some(None));
    }

    #[test]
    fn text_the_walk_cannot_vouch_for_is_refused() {
        for json in [
            r#"{"slug":"s","cues":[[0,1,"a"]],"cues":[]}"#,
            r#"{"slug":"s","cu\u0065s":[[0,1,"a"]]}"#,
            r#"{"slug":"s","cues":[[0,1,"a","extra"]]}"#,
            r#"{"slug":"s","cues":[["0",1,"a"]]}"#,
            r#"{"slug":"s","cues":[[0,1,"bad \x escape"]]}"#,
            r#"{"slug":"s","cues":[[01,1,"a"]]}"#,
            r#"{"slug":"s","cues":[[0,1,"a"]]} x"#,
            r#"{"slug":"s","cues":[[0,1,"a"],]}"#,
            r#"{"slug":"s","title":"unterminated}"#,
            r#"{"slug":"s" "title":"t"}"#,
        ] {
            let (layout, _, _) = both(json);
            assert_eq!(layout, None, "{json}");
        }
    }

    #[test]
    fn a_cue_time_is_a_number_as_json_writes_it() {
        for (time, number) in [
            ("0", true),
            ("-0.5", true),
            ("12.25", true),
            ("1.5E-3", true),
            ("2e+10", true),
            ("1.", false),
            ("1e", false),
            ("-", false),
            ("+1", false),
            (".5", false),
            ("00", false),
            ("1x", false),
        ] {
            let json = format!(r#"{{"slug":"s","title":"t","cues":[[{time}, 1 ,"a"]]}}"#);
            let (layout, _, parses) = both(&json);
            assert_eq!(layout.is_some(), number, "{time}");
            assert_eq!(parses, number, "the parser agrees on {time}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_not_recursed() {
        let deep = format!(
            r#"{{"slug":"s","x":{}{}}}"#,
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(cue_layout(deep.as_bytes(), &mut Vec::new()), None);
        let fits = format!(
            r#"{{"x":{}{}}}"#,
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert_eq!(cue_layout(fits.as_bytes(), &mut Vec::new()), Some(None));
    }
}
