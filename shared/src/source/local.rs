//! A composed public dir on the local disk.
//!
//! Promise: a file is read or stamped only when its path resolves
//! (symlinks followed) inside the root. A file once so resolved is
//! remembered, and kept open once read ([`Opened`]), so a warm server's
//! next read of it costs one `stat` and one `pread`: what is remembered is
//! used only while the path still names that very file (the same device
//! and inode); otherwise the path is resolved and checked again.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::watch::Watch;
use super::{check_relative_path, stamp_of, ReadError, Store};

/// Files kept open at most (well under the usual limit of 1,024
/// descriptors; when full, the set is emptied and refilled).
const KEPT_OPEN: usize = 256;

/// Reads files under one directory, never outside it.
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
    opened: Arc<Mutex<HashMap<String, Opened>>>,
    /// Stamps kept while the kernel reports no change ([`Watch`]),
    /// from the second survey of the pages' stamps on.
    watch: Arc<OnceLock<Option<Mutex<Watch>>>>,
    surveys: Arc<AtomicU32>,
}

/// A file's metadata now, and the file when it is kept open.
type Checked = (std::fs::Metadata, Option<Arc<std::fs::File>>);

/// A file resolved inside the root (and opened once read): which file it is.
#[derive(Debug, Clone)]
struct Opened {
    /// Open when it was read (a file only stamped is not opened).
    file: Option<Arc<std::fs::File>>,
    dev: u64,
    ino: u64,
}

impl LocalStore {
    /// A store rooted at `dir`, which must exist.
    pub fn open(dir: &Path) -> Result<Self, ReadError> {
        let root = std::fs::canonicalize(dir).map_err(|e| ReadError::io(dir.display(), &e))?;
        if !root.is_dir() {
            return Err(ReadError::Other(format!(
                "{} is not a directory: pass the folder that holds corpus.json",
                dir.display()
            )));
        }
        Ok(LocalStore {
            root,
            opened: Arc::default(),
            watch: Arc::default(),
            surveys: Arc::default(),
        })
    }

    /// The metadata of the file `path` names now, once that file is known
    /// to resolve inside the root, and the file itself when it is kept
    /// open; `Ok(None)` if it does not exist. A path seen before, still
    /// naming the same file, costs one `stat`; one the watch says is
    /// unchanged, and kept open, one `fstat`.
    fn checked(&self, path: &str) -> Result<Option<Checked>, ReadError> {
        let kept = self.opened.lock().ok().and_then(|o| o.get(path).cloned());
        if let Some(o) = &kept {
            if let Some(now) = o.file.as_ref().and_then(|f| self.unchanged(path, f)) {
                return Ok(Some((now, o.file.clone())));
            }
        }
        self.stat_checked(path, kept)
    }

    /// [`LocalStore::checked`] by a `stat` of the path, whatever the
    /// watch knows (it is held while stamps are taken).
    fn stat_checked(&self, path: &str, kept: Option<Opened>) -> Result<Option<Checked>, ReadError> {
        check_relative_path(path)?;
        if let Some(o) = kept {
            let full = self.root.join(path);
            let now = match std::fs::metadata(&full) {
                Ok(meta) => meta,
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(ReadError::io(full.display(), &e)),
            };
            if (o.dev, o.ino) == (now.dev(), now.ino()) {
                return Ok(Some((now, o.file)));
            }
        }
        let Some((_, meta)) = self.resolve(path)? else {
            return Ok(None);
        };
        self.keep(path, &meta, None);
        Ok(Some((meta, None)))
    }

    /// The metadata of `file`, kept open for `path`, when the watch says
    /// `path` still names it: one `fstat`, no walk of the path.
    fn unchanged(&self, path: &str, file: &std::fs::File) -> Option<std::fs::Metadata> {
        let watch = self.watch.get()?.as_ref()?;
        let named = watch.lock().ok()?.unchanged_file(path)?;
        let meta = file.metadata().ok()?;
        ((meta.dev(), meta.ino()) == named).then_some(meta)
    }

    /// The file's stamp from a `stat` now.
    fn stat_stamp(&self, path: &str) -> Option<String> {
        let kept = self.opened.lock().ok().and_then(|o| o.get(path).cloned());
        let (meta, _) = self.stat_checked(path, kept).ok()??;
        stamp_of(&meta)
    }

    /// The watch that keeps this store's stamps, started when first asked
    /// for (by the second survey of the stamps); `None` where there can
    /// be none ([`Watch::new`]).
    fn watch(&self) -> Option<&Mutex<Watch>> {
        self.watch
            .get_or_init(|| Watch::new(&self.root).map(Mutex::new))
            .as_ref()
    }

