//! Counting, over many videos, how many of them say each word: the inner
//! loop of a foreground counted on its text, run once per word of every
//! matched video.
//!
//! Promise: [`Tally`] counts a word once per video however often that
//! video says it, as a set of words per video would, and gives back each
//! word exactly as it was said. Tallies of disjoint videos
//! [merge](Tally::merge) into the tally of them all, so the videos may be
//! counted on several threads.
//!
//! Speed: a word of at most 16 bytes (nearly every word said) is keyed by
//! its bytes packed in a `u128` ([`pack`]), so a lookup hashes two machine
//! words and compares integers, with no string compared or allocated;
//! longer words are keyed by their text.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{for_each_word, VideoTexts};
use crate::index::fields::Fields;

/// For each word counted: the videos saying it, and the last video that
/// counted it (so a video counts a word once).
#[derive(Default)]
pub(super) struct Tally {
    short: FxHashMap<u128, Seen>,
    long: FxHashMap<String, Seen>,
    /// Videos counted so far.
    videos: u32,
}

/// How many videos said a word, and which video said it last.
#[derive(Clone, Copy)]
struct Seen {
    videos: u64,
    last: u32,
}

/// A word no video has said yet.
const UNSEEN: Seen = Seen {
    videos: 0,
    last: u32::MAX,
};

impl Seen {
    /// Video `n` says the word again: counted once per video.
    fn said_by(&mut self, n: u32) {
        if self.last != n {
            self.videos += 1;
            self.last = n;
        }
    }
}

/// The most bytes a word packed in a `u128` holds.
const PACKED: usize = 16;

/// `word` as a `u128` key, when it has at most [`PACKED`] bytes: its
/// bytes, zero-padded. Two words pack alike only if they are the same
/// word, because a word is a run of letters and digits and so never
/// holds a zero byte (and is never empty).
fn pack(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    match bytes.split_at_checked(8) {
        None => Some(u128::from(le_bytes(bytes))),
        Some((low, high)) if high.len() <= 8 => {
            Some(u128::from(le_bytes(low)) | u128::from(le_bytes(high)) << 64)
        }
        Some(_) => None,
    }
}

/// Up to 8 bytes as a little-endian number, zero-padded: a load or two
/// (which may overlap) rather than a loop, for this runs once per word.
fn le_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    let u32_at = |at: usize| b[at..].first_chunk().map_or(0, |c| u32::from_le_bytes(*c));
    match n {
        0 => 0,
        1..=3 => {
            let byte = |at: usize| u64::from(b[at]) << (8 * at);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        4..=7 => u64::from(u32_at(0)) | u64::from(u32_at(n - 4)) << (8 * (n - 4)),
        _ => b.first_chunk().map_or(0, |c| u64::from_le_bytes(*c)),
    }
}

/// The word `key` packs.
fn unpack(key: u128) -> String {
    let bytes = key.to_le_bytes();
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(PACKED);
    String::from_utf8_lossy(&bytes[..len]).into_owned()
}

impl Tally {
    /// Counts the words `v` says in `fields` (only the `wanted` ones, when
    /// given).
    pub fn add(&mut self, v: &impl VideoTexts, fields: Fields, wanted: Option<&FxHashSet<String>>) {
        let n = self.videos;
        self.videos += 1;
        let first = Seen { videos: 1, last: n };
        let allowed = |w: &str| wanted.is_none_or(|wanted| wanted.contains(w));
        for_each_word(v, fields, |w| match pack(w) {
            Some(key) => match self.short.get_mut(&key) {
                Some(seen) => seen.said_by(n),
                None if allowed(w) => {
                    self.short.insert(key, first);
                }
                None => {}
            },
            None => match self.long.get_mut(w) {
                Some(seen) => seen.said_by(n),
                None if allowed(w) => {
                    self.long.insert(w.to_string(), first);
                }
                None => {}
            },
        });
    }

