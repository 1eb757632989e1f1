//! Opening an index and answering lookups: exact words, prefixes, and
//! pieces inside words.
//!
//! Promises: a missing, damaged, foreign or outdated index is reported as
//! [`IndexStatus::Ignored`] with the reason and used for nothing; a lookup
//! that hits damaged postings answers `None` ("cannot say"), which the
//! planner treats as "every page"; a page is vouched for only when its
//! current manifest sha256 and file stamp equal the recorded ones and it
//! was read successfully at build time.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fst::{IntoStreamer, Streamer};

use super::blocks::Blocks;
use super::select::Selection;
use super::{
    decode_postings, files, IndexError, LayerName, Meta, PageKey, Posting, VideoRow, FORMAT_VERSION,
};
use crate::archive::{Archive, PageRef};
use crate::text::NORMALIZER_VERSION;

/// The files of an index, loaded.
pub struct RawIndex {
    /// `meta.json`.
    pub meta: Meta,
    /// `terms.fst`: word → postings offset.
    pub terms: fst::Map<Vec<u8>>,
    postings: Blocks,
    vocabulary: Vec<u8>,
    /// `videos.json`.
    pub videos: Vec<VideoRow>,
    ids: HashMap<PageKey, u32>,
    /// Transcript page id → its rows in `videos` (in page order).
    rows: HashMap<u32, Range<usize>>,
}

