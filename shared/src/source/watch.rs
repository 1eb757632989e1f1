//! Stamps a local store keeps while the kernel reports no change: a warm
//! server stamps every page of the archive on every search (the index
//! vouches only for pages whose stamp is the one it was built from), and
//! one `stat` per page was most of a rare word's time on an archive of a
//! few hundred pages.
//!
//! A [`Watch`] holds an inotify instance watching every file whose stamp
//! it keeps and every directory such a file's path goes through, from the
//! file system's root down. Before it answers, the caller has it read
//! every event the kernel has queued ([`Watch::drain`]); the kernel queues
//! an event before the call that made the change returns, so a change
//! made before the answer was asked for is always read first. An event
//! drops every kept stamp it may concern:
//!
//! - on a kept file (written, touched, linked, removed; through any of
//!   its links), that file's stamp;
//! - in a directory inside the root, an event naming an entry drops the
//!   stamps of that entry and of everything under it (a file replaced,
//!   renamed or removed; a directory renamed or replaced), and forgets
//!   the watches under it, so they are set again on what the path names
//!   then;
//! - in a directory above the root, an event naming the next directory
//!   down the root's path (renamed, replaced, removed) drops them all;
//! - a watched directory itself removed or moved, or the queue
//!   overflowing, drops them all.
//!
//! Promise: a kept stamp is answered only when no event since it was
//! taken concerns its path. What inotify may not see is never kept: a
//! stamp is kept only for a regular file, on a path without a symlink
//! (the target's directory is not watched), on a file system whose
//! changes are all made through this kernel (not a network or FUSE file
//! system: [`local_file_system`]), and only when its `lstat` after its
//! watch was set gives the same stamp. Otherwise the caller stats the
//! file each time, as without a watch. A write through a shared memory
//! map is not reported by inotify and is not seen (the file's time moves
//! late, at write-back, so the stamp would miss it too).

use std::collections::HashMap;
use std::ffi::OsString;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

/// The events on a file that may change its stamp.
const FILE_CHANGES: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DONT_FOLLOW);

/// The events in a directory that may change what a path through it
/// names, or an entry's stamp.
const DIR_CHANGES: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::CREATE)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DONT_FOLLOW)
    .union(WatchFlags::ONLYDIR);

/// Stamps kept at most; past it they are all dropped and taken again.
const KEPT_AT_MOST: usize = 1 << 20;

/// A directory or file watched, and which of its events matter.
#[derive(Debug)]
enum Watched {
    /// The root, a directory inside it or a file, by its path under the
    /// root (`""` for the root): every event (a directory's naming an
    /// entry) concerns that path.
    Inside(String),
    /// A directory above the root: only events naming `child`, the next
    /// directory down the root's path.
    Above { child: OsString },
}

/// Stamps kept while inotify reports no change to their paths.
#[derive(Debug)]
pub(super) struct Watch {
    fd: OwnedFd,
    root: PathBuf,
    /// Watch descriptor → what it watches.
    watched: HashMap<i32, Watched>,
    /// A directory or file under the root (`""`: the root) → its watch.
    inside: HashMap<String, i32>,
    /// Path under the root → its kept stamp.
    stamps: HashMap<String, Kept>,
    /// Stamps answered from what was kept (what the tests check).
    kept_answers: u64,
}

impl Watch {
    /// A watch over `root` (canonical), with every directory above it
    /// watched; `None` where inotify is unavailable (too many instances,
    /// too many watches) or the root's file system may change without
    /// this kernel seeing it.
    pub(super) fn new(root: &Path) -> Option<Watch> {
        if !local_file_system(root) {
            return None;
        }
        let fd = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
        let mut watch = Watch {
            fd,
            root: root.to_path_buf(),
            watched: HashMap::new(),
            inside: HashMap::new(),
            stamps: HashMap::new(),
            kept_answers: 0,
        };
        let mut above = PathBuf::new();
        for part in root.components() {
            if let Component::Normal(child) = part {
                let wd = inotify::add_watch(&watch.fd, &above, DIR_CHANGES).ok()?;
                watch.watched.insert(
                    wd,
                    Watched::Above {
                        child: child.to_os_string(),
                    },
                );
            }
            above.push(part);
        }
        Some(watch)
    }

