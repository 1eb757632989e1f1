//! `words.bin`: for each video the index read, the words it says and in
//! which of its fields: the postings turned the other way, so the words
//! of a few videos are known without reading them (`significant_terms`
//! counts its foreground from here).
//!
//! # Layout
//!
//! ```text
//! u32 LE        N, the records: one per row of videos.json.zst, in its order
//!               (the row of record i is row i, as in spans.bin)
//! u32 LE        K, the common words: those held by at least one video in
//!               COMMON_SHARE, most held first
//! K × u32 LE    each common word's number (its line in terms.txt, from 0)
//! (N+1) × u64 LE
//!               where each record starts in the lists that follow,
//!               ascending; record i is lists[start(i)..start(i+1)], and
//!               an empty record means "not known" (then a caller reads
//!               the video)
//! lists         per record: a bitmap of ceil(K / 8) bytes, bit r % 8 of
//!               byte r / 8 set when the video says common word r in its
//!               captions alone; then a varint count of its other words,
//!               and each, by ascending number, as a varint
//!               (gap << 1 | flag), gap being how far the number is past
//!               the previous one's plus one (the first's: past 0); flag 0
//!               when the video says the word in its captions alone, else
//!               a byte of field bits follows (see [`Fields`])
//! ```
//!
//! Why a bitmap: a common word costs a bit in every list, where an entry
//! costs a byte or more in the lists holding it, so the bitmap is the
//! shorter wherever more than about one video in [`COMMON_SHARE`] holds
//! the word (on 12,629 podcast videos it takes the file from 17.0 to
//! 10.1 MB).
//!
//! `meta.json` holds the file's xxh3 (`wordsDigest`).
//!
//! Promises: [`WordLists::open`] refuses a file whose bytes are not the
//! ones the build wrote, or whose tables do not hold together;
//! [`WordLists::words`] gives back exactly the words (in some order)
//! [`encode_list`] wrote for a record, and `None` for bytes it did not
//! write (a number out of order or past the vocabulary, unknown field
//! bits, trailing or missing bytes). A list holds a word in exactly the
//! fields the build tokenised it from (title, description, tags,
//! captions); the channel's name, which every video of a page shares, is
//! in no list.

use super::fields::Fields;
use super::postings::{get_varint, put_varint};
use super::{files, IndexError};

/// A word held by at least one video in this many is common: kept as a
/// bit of every list rather than an entry of those that hold it.
pub const COMMON_SHARE: u64 = 10;

/// The common words, most held first: their numbers, and for each word
/// number its rank among them.
#[derive(Default)]
pub struct Common {
    numbers: Vec<u32>,
    rank: Vec<Option<u32>>,
}

impl Common {
    /// The common words among a vocabulary where word `n` is held by
    /// `held[n]` of `videos` videos.
    pub fn of(held: &[u64], videos: u64) -> Common {
        let floor = videos.div_ceil(COMMON_SHARE).max(1);
        let mut numbers: Vec<u32> = (0..held.len() as u32)
            .filter(|&n| held[n as usize] >= floor)
            .collect();
        numbers.sort_by_key(|&n| (std::cmp::Reverse(held[n as usize]), n));
        Common::from_numbers(numbers, held.len())
    }

    /// The common words `numbers`, by rank, of a vocabulary of `words`.
    fn from_numbers(numbers: Vec<u32>, words: usize) -> Common {
        let mut rank = vec![None; words];
        for (r, &n) in numbers.iter().enumerate() {
            if let Some(slot) = rank.get_mut(n as usize) {
                *slot = Some(r as u32);
            }
        }
        Common { numbers, rank }
    }

    /// Bytes of a list's bitmap.
    fn bitmap_len(&self) -> usize {
        self.numbers.len().div_ceil(8)
    }
}

/// Appends the list of `words` (ascending by number, each once) as
/// `words.bin` spells one record, with `common` as its bitmap's words.
pub fn encode_list(out: &mut Vec<u8>, words: &[(u32, Fields)], common: &Common) {
    let at = out.len();
    out.resize(at + common.bitmap_len(), 0);
    let in_bitmap = |&(n, f): &(u32, Fields)| {
        let rank = common.rank.get(n as usize).copied().flatten();
        rank.filter(|_| f == Fields::CAPTIONS)
    };
    let mut rest = Vec::with_capacity(words.len());
    for w in words {
        match in_bitmap(w) {
            Some(r) => out[at + r as usize / 8] |= 1 << (r % 8),
            None => rest.push(*w),
        }
    }
    put_varint(out, rest.len() as u64);
    let mut next = 0u32;
    for &(number, fields) in &rest {
        debug_assert!(number >= next, "words must ascend");
        let gap = u64::from(number - next);
        let plain = fields == Fields::CAPTIONS;
        put_varint(out, gap << 1 | u64::from(!plain));
        if !plain {
            out.push(fields.bits());
        }
        next = number + 1;
    }
}