impl RawIndex {
    /// Loads every file of the index in `dir`; the error says what is wrong.
    pub fn load(dir: &Path) -> Result<RawIndex, IndexError> {
        let read = |name: &'static str| {
            std::fs::read(dir.join(name)).map_err(|e| IndexError::damaged(name, e))
        };
        let meta: Meta = serde_json::from_slice(&read(files::META)?)
            .map_err(|e| IndexError::damaged(files::META, e))?;
        let terms =
            fst::Map::new(read(files::TERMS)?).map_err(|e| IndexError::damaged(files::TERMS, e))?;
        let videos: Vec<VideoRow> = serde_json::from_slice(&read(files::VIDEOS)?)
            .map_err(|e| IndexError::damaged(files::VIDEOS, e))?;
        let ids: HashMap<PageKey, u32> = meta
            .pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key.clone(), i as u32))
            .collect();
        let rows = rows_by_page(&videos, &ids);
        Ok(RawIndex {
            postings: Blocks::open(&dir.join(files::POSTINGS), meta.postings_blocks.clone())
                .map_err(|e| IndexError::damaged(files::POSTINGS, e))?,
            vocabulary: read(files::VOCABULARY)?,
            meta,
            terms,
            videos,
            ids,
            rows,
        })
    }

    /// The rows of transcript page `id`, in page order (a video's
    /// position on its page is its position here).
    pub fn page_rows(&self, id: u32) -> &[VideoRow] {
        self.rows
            .get(&id)
            .map_or(&[][..], |r| &self.videos[r.clone()])
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
        let id = self.page_id(key)?;
        let p = &self.meta.pages[id as usize];
        (p.sha256 == sha256 && p.stamp.as_deref() == stamp && p.failed.is_none()).then_some(id)
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

    /// How many videos (transcript records) hold the word whose postings
    /// are at `offset`; `None` if the postings are damaged.
    pub fn videos_holding(&self, offset: u64) -> Option<u64> {
        let postings = self.postings_with_counts(offset).ok()?;
        Some(
            postings
                .iter()
                .filter(|p| self.meta.pages[p.page as usize].key.layer == LayerName::Transcripts)
                .map(|p| u64::from(p.videos))
                .sum(),
        )
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

/// Each transcript page's rows in `videos`, which a build writes grouped
/// by page in page-table order.
fn rows_by_page(videos: &[VideoRow], ids: &HashMap<PageKey, u32>) -> HashMap<u32, Range<usize>> {
    let mut rows: HashMap<u32, Range<usize>> = HashMap::new();
    for (i, v) in videos.iter().enumerate() {
        let key = PageKey {
            site: v.site.clone(),
            layer: LayerName::Transcripts,
            channel: v.row.channel.clone(),
            page: v.row.page,
        };
        if let Some(&id) = ids.get(&key) {
            let r = rows.entry(id).or_insert(i..i);
            if r.end == i {
                r.end = i + 1;
            }
        }
    }
    rows
}

/// What an index can do for a query, said in results.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexStatus {
    /// Every page of the archive is vouched for.
    Fresh,
    /// Some pages changed, appeared or failed since the build; they are
    /// read unconditionally.
    PartlyStale {
        /// Pages read unconditionally.
        unvouched: usize,
        /// Pages in all.
        pages: usize,
    },
    /// Not used, with the reason.
    Ignored(String),
    /// None was asked for (`--no-index`).
    NotUsed,
}

impl IndexStatus {
    /// One line for the end of a result.
    pub fn describe(&self) -> String {
        match self {
            IndexStatus::Fresh => "index: fresh".into(),
            IndexStatus::PartlyStale { unvouched, pages } => {
                format!("index: partly stale, {unvouched} of {pages} page(s) changed or new since the build and read in full")
            }
            IndexStatus::Ignored(why) => {
                format!("index: ignored ({why}); it skipped no page")
            }
            IndexStatus::NotUsed => "index: not used".into(),
        }
    }
}

/// An index opened against an archive: lookups, plus which current pages
/// it vouches for.
pub struct Index {
    /// The index's files, shared with the process's other opens of it
    /// ([`super::cache`]).
    pub raw: Arc<RawIndex>,
    /// For each page of the archive's page table, its index id when vouched.
    pub vouched: Vouched,
}

/// Current page position → index page id, for pages the index vouches for.
#[derive(Debug, Clone, Default)]
pub struct Vouched {
    /// For each page of the current page table, its id in the index when the index vouches for it (unchanged and read).
    pub ids: Vec<Option<u32>>,
}

impl Index {
    /// Opens the index in `dir` for `archive`, whose page table is `pages`.
    pub fn open(dir: &Path, archive: &Archive, pages: &[PageRef]) -> (Option<Index>, IndexStatus) {
        let raw = match super::cache::load(dir) {
            Ok(raw) => raw,
            Err(e) if !dir.join(files::META).exists() => {
                let _ = e;
                return (
                    None,
                    IndexStatus::Ignored(format!(
                        "no index at {}: run `archilyzer-index build`",
                        dir.display()
                    )),
                );
            }
            Err(e) => {
                return (
                    None,
                    IndexStatus::Ignored(format!("index unusable: {e}; rebuild it")),
                )
            }
        };
        if !raw.compatible() {
            return (
                None,
                IndexStatus::Ignored(format!(
                    "built by index format {} / normaliser {}, this build uses {FORMAT_VERSION} / {NORMALIZER_VERSION}; rebuild it",
                    raw.meta.format, raw.meta.normalizer
                )),
            );
        }
        let source = archive.handle().to_string();
        if raw.meta.source != source {
            return (
                None,
                IndexStatus::Ignored(format!("built from another archive ({})", raw.meta.source)),
            );
        }
        let ids: Vec<Option<u32>> = pages
            .iter()
            .map(|p| raw.reusable(&PageKey::of(archive, p), &p.sha256, p.stamp.as_deref()))
            .collect();
        let unvouched = ids.iter().filter(|i| i.is_none()).count();
        let status = if unvouched == 0 {
            IndexStatus::Fresh
        } else {
            IndexStatus::PartlyStale {
                unvouched,
                pages: pages.len(),
            }
        };
        (
            Some(Index {
                raw,
                vouched: Vouched { ids },
            }),
            status,
        )
    }
}

/// The default index directory of a source: under the cache dir, one
/// subdirectory per source; `ARCHILYZER_INDEX_DIR` overrides the root.
pub fn default_dir(handle: &crate::source::SourceHandle) -> Option<PathBuf> {
    let root = match std::env::var_os("ARCHILYZER_INDEX_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => crate::archive::cache_dir()?.join("index"),
    };
    Some(root.join(handle.cache_key()))
}
