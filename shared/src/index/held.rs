//! `held.bin`: for each word, how many videos of the transcript pages
//! hold it, in each combination of fields: a word's census over the whole
//! archive, summed from its postings once at build time, so a question
//! asks it of a table instead of walking the word's postings (a common
//! word's run to every page).
//!
//! # Layout (little-endian)
//!
//! ```text
//! u32           W, the words of terms.txt
//! W × u32       for word number n (its line in terms.txt, from 0): the
//!               videos holding it in their captions alone
//! u32           E, the other entries
//! E × 9 bytes   ascending by (number, fields): a u32 word number, a byte
//!               of field bits (see [`Fields`]) other than captions alone,
//!               and a u32 count of the videos holding the word in exactly
//!               those fields
//! ```
//!
//! `meta.json` holds the file's xxh3 (`heldDigest`).
//!
//! Promise: [`Held::census`] is exactly what summing the word's postings
//! over the transcript pages gives ([`super::RawIndex::census`] asks it
//! first and walks the postings only when this file is missing or
//! damaged; `indexer/tests/suite/index.rs` compares the two for every word).

use super::fields::{Census, Fields};
use super::{files, IndexError};

/// Bytes of an entry of a combination other than captions alone.
const ENTRY: usize = 9;

/// A word's census, as the build sums it: videos by exact combination of
/// fields.
#[derive(Default)]
pub struct Tally {
    combinations: Vec<(Fields, u32)>,
}

impl Tally {
    /// Adds a transcript page's posting: `videos` holding the word, in
    /// the fields `census` says (`None`: captions alone).
    pub fn add(&mut self, videos: u32, census: Option<&Census>) {
        match census {
            None => self.add_one(Fields::CAPTIONS, videos),
            Some(c) => c.0.iter().for_each(|&(f, n)| self.add_one(f, n)),
        }
    }

    fn add_one(&mut self, fields: Fields, n: u32) {
        match self.combinations.iter_mut().find(|(f, _)| *f == fields) {
            Some((_, count)) => *count += n,
            None => self.combinations.push((fields, n)),
        }
    }
}

/// `held.bin` for the words' tallies, in word-number order.
pub fn encode(words: &[Tally]) -> Vec<u8> {
    let mut dense = Vec::with_capacity(4 + 4 * words.len());
    let mut sparse = Vec::new();
    dense.extend_from_slice(&(words.len() as u32).to_le_bytes());
    for (n, tally) in words.iter().enumerate() {
        let mut captions = 0;
        let mut others: Vec<(Fields, u32)> = Vec::new();
        for &(f, count) in &tally.combinations {
            match f == Fields::CAPTIONS {
                true => captions = count,
                false if count > 0 => others.push((f, count)),
                false => {}
            }
        }
        dense.extend_from_slice(&captions.to_le_bytes());
        others.sort();
        for (f, count) in others {
            sparse.extend_from_slice(&(n as u32).to_le_bytes());
            sparse.push(f.bits());
            sparse.extend_from_slice(&count.to_le_bytes());
        }
    }
    dense.extend_from_slice(&((sparse.len() / ENTRY) as u32).to_le_bytes());
    dense.extend(sparse);
    dense
}

/// `held.bin`, read and checked.
pub struct Held {
    /// By word number: videos holding it in their captions alone.
    captions: Vec<u32>,
    /// The other combinations: (word number, fields, videos), ascending.
    others: Vec<(u32, Fields, u32)>,
}

impl Held {
    /// The table of `bytes`, whose xxh3 the build recorded as `digest`,
    /// for a vocabulary of `words` words; an error naming the file when
    /// they are not the bytes written or do not fit that vocabulary.
    pub fn open(bytes: &[u8], digest: &str, words: usize) -> Result<Held, IndexError> {
        let damaged = |why: &str| IndexError::damaged(files::HELD, why.to_string());
        if crate::format::spans::digest(bytes) != digest {
            return Err(damaged("its digest is not the one meta.json records"));
        }
        let u32_at = |at: usize| {
            let b = bytes.get(at..at + 4)?;
            Some(u32::from_le_bytes(b.try_into().ok()?))
        };
        if u32_at(0) != Some(words as u32) {
            return Err(damaged("it does not count the words terms.txt holds"));
        }
        let base = 8 + 4 * words;
        let entries = u32_at(base - 4)
            .map(|e| e as usize)
            .filter(|e| bytes.len() == base + e * ENTRY)
            .ok_or_else(|| damaged("its entries do not fill it"))?;
        let captions = (0..words).filter_map(|n| u32_at(4 + 4 * n)).collect();
        let others: Option<Vec<(u32, Fields, u32)>> = (0..entries)
            .map(|i| {
                let at = base + i * ENTRY;
                let fields = Fields::from_bits(bytes[at + 4])?;
                Some((u32_at(at)?, fields, u32_at(at + 5)?))
            })
            .collect();
        let others = others
            .filter(|o| o.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)))
            .ok_or_else(|| damaged("its entries are out of order or name no field"))?;
        Ok(Held { captions, others })
    }

    /// Videos of the transcript pages holding word number `n` in some
    /// field of `f`; `None` for a number past the vocabulary.
    pub fn census(&self, n: u32, f: Fields) -> Option<u64> {
        let captions = *self.captions.get(n as usize)?;
        let first = self.others.partition_point(|e| e.0 < n);
        let others = self.others[first..]
            .iter()
            .take_while(|e| e.0 == n)
            .filter(|e| e.1.meets(f))
            .map(|e| u64::from(e.2));
        let captions = if Fields::CAPTIONS.meets(f) {
            captions
        } else {
            0
        };
        Some(u64::from(captions) + others.sum::<u64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_from_the_table_counts_each_combination_that_meets_the_fields() {
        let (c, t, d) = (Fields::CAPTIONS, Fields::TITLE, Fields::DESCRIPTION);
        let mut words: Vec<Tally> = (0..3).map(|_| Tally::default()).collect();
        words[0].add(4, None);
        words[0].add(3, Some(&Census(vec![(c, 1), (c.with(t), 2)])));
        words[2].add(2, Some(&Census(vec![(d, 2)])));
        let bytes = encode(&words);
        let digest = crate::format::spans::digest(&bytes);
        let held = Held::open(&bytes, &digest, 3).unwrap();
        assert_eq!(held.census(0, c), Some(7));
        assert_eq!(held.census(0, t), Some(2));
        assert_eq!(held.census(0, Fields::EVERY), Some(7));
        assert_eq!(held.census(1, Fields::EVERY), Some(0));
        assert_eq!(held.census(2, c), Some(0));
        assert_eq!(held.census(2, d.with(t)), Some(2));
        assert_eq!(held.census(3, c), None);
        let err = Held::open(&bytes, &digest, 4).err().unwrap();
        assert!(err.to_string().contains("held.bin"), "{err}");
        let mut cut = bytes;
        cut.pop();
        let cut_digest = crate::format::spans::digest(&cut);
        let err = Held::open(&cut, &cut_digest, 3).err().unwrap();
        assert!(err.to_string().contains("do not fill it"), "{err}");
    }
}