    /// The kept stamp of `path` (under the root), `None` when none is
    /// kept. Trust it only after [`Watch::drain`], called since the
    /// caller was asked.
    pub(super) fn kept(&mut self, path: &str) -> Option<String> {
        let kept = self.stamps.get(path).map(|k| k.stamp.clone());
        self.kept_answers += u64::from(kept.is_some());
        kept
    }

    /// Keeps `stamp`, taken of `path` after [`Watch::prepare`] answered
    /// `true` for it, once the file itself is watched (a write through
    /// any of its links is reported there) and its `lstat` then gives
    /// that same stamp (so no change fell between the stamp and the
    /// watch).
    pub(super) fn keep(&mut self, path: &str, stamp: &str) {
        if !self.watch_inside(path, FILE_CHANGES) {
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(self.root.join(path)) else {
            return;
        };
        if !meta.file_type().is_file() || super::stamp_of(&meta).as_deref() != Some(stamp) {
            return;
        }
        if self.stamps.len() >= KEPT_AT_MOST {
            self.stamps.clear();
        }
        let file = (meta.dev(), meta.ino());
        let stamp = stamp.to_string();
        self.stamps.insert(path.to_string(), Kept { stamp, file });
    }

    /// The file (device, inode) `path` names while its stamp is kept,
    /// once every queued event is read: a file kept open for that path is
    /// still the one it names when it is that file.
    pub(super) fn unchanged_file(&mut self, path: &str) -> Option<(u64, u64)> {
        self.drain();
        self.stamps.get(path).map(|k| k.file)
    }

    /// Watches every directory `path` goes through inside the root, before
    /// its file is stat'ed (so a change after the `stat` is reported);
    /// `false` when one cannot be watched (a symlink, another file
    /// system, no watch left), and then nothing may be kept for `path`.
    pub(super) fn prepare(&mut self, path: &str) -> bool {
        let dirs = path.match_indices('/').map(|(end, _)| &path[..end]);
        std::iter::once("")
            .chain(dirs)
            .all(|dir| self.watch_inside(dir, DIR_CHANGES))
    }

    /// Stamps answered from what was kept since the watch began.
    #[cfg(test)]
    pub(super) fn kept_answers(&self) -> u64 {
        self.kept_answers
    }

    /// Watches `path` (under the root: a directory, or a file) for
    /// `changes`, unless it is watched already.
    fn watch_inside(&mut self, path: &str, changes: WatchFlags) -> bool {
        if self.inside.contains_key(path) {
            return true;
        }
        let full = self.root.join(path);
        if !path.is_empty() && !local_file_system(&full) {
            return false;
        }
        let Ok(wd) = inotify::add_watch(&self.fd, &full, changes) else {
            return false;
        };
        self.watched.insert(wd, Watched::Inside(path.to_string()));
        self.inside.insert(path.to_string(), wd);
        true
    }

    /// Reads every queued event, dropping the kept stamps each concerns.
    pub(super) fn drain(&mut self) {
        let mut buf = [MaybeUninit::<u8>::uninit(); 8192];
        let mut forgets: Vec<Forget> = Vec::new();
        {
            let mut events = inotify::Reader::new(&self.fd, &mut buf);
            while let Ok(event) = events.next() {
                forgets.push(self.concerns(
                    event.wd(),
                    event.events(),
                    event.file_name().map(|n| n.to_bytes()),
                ));
            }
        }
        for d in forgets {
            self.apply(d);
        }
    }

    /// What one event drops.
    fn concerns(&self, wd: i32, events: ReadFlags, name: Option<&[u8]>) -> Forget {
        if events.contains(ReadFlags::QUEUE_OVERFLOW) {
            return Forget::All;
        }
        let gone = events.intersects(
            ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF | ReadFlags::IGNORED | ReadFlags::UNMOUNT,
        );
        match (self.watched.get(&wd), name) {
            (None, _) => Forget::Nothing,
            (Some(Watched::Above { .. }), _) if gone => Forget::All,
            (Some(Watched::Above { child }), Some(name)) if name == child.as_bytes() => Forget::All,
            (Some(Watched::Above { .. }), _) => Forget::Nothing,
            (Some(Watched::Inside(dir)), _) if gone => Forget::Under(dir.clone()),
            (Some(Watched::Inside(dir)), Some(name)) => {
                let name = String::from_utf8_lossy(name);
                Forget::Under(if dir.is_empty() {
                    name.into_owned()
                } else {
                    format!("{dir}/{name}")
                })
            }
            (Some(Watched::Inside(dir)), None) => Forget::Under(dir.clone()),
        }
    }

    fn apply(&mut self, forget: Forget) {
        match forget {
            Forget::Nothing => {}
            Forget::All => {
                self.stamps.clear();
                self.forget_inside(|_| true);
            }
            Forget::Under(at) => {
                let under = |p: &str| {
                    at.is_empty()
                        || p == at
                        || (p.starts_with(&at) && p[at.len()..].starts_with('/'))
                };
                self.stamps.retain(|p, _| !under(p));
                self.forget_inside(under);
            }
        }
    }

    /// Stops watching the paths inside the root that `which` picks,
    /// so the next [`Watch::prepare`] watches what their paths name then.
    fn forget_inside(&mut self, which: impl Fn(&str) -> bool) {
        let gone: Vec<(String, i32)> = self
            .inside
            .iter()
            .filter(|(dir, _)| which(dir))
            .map(|(dir, wd)| (dir.clone(), *wd))
            .collect();
        for (dir, wd) in gone {
            self.inside.remove(&dir);
            self.watched.remove(&wd);
            let _ = inotify::remove_watch(&self.fd, wd);
        }
    }
}

/// A kept stamp, and which file (device, inode) it is of.
#[derive(Debug)]
struct Kept {
    stamp: String,
    file: (u64, u64),
}

/// What an event drops of the kept stamps.
enum Forget {
    Nothing,
    All,
    /// The stamps at and under this path (under the root; `""`: all).
    Under(String),
}

/// Whether every change to files under `path` is made through this
/// kernel, so inotify reports it: the disk and memory file systems, not
/// network, FUSE or unknown ones.
fn local_file_system(path: &Path) -> bool {
    const LOCAL: [i64; 9] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
        0xF2F5_2010, // f2fs
        0x2FC1_2FC1, // zfs
        0xCA45_1A4E, // bcachefs
        0x0000_4d44, // vfat
    ];
    // The field's type differs between platforms (i64 here).
    #[allow(clippy::useless_conversion)]
    rustix::fs::statfs(path)
        .ok()
        .and_then(|s| i64::try_from(s.f_type).ok())
        .is_some_and(|kind| LOCAL.contains(&kind))
}

