//! Loading an index's files and answering lookups: exact words, prefixes,
//! and pieces inside words.
//!
//! Promises: a file that is missing or damaged is an error naming it (and
//! [`super::Index::open`] then uses the index for nothing); a lookup that
//! hits damaged postings answers `None` ("cannot say"), which the planner
//! treats as "every page".

use std::collections::HashMap;
use std::path::Path;

use fst::{IntoStreamer, Streamer};

use super::blocks::Blocks;
use super::fields::Fields;
use super::held::Held;
use super::memo::Memo;
use super::places::Places;
use super::rows::Rows;
use super::select::Selection;
use super::word_lists::WordLists;
use super::{
    decode_postings, files, IndexError, LayerName, Meta, PageKey, Posting, VideoRow, FORMAT_VERSION,
};
use crate::format::spans::VideoSpan;
use crate::text::NORMALIZER_VERSION;

/// The most word censuses a loaded index keeps ([`RawIndex::census`]):
/// some 60 bytes each, so a few MB.
const CENSUS_MEMO: usize = 100_000;

/// The files of an index, loaded.
pub struct RawIndex {
    /// `meta.json`.
    pub meta: Meta,
    /// `terms.fst`: word → postings offset.
    pub terms: fst::Map<Vec<u8>>,
    postings: Blocks,
    vocabulary: Vec<u8>,
    /// `videos.json.zst` and `spans.bin`, read when first needed.
    rows: Rows,
    ids: HashMap<PageKey, u32>,
    /// The vocabulary's answers already given ([`RawIndex::similar`]): a
    /// loaded index is kept while its files are unchanged, so a warm
    /// server walks the vocabulary once per word.
    pub(super) similar_memo: Memo<super::similar::SimilarKey, Vec<super::similar::Variant>>,
    /// The census of each word already asked for ([`RawIndex::census`]).
    census_memo: Memo<(String, Fields), Option<u64>>,
    /// `places.fst` and `places.bin`, read when first needed (`None`
    /// inside: missing or damaged, so no word is placed).
    places: std::sync::OnceLock<Option<Places>>,
    /// `words.bin`, read when first needed (`None` inside: missing or
    /// damaged, so every video's words are read from its page).
    word_lists: std::sync::OnceLock<Option<WordLists>>,
    /// Where each line of `terms.txt` starts: word number → word.
    numbered: std::sync::OnceLock<Option<Vec<u32>>>,
    /// `held.bin`, read when first needed (`None` inside: missing or
    /// damaged, so a census walks the word's postings).
    held: std::sync::OnceLock<Option<Held>>,
    dir: std::path::PathBuf,
}

