//! The page-wide prefilter: where a phrase's first word can occur in a
//! transcript page, found in one SIMD pass over the page's raw bytes
//! instead of one short search per cue.
//!
//! While a page is set ([`PageHint::within`]), each word asked for is
//! searched once in the page, block by block (each block lowered, ASCII
//! letters only, into a small buffer that stays in cache), with
//! `memchr::memmem`. A cue's text that the JSON parser borrowed from the
//! page (it had no escapes) *is* a slice of those bytes, so whether the
//! word occurs in it is a look-up by the text's address. The hint holds
//! the page (an `Arc`) while it is set, so no other buffer can sit at
//! that address meanwhile, and forgets it when [`PageHint::within`]
//! returns.
//!
//! Promise: [`WordHint::candidates`] leaves a text out only when the text
//! is a slice of the page, is pure ASCII, and does not contain the word
//! in any ASCII letter case. A phrase whose first word is ASCII can start
//! in ASCII text only where that word's bytes occur (normalising ASCII
//! only lowercases it), so leaving such a text out never loses a match.
//! Any other text (unescaped into a copy, or holding a non-ASCII byte,
//! which normalisation may turn into the word) is kept, or left to the
//! caller's own check.

use std::ops::Range;
use std::sync::Arc;

use memchr::memmem;

/// Bytes lowered at a time: small enough to stay in cache.
const BLOCK: usize = 64 * 1024;

/// A page's bytes, shared while the hint holds them.
pub type Shared = Arc<dyn AsRef<[u8]> + Send + Sync>;

impl std::fmt::Debug for PageHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageHint")
            .field(
                "page_bytes",
                &self.page.as_ref().map(|p| (**p).as_ref().len()),
            )
            .field("words", &self.found.len())
            .finish()
    }
}

/// The current page and the words found in it.
#[derive(Default)]
pub struct PageHint {
    /// The page while it is set.
    page: Option<Shared>,
    /// Offsets of the page's non-ASCII bytes, ascending (found with the
    /// first word asked for).
    non_ascii: Option<Vec<usize>>,
    /// Per word searched on this page: its offsets, ascending.
    found: Vec<(Vec<u8>, Vec<usize>)>,
    /// One block of the page, lowered.
    block: Vec<u8>,
}

/// What a pass over a whole page already found, so the hint need not
/// search it again: every offset, ascending, of each word and of every
/// non-ASCII byte of the page (as [`offsets_ignoring_ascii_case`] and
/// [`non_ascii_offsets`] give them over the whole page).
#[derive(Debug, Default)]
pub struct Found {
    /// Each word (lower-case ASCII) and its offsets.
    pub words: Vec<(Vec<u8>, Vec<usize>)>,
    /// The offsets of the non-ASCII bytes.
    pub non_ascii: Vec<usize>,
}

impl PageHint {
    /// Runs `f` with `page` set as the current page (its words' offsets
    /// starting from what a pass over it already `found`), then forgets it.
    pub fn within<T, S: AsMut<PageHint>>(
        scratch: &mut S,
        page: &Shared,
        found: Option<Found>,
        f: impl FnOnce(&mut S) -> T,
    ) -> T {
        scratch.as_mut().set(Some(Arc::clone(page)), found);
        let out = f(scratch);
        scratch.as_mut().set(None, None);
        out
    }

    fn set(&mut self, page: Option<Shared>, found: Option<Found>) {
        self.page = page;
        match found {
            Some(found) => {
                self.non_ascii = Some(found.non_ascii);
                self.found = found.words;
            }
            None => {
                self.non_ascii = None;
                self.found.clear();
            }
        }
    }

    /// The look-up for `word` (lower-case ASCII, not empty) on the current
    /// page, or `None` when no page is set.
    pub fn word(&mut self, word: &[u8]) -> Option<WordHint<'_>> {
        let at = {
            let page = self.page.as_deref()?.as_ref();
            let start = page.as_ptr() as usize;
            start..start + page.len()
        };
        let i = match self.found.iter().position(|(w, _)| w == word) {
            Some(i) => i,
            None => {
                let offsets = self.search(word);
                self.found.push((word.to_vec(), offsets));
                self.found.len() - 1
            }
        };
        Some(WordHint {
            at,
            len: word.len(),
            offsets: &self.found[i].1,
            non_ascii: self.non_ascii.as_deref().unwrap_or_default(),
        })
    }

    /// Every offset of `word` in the page in any ASCII letter case (and,
    /// the first time, the offsets of the non-ASCII bytes). Each block is
    /// lowered with the word's length less one byte of the next, so a
    /// word that starts in a block is found in it.
    fn search(&mut self, word: &[u8]) -> Vec<usize> {
        let Some(shared) = self.page.clone() else {
            return Vec::new();
        };
        let page: &[u8] = (*shared).as_ref();
        if self.non_ascii.is_none() {
            self.non_ascii = Some(non_ascii_offsets(page, 0).collect());
        }
        offsets_ignoring_ascii_case(page, word, &mut self.block)
    }
}