#[cfg(test)]
mod tests {
    use super::super::local::LocalStore;
    use super::super::Store;
    use std::path::Path;

    const PAGE: &str = "transcripts/ch/page-0001.json";

    /// An archive with one page under `root`, its store, and the page's
    /// stamp taken three times (the watch begins with the second, the
    /// third is answered from what was kept); `None` (the
    /// test then says it is skipped) where the temporary folder's file
    /// system is not one a watch trusts.
    fn kept(root: &Path) -> Option<(LocalStore, String)> {
        std::fs::create_dir_all(root.join("transcripts/ch")).unwrap();
        std::fs::write(root.join(PAGE), "first").unwrap();
        let store = LocalStore::open(root).unwrap();
        let first = stamp(&store);
        assert_eq!(store.kept_answers(), None, "no watch for one survey");
        assert_eq!(stamp(&store), first);
        let Some(0) = store.kept_answers() else {
            eprintln!(
                "skipped: no watch on {} (file system not trusted)",
                root.display()
            );
            return None;
        };
        assert_eq!(stamp(&store), first);
        assert_eq!(store.kept_answers(), Some(1), "the third stamp was kept");
        Some((store, first))
    }

    /// Runs `test` on a fresh archive's folder, its store and the page's
    /// kept stamp, when a watch keeps stamps there.
    fn with_kept(test: impl FnOnce(&Path, &LocalStore, String)) {
        let dir = tempfile::tempdir().unwrap();
        if let Some((store, first)) = kept(dir.path()) {
            test(dir.path(), &store, first);
        }
    }

