//! The foreground: for each word, how many of the videos a query matched
//! say it.
//!
//! Promise: [`Foreground::count`]'s counts are exact. A matched video is
//! counted either on its text (tokenised as the index tokenises) or from
//! the postings, which (format 7) name the holders of every word some but
//! not all of a page's videos hold. The postings are used only on pages
//! the index vouches for, and only where a posting decides: the word is
//! held in the fields asked by every video of the page, by none, or by
//! named videos that all hold it in those fields. Where a posting cannot
//! say (a word of the channel's name, holders of which some hold it only
//! outside the fields asked, damaged postings) the matched videos of that
//! page are read and that word counted on their text.
//!
//! Which way is cheaper is decided by size ([`TEXT_BELOW`]): a few matched
//! videos are read (by their spans, checked as a search checks them), and
//! thousands are counted from the postings.

use std::collections::{BTreeMap, HashMap, HashSet};

use fst::Streamer;
use rustc_hash::{FxHashMap, FxHashSet};

use super::background::Whole;
use super::for_each_word;
use crate::archive::{Archive, PageRef, Site};
use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::format::VideoRecord;
use crate::index::fields::Fields;
use crate::index::{holder_bitmap, Index, LayerName, PostingView};

/// The matched videos, by (site id, channel, page): their slugs.
pub(super) type Matched = BTreeMap<(String, String, u32), HashSet<String>>;

/// The matched videos are counted on their text, not from the postings,
/// when their bytes are under the postings' (decompressed) bytes divided
/// by this: measured on the 12,629-video archive, reading, parsing and
/// tokenising a video costs about 16 ms a MB, and walking the postings of
/// the whole vocabulary about 4 ms a MB of postings.
const TEXT_BELOW: u64 = 4;

/// How the matched videos' words are counted: each way gives the same
/// counts (`indexer/tests/related.rs` runs them all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counting {
    /// On their text, or from the postings, whichever `TEXT_BELOW`
    /// says is cheaper.
    #[default]
    Cheaper,
    /// On their text.
    Text,
    /// From the postings where the index vouches.
    Postings,
}

/// For each word, the matched videos that say it.
#[derive(Default)]
pub(super) struct Foreground {
    /// Word → matched videos saying it in the fields (only words said).
    pub words: FxHashMap<String, u64>,
    /// Matched videos counted.
    pub videos: usize,
    /// Pages read (whole or in part) to count them.
    pub pages_read: usize,
}

/// Words counted on videos' text: for each, the videos saying it and
/// the last video that counted it, so a video counts a word once however
/// often it says it, with one table for every video read.
#[derive(Default)]
struct Tally {
    words: FxHashMap<String, (u64, usize)>,
    videos: usize,
}

impl Tally {
    /// Counts the words `v` says in `fields` (only the `wanted` ones,
    /// when given).
    fn add(&mut self, v: &VideoRecord, fields: Fields, wanted: Option<&FxHashSet<String>>) {
        let n = self.videos;
        self.videos += 1;
        for_each_word(v, fields, |w| match self.words.get_mut(w) {
            Some((_, seen)) if *seen == n => {}
            Some((count, seen)) => {
                *count += 1;
                *seen = n;
            }
            None if wanted.is_none_or(|wanted| wanted.contains(w)) => {
                self.words.insert(w.to_string(), (1, n));
            }
            None => {}
        });
    }

    /// Adds the counts to `words`.
    fn add_to(self, words: &mut FxHashMap<String, u64>) {
        for (w, (count, _)) in self.words {
            *words.entry(w).or_default() += count;
        }
    }
}

/// A page of matched videos.
struct Page<'m> {
    site: &'m Site,
    channel: &'m str,
    page: u32,
    slugs: &'m HashSet<String>,
    /// Where the index has it, when it vouches for it and has a row for
    /// every matched video.
    indexed: Option<Indexed>,
}

/// A matched page as the index knows it.
struct Indexed {
    /// Its id in the index.
    id: u32,
    /// The matched videos' positions on the page, ascending.
    held: Vec<u32>,
    /// The same, as a bitmap (as postings write one).
    mask: Vec<u8>,
    /// The page's videos.
    of: usize,
    /// The matched videos' spans and slugs, when the index has them all.
    spans: Option<Vec<(VideoSpan, String)>>,
}