    /// Whether stamps are kept here, and how many were answered so.
    #[cfg(test)]
    pub(super) fn kept_answers(&self) -> Option<u64> {
        let watch = self.watch.get()?.as_ref()?;
        Some(watch.lock().ok()?.kept_answers())
    }

    fn keep(&self, path: &str, meta: &std::fs::Metadata, file: Option<Arc<std::fs::File>>) {
        if let Ok(mut opened) = self.opened.lock() {
            if opened.len() >= KEPT_OPEN {
                opened.clear();
            }
            let o = Opened {
                file,
                dev: meta.dev(),
                ino: meta.ino(),
            };
            opened.insert(path.to_string(), o);
        }
    }

    /// The open file `path` names now, and its metadata; `Ok(None)` if
    /// it does not exist.
    fn open_file(
        &self,
        path: &str,
    ) -> Result<Option<(Arc<std::fs::File>, std::fs::Metadata)>, ReadError> {
        let Some((meta, kept)) = self.checked(path)? else {
            return Ok(None);
        };
        if let Some(file) = kept {
            return Ok(Some((file, meta)));
        }
        let full = self.root.join(path);
        let file = match std::fs::File::open(&full) {
            Ok(f) => Arc::new(f),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ReadError::io(full.display(), &e)),
        };
        let opened = file
            .metadata()
            .map_err(|e| ReadError::io(full.display(), &e))?;
        if (opened.dev(), opened.ino()) != (meta.dev(), meta.ino()) {
            // The path was replaced between the check and the open.
            return Err(ReadError::Other(format!(
                "{} changed while it was being opened; try again",
                full.display()
            )));
        }
        self.keep(path, &opened, Some(file.clone()));
        Ok(Some((file, opened)))
    }

    /// The archive's directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file for `path` and its metadata, refusing anything that
    /// resolves outside the root (a symlink out included). `Ok(None)` if
    /// it does not exist.
    ///
    /// The root is canonical and `path` has no `.`, `..` or empty
    /// segment, so a path none of whose components under the root is a
    /// symlink is its own real path: that is checked with one `lstat` per
    /// component, the last giving the file's metadata (a search checks
    /// every page of the archive; a full `realpath` would read every
    /// component of the root's own path too). A symlink met on the way is
    /// followed by `canonicalize`, and must land inside the root.
    fn resolve(&self, path: &str) -> Result<Option<(PathBuf, std::fs::Metadata)>, ReadError> {
        check_relative_path(path)?;
        let mut at = self.root.clone();
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.file_type().is_symlink() => return self.follow(path),
                Ok(meta) if parts.peek().is_none() => return Ok(Some((at, meta))),
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(ReadError::io(at.display(), &e)),
            }
        }
        Ok(None)
    }

    /// Archive path `path` through its symlinks, and its metadata;
    /// refused when it lands outside the root.
    fn follow(&self, path: &str) -> Result<Option<(PathBuf, std::fs::Metadata)>, ReadError> {
        let full = self.root.join(path);
        let real = match std::fs::canonicalize(&full) {
            Ok(real) if real.starts_with(&self.root) => real,
            Ok(_) => {
                return Err(ReadError::UnsafePath {
                    path: path.to_string(),
                    reason: "it resolves (through a symlink) outside the archive",
                })
            }
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ReadError::io(full.display(), &e)),
        };
        match std::fs::metadata(&real) {
            Ok(meta) => Ok(Some((real, meta))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ReadError::io(real.display(), &e)),
        }
    }
}

