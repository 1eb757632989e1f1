//! A page's words while the index builder reads it: each distinct word
//! with the units (videos, chat threads, posts) of the page that hold it,
//! and in which fields.
//!
//! Promise: [`Holders::take_lists`] gives exactly the words handed to
//! [`Holders::add`] and [`Holders::ensure`], each once, with its holders
//! ascending and each once, each with every field it was added in (units
//! must be added in ascending order).
//!
//! Why not one string map: this lookup runs for every token of every
//! caption, and most words are short. A word of at most 8 bytes is kept
//! under its bytes packed into a `u64`, so a lookup is a multiply and an
//! integer compare instead of a string hash and a `memcmp`. A word never
//! holds a zero byte (it is letters and digits; UTF-8 puts no zero inside
//! a non-ASCII char), so zero-padding the bytes is one-to-one and the
//! word comes back out exactly. In front of that map sits a small
//! direct-mapped table of the short words met lately ([`RECENT`] slots,
//! small enough for the processor's first cache): the few hundred words
//! that make most of speech are found there without touching the map,
//! whose slots for a page's tens of thousands of words are not all in
//! cache. It is emptied with the map, since list numbers are per page.

use rustc_hash::FxHashMap;

use super::fields::Fields;

/// Each word of a page and the units holding it.
#[derive(Default)]
pub(super) struct Holders {
    /// Words of at most 8 bytes, under [`pack`], and their list number.
    short: FxHashMap<u64, u32>,
    /// Longer words, and their list number.
    long: FxHashMap<Box<str>, u32>,
    /// The last (unit, field) recorded for each list, as [`pair`] packs
    /// it (a word said again in the same field of the same unit costs
    /// nothing more).
    lasts: Vec<u32>,
    /// Every (list, unit, field) recorded, as `list << 32 | pair`: one
    /// flat array instead of a growing list per word, sorted once at the
    /// end.
    pairs: Vec<u64>,
    /// Every (list, unit, cue) where a caption cue holds a word, each
    /// once ([`Holders::add_in_cue`]): where rare words are
    /// ([`super::places`]).
    marks: Vec<(u32, u32, u32)>,
    /// The last (unit, cue) marked for each list.
    mark_lasts: Vec<(u32, u32)>,
    /// `(packed word, list)` of short words met lately, at the slot
    /// [`recent_slot`] gives; `0` (no word packs to it) is an empty slot.
    /// Allocated at first use.
    recent: Vec<(u64, u32)>,
}

/// Slots of [`Holders::recent`]: 16 KB.
const RECENT: usize = 1024;

/// The slot of packed word `key` in [`Holders::recent`]: the top bits of
/// a multiplicative hash.
fn recent_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RECENT.trailing_zeros())) as usize
}

/// A unit and a field packed into 32 bits: the unit above the field's
/// six bits (a page holds far fewer than 2^26 units).
fn pair(unit: u32, field: Fields) -> u32 {
    unit << 6 | u32::from(field.bits())
}

/// The words of a page and their holders: each word with the range of
/// [`Lists::units`] that holds its units, ascending, and of
/// [`Lists::fields`] that says in which fields each holds it.
pub(super) struct Lists {
    pub words: Vec<(Word, std::ops::Range<usize>, std::ops::Range<usize>)>,
    pub units: Vec<u32>,
    pub fields: Vec<Fields>,
    /// (unit, cue) of each caption cue holding a word, by unit then cue:
    /// each word's third range is its part.
    pub marks: Vec<(u32, u32)>,
}

impl Holders {
    /// Records that `unit` holds `word` in `field`.
    pub fn add(&mut self, word: &str, unit: u32, field: Fields) {
        let list = self.list_of(word);
        self.add_to(list, unit, field);
    }

    fn add_to(&mut self, list: u32, unit: u32, field: Fields) {
        let last = &mut self.lasts[list as usize];
        let pair = pair(unit, field);
        if *last != pair {
            *last = pair;
            self.pairs.push(u64::from(list) << 32 | u64::from(pair));
        }
    }

    /// Records that cue `cue` of `unit`'s captions holds `word` (and so
    /// that `unit` holds it in its captions). Units, and a unit's cues,
    /// must come in ascending order.
    pub fn add_in_cue(&mut self, word: &str, unit: u32, cue: u32) {
        let list = self.list_of(word);
        self.add_to(list, unit, Fields::CAPTIONS);
        let last = &mut self.mark_lasts[list as usize];
        if *last != (unit, cue) {
            *last = (unit, cue);
            self.marks.push((list, unit, cue));
        }
    }

    /// Makes sure `word` is listed, held by no unit unless added.
    pub fn ensure(&mut self, word: &str) {
        self.list_of(word);
    }

