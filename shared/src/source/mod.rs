//! Where archive bytes come from: a [`Store`] turns a relative path inside
//! an archive into bytes, from a local directory or a remote site.
//!
//! Promises: a store never reads outside its archive (a path with `..`, an
//! absolute path, or a symlink leading out is refused); a missing file is
//! `Ok(None)`, never an error, because most files are optional; every error
//! names the file and says what to do.

mod disk_cache;
#[cfg(feature = "cli")]
mod flags;
mod handle;
#[cfg(feature = "remote")]
mod http;
mod http_options;
mod local;
#[cfg(target_os = "linux")]
mod watch;
/// Elsewhere no stamp is kept: every one is a `stat`.
#[cfg(not(target_os = "linux"))]
mod watch {
    #[derive(Debug)]
    pub(super) struct Watch;
    impl Watch {
        pub(super) fn new(_root: &std::path::Path) -> Option<Watch> {
            None
        }
        pub(super) fn drain(&mut self) {}
        pub(super) fn kept(&mut self, _path: &str) -> Option<String> {
            None
        }
        pub(super) fn prepare(&mut self, _path: &str) -> bool {
            false
        }
        pub(super) fn keep(&mut self, _path: &str, _stamp: &str) {}
        pub(super) fn unchanged_file(&mut self, _path: &str) -> Option<(u64, u64)> {
            None
        }
    }
}

pub use disk_cache::DiskCache;
#[cfg(feature = "cli")]
pub use flags::SourceFlags;
pub use handle::{HandleError, SourceHandle, DEFAULT_LOCAL_DIR};
#[cfg(feature = "remote")]
pub use http::HttpStore;
pub use http_options::{HttpOptions, RetryPolicy};
pub use local::{stamp_older_than, LocalStore};

use crate::format::FormatError;

/// Raw access to the files of one archive (a site or a hub's own
/// `corpus.json`).
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Reads `path` (relative, `/`-separated). `Ok(None)` when the archive
    /// has no such file.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ReadError>;

    /// Reads a page whose manifest gives its sha256. A remote store checks
    /// the bytes against it (and may answer from its disk cache without a
    /// request); a local store returns the file as it is, since the file on
    /// disk is the truth the search confirms against.
    fn read_page(&self, path: &str, sha256: &str) -> Result<Option<Vec<u8>>, ReadError>;

    /// Reads the bytes `range` of a page whose manifest gives its sha256.
    /// Those bytes cannot be checked against the sha256, which covers the
    /// whole file; the caller checks them (see `format::spans`). A range
    /// past the end of the file is an error. The default reads the page
    /// and cuts the range out; stores that can read less do.
    fn read_page_range(
        &self,
        path: &str,
        sha256: &str,
        range: std::ops::Range<u64>,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        match self.read_page(path, sha256)? {
            Some(page) => cut_range(&page, range, path).map(Some),
            None => Ok(None),
        }
    }

    /// For each of `paths`, a cheap stamp of the file's current state
    /// without reading it (size and modification time for a local file),
    /// or `None` where the store has none (remote pages are checked by
    /// their sha256 instead). Asked for every page of the archive at once,
    /// so a store can take what they share once.
    fn stamps(&self, paths: &[String]) -> Vec<Option<String>> {
        vec![None; paths.len()]
    }

    /// The store's location, for messages: a directory or a URL.
    fn location(&self) -> String;

    /// The directory a local store reads, `None` for a remote one.
    fn local_root(&self) -> Option<&std::path::Path> {
        None
    }

    /// A store for a location given relative to this one (hub members).
    fn relative(&self, reference: &str) -> Result<Box<dyn Store>, ReadError>;
}

/// The store of a site at `url`, read over HTTP(S) with `options`, its
/// files cached in `disk` when given. A build without the `remote`
/// feature (the fuzzer's) refuses, naming the URL.
pub fn remote_store(
    url: &str,
    options: &HttpOptions,
    disk: Option<std::sync::Arc<DiskCache>>,
) -> Result<Box<dyn Store>, ReadError> {
    #[cfg(feature = "remote")]
    return Ok(Box::new(HttpStore::new(url, options.clone(), disk)?));
    #[cfg(not(feature = "remote"))]
    {
        let _ = (options, disk);
        Err(ReadError::Other(format!(
            "{url}: this build reads archives on disk only (it was built without the `remote` feature); \
             use a build with remote sources, or a copy of the archive on disk"
        )))
    }
}