impl Store for LocalStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let Some((file, _)) = self.resolve(path)? else {
            return Ok(None);
        };
        match std::fs::read(&file) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ReadError::io(file.display(), &e)),
        }
    }

    fn read_page(&self, path: &str, _sha256: &str) -> Result<Option<Vec<u8>>, ReadError> {
        self.read(path)
    }

    fn read_page_range(
        &self,
        path: &str,
        _sha256: &str,
        range: std::ops::Range<u64>,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        use std::os::unix::fs::FileExt;
        let Some((f, meta)) = self.open_file(path)? else {
            return Ok(None);
        };
        let shown = self.root.join(path);
        let len = meta.len();
        if range.end > len || range.start > range.end {
            return Err(super::past_end(shown.display(), &range, len));
        }
        // Zeroed by writing, not by asking for zeroed memory: a warm
        // server's allocator hands back a recycled multi-megabyte block
        // zeroed by returning its pages to the kernel and faulting them in
        // again, a tenth of a phrase search; writing zeros into pages
        // already mapped costs a fraction of that.
        let want = (range.end - range.start) as usize;
        #[expect(
            clippy::slow_vector_initialization,
            reason = "vec![0; n] asks the allocator for zeroed memory, the slow path here"
        )]
        let mut buf = Vec::with_capacity(want);
        buf.resize(want, 0);
        f.read_exact_at(&mut buf, range.start)
            .map_err(|e| ReadError::io(shown.display(), &e))?;
        Ok(Some(buf))
    }

    fn local_root(&self) -> Option<&Path> {
        Some(&self.root)
    }

    fn stamps(&self, paths: &[String]) -> Vec<Option<String>> {
        // A process that surveys the archive once (a build, a command)
        // would only pay for watches it never uses.
        let again = self.surveys.fetch_add(1, Ordering::Relaxed) > 0;
        let watch = again.then(|| self.watch()).flatten();
        let watch = watch.and_then(|w| w.lock().ok());
        let Some(mut watch) = watch else {
            return paths.iter().map(|p| self.stat_stamp(p)).collect();
        };
        // Held from the look-ups to the keeping, so no other thread reads
        // (and so consumes) an event about one of `paths` in between.
        watch.drain();
        paths
            .iter()
            .map(|path| {
                if let Some(kept) = watch.kept(path) {
                    return Some(kept);
                }
                let keepable = watch.prepare(path);
                let stamp = self.stat_stamp(path)?;
                if keepable {
                    watch.keep(path, &stamp);
                }
                Some(stamp)
            })
            .collect()
    }

    fn location(&self) -> String {
        self.root.display().to_string()
    }

    fn relative(&self, reference: &str) -> Result<Box<dyn Store>, ReadError> {
        let target = self.root.join(reference);
        Ok(Box::new(LocalStore::open(&target)?))
    }
}

/// Whether a file whose [`LocalStore`] stamp is `stamp` last changed more
/// than `age` ago, so that a later change shows in its stamp. A stamp of
/// another store (no modification time in it) answers `true`: such a
/// store's bytes are checked against their manifest sha256 instead.
pub fn stamp_older_than(stamp: &str, age: std::time::Duration) -> bool {
    let Some(nanos) = stamp
        .split_once(':')
        .and_then(|(_, n)| n.parse::<u128>().ok())
    else {
        return true;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    nanos + age.as_nanos() < now
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_of_the_archive_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        let archive = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), archive.path().join("transcripts")).unwrap();
        let store = LocalStore::open(archive.path()).unwrap();
        let err = store
            .read("transcripts/secret.json")
            .unwrap_err()
            .to_string();
        assert!(err.contains("outside the archive"), "{err}");
        assert!(store.read("missing.json").unwrap().is_none());
    }

    #[test]
    fn a_symlink_that_stays_inside_the_archive_is_followed_at_any_depth() {
        let archive = tempfile::tempdir().unwrap();
        let real = archive.path().join("store/channel");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(real.join("page.json"), "inside").unwrap();
        std::fs::create_dir(archive.path().join("transcripts")).unwrap();
        std::os::unix::fs::symlink(&real, archive.path().join("transcripts/channel")).unwrap();
        let store = LocalStore::open(archive.path()).unwrap();
        let read = store.read("transcripts/channel/page.json").unwrap();
        assert_eq!(read.as_deref(), Some(&b"inside"[..]));
        assert!(store
            .read("transcripts/channel/none.json")
            .unwrap()
            .is_none());
        assert!(store.read("transcripts/none/page.json").unwrap().is_none());
        // A symlink out, deep under the root, is refused all the same.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("page.json"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), archive.path().join("transcripts/out")).unwrap();
        let err = store.read("transcripts/out/page.json").unwrap_err();
        assert!(err.to_string().contains("outside the archive"), "{err}");
    }

    #[test]
    fn a_file_kept_open_is_not_read_once_its_path_names_another() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        std::fs::write(dir.path().join("p.json"), "first bytes").unwrap();
        let read = |s: &LocalStore| s.read_page_range("p.json", "", 0..5).unwrap().unwrap();
        assert_eq!(read(&store), b"first");
        // Replaced by a rename, as an import replaces an archive.
        std::fs::write(dir.path().join("new"), "other bytes").unwrap();
        std::fs::rename(dir.path().join("new"), dir.path().join("p.json")).unwrap();
        assert_eq!(read(&store), b"other");
        // Replaced by a symlink out of the root: refused, not read.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "secret bytes").unwrap();
        std::fs::remove_file(dir.path().join("p.json")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("p.json"))
            .unwrap();
        let refused = store.read_page_range("p.json", "", 0..5).unwrap_err();
        assert!(
            refused.to_string().contains("outside the archive"),
            "{refused}"
        );
    }
}
