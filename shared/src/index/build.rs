//! Building the index: read every page once (or only the changed ones),
//! tokenise every searchable field, write the files atomically.
//!
//! Promises: a page whose manifest sha256 and file stamp equal those of the
//! previous build (same source, same versions) is not read again, its words
//! are carried over; a page that cannot be read or parsed is recorded as
//! failed with the reason (the planner then always reads it); the index is
//! written to a staging directory and renamed into place (invariant 3).

use crate::in_order::in_order;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use fst::Streamer;

use super::fields::{Census, Fields};
use super::holders::{Holders, Word};
use super::places::{self, Candidate, PlacedVideo};
use super::read::RawIndex;
use super::{
    decode_postings, encode_entry, encode_postings, files, IndexError, LayerName, Meta, PageKey,
    PageMeta, Posting, VideoRow, FORMAT_VERSION,
};
use super::{held, word_lists};
use crate::archive::{Archive, PageRef};
use crate::claim::{Claim, OutputKind, Refusal};
use crate::format::cue_layout::Walked;
use crate::format::paths::Layer;
use crate::format::{self, ChatPage, FormatError, PostPage, VideoView};
use crate::source::ReadError;
use crate::staging::Staging;
use crate::text::{for_each_token, NORMALIZER_VERSION};

/// zstd level of the postings, compressed in blocks of 64 KB. On real
/// captions (the non-repeating benchmark archive of 1.24 GB) the blocks
/// take 27.2 MB raw, 18.52 MB at level 3 and 18.45 MB at level 9, which
/// costs four times as long; on the generated archive of 200 MB, 6.4 MB
/// raw, 2.88 MB at level 3 and 2.78 MB at level 9. A point of the index's
/// size is not worth a second of every build.
const POSTINGS_ZSTD_LEVEL: i32 = 3;

/// What a build reports as it goes.
#[derive(Debug)]
pub enum BuildEvent<'a> {
    /// Pages in all, and how many must be read (the rest are reused).
    Start {
        /// Pages in the page table.
        pages: usize,
        /// Pages that must be read.
        to_read: usize,
    },
    /// One page read (or failed).
    PageRead {
        /// Which page.
        key: &'a PageKey,
        /// Its size.
        bytes: u64,
    },
}

/// What a build did.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Pages in the archive's page table.
    pub pages: usize,
    /// Pages read (new or changed).
    pub read: usize,
    /// Pages carried over unread.
    pub reused: usize,
    /// Of those, pages whose file was written anew with the same bytes,
    /// proved unchanged by hashing them (see `index::reuse`).
    pub rehashed: usize,
    /// Bytes of the pages read.
    pub bytes_read: u64,
    /// `page: reason` for each page (or manifest) that could not be read.
    pub failed: Vec<String>,
    /// Distinct words in the index.
    pub terms: usize,
    /// Videos in the index's table.
    pub videos: usize,
    /// Bytes of the index's files.
    pub index_bytes: u64,
    /// Wall time of the build.
    pub seconds: f64,
    /// Nothing changed since the last build (every page kept its stamp,
    /// in the same order), so its index was kept as it was and nothing
    /// written.
    pub untouched: bool,
}

/// The words and videos of one page.
#[derive(Default)]
struct PageWords {
    /// Each word, with the positions on the page of the videos (chat
    /// threads, posts) that hold it.
    words: Holders,
    /// Words of page-wide fields (the channel name): they hold for every
    /// video of the page in the metadata scope, which their postings say
    /// with a flag beside the holders named.
    page_wide: FxHashSet<Box<str>>,
    /// Units on the page.
    units: u32,
    /// Whether holders may be named (transcript pages only: chat and posts
    /// pages are always read whole).
    spans: bool,
    /// The field a unit of this page's layer is made of (the one a
    /// posting leaves unsaid when every holder holds the word there
    /// alone).
    own: Fields,
    videos: Vec<VideoRow>,
    /// Per video (transcript pages): where each of its cues sits in its
    /// span, when that could be told (what places are made of).
    cues: Vec<Option<Vec<std::ops::Range<u32>>>>,
}

