//! The offline index: which pages hold which words, and every video.
//!
//! # Files (one directory per source)
//!
//! Their names are [`files`]; nothing else names them.
//!
//! ```text
//! meta.json     format and normaliser versions, the source, when, and the
//!               page table: for each page its key (site, layer, channel,
//!               page), the manifest sha256 and file stamp it was built
//!               from, and whether it was read ("ok") or failed (why).
//!               A page's id is its position in this table.
//! terms.fst     fst map: normalised word → byte offset of that word's
//!               postings list in the *decompressed* postings.zst
//! postings.zst  the postings in independently compressed zstd blocks
//!               of about 64 KB, cut between words (see [`blocks`]; the
//!               table is `postingsBlocks` in meta.json): per word, a varint count, then
//!               for each page holding it, ascending: a varint delta of
//!               its page id, a varint count of the videos (chat
//!               threads, posts) on that page that hold it, and a flag
//!               byte: bit 1 when the positions of the holders on the
//!               page follow (transcript pages where some but not all of
//!               the videos hold the word, and not in a page-wide field;
//!               else any video of the page may) as varint deltas, or,
//!               with bit 3 too, as a bitmap (a varint length in bytes,
//!               then bit `i % 8` of byte `i / 8` set for the video at
//!               position `i`: whichever is shorter),
//!               bit 2 when a census of fields follows (see [`fields`]:
//!               a varint count of combinations, then each as a byte of
//!               field bits and a varint count of holders; without it,
//!               every holder holds the word in its layer's own field
//!               alone: captions, chat or posts)
//! terms.txt     every word, one per line, in order: the blob infix
//!               lookups (regex literals inside words) scan with memchr
//! videos.json   one row per video read, in page order: site, channel,
//!               slug, title, date, media type, age, state, page, curated
//!               tags, and its span in the page file ([`VideoSpan`]: byte
//!               range and a digest of those bytes); meta.json holds its
//!               xxh3 (`videosDigest`) and each page's byte range of rows
//!               in it (`rows`), so a page's rows are parsed alone
//!               ([`rows`])
//! .archilyzer-output.json
//!               the marker that says this folder is an index written by
//!               this project (see [`crate::output`])
//! ```
//!
//! # Format versions ([`FORMAT_VERSION`])
//!
//! - 1 (2026-11): the files above, postings without video counts. (The
//!   marker file came later without a version change: an index without it
//!   reads the same, but a build refuses to replace its folder.)
//! - 2 (2026-11): each posting carries the number of videos on its page
//!   that hold the word, so the vocabulary can say how many videos hold
//!   each word ("also heard as", `similar_terms`).
//! - 3 (2026-12): a posting on a transcript page names which videos hold
//!   the word when at most one in four does; each row of `videos.json`
//!   carries the video's byte span in its page file and a digest of those
//!   bytes; `postings.zst` is cut into blocks opened on demand, with their
//!   table in `meta.json`.
//! - 4 (2026-12): a posting says in which fields its holders hold the word
//!   (a census, left out when all hold it in the layer's own field), so
//!   the vocabulary counts videos in the fields a search looks in.
//! - 5 (2026-12): a video's span digest is the xxh3 of its bytes (was the
//!   first 64 bits of their sha256), so a warm server checks a span it
//!   reads at memory speed.
//! - 6 (2026-12): `meta.json` records the xxh3 of `videos.json` and each
//!   transcript page's byte range of rows in it, so opening an index
//!   parses no row and a search parses the rows of the pages it plans
//!   (12,629 rows were most of a one-shot search's time).
//! - 7 (2026-12): a posting names the holders whenever some but not all
//!   of its page's videos hold the word (was: at most one in four), as a
//!   bitmap where that is shorter than the list, so which videos say a
//!   word is known from the postings alone (`significant_terms` counts
//!   its foreground without reading it; a phrase of two common words
//!   reads only the videos holding both).
//!
//! An index of another version is ignored with a note and rebuilt in full
//! by the next build.
//!
//! The exact bytes of a two-page index are pinned by
//! `shared/tests/index_format.rs`.
//!
//! # Why the index never loses a match
//!
//! A query's hits are decided only by the matcher on the real page text.
//! The index is used to skip pages, and a page is skipped only when the
//! index proves it cannot hold a hit:
//!
//! 1. Every word of every searchable field of a page (captions, title,
//!    description, tags, channel name, chat, posts) is in that page's
//!    postings, produced by [`crate::text`], the same tokeniser the
//!    matcher uses (invariant 4; a version mismatch discards the index).
//! 2. A phrase matches only where each of its words occurs as a token, so a
//!    page lacking one of them cannot match; a final `word*` needs a token
//!    with that prefix. A regex match contains each literal the regex
//!    requires, so a page whose vocabulary has no word containing each
//!    normalised piece of that literal cannot match (literals with
//!    characters outside ASCII are not used to prune at all).
//! 3. The claims above hold only for the bytes that were tokenised. A
//!    page is vouched for only when its manifest sha256 and its file stamp
//!    equal those recorded at build time and it was read successfully;
//!    every other page (new, changed, failed, unknown) is read
//!    unconditionally (invariant 2).
//! 4. Whenever a lookup would be costly, the planner widens to "all
//!    pages"; it never truncates a union of postings.
//!
//! 5. Within a vouched transcript page, a video is skipped only when the
//!    postings prove it lacks a required word (a word in a page-wide field,
//!    the channel name, holds for every video). The other videos are read
//!    by their spans, and a span's bytes are used only when they hash to
//!    the digest recorded at build time and parse as the video the span
//!    names ([`VideoSpan::check`]); otherwise the whole page is read. So a
//!    span can save bytes but never stand in for text it does not hold.
//!
//! So a fresh, stale, foreign or corrupt index changes only how many bytes
//! are read (invariant 1).

