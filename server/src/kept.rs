//! Results kept for the calls that page through them.
//!
//! A search and a worklist are each one scan of their scope; the pages
//! that follow the first (by `offset`, by `cursor`) ask for the same scan
//! again. A [`Store`] keeps the last few results so those pages cost no
//! scan.
//!
//! Promise: a kept result is handed out only to a call whose *shape* (the
//! arguments that decide the result, not the ones that page or present
//! it) is the same, on the same opened archive, whose page table is
//! unchanged: every page's manifest sha256 and file stamp are part of the
//! key. An archive re-read (`list_channels` with `refresh`) is another
//! archive. A result scanned while some page was touched within
//! [`SETTLED_SECS`] is not kept: a file rewritten within one tick of the
//! clock can keep its stamp (git's "racily clean" rule). So a kept answer
//! is always the answer a fresh scan would give.
//!
//! Memory: a store holds at most its count of results and its byte
//! budget (as each result's maker estimates it); the oldest goes first,
//! and a result larger than the whole budget is not kept at all.
//!
//! The stores are the server's, in its [`crate::context::Context`]
//! ([`Kept`]): two servers in one process keep their own. A store holds
//! results of any type (the tools' own, which sit above it), each handed
//! back only as the type it was made as.

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use archilyzer_core::archive::{Archive, PageRef, PageTable};

/// How long before a scan every page must have last changed for its
/// result to be kept.
pub const SETTLED_SECS: u64 = 2;

/// One kept result: its archive, its key, its estimated size.
type Entry = (Weak<Archive>, String, Arc<dyn Any + Send + Sync>, usize);

/// The results a server keeps, one store per kind.
pub struct Kept {
    /// The searches kept so the pages that follow one by `offset` cost no
    /// scan. Their hits hold cue text, so the bound is in bytes as well as
    /// in results.
    pub searches: Store,
    /// The made worklists kept: the cursors that follow one cost no scan.
    /// A list holds no cue text, so a few megabytes hold the largest.
    pub worklists: Store,
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            searches: Store::new(8, 32 << 20),
            worklists: Store::new(8, 64 << 20),
        }
    }
}

/// A bounded set of kept results.
pub struct Store {
    entries: Mutex<Vec<Entry>>,
    most: usize,
    bytes: usize,
}

impl Store {
    /// A store of at most `most` results and `bytes` estimated bytes.
    pub const fn new(most: usize, bytes: usize) -> Self {
        Store {
            entries: Mutex::new(Vec::new()),
            most,
            bytes,
        }
    }

