//! The words side: BM25 over the passages' words, from postings written
//! beside the vectors.
//!
//! `words.fst` maps each word (normalised as the index normalises it,
//! [`crate::text::tokens`]) to an offset in `words.bin`, where its list
//! is: a varint count of passages, then per passage, ascending, a varint
//! delta of its number and a varint count of the word in it. A
//! passage's length in words is in its record ([`super::store`]).
//!
//! Score: BM25 with k1 = [`K1`] and b = [`B`], the idf
//! `ln(1 + (N − df + 0.5) / (df + 0.5))` (never negative), summed over
//! the query's distinct words. These rank; the page postings still
//! decide every count the other tools give.

use std::collections::{BTreeMap, HashMap};

use crate::index::postings::{get_varint, put_varint};

/// BM25's term-frequency saturation.
pub const K1: f32 = 1.2;
/// BM25's length normalisation.
pub const B: f32 = 0.75;

/// A word's list: each passage holding it, ascending, with the word's
/// count there.
pub type List = Vec<(u32, u32)>;

/// Passage words gathered while building.
#[derive(Default)]
pub struct WordsBuilder {
    lists: BTreeMap<String, Vec<(u32, u32)>>,
}

/// Writes `words.fst` and `words.bin` from lists given in word order, each
/// ascending by passage.
pub fn encode<'a>(
    lists: impl Iterator<Item = (&'a [u8], Vec<(u32, u32)>)>,
) -> Result<(Vec<u8>, Vec<u8>), fst::Error> {
    let mut map = fst::MapBuilder::new(Vec::new())?;
    let mut blob = Vec::new();
    for (word, list) in lists {
        map.insert(word, blob.len() as u64)?;
        put_varint(&mut blob, list.len() as u64);
        let mut last = 0;
        for (id, tf) in list {
            put_varint(&mut blob, u64::from(id - last));
            put_varint(&mut blob, u64::from(tf));
            last = id;
        }
    }
    Ok((map.into_inner()?, blob))
}

impl WordsBuilder {
    /// Adds passage `id`'s words (ids ascending across calls); returns its
    /// length in words.
    pub fn add(&mut self, id: u32, text: &str) -> u32 {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut length = 0;
        for w in crate::text::tokens(text) {
            *counts.entry(w).or_default() += 1;
            length += 1;
        }
        for (w, tf) in counts {
            self.lists.entry(w).or_default().push((id, tf));
        }
        length
    }

    /// The bytes of `words.fst` and `words.bin`.
    pub fn finish(self) -> Result<(Vec<u8>, Vec<u8>), fst::Error> {
        let sorted = self.lists.into_iter().map(|(word, mut list)| {
            list.sort_unstable();
            (word, list)
        });
        let owned: Vec<(String, Vec<(u32, u32)>)> = sorted.collect();
        encode(owned.iter().map(|(w, l)| (w.as_bytes(), l.clone())))
    }
}

/// The words side of a store, opened.
pub struct Words {
    map: fst::Map<Vec<u8>>,
    blob: Vec<u8>,
    /// Each passage's part of BM25's denominator,
    /// `K1 × (1 − B + B × length / mean length)`, worked out once at open.
    norms: Vec<f32>,
}

impl Words {
    /// The words side from the bytes of `words.fst` and `words.bin`, and
    /// each passage's length in words with their mean.
    pub fn new(
        map: fst::Map<Vec<u8>>,
        blob: Vec<u8>,
        lengths: impl Iterator<Item = u32>,
        mean_length: f32,
    ) -> Words {
        let mean = mean_length.max(1.0);
        let norms = lengths
            .map(|l| K1 * (1.0 - B + B * l as f32 / mean))
            .collect();
        Words { map, blob, norms }
    }