impl Indexed {
    /// Bytes of the matched videos (0 when a span is unknown).
    fn bytes(&self) -> u64 {
        self.spans
            .as_ref()
            .map_or(0, |s| s.iter().map(|(span, _)| span.len()).sum())
    }
}

impl Foreground {
    /// Counts the words of the `matched` videos in `fields`, with `index`
    /// (opened on `pages`, the archive's page table) where it vouches.
    ///
    /// When the words are counted from the postings, the same walk takes
    /// each counted word's census of the background's `whole` pages into
    /// `census`, so the background need not walk those postings again.
    pub fn count(
        archive: &Archive,
        index: Option<&Index>,
        pages: &[PageRef],
        matched: &Matched,
        (fields, counting): (Fields, Counting),
        census: (&Whole, &mut FxHashMap<String, u64>),
        unreadable: &mut Vec<String>,
    ) -> Foreground {
        let mut fg = Foreground::default();
        let found = locate(archive, index, pages, matched);
        let indexed_bytes: u64 = found
            .iter()
            .filter_map(|p| p.indexed.as_ref())
            .map(Indexed::bytes)
            .sum();
        let postings = index.filter(|i| match counting {
            Counting::Cheaper => indexed_bytes.saturating_mul(TEXT_BELOW) >= i.raw.postings_bytes(),
            Counting::Text => false,
            Counting::Postings => true,
        });
        let (by_postings, by_text): (Vec<&Page>, Vec<&Page>) = found
            .iter()
            .partition(|p| postings.is_some() && p.indexed.is_some());
        let mut tally = Tally::default();
        for p in by_text {
            fg.videos += fg.add_text(p, &mut tally, None, fields, unreadable);
        }
        tally.add_to(&mut fg.words);
        if let Some(index) = postings {
            let undecided = fg.add_postings(index, &by_postings, fields, census);
            for (p, words) in by_postings.iter().zip(&undecided) {
                if !words.is_empty() {
                    let mut tally = Tally::default();
                    fg.add_text(p, &mut tally, Some(words), fields, unreadable);
                    tally.add_to(&mut fg.words);
                }
            }
            fg.videos += by_postings.iter().map(|p| p.slugs.len()).sum::<usize>();
        }
        fg
    }

    /// Adds the words of page `p`'s matched videos (only the `wanted`
    /// ones, when given), read from their text; gives how many videos
    /// were read, and names the page in `unreadable` when it cannot be.
    fn add_text(
        &mut self,
        p: &Page,
        tally: &mut Tally,
        wanted: Option<&FxHashSet<String>>,
        fields: Fields,
        unreadable: &mut Vec<String>,
    ) -> usize {
        let videos = match records(p) {
            Ok(v) => v,
            Err(e) => {
                unreadable.push(format!(
                    "{}/{} page {}: {e}",
                    p.site.id(),
                    p.channel,
                    p.page
                ));
                return 0;
            }
        };
        self.pages_read += 1;
        for v in &videos {
            tally.add(v, fields, wanted);
        }
        videos.len()
    }

    /// Adds what the postings decide for `pages` (all indexed); gives, for
    /// each page, the words they cannot decide there.
    fn add_postings(
        &mut self,
        index: &Index,
        pages: &[&Page],
        fields: Fields,
        (whole, census): (&Whole, &mut FxHashMap<String, u64>),
    ) -> Vec<FxHashSet<String>> {
        let mut at: Vec<Option<(usize, &Indexed)>> = Vec::new();
        for (i, p) in pages.iter().enumerate() {
            let Some(ix) = &p.indexed else { continue };
            if at.len() <= ix.id as usize {
                at.resize(ix.id as usize + 1, None);
            }
            at[ix.id as usize] = Some((i, ix));
        }
        let mut undecided = vec![FxHashSet::default(); pages.len()];
        let mut stream = index.raw.terms.stream();
        while let Some((word, offset)) = stream.next() {
            let (mut n, mut cannot, mut in_whole) = (0, Vec::new(), 0);
            let read = index.raw.for_each_posting(offset, |posting| {
                in_whole += whole.units(&posting);
                if let Some(Some((i, ix))) = at.get(posting.page as usize) {
                    match decide(&posting, ix, fields) {
                        Some(k) => n += k,
                        None => cannot.push(*i),
                    }
                }
                Some(())
            });
            if read.is_ok() && (n > 0 || !cannot.is_empty()) {
                census.insert(String::from_utf8_lossy(word).into_owned(), in_whole);
            }
            if read.is_err() {
                // Damaged postings decide nothing: every page reads this word.
                (n, cannot) = (0, (0..pages.len()).collect());
            }
            let word = || String::from_utf8_lossy(word).into_owned();
            for i in cannot {
                undecided[i].insert(word());
            }
            if n > 0 {
                *self.words.entry(word()).or_default() += n;
            }
        }
        undecided
    }
}

