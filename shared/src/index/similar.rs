//! Words of the index's vocabulary near a query word: what speech
//! recognition may have written for it ("Harmontown" heard as
//! "Harmentown").
//!
//! Promise: [`RawIndex::similar`] returns every word of the vocabulary
//! within `max_edits` Levenshtein edits (insert, delete, substitute) of
//! the word, other than the word itself, that at least one video holds
//! in the fields asked about,
//! nearest first (every 1-edit word before any 2-edit one, so a wider
//! search only ever adds words), then most videos, then alphabetical, at
//! most `limit`. It reads the term dictionary only, never a page.
//!
//! The dictionary is walked with [`Edits`], an automaton that keeps the
//! band of one row of the Levenshtein table per prefix (distances in
//! characters, not bytes; at most [`MAX_EDITS`]) and stops descending
//! where every cell of the band is past the limit. Unlike a precompiled
//! DFA (fst's `Levenshtein`, which for a 13-letter word with two edits
//! allocates some 12 MB per lookup and took 50 ms) it costs a few bytes
//! of state per visited node, and allocates nothing.

use fst::{Automaton, IntoStreamer, Streamer};

use super::fields::Fields;
use super::RawIndex;

/// The arguments of a [`RawIndex::similar`] answer: word, edits, limit
/// and fields.
pub(super) type SimilarKey = (String, u32, usize, Fields);

/// The most answers [`RawIndex::similar`] keeps ([`super::memo::Memo`]).
pub(super) const SIMILAR_MEMO: usize = 4096;

/// A word of the vocabulary and how many videos hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The normalised word.
    pub word: String,
    /// Videos that hold it in the fields asked about.
    pub videos: u64,
    /// Its distance from the query word, in character edits.
    pub edits: u32,
}

/// The edits a suggestion may be away from a query word of `len`
/// characters: none under 5, one from 5, two from 8.
pub fn edits_for(len: usize) -> u32 {
    match len {
        0..=4 => 0,
        5..=7 => 1,
        _ => 2,
    }
}

impl RawIndex {
    /// The vocabulary's words within `max_edits` of `word` held in some
    /// field of `f` (see the module's promise).
    pub fn similar(&self, word: &str, max_edits: u32, limit: usize, f: Fields) -> Vec<Variant> {
        if max_edits == 0 {
            return Vec::new();
        }
        let key = (word.to_string(), max_edits, limit, f);
        (self.similar_memo).get_or(key, || self.walk_similar(word, max_edits, limit, f))
    }

    /// [`RawIndex::similar`], walking the vocabulary.
    fn walk_similar(&self, word: &str, max_edits: u32, limit: usize, f: Fields) -> Vec<Variant> {
        let mut out = Vec::new();
        let mut stream = self.terms.search(Edits::new(word, max_edits)).into_stream();
        while let Some((term, offset)) = stream.next() {
            if term == word.as_bytes() {
                continue;
            }
            let videos = self.videos_holding(offset, f).unwrap_or(0);
            if videos > 0 {
                let found = String::from_utf8_lossy(term).into_owned();
                out.push(Variant {
                    edits: distance(word, &found),
                    word: found,
                    videos,
                });
            }
        }
        out.sort_by(|a, b| {
            (a.edits, std::cmp::Reverse(a.videos), &a.word).cmp(&(
                b.edits,
                std::cmp::Reverse(b.videos),
                &b.word,
            ))
        });
        out.truncate(limit);
        out
    }

    /// How many videos hold `word` exactly in some field of `f`.
    pub fn videos_with(&self, word: &str, f: Fields) -> u64 {
        self.terms
            .get(word)
            .and_then(|offset| self.videos_holding(offset, f))
            .unwrap_or(0)
    }
}

/// The Levenshtein distance of `a` and `b`, in characters.
fn distance(a: &str, b: &str) -> u32 {
    strsim::levenshtein(a, b) as u32
}

/// The most edits [`Edits`] counts: a larger `max` is taken as this.
pub const MAX_EDITS: u32 = 2;

/// Half the width of the band of the Levenshtein table an automaton keeps.
const HALF: usize = MAX_EDITS as usize;

/// Words within `max` Levenshtein edits (in characters) of a query word,
/// as an fst automaton over UTF-8 bytes.
#[derive(Debug, Clone)]
pub struct Edits {
    query: Vec<char>,
    max: u8,
}

/// The automaton's state: the band of the Levenshtein row of the prefix
/// read so far (a cell farther than [`MAX_EDITS`] from the diagonal is
/// past any limit, so it is never kept), and the bytes of a character
/// not yet complete. It fits in a few bytes: walking the dictionary
/// allocates nothing.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// Characters read.
    depth: usize,
    /// Cell `k` is the distance to the query's first `depth - HALF + k`
    /// characters (past the limit where that count is out of range).
    band: [u8; 2 * HALF + 1],
    pending: [u8; 4],
    pending_len: u8,
}

