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
//!               postings list in the *decompressed* postings.zst (fst's
//!               own checksum is verified when read: [`checked_fst`])
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
//!               position `i`: whichever is shorter), bit 4 when the
//!               word is also in a page-wide field (the channel's name:
//!               in the metadata scope every video holds it),
//!               bit 2 when a census of fields follows (see [`fields`]:
//!               a varint count of combinations, then each as a byte of
//!               field bits and a varint count of holders; without it,
//!               every holder holds the word in its layer's own field
//!               alone: captions, chat or posts)
//! terms.txt     every word, one per line, in order: the blob infix
//!               lookups (regex literals inside words) scan with memchr
//! videos.json.zst
//!               one row per video read, in page order: site, channel,
//!               slug, title, page, watch page, the length of its
//!               captions' text and the video's facts (date, length,
//!               media type, age, state, curated tags, ...); a JSON
//!               array compressed as one zstd frame per page; meta.json
//!               holds its xxh3 (`videosDigest`) and each page's byte
//!               range of its frame (`rows`), so a page's rows are
//!               decompressed and parsed alone, and only when a search
//!               needs them ([`rows`])
//! spans.bin     where each of those videos sits in its page file
//!               ([`VideoSpan`]: byte range and a digest of those bytes),
//!               24 bytes a video in the rows' order; meta.json holds its
//!               xxh3 (`spansDigest`) and each page's first record and
//!               count (`records`) (see [`span_table`])
//! places.fst    fst map: each rare word → its entry in places.bin
//! places.bin    for each rare word, the cues of each video that say it
//!               and where they sit in its span, with a digest of their
//!               bytes (see [`places`]: which words, the budget);
//!               meta.json holds its xxh3 (`placesDigest`)
//! words.bin     for each of those videos, the words it says and in which
//!               of its fields, by their number in terms.txt (see
//!               [`word_lists`]); meta.json holds its xxh3 (`wordsDigest`)
//! held.bin      for each word, how many videos of the transcript pages
//!               hold it in each combination of fields: its census, summed
//!               from its postings (see [`held`]); meta.json holds its
//!               xxh3 (`heldDigest`)
//! .archilyzer-output.json
//!               the marker that says this folder is an index written by
//!               this project (see [`crate::claim`])
//! passages/     the passages embedded by `build --embed`, with the model's
//!               identity (`passages::store`, behind the core's `passages`
//!               feature); a build carries it
//!               into the folder it writes unread: each passage says
//!               itself whether its video is unchanged
//! passages.pending/
//!               the finished chunks of an embedding run not yet done
//!               ([`files::PASSAGES_PENDING`]), carried over the same way
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
//!   of its page's videos hold the word in their own fields (was: at most
//!   one in four, and never for a word of the channel's name, which is
//!   now a flag), as a
//!   bitmap where that is shorter than the list, so which videos say a
//!   word is known from the postings alone (`significant_terms` counts
//!   its foreground without reading it; a phrase of two common words
//!   reads only the videos holding both).
//! - 8 (2026-12): the videos' spans move from `videos.json` to
//!   `spans.bin`, fixed-size records a search reads without parsing a
//!   row; `videos.json` is read only when a search needs a row (a filter,
//!   a related-videos answer), so a one-word search opens no 4 MB file.
//! - 9 (2026-12): `places.fst` and `places.bin` say where rare words
//!   are said (the cues of each video holding them), so a warm server
//!   answers a one-word search by reading those cues alone; each row of
//!   `videos.json` carries the video's watch page and the length of its
//!   captions' text, what such an answer reports without the captions.
//! - 10 (2026-12): `words.bin` lists the words of each video, so the
//!   words of a few videos (the foreground of `significant_terms`) are
//!   counted without reading them or walking every posting; `held.bin`
//!   gives each word's census over the whole archive without walking its
//!   postings.
//! - 11 (2026-12): `videos.json` becomes `videos.json.zst`, the same
//!   array as one zstd frame per page (`rows` names a frame), a seventh
//!   of its size: the rows were the largest file but one, and the index
//!   is held under 5 % of the transcripts it covers.
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
//! 6. A one-word search may read, of a video the postings select, only the
//!    cues [`places`] names. The build names every cue of the video that
//!    holds the word, and only for a video that holds it in its captions
//!    alone; the cues' bytes are used only when they hash to the digest
//!    recorded and each parses as a cue, and the video only when no
//!    exclude's words are all held by it per the postings. Anything else
//!    reads the span (point 5). So a place, like a span, saves bytes but
//!    never stands in for text it does not hold
//!    (`indexer/tests/suite/spans.rs`:
//!    `a_stale_place_falls_back_and_answers_as_a_full_scan_does`).
//!
//! So a fresh, stale, foreign or corrupt index changes only how many bytes
//! are read (invariant 1).

