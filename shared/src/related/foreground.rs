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
//! Cheapest of all, a page the index vouches for has its matched videos'
//! words listed in `words.bin` ([`crate::index::word_lists`]): they are
//! counted from those lists, reading nothing and walking no posting.
//! Where the lists are missing or damaged, which way is cheaper is decided
//! by size ([`TEXT_BELOW`]): a few matched videos are read (by their spans,
//! checked as a search checks them), and thousands are counted from the
//! postings.
//!
//! Either way the work is split across the machine's cores (at most
//! [`THREADS`]): the pages read are dealt out to threads, each counting its
//! share in a [`Tally`] that are merged at the end, and the walk of the
//! postings is cut into runs of the vocabulary, one a thread, whose words
//! are disjoint. Counts do not depend on how the work was split.

use std::collections::{BTreeMap, HashMap, HashSet};

use fst::{IntoStreamer, Streamer};
use rustc_hash::{FxHashMap, FxHashSet};

use super::background::Whole;
use super::tally::Tally;
use crate::archive::{Archive, PageRef, Site};
use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::format::VideoView;
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
/// counts (`indexer/tests/suite/related.rs` runs them all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counting {
    /// From the word lists where the index vouches, and elsewhere on
    /// their text or from the postings, whichever `TEXT_BELOW` says is
    /// cheaper.
    #[default]
    Cheaper,
    /// From the word lists where the index vouches, and elsewhere on
    /// their text.
    Lists,
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
        let mut found = locate(archive, index, pages, matched);
        // By word number: matched videos the word lists say hold it.
        let mut listed = Vec::new();
        if let Some(index) =
            index.filter(|_| matches!(counting, Counting::Cheaper | Counting::Lists))
        {
            found.retain(|p| !fg.count_lists(index, p, fields, &mut listed));
            fg.add_listed(index, &listed, (census.0, &mut *census.1));
        }
        let indexed_bytes: u64 = found
            .iter()
            .filter_map(|p| p.indexed.as_ref())
            .map(Indexed::bytes)
            .sum();
        let postings = index.filter(|i| match counting {
            Counting::Cheaper => indexed_bytes.saturating_mul(TEXT_BELOW) >= i.raw.postings_bytes(),
            Counting::Text | Counting::Lists => false,
            Counting::Postings => true,
        });
        let (by_postings, by_text): (Vec<&Page>, Vec<&Page>) = found
            .iter()
            .partition(|p| postings.is_some() && p.indexed.is_some());
        let tally = fg.count_text(&by_text, fields, unreadable);
        tally.add_to(&mut fg.words);
        if let Some(index) = postings {
            let undecided = fg.add_postings(index, &by_postings, fields, census);
            for (p, words) in by_postings.iter().zip(&undecided) {
                if !words.is_empty() {
                    let mut tally = Tally::default();
                    let read = tally_page(p, &mut tally, Some(words), fields);
                    fg.note_read(p, read.map(|_| ()), unreadable);
                    tally.add_to(&mut fg.words);
                }
            }
            fg.videos += by_postings.iter().map(|p| p.slugs.len()).sum::<usize>();
        }
        fg
    }

    /// Counts the matched videos of page `p` from the index's word lists
    /// (into `listed`, by word number), when the index vouches for the
    /// page and lists every one of them; whether it did.
    fn count_lists(
        &mut self,
        index: &Index,
        p: &Page,
        fields: Fields,
        listed: &mut Vec<u32>,
    ) -> bool {
        let (Some(ix), Some(lists)) = (&p.indexed, index.raw.word_lists()) else {
            return false;
        };
        let records = index.raw.page_records(ix.id);
        if records.len() != ix.of {
            return false;
        }
        let words: Option<Vec<_>> = ix
            .held
            .iter()
            .map(|&h| lists.words(records.start + h as usize))
            .collect();
        let Some(words) = words else {
            return false;
        };
        if listed.is_empty() {
            *listed = vec![0; index.raw.terms.len()];
        }
        for (n, f) in words.into_iter().flatten() {
            if f.meets(fields) {
                listed[n as usize] += 1;
            }
        }
        self.videos += ix.held.len();
        true
    }

    /// Adds the counts taken from the word lists (by word number) to
    /// `words`, and each word's census of the background's `whole` pages
    /// to `census` when the index's census is theirs (taken by number
    /// here, so the background need not look the word up again).
    fn add_listed(
        &mut self,
        index: &Index,
        listed: &[u32],
        (whole, census): (&Whole, &mut FxHashMap<String, u64>),
    ) {
        for (n, &count) in (0..).zip(listed).filter(|(_, &c)| c > 0) {
            if let Some(word) = index.raw.word(n) {
                *self.words.entry(word.to_string()).or_default() += u64::from(count);
                if let Some(c) = whole.census_of(index, n) {
                    census.insert(word.to_string(), c);
                }
            }
        }
    }

    /// The words of the matched videos of `pages`, counted on their text
    /// on up to [`THREADS`] threads; adds the videos and pages read, and
    /// names each page that cannot be read in `unreadable`.
    fn count_text(
        &mut self,
        pages: &[&Page],
        fields: Fields,
        unreadable: &mut Vec<String>,
    ) -> Tally {
        let workers = workers(pages.len());
        let parts: Vec<Share> = on_threads(workers, |w| count_share(pages, w, workers, fields));
        let mut tally = Tally::default();
        let mut read = Vec::new();
        for (part, pages_done) in parts {
            tally.merge(part);
            read.extend(pages_done);
        }
        read.sort_by_key(|(i, _)| *i);
        for (i, counted) in read {
            if let Ok(n) = &counted {
                self.videos += n;
            }
            self.note_read(pages[i], counted.map(|_| ()), unreadable);
        }
        tally
    }

    /// Counts page `p` as read, or names it in `unreadable` with why not.
    fn note_read(&mut self, p: &Page, read: Result<(), String>, unreadable: &mut Vec<String>) {
        match read {
            Ok(()) => self.pages_read += 1,
            Err(e) => unreadable.push(format!(
                "{}/{} page {}: {e}",
                p.site.id(),
                p.channel,
                p.page
            )),
        }
    }

    /// Adds what the postings decide for `pages` (all indexed); gives, for
    /// each page, the words they cannot decide there. The vocabulary is
    /// walked in runs ([`crate::index::RawIndex::vocabulary_cuts`]), one a
    /// thread.
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
        let cuts = index.raw.vocabulary_cuts(workers(usize::MAX));
        let runs: Vec<(Option<&str>, Option<&str>)> = (0..=cuts.len())
            .map(|k| {
                let from = k.checked_sub(1).map(|k| cuts[k].as_str());
                (from, cuts.get(k).map(String::as_str))
            })
            .collect();
        let walk = Walk {
            index,
            at: &at,
            pages: pages.len(),
            fields,
            whole,
        };
        let walked: Vec<Walked> = on_threads(runs.len(), |k| walk.run(runs[k]));
        let mut undecided = vec![FxHashSet::default(); pages.len()];
        for part in walked {
            for (word, n) in part.words {
                *self.words.entry(word).or_default() += n;
            }
            census.extend(part.census);
            for (all, some) in undecided.iter_mut().zip(part.undecided) {
                all.extend(some);
            }
        }
        undecided
    }
}