    /// The tally of both `self`'s videos and `other`'s (disjoint videos).
    pub fn merge(&mut self, other: Tally) {
        for (key, seen) in other.short {
            self.short.entry(key).or_insert(UNSEEN).videos += seen.videos;
        }
        for (word, seen) in other.long {
            self.long.entry(word).or_insert(UNSEEN).videos += seen.videos;
        }
        // A video counted later is numbered past every `last` kept here.
        self.videos = self.videos.saturating_add(other.videos);
    }

    /// Adds each word's count to `words`.
    pub fn add_to(self, words: &mut FxHashMap<String, u64>) {
        for (key, seen) in self.short {
            *words.entry(unpack(key)).or_default() += seen.videos;
        }
        for (word, seen) in self.long {
            *words.entry(word).or_default() += seen.videos;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::VideoRecord;

    fn video(said: &str) -> VideoRecord {
        serde_json::from_value(serde_json::json!({
            "slug": "v", "title": "", "cues": [[0, 1, said]]
        }))
        .unwrap()
    }

    fn counts(tally: Tally) -> Vec<(String, u64)> {
        let mut words = FxHashMap::default();
        tally.add_to(&mut words);
        let mut out: Vec<_> = words.into_iter().collect();
        out.sort();
        out
    }

    #[test]
    fn a_word_counts_once_per_video_and_comes_back_as_said() {
        let long = "pneumonoultramicroscopic"; // 24 bytes: keyed by its text
        let sixteen = "großstadtstraß"; // 16 bytes, 14 chars: packed
        assert_eq!(sixteen.len(), PACKED);
        let mut tally = Tally::default();
        for said in [
            format!("the the {long} {sixteen} {sixteen}"),
            format!("The {long}"),
            "a".to_string(),
        ] {
            tally.add(&video(&said), Fields::CAPTIONS, None);
        }
        assert_eq!(
            counts(tally),
            vec![
                ("a".to_string(), 1),
                (sixteen.to_string(), 1),
                (long.to_string(), 2),
                ("the".to_string(), 2),
            ]
        );
    }

    #[test]
    fn tallies_of_disjoint_videos_merge_into_the_tally_of_them_all() {
        let said = ["one two", "two three three", "three four", "one"];
        let mut whole = Tally::default();
        let (mut left, mut right) = (Tally::default(), Tally::default());
        for (i, s) in said.iter().enumerate() {
            whole.add(&video(s), Fields::CAPTIONS, None);
            let part = if i % 2 == 0 { &mut left } else { &mut right };
            part.add(&video(s), Fields::CAPTIONS, None);
        }
        left.merge(right);
        // A video counted after the merge still counts each word once.
        whole.add(&video("two two"), Fields::CAPTIONS, None);
        left.add(&video("two two"), Fields::CAPTIONS, None);
        assert_eq!(counts(left), counts(whole));
    }

    #[test]
    fn each_word_of_up_to_16_bytes_packs_apart_and_unpacks_as_itself() {
        let mut seen = std::collections::HashSet::new();
        for len in 1..=PACKED {
            for word in [
                "abcdefghijklmnopq"[..len].to_string(),
                "zyxwvutsrqponmlkj"[..len].to_string(),
                "q".repeat(len),
            ] {
                let key = pack(&word).expect("at most 16 bytes pack");
                assert_eq!(unpack(key), word);
                assert!(seen.insert(key), "{word} packs as another word does");
            }
        }
        assert_eq!(pack("éé"), pack("éé"));
        assert_eq!(unpack(pack("ßé1").unwrap()), "ßé1");
        assert_eq!(pack(&"a".repeat(PACKED + 1)), None);
    }

    #[test]
    fn only_wanted_words_are_counted_when_asked() {
        let wanted: FxHashSet<String> = ["two".to_string()].into_iter().collect();
        let mut tally = Tally::default();
        tally.add(&video("one two two"), Fields::CAPTIONS, Some(&wanted));
        assert_eq!(counts(tally), vec![("two".to_string(), 1)]);
    }
}