    /// The list number of `word`, given one if it has none yet.
    fn list_of(&mut self, word: &str) -> u32 {
        let next = self.lasts.len() as u32;
        let list = match pack(word) {
            Some(key) => self.short_list(key, next),
            None => match self.long.get(word) {
                Some(&list) => list,
                None => *self.long.entry(word.into()).or_insert(next),
            },
        };
        if list == next {
            self.lasts.push(u32::MAX);
            self.mark_lasts.push((u32::MAX, u32::MAX));
        }
        list
    }

    /// The list number of the short word packed as `key`, `next` if it
    /// has none yet: from [`Holders::recent`] when it is there, else from
    /// the map (and then kept in its slot).
    fn short_list(&mut self, key: u64, next: u32) -> u32 {
        if key == 0 {
            // The empty word, which no token is: the mark of an empty slot.
            return *self.short.entry(key).or_insert(next);
        }
        if self.recent.is_empty() {
            self.recent = vec![(0, 0); RECENT];
        }
        let slot = &mut self.recent[recent_slot(key)];
        if slot.0 == key {
            return slot.1;
        }
        let list = *self.short.entry(key).or_insert(next);
        *slot = (key, list);
        list
    }

    /// Every word with its holders, in no particular order; the table is
    /// left empty, its room kept for the next page.
    pub fn take_lists(&mut self) -> Lists {
        self.pairs.sort_unstable();
        let mut ranges = vec![0..0; self.lasts.len()];
        let (mut units, mut fields) = (Vec::new(), Vec::new());
        let mut at = 0;
        while at < self.pairs.len() {
            let list = self.pairs[at] >> 32;
            let start = units.len();
            while at < self.pairs.len() && self.pairs[at] >> 32 == list {
                // One holder per unit, with the union of its fields.
                let unit = self.pairs[at] as u32 >> 6;
                let mut bits = 0;
                while at < self.pairs.len() && self.pairs[at] >> 6 == (list << 26 | u64::from(unit))
                {
                    bits |= self.pairs[at] as u8 & 63;
                    at += 1;
                }
                units.push(unit);
                fields.push(Fields::from_bits(bits).unwrap_or(Fields::NONE));
            }
            ranges[list as usize] = start..units.len();
        }
        self.pairs.clear();
        self.lasts.clear();
        let (marks, mark_ranges) = self.take_marks();
        self.recent.fill((0, 0));
        let short = self.short.drain().map(|(k, list)| (Word::Short(k), list));
        let long = self.long.drain().map(|(w, list)| (Word::Long(w), list));
        let words = short
            .chain(long)
            .map(|(w, list)| {
                let l = list as usize;
                (w, ranges[l].clone(), mark_ranges[l].clone())
            })
            .collect();
        Lists {
            words,
            units,
            fields,
            marks,
        }
    }

    /// The marks grouped by list (a counting sort: they were recorded in
    /// (unit, cue) order, which each group keeps), and each list's range
    /// of them.
    fn take_marks(&mut self) -> (Vec<(u32, u32)>, Vec<std::ops::Range<usize>>) {
        let mut starts = vec![0usize; self.mark_lasts.len() + 1];
        for &(list, _, _) in &self.marks {
            starts[list as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let ranges = starts.windows(2).map(|w| w[0]..w[1]).collect();
        let mut out = vec![(0, 0); self.marks.len()];
        for &(list, unit, cue) in &self.marks {
            let at = &mut starts[list as usize];
            out[*at] = (unit, cue);
            *at += 1;
        }
        self.marks.clear();
        self.mark_lasts.clear();
        (out, ranges)
    }
}

/// A word as the builder keys it until the words are sorted: its bytes
/// packed into an integer when they fit ([`pack`]), else its text. Two
/// words are equal exactly when their texts are.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Word {
    Short(u64),
    Long(Box<str>),
}

impl Word {
    /// The key of `text`.
    pub fn of(text: &str) -> Word {
        pack(text).map_or_else(|| Word::Long(text.into()), Word::Short)
    }

