//! Loaded indexes kept for the life of the process, so a long-running
//! server parses an index's files once, not on every question.
//!
//! Promise: a kept index is handed out only while every one of its files
//! is the file it was loaded from: same inode, size and modification time
//! (a build writes a new folder and renames it over the old one, so every
//! rebuild makes new inodes). Anything else loads the files again. An
//! index whose files changed within the last [`SETTLED_SECS`] is not kept
//! at all: a file rewritten in place within one tick of the clock can keep
//! its modification time, and only files older than that tick are sure to
//! show a later change (git's "racily clean" rule). Which
//! pages the index vouches for is still decided on every open, against
//! the archive's current manifests ([`super::Index::open`]), so keeping an
//! index never keeps a stale answer.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
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

static KEPT_INDEXES: Mutex<Vec<(PathBuf, Stamp, Slot)>> = Mutex::new(Vec::new());

/// Whether a kept index is warmed as soon as it is loaded ([`keep_warm`]).
static WARM: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on, every index this process keeps has its rows and places
/// read on a thread of their own as soon as it is loaded, so a search
/// can answer rare words from their places (a server calls this; a
/// one-shot search does not, and reads no more than it needs).
pub fn keep_warm() {
    WARM.store(true, Ordering::Relaxed);
}

/// Loads answered by a kept index, and loads that read the files.
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

/// `(hits, misses)` of [`load`] since the process started: how often a
/// kept index answered (what a server's metrics report).
pub fn lookups() -> (u64, u64) {
    (HITS.load(Ordering::Relaxed), MISSES.load(Ordering::Relaxed))
}

/// The index in `dir`: the kept one if its files are unchanged, else
/// loaded now (and kept). Callers asking for the same unchanged index at
/// once share one load: the first reads the files, the others wait for it
/// (a server's first question, asked as it starts, waits for the load the
/// server began at start instead of doing it again). Errors are never
/// kept: after a failed load, the next caller tries again.
pub fn load(dir: &Path) -> Result<Arc<RawIndex>, IndexError> {
    let Some(stamp) = Stamp::of(dir).filter(Stamp::settled) else {
        MISSES.fetch_add(1, Ordering::Relaxed);
        return RawIndex::load(dir).map(Arc::new);
    };
    let slot = slot_for(dir, &stamp);
    let mut held = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(raw) = held.as_ref() {
        HITS.fetch_add(1, Ordering::Relaxed);
        return Ok(Arc::clone(raw));
    }
    MISSES.fetch_add(1, Ordering::Relaxed);
    let raw = Arc::new(RawIndex::load(dir)?);
    if Stamp::of(dir).as_ref() == Some(&stamp) {
        *held = Some(Arc::clone(&raw));
        if WARM.load(Ordering::Relaxed) {
            let warming = Arc::clone(&raw);
            std::thread::spawn(move || warming.warm());
        }
    }
    Ok(raw)
}

/// The slot of the index in `dir` with files `stamp`, made (and the
/// folder's older slot dropped) if there is none.
fn slot_for(dir: &Path, stamp: &Stamp) -> Slot {
    let mut kept = KEPT_INDEXES.lock().unwrap_or_else(|e| e.into_inner());
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
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let (start, dir) = (Arc::clone(&start), dir.path().to_path_buf());
                std::thread::spawn(move || {
                    start.wait();
                    load(&dir).unwrap()
                })
            })
            .collect();
        let loads: Vec<_> = callers.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            loads.iter().all(|l| Arc::ptr_eq(l, &loads[0])),
            "every caller got the one index loaded, none loaded its own"
        );
        assert!(
            Arc::ptr_eq(&load(dir.path()).unwrap(), &loads[0]),
            "and it is kept"
        );
    }
}