impl PageWords {
    /// The page's words with what their postings say (holders named where
    /// they narrow the page, places where they are rare on it), and its
    /// video rows; its word table, emptied, goes back to `table`. `id`
    /// is the page's id, `bytes` its file.
    fn into_page(self, table: &mut Holders, bytes: crate::memory::PageBytes) -> ReadPage {
        let (units, spans, page_wide, mut words) =
            (self.units, self.spans, self.page_wide, self.words);
        for w in &page_wide {
            words.ensure(w);
        }
        let page_wide: FxHashSet<Word> = page_wide.iter().map(|w| Word::of(w)).collect();
        let lists = words.take_lists();
        *table = words;
        // Only rare words' marks are kept (most marks are common words').
        let mut marks_kept = Vec::new();
        let mut unit_words = vec![Vec::new(); if spans { units as usize } else { 0 }];
        for (k, (_, holders, _)) in lists.words.iter().enumerate() {
            for (&unit, &f) in lists.units[holders.clone()]
                .iter()
                .zip(&lists.fields[holders.clone()])
            {
                if let Some(list) = unit_words.get_mut(unit as usize) {
                    list.push((k as u32, f));
                }
            }
        }
        let entries = lists
            .words
            .into_iter()
            .map(|(w, holders, marks)| {
                let videos = holders.len() as u32;
                let narrows = spans && videos > 0 && videos < units;
                let page_wide = page_wide.contains(&w);
                let rare = !page_wide && u64::from(videos) <= places::PLACED_VIDEOS_AT_MOST;
                let entry = Entry {
                    videos,
                    census: Census::of(&lists.fields[holders.clone()], self.own),
                    page_wide,
                    holders: narrows.then_some(holders.clone()),
                    rare: (rare && !marks.is_empty()).then(|| {
                        let from = marks_kept.len();
                        marks_kept.extend_from_slice(&lists.marks[marks]);
                        (holders, from..marks_kept.len())
                    }),
                };
                (w, entry)
            })
            .collect();
        let source = PlaceSource {
            spans: self
                .videos
                .iter()
                .map(|v| v.span.as_ref().map(|s| s.start as usize..s.end as usize))
                .collect(),
            cues: self.cues,
            bytes,
            marks: marks_kept,
            fields: lists.fields,
        };
        ReadPage {
            transcripts: spans,
            entries,
            holders: lists.units,
            videos: self.videos,
            unit_words,
            source,
        }
    }
}

/// What the places of a page's rare words are made from: the page's
/// bytes, where each video and each of its cues sits, and the cues and
/// fields of each word's holders ([`super::holders::Lists`]).
struct PlaceSource {
    bytes: crate::memory::PageBytes,
    spans: Vec<Option<std::ops::Range<usize>>>,
    cues: Vec<Option<Vec<std::ops::Range<u32>>>>,
    marks: Vec<(u32, u32)>,
    fields: Vec<Fields>,
}

impl PlaceSource {
    /// The places on page `id` of a word held by `units[holders]`, said
    /// in the cues `marks` (ranges of the page's holders and marks).
    fn places(&self, id: u32, units: &[u32], (holders, marks): &Rare) -> Vec<PlacedVideo> {
        let (held, fields) = (&units[holders.clone()], &self.fields[holders.clone()]);
        let captions_only = |unit: u32| {
            held.binary_search(&unit)
                .is_ok_and(|i| fields[i] == Fields::CAPTIONS)
        };
        let cues_of = |unit: u32| {
            let ranges = self.cues.get(unit as usize)?.as_deref()?;
            let span = self.spans.get(unit as usize)?.clone()?;
            Some((ranges, self.bytes.get(span)?))
        };
        places::of_page(id, &self.marks[marks.clone()], captions_only, cues_of)
    }
}

/// The ranges of a page's holders and marks for a word rare on it.
type Rare = (std::ops::Range<usize>, std::ops::Range<usize>);

/// A page read for the index: each of its words with its entry, the
/// holders the entries name, and its video rows. Made on the reading
/// thread, so the thread that merges pages only encodes them.
struct ReadPage {
    /// A transcript page (whose postings a word's tally counts).
    transcripts: bool,
    entries: Vec<(Word, Entry)>,
    holders: Vec<u32>,
    videos: Vec<VideoRow>,
    /// By video (transcript pages): the entries (positions in `entries`)
    /// of the words it says, ascending, and in which fields.
    unit_words: Vec<Vec<(u32, Fields)>>,
    source: PlaceSource,
}

/// A video row on its way into the index, with its words
/// ([`super::word_lists`]) numbered as the words they came from number
/// them; `write` numbers them as the new vocabulary does.
struct BuiltVideo {
    row: VideoRow,
    words: Option<Numbered>,
}

/// A video's word list, encoded, and whose numbers its words are.
enum Numbered {
    /// Numbered in the order this build first met each word
    /// ([`Encoded::id`]).
    Fresh(Vec<u8>),
    /// Numbered as the previous index's vocabulary.
    Carried(Vec<u8>),
}

/// What one page's posting of a word says: how many videos hold it, in
/// which fields (unless all in the layer's own), and which (a range of
/// [`ReadPage::holders`]) when that narrows the page.
struct Entry {
    videos: u32,
    census: Option<Census>,
    page_wide: bool,
    holders: Option<std::ops::Range<usize>>,
    /// For a word held by few videos of the page (and not in a page-wide
    /// field): its holders and marks, of which its places are made while
    /// it stays rare in the archive ([`places`]).
    rare: Option<Rare>,
}

/// Claims `dir` for the index of `archive`: refused when it holds
/// anything but an index this project built, or when it is, is inside, or
/// contains a local folder of the archive (see [`crate::claim`]).
pub fn claim(archive: &Archive, dir: &Path) -> Result<Claim, Refusal> {
    let dirs = archive.local_dirs();
    let reads: Vec<(&Path, &str)> = dirs.iter().map(|d| (d.as_path(), "the archive")).collect();
    Claim::new(dir, OutputKind::Index, "--index", &reads)
}