/// Every offset of `word` (lower-case ASCII, not empty) in `page` in any
/// ASCII letter case ([`offsets_of_words`] for one word).
pub fn offsets_ignoring_ascii_case(page: &[u8], word: &[u8], block: &mut Vec<u8>) -> Vec<usize> {
    offsets_of_words(page, &[word], block)
        .pop()
        .unwrap_or_default()
}

/// Every offset of each of `words` (lower-case ASCII, not empty) in
/// `page` in any ASCII letter case, ascending, in one pass: each block of
/// [`BLOCK`] bytes is lowered once into `block` (so the copy stays in
/// cache), with the longest word's length less one byte of the next, and
/// searched for every word; a word is counted in the block it starts in.
pub fn offsets_of_words(page: &[u8], words: &[&[u8]], block: &mut Vec<u8>) -> Vec<Vec<usize>> {
    let finders: Vec<memmem::Finder> = words.iter().map(memmem::Finder::new).collect();
    let longest = words.iter().map(|w| w.len()).max().unwrap_or(0);
    let mut offsets = vec![Vec::new(); words.len()];
    for from in (0..page.len()).step_by(BLOCK) {
        let end = (from + BLOCK).min(page.len());
        let reach = (end + longest.saturating_sub(1)).min(page.len());
        block.clear();
        block.extend(page[from..reach].iter().map(u8::to_ascii_lowercase));
        for (finder, found) in finders.iter().zip(&mut offsets) {
            let starts = finder.find_iter(block).map(|at| from + at);
            found.extend(starts.take_while(|&at| at < end));
        }
    }
    offsets
}

/// The offsets (plus `base`) of the non-ASCII bytes of `bytes`.
pub fn non_ascii_offsets(bytes: &[u8], base: usize) -> impl Iterator<Item = usize> + '_ {
    let chunks = bytes.chunks(64).enumerate();
    let mixed = chunks.filter(|(_, chunk)| !chunk.is_ascii());
    mixed.flat_map(move |(n, chunk)| {
        let high = chunk.iter().enumerate().filter(|(_, b)| !b.is_ascii());
        high.map(move |(i, _)| base + n * 64 + i)
    })
}

/// Where one word occurs on the current page.
#[derive(Debug)]
pub struct WordHint<'a> {
    at: Range<usize>,
    len: usize,
    offsets: &'a [usize],
    non_ascii: &'a [usize],
}

impl WordHint<'_> {
    /// The indices of `texts` the word may occur in: for a slice of the
    /// page, the answer of the page (see the module's promise), found by
    /// cursors that move forward as the texts do; for any other text,
    /// `fallback`'s.
    pub fn candidates(&self, texts: &[&str], fallback: impl Fn(&str) -> bool) -> Vec<usize> {
        let mut words = Cursor::new(self.offsets, self.len);
        let mut high = Cursor::new(self.non_ascii, 1);
        let mut out = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let may = match self.span_of(text) {
                Some(span) => high.any_within(&span) || words.any_within(&span),
                None => fallback(text),
            };
            if may {
                out.push(i);
            }
        }
        out
    }

    /// Where `text` lies in the page, or `None` if it is not a slice of it.
    fn span_of(&self, text: &str) -> Option<Range<usize>> {
        let start = (text.as_ptr() as usize).checked_sub(self.at.start)?;
        let end = start + text.len();
        (end <= self.at.len()).then_some(start..end)
    }
}

/// A forward cursor over ascending offsets of items `len` bytes long.
struct Cursor<'a> {
    offsets: &'a [usize],
    len: usize,
    next: usize,
    last_start: usize,
}

impl<'a> Cursor<'a> {
    fn new(offsets: &'a [usize], len: usize) -> Self {
        Cursor {
            offsets,
            len,
            next: usize::MAX,
            last_start: 0,
        }
    }