    /// The passages holding `word`, with its count in each, decoded as
    /// they are read; `None` when no passage holds it.
    fn postings(&self, word: &str) -> Option<Postings<'_>> {
        let mut at = self.map.get(word)? as usize;
        let left = get_varint(&self.blob, &mut at)?;
        Some(Postings {
            blob: &self.blob,
            at,
            left,
            id: 0,
        })
    }

    /// How many passages there are.
    pub fn passages(&self) -> u32 {
        self.norms.len() as u32
    }

    /// How many passages hold `word`; `None` when none does.
    pub fn df(&self, word: &str) -> Option<u32> {
        u32::try_from(self.postings(word)?.left).ok()
    }

    /// BM25's idf of a word `df` passages hold,
    /// `ln(1 + (N − df + 0.5) / (df + 0.5))` (never negative).
    pub fn idf_of(&self, df: u32) -> f32 {
        let (n, df) = (self.norms.len() as f32, df as f32);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The passages holding `word`, with its count in each; `None` when
    /// no passage holds it.
    pub fn list(&self, word: &str) -> Option<List> {
        Some(self.postings(word)?.collect())
    }

    /// Every word and its list, in word order (for tools that rewrite a
    /// store, such as the benchmark's grown copy).
    pub fn for_each(&self, mut f: impl FnMut(&[u8], List)) {
        use fst::Streamer;
        let mut stream = self.map.stream();
        while let Some((word, _)) = stream.next() {
            let word = String::from_utf8_lossy(word).into_owned();
            if let Some(list) = self.list(&word) {
                f(word.as_bytes(), list);
            }
        }
    }

    /// BM25 of every passage `allowed` lets through that holds one of
    /// `words`. Scores add up in a table of every passage (a common
    /// word's list holds most of them; a map was slower than the table),
    /// and only passages that scored are asked whether they are allowed.
    pub fn scores(&self, words: &[String], allowed: &dyn Fn(u32) -> bool) -> Vec<(u32, f32)> {
        let mut table = vec![0f32; self.norms.len()];
        for word in words {
            let Some(list) = self.postings(word) else {
                continue;
            };
            let idf = self.idf_of(u32::try_from(list.left).unwrap_or(u32::MAX));
            for (id, tf) in list {
                let (Some(slot), Some(norm)) =
                    (table.get_mut(id as usize), self.norms.get(id as usize))
                else {
                    continue;
                };
                let tf = tf as f32;
                *slot += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        table
            .into_iter()
            .enumerate()
            .filter(|&(id, s)| s > 0.0 && allowed(id as u32))
            .map(|(id, s)| (id as u32, s))
            .collect()
    }
}

/// A word's list as stored, decoded as it is read: `left` passages to
/// go, `id` the last one read. It ends early at a damaged varint (the
/// store's digests, checked at open, make that a bug, not an input).
struct Postings<'a> {
    blob: &'a [u8],
    at: usize,
    left: u64,
    id: u64,
}

impl Iterator for Postings<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.id += get_varint(self.blob, &mut self.at)?;
        let tf = get_varint(self.blob, &mut self.at)?;
        Some((u32::try_from(self.id).ok()?, u32::try_from(tf).ok()?))
    }
}

#[cfg(test)]
impl Words {
    /// The words side of `texts`, passage `i` holding `texts[i]`.
    pub(crate) fn of_texts(texts: &[&str]) -> Words {
        let mut b = WordsBuilder::default();
        let lengths: Vec<u32> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| b.add(i as u32, t))
            .collect();
        let (map, blob) = b.finish().unwrap();
        let mean = lengths.iter().sum::<u32>() as f32 / lengths.len().max(1) as f32;
        Words::new(fst::Map::new(map).unwrap(), blob, lengths.into_iter(), mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm25_prefers_the_rarer_word_and_the_shorter_passage() {
        let texts = [
            "reward agent reward",
            "the agent said the the the the the the the the the the",
            "the weather",
            "the agent",
        ];
        let words = Words::of_texts(&texts);
        assert_eq!(words.list("agent"), Some(vec![(0, 1), (1, 1), (3, 1)]));
        let s: HashMap<u32, f32> = words
            .scores(&["agent".into(), "reward".into()], &|_| true)
            .into_iter()
            .collect();
        assert!(s[&0] > s[&3] && s[&3] > s[&1], "{s:?}");
        assert!(!s.contains_key(&2));
        let only = words.scores(&["agent".into()], &|i| i != 3);
        assert!(only.iter().all(|(id, _)| *id != 3));
    }
}