/// Builds (or incrementally rebuilds) the index of `archive` in `dir`,
/// after claiming it ([`claim`]). A page that cannot be read is recorded
/// in the report, not an error.
pub fn build(
    archive: &Archive,
    dir: &Path,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, IndexError> {
    let claim = claim(archive, dir)?;
    let started = Instant::now();
    let (pages, problems) = archive.page_table();
    let source = archive.handle().to_string();
    let keys: Vec<PageKey> = pages.iter().map(|p| PageKey::of(archive, p)).collect();
    let old = RawIndex::load(dir)
        .ok()
        .filter(|o| o.meta.source == source && o.compatible() && o.whole());
    let carried = super::reuse::carried_over(archive, &pages, &keys, old.as_ref());
    if let Some(old) = old
        .as_ref()
        .filter(|o| super::reuse::already_built(o, &carried, pages.len()))
    {
        progress(BuildEvent::Start {
            pages: pages.len(),
            to_read: 0,
        });
        return Ok(untouched(pages.len(), problems, old, dir, started));
    }
    let reuse = carried.ids;
    let to_read: Vec<usize> = (0..pages.len()).filter(|&i| reuse[i].is_none()).collect();
    progress(BuildEvent::Start {
        pages: pages.len(),
        to_read: to_read.len(),
    });

    let mut report = BuildReport {
        pages: pages.len(),
        failed: problems,
        ..Default::default()
    };
    let budget = place_budget(&pages);
    let mut postings = Postings::new(budget);
    let mut videos = Vec::new();
    if let Some(old) = &old {
        videos = carried_videos(old, &reuse);
    }
    let mut failures: HashMap<usize, String> = HashMap::new();
    read_pages(
        archive,
        &pages,
        &keys,
        &to_read,
        progress,
        |i, result| match result {
            Ok((page, bytes)) => {
                videos.extend(postings.add_page(i as u32, page));
                report.bytes_read += bytes;
            }
            Err(e) => {
                report.failed.push(e.to_string());
                failures.insert(i, e.to_string());
            }
        },
    );
    report.read = to_read.len();
    report.reused = pages.len() - to_read.len();
    report.rehashed = carried.rehashed;
    let meta = Meta {
        format: FORMAT_VERSION,
        normalizer: NORMALIZER_VERSION,
        source,
        built_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        postings_blocks: Vec::new(),
        videos_digest: String::new(),
        spans_digest: String::new(),
        places_digest: String::new(),
        words_digest: String::new(),
        held_digest: String::new(),
        vocabulary_digest: String::new(),
        pages: keys
            .into_iter()
            .zip(&pages)
            .enumerate()
            .map(|(i, (key, p))| PageMeta {
                key,
                sha256: p.sha256.clone(),
                stamp: p.stamp.clone(),
                failed: failures.remove(&i),
                rows: None,
                records: None,
            })
            .collect(),
    };
    let remap: Vec<Option<u32>> = match &old {
        Some(o) => {
            let mut m = vec![None; o.meta.pages.len()];
            for (new, old_id) in reuse.iter().enumerate() {
                if let Some(old_id) = old_id {
                    m[*old_id as usize] = Some(new as u32);
                }
            }
            m
        }
        None => Vec::new(),
    };
    sort_videos(&meta, &mut videos);
    report.videos = videos.len();
    let (terms, bytes) = write(
        claim,
        &meta,
        old.as_ref().map(|o| (o, remap.as_slice())),
        postings,
        videos,
        budget,
    )?;
    report.terms = terms;
    report.index_bytes = bytes;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The report of a build that found `old` already up to date.
fn untouched(
    pages: usize,
    failed: Vec<String>,
    old: &RawIndex,
    dir: &Path,
    started: Instant,
) -> BuildReport {
    let bytes = files::ALL
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum();
    BuildReport {
        pages,
        reused: pages,
        failed,
        terms: old.terms.len(),
        videos: old.every_row().map_or(0, <[_]>::len),
        index_bytes: bytes,
        seconds: started.elapsed().as_secs_f64(),
        untouched: true,
        ..Default::default()
    }
}

/// The bytes places may take: a share of the transcript pages' bytes
/// ([`places::PLACES_SHARE_DIVISOR`]).
fn place_budget(pages: &[PageRef]) -> u64 {
    let transcripts = pages.iter().filter(|p| p.layer == Layer::Transcripts);
    transcripts.map(|p| p.bytes).sum::<u64>() / places::PLACES_SHARE_DIVISOR
}

/// The places of the previous index on pages this build reuses, by word,
/// with the pages' new ids (an index without usable places gives none:
/// its words are then unplaced until their pages are read again).
fn carried_places(old: &RawIndex, remap: &[Option<u32>]) -> FxHashMap<Box<[u8]>, Vec<PlacedVideo>> {
    let every = old.places().and_then(|p| p.every()).unwrap_or_default();
    every
        .into_iter()
        .filter_map(|(word, videos)| {
            let moved: Vec<PlacedVideo> = videos
                .into_iter()
                .filter_map(|v| {
                    let page = remap.get(v.page as usize).copied().flatten()?;
                    Some(PlacedVideo { page, ..v })
                })
                .collect();
            (!moved.is_empty()).then(|| (Box::<[u8]>::from(word.as_bytes()), moved))
        })
        .collect()
}

/// The video rows of reused pages, from the previous index (whose rows
/// all parse: `build` uses no other), with their word lists where it
/// has them.
fn carried_videos(old: &RawIndex, reuse: &[Option<u32>]) -> Vec<BuiltVideo> {
    let reused: HashSet<u32> = reuse.iter().flatten().copied().collect();
    let lists = old.word_lists();
    old.every_row()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, row)| {
            old.page_id(&row.page_key())
                .is_some_and(|id| reused.contains(&id))
        })
        .map(|(record, row)| BuiltVideo {
            row: row.clone(),
            words: lists.and_then(|l| l.words(record)).map(|mut words| {
                words.sort_unstable_by_key(|w| w.0);
                let mut out = Vec::new();
                word_lists::encode_list(&mut out, &words, &word_lists::Common::default());
                Numbered::Carried(out)
            }),
        })
        .collect()
}

