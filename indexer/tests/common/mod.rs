//! Helpers shared by the integration tests: a generated archive per test
//! binary, and archive openers with test-sized timeouts.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::source::{HttpOptions, RetryPolicy, SourceHandle};
use archilyzer_dev::generate::{self, GenOptions};

/// The options every generated test archive uses.
pub fn gen_options(out: &Path) -> GenOptions {
    GenOptions {
        out: out.to_path_buf(),
        bytes: 3_000_000,
        seed: 7,
        channels: 5,
    }
}

/// A generated archive (alpha, beta, cited, hub), made once per test binary.
pub fn generated() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("archive");
        generate::generate(&gen_options(&out), &|_| {}).unwrap();
        (tmp, out)
    })
    .1
}

/// Options with no HTTP disk cache (unless `cache` is given), fast retries
/// and a short read timeout.
pub fn options(cache: Option<&Path>) -> OpenOptions {
    OpenOptions {
        page_cache_bytes: 48 << 20,
        http_cache_dir: cache.map(Path::to_path_buf),
        http_cache_bytes: 1 << 30,
        http: HttpOptions {
            connect_timeout: Duration::from_secs(2),
            read_timeout: Duration::from_millis(700),
            retry: RetryPolicy {
                attempts: 3,
                first_backoff: Duration::from_millis(20),
                max_backoff: Duration::from_millis(200),
            },
            ..HttpOptions::default()
        },
        ..OpenOptions::default()
    }
}

pub fn open(handle: &str, cache: Option<&Path>) -> Archive {
    let handle = SourceHandle::parse(handle).unwrap();
    Archive::open(&handle, &options(cache)).unwrap_or_else(|e| panic!("open {handle}: {e}"))
}

pub fn open_local(dir: &Path) -> Archive {
    Archive::open(&SourceHandle::local(dir), &options(None)).unwrap()
}

/// Every file under `dir`, recursively, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Copies the tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in files_under(from) {
        let dest = to.join(f.strip_prefix(from).unwrap());
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&f, &dest).unwrap();
    }
}

/// Every transcript page file of the site at `site`, sorted.
pub fn transcript_pages(site: &Path) -> Vec<PathBuf> {
    files_under(&site.join("transcripts"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("page-")
        })
        .collect()
}

/// A corpus from outside the repository: `NAME` under the `corpora/`
/// folder of `../shared` beside the checkout, or under
/// `$ARCHILYZER_CORPORA_DIR`. When it is missing, the test prints one line
/// saying it skipped and returns `None`, unless
/// `ARCHILYZER_REQUIRE_CORPORA=1` (CI sets it), which fails the test.
pub fn corpus(name: &str, test: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ARCHILYZER_CORPORA_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            // The folder that holds the checkout, then shared/corpora.
            let beside = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2);
            beside.unwrap_or(Path::new("/")).join("shared/corpora")
        });
    let dir = root.join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    let line = format!(
        "SKIPPED {test}: the corpus {name} is not at {}; put the corpora folder of ../shared beside the checkout, or set ARCHILYZER_CORPORA_DIR",
        dir.display()
    );
    assert!(
        std::env::var("ARCHILYZER_REQUIRE_CORPORA").as_deref() != Ok("1"),
        "ARCHILYZER_REQUIRE_CORPORA=1 and {line}"
    );
    // Past the test harness's capture, so a passing run shows the skip.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
    None
}

/// The committed test archive (`testdata/archive`).
pub fn testdata_archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive")
}