/// Why a file could not be read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReadError {
    /// A local file that could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        reason: String,
    },
    /// A remote file answered with an error status, retries spent.
    #[error("{url}: HTTP {status} after {attempts} attempt(s); check that the site is up and the URL is right")]
    Http {
        /// The URL asked.
        url: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
    },
    /// A remote file that could not be fetched (connection, timeout, a
    /// body cut short), retries spent.
    #[error("{url}: {reason} after {attempts} attempt(s); {}", failure.advice())]
    Network {
        /// The URL asked.
        url: String,
        /// The last failure.
        reason: String,
        /// Its kind, which says what to do.
        failure: crate::net::Failure,
        /// Attempts made.
        attempts: u32,
    },
    /// A host that answered with an HTML page (an error page, or a
    /// site's fallback page) where an archive file was expected.
    #[error("{url}: the host answered HTTP {status} with an HTML page{title} where an archive file was expected; check that the URL is the archive's root (the folder holding corpus.json) and that the file is published")]
    HtmlPage {
        /// The URL asked.
        url: String,
        /// The status of the answer.
        status: u16,
        /// ` ("…")` with the page's title, or nothing.
        title: String,
    },
    /// A remote page whose bytes are not those its manifest names.
    #[error(
        "{path}: sha256 {found} does not match the manifest's {expected}; the file is corrupt \
         or the archive was re-exported while being read: refresh and try again"
    )]
    Integrity {
        /// The page.
        path: String,
        /// The manifest's sha256.
        expected: String,
        /// The sha256 of the bytes received.
        found: String,
    },
    /// A path that would leave the archive.
    #[error("refused path {path:?}: {reason}")]
    UnsafePath {
        /// The path as the archive gave it.
        path: String,
        /// How it would leave.
        reason: &'static str,
    },
    /// A file that was read but is not valid archive JSON.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Anything else, as a message.
    #[error("{0}")]
    Other(String),
}

impl ReadError {
    /// An I/O error reading `path`.
    pub fn io(path: impl std::fmt::Display, e: &std::io::Error) -> Self {
        ReadError::Io {
            path: path.to_string(),
            reason: e.to_string(),
        }
    }
}

/// The bytes `range` of a whole file `bytes`, or an error naming the file
/// when the range runs past its end.
pub fn cut_range(
    bytes: &[u8],
    range: std::ops::Range<u64>,
    path: &str,
) -> Result<Vec<u8>, ReadError> {
    usize::try_from(range.start)
        .ok()
        .zip(usize::try_from(range.end).ok())
        .and_then(|(a, b)| bytes.get(a..b))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| past_end(path, &range, bytes.len() as u64))
}

/// A range asked of a file that does not reach it.
fn past_end(path: impl std::fmt::Display, range: &std::ops::Range<u64>, len: u64) -> ReadError {
    ReadError::Other(format!(
        "{path}: bytes {}..{} asked, but the file has {len}; the index that named them is out of date (rebuild it)",
        range.start, range.end
    ))
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Checks that `path` stays inside an archive: relative, `/`-separated,
/// no empty, `.` or `..` segment, no backslash or NUL.
pub fn check_relative_path(path: &str) -> Result<(), ReadError> {
    let refuse = |reason| {
        Err(ReadError::UnsafePath {
            path: path.to_string(),
            reason,
        })
    };
    if path.is_empty() || path.starts_with('/') {
        return refuse("an archive path must be relative");
    }
    if path.contains('\\') || path.contains('\0') || path.contains(':') {
        return refuse("an archive path may not hold `\\`, `:` or NUL");
    }
    if path
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return refuse("an archive path may not hold empty, `.` or `..` segments");
    }
    Ok(())
}

/// A file's stamp: its size and modification time, as `len:nanos`.
pub(super) fn stamp_of(meta: &std::fs::Metadata) -> Option<String> {
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!("{}:{}", meta.len(), mtime.as_nanos()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_escape_the_archive_are_refused() {
        for bad in [
            "../x",
            "a/../../b",
            "/etc/passwd",
            "a//b",
            "a\\b",
            "c:/x",
            "",
        ] {
            let err = check_relative_path(bad).unwrap_err().to_string();
            assert!(err.starts_with("refused path"), "{bad}: {err}");
        }
        check_relative_path("transcripts/a-b_c/page-0001.json").unwrap();
    }
}
