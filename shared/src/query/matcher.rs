//! Deciding hits on the real text: phrases of whole words (optional final
//! `*`) and regexes, both running on across the consecutive units (cues,
//! or the single text of a title) of one field.
//!
//! Phrase: the query's words, normalised by [`crate::text`], must occur as
//! consecutive tokens of the field's token stream; the last one only as a
//! prefix when the query ends in `*`. Regex: runs on the raw text of the
//! field's units joined by single spaces, case-insensitive unless asked
//! otherwise. Either way the hit is the unit where the match starts, and a
//! unit is reported once however many matches start in it.

use memchr::memmem;
use regex::{Regex, RegexBuilder};

use super::prefilter::PageHint;
use super::QueryError;

use crate::text::append_words;

/// The longest query or regex accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 1000;

/// A compiled query.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// A phrase of whole words.
    Phrase(Phrase),
    /// A regex over the raw text.
    Regex(Regex),
}

/// A phrase's normalised words; `prefix` when the last one ends in `*`.
#[derive(Debug, Clone)]
pub struct Phrase {
    /// The normalised words, in order.
    pub words: Vec<String>,
    /// Whether the last word is a prefix (`word*`).
    pub prefix: bool,
    /// `" w1 w2 w3"`, what is searched for in a [`TokenStream`].
    needle: String,
}

impl Matcher {
    /// A plain query: whole words, optional final `*`.
    pub fn phrase(query: &str) -> Result<Matcher, QueryError> {
        check_length(query)?;
        let trimmed = query.trim();
        let prefix = trimmed.ends_with('*');
        let words = crate::text::tokens(trimmed.trim_end_matches('*'));
        if words.is_empty() {
            return Err(QueryError::NoWords {
                query: query.to_string(),
            });
        }
        let needle: String = words.iter().map(|w| format!(" {w}")).collect();
        Ok(Matcher::Phrase(Phrase {
            words,
            prefix,
            needle,
        }))
    }

    /// A regex, case-insensitive unless `case_sensitive`.
    pub fn regex(pattern: &str, case_sensitive: bool) -> Result<Matcher, QueryError> {
        check_length(pattern)?;
        RegexBuilder::new(pattern)
            .case_insensitive(!case_sensitive)
            .size_limit(10 << 20)
            .build()
            .map_err(|e| QueryError::Regex {
                pattern: pattern.to_string(),
                reason: e.to_string(),
            })
            .and_then(|re| match re.is_match("") {
                true => Err(QueryError::EmptyRegex {
                    pattern: pattern.to_string(),
                }),
                false => Ok(Matcher::Regex(re)),
            })
    }

    /// Whether this matcher reads a page's [`PageHint`]: a phrase whose
    /// first word is ASCII (the others never ask for one).
    pub fn uses_page_hint(&self) -> bool {
        matches!(self, Matcher::Phrase(p) if p.words[0].is_ascii())
    }

    /// The units of `units` where a match starts, ascending, each once.
    pub fn hits<'a>(
        &self,
        units: impl Iterator<Item = &'a str> + Clone,
        scratch: &mut TokenStream,
    ) -> Vec<usize> {
        match self {
            Matcher::Phrase(p) if self.uses_page_hint() => {
                let texts: Vec<&str> = units.collect();
                p.hits_windowed(&texts, scratch)
            }
            Matcher::Phrase(p) => {
                scratch.clear();
                for (i, text) in units.enumerate() {
                    scratch.push(text, i);
                }
                scratch.find(p)
            }
            Matcher::Regex(re) => regex_hits(re, units, &mut scratch.joined),
        }
    }
}

impl Phrase {
    /// Hits, tokenising only around the units that can start a match.
    ///
    /// A match starting in a unit of ASCII text needs the first word there
    /// in some letter case, because normalising ASCII only lowercases it;
    /// other units are always tried. While a page is set, the page-wide
    /// [`PageHint`] answers this for the units borrowed from it, in one
    /// pass for the whole page. For a candidate unit the following
    /// units are added until they hold as many words as the phrase, which
    /// is as far as a match starting in it can reach.
    fn hits_windowed(&self, texts: &[&str], scratch: &mut TokenStream) -> Vec<usize> {
        let first = self.words[0].as_bytes();
        let may_start =
            |text: &str| !text.is_ascii() || contains_ignoring_ascii_case(text.as_bytes(), first);
        let candidates: Vec<usize> = match scratch.page.word(first) {
            Some(hint) => hint.candidates(texts, may_start),
            None => (0..texts.len()).filter(|&i| may_start(texts[i])).collect(),
        };
        let mut out = Vec::new();
        for i in candidates {
            let text = texts[i];
            scratch.clear();
            scratch.push(text, i);
            let mut next = i + 1;
            let mut after = 0;
            while next < texts.len() && after < self.words.len() {
                let before = scratch.starts.len();
                scratch.push(texts[next], next);
                after += scratch.starts.len() - before;
                next += 1;
            }
            if scratch.find(self).first() == Some(&i) {
                out.push(i);
            }
        }
        out
    }
}