    /// Whether an item lies wholly within `span`. Spans are usually asked
    /// in ascending order, so the cursor steps forward; the first span,
    /// and one that goes back, is found by binary search.
    fn any_within(&mut self, span: &Range<usize>) -> bool {
        if self.next == usize::MAX || span.start < self.last_start {
            self.next = self.offsets.partition_point(|&o| o < span.start);
        }
        self.last_start = span.start;
        while self.offsets.get(self.next).is_some_and(|&o| o < span.start) {
            self.next += 1;
        }
        self.offsets
            .get(self.next)
            .is_some_and(|&o| o + self.len <= span.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Scratch(PageHint);
    impl AsMut<PageHint> for Scratch {
        fn as_mut(&mut self) -> &mut PageHint {
            &mut self.0
        }
    }

    /// The page as the hint holds it, and its text.
    fn page_of(text: &str) -> Shared {
        Arc::new(text.as_bytes().to_vec())
    }

    fn text(page: &[u8]) -> &str {
        std::str::from_utf8(page).unwrap()
    }

    #[test]
    fn the_page_hint_never_loses_a_match() {
        let page =
            page_of("[\"Transformers\",\"a TRANSFORMERSz\",\"no\",\"caf\u{e9} x\",\"transform\"]");
        let texts: Vec<&str> = text((*page).as_ref()).split('"').collect();
        let mut s = Scratch::default();
        PageHint::within(&mut s, &page, None, |s| {
            let hint = s.0.word(b"transformers").unwrap();
            let copy = String::from("no Transformers");
            let asked = [texts[1], texts[3], texts[5], &copy, texts[7], texts[9]];
            // The second holds the letters (a whole-word check comes
            // later); the copy is not the page, so the fallback decides;
            // the fifth has a non-ASCII byte, so it is tried.
            assert_eq!(
                hint.candidates(&asked, |t| t.starts_with("no")),
                [0, 1, 3, 4]
            );
            let back = [texts[9], texts[1], texts[5]];
            assert_eq!(hint.candidates(&back, |_| true), [1], "out of order");
        });
        assert!(s.0.word(b"transformers").is_none(), "forgotten after");
    }

    #[test]
    fn a_word_cut_by_the_end_of_a_text_is_not_in_it() {
        let page = page_of("transformers");
        let all = text((*page).as_ref());
        let mut s = Scratch::default();
        PageHint::within(&mut s, &page, None, |s| {
            let hint = s.0.word(b"transformers").unwrap();
            let cut = [&all[..11], &all[1..], all, &all[12..]];
            assert_eq!(hint.candidates(&cut, |_| true), [2]);
        });
    }

    #[test]
    fn a_word_across_a_block_boundary_is_found_once() {
        for at in [BLOCK - 5, BLOCK - 1, BLOCK, 2 * BLOCK - 11] {
            let mut body = "x".repeat(at);
            body.push_str("CaFé Transformers");
            body.push_str(&"y".repeat(BLOCK));
            let page = page_of(&body);
            let mut s = Scratch::default();
            PageHint::within(&mut s, &page, None, |s| {
                let hint = s.0.word(b"transformers").unwrap();
                assert_eq!(hint.offsets, [at + 6], "word at {at}");
                assert_eq!(hint.non_ascii, [at + 3, at + 4], "é at {at}");
            });
        }
    }

    #[test]
    fn words_of_any_length_searched_in_one_pass_are_each_found_once() {
        let mut page = vec![b'x'; 3 * BLOCK];
        page[BLOCK - 3..BLOCK + 3].copy_from_slice(b"SpeeCH");
        page[2 * BLOCK - 1..2 * BLOCK + 1].copy_from_slice(b"aB");
        page[7..9].copy_from_slice(b"ab");
        let words: [&[u8]; 2] = [b"speech", b"ab"];
        let mut block = Vec::new();
        let found = offsets_of_words(&page, &words, &mut block);
        assert_eq!(found, [vec![BLOCK - 3], vec![7, 2 * BLOCK - 1]]);
        for (word, offsets) in words.iter().zip(&found) {
            assert_eq!(
                &offsets_ignoring_ascii_case(&page, word, &mut block),
                offsets
            );
        }
    }
}

#[cfg(test)]
#[path = "prefilter_property.rs"]
pub(crate) mod property;