/// The words `encode_list` wrote in `bytes` (all of them) with `common`,
/// checking each number is below `vocabulary`; `None` for bytes it did
/// not write.
pub fn decode_list(bytes: &[u8], vocabulary: u32, common: &[u32]) -> Option<Vec<(u32, Fields)>> {
    let (bitmap, rest) = bytes.split_at_checked(common.len().div_ceil(8))?;
    let mut words = Vec::new();
    for (i, &byte) in bitmap.iter().enumerate() {
        let mut bits = byte;
        while bits != 0 {
            let r = i * 8 + bits.trailing_zeros() as usize;
            words.push((*common.get(r)?, Fields::CAPTIONS));
            bits &= bits - 1;
        }
    }
    let mut at = 0;
    let count = get_varint(rest, &mut at)?;
    // A word takes at least a byte: a larger count is damage, and must
    // not size an allocation.
    if count > rest.len() as u64 {
        return None;
    }
    words.reserve(count as usize);
    let mut next = 0u64;
    for _ in 0..count {
        let v = get_varint(rest, &mut at)?;
        let number = next.checked_add(v >> 1)?;
        if number >= u64::from(vocabulary) {
            return None;
        }
        let fields = match v & 1 {
            0 => Fields::CAPTIONS,
            _ => {
                let bits = *rest.get(at)?;
                at += 1;
                Fields::from_bits(bits).filter(|f| !f.meets(Fields::CHAT.with(Fields::POSTS)))?
            }
        };
        words.push((number as u32, fields));
        next = number + 1;
    }
    (at == rest.len()).then_some(words)
}

/// `words.bin` for `lists`, one per record in the rows' order (`None`:
/// not known), each encoded with `common`.
pub fn encode(lists: &[Option<Vec<u8>>], common: &Common) -> Vec<u8> {
    let k = common.numbers.len();
    let mut out = Vec::with_capacity(HEAD + 4 * k + 8 * (lists.len() + 1));
    out.extend_from_slice(&(lists.len() as u32).to_le_bytes());
    out.extend_from_slice(&(k as u32).to_le_bytes());
    for n in &common.numbers {
        out.extend_from_slice(&n.to_le_bytes());
    }
    let mut start = 0u64;
    out.extend_from_slice(&start.to_le_bytes());
    for list in lists {
        start += list.as_ref().map_or(0, |l| l.len() as u64);
        out.extend_from_slice(&start.to_le_bytes());
    }
    for list in lists.iter().flatten() {
        out.extend_from_slice(list);
    }
    out
}

/// Bytes of the two counts at the head of the file.
const HEAD: usize = 8;

/// `words.bin`, read whole and checked.
pub struct WordLists {
    bytes: Vec<u8>,
    records: usize,
    /// The common words' numbers, by rank.
    common: Vec<u32>,
    /// Where the table of starts begins.
    table: usize,
    /// Words in the vocabulary: every number in a list is below it.
    vocabulary: u32,
}