impl RawIndex {
    /// Loads every file of the index in `dir`; the error says what is wrong.
    pub fn load(dir: &Path) -> Result<RawIndex, IndexError> {
        let read = |name: &'static str| {
            std::fs::read(dir.join(name)).map_err(|e| IndexError::damaged(name, e))
        };
        let meta: Meta = serde_json::from_slice(&read(files::META)?)
            .map_err(|e| IndexError::damaged(files::META, e))?;
        let terms = super::checked_fst::open(read(files::TERMS)?)
            .map_err(|e| IndexError::damaged(files::TERMS, e))?;
        let spans = super::span_table::SpanTable::open(read(files::SPANS)?, &meta)?;
        let rows = Rows::open(dir.join(files::VIDEOS), &meta, spans);
        let ids: HashMap<PageKey, u32> = meta
            .pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key.clone(), i as u32))
            .collect();
        Ok(RawIndex {
            postings: Blocks::open(&dir.join(files::POSTINGS), meta.postings_blocks.clone())
                .map_err(|e| IndexError::damaged(files::POSTINGS, e.to_string()))?,
            vocabulary: read(files::VOCABULARY)?,
            meta,
            terms,
            rows,
            ids,
            similar_memo: Memo::new(super::similar::SIMILAR_MEMO),
            census_memo: Memo::new(CENSUS_MEMO),
            places: std::sync::OnceLock::new(),
            word_lists: std::sync::OnceLock::new(),
            numbered: std::sync::OnceLock::new(),
            held: std::sync::OnceLock::new(),
            dir: dir.to_path_buf(),
        })
    }

    /// Where rare words are said, read and checked on first use; `None`
    /// when the files are missing or not the ones the build wrote (then
    /// logged once, and every search reads spans).
    pub fn places(&self) -> Option<&Places> {
        self.places
            .get_or_init(|| {
                let read = |name| std::fs::read(self.dir.join(name)).ok();
                let bin = read(files::PLACES)?;
                let checked = crate::format::spans::digest(&bin) == self.meta.places_digest;
                let places = checked
                    .then(|| Places::new(read(files::PLACE_WORDS)?, bin))
                    .flatten();
                if places.is_none() {
                    tracing::warn!(
                        "{} in {} is missing or damaged; searches read spans instead; rebuild the index",
                        files::PLACES,
                        self.dir.display()
                    );
                }
                places
            })
            .as_ref()
    }

    /// The words of each video, read and checked on first use; `None`
    /// when the file is missing or damaged, or the vocabulary it numbers
    /// is (then logged once, and the videos are read instead).
    pub fn word_lists(&self) -> Option<&WordLists> {
        self.word_lists
            .get_or_init(|| {
                let words = self.numbered()?.len() as u32 - 1;
                self.numbered_file(files::WORDS, "videos are read instead", |bytes| {
                    WordLists::open(bytes, &self.meta.words_digest, words)
                })
            })
            .as_ref()
    }

    /// Each word's census, read and checked on first use; `None` when
    /// the file is missing or damaged, or the vocabulary it numbers is
    /// (then logged once).
    fn held(&self) -> Option<&Held> {
        self.held
            .get_or_init(|| {
                let words = self.numbered()?.len() - 1;
                self.numbered_file(files::HELD, "censuses walk the postings instead", |bytes| {
                    Held::open(&bytes, &self.meta.held_digest, words)
                })
            })
            .as_ref()
    }

    /// The file `name`, opened by `open`; `None`, logged with `instead`
    /// (what is done without it), when it cannot be read or opened.
    fn numbered_file<T>(
        &self,
        name: &'static str,
        instead: &str,
        open: impl FnOnce(Vec<u8>) -> Result<T, IndexError>,
    ) -> Option<T> {
        let opened = std::fs::read(self.dir.join(name))
            .map_err(|e| IndexError::damaged(name, e))
            .and_then(open);
        opened
            .map_err(|e| {
                let dir = self.dir.display();
                tracing::warn!("{e} (in {dir}); {instead}; rebuild the index");
            })
            .ok()
    }

    /// Where each word of `terms.txt` starts, and one past the last word;
    /// `None` when the file is not the one the build wrote or does not
    /// hold the term dictionary's words (then logged once, and nothing
    /// numbered by it is used).
    fn numbered(&self) -> Option<&[u32]> {
        self.numbered
            .get_or_init(|| {
                let v = &self.vocabulary;
                let mut starts = vec![0u32];
                starts.extend(memchr::memchr_iter(b'\n', v).map(|i| i as u32 + 1));
                if v.last().is_some_and(|&b| b != b'\n') {
                    starts.push(v.len() as u32 + 1);
                }
                let built = crate::format::spans::digest(v) == self.meta.vocabulary_digest;
                if built && starts.len() == self.terms.len() + 1 {
                    return Some(starts);
                }
                tracing::warn!(
                    "{} in {} is not the one the build wrote; word lists and censuses are not used; rebuild the index",
                    files::VOCABULARY,
                    self.dir.display()
                );
                None
            })
            .as_deref()
    }

    /// The number of `word` in the vocabulary (its line in `terms.txt`,
    /// whose lines ascend as the term dictionary's keys do).
    pub fn number(&self, word: &str) -> Option<u32> {
        let starts = self.numbered()?;
        let line = |n: usize| {
            self.vocabulary
                .get(starts[n] as usize..starts[n + 1] as usize - 1)
        };
        let (mut lo, mut hi) = (0, starts.len() - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match line(mid)?.cmp(word.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        None
    }

    /// Word number `n` of the vocabulary (its line in `terms.txt`, from
    /// 0), as `words.bin` numbers words.
    pub fn word(&self, n: u32) -> Option<&str> {
        let starts = self.numbered()?;
        let (start, next) = (*starts.get(n as usize)?, *starts.get(n as usize + 1)?);
        let bytes = self.vocabulary.get(start as usize..next as usize - 1)?;
        std::str::from_utf8(bytes).ok()
    }

    /// The records (in `spans.bin` and `words.bin`) of page `id`'s
    /// videos, in page order.
    pub fn page_records(&self, id: u32) -> std::ops::Range<usize> {
        self.rows.records(id)
    }

    /// Whether the rows and places are in memory, so a search can answer
    /// from them without reading files (a warm server: see
    /// [`RawIndex::warm`]).
    pub fn warmed(&self) -> bool {
        self.rows.ready() && self.places.get().is_some()
    }

    /// Reads the censuses, rows, places and word lists now, so later
    /// questions find them ready: the smallest first, and those a
    /// question at start most likely waits for (a question that needs one
    /// being read waits for that read rather than doing it again).
    pub fn warm(&self) {
        self.held();
        self.rows.warm();
        self.places();
        self.word_lists();
    }

    /// The page number and span video `slug` of `channel` of `site` had
    /// at build time, if the index has it with a span.
    pub fn span_of(&self, site: &str, channel: &str, slug: &str) -> Option<(u32, VideoSpan)> {
        let (id, at) = self.locate(site, channel, slug)?;
        let row = self.page_rows(id)?.get(at)?;
        Some((row.page, row.span.clone()?))
    }

    /// The transcript page id of video `slug` of `channel` of `site` in
    /// this index, and its position on that page (so in
    /// [`RawIndex::page_rows`]); only the rows of one of the channel's
    /// pages are parsed to find it.
    pub fn locate(&self, site: &str, channel: &str, slug: &str) -> Option<(u32, usize)> {
        let ids = self.meta.pages.iter().enumerate().filter_map(|(i, p)| {
            let k = &p.key;
            (k.layer == LayerName::Transcripts && k.site == site && k.channel == channel)
                .then_some(i as u32)
        });
        self.rows.locate(ids, site, channel, slug)
    }

    /// The rows of transcript page `id`, in page order (a video's
    /// position on its page is its position here); `None` when the
    /// index cannot say, which a caller reads as "any video may".
    pub fn page_rows(&self, id: u32) -> Option<&[VideoRow]> {
        self.rows.page(id)
    }

    /// The spans of transcript page `id`'s videos, in page order, read
    /// without parsing a row; `None` when the index cannot say.
    pub fn page_spans(&self, id: u32) -> Option<Vec<VideoSpan>> {
        self.rows.page_spans(id)
    }

    /// Whether `videos.json.zst` was read and found damaged, so every row
    /// asked for answered "cannot say".
    pub fn rows_unusable(&self) -> bool {
        self.rows.unusable()
    }

    /// Every row of `videos.json.zst`; `None` when it cannot be parsed.
    pub fn every_row(&self) -> Option<&[VideoRow]> {
        self.rows.every()
    }

    /// Whether every file is the one the build wrote: every postings
    /// block decompresses, and every digest-checked file (rows, places,
    /// word lists, censuses, vocabulary) matches its digest (the
    /// dictionary's checksum was checked by [`RawIndex::load`]). Reads
    /// the whole index.
    pub fn whole(&self) -> bool {
        self.postings.whole()
            && self.every_row().is_some()
            && self.places().is_some()
            && self.word_lists().is_some()
            && self.held().is_some()
    }

    /// Built by this format and normaliser version.
    pub fn compatible(&self) -> bool {
        self.meta.format == FORMAT_VERSION && self.meta.normalizer == NORMALIZER_VERSION
    }

    /// The id of a page in this index's table, if the build saw it.
    pub fn page_id(&self, key: &PageKey) -> Option<u32> {
        self.ids.get(key).copied()
    }

    /// The recorded page id, if the page is unchanged and was read.
    pub fn reusable(&self, key: &PageKey, sha256: &str, stamp: Option<&str>) -> Option<u32> {
        let id = self.read_with_sha(key, sha256)?;
        (self.meta.pages[id as usize].stamp.as_deref() == stamp).then_some(id)
    }

    /// The recorded page id, if the index read this page, without failure,
    /// when its manifest gave this sha256 (whatever its stamp then).
    pub fn read_with_sha(&self, key: &PageKey, sha256: &str) -> Option<u32> {
        let id = self.page_id(key)?;
        let p = &self.meta.pages[id as usize];
        (p.sha256 == sha256 && p.failed.is_none()).then_some(id)
    }

    /// The page ids of the postings at `offset`.
    pub fn postings(&self, offset: u64) -> Result<Vec<u32>, IndexError> {
        Ok(self
            .postings_with_counts(offset)?
            .into_iter()
            .map(|p| p.page)
            .collect())
    }

    /// The postings at `offset`, with each page's video count.
    pub fn postings_with_counts(&self, offset: u64) -> Result<Vec<Posting>, IndexError> {
        self.postings
            .at(offset)
            .and_then(|(block, at)| decode_postings(&block, at, self.meta.pages.len() as u32))
            .ok_or_else(|| {
                IndexError::damaged(files::POSTINGS, "damaged at this word; rebuild the index")
            })
    }

    /// The size of the postings, decompressed.
    pub fn postings_bytes(&self) -> u64 {
        self.meta.postings_blocks.last().map_or(0, |end| end[0])
    }

    /// Calls `each` with every entry of the postings at `offset` read in
    /// place (see [`super::PostingView`]); an error when they are damaged
    /// or `each` gives up (`None`).
    pub(crate) fn for_each_posting(
        &self,
        offset: u64,
        each: impl FnMut(super::PostingView<'_>) -> Option<()>,
    ) -> Result<(), IndexError> {
        let limit = self.meta.pages.len() as u32;
        self.postings
            .at(offset)
            .and_then(|(block, at)| super::for_each_posting(&block, at, limit, each))
            .ok_or_else(|| {
                IndexError::damaged(files::POSTINGS, "damaged at this word; rebuild the index")
            })
    }

    /// How many videos hold the word whose postings are at `offset` in
    /// some field of `f` (chat threads and posts count as one each, in
    /// the chat and posts fields); `None` if the postings are damaged.
    pub fn videos_holding(&self, offset: u64, f: Fields) -> Option<u64> {
        let postings = self.postings_with_counts(offset).ok()?;
        Some(
            postings
                .iter()
                .map(|p| u64::from(p.units_in(self.meta.pages[p.page as usize].key.layer, f)))
                .sum(),
        )
    }

    /// How many videos of the transcript pages hold `word` in some field
    /// of `f`: the census of every transcript page, as its postings give
    /// it page by page; `None` if they are damaged. Asked again, it is
    /// answered from a memo.
    pub fn census(&self, word: &str, f: Fields) -> Option<u64> {
        match self.held().and(self.number(word)) {
            Some(n) => self.census_numbered(n, f),
            None => self.census_from_postings(word, f),
        }
    }

    /// [`RawIndex::census`] of word number `n` (see [`RawIndex::word`]),
    /// from `held.bin`; `None` when that file is missing or damaged (then
    /// ask by the word).
    pub fn census_numbered(&self, n: u32, f: Fields) -> Option<u64> {
        self.held()?.census(n, f)
    }

    /// [`RawIndex::census`] as the word's postings give it, page by page
    /// (what `held.bin` sums once at build time).
    pub fn census_from_postings(&self, word: &str, f: Fields) -> Option<u64> {
        self.census_memo.get_or((word.to_string(), f), || {
            let Some(offset) = self.terms.get(word) else {
                return Some(0);
            };
            let mut n = 0;
            self.for_each_posting(offset, |p| {
                if self.meta.pages[p.page as usize].key.layer == LayerName::Transcripts {
                    n += u64::from(p.units_in(LayerName::Transcripts, f));
                }
                Some(())
            })
            .ok()?;
            Some(n)
        })
    }

    /// Words cutting the vocabulary into `parts` runs of about as many
    /// bytes, ascending, at most `parts - 1` of them: where a walk of the
    /// whole vocabulary splits across threads (any cuts partition it, so a
    /// damaged `terms.txt` costs balance, never a word).
    pub fn vocabulary_cuts(&self, parts: usize) -> Vec<String> {
        let v = &self.vocabulary;
        let mut cuts: Vec<String> = (1..parts)
            .filter_map(|k| {
                let at = v.len() * k / parts;
                let start = at + memchr::memchr(b'\n', &v[at..])? + 1;
                let end = memchr::memchr(b'\n', &v[start..]).map_or(v.len(), |i| start + i);
                (start < end).then(|| String::from_utf8_lossy(&v[start..end]).into_owned())
            })
            .collect();
        cuts.sort();
        cuts.dedup();
        cuts
    }

    /// The pages and videos holding `term` exactly; `None` if the index
    /// cannot say.
    pub fn exact(&self, term: &str) -> Option<Selection> {
        match self.terms.get(term) {
            Some(offset) => self.selection(offset),
            None => Some(Selection::default()),
        }
    }

    /// The pages and videos holding a word that starts with `prefix`.
    pub fn prefix(&self, prefix: &str) -> Option<Selection> {
        let mut out = Selection::default();
        let mut stream = self.terms.range().ge(prefix).into_stream();
        while let Some((term, offset)) = stream.next() {
            if !term.starts_with(prefix.as_bytes()) {
                break;
            }
            out.union(self.selection(offset)?);
        }
        Some(out)
    }

    /// The pages and videos holding a word that contains `piece` anywhere.
    pub fn infix(&self, piece: &str) -> Option<Selection> {
        let mut out = Selection::default();
        let mut last_line = usize::MAX;
        for at in memchr::memmem::find_iter(&self.vocabulary, piece.as_bytes()) {
            let start = memchr::memrchr(b'\n', &self.vocabulary[..at]).map_or(0, |i| i + 1);
            if start == last_line {
                continue;
            }
            last_line = start;
            let end = memchr::memchr(b'\n', &self.vocabulary[at..])
                .map_or(self.vocabulary.len(), |i| at + i);
            let term = &self.vocabulary[start..end];
            out.union(self.selection(self.terms.get(term)?)?);
        }
        Some(out)
    }

    fn selection(&self, offset: u64) -> Option<Selection> {
        self.postings_with_counts(offset)
            .ok()
            .map(Selection::of_postings)
    }
}