pub mod blocks;
mod build;
mod cache;
mod error;
pub mod fields;
mod holders;
mod open;
mod read;
mod reuse;
pub mod rows;
pub mod select;
pub mod similar;

pub use build::{build, claim, BuildEvent, BuildReport};
pub use cache::{load as load_kept, lookups as kept_index_lookups};
pub use error::IndexError;
pub use open::{default_dir, Index, IndexStatus, Vouched};
pub use read::RawIndex;

use serde::{Deserialize, Serialize};

use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::format::{HasFacts, VideoView};

/// The spans the index in `dir` recorded, for
/// [`Archive::read_spans_with`]: looked up in the kept index, loaded
/// again whenever its files change.
pub fn span_lookup(dir: std::path::PathBuf) -> crate::archive::SpanLookup {
    Box::new(move |site, channel, slug| load_kept(&dir).ok()?.span_of(site, channel, slug))
}

/// The on-disk layout version of the index (history in the module docs).
pub const FORMAT_VERSION: u32 = 7;

/// The names of the index's files, in one place.
pub mod files {
    /// Versions, source and the page table.
    pub const META: &str = "meta.json";
    /// The term dictionary (fst map: word → postings offset).
    pub const TERMS: &str = "terms.fst";
    /// The zstd-compressed postings lists.
    pub const POSTINGS: &str = "postings.zst";
    /// Every word, one per line, for infix lookups.
    pub const VOCABULARY: &str = "terms.txt";
    /// One row per video.
    pub const VIDEOS: &str = "videos.json";
    /// Every data file, in the order a build writes them.
    pub const ALL: [&str; 5] = [TERMS, POSTINGS, VOCABULARY, VIDEOS, META];
}

/// `meta.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// [`FORMAT_VERSION`] of the build.
    pub format: u32,
    /// [`crate::text::NORMALIZER_VERSION`] of the build.
    pub normalizer: u32,
    /// The source handle it was built from.
    pub source: String,
    /// Unix seconds of the build.
    pub built_at: u64,
    /// Every page of the archive at build time; a page id is a position here.
    pub pages: Vec<PageMeta>,
    /// Where each block of `postings.zst` starts (see [`blocks`]).
    #[serde(default)]
    pub postings_blocks: blocks::BlockTable,
    /// The xxh3 of `videos.json` as written (see [`rows`]).
    #[serde(default)]
    pub videos_digest: String,
}

