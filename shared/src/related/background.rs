//! The background: every video in scope after the filters, and for a word
//! how many of them say it and which.
//!
//! Promise: [`Background::count`] and [`Background::holders`] are exact.
//! A page is counted from the postings only when the index vouches for it
//! (unchanged since the build, read by it) and each of its videos surely
//! passes the filters (the index's row says so, a length bound with an
//! unknown length counting as unsure); its videos then hold a word exactly
//! as the postings' census says. Every other page whose videos may pass is
//! read, and its passing videos' words are counted on the text. When the
//! postings count every transcript page of the index, a word's census is
//! the index's own ([`crate::index::RawIndex::census`], kept in a memo by a
//! warm server, so a common word is counted once, not once a question). A word
//! whose postings cannot be read is answered by reading the pages it may
//! be on (`Background::whole_page_words`), never guessed.

use std::collections::HashMap;

use super::{video_words, RelatedError, VideoId};
use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;
use crate::index::fields::Fields;
use crate::index::{Index, IndexStatus, LayerName, Posting, PostingView};
use crate::query::filters::{Filters, VideoFacts};

/// A background video read from its page, with the wanted words it says
/// (and how often).
pub(crate) struct ReadVideo {
    pub id: VideoId,
    pub title: String,
    pub words: rustc_hash::FxHashMap<String, u32>,
}

/// Every video in scope after the filters, counted.
pub(crate) struct Background<'a> {
    archive: &'a Archive,
    index: Option<Index>,
    fields: Fields,
    /// The pages counted from the postings.
    whole: Whole,
    /// Censuses already taken (by the foreground's walk of the postings),
    /// by word.
    known: rustc_hash::FxHashMap<String, u64>,
    /// Pages to read (positions in `pages`): those the postings cannot
    /// count under the filters.
    to_read: Vec<usize>,
    pages: Vec<PageRef>,
    /// Videos of the pages read.
    pub read: Vec<ReadVideo>,
    /// Videos in the background.
    pub videos: usize,
    /// Pages read to count it.
    pub pages_read: usize,
    /// What the index could do.
    pub status: IndexStatus,
    /// Pages that could not be read, with why.
    pub unreadable: Vec<String>,
    /// Whole pages read for words whose holders the postings do not name:
    /// page position → its videos and their wanted words.
    lazily: std::cell::RefCell<HashMap<usize, Vec<ReadVideo>>>,
    wanted: rustc_hash::FxHashSet<String>,
}

/// A video's id, borrowed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct VideoRef<'v> {
    pub site: &'v str,
    pub channel: &'v str,
    pub slug: &'v str,
}

impl<'v> VideoRef<'v> {
    /// `id`, borrowed.
    pub fn of(id: &'v VideoId) -> Self {
        VideoRef {
            site: &id.site,
            channel: &id.channel,
            slug: &id.slug,
        }
    }

    /// The id, owned.
    pub fn to_owned(self) -> VideoId {
        VideoId {
            site: self.site.to_string(),
            channel: self.channel.to_string(),
            slug: self.slug.to_string(),
        }
    }
}

/// A background video holding a word, as [`Background::each_holder`]
/// gives it.
#[derive(Clone, Copy)]
pub(crate) enum Holder<'v> {
    /// Named by the postings: the video at position `at` of index page
    /// `page`, its row not yet read.
    Listed { page: u32, at: u32 },
    /// Found on a page's text: its id and title.
    Read(VideoRef<'v>, &'v str),
}

/// The archive's page table and the index opened on it: made once per
/// question, for the foreground and the background alike.
pub(crate) struct Opened {
    /// The page table.
    pub pages: Vec<PageRef>,
    /// What could not be listed in it.
    pub unreadable: Vec<String>,
    /// The index, when one is used.
    pub index: Option<Index>,
    /// What the index could do.
    pub status: IndexStatus,
}

impl Opened {
    /// The page table of `archive` (`table`, as the caller took it),
    /// and the index in `index_dir` on it.
    pub fn new(
        archive: &Archive,
        table: crate::archive::PageTable,
        index_dir: Option<&std::path::Path>,
    ) -> Opened {
        let (pages, unreadable) = table;
        let (index, status) = match index_dir {
            Some(dir) => Index::open(dir, archive, &pages),
            None => (None, IndexStatus::NotUsed),
        };
        Opened {
            pages,
            unreadable,
            index,
            status,
        }
    }
}