/// Puts video rows in page-table order (whatever was reused), keeping
/// the order within a page.
fn sort_videos(meta: &Meta, videos: &mut [BuiltVideo]) {
    let position: HashMap<(&str, &str, u32), usize> = meta
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.key.layer == LayerName::Transcripts)
        .map(|(i, p)| ((p.key.site.as_str(), p.key.channel.as_str(), p.key.page), i))
        .collect();
    videos.sort_by_cached_key(|BuiltVideo { row: v, .. }| {
        position
            .get(&(v.site.as_str(), v.channel.as_str(), v.page))
            .copied()
            .unwrap_or(usize::MAX)
    });
}

/// Postings of the freshly read pages: word → ascending pages, each kept
/// encoded as the index file spells it (a few bytes a page instead of a
/// [`Posting`] of 32), so the build's memory stays small however many
/// pages it reads.
struct Postings {
    map: FxHashMap<Word, Encoded>,
    /// The places of the words still rare.
    pending: places::Pending<Word>,
}

/// A word's fresh postings, encoded by [`super::encode_posting`], and
/// its places while it is rare.
#[derive(Default)]
struct Encoded {
    /// The word's number in the order this build first met it.
    id: u32,
    count: u64,
    last_page: u32,
    bytes: Vec<u8>,
    /// Videos (chat threads, posts) holding it so far.
    videos: u64,
    /// Videos holding it on transcript pages so far, by fields.
    tally: held::Tally,
}

impl Postings {
    /// Postings whose places may take `place_budget` bytes in the index.
    fn new(place_budget: u64) -> Self {
        Postings {
            map: FxHashMap::default(),
            pending: places::Pending::new(place_budget),
        }
    }

    /// Pages must be added in ascending id order. Gives the page's
    /// videos, with their words numbered as [`Encoded::id`] numbers them.
    fn add_page(&mut self, id: u32, page: ReadPage) -> Vec<BuiltVideo> {
        let mut ids = Vec::with_capacity(page.entries.len());
        for (w, entry) in page.entries {
            let fresh = self.map.len() as u32;
            let e = match self.map.get_mut(&w) {
                Some(e) => e,
                None => self.map.entry(w.clone()).or_insert(Encoded {
                    id: fresh,
                    ..Encoded::default()
                }),
            };
            ids.push(e.id);
            let holders = entry.holders.map(|r| &page.holders[r]);
            encode_entry(
                &mut e.bytes,
                (id, e.last_page),
                entry.videos,
                holders,
                (entry.census.as_ref(), entry.page_wide),
            );
            e.last_page = id;
            e.count += 1;
            e.videos += u64::from(entry.videos);
            if page.transcripts {
                e.tally.add(entry.videos, entry.census.as_ref());
            }
            let videos = e.videos;
            match &entry.rare {
                _ if videos > places::PLACED_VIDEOS_AT_MOST => self.pending.forget(&w),
                Some(rare) => {
                    let placed = page.source.places(id, &page.holders, rare);
                    self.pending.add(&w, videos, placed);
                }
                None => {}
            }
        }
        self.pending.settle();
        let mut lists = page.unit_words.into_iter();
        let built = page.videos.into_iter().map(|row| {
            let words = lists.next().map(|list| {
                let mut list: Vec<(u32, Fields)> = list
                    .into_iter()
                    .map(|(k, f)| (ids[k as usize], f))
                    .collect();
                list.sort_unstable_by_key(|w| w.0);
                let mut out = Vec::new();
                word_lists::encode_list(&mut out, &list, &word_lists::Common::default());
                Numbered::Fresh(out)
            });
            BuiltVideo { row, words }
        });
        built.collect()
    }

    /// Every word with its postings and places, in word order (the
    /// order the fst takes them in).
    fn sorted(self) -> Vec<(Box<str>, Encoded, Vec<PlacedVideo>)> {
        let mut pending = self.pending;
        let mut words: Vec<_> = self
            .map
            .into_iter()
            .map(|(w, e)| {
                let placed = pending.take(&w);
                (w.into_text(), e, placed)
            })
            .collect();
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        words
    }
}

impl Encoded {
    /// The postings, decoded (one word's at a time, while writing).
    fn into_postings(self, pages: usize) -> Result<Vec<Posting>, IndexError> {
        decode_postings(&self.list(), 0, pages as u32).ok_or_else(|| {
            IndexError::Dictionary("a postings list this build encoded does not decode".into())
        })
    }

    /// The postings list as [`encode_postings`] writes it: the pages were
    /// added in ascending order, each once, and each entry encoded after
    /// the one before, so the count before the entries is all it lacks.
    fn list(&self) -> Vec<u8> {
        let mut list = Vec::with_capacity(self.bytes.len() + 10);
        super::put_varint(&mut list, self.count);
        list.extend_from_slice(&self.bytes);
        list
    }
}