impl WordLists {
    /// The lists of `bytes`, whose xxh3 the build recorded as `digest`,
    /// for a vocabulary of `vocabulary` words; an error naming the file
    /// when they are not the bytes written or do not hold together.
    pub fn open(bytes: Vec<u8>, digest: &str, vocabulary: u32) -> Result<WordLists, IndexError> {
        let damaged = |why: &str| IndexError::damaged(files::WORDS, why.to_string());
        if crate::format::spans::digest(&bytes) != digest {
            return Err(damaged("its digest is not the one meta.json records"));
        }
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        };
        let (Some(records), Some(k)) = (u32_at(0), u32_at(4)) else {
            return Err(damaged("it is shorter than its head"));
        };
        let common: Option<Vec<u32>> = (0..k as usize).map(|r| u32_at(HEAD + 4 * r)).collect();
        let common = common
            .filter(|c| c.iter().all(|&n| n < vocabulary))
            .ok_or_else(|| damaged("its common words are cut short or past the vocabulary"))?;
        let table = HEAD + 4 * common.len();
        let lists = WordLists {
            records: records as usize,
            common,
            table,
            vocabulary,
            bytes,
        };
        let base = lists.base();
        let ends_fit = base <= lists.bytes.len() && {
            let len = (lists.bytes.len() - base) as u64;
            let starts: Vec<u64> = (0..=lists.records).map(|i| lists.start(i)).collect();
            starts[0] == 0
                && starts.windows(2).all(|w| w[0] <= w[1])
                && starts[lists.records] == len
        };
        if !ends_fit {
            return Err(damaged("its table of lists does not fit its lists"));
        }
        Ok(lists)
    }

    /// Where the lists begin.
    fn base(&self) -> usize {
        self.table + 8 * (self.records + 1)
    }

    /// Where record `i`'s list starts among the lists (`i` ≤ records;
    /// `open` checked the table is all there).
    fn start(&self, i: usize) -> u64 {
        let at = self.table + 8 * i;
        let word = self
            .bytes
            .get(at..at + 8)
            .and_then(|b| b.first_chunk().copied());
        word.map_or(0, u64::from_le_bytes)
    }

    /// Record `i`'s list as written (`None`: unknown, or no such record).
    fn list(&self, i: usize) -> Option<&[u8]> {
        if i >= self.records {
            return None;
        }
        let (start, end) = (self.start(i) as usize, self.start(i + 1) as usize);
        let list = self.bytes.get(self.base() + start..self.base() + end)?;
        (!list.is_empty()).then_some(list)
    }

    /// The words of record `i` and the fields it says each in, in no
    /// particular order; `None` when the build did not know them or the
    /// list is damaged.
    pub fn words(&self, i: usize) -> Option<Vec<(u32, Fields)>> {
        decode_list(self.list(i)?, self.vocabulary, &self.common)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Vec<(u32, Fields)>> {
        let title_too = Fields::CAPTIONS.with(Fields::TITLE);
        vec![
            vec![
                (0, Fields::CAPTIONS),
                (3, title_too),
                (4, Fields::TAGS),
                (9, Fields::CAPTIONS),
            ],
            vec![],
            vec![
                (3, Fields::CAPTIONS),
                (200, Fields::CAPTIONS),
                (70_000, Fields::DESCRIPTION),
            ],
            vec![(9, Fields::CAPTIONS), (3, Fields::CAPTIONS)],
        ]
    }

    /// Words 3 and 9 are common (held by two of the four records, with
    /// one in two as the share).
    fn common() -> Common {
        Common::from_numbers(vec![3, 9], 70_001)
    }

    fn file(lists: &[Vec<(u32, Fields)>], unknown: usize) -> Vec<u8> {
        let encoded: Vec<Option<Vec<u8>>> = lists
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut sorted = l.clone();
                sorted.sort();
                let mut out = Vec::new();
                encode_list(&mut out, &sorted, &common());
                (i != unknown).then_some(out)
            })
            .collect();
        encode(&encoded, &common())
    }

    fn sorted(words: Option<Vec<(u32, Fields)>>) -> Option<Vec<(u32, Fields)>> {
        words.map(|mut w| {
            w.sort();
            w
        })
    }

    #[test]
    fn a_record_reads_back_the_list_written_and_unknown_stays_unknown() {
        let lists = sample();
        let bytes = file(&lists, 1);
        let digest = crate::format::spans::digest(&bytes);
        let table = WordLists::open(bytes, &digest, 70_001).unwrap();
        for i in [0, 2, 3] {
            assert_eq!(
                sorted(table.words(i)),
                sorted(Some(lists[i].clone())),
                "record {i}"
            );
        }
        assert_eq!(table.words(1), None, "a record the build did not know");
        assert_eq!(table.words(4), None, "past the last record");
        // A number past the vocabulary is damage, not a word.
        let err = WordLists::open(file(&lists, 1), &digest, 9).err().unwrap();
        assert!(err.to_string().contains("past the vocabulary"), "{err}");
        let short = WordLists::open(file(&lists, 1), &digest, 70_000).unwrap();
        assert_eq!(short.words(2), None);
    }

    #[test]
    fn common_words_are_those_held_by_one_video_in_common_share() {
        let mut held = vec![0u64; 5];
        (held[1], held[2], held[4]) = (10, 30, 9);
        let common = Common::of(&held, 100);
        assert_eq!(
            common.numbers,
            vec![2, 1],
            "most held first; 9 of 100 is not common"
        );
        assert_eq!(common.rank[1], Some(1));
        assert_eq!(common.rank[4], None);
    }

    #[test]
    fn damaged_lists_are_refused() {
        let lists = sample();
        let bytes = file(&lists, 9);
        let digest = crate::format::spans::digest(&bytes);
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let err = WordLists::open(flipped, &digest, 70_001).err().unwrap();
        assert!(err.to_string().contains("words.bin"), "{err}");
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 1);
        let cut_digest = crate::format::spans::digest(&cut);
        let err = WordLists::open(cut, &cut_digest, 70_001).err().unwrap();
        assert!(err.to_string().contains("does not fit"), "{err}");
        for bad in [&[2u8, 0][..], &[1, 1, 64], &[1, 1, 16], &[1, 0, 9], &[200]] {
            assert_eq!(decode_list(bad, 100, &[]), None, "{bad:?}");
        }
        assert_eq!(
            decode_list(&[0b100, 0], 100, &[3, 9]),
            None,
            "a bit past the common words"
        );
        assert_eq!(
            decode_list(&[0b10, 0], 100, &[3, 9]),
            Some(vec![(9, Fields::CAPTIONS)])
        );
    }
}
