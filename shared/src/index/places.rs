//! Places of rare words: for a word few videos say, which caption cues of
//! each of those videos hold it and where those cues sit, so a one-word
//! search reads those cues and nothing else of the video.
//!
//! # Files
//!
//! ```text
//! places.fst  fst map: word → byte offset of its entry in places.bin
//! places.bin  per word: a varint count of videos, then for each, in page
//!             order: a varint page id, a varint position on the page, a
//!             varint count of cues, then per cue a varint cue number, a
//!             varint offset of the cue's first byte from the start of
//!             the video's span and a varint length in bytes; then the
//!             low 32 bits, little-endian, of the xxh3 of those cues'
//!             bytes, in order ([`digest`])
//! ```
//!
//! # Which words
//!
//! A word is placed when at most [`PLACED_VIDEOS_AT_MOST`] videos of the
//! whole index hold it. Of those, a video is placed when it holds the word
//! in its captions and nowhere else (title, description, tags, the
//! channel's name), in at most [`CUES_PER_VIDEO_AT_MOST`] cues. The places
//! of every word take at most [`PLACES_SHARE_DIVISOR`]th of the bytes of
//! the archive's transcript pages: the rarest words first (fewest
//! videos, then word order), each whole or not at all, so an archive of
//! rare words (generated text) keeps the index small.
//!
//! # Promise
//!
//! A place is a hint, never a hit: a search uses it only when the bytes
//! it names hash to its digest, and each then parses as a cue; it then
//! matches those cues with the query's own matcher. Anything else sends
//! the search to the video's span, and from there to the whole page (see
//! "why the index never loses a match" in the module above).

use std::ops::Range;

use super::postings::{get_varint, put_varint};
use super::IndexError;

/// A word held by more videos than this carries no places.
pub const PLACED_VIDEOS_AT_MOST: u64 = 64;

/// A video whose captions hold a word in more cues than this is not
/// placed for it (its span is read).
pub const CUES_PER_VIDEO_AT_MOST: usize = 16;

/// Places take at most the transcript pages' bytes divided by this
/// (1 %): on 12,629 real-caption videos every word of up to about 40
/// videos fits.
pub const PLACES_SHARE_DIVISOR: u64 = 100;

/// While a build reads pages, the places it holds for words still rare
/// take at most this many times the budget, give or take a page: past
/// it, the words held by the most videos so far are dropped (the last the
/// budget would take).
const PENDING_TIMES_BUDGET: u64 = 4;

/// A cue of a video holding a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The cue's number in the video's captions.
    pub cue: u32,
    /// Where the cue's bytes start, counted from the start of the
    /// video's span.
    pub at: u32,
    /// How many bytes the cue takes.
    pub len: u32,
}

impl Place {
    /// The cue's bytes, counted from the start of the span.
    pub fn range(&self) -> Range<u64> {
        u64::from(self.at)..u64::from(self.at) + u64::from(self.len)
    }
}

/// A video holding a word, with the cues that hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedVideo {
    /// The page's id in the index's page table.
    pub page: u32,
    /// The video's position on its page.
    pub video: u32,
    /// The cues holding the word, ascending.
    pub cues: Vec<Place>,
    /// [`digest`] of the cues' bytes.
    pub digest: u32,
}

/// The low 32 bits of the xxh3 of `cues`' bytes, in order.
pub fn digest<'a>(cues: impl Iterator<Item = &'a [u8]>) -> u32 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for c in cues {
        h.update(c);
    }
    h.digest() as u32
}