/// A word's postings list as `write` takes it: its bytes as
/// [`encode_postings`] writes them, the videos holding it, their fields
/// on transcript pages, and the word's fresh id when this build met it.
struct Listed {
    bytes: Vec<u8>,
    videos: u64,
    tally: held::Tally,
    fresh: Option<u32>,
}

impl Listed {
    /// A fresh word's list, as the build encoded it page by page (no
    /// decoding: its pages are ascending and each once already).
    fn fresh(e: Encoded) -> Listed {
        Listed {
            bytes: e.list(),
            videos: e.videos,
            tally: e.tally,
            fresh: Some(e.id),
        }
    }

    /// A list made of decoded postings (a word of the previous index,
    /// with a fresh word's postings merged in): sorted by page, each page
    /// once; `None` when no page is left.
    fn decoded(mut ids: Vec<Posting>, meta: &Meta) -> Option<Listed> {
        ids.sort_unstable_by_key(|p| p.page);
        ids.dedup_by_key(|p| p.page);
        if ids.is_empty() {
            return None;
        }
        let mut tally = held::Tally::default();
        for p in &ids {
            if meta.pages[p.page as usize].key.layer == LayerName::Transcripts {
                tally.add(p.videos, p.census.as_ref());
            }
        }
        let mut bytes = Vec::new();
        encode_postings(&mut bytes, &ids);
        Some(Listed {
            bytes,
            videos: ids.iter().map(|p| u64::from(p.videos)).sum(),
            tally,
            fresh: None,
        })
    }
}

type PageResult = Result<(ReadPage, u64), ReadError>;

/// Reads and tokenises the pages `todo` (ascending), on every core, and
/// hands each result to `take` in page order as soon as the pages before
/// it are in: only the pages read ahead of the next one are held, so
/// memory does not grow with the archive.
fn read_pages(
    archive: &Archive,
    pages: &[PageRef],
    keys: &[PageKey],
    todo: &[usize],
    progress: &(dyn Fn(BuildEvent) + Sync),
    mut take: impl FnMut(usize, PageResult),
) {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(8);
    // Each reading thread keeps its word table from page to page (emptied,
    // its room kept), so no page grows one from nothing.
    let read = |table: &mut Holders, &i: &usize| {
        let result = page_words(archive, &pages[i], table);
        let bytes = result.as_ref().map(|r| r.1).unwrap_or(0);
        progress(BuildEvent::PageRead {
            key: &keys[i],
            bytes,
        });
        result
    };
    in_order(todo, workers, Holders::default, read, |n, result| {
        take(todo[n], result);
        std::ops::ControlFlow::Continue(())
    });
}

/// Every word of every searchable field of a page, with the videos
/// holding it, each video's span in the page file, and where rare words
/// are; `table` lends its room and gets it back.
fn page_words(
    archive: &Archive,
    p: &PageRef,
    table: &mut Holders,
) -> Result<(ReadPage, u64), ReadError> {
    let site = &archive.sites()[p.site];
    let (bytes, _) = site.page_bytes(p.layer, &p.channel, p.page)?;
    let name = site.describe(&format::paths::page(p.layer, &p.channel, p.page));
    let mut w = PageWords {
        words: std::mem::take(table),
        own: Fields::of_layer(p.layer.into()),
        ..PageWords::default()
    };
    for_each_token(&channel_name_of(site, &p.channel), |t, _| {
        w.page_wide.insert(t.into());
    });
    match p.layer {
        Layer::Transcripts => {
            for (span, json) in format::spans::videos(&bytes, &name)? {
                let at = RowAt {
                    site: site.id(),
                    channel: &p.channel,
                    page: p.page,
                    span,
                };
                w.add_transcript(json, at)
                    .map_err(|e| FormatError::json(&name, e))?;
            }
            w.spans = true;
        }
        Layer::Chat => {
            let page: ChatPage = format::parse(&bytes, &name)?;
            for v in &page.videos {
                w.add_unit(v.messages.iter().map(|m| (Fields::CHAT, m.text.as_str())));
            }
        }
        Layer::Posts => {
            let page: PostPage = format::parse(&bytes, &name)?;
            for post in &page.posts {
                w.add_unit(std::iter::once((Fields::POSTS, post.text.as_str())));
            }
        }
    }
    let len = bytes.len() as u64;
    Ok((w.into_page(table, bytes), len))
}

fn channel_name_of(site: &crate::archive::Site, channel: &str) -> String {
    site.channel(channel)
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

/// Where a transcript video's row says it is.
struct RowAt<'a> {
    site: &'a str,
    channel: &'a str,
    page: u32,
    span: format::spans::VideoSpan,
}

impl RowAt<'_> {
    /// The row of `v`, whose captions' text is `captions` bytes long.
    fn row(&self, v: &VideoView, captions: u32) -> VideoRow {
        let span = self.span.clone();
        VideoRow::of(self.site, self.channel, self.page, v, captions, span)
    }
}