/// Whether `hay` holds `needle` (lower-case ASCII) in any letter case. It
/// looks for the needle's rarest letter (by English letter frequency), so
/// the SIMD search stops as seldom as it can, then compares around it.
fn contains_ignoring_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    let k = rarest(needle);
    let (lo, up) = (needle[k], needle[k].to_ascii_uppercase());
    memchr::memchr2_iter(lo, up, hay).any(|at| {
        at >= k
            && hay.len() - (at - k) >= needle.len()
            && hay[at - k..at - k + needle.len()].eq_ignore_ascii_case(needle)
    })
}

/// The position of the byte of `needle` least common in English text.
fn rarest(needle: &[u8]) -> usize {
    const COMMON_FIRST: &[u8] = b" etaoinshrdlcumwfgypbvkjxqz";
    let rank = |b: &u8| {
        COMMON_FIRST
            .iter()
            .position(|c| c == b)
            .unwrap_or(COMMON_FIRST.len())
    };
    (0..needle.len())
        .max_by_key(|&i| rank(&needle[i]))
        .unwrap_or(0)
}

fn check_length(q: &str) -> Result<(), QueryError> {
    if q.len() > MAX_QUERY_BYTES {
        return Err(QueryError::TooLong { bytes: q.len() });
    }
    Ok(())
}

fn regex_hits<'a>(
    re: &Regex,
    units: impl Iterator<Item = &'a str>,
    joined: &mut String,
) -> Vec<usize> {
    joined.clear();
    let mut starts = Vec::new();
    for (i, text) in units.enumerate() {
        if i > 0 {
            joined.push(' ');
        }
        starts.push(joined.len());
        joined.push_str(text);
    }
    let mut out: Vec<usize> = Vec::new();
    for m in re.find_iter(joined) {
        let unit = starts
            .partition_point(|&s| s <= m.start())
            .saturating_sub(1);
        if out.last() != Some(&unit) {
            out.push(unit);
        }
    }
    out
}

/// A field's normalised tokens as one string (`" t1 t2 t3"`), with the
/// unit each token came from. Reused across videos to save allocations.
#[derive(Debug, Default)]
pub struct TokenStream {
    buf: String,
    /// Byte offset in `buf` of each token's leading space.
    starts: Vec<u32>,
    units: Vec<u32>,
    joined: String,
    /// The page being confirmed, when one is set (see [`PageHint::within`]).
    page: PageHint,
}

impl AsMut<PageHint> for TokenStream {
    fn as_mut(&mut self) -> &mut PageHint {
        &mut self.page
    }
}

impl TokenStream {
    fn clear(&mut self) {
        self.buf.clear();
        self.starts.clear();
        self.units.clear();
    }

    fn push(&mut self, text: &str, unit: usize) {
        let (starts, units) = (&mut self.starts, &mut self.units);
        append_words(text, &mut self.buf, |at| {
            starts.push(at as u32);
            units.push(unit as u32);
        });
    }