impl<'a> Background<'a> {
    /// The background of `filters` on `archive` in the fields `fields`,
    /// remembering on the pages it reads the words of `wanted`.
    pub fn new(
        archive: &'a Archive,
        opened: Opened,
        filters: &Filters,
        fields: Fields,
        wanted: rustc_hash::FxHashSet<String>,
    ) -> Result<Background<'a>, RelatedError> {
        let mut bg = Background::plan(archive, opened, filters, fields);
        bg.read(filters, wanted);
        Ok(bg)
    }

    /// The background planned: which pages the postings count (the
    /// [`Background::whole`] pages) and which must be read, nothing read
    /// yet; [`Background::read`] reads them.
    pub fn plan(
        archive: &'a Archive,
        opened: Opened,
        filters: &Filters,
        fields: Fields,
    ) -> Background<'a> {
        let Opened {
            pages,
            unreadable,
            index,
            status,
        } = opened;
        let mut bg = Background {
            archive,
            index,
            fields,
            whole: Whole {
                at: Vec::new(),
                fields,
                every: false,
            },
            pages: Vec::new(),
            read: Vec::new(),
            videos: 0,
            pages_read: 0,
            status,
            unreadable: Vec::new(),
            lazily: Default::default(),
            wanted: Default::default(),
            known: Default::default(),
            to_read: Vec::new(),
        };
        for (pos, p) in pages.iter().enumerate() {
            if p.layer != Layer::Transcripts || !filters.channel_in_scope(p.site, &p.channel) {
                continue;
            }
            match bg.vouched_rows(pos, filters) {
                Some(Rows::AllPass(id, n)) => {
                    bg.whole.insert(id, pos);
                    bg.videos += n;
                }
                Some(Rows::NonePass) => {}
                None => bg.to_read.push(pos),
            }
        }
        bg.whole.every = bg
            .index
            .as_ref()
            .is_some_and(|i| bg.whole.is_every_page_of(i));
        bg.pages = pages;
        bg.unreadable = unreadable;
        bg
    }

    /// Reads the pages the postings cannot count, remembering the words
    /// of `wanted` each passing video says.
    pub fn read(&mut self, filters: &Filters, wanted: rustc_hash::FxHashSet<String>) {
        self.wanted = wanted;
        for pos in std::mem::take(&mut self.to_read) {
            let p = &self.pages[pos];
            let site = &self.archive.sites()[p.site];
            match self.read_page(site.as_ref(), p, Some(filters)) {
                Ok(videos) => {
                    self.pages_read += 1;
                    self.videos += videos.len();
                    self.read.extend(videos);
                }
                Err(e) => self.unreadable.push(format!(
                    "{}/{} page {}: {e}",
                    site.id(),
                    p.channel,
                    p.page
                )),
            }
        }
    }

    /// The index, when one is used.
    pub fn index(&self) -> Option<&Index> {
        self.index.as_ref()
    }

    /// The archive's page table.
    pub fn pages(&self) -> &[PageRef] {
        &self.pages
    }

    /// The pages counted from the postings.
    pub fn whole(&self) -> &Whole {
        &self.whole
    }

    /// Takes `census` (word → videos saying it on the whole pages, as
    /// [`Background::count`] would count it there) as already counted.
    pub fn know(&mut self, census: rustc_hash::FxHashMap<String, u64>) {
        self.known = census;
    }

    /// What the index says of page `pos` under `filters`: all its videos
    /// surely pass, none may, or (`None`) read it.
    fn vouched_rows(&self, pos: usize, filters: &Filters) -> Option<Rows> {
        let index = self.index.as_ref()?;
        let id = index.vouched.ids.get(pos).copied().flatten()?;
        if !filters.narrows_videos() {
            // Every video passes: how many there are is all that counts.
            return Some(match index.raw.page_records(id).len() {
                0 => Rows::NonePass,
                n => Rows::AllPass(id, n),
            });
        }
        let rows = index.raw.page_rows(id)?;
        let first = &rows.first()?.site;
        let site = self.archive.sites().iter().position(|s| s.id() == first)?;
        let mut passing = 0;
        for r in rows {
            let facts = VideoFacts::of_row(site, &r.channel, r);
            if filters.passes(&facts) {
                if !filters.knows(&facts) {
                    return None;
                }
                passing += 1;
            }
        }
        Some(match passing {
            0 => Rows::NonePass,
            n if n == rows.len() => Rows::AllPass(id, n),
            _ => return None,
        })
    }

    /// The videos of page `p` that pass `filters` (all, with `None`),
    /// with the wanted words each says in the fields.
    fn read_page(
        &self,
        site: &crate::archive::Site,
        p: &PageRef,
        filters: Option<&Filters>,
    ) -> Result<Vec<ReadVideo>, crate::source::ReadError> {
        let page = site.transcript_page(&p.channel, p.page)?;
        Ok(page
            .videos
            .iter()
            .filter(|v| {
                filters.is_none_or(|f| f.passes(&VideoFacts::of_video(p.site, &p.channel, *v)))
            })
            .map(|v| {
                let mut words = video_words(v, self.fields);
                words.retain(|w, _| self.wanted.contains(w));
                ReadVideo {
                    id: VideoId {
                        site: site.id().to_string(),
                        channel: p.channel.clone(),
                        slug: v.slug.clone(),
                    },
                    title: v.title.clone(),
                    words,
                }
            })
            .collect())
    }

    /// The postings of `word` on the pages counted from them; `None` when
    /// the index has no such word, an error when they cannot be read.
    fn postings(&self, word: &str) -> Result<Vec<Posting>, ()> {
        let Some(index) = &self.index else {
            return Ok(Vec::new());
        };
        let Some(offset) = index.raw.terms.get(word) else {
            return Ok(Vec::new());
        };
        let all = index.raw.postings_with_counts(offset).map_err(|_| ())?;
        Ok(all
            .into_iter()
            .filter(|p| self.whole.position(p.page).is_some())
            .collect())
    }

    /// Videos saying `word` in the fields on the pages counted from the
    /// postings; `None` when they cannot be read.
    fn census(&self, word: &str) -> Option<u64> {
        if let Some(&n) = self.known.get(word) {
            return Some(n);
        }
        let Some(index) = &self.index else {
            return Some(0);
        };
        if self.whole.every {
            return index.raw.census(word, self.fields);
        }
        let Some(offset) = index.raw.terms.get(word) else {
            return Some(0);
        };
        let mut n = 0;
        index
            .raw
            .for_each_posting(offset, |p| {
                n += self.whole.units(&p);
                Some(())
            })
            .ok()?;
        Some(n)
    }

    /// Background videos saying `word` in the fields.
    pub fn count(&self, word: &str) -> u64 {
        let read = self
            .read
            .iter()
            .filter(|v| v.words.contains_key(word))
            .count() as u64;
        let census: u64 = match self.census(word) {
            Some(n) => n,
            None => self.whole_page_words(word).len() as u64,
        };
        census + read
    }

    /// Calls `each` with every background video saying `word` in the
    /// fields: on a page counted from the postings, by its place in the
    /// index (its row is parsed only if it is shown: [`Background::name`]),
    /// on a page read, by its id and title. So one video is always named
    /// the same way.
    /// Nothing is copied per holder (a common word has thousands).
    pub fn each_holder(&self, word: &str, each: &mut dyn FnMut(Holder)) {
        for v in self.read.iter().filter(|v| v.words.contains_key(word)) {
            each(Holder::Read(VideoRef::of(&v.id), &v.title));
        }
        let postings = match self.postings(word) {
            Ok(p) => p,
            Err(()) => {
                for (page, at) in self.whole_page_words(word) {
                    each(Holder::Listed { page, at });
                }
                return;
            }
        };
        for p in postings {
            match p.named_in(self.fields) {
                Some(positions) => {
                    for &at in positions.iter() {
                        each(Holder::Listed { page: p.page, at });
                    }
                }
                None => {
                    if let Some(pos) = self.whole.position(p.page) {
                        for at in self.page_holders(pos, word) {
                            each(Holder::Listed { page: p.page, at });
                        }
                    }
                }
            }
        }
    }

    /// The id and title of the video at position `at` of index page
    /// `page` (a [`Holder::Listed`]): from its row, or, when the rows
    /// cannot be read, from the page's own text, which the index vouches
    /// is the text it was built from. The error names the page.
    pub fn name(&self, page: u32, at: u32) -> Result<(VideoId, String), String> {
        let row = self
            .index
            .as_ref()
            .and_then(|i| i.raw.page_rows(page))
            .and_then(|rows| rows.get(at as usize));
        if let Some(r) = row {
            let id = VideoId {
                site: r.site.clone(),
                channel: r.channel.clone(),
                slug: r.slug.clone(),
            };
            return Ok((id, r.title.clone()));
        }
        let p = self
            .whole
            .position(page)
            .map(|pos| &self.pages[pos])
            .ok_or_else(|| format!("index page {page} is not in the page table"))?;
        let site = &self.archive.sites()[p.site];
        let text = site
            .transcript_page(&p.channel, p.page)
            .map_err(|e| format!("{}/{} page {}: {e}", site.id(), p.channel, p.page))?;
        let v = text.videos.get(at as usize).ok_or_else(|| {
            format!(
                "{}/{} page {}: no video at position {at}, where the index has one; rebuild the index",
                site.id(),
                p.channel,
                p.page
            )
        })?;
        let id = VideoId {
            site: site.id().to_string(),
            channel: p.channel.clone(),
            slug: v.slug.clone(),
        };
        Ok((id, v.title.clone()))
    }

    /// Where the index lists video `id`, as a [`Holder::Listed`] names it:
    /// (page, position); `None` when it does not.
    pub fn listed_at(&self, id: &VideoId) -> Option<(u32, u32)> {
        let (page, at) = self
            .index
            .as_ref()?
            .raw
            .locate(&id.site, &id.channel, &id.slug)?;
        Some((page, at as u32))
    }

    /// The positions on whole page `pos` of its videos saying `word`,
    /// its text read once (and kept for the next word). The index vouches
    /// the page is the one it was built from, so a position on its text
    /// is the position of the video's row.
    fn page_holders(&self, pos: usize, word: &str) -> Vec<u32> {
        let mut kept = self.lazily.borrow_mut();
        let videos = kept.entry(pos).or_insert_with(|| {
            let p = &self.pages[pos];
            let site = &self.archive.sites()[p.site];
            self.read_page(site.as_ref(), p, None).unwrap_or_default()
        });
        (0..)
            .zip(videos.iter())
            .filter(|(_, v)| v.words.contains_key(word))
            .map(|(at, _)| at)
            .collect()
    }

    /// The videos of every whole page saying `word`, as (index page id,
    /// position), read from the text: for a word whose postings cannot be
    /// read.
    fn whole_page_words(&self, word: &str) -> Vec<(u32, u32)> {
        let pages: Vec<(u32, usize)> = (0..)
            .zip(self.whole.at.iter())
            .filter_map(|(id, pos)| Some((id, (*pos)?)))
            .collect();
        pages
            .into_iter()
            .flat_map(|(id, pos)| {
                self.page_holders(pos, word)
                    .into_iter()
                    .map(move |at| (id, at))
            })
            .collect()
    }

    /// The words counted on the pages read.
    pub fn wanted(&self) -> &rustc_hash::FxHashSet<String> {
        &self.wanted
    }

    /// Pages read for words whose holders the postings do not name.
    pub fn pages_read_for_holders(&self) -> usize {
        self.lazily.borrow().len()
    }
}

