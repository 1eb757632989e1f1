//! Words of the index's vocabulary near a query word: what speech
//! recognition may have written for it ("Harmontown" heard as
//! "Harmentown").
//!
//! Promise: [`RawIndex::similar`] returns every word of the vocabulary
//! within `max_edits` Levenshtein edits (insert, delete, substitute) of
//! the word, other than the word itself, that at least one video holds,
//! most videos first (ties: alphabetical), at most `limit`. It reads the
//! term dictionary only (an fst Levenshtein automaton), never a page.

use fst::automaton::Levenshtein;
use fst::{IntoStreamer, Streamer};

use super::RawIndex;

/// A word of the vocabulary and how many videos hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The normalised word.
    pub word: String,
    /// Videos (transcript records) that hold it.
    pub videos: u64,
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
    /// The vocabulary's words within `max_edits` of `word` (see the
    /// module's promise); empty when the automaton cannot be built (a
    /// very long word).
    pub fn similar(&self, word: &str, max_edits: u32, limit: usize) -> Vec<Variant> {
        if max_edits == 0 {
            return Vec::new();
        }
        let Ok(automaton) = Levenshtein::new(word, max_edits) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stream = self.terms.search(automaton).into_stream();
        while let Some((term, offset)) = stream.next() {
            if term == word.as_bytes() {
                continue;
            }
            let videos = self.videos_holding(offset).unwrap_or(0);
            if videos > 0 {
                out.push(Variant {
                    word: String::from_utf8_lossy(term).into_owned(),
                    videos,
                });
            }
        }
        out.sort_by(|a, b| b.videos.cmp(&a.videos).then_with(|| a.word.cmp(&b.word)));
        out.truncate(limit);
        out
    }

    /// How many videos hold `word` exactly.
    pub fn videos_with(&self, word: &str) -> u64 {
        self.terms
            .get(word)
            .and_then(|offset| self.videos_holding(offset))
            .unwrap_or(0)
    }
}