    fn entries(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The result of `shape` on `archive`: the kept one when a call of
    /// the same shape made it on this archive, unchanged since; else
    /// `make`'s (result, estimated bytes), made over the page table the
    /// key was taken from, then kept when the archive's pages are
    /// settled. The flag says whether it was kept.
    pub fn kept_or_made<T: Any + Send + Sync, E>(
        &self,
        archive: &Arc<Archive>,
        shape: &str,
        make: impl FnOnce(&PageTable) -> Result<(T, usize), E>,
    ) -> Result<(Arc<T>, bool), E> {
        // One look at the page table (a stat of every page) for the key,
        // whether the pages are settled, and the scan.
        let table = archive.page_table();
        let pages = &table.0;
        let key = key(pages, shape);
        let found = self
            .entries()
            .iter()
            .find(|(a, k, _, _)| *k == key && std::ptr::eq(a.as_ptr(), Arc::as_ptr(archive)))
            .and_then(|(_, _, made, _)| made.clone().downcast::<T>().ok());
        if let Some(made) = found {
            return Ok((made, true));
        }
        let (made, bytes) = make(&table)?;
        let made = Arc::new(made);
        if settled(pages) && bytes <= self.bytes {
            self.keep(archive, key, made.clone(), bytes);
        }
        Ok((made, false))
    }

    fn keep(
        &self,
        archive: &Arc<Archive>,
        key: String,
        made: Arc<dyn Any + Send + Sync>,
        bytes: usize,
    ) {
        let mut entries = self.entries();
        entries.retain(|(a, _, _, _)| a.strong_count() > 0);
        entries.push((Arc::downgrade(archive), key, made, bytes));
        while entries.len() > self.most || held(&entries) > self.bytes {
            entries.remove(0);
        }
    }

    /// How many results are kept now.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn held(entries: &[Entry]) -> usize {
    entries.iter().map(|(_, _, _, bytes)| bytes).sum()
}

/// The key of `shape` on an archive whose page table is `pages`: a
/// 128-bit xxh3 of both (kept results live in this process only, so a
/// fast hash serves; every field is ended by a byte no field holds).
fn key(pages: &[PageRef], shape: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut field = |bytes: &[u8]| {
        h.update(bytes);
        h.update(&[0xff]);
    };
    field(shape.as_bytes());
    for p in pages {
        field(&(p.site as u64).to_le_bytes());
        field(p.layer.dir().as_bytes());
        field(p.channel.as_bytes());
        field(&p.page.to_le_bytes());
        field(p.sha256.as_bytes());
        field(p.stamp.as_deref().unwrap_or("").as_bytes());
    }
    format!("{:032x}", h.digest128())
}

/// Whether every page of `pages` last changed [`SETTLED_SECS`] ago or
/// more.
fn settled(pages: &[PageRef]) -> bool {
    pages.iter().all(|p| {
        p.stamp.as_deref().is_none_or(|s| {
            archilyzer_core::source::stamp_older_than(
                s,
                std::time::Duration::from_secs(SETTLED_SECS),
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use archilyzer_core::archive::OpenOptions;
    use archilyzer_core::source::SourceHandle;
    use std::cell::Cell;
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    /// A copy of the committed archive whose files last changed `age` ago.
    fn archive_aged(age: Duration) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha");
        copy_aged(&from, dir.path(), SystemTime::now() - age);
        dir
    }

    fn copy_aged(from: &Path, to: &Path, time: SystemTime) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_aged(&entry.path(), &target, time);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
                let file = std::fs::File::options().write(true).open(&target).unwrap();
                file.set_modified(time).unwrap();
            }
        }
    }

    fn open(dir: &Path) -> Arc<Archive> {
        Arc::new(Archive::open(&SourceHandle::local(dir), &OpenOptions::default()).unwrap())
    }

    /// Asks `store` for `shape` on `archive`, counting the scans in `made`.
    fn ask(store: &Store, archive: &Arc<Archive>, shape: &str, made: &Cell<u32>) -> bool {
        let (_, kept) = store
            .kept_or_made(archive, shape, |_| {
                made.set(made.get() + 1);
                Ok::<_, ()>((made.get(), 10))
            })
            .unwrap();
        kept
    }

    #[test]
    fn a_kept_result_is_handed_only_to_the_same_shape_on_the_same_unchanged_archive() {
        let dir = archive_aged(Duration::from_secs(60));
        let store = Store::new(8, 1000);
        let made = Cell::new(0);
        let archive = open(dir.path());
        assert!(!ask(&store, &archive, "a", &made));
        assert!(
            ask(&store, &archive, "a", &made),
            "the same call again is kept"
        );
        assert!(!ask(&store, &archive, "b", &made), "another shape is made");
        let reopened = open(dir.path());
        assert!(
            !ask(&store, &reopened, "a", &made),
            "an archive opened again is another archive"
        );
        // A page rewritten (another time, so another stamp) changes the key.
        let page = dir.path().join("transcripts/daily-dispatch/page-0001.json");
        assert!(
            page.is_file(),
            "{} is a page of the test archive",
            page.display()
        );
        let file = std::fs::File::options().write(true).open(&page).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(30))
            .unwrap();
        assert!(
            !ask(&store, &archive, "a", &made),
            "a changed page is scanned again"
        );
        assert_eq!(made.get(), 4);
    }

    #[test]
    fn a_result_scanned_while_a_page_was_fresh_is_not_kept() {
        let dir = archive_aged(Duration::ZERO);
        let store = Store::new(8, 1000);
        let made = Cell::new(0);
        let archive = open(dir.path());
        assert!(!ask(&store, &archive, "a", &made));
        assert!(!ask(&store, &archive, "a", &made));
        assert!(store.is_empty());
    }

    #[test]
    fn a_store_holds_its_count_and_its_bytes_at_most_and_the_oldest_goes_first() {
        let dir = archive_aged(Duration::from_secs(60));
        let archive = open(dir.path());
        let made = Cell::new(0);
        let by_count = Store::new(2, 1000);
        for shape in ["a", "b", "c"] {
            ask(&by_count, &archive, shape, &made);
        }
        assert_eq!(by_count.len(), 2);
        assert!(
            !ask(&by_count, &archive, "a", &made),
            "the oldest went first"
        );
        assert!(ask(&by_count, &archive, "c", &made));
        // Each result is 10 bytes: a budget of 25 holds two, of 5 none.
        let by_bytes = Store::new(8, 25);
        for shape in ["a", "b", "c"] {
            ask(&by_bytes, &archive, shape, &made);
        }
        assert_eq!(by_bytes.len(), 2);
        let too_small = Store::new(8, 5);
        ask(&too_small, &archive, "a", &made);
        assert!(
            too_small.is_empty(),
            "a result over the whole budget is not kept"
        );
    }
}
