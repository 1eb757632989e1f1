//! Opening an index against an archive: which of the archive's current
//! pages it vouches for, and what it can do for a query.
//!
//! Promises: a missing, damaged, foreign or outdated index is reported as
//! [`IndexStatus::Ignored`] with the reason and used for nothing; a page
//! is vouched for only when its current manifest sha256 and file stamp
//! equal the recorded ones and it was read successfully at build time.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::read::RawIndex;
use super::{files, PageKey, FORMAT_VERSION};
use crate::archive::{Archive, PageRef};
use crate::text::NORMALIZER_VERSION;

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
    /// Why the index is not used, or what it vouches for: the words a
    /// message built around it quotes.
    pub fn reason(&self) -> String {
        match self {
            IndexStatus::Ignored(why) => why.clone(),
            other => other.describe(),
        }
    }

    /// The status without its reason (`index: ignored`), for answers
    /// that gave the reason already (a worklist's later pages).
    pub fn brief(&self) -> String {
        match self {
            IndexStatus::Ignored(_) => "index: ignored".into(),
            other => other.describe(),
        }
    }

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
    /// (the archive's [`super::IndexCache`]).
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
        let raw = match archive.indexes().load(dir) {
            Ok(raw) => raw,
            Err(_) if !dir.join(files::META).exists() => {
                return (None, IndexStatus::Ignored(missing(dir)));
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

/// Why there is no index at `dir`, and what to do: build one, or, when it
/// was built under another cache folder (a client may start a server
/// without the user's HOME, so the default folder differs from the one
/// `build` wrote), name it. Short: every answer searched without an index
/// quotes it.
fn missing(dir: &Path) -> String {
    format!(
        "no index at {}: run `archilyzer-index build`, or pass --index DIR if it was built elsewhere",
        dir.display()
    )
}

/// The default root of the index directories: `ARCHILYZER_INDEX_DIR`,
/// else `index` under the cache dir.
pub fn default_root() -> Option<PathBuf> {
    match std::env::var_os("ARCHILYZER_INDEX_DIR").filter(|d| !d.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => Some(crate::archive::cache_dir()?.join("index")),
    }
}

/// The index directory of a source under `root`: one subdirectory per
/// source.
pub fn dir_under(root: &Path, handle: &crate::source::SourceHandle) -> PathBuf {
    root.join(handle.cache_key())
}

/// The default index directory of a source (under [`default_root`]).
pub fn default_dir(handle: &crate::source::SourceHandle) -> Option<PathBuf> {
    Some(dir_under(&default_root()?, handle))
}
