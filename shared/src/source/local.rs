//! A composed public dir on the local disk.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{check_relative_path, ReadError, Store};

/// Reads files under one directory, never outside it.
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
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
        Ok(LocalStore { root })
    }

    /// The archive's directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file for `path`, refusing anything that resolves outside the
    /// root (a symlink out included). `Ok(None)` if it does not exist.
    fn resolve(&self, path: &str) -> Result<Option<PathBuf>, ReadError> {
        check_relative_path(path)?;
        let full = self.root.join(path);
        match std::fs::canonicalize(&full) {
            Ok(real) if real.starts_with(&self.root) => Ok(Some(real)),
            Ok(_) => Err(ReadError::UnsafePath {
                path: path.to_string(),
                reason: "it resolves (through a symlink) outside the archive",
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ReadError::io(full.display(), &e)),
        }
    }
}

impl Store for LocalStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let Some(file) = self.resolve(path)? else {
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
        let Some(file) = self.resolve(path)? else {
            return Ok(None);
        };
        let io = |e: std::io::Error| ReadError::io(file.display(), &e);
        let f = match std::fs::File::open(&file) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        let len = f.metadata().map_err(io)?.len();
        if range.end > len || range.start > range.end {
            return Err(super::past_end(file.display(), &range, len));
        }
        let mut buf = vec![0; (range.end - range.start) as usize];
        f.read_exact_at(&mut buf, range.start).map_err(io)?;
        Ok(Some(buf))
    }

    fn local_root(&self) -> Option<&Path> {
        Some(&self.root)
    }

    fn stamp(&self, path: &str) -> Option<String> {
        let meta = std::fs::metadata(self.resolve(path).ok()??).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(format!("{}:{}", meta.len(), mtime.as_nanos()))
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
}