    /// The word's text.
    pub fn into_text(self) -> Box<str> {
        match self {
            Word::Short(key) => unpack(key),
            Word::Long(text) => text,
        }
    }
}

/// `word`'s bytes, zero-padded into a `u64`, when it has at most 8. The
/// bytes are read in at most two loads that may overlap (the same byte
/// ORed twice is itself), never copied into a buffer and read back: that
/// round trip stalls the processor on every token.
fn pack(word: &str) -> Option<u64> {
    let b = word.as_bytes();
    let n = b.len();
    let at = |i: usize| u64::from(b[i]);
    let u32_at = |i: usize| u64::from(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
    Some(match n {
        0 => 0,
        1..=3 => at(0) | at(n / 2) << (n / 2 * 8) | at(n - 1) << ((n - 1) * 8),
        4..=7 => u32_at(0) | u32_at(n - 4) << ((n - 4) * 8),
        8 => u32_at(0) | u32_at(4) << 32,
        _ => return None,
    })
}

/// The word [`pack`] packed.
fn unpack(key: u64) -> Box<str> {
    let buf = key.to_le_bytes();
    let len = buf.iter().position(|&b| b == 0).unwrap_or(8);
    // The bytes were a whole str, cut nowhere else: valid UTF-8.
    String::from_utf8_lossy(&buf[..len]).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn holders_list_every_word_once_with_its_units_and_fields_as_a_plain_map_would() {
        let words = [
            "a",
            "the",
            "12345678",
            "123456789",
            "straße",
            "σισυφοσ",
            "cafe",
            "zürich",
            "abcdefgh",
            "abcdefghi",
            "é",
            "8bytes!!",
        ];
        let mut seed = 11u64;
        let fields = [Fields::CAPTIONS, Fields::TITLE, Fields::TAGS];
        let mut holders = Holders::default();
        let mut plain: BTreeMap<String, Vec<(u32, Fields)>> = BTreeMap::new();
        for unit in 0..50u32 {
            for _ in 0..20 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let w = words[(seed >> 33) as usize % words.len()];
                let f = fields[(seed >> 20) as usize % fields.len()];
                holders.add(w, unit, f);
                let h = plain.entry(w.to_string()).or_default();
                match h.last_mut() {
                    Some((u, had)) if *u == unit => *had = had.with(f),
                    _ => h.push((unit, f)),
                }
            }
        }
        holders.ensure("channel");
        holders.ensure("the");
        plain.entry("channel".into()).or_default();
        let lists = holders.take_lists();
        assert!(
            holders.take_lists().words.is_empty(),
            "the table is left empty"
        );
        let got: BTreeMap<String, Vec<(u32, Fields)>> = lists
            .words
            .into_iter()
            .map(|(w, r, _)| {
                let held = lists.units[r.clone()].iter().copied();
                (
                    w.into_text().into(),
                    held.zip(lists.fields[r].iter().copied()).collect(),
                )
            })
            .collect();
        assert_eq!(got, plain);
    }

    #[test]
    fn a_word_on_the_next_page_gets_that_pages_list_not_a_kept_one() {
        let mut holders = Holders::default();
        for (unit, w) in ["the", "cat", "sat", "the"].into_iter().enumerate() {
            holders.add(w, unit as u32, Fields::CAPTIONS);
        }
        assert_eq!(holders.take_lists().words.len(), 3);
        // The next page: "sat" was list 2 on the last one; here it is the
        // first word, so it must be list 0, with this page's holders.
        holders.add("sat", 7, Fields::TITLE);
        holders.add("the", 8, Fields::CAPTIONS);
        let lists = holders.take_lists();
        let got: BTreeMap<String, Vec<u32>> = lists
            .words
            .into_iter()
            .map(|(w, r, _)| (w.into_text().into(), lists.units[r].to_vec()))
            .collect();
        let expected: BTreeMap<String, Vec<u32>> =
            [("sat".to_string(), vec![7]), ("the".to_string(), vec![8])].into();
        assert_eq!(got, expected);
    }

    #[test]
    fn marks_list_each_cue_holding_a_word_once_grouped_by_word() {
        let mut holders = Holders::default();
        let said = [
            (0, 0, "alpha beta alpha"),
            (0, 2, "beta"),
            (1, 0, "alpha"),
            (1, 1, "gamma alpha"),
        ];
        for (unit, cue, text) in said {
            for w in text.split(' ') {
                holders.add_in_cue(w, unit, cue);
            }
        }
        holders.add("alpha", 2, Fields::TITLE);
        let lists = holders.take_lists();
        let marks: BTreeMap<String, Vec<(u32, u32)>> = lists
            .words
            .iter()
            .map(|(w, _, m)| {
                (
                    w.clone().into_text().into(),
                    lists.marks[m.clone()].to_vec(),
                )
            })
            .collect();
        let expected: BTreeMap<String, Vec<(u32, u32)>> = [
            ("alpha", vec![(0, 0), (1, 0), (1, 1)]),
            ("beta", vec![(0, 0), (0, 2)]),
            ("gamma", vec![(1, 1)]),
        ]
        .into_iter()
        .map(|(w, m)| (w.to_string(), m))
        .collect();
        assert_eq!(marks, expected, "a title is no cue");
        assert!(holders.take_lists().marks.is_empty(), "the marks are taken");
    }

    #[test]
    fn packing_reads_every_byte_of_every_length_once_in_place() {
        let text = "abcdefgh";
        for n in 1..=8 {
            let mut expected = [0u8; 8];
            expected[..n].copy_from_slice(&text.as_bytes()[..n]);
            assert_eq!(
                pack(&text[..n]),
                Some(u64::from_le_bytes(expected)),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn packing_is_one_to_one_up_to_eight_bytes() {
        for w in [
            "a",
            "ab",
            "abcdefgh",
            "é",
            "ßß",
            "1",
            "abcdefghi",
            "σισυφοσ",
        ] {
            assert_eq!(&*Word::of(w).into_text(), w);
        }
        assert_ne!(pack("a"), pack("a0"));
        assert_eq!(pack("abcdefghi"), None);
    }
}