/// The places of one page's word: each of `held`'s (unit, cue) marks
/// grouped by unit, for the units that hold the word in their captions
/// alone (`captions_only`) in at most [`CUES_PER_VIDEO_AT_MOST`] cues,
/// whose cue ranges `cues_of` knows. `span_bytes` gives a unit's span's
/// bytes, for the digest.
pub(super) fn of_page<'a>(
    page: u32,
    held: &[(u32, u32)],
    captions_only: impl Fn(u32) -> bool,
    cues_of: impl Fn(u32) -> Option<(&'a [Range<u32>], &'a [u8])>,
) -> Vec<PlacedVideo> {
    let mut out = Vec::new();
    for group in held.chunk_by(|a, b| a.0 == b.0) {
        let unit = group[0].0;
        if group.len() > CUES_PER_VIDEO_AT_MOST || !captions_only(unit) {
            continue;
        }
        let Some((ranges, span)) = cues_of(unit) else {
            continue;
        };
        let cues: Option<Vec<Place>> = group
            .iter()
            .map(|&(_, cue)| {
                let r = ranges.get(cue as usize)?;
                Some(Place {
                    cue,
                    at: r.start,
                    len: r.end - r.start,
                })
            })
            .collect();
        let Some(cues) = cues else { continue };
        let digest = digest(
            cues.iter()
                .map(|p| &span[p.at as usize..][..p.len as usize]),
        );
        out.push(PlacedVideo {
            page,
            video: unit,
            cues,
            digest,
        });
    }
    out
}

/// Appends one word's entry.
fn encode(out: &mut Vec<u8>, videos: &[PlacedVideo]) {
    put_varint(out, videos.len() as u64);
    for v in videos {
        encode_video(out, v);
    }
}

/// Appends one video's record of an entry.
fn encode_video(out: &mut Vec<u8>, v: &PlacedVideo) {
    put_varint(out, u64::from(v.page));
    put_varint(out, u64::from(v.video));
    put_varint(out, v.cues.len() as u64);
    for c in &v.cues {
        put_varint(out, u64::from(c.cue));
        put_varint(out, u64::from(c.at));
        put_varint(out, u64::from(c.len));
    }
    out.extend_from_slice(&v.digest.to_le_bytes());
}

/// The entry at `at`; `None` when the bytes are not one the build wrote
/// (truncated, or counts past the caps).
pub fn decode(bytes: &[u8], mut at: usize) -> Option<Vec<PlacedVideo>> {
    let at = &mut at;
    let n = get_varint(bytes, at)?;
    if n > PLACED_VIDEOS_AT_MOST {
        return None;
    }
    decode_videos(bytes, at, n as usize)
}