    /// Units where the phrase starts.
    fn find(&self, p: &Phrase) -> Vec<usize> {
        let finder = memmem::Finder::new(p.needle.as_bytes());
        let hay = self.buf.as_bytes();
        let mut out: Vec<usize> = Vec::new();
        let mut from = 0;
        while let Some(found) = finder.find(&hay[from..]) {
            let at = from + found;
            from = at + 1;
            let end = at + p.needle.len();
            let whole_word = p.prefix || end == hay.len() || hay[end] == b' ';
            if !whole_word {
                continue;
            }
            // `at` is a token start: every token starts with the space.
            let Ok(token) = self.starts.binary_search(&(at as u32)) else {
                continue;
            };
            let unit = self.units[token] as usize;
            if out.last() != Some(&unit) {
                out.push(unit);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_blind_prefilter_finds_the_needle_wherever_its_rarest_letter_falls() {
        assert_eq!(rarest(b"transformers"), 5, "f is the rarest");
        for (hay, found) in [
            ("TRANSFORMERS", true),
            ("a Transformers z", true),
            ("transformer", false),
            ("fers transformerz", false),
            ("f", false),
            ("xtransformersx", true),
        ] {
            assert_eq!(
                contains_ignoring_ascii_case(hay.as_bytes(), b"transformers"),
                found,
                "{hay}"
            );
        }
        assert!(contains_ignoring_ascii_case(b"zq", b"zq"));
        assert!(!contains_ignoring_ascii_case(b"q", b"zq"));
    }

    fn hits(m: &Matcher, units: &[&str]) -> Vec<usize> {
        m.hits(units.iter().copied(), &mut TokenStream::default())
    }

    #[test]
    fn a_phrase_of_whole_words_matches_across_cues_at_its_first_word() {
        let m = Matcher::phrase("k cups").unwrap();
        assert_eq!(
            hits(
                &m,
                &["I love K-Cups", "no", "buy k.", "cups now", "hiccups"]
            ),
            [0, 2]
        );
        let cup = Matcher::phrase("cup").unwrap();
        assert_eq!(hits(&cup, &["hiccups", "cupcake", "a cup", "CUP!"]), [2, 3]);
        let pre = Matcher::phrase("cup*").unwrap();
        assert_eq!(hits(&pre, &["hiccups", "cupcake", "a cup"]), [1, 2]);
        let diacritics = Matcher::phrase("CAFE au").unwrap();
        assert_eq!(
            hits(&diacritics, &["un café", "au lait", "cafe au"]),
            [0, 2]
        );
    }

    #[test]
    fn windowed_phrase_search_equals_the_full_token_stream() {
        let units = [
            "I love K-",
            "Cups",
            "",
            "!!",
            "k",
            "",
            "CUPS and café K",
            "cups",
            "k cups k cups",
        ];
        for q in [
            "k cups",
            "cups",
            "k",
            "k cups k",
            "cups and cafe",
            "cup*",
            "and cafe k cups",
        ] {
            let Matcher::Phrase(p) = Matcher::phrase(q).unwrap() else {
                unreachable!()
            };
            let mut full = TokenStream::default();
            full.clear();
            for (i, u) in units.iter().enumerate() {
                full.push(u, i);
            }
            assert_eq!(
                p.hits_windowed(&units, &mut TokenStream::default()),
                full.find(&p),
                "{q}"
            );
        }
    }

    #[test]
    fn a_phrase_whose_words_repeat_finds_every_start() {
        let m = Matcher::phrase("la la").unwrap();
        assert_eq!(hits(&m, &["la", "la", "la"]), [0, 1]);
    }

    #[test]
    fn a_regex_runs_on_raw_text_joined_by_spaces() {
        let m = Matcher::regex("cake cu", false).unwrap();
        assert_eq!(hits(&m, &["a CAKE", "cup", "x"]), [0]);
        let m = Matcher::regex("(k|cake)[ -]?cups?", false).unwrap();
        assert_eq!(hits(&m, &["K-Cups", "cake", "cups", "kcup"]), [0, 1, 3]);
        let strict = Matcher::regex("Cup", true).unwrap();
        assert_eq!(hits(&strict, &["cup", "Cup"]), [1]);
    }

    #[test]
    fn bad_queries_say_what_is_wrong() {
        assert_eq!(
            Matcher::phrase("!!").unwrap_err().to_string(),
            "the query \"!!\" has no words (letters or digits) to search for"
        );
        let e = Matcher::regex("(", false).unwrap_err();
        assert!(matches!(e, QueryError::Regex { .. }));
        assert!(e
            .to_string()
            .starts_with("the regex \"(\" does not compile"));
        let long = "a".repeat(1001);
        assert_eq!(
            Matcher::phrase(&long).unwrap_err(),
            QueryError::TooLong { bytes: 1001 }
        );
        assert_eq!(
            QueryError::TooLong { bytes: 1001 }.to_string(),
            "the query is 1001 bytes long; the limit is 1000"
        );
    }
}
