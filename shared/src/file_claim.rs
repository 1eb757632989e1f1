//! Which single files this project may write: a new one, or one it wrote.
//!
//! The files a command writes beside its answer (`trend --svg`, `trend
//! --html`, `search --html`, `bench --json`) are claimed before anything
//! is read, as folders are ([`crate::claim`]): a [`FileClaim`] is granted
//! when the path names no file yet, in a folder that exists, or a file
//! that carries this project's signature ([`FileKind::signature`], in its
//! first bytes). The signature is the only evidence: a file is never
//! recognised by its name or its extension.
//!
//! Promise (invariant: *never destroy what the project did not write*):
//! a refusal happens before the archive is read and before a byte is
//! written, names the file and what to do; [`FileClaim::write`] checks
//! again, writes a temporary file beside the target and renames it in, so
//! an interrupted write leaves the old file whole.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How many leading bytes of a file are searched for the signature.
const SIGNED_WITHIN: usize = 1024;

/// What a file written by this project holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An SVG chart.
    Svg,
    /// A self-contained HTML report.
    Html,
    /// A JSON record of figures.
    Json,
}

impl FileKind {
    /// The signature every file of this kind carries in its first bytes:
    /// a comment in SVG and HTML, a `writtenBy` member in JSON (as the
    /// folders' marker file has).
    pub fn signature(self) -> &'static str {
        match self {
            FileKind::Svg => "<!-- written by archilyzer: chart -->",
            FileKind::Html => "<!-- written by archilyzer: report -->",
            FileKind::Json => "\"writtenBy\":\"archilyzer\"",
        }
    }

    /// `text` with the signature in its first bytes: after a page's
    /// doctype line, first in a chart, as the first member of a JSON
    /// object (`None` for JSON that is not an object).
    fn sign(self, text: &str) -> Option<String> {
        let signature = self.signature();
        Some(match self {
            FileKind::Json => {
                let rest = text.trim_start().strip_prefix('{')?;
                let comma = if rest.trim_start().starts_with('}') {
                    ""
                } else {
                    ","
                };
                format!("{{{signature}{comma}{rest}")
            }
            _ => match text.split_once('\n') {
                Some((doctype, rest)) if doctype.starts_with("<!DOCTYPE") => {
                    format!("{doctype}\n{signature}\n{rest}")
                }
                _ => format!("{signature}\n{text}"),
            },
        })
    }

    /// Whether `bytes` (a file's start) carry the signature.
    fn signed(self, bytes: &[u8]) -> bool {
        let sig = self.signature().as_bytes();
        bytes.windows(sig.len()).any(|w| w == sig)
    }
}

/// Why a file may not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileWhy {
    /// The path names a folder.
    AFolder,
    /// The folder it would go into does not exist.
    NoFolder(PathBuf),
    /// A file this project did not write (no signature).
    Foreign,
}

/// A refusal to write a file; its text says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FileRefusal {
    /// The flag that named the file (`--svg`, `--html`, `--json`).
    pub flag: String,
    /// The file as the user named it.
    pub path: PathBuf,
    /// Why it may not be written.
    pub why: FileWhy,
}

impl fmt::Display for FileRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (flag, path) = (&self.flag, self.path.display());
        write!(f, "refusing to write {flag} {path}: ")?;
        match &self.why {
            FileWhy::AFolder => write!(
                f,
                "it is a folder. Nothing was written; name a file, e.g. {flag} {}",
                self.path.join("report").display()
            ),
            FileWhy::NoFolder(dir) => write!(
                f,
                "the folder {} does not exist. Nothing was written; create it (mkdir -p) or name a file in a folder that exists",
                dir.display()
            ),
            FileWhy::Foreign => write!(
                f,
                "the file exists and archilyzer did not write it. Nothing was written; name a new file, or move that one away first"
            ),
        }
    }
}

/// Permission to write one file of one kind.
#[derive(Debug, Clone)]
pub struct FileClaim {
    flag: String,
    target: PathBuf,
    kind: FileKind,
}

impl FileClaim {
    /// Claims `target` (named by `flag`) for a file of `kind`, or says why
    /// it may not be written.
    pub fn new(target: &Path, kind: FileKind, flag: &str) -> Result<FileClaim, FileRefusal> {
        let claim = FileClaim {
            flag: flag.to_string(),
            target: target.to_path_buf(),
            kind,
        };
        claim.check()?;
        Ok(claim)
    }