/// One page as the build saw it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PageKey {
    /// The site's id.
    pub site: String,
    /// Transcripts, chat or posts.
    pub layer: LayerName,
    /// The channel's slug.
    pub channel: String,
    /// The page number, from 1.
    pub page: u32,
}

/// One page as the build saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PageMeta {
    /// Which page.
    #[serde(flatten)]
    pub key: PageKey,
    /// The manifest's sha256 of the page at build time.
    pub sha256: String,
    /// The local file's size and mtime at build time (none for remote pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<String>,
    /// `None` when read and tokenised; the reason when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// The byte range of its rows in `videos.json` (transcript pages
    /// with videos).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<[u64; 2]>,
}

impl PageKey {
    /// The key of a page of `archive`'s page table.
    pub fn of(archive: &Archive, p: &PageRef) -> PageKey {
        PageKey {
            site: archive.sites()[p.site].id().to_string(),
            layer: p.layer.into(),
            channel: p.channel.clone(),
            page: p.page,
        }
    }
}

/// A layer as the index file spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerName {
    /// Captions.
    Transcripts,
    /// Live chat.
    Chat,
    /// Posts.
    Posts,
}

impl From<Layer> for LayerName {
    fn from(l: Layer) -> Self {
        match l {
            Layer::Transcripts => LayerName::Transcripts,
            Layer::Chat => LayerName::Chat,
            Layer::Posts => LayerName::Posts,
        }
    }
}

crate::format::facts::with_facts! {
    /// A row of `videos.json`: a video's site, channel, page, title and
    /// facts (what `summaries/index.json` lists), and its span.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct VideoRow {
        /// The site's id.
        pub site: String,
        /// The channel's slug.
        pub channel: String,
        /// The video's slug.
        pub slug: String,
        /// Its title.
        pub title: String,
        ..Facts,
        /// The transcript page that holds it (1-based).
        pub page: u32,
        /// Where the video sits in its page file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub span: Option<VideoSpan>,
    }
}

impl VideoRow {
    /// The key of the transcript page that holds it.
    pub fn page_key(&self) -> PageKey {
        PageKey {
            site: self.site.clone(),
            layer: LayerName::Transcripts,
            channel: self.channel.clone(),
            page: self.page,
        }
    }