/// Every page of `matched`, with what the index knows of it.
fn locate<'m>(
    archive: &'m Archive,
    index: Option<&Index>,
    pages: &[PageRef],
    matched: &'m Matched,
) -> Vec<Page<'m>> {
    let at: HashMap<(&str, &str, u32), usize> = pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.layer == Layer::Transcripts)
        .map(|(pos, p)| {
            (
                (archive.sites()[p.site].id(), p.channel.as_str(), p.page),
                pos,
            )
        })
        .collect();
    let sites: HashMap<&str, &Site> = archive
        .sites()
        .iter()
        .map(|s| (s.id(), s.as_ref()))
        .collect();
    matched
        .iter()
        .filter_map(|((site, channel, page), slugs)| {
            let pos = at.get(&(site.as_str(), channel.as_str(), *page)).copied();
            Some(Page {
                site: sites.get(site.as_str())?,
                channel,
                page: *page,
                slugs,
                indexed: index
                    .zip(pos)
                    .and_then(|(index, pos)| indexed(index, pos, slugs)),
            })
        })
        .collect()
}

/// What `index` knows of the page at `pos` and its videos `slugs`, when it
/// vouches for the page and has a row for each of them.
fn indexed(index: &Index, pos: usize, slugs: &HashSet<String>) -> Option<Indexed> {
    let id = index.vouched.ids.get(pos).copied().flatten()?;
    let rows = index.raw.page_rows(id)?;
    let held: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| slugs.contains(&rows[i as usize].slug))
        .collect();
    if held.len() != slugs.len() {
        return None;
    }
    let spans = held
        .iter()
        .map(|&h| {
            let row = &rows[h as usize];
            Some((row.span.clone()?, row.slug.clone()))
        })
        .collect();
    Some(Indexed {
        id,
        mask: holder_bitmap(&held),
        held,
        of: rows.len(),
        spans,
    })
}

/// The matched videos of page `p`: read by their spans when the index
/// knows them and their bytes are the ones indexed, else from the whole
/// page.
fn records(p: &Page) -> Result<Vec<VideoRecord>, String> {
    let spans = p.indexed.as_ref().and_then(|ix| ix.spans.as_ref());
    if let Some(spans) = spans {
        let ranges: Vec<_> = spans.iter().map(|(s, _)| s.start..s.end).collect();
        if let Ok(read) = p
            .site
            .page_ranges(Layer::Transcripts, p.channel, p.page, &ranges)
        {
            let checked: Option<Vec<VideoRecord>> = spans
                .iter()
                .zip(&read)
                .map(|((span, slug), bytes)| span.check_record(bytes, slug))
                .collect();
            if let Some(videos) = checked {
                return Ok(videos);
            }
        }
    }
    let page = p
        .site
        .transcript_page(p.channel, p.page)
        .map_err(|e| e.to_string())?;
    Ok(page
        .videos
        .iter()
        .filter(|v| p.slugs.contains(&v.slug))
        .cloned()
        .collect())
}

/// How many of the matched videos of an indexed page hold the word of
/// posting `p` in `fields`; `None` when the posting cannot say.
fn decide(p: &PostingView, ix: &Indexed, fields: Fields) -> Option<u64> {
    let holding = p.units_in(LayerName::Transcripts, fields);
    if holding == 0 {
        return Some(0);
    }
    if ix.held.len() == ix.of {
        return Some(u64::from(holding));
    }
    if holding as usize == ix.of {
        return Some(ix.held.len() as u64);
    }
    p.named_in(fields)?.count_in(&ix.mask)
}