/// The pages a background counts from the postings: every video of
/// each surely passes the filters, and holds a word exactly as the
/// postings' census says.
pub(crate) struct Whole {
    /// By index page id: its position in the archive's page table.
    at: Vec<Option<usize>>,
    fields: Fields,
    /// Every transcript page of the index is one of these: a word's census
    /// here is then the index's own ([`crate::index::RawIndex::census`]).
    every: bool,
}

impl Whole {
    fn insert(&mut self, id: u32, pos: usize) {
        let id = id as usize;
        if self.at.len() <= id {
            self.at.resize(id + 1, None);
        }
        self.at[id] = Some(pos);
    }

    /// Whether these are every transcript page of `index`.
    fn is_every_page_of(&self, index: &Index) -> bool {
        let pages = index.raw.meta.pages.iter();
        let transcripts = pages.filter(|p| p.key.layer == LayerName::Transcripts);
        transcripts.count() == self.at.iter().flatten().count()
    }

    /// The page table position of index page `id`, if it is counted
    /// from the postings.
    fn position(&self, id: u32) -> Option<usize> {
        self.at.get(id as usize).copied().flatten()
    }

    /// The census of word number `n` on these pages, when they are every
    /// transcript page of `index` (so it is the index's own); `None`
    /// otherwise, or when the index cannot say.
    pub fn census_of(&self, index: &Index, n: u32) -> Option<u64> {
        self.every
            .then(|| index.raw.census_numbered(n, self.fields))
            .flatten()
    }

    /// The videos posting `p` says hold its word in the fields, when its
    /// page is one of these (the census, taken one posting at a time).
    pub fn units(&self, p: &PostingView) -> u64 {
        match self.position(p.page) {
            Some(_) => u64::from(p.units_in(LayerName::Transcripts, self.fields)),
            None => 0,
        }
    }
}

/// What the index says of a vouched page under the filters.
enum Rows {
    /// Every video surely passes: (index page id, videos).
    AllPass(u32, usize),
    /// No video passes.
    NonePass,
}