pub(crate) mod blocks;
mod build;
pub mod cache;
mod checked_fst;
mod error;
pub mod fields;
pub(crate) mod held;
mod holders;
mod memo;
mod open;
pub mod places;
pub(crate) mod postings;
mod read;
mod reuse;
pub(crate) mod rows;
pub(crate) mod select;
pub mod similar;
pub(crate) mod span_table;
pub(crate) mod word_lists;

pub use build::{build, claim, BuildEvent, BuildReport};
pub use cache::IndexCache;
pub use error::IndexError;
pub use open::{default_dir, default_root, dir_under, Index, IndexStatus, Vouched};
pub use postings::Posting;

pub(crate) use postings::{
    decode_postings, encode_entry, encode_postings, for_each_posting, holder_bitmap, put_varint,
    PostingView,
};
pub use read::RawIndex;

use serde::{Deserialize, Serialize};

use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::format::{HasFacts, VideoView};

/// The spans the index in `dir` recorded, for `archive`'s
/// [`Archive::read_spans_with`]: looked up in the index the archive's
/// cache keeps, loaded again whenever its files change.
pub fn span_lookup(archive: &Archive, dir: std::path::PathBuf) -> crate::archive::SpanLookup {
    let cache = archive.indexes().clone();
    Box::new(move |site, channel, slug| cache.load(&dir).ok()?.span_of(site, channel, slug))
}

/// The on-disk layout version of the index (history in the module docs).
pub const FORMAT_VERSION: u32 = 11;

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
    /// One row per video, a zstd frame per page.
    pub const VIDEOS: &str = "videos.json.zst";
    /// Each video's span in its page file.
    pub const SPANS: &str = "spans.bin";
    /// Rare words → their entries in [`PLACES`].
    pub const PLACE_WORDS: &str = "places.fst";
    /// Where rare words are said.
    pub const PLACES: &str = "places.bin";
    /// The words of each video.
    pub const WORDS: &str = "words.bin";
    /// Each word's census over the transcript pages.
    pub const HELD: &str = "held.bin";
    /// The folder of the passages `build --embed` writes
    /// (`passages::store`), carried into every new build's folder.
    pub const PASSAGES: &str = "passages";
    /// The folder of an embedding run's unfinished work, carried the
    /// same way.
    pub const PASSAGES_PENDING: &str = "passages.pending";
    /// Every data file, in the order a build writes them.
    pub const ALL: [&str; 10] = [
        TERMS,
        POSTINGS,
        VOCABULARY,
        VIDEOS,
        SPANS,
        PLACE_WORDS,
        PLACES,
        WORDS,
        HELD,
        META,
    ];
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
    /// Where each block of `postings.zst` starts (its layout: the module `index::blocks`).
    #[serde(default)]
    pub postings_blocks: blocks::BlockTable,
    /// The xxh3 of `videos.json.zst` as written (its layout: the module `index::rows`).
    #[serde(default)]
    pub videos_digest: String,
    /// The xxh3 of `spans.bin` as written (its layout: the module `index::span_table`).
    #[serde(default)]
    pub spans_digest: String,
    /// The xxh3 of `places.bin` as written (see [`places`]).
    #[serde(default)]
    pub places_digest: String,
    /// The xxh3 of `words.bin` as written (its layout: the module `index::word_lists`).
    #[serde(default)]
    pub words_digest: String,
    /// The xxh3 of `terms.txt` as written: the numbers `words.bin` and
    /// `held.bin` give words are its lines.
    #[serde(default)]
    pub vocabulary_digest: String,
    /// The xxh3 of `held.bin` as written (its layout: the module `index::held`).
    #[serde(default)]
    pub held_digest: String,
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
    /// The byte range of its rows' zstd frame in `videos.json.zst`
    /// (transcript pages with videos).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<[u64; 2]>,
    /// Its first record in `spans.bin` and how many (transcript pages
    /// with videos).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<[u32; 2]>,
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
    /// A row of `videos.json.zst`: a video's site, channel, page, title and
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
        /// Its watch page, as its page gives it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
        /// The length of its captions' text
        /// ([`VideoView::caption_bytes`]): what a search answered from
        /// the row reports without reading the captions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub caption_bytes: Option<u32>,
        /// Where the video sits in its page file: kept in `spans.bin`,
        /// not in the row's JSON, and set on the rows a reader parses.
        #[serde(skip)]
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

    /// The row of `v`, on `page` of `channel` of site `site`, at `span`,
    /// its captions' text `captions` bytes long ([`VideoView::caption_bytes`]).
    pub fn of(
        site: &str,
        channel: &str,
        page: u32,
        v: &VideoView,
        captions: u32,
        span: VideoSpan,
    ) -> Self {
        let mut row = VideoRow {
            site: site.to_string(),
            channel: channel.to_string(),
            slug: v.slug.to_string(),
            title: v.title.to_string(),
            page,
            url: v.webpage_url.as_deref().map(str::to_string),
            caption_bytes: Some(captions),
            span: Some(span),
            ..VideoRow::default()
        };
        row.set_facts(v.facts());
        row
    }
}