/// A walk of the postings for the foreground's indexed pages.
struct Walk<'w> {
    index: &'w Index,
    /// By index page id: the page's position among those walked for, and
    /// what the index knows of it.
    at: &'w [Option<(usize, &'w Indexed)>],
    pages: usize,
    fields: Fields,
    whole: &'w Whole,
}

/// What a walk of a run of the vocabulary found.
struct Walked {
    /// Word → matched videos the postings say hold it.
    words: FxHashMap<String, u64>,
    /// Word → its census on the background's whole pages.
    census: FxHashMap<String, u64>,
    /// By page position: the words the postings cannot decide there.
    undecided: Vec<FxHashSet<String>>,
}

impl Walk<'_> {
    /// Walks the words from `from` (inclusive) to `to` (exclusive), each
    /// end open when `None`.
    fn run(&self, (from, to): (Option<&str>, Option<&str>)) -> Walked {
        let mut found = Walked {
            words: FxHashMap::default(),
            census: FxHashMap::default(),
            undecided: vec![FxHashSet::default(); self.pages],
        };
        let mut range = self.index.raw.terms.range();
        if let Some(from) = from {
            range = range.ge(from);
        }
        if let Some(to) = to {
            range = range.lt(to);
        }
        let mut stream = range.into_stream();
        while let Some((word, offset)) = stream.next() {
            self.word(word, offset, &mut found);
        }
        found
    }

    /// What the postings of `word` (at `offset`) say of the matched pages.
    fn word(&self, word: &[u8], offset: u64, found: &mut Walked) {
        let (mut n, mut cannot, mut in_whole) = (0, Vec::new(), 0);
        let read = self.index.raw.for_each_posting(offset, |posting| {
            in_whole += self.whole.units(&posting);
            if let Some(Some((i, ix))) = self.at.get(posting.page as usize) {
                match decide(&posting, ix, self.fields) {
                    Some(k) => n += k,
                    None => cannot.push(*i),
                }
            }
            Some(())
        });
        let text = || String::from_utf8_lossy(word).into_owned();
        if read.is_ok() && (n > 0 || !cannot.is_empty()) {
            found.census.insert(text(), in_whole);
        }
        if read.is_err() {
            // Damaged postings decide nothing: every page reads this word.
            (n, cannot) = (0, (0..self.pages).collect());
        }
        for i in cannot {
            found.undecided[i].insert(text());
        }
        if n > 0 {
            found.words.insert(text(), n);
        }
    }
}