    fn stamp(store: &LocalStore) -> String {
        store.stamps(&[PAGE.to_string()])[0].clone().unwrap()
    }

    #[test]
    fn a_kept_stamp_is_answered_until_the_kernel_reports_a_change() {
        with_kept(|dir, store, first| {
            std::fs::write(dir.join(PAGE), "second, longer").unwrap();
            let now = stamp(store);
            assert_ne!(now, first);
            assert!(now.starts_with("14:"), "{now}");
        });
    }

    #[test]
    fn a_file_touched_without_a_write_gets_its_new_stamp() {
        with_kept(|dir, store, first| {
            let file = std::fs::File::options()
                .write(true)
                .open(dir.join(PAGE))
                .unwrap();
            file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
                .unwrap();
            assert_eq!(stamp(store), "5:1000000000000000");
            assert_ne!(first, "5:1000000000000000");
        });
    }

    #[test]
    fn a_directory_replaced_drops_the_stamps_under_it() {
        with_kept(|dir, store, _| {
            let ch = dir.join("transcripts/ch");
            std::fs::rename(&ch, dir.join("transcripts/old")).unwrap();
            std::fs::create_dir(&ch).unwrap();
            std::fs::write(dir.join(PAGE), "replaced").unwrap();
            assert!(stamp(store).starts_with("8:"));
            // And the new directory is watched in its turn.
            std::fs::write(dir.join(PAGE), "written again").unwrap();
            assert!(stamp(store).starts_with("13:"));
        });
    }

    #[test]
    fn a_directory_above_the_root_replaced_drops_every_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("site/archive");
        let Some((store, _)) = kept(&root) else {
            return;
        };
        std::fs::rename(dir.path().join("site"), dir.path().join("old")).unwrap();
        std::fs::create_dir_all(root.join("transcripts/ch")).unwrap();
        std::fs::write(root.join(PAGE), "another site").unwrap();
        assert!(stamp(&store).starts_with("12:"));
    }

    #[test]
    fn a_write_through_another_link_drops_the_stamp() {
        with_kept(|dir, store, _| {
            let other = dir.join("elsewhere.json");
            std::fs::hard_link(dir.join(PAGE), &other).unwrap();
            let linked = stamp(store);
            assert_eq!(stamp(store), linked);
            std::fs::write(&other, "written through the other link").unwrap();
            assert!(stamp(store).starts_with("30:"));
        });
    }

    #[test]
    fn a_file_kept_open_is_read_again_once_its_path_names_another() {
        with_kept(|dir, store, _| {
            let read = |store: &LocalStore| store.read_page_range(PAGE, "", 0..5).unwrap().unwrap();
            assert_eq!(read(store), b"first");
            assert_eq!(read(store), b"first", "read again through the kept file");
            let new = dir.join("transcripts/ch/new.json");
            std::fs::write(&new, "fresh bytes").unwrap();
            std::fs::rename(&new, dir.join(PAGE)).unwrap();
            assert_eq!(read(store), b"fresh");
            assert!(stamp(store).starts_with("11:"));
        });
    }
}