/// `n` video records of an entry, from `*at`.
fn decode_videos(bytes: &[u8], at: &mut usize, n: usize) -> Option<Vec<PlacedVideo>> {
    let u32_at = |at: &mut usize| u32::try_from(get_varint(bytes, at)?).ok();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (page, video) = (u32_at(at)?, u32_at(at)?);
        let cues = u32_at(at)? as usize;
        if cues > CUES_PER_VIDEO_AT_MOST {
            return None;
        }
        let cues = (0..cues)
            .map(|_| {
                Some(Place {
                    cue: u32_at(at)?,
                    at: u32_at(at)?,
                    len: u32_at(at)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let digest = bytes.get(*at..*at + 4)?;
        *at += 4;
        out.push(PlacedVideo {
            page,
            video,
            cues,
            digest: u32::from_le_bytes(digest.try_into().ok()?),
        });
    }
    Some(out)
}

/// The places a build holds while it reads pages: for each word still
/// rare, its placed videos so far, encoded, within a bound
/// ([`PENDING_TIMES_BUDGET`]), so the build's memory does not grow with
/// the archive's rare words.
pub(super) struct Pending<K> {
    words: rustc_hash::FxHashMap<K, (u64, usize, Vec<u8>)>,
    bytes: u64,
    cap: u64,
}

impl<K: std::hash::Hash + Ord + Clone> Pending<K> {
    /// Room for `budget` bytes of places (the budget of the index's).
    pub fn new(budget: u64) -> Self {
        Pending {
            words: Default::default(),
            bytes: 0,
            cap: budget.saturating_mul(PENDING_TIMES_BUDGET),
        }
    }

    /// Adds `placed` to `word`'s places, which `videos` videos hold so
    /// far.
    pub fn add(&mut self, word: &K, videos: u64, placed: Vec<PlacedVideo>) {
        if placed.is_empty() {
            return;
        }
        if !self.words.contains_key(word) {
            self.words.insert(word.clone(), (0, 0, Vec::new()));
        }
        let Some((held, n, bytes)) = self.words.get_mut(word) else {
            return;
        };
        let before = bytes.len();
        for v in &placed {
            encode_video(bytes, v);
        }
        (*held, *n) = (videos, *n + placed.len());
        self.bytes += (bytes.len() - before) as u64;
    }

    /// Between two pages: past the room, drops the words held by the most
    /// videos (the greater word first among equals) until half the room
    /// is free. Only between pages, and in a total order, so what is
    /// dropped depends on the pages read and not on the order in which a
    /// reading thread hands a page's words over.
    pub fn settle(&mut self) {
        if self.bytes > self.cap {
            self.shed();
        }
    }

    /// Forgets `word`'s places (it is no longer rare).
    pub fn forget(&mut self, word: &K) {
        if let Some((_, _, bytes)) = self.words.remove(word) {
            self.bytes -= bytes.len() as u64;
        }
    }

    /// Drops the words held by the most videos until half the room is
    /// free.
    fn shed(&mut self) {
        let mut by_videos: Vec<(u64, K)> =
            self.words.iter().map(|(k, e)| (e.0, k.clone())).collect();
        by_videos.sort_unstable_by(|a, b| b.cmp(a));
        for (_, word) in by_videos {
            if self.bytes <= self.cap / 2 {
                break;
            }
            self.forget(&word);
        }
    }

    /// `word`'s places, taken out.
    pub fn take(&mut self, word: &K) -> Vec<PlacedVideo> {
        let Some((_, n, bytes)) = self.words.remove(word) else {
            return Vec::new();
        };
        self.bytes -= bytes.len() as u64;
        decode_videos(&bytes, &mut 0, n).unwrap_or_default()
    }
}

/// A word that may be placed: how many videos of the index hold it, and
/// its placed videos.
pub(super) struct Candidate {
    pub word: Box<str>,
    pub videos: u64,
    pub placed: Vec<PlacedVideo>,
}

/// `places.fst` and `places.bin` for the `candidates` that fit in
/// `budget` bytes, the rarest first, each word whole or not at all.
pub(super) fn write(
    mut candidates: Vec<Candidate>,
    budget: u64,
) -> Result<(Vec<u8>, Vec<u8>), IndexError> {
    candidates.sort_unstable_by(|a, b| (a.videos, &a.word).cmp(&(b.videos, &b.word)));
    let mut kept = Vec::new();
    let mut spent = 0u64;
    let mut entry = Vec::new();
    for c in candidates {
        entry.clear();
        encode(&mut entry, &c.placed);
        if spent + entry.len() as u64 > budget {
            continue;
        }
        spent += entry.len() as u64;
        kept.push((c.word, entry.clone()));
    }
    kept.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let fst_err = |e: fst::Error| IndexError::Dictionary(e.to_string());
    let mut map = fst::MapBuilder::new(Vec::new()).map_err(fst_err)?;
    let mut bin = Vec::with_capacity(spent as usize);
    for (word, bytes) in kept {
        map.insert(word.as_bytes(), bin.len() as u64)
            .map_err(fst_err)?;
        bin.extend_from_slice(&bytes);
    }
    Ok((map.into_inner().map_err(fst_err)?, bin))
}

/// `places.fst` and `places.bin`, loaded.
pub struct Places {
    words: fst::Map<Vec<u8>>,
    bin: Vec<u8>,
}

impl Places {
    /// The places of an index's two files; `None` when the fst is damaged
    /// (its checksum fails).
    pub fn new(fst_bytes: Vec<u8>, bin: Vec<u8>) -> Option<Places> {
        Some(Places {
            words: super::checked_fst::open(fst_bytes).ok()?,
            bin,
        })
    }

    /// The placed videos of `word` (`None`: the word has no places, or
    /// its entry is damaged).
    pub fn of(&self, word: &str) -> Option<Vec<PlacedVideo>> {
        decode(&self.bin, usize::try_from(self.words.get(word)?).ok()?)
    }

    /// Every placed word with its videos, in word order (what a rebuild
    /// carries over); `None` when an entry is damaged.
    pub fn every(&self) -> Option<Vec<(Box<str>, Vec<PlacedVideo>)>> {
        use fst::Streamer;
        let mut out = Vec::new();
        let mut stream = self.words.stream();
        while let Some((w, at)) = stream.next() {
            let word = std::str::from_utf8(w).ok()?.into();
            out.push((word, decode(&self.bin, usize::try_from(at).ok()?)?));
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn video(page: u32, cues: &[u32]) -> PlacedVideo {
        PlacedVideo {
            page,
            video: 3,
            cues: cues
                .iter()
                .map(|&cue| Place {
                    cue,
                    at: cue * 10,
                    len: 7,
                })
                .collect(),
            digest: 0xdead_beef,
        }
    }

    #[test]
    fn an_entry_decodes_to_what_was_encoded_and_damage_to_none() {
        let videos = vec![video(0, &[1, 4]), video(7, &[300])];
        let mut bytes = Vec::new();
        encode(&mut bytes, &videos);
        assert_eq!(decode(&bytes, 0), Some(videos));
        assert_eq!(decode(&bytes[..bytes.len() - 1], 0), None);
        let mut too_many = Vec::new();
        put_varint(&mut too_many, PLACED_VIDEOS_AT_MOST + 1);
        assert_eq!(decode(&too_many, 0), None);
    }

    #[test]
    fn places_keep_within_their_budget_the_rarest_words_first_each_whole() {
        let candidate = |word: &str, videos: u64, n: usize| Candidate {
            word: word.into(),
            videos,
            placed: (0..n as u32).map(|p| video(p, &[1])).collect(),
        };
        let mut one = Vec::new();
        encode(&mut one, &[video(0, &[1])]);
        // One video's entry is `one.len()` bytes; room for three videos
        // in all, spread over words of 1 and 2 videos.
        let budget = 3 * one.len() as u64;
        let (fst_bytes, bin) = write(
            vec![
                candidate("common", 9, 2),
                candidate("rare", 1, 1),
                candidate("rarer", 1, 1),
                candidate("two", 2, 2),
            ],
            budget,
        )
        .unwrap();
        assert!(bin.len() as u64 <= budget);
        let places = Places::new(fst_bytes, bin).unwrap();
        let kept: Vec<Box<str>> = places.every().unwrap().into_iter().map(|w| w.0).collect();
        assert_eq!(kept, vec!["rare".into(), "rarer".into()] as Vec<Box<str>>);
        assert_eq!(places.of("rare").map(|v| v.len()), Some(1));
        assert_eq!(places.of("two"), None);
    }

    #[test]
    fn pending_places_stay_within_their_room_shedding_the_commonest_words() {
        let mut one = Vec::new();
        encode_video(&mut one, &video(0, &[1]));
        let budget = one.len() as u64;
        let mut pending = Pending::new(budget);
        for (i, word) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
            pending.add(&word, i as u64 + 1, vec![video(i as u32, &[1])]);
            pending.settle();
            assert!(pending.bytes <= PENDING_TIMES_BUDGET * budget);
        }
        assert_eq!(
            pending.take(&"a"),
            vec![video(0, &[1])],
            "the rarest is kept"
        );
        assert_eq!(pending.take(&"e"), Vec::new(), "the commonest was shed");
        pending.forget(&"b");
        assert_eq!(pending.take(&"b"), Vec::new());
    }

    #[test]
    fn a_video_is_placed_only_with_few_cues_held_in_its_captions_alone() {
        let span = b"[1,\"x\"],[2,\"y\"]".to_vec();
        let ranges = vec![0..7, 8..15];
        let many: Vec<(u32, u32)> = (0..=CUES_PER_VIDEO_AT_MOST as u32)
            .map(|c| (2, c))
            .collect();
        let mut held = vec![(0, 0), (0, 1), (1, 1)];
        held.extend(many);
        let placed = of_page(
            5,
            &held,
            |unit| unit != 1,
            |_| Some((ranges.as_slice(), span.as_slice())),
        );
        assert_eq!(
            placed.len(),
            1,
            "unit 1 holds it elsewhere too, unit 2 in too many cues"
        );
        let v = &placed[0];
        assert_eq!((v.page, v.video), (5, 0));
        assert_eq!(
            v.cues.iter().map(|c| c.range()).collect::<Vec<_>>(),
            vec![0..7, 8..15]
        );
        assert_eq!(v.digest, digest([&span[0..7], &span[8..15]].into_iter()));
    }
}