impl PageWords {
    /// Adds a transcript page's video, whose JSON text is `json`, with its
    /// row. Walked when the walk vouches for it ([`Walked`]: each cue's
    /// text read where it lies, the other members parsed), else parsed
    /// whole. Both give the same words, cues and row: a walked cue's text
    /// is what the parser reads there, and where the parser would refuse
    /// a part the video is parsed whole, which says why.
    fn add_transcript(&mut self, json: &str, at: RowAt) -> Result<(), serde_json::Error> {
        match Walked::of(json) {
            Some(walked) if self.add_walked(&walked, &at) => Ok(()),
            _ => self.add_parsed(json, &at),
        }
    }

    /// [`Self::add_transcript`] from the walk: `false`, and nothing added,
    /// when its other members or a cue's text do not parse.
    fn add_walked(&mut self, walked: &Walked, at: &RowAt) -> bool {
        let Some(v) = walked.view() else {
            return false;
        };
        let texts: Option<Vec<_>> = walked.cues.iter().map(|c| walked.cue_text(c)).collect();
        let Some(texts) = texts else {
            return false;
        };
        let offset = |at: usize| u32::try_from(at).ok();
        let ranges = walked
            .cues
            .iter()
            .map(|c| Some(offset(c.whole.start)?..offset(c.whole.end)?));
        let texts = texts.iter().map(|t| t.as_ref());
        self.add_video_at(&v, ranges.collect(), texts, at);
        true
    }

    /// [`Self::add_transcript`] from the whole parse.
    fn add_parsed(&mut self, json: &str, at: &RowAt) -> Result<(), serde_json::Error> {
        let v: VideoView = serde_json::from_str(json)?;
        let texts = v.cues.iter().map(|c| c.text.as_ref());
        self.add_video_at(&v, format::spans::cue_ranges(json), texts, at);
        Ok(())
    }

    /// Adds `v`, whose cues lie at `ranges` in its text and say `texts`,
    /// and its row (whichever way it was read).
    fn add_video_at<'t>(
        &mut self,
        v: &VideoView,
        ranges: Option<Vec<std::ops::Range<u32>>>,
        texts: impl Iterator<Item = &'t str> + Clone,
        at: &RowAt,
    ) {
        self.cues.push(ranges);
        self.add_video(v, texts.clone());
        self.videos.push(at.row(v, format::text_bytes(texts)));
    }

    /// Adds the next unit, a video: its title, description and tags, and
    /// each word of its captions with the cue that says it.
    fn add_video<'t>(&mut self, v: &VideoView, cues: impl Iterator<Item = &'t str>) {
        let unit = self.units;
        let fields = [
            (Fields::TITLE, v.title.as_ref()),
            (Fields::DESCRIPTION, v.description.as_ref()),
        ];
        let texts = fields
            .into_iter()
            .chain(v.tags.iter().map(|t| (Fields::TAGS, t.as_ref())));
        self.add_unit(texts);
        for (cue, text) in cues.enumerate() {
            for_each_token(text, |t, _| self.words.add_in_cue(t, unit, cue as u32));
        }
    }

    /// Adds the next unit (a video, a chat thread, a post) of the page:
    /// each word of its `texts` names it as a holder in that text's field.
    fn add_unit<'a>(&mut self, texts: impl Iterator<Item = (Fields, &'a str)>) {
        let unit = self.units;
        self.units += 1;
        for (field, text) in texts {
            for_each_token(text, |t, _| self.words.add(t, unit, field));
        }
    }
}