/// The threads a foreground's counting is split across, at most.
const THREADS: usize = 4;

/// Threads for `jobs` jobs: as many as the machine runs at once, at most
/// [`THREADS`], at most `jobs`, at least one.
fn workers(jobs: usize) -> usize {
    if jobs <= 1 {
        return 1; // without asking the machine, which reads cgroup files
    }
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, THREADS)
        .min(jobs.max(1))
}

/// `job(0)`, …, `job(jobs - 1)`, each on a thread of its own (a lone job
/// on this one, with no thread started), in order; a job's panic goes on.
fn on_threads<T: Send>(jobs: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if jobs <= 1 {
        return (0..jobs).map(&job).collect();
    }
    std::thread::scope(|s| {
        let job = &job;
        let each: Vec<_> = (0..jobs).map(|k| s.spawn(move || job(k))).collect();
        each.into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
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

/// A worker's share of the pages counted on their text: its tally, and
/// what became of each of its pages (by position: the videos counted, or
/// why it could not be read).
type Share = (Tally, Vec<(usize, Result<usize, String>)>);

/// Worker `w` of `workers`: the words of every `workers`-th page of
/// `pages` from the `w`-th, and what became of each page (by position).
fn count_share(pages: &[&Page], w: usize, workers: usize, fields: Fields) -> Share {
    let mut tally = Tally::default();
    let mut done = Vec::new();
    for (i, p) in pages.iter().enumerate().skip(w).step_by(workers) {
        done.push((i, tally_page(p, &mut tally, None, fields)));
    }
    (tally, done)
}

/// Counts in `tally` the words of page `p`'s matched videos (only the
/// `wanted` ones, when given), and gives how many videos were counted.
/// They are read by their spans when the index knows them and their
/// bytes are the ones indexed, else from the whole page.
fn tally_page(
    p: &Page,
    tally: &mut Tally,
    wanted: Option<&FxHashSet<String>>,
    fields: Fields,
) -> Result<usize, String> {
    let spans = p.indexed.as_ref().and_then(|ix| ix.spans.as_ref());
    if let Some(spans) = spans {
        let ranges: Vec<_> = spans.iter().map(|(s, _)| s.start..s.end).collect();
        if let Ok(read) = p
            .site
            .page_ranges(Layer::Transcripts, p.channel, p.page, &ranges)
        {
            let checked: Option<Vec<VideoView>> = spans
                .iter()
                .zip(&read)
                .map(|((span, slug), bytes)| span.check(bytes).filter(|v| v.slug == slug.as_str()))
                .collect();
            if let Some(videos) = checked {
                videos.iter().for_each(|v| tally.add(v, fields, wanted));
                return Ok(videos.len());
            }
        }
    }
    let page = p
        .site
        .transcript_page(p.channel, p.page)
        .map_err(|e| e.to_string())?;
    let matched = page.videos.iter().filter(|v| p.slugs.contains(&v.slug));
    Ok(matched.map(|v| tally.add(v, fields, wanted)).count())
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
