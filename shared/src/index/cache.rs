//! Loaded indexes kept by their owner ([`IndexCache`], held in the
//! options archives are opened with), so a long-running server parses an
//! index's files once, not on every question.
//!
//! Promise: a kept index is handed out only while every one of its files
//! is the file it was loaded from: same inode, size and modification time
//! (a build writes a new folder and renames it over the old one, so every
//! rebuild makes new inodes). Anything else loads the files again. An
//! index whose files changed within the last `SETTLED_SECS` (2) is not kept
//! at all: a file rewritten in place within one tick of the clock can keep
//! its modification time, and only files older than that tick are sure to
//! show a later change (git's "racily clean" rule). Which
//! pages the index vouches for is still decided on every open, against
//! the archive's current manifests ([`super::Index::open`]), so keeping an
//! index never keeps a stale answer.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::read::RawIndex;
use super::{files, IndexError};

/// How many index folders are kept at once (the oldest goes first).
const KEPT: usize = 4;

/// How old every file of an index must be for it to be kept.
const SETTLED_SECS: i64 = 2;

/// What identifies the bytes of an index's files without reading them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp(Vec<(u64, u64, i64, i64)>);

impl Stamp {
    /// (inode, size, mtime seconds, mtime nanoseconds) of each file;
    /// `None` if one cannot be read.
    fn of(dir: &Path) -> Option<Stamp> {
        let each = |name: &str| {
            let m = std::fs::metadata(dir.join(name)).ok()?;
            Some((m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
        };
        files::ALL
            .iter()
            .map(|f| each(f))
            .collect::<Option<_>>()
            .map(Stamp)
    }

    /// Whether every file is older than [`SETTLED_SECS`], so that any
    /// later change shows in its modification time.
    fn settled(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        self.0
            .iter()
            .all(|&(_, _, secs, _)| secs + SETTLED_SECS < now)
    }
}

/// One kept index: empty while its first load runs (or after that load
/// failed), so a second caller waits for the load under way rather than
/// reading every file again beside it.
type Slot = Arc<Mutex<Option<Arc<RawIndex>>>>;

/// The indexes one owner (a server, a command) has loaded, kept while
/// their files are unchanged; shared by every archive opened with the
/// same [`crate::archive::OpenOptions`].
#[derive(Default)]
pub struct IndexCache {
    kept: Mutex<Vec<(PathBuf, Stamp, Slot)>>,
    /// Whether a kept index is warmed as soon as it is loaded
    /// ([`IndexCache::keep_warm`]).
    warm: AtomicBool,
    /// Loads answered by a kept index, and loads that read the files.
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for IndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.lock().map_or(0, |k| k.len());
        f.debug_struct("IndexCache")
            .field("kept", &kept)
            .field("lookups", &self.lookups())
            .finish()
    }
}

impl IndexCache {
    /// From now on, every index this cache keeps has its rows and places
    /// read on a thread of their own as soon as it is loaded, so a search
    /// can answer rare words from their places (a server asks this; a
    /// one-shot search does not, and reads no more than it needs).
    pub fn keep_warm(&self) {
        self.warm.store(true, Ordering::Relaxed);
    }

    /// `(hits, misses)` of [`IndexCache::load`] so far: how often a kept
    /// index answered (what a server's metrics report).
    pub fn lookups(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// The index in `dir`: the kept one if its files are unchanged, else
    /// loaded now (and kept). Callers asking for the same unchanged index
    /// at once share one load: the first reads the files, the others wait
    /// for it (a server's first question, asked as it starts, waits for
    /// the load the server began at start instead of doing it again).
    /// Errors are never kept: after a failed load, the next caller tries
    /// again.
    pub fn load(&self, dir: &Path) -> Result<Arc<RawIndex>, IndexError> {
        let Some(stamp) = Stamp::of(dir).filter(Stamp::settled) else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return RawIndex::load(dir).map(Arc::new);
        };
        let slot = self.slot_for(dir, &stamp);
        let mut held = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(raw) = held.as_ref() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Arc::clone(raw));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let raw = Arc::new(RawIndex::load(dir)?);
        if Stamp::of(dir).as_ref() == Some(&stamp) {
            *held = Some(Arc::clone(&raw));
            if self.warm.load(Ordering::Relaxed) {
                let warming = Arc::clone(&raw);
                std::thread::spawn(move || warming.warm());
            }
        }
        Ok(raw)
    }

    /// The slot of the index in `dir` with files `stamp`, made (and the
    /// folder's older slot dropped) if there is none.
    fn slot_for(&self, dir: &Path, stamp: &Stamp) -> Slot {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, slot)) = kept.iter().find(|(d, s, _)| d == dir && s == stamp) {
            return Arc::clone(slot);
        }
        kept.retain(|(d, _, _)| d != dir);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        let slot = Slot::default();
        kept.push((dir.to_path_buf(), stamp.clone(), Arc::clone(&slot)));
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_index_is_handed_out_only_while_its_files_are_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        for name in files::ALL {
            std::fs::write(dir.path().join(name), name).unwrap();
        }
        let first = Stamp::of(dir.path()).unwrap();
        assert_eq!(Stamp::of(dir.path()), Some(first.clone()));
        assert!(!first.settled(), "files written just now are not kept");
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for name in files::ALL {
            let f = std::fs::File::options()
                .write(true)
                .open(dir.path().join(name));
            f.unwrap().set_modified(old).unwrap();
        }
        let first = Stamp::of(dir.path()).unwrap();
        assert!(first.settled(), "files a minute old are kept");
        // A rebuild renames new files in: new inodes, even with the same bytes.
        let fresh = dir.path().join("fresh");
        std::fs::write(&fresh, files::META).unwrap();
        std::fs::rename(&fresh, dir.path().join(files::META)).unwrap();
        assert_ne!(Stamp::of(dir.path()), Some(first));
        std::fs::remove_file(dir.path().join(files::VIDEOS)).unwrap();
        assert_eq!(Stamp::of(dir.path()), None, "a missing file is no stamp");
    }

    /// Sets every file of the index in `dir` a minute in the past, so the
    /// index counts as settled (and is kept).
    fn settle(dir: &Path) {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for name in files::ALL {
            let f = std::fs::File::options().write(true).open(dir.join(name));
            f.unwrap().set_modified(old).unwrap();
        }
    }

    #[test]
    fn callers_asking_at_once_for_one_index_share_one_load() {
        let site = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/archive/alpha");
        let handle = crate::source::SourceHandle::local(site.as_ref());
        let archive = crate::archive::Archive::open(&handle, &Default::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        crate::index::build(&archive, dir.path(), &|_| {}).unwrap();
        settle(dir.path());
        let start = Arc::new(std::sync::Barrier::new(4));
        let cache = Arc::new(IndexCache::default());
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let (start, dir) = (Arc::clone(&start), dir.path().to_path_buf());
                let cache = Arc::clone(&cache);
                std::thread::spawn(move || {
                    start.wait();
                    cache.load(&dir).unwrap()
                })
            })
            .collect();
        let loads: Vec<_> = callers.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            loads.iter().all(|l| Arc::ptr_eq(l, &loads[0])),
            "every caller got the one index loaded, none loaded its own"
        );
        assert!(
            Arc::ptr_eq(&cache.load(dir.path()).unwrap(), &loads[0]),
            "and it is kept"
        );
        assert_eq!(cache.lookups(), (4, 1), "one load read the files");
        let other = IndexCache::default();
        assert!(
            !Arc::ptr_eq(&other.load(dir.path()).unwrap(), &loads[0]),
            "another owner's cache keeps its own"
        );
    }
}