/// Writes the index files to a staging dir and renames it over `dir`.
/// The words are the previous index's (page ids remapped, dropped pages
/// left out) merged with the fresh pages'; both are sorted, so one merge
/// pass feeds the fst builder in order. Returns the word count and the
/// index size in bytes.
fn write(
    claim: Claim,
    meta: &Meta,
    old: Option<(&RawIndex, &[Option<u32>])>,
    fresh: Postings,
    videos: Vec<BuiltVideo>,
    place_budget: u64,
) -> Result<(usize, u64), IndexError> {
    let (videos, lists): (Vec<VideoRow>, Vec<Option<Numbered>>) =
        videos.into_iter().map(|v| (v.row, v.words)).unzip();
    let io = |what: &str, e: &dyn std::fmt::Display| IndexError::Write {
        dir: claim.target().display().to_string(),
        what: what.to_string(),
        reason: e.to_string(),
    };
    let fst_err = |e: fst::Error| IndexError::Dictionary(e.to_string());
    let mut map = fst::MapBuilder::new(Vec::new()).map_err(fst_err)?;
    let mut blob = Vec::new();
    let mut starts = Vec::new();
    let mut text = String::new();
    let mut terms = 0;
    let mut candidates = Vec::new();
    // The new number of each word, by its fresh id and by its number in
    // the previous index.
    let fresh_count = fresh.map.len();
    let mut renumber = Renumber {
        fresh: vec![None; fresh_count],
        old: vec![None; old.map_or(0, |(o, _)| o.terms.len())],
        held: Vec::new(),
    };
    let mut censuses: Vec<held::Tally> = Vec::new();
    let mut old_places = old
        .map(|(o, remap)| carried_places(o, remap))
        .unwrap_or_default();
    let mut emit = |term: &[u8],
                    listed: Option<Listed>,
                    mut placed: Vec<PlacedVideo>,
                    old_number: Option<u32>|
     -> Result<(), IndexError> {
        let Some(listed) = listed else {
            return Ok(());
        };
        let videos = listed.videos;
        if let Some(old) = old_places.remove(term) {
            placed.extend(old);
        }
        if videos <= places::PLACED_VIDEOS_AT_MOST && !placed.is_empty() {
            placed.sort_unstable_by_key(|v| (v.page, v.video));
            let word = String::from_utf8_lossy(term).into();
            candidates.push(Candidate {
                word,
                videos,
                placed,
            });
        }
        starts.push(blob.len() as u64);
        map.insert(term, blob.len() as u64).map_err(fst_err)?;
        blob.extend_from_slice(&listed.bytes);
        text.push_str(&String::from_utf8_lossy(term));
        text.push('\n');
        let number = Some(terms as u32);
        renumber.held.push(videos);
        censuses.push(listed.tally);
        if let Some(id) = listed.fresh {
            renumber.fresh[id as usize] = number;
        }
        if let Some(n) = old_number {
            renumber.old[n as usize] = number;
        }
        terms += 1;
        Ok(())
    };
    let pages = meta.pages.len();
    let decoded = |ids| Listed::decoded(ids, meta);
    let mut fresh = fresh.sorted().into_iter().peekable();
    if let Some((old, remap)) = old {
        let mut stream = old.terms.stream();
        let mut old_number = 0u32;
        while let Some((term, offset)) = stream.next() {
            while let Some((w, e, placed)) = fresh.next_if(|(w, _, _)| w.as_bytes() < term) {
                emit(w.as_bytes(), Some(Listed::fresh(e)), placed, None)?;
            }
            let mut ids: Vec<Posting> = old
                .postings_with_counts(offset)?
                .into_iter()
                .filter_map(|p| {
                    let page = remap.get(p.page as usize).copied().flatten()?;
                    Some(Posting { page, ..p })
                })
                .collect();
            let (mut placed, mut fresh_id) = (Vec::new(), None);
            if let Some((_, more, fresh_placed)) = fresh.next_if(|(w, _, _)| w.as_bytes() == term) {
                (placed, fresh_id) = (fresh_placed, Some(more.id));
                ids.extend(more.into_postings(pages)?);
            }
            let listed = decoded(ids).map(|l| Listed {
                fresh: fresh_id,
                ..l
            });
            emit(term, listed, placed, Some(old_number))?;
            old_number += 1;
        }
    }
    for (w, e, placed) in fresh {
        emit(w.as_bytes(), Some(Listed::fresh(e)), placed, None)?;
    }
    let words_bin = renumber.file(&lists);
    let held_bin = held::encode(&censuses);
    let (place_words, places_bin) = places::write(candidates, place_budget)?;
    let fst_bytes = map.into_inner().map_err(fst_err)?;
    let (postings, table) = super::blocks::compress(&blob, &starts, POSTINGS_ZSTD_LEVEL)
        .map_err(|e| io(files::POSTINGS, &e))?;
    let (rows, ranges) = super::rows::encode(meta, &videos).map_err(|e| io(files::VIDEOS, &e))?;
    let spans = super::span_table::encode(&videos);
    let mut meta = Meta {
        postings_blocks: table,
        videos_digest: crate::format::spans::digest(&rows),
        spans_digest: crate::format::spans::digest(&spans),
        places_digest: crate::format::spans::digest(&places_bin),
        words_digest: crate::format::spans::digest(&words_bin),
        held_digest: crate::format::spans::digest(&held_bin),
        vocabulary_digest: crate::format::spans::digest(text.as_bytes()),
        ..meta.clone()
    };
    for (page, range) in meta.pages.iter_mut().zip(ranges) {
        page.rows = range.map(|r| r.0);
        page.records = range.map(|r| r.1);
    }
    let meta = serde_json::to_vec(&meta).map_err(|e| io(files::META, &e))?;
    let contents: [(&str, Vec<u8>); 10] = [
        (files::TERMS, fst_bytes),
        (files::POSTINGS, postings),
        (files::VOCABULARY, text.into_bytes()),
        (files::VIDEOS, rows),
        (files::SPANS, spans),
        (files::PLACE_WORDS, place_words),
        (files::PLACES, places_bin),
        (files::WORDS, words_bin),
        (files::HELD, held_bin),
        (files::META, meta),
    ];
    let staging = Staging::beside(claim.clone()).map_err(|e| io("staging", &e))?;
    for line in staging.removed_stale() {
        tracing::warn!("{line}");
    }
    let mut total = 0;
    for (name, bytes) in &contents {
        std::fs::write(staging.path().join(name), bytes).map_err(|e| io(name, &e))?;
        total += bytes.len() as u64;
    }
    carry_passages(claim.resolved(), staging.path()).map_err(|e| io("passages", &e))?;
    staging.commit().map_err(|e| io("rename", &e))?;
    Ok((terms, total))
}

/// Carries the store (and unfinished embedding work) of the index folder
/// `from` into `to`, the folder a build is about to rename over it, by
/// hard links where the file system allows and copies elsewhere; `from`
/// keeps its files. A build replaces the index folder; the vectors, whose
/// videos say themselves whether they are current, outlive it.
fn carry_passages(from: &Path, to: &Path) -> std::io::Result<()> {
    for name in [files::PASSAGES, files::PASSAGES_PENDING] {
        let src = from.join(name);
        if !src.is_dir() {
            continue;
        }
        let dst = to.join(name);
        std::fs::create_dir_all(&dst)?;
        for entry in std::fs::read_dir(&src)? {
            let entry = entry?;
            if !entry.file_type()?.is_file() {
                continue;
            }
            let target = dst.join(entry.file_name());
            if std::fs::hard_link(entry.path(), &target).is_err() {
                std::fs::copy(entry.path(), &target)?;
            }
        }
    }
    Ok(())
}