    /// The file as the user named it.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The checks of [`FileClaim::new`], run again before writing.
    pub fn check(&self) -> Result<(), FileRefusal> {
        let refuse = |why| {
            Err(FileRefusal {
                flag: self.flag.clone(),
                path: self.target.clone(),
                why,
            })
        };
        let dir = self.folder();
        if !dir.is_dir() {
            return refuse(FileWhy::NoFolder(dir));
        }
        match std::fs::symlink_metadata(&self.target) {
            Err(_) => Ok(()),
            Ok(m) if m.is_dir() => refuse(FileWhy::AFolder),
            Ok(m) if !m.is_file() => refuse(FileWhy::Foreign),
            Ok(_) if self.kind.signed(&head(&self.target)) => Ok(()),
            Ok(_) => refuse(FileWhy::Foreign),
        }
    }

    /// The folder the file goes into.
    fn folder(&self) -> PathBuf {
        match self.target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Writes `text` signed (its kind's signature put in, so a later run may
    /// replace the file) through a temporary file renamed into place.
    pub fn write(&self, text: &str) -> Result<(), String> {
        let signed = self.kind.sign(text).ok_or_else(|| {
            format!(
                "internal: a {:?} for {} must be a JSON object to be signed",
                self.kind,
                self.target.display()
            )
        })?;
        let bytes = signed.as_bytes();
        self.check().map_err(|e| e.to_string())?;
        let cannot = |e: std::io::Error| format!("cannot write {}: {e}", self.target.display());
        let mut tmp = report_file().tempfile_in(self.folder()).map_err(cannot)?;
        tmp.write_all(bytes).map_err(cannot)?;
        tmp.persist(&self.target).map_err(|e| cannot(e.error))?;
        Ok(())
    }
}

/// How a report file is made: read-write for all, less the user's umask
/// (the mode `File::create` gives), not the owner-only mode temporary
/// files get: a report is made to be shared.
fn report_file() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
}

/// The first bytes of `path` (none when it cannot be read).
fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut buf = vec![0; SIGNED_WITHIN];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut buf))
        .unwrap_or(0);
    buf.truncate(n);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_only_when_new_or_signed_by_us() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("chart.svg");
        let claim = FileClaim::new(&chart, FileKind::Svg, "--svg").unwrap();
        claim.write("<svg/>").unwrap();
        assert!(std::fs::read_to_string(&chart)
            .unwrap()
            .starts_with(FileKind::Svg.signature()));
        FileClaim::new(&chart, FileKind::Svg, "--svg").expect("our own file may be rewritten");

        let notes = dir.path().join("notes.svg");
        std::fs::write(&notes, "<svg>my drawing</svg>").unwrap();
        let e = FileClaim::new(&notes, FileKind::Svg, "--svg").unwrap_err();
        assert_eq!(e.why, FileWhy::Foreign);
        assert!(e.to_string().starts_with(&format!(
            "refusing to write --svg {}: the file exists and archilyzer did not write it. Nothing was written",
            notes.display()
        )));
        assert_eq!(
            std::fs::read_to_string(&notes).unwrap(),
            "<svg>my drawing</svg>"
        );

        let e = FileClaim::new(dir.path(), FileKind::Html, "--html").unwrap_err();
        assert_eq!(e.why, FileWhy::AFolder);
        let missing = dir.path().join("no/such/report.html");
        let e = FileClaim::new(&missing, FileKind::Html, "--html").unwrap_err();
        assert_eq!(e.why, FileWhy::NoFolder(dir.path().join("no/such")));
        let figures = dir.path().join("figures.json");
        let json = FileClaim::new(&figures, FileKind::Json, "--json").unwrap();
        json.write("{\"rows\":[1]}").unwrap();
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&figures).unwrap()).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"writtenBy": "archilyzer", "rows": [1]})
        );
        json.write("{}").unwrap();
        FileClaim::new(&figures, FileKind::Json, "--json").expect("signed, so ours");
        assert!(json.write("[1]").is_err(), "only an object can be signed");

        let e = FileClaim::new(&chart, FileKind::Html, "--html").unwrap_err();
        assert_eq!(
            e.why,
            FileWhy::Foreign,
            "an SVG we wrote is not an HTML report"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_report_file_takes_the_mode_a_plain_file_would() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let report = dir.path().join("report.html");
        FileClaim::new(&report, FileKind::Html, "--html")
            .unwrap()
            .write("<html></html>")
            .unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&report), mode(&plain), "the umask's mode, not 0600");
    }
}