impl Edits {
    /// The automaton for `word` within `max` edits (at most [`MAX_EDITS`]).
    pub fn new(word: &str, max: u32) -> Self {
        Edits {
            query: word.chars().collect(),
            max: max.min(MAX_EDITS) as u8,
        }
    }

    /// The distance a cell holds, for a prefix of `column` query
    /// characters and `depth` word characters, at most `max + 1`.
    fn cell(&self, depth: usize, column: isize, band: &[u8; 2 * HALF + 1]) -> u8 {
        let cap = self.max + 1;
        let k = column - depth as isize + HALF as isize;
        if column < 0 || column as usize > self.query.len() || !(0..=2 * HALF as isize).contains(&k)
        {
            return cap;
        }
        band[k as usize]
    }

    /// The row after one more character `c`.
    fn step(&self, row: &Row, c: char) -> Row {
        let cap = self.max + 1;
        let depth = row.depth + 1;
        let mut band = [cap; 2 * HALF + 1];
        for k in 0..band.len() {
            let column = depth as isize - HALF as isize + k as isize;
            if column < 0 || column as usize > self.query.len() {
                continue;
            }
            let value = if column == 0 {
                depth.min(usize::from(cap)) as u8
            } else {
                let q = self.query[column as usize - 1];
                let substitute = self.cell(row.depth, column - 1, &row.band) + u8::from(q != c);
                let delete = self.cell(row.depth, column, &row.band) + 1;
                let insert = if k > 0 { band[k - 1] + 1 } else { cap };
                substitute.min(delete).min(insert)
            };
            band[k] = value.min(cap);
        }
        Row {
            depth,
            band,
            pending: [0; 4],
            pending_len: 0,
        }
    }
}

impl Automaton for Edits {
    type State = Option<Row>;

    fn start(&self) -> Self::State {
        let cap = self.max + 1;
        let mut band = [cap; 2 * HALF + 1];
        for (k, cell) in band.iter_mut().enumerate() {
            if let Some(column) = k.checked_sub(HALF).filter(|&c| c <= self.query.len()) {
                *cell = column.min(usize::from(cap)) as u8;
            }
        }
        Some(Row {
            depth: 0,
            band,
            pending: [0; 4],
            pending_len: 0,
        })
    }

    fn is_match(&self, state: &Self::State) -> bool {
        state.as_ref().is_some_and(|r| {
            r.pending_len == 0 && self.cell(r.depth, self.query.len() as isize, &r.band) <= self.max
        })
    }

    fn can_match(&self, state: &Self::State) -> bool {
        state
            .as_ref()
            .is_some_and(|r| r.band.iter().any(|&d| d <= self.max))
    }

    fn accept(&self, state: &Self::State, byte: u8) -> Self::State {
        let row = state.as_ref()?;
        if row.pending_len == 0 && byte.is_ascii() {
            return Some(self.step(row, char::from(byte)));
        }
        let mut pending = row.pending;
        let len = usize::from(row.pending_len);
        *pending.get_mut(len)? = byte;
        match std::str::from_utf8(&pending[..=len]) {
            Ok(text) => Some(self.step(row, text.chars().next()?)),
            Err(e) if e.error_len().is_none() && len + 1 < 4 => Some(Row {
                pending,
                pending_len: row.pending_len + 1,
                ..*row
            }),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within(query: &str, word: &str, max: u32) -> bool {
        let a = Edits::new(query, max);
        let mut state = a.start();
        for &b in word.as_bytes() {
            state = a.accept(&state, b);
        }
        a.is_match(&state)
    }

    #[test]
    fn distances_count_characters_and_every_kind_of_edit() {
        assert!(within("harmontown", "harmentown", 1), "substitute");
        assert!(within("harmontown", "harmontow", 1), "delete");
        assert!(within("harmontown", "harmonntown", 1), "insert");
        assert!(!within("harmontown", "hormentown", 1));
        assert!(within("harmontown", "hormentown", 2));
        assert!(
            within("zurich", "zürich", 1),
            "one character, two bytes: one edit"
        );
        assert!(!within("zurich", "zuerich", 0));
        assert!(within("zurich", "zurich", 0));
    }

    #[test]
    fn the_automaton_agrees_with_the_edit_distance() {
        // Every pair of short words over a small alphabet (one letter of
        // two bytes), each limit: the banded rows lose no word and keep
        // no word too far.
        let letters = ['a', 'b', 'é'];
        let mut words = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = words
                .iter()
                .flat_map(|w| letters.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(longer);
            words.dedup();
        }
        words.sort();
        words.dedup();
        for query in words.iter().filter(|w| w.chars().count() <= 3) {
            for word in &words {
                let d = strsim::levenshtein(query, word) as u32;
                for max in 0..=MAX_EDITS {
                    assert_eq!(
                        within(query, word, max),
                        d <= max,
                        "{query} / {word} / {max}"
                    );
                }
            }
        }
    }
}