    /// The row of `v`, on `page` of `channel` of site `site`, at `span`.
    pub fn of(site: &str, channel: &str, page: u32, v: &VideoView, span: VideoSpan) -> Self {
        let mut row = VideoRow {
            site: site.to_string(),
            channel: channel.to_string(),
            slug: v.slug.to_string(),
            title: v.title.to_string(),
            page,
            span: Some(span),
            ..VideoRow::default()
        };
        row.set_facts(v.facts());
        row
    }
}

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`, advancing it; `None` on a truncated value.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// One page of a word's postings: its id, how many of its videos (chat
/// threads, posts) hold the word, and which, when the index can say.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    /// The page's id in the index's page table.
    pub page: u32,
    /// Videos on that page holding the word (0 when only a page-wide
    /// field such as the channel name does).
    pub videos: u32,
    /// The positions on the page of the videos holding the word, ascending,
    /// on a transcript page where only some do and no page-wide field
    /// holds it; `None` means any video of the page may hold it.
    pub holders: Option<Vec<u32>>,
    /// In which fields they hold it; `None` when each holds it in the
    /// page layer's own field alone ([`fields::Fields::of_layer`]).
    pub census: Option<fields::Census>,
}

impl Posting {
    /// Units of the page (of `layer`) holding the word in some field of
    /// `f`.
    pub fn units_in(&self, layer: LayerName, f: fields::Fields) -> u32 {
        match &self.census {
            Some(c) => c.units_in(f),
            None if fields::Fields::of_layer(layer).meets(f) => self.videos,
            None => 0,
        }
    }
}

/// A postings list: the count, then per page (ascending) its id delta, its
/// video count, a flag byte, the holders when its bit 1 is set (as many
/// as the count, each a delta from the one before) and the census when
/// its bit 2 is.
pub(crate) fn encode_postings(out: &mut Vec<u8>, postings: &[Posting]) {
    put_varint(out, postings.len() as u64);
    let mut prev = 0;
    for p in postings {
        encode_posting(out, p, prev);
        prev = p.page;
    }
}

/// One entry of a postings list, its page id a delta from `prev`, the
/// id of the entry before it (0 for the first).
pub(crate) fn encode_posting(out: &mut Vec<u8>, p: &Posting, prev: u32) {
    encode_entry(
        out,
        (p.page, prev),
        p.videos,
        p.holders.as_deref(),
        p.census.as_ref(),
    );
}

/// The flag bit that says the holders follow.
const HOLDERS_FOLLOW: u8 = 1;
/// The flag bit that says a census follows.
const CENSUS_FOLLOWS: u8 = 2;
/// With [`HOLDERS_FOLLOW`]: the holders are a bitmap, not a list.
const HOLDERS_AS_BITMAP: u8 = 4;

/// [`encode_posting`] from the parts of a posting: page `page` after page
/// `prev`, `videos` holding the word, which when `holders`, in which
/// fields when `census`.
pub(crate) fn encode_entry(
    out: &mut Vec<u8>,
    (page, prev): (u32, u32),
    videos: u32,
    holders: Option<&[u32]>,
    census: Option<&fields::Census>,
) {
    put_varint(out, u64::from(page - prev));
    let count = holders.map_or(videos, |h| h.len() as u32);
    put_varint(out, u64::from(count));
    let list = holders.map(holder_list);
    let bitmap = holders.map(holder_bitmap).filter(|b| {
        let mut prefix = Vec::new();
        put_varint(&mut prefix, b.len() as u64);
        list.as_ref()
            .is_some_and(|l| prefix.len() + b.len() < l.len())
    });
    let flag = holders.map_or(0, |_| HOLDERS_FOLLOW)
        | bitmap.as_ref().map_or(0, |_| HOLDERS_AS_BITMAP)
        | census.map_or(0, |_| CENSUS_FOLLOWS);
    out.push(flag);
    match (bitmap, list) {
        (Some(bitmap), _) => {
            put_varint(out, bitmap.len() as u64);
            out.extend_from_slice(&bitmap);
        }
        (None, Some(list)) => out.extend_from_slice(&list),
        (None, None) => {}
    }
    if let Some(census) = census {
        put_varint(out, census.0.len() as u64);
        for (f, n) in &census.0 {
            out.push(f.bits());
            put_varint(out, u64::from(*n));
        }
    }
}

/// Ascending holders as varint deltas from the one before (the first
/// from 0).
fn holder_list(holders: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(holders.len());
    let mut last = 0;
    for &h in holders {
        put_varint(&mut out, u64::from(h - last));
        last = h;
    }
    out
}

/// Holders as a bitmap: bit `h % 8` of byte `h / 8` for each holder `h`,
/// no byte past the last holder's.
fn holder_bitmap(holders: &[u32]) -> Vec<u8> {
    let len = holders.last().map_or(0, |&h| h as usize / 8 + 1);
    let mut out = vec![0u8; len];
    for &h in holders {
        out[h as usize / 8] |= 1 << (h % 8);
    }
    out
}

/// The inverse of [`holder_bitmap`], `count` holders; `None` when the
/// bitmap does not hold exactly `count`, or ends in an empty byte.
fn decode_bitmap(bytes: &[u8], at: &mut usize, count: u32) -> Option<Vec<u32>> {
    let len = usize::try_from(get_varint(bytes, at)?).ok()?;
    let bitmap = bytes.get(*at..at.checked_add(len)?)?;
    *at += len;
    if bitmap.last() == Some(&0) {
        return None;
    }
    let mut holders = Vec::with_capacity(count.min(1 << 16) as usize);
    for (i, &byte) in bitmap.iter().enumerate() {
        let mut bits = byte;
        while bits != 0 {
            holders.push(i as u32 * 8 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    (holders.len() == count as usize).then_some(holders)
}

/// The inverse of [`encode_postings`]; `None` if the bytes are damaged
/// (truncated, ids past `limit`, holders out of order or a flag unknown).
pub(crate) fn decode_postings(bytes: &[u8], offset: usize, limit: u32) -> Option<Vec<Posting>> {
    let mut at = offset;
    let n = get_varint(bytes, &mut at)?;
    if n > u64::from(limit) {
        return None;
    }
    let mut out = Vec::with_capacity(n as usize);
    let mut cur = 0u64;
    for _ in 0..n {
        cur += get_varint(bytes, &mut at)?;
        if cur >= u64::from(limit) {
            return None;
        }
        let videos = u32::try_from(get_varint(bytes, &mut at)?).ok()?;
        let flag = *bytes.get(at)?;
        at += 1;
        if flag & !(HOLDERS_FOLLOW | CENSUS_FOLLOWS | HOLDERS_AS_BITMAP) != 0 {
            return None;
        }
        let holders = match flag & (HOLDERS_FOLLOW | HOLDERS_AS_BITMAP) {
            0 => None,
            HOLDERS_FOLLOW => Some(decode_holders(bytes, &mut at, videos)?),
            HOLDERS_AS_BITMAP => return None,
            _ => Some(decode_bitmap(bytes, &mut at, videos)?),
        };
        let census = match flag & CENSUS_FOLLOWS {
            0 => None,
            _ => Some(decode_census(bytes, &mut at, videos)?),
        };
        out.push(Posting {
            page: cur as u32,
            videos,
            holders,
            census,
        });
    }
    Some(out)
}

/// A census of `videos` holders: combinations ascending, each of known
/// fields and a count above 0, the counts summing to `videos`.
fn decode_census(bytes: &[u8], at: &mut usize, videos: u32) -> Option<fields::Census> {
    let n = get_varint(bytes, at)?;
    if n > 63 {
        return None;
    }
    let mut out: Vec<(fields::Fields, u32)> = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let f = fields::Fields::from_bits(*bytes.get(*at)?)?;
        *at += 1;
        let count = u32::try_from(get_varint(bytes, at)?)
            .ok()
            .filter(|&c| c > 0)?;
        if out.last().is_some_and(|(last, _)| *last >= f) {
            return None;
        }
        out.push((f, count));
    }
    let sum: u64 = out.iter().map(|(_, c)| u64::from(*c)).sum();
    (sum == u64::from(videos)).then_some(fields::Census(out))
}

/// `count` delta-coded positions, strictly ascending.
fn decode_holders(bytes: &[u8], at: &mut usize, count: u32) -> Option<Vec<u32>> {
    let mut holders = Vec::with_capacity(count.min(4096) as usize);
    let mut last: Option<u64> = None;
    for _ in 0..count {
        let delta = get_varint(bytes, at)?;
        let h = match last {
            Some(_) if delta == 0 => return None,
            Some(l) => l.checked_add(delta)?,
            None => delta,
        };
        holders.push(u32::try_from(h).ok()?);
        last = Some(h);
    }
    Some(holders)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_and_damage_is_detected() {
        let mut buf = Vec::new();
        let mut postings: Vec<Posting> = [(0, 1), (3, 0), (4, 12), (200, 3), (70_000, 300)]
            .iter()
            .map(|&(page, videos)| Posting {
                page,
                videos,
                holders: None,
                census: None,
            })
            .collect();
        postings[3].holders = Some(vec![0, 7, 300]);
        postings[2].holders = Some(vec![0, 1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 15]);
        let (c, t) = (fields::Fields::CAPTIONS, fields::Fields::TITLE);
        postings[3].census = Some(fields::Census(vec![(c, 1), (t, 2)]));
        postings[4].census = Some(fields::Census(vec![(c, 299), (c.with(t), 1)]));
        encode_postings(&mut buf, &postings);
        assert_eq!(decode_postings(&buf, 0, 70_001), Some(postings.clone()));
        let mut wrong = postings.clone();
        wrong[4].census = Some(fields::Census(vec![(c, 1)]));
        let mut bad = Vec::new();
        encode_postings(&mut bad, &wrong);
        assert_eq!(
            decode_postings(&bad, 0, 70_001),
            None,
            "a census that does not add up to the holders"
        );
        assert_eq!(
            decode_postings(&buf, 0, 1000),
            None,
            "an id past the page table"
        );
        assert_eq!(
            decode_postings(&buf[..buf.len() - 1], 0, 70_001),
            None,
            "truncated"
        );
    }
}