/// Each word's number in the index being written, by its fresh id and by
/// its number in the previous index (`None`: not in the new vocabulary).
struct Renumber {
    fresh: Vec<Option<u32>>,
    old: Vec<Option<u32>>,
    /// By new number: how many videos (chat threads, posts) hold it.
    held: Vec<u64>,
}

impl Renumber {
    /// `words.bin` for the videos' `lists`, renumbered on every core (a
    /// few hundred lists to a task); a list holding a word the new
    /// vocabulary lacks (damage in the previous index) is left unknown,
    /// so its video is read instead.
    fn file(&self, lists: &[Option<Numbered>]) -> Vec<u8> {
        let common = word_lists::Common::of(&self.held, lists.len() as u64);
        let tasks: Vec<&[Option<Numbered>]> = lists.chunks(LISTS_PER_TASK).collect();
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut renumbered: Vec<Option<Vec<u8>>> = Vec::with_capacity(lists.len());
        in_order(
            &tasks,
            workers,
            || (),
            |_, task| {
                let lists = task.iter();
                lists
                    .map(|l| self.list(l.as_ref()?, &common))
                    .collect::<Vec<_>>()
            },
            |_, done| {
                renumbered.extend(done);
                std::ops::ControlFlow::Continue(())
            },
        );
        word_lists::encode(&renumbered, &common)
    }

    /// One video's word list, renumbered as the new vocabulary numbers
    /// its words; `None` when it holds a word the vocabulary lacks.
    fn list(&self, list: &Numbered, common: &word_lists::Common) -> Option<Vec<u8>> {
        let (bytes, numbers) = match list {
            Numbered::Fresh(b) => (b, &self.fresh),
            Numbered::Carried(b) => (b, &self.old),
        };
        let words = word_lists::decode_list(bytes, numbers.len() as u32, &[])?;
        let mut new: Vec<(u32, Fields)> = words
            .into_iter()
            .map(|(n, f)| Some((numbers[n as usize]?, f)))
            .collect::<Option<_>>()?;
        new.sort_unstable_by_key(|w| w.0);
        let mut out = Vec::with_capacity(bytes.len());
        word_lists::encode_list(&mut out, &new, common);
        Some(out)
    }
}

/// Video word lists renumbered by one task of [`Renumber::file`]: enough
/// that handing results over costs little beside the work.
const LISTS_PER_TASK: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::spans::VideoSpan;
    use crate::query::prefilter::property::PIECES;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Each word with its holders, their fields and its marks.
    type Words = BTreeMap<Box<str>, (Vec<u32>, Vec<Fields>, Vec<(u32, u32)>)>;

    /// The words, cue ranges and row a page holding only the video `json`
    /// has, added walked or parsed whole; `None` when it is refused.
    fn added(json: &str, walked: bool) -> Option<(Words, PageWords)> {
        let mut page = PageWords::default();
        let at = RowAt {
            site: "s",
            channel: "c",
            page: 1,
            span: VideoSpan::default(),
        };
        let added = match walked {
            true => page.add_walked(&Walked::of(json).expect("the walk vouches"), &at),
            false => page.add_parsed(json, &at).is_ok(),
        };
        let lists = page.words.take_lists();
        let words = lists.words.into_iter().map(|(word, units, marks)| {
            let fields = lists.fields[units.clone()].to_vec();
            let holders = (
                lists.units[units].to_vec(),
                fields,
                lists.marks[marks].to_vec(),
            );
            (word.into_text(), holders)
        });
        added.then(|| (words.collect(), page))
    }

    proptest! {
        #[test]
        fn a_walked_video_is_indexed_as_the_parsed_one(
            cues in prop::collection::vec(prop::collection::vec(0..=PIECES.len(), 0..5), 0..30),
        ) {
            // One piece past the list is a raw tab, which the parser refuses.
            let piece = |i: usize| PIECES.get(i).copied().unwrap_or("\t");
            let cues: Vec<String> = cues.iter().enumerate().map(|(i, p)| {
                let text: Vec<&str> = p.iter().map(|&i| piece(i)).collect();
                format!("[{i}.5, {}, \"{}\"]", i + 1, text.join(" "))
            }).collect();
            let json = format!(
                r#"{{"slug":"v","title":"A Title","description":"caf\u00e9 \"q\"","tags":["Tag one"],"cues":[{}]}}"#,
                cues.join(",")
            );
            let parsed = added(&json, false);
            let walked = added(&json, true);
            prop_assert_eq!(parsed.is_some(), walked.is_some(), "{}", json);
            if let (Some((pw, p)), Some((ww, w))) = (parsed, walked) {
                prop_assert_eq!(pw, ww);
                prop_assert_eq!(p.cues, w.cues);
                prop_assert_eq!(p.videos, w.videos);
                prop_assert_eq!(p.units, 1);
            }
        }
    }
}
