//! The import ledger: what each video of an archive was imported from, so
//! a re-import reads only the files that are new or changed.
//!
//! `import` writes [`FILE`] into the archive it makes: for every video,
//! the files it was read from (path under `--from`, size, modification
//! time, xxh3 of the bytes), where it was written (channel and slug), the
//! fields that order and group it, and the report lines its import gave
//! (caption choices, skipped cues, failures), which a re-import says again.
//!
//! Promise: a re-import takes a video from the archive it replaces, without
//! reading its files, only when every file it was read from is still there
//! with the same size and either the same modification time or, when in
//! doubt, the same bytes; when the files beside it are the same list; and
//! when the ledger was written by this very program (the xxh3 of its
//! executable) with the same caption flags, from the same `--from` folder,
//! for the archive that is there now (the sha256 of each channel's
//! manifest). "In doubt" is a different modification time or one within
//! [`RACY_NS`] of the ledger's writing (a file changed in the same clock
//! tick as its import looks unchanged by time alone, as git's index knows).
//! Anything else, and any ledger that cannot be read, means the file is
//! read again: the ledger saves time, never decides what the archive holds.
//! A file's stamp is taken before it is read, so a file changed while it
//! is imported differs from its stamp next time (only a file changed and
//! changed back, to the same bytes, within one import could deceive it).
//!
//! The ledger names files by their path relative to `--from` and the
//! folder itself only by a hash, so a published archive does not show
//! where it was imported on the importing machine.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// The ledger's file name, at the archive's root.
pub const FILE: &str = archilyzer_core::format::paths::IMPORT_LEDGER;

/// How close to the ledger's writing a modification time must be for the
/// file to be hashed even when the time is the one recorded (2 s: coarser
/// than any file system's clock tick).
pub const RACY_NS: u64 = 2_000_000_000;

/// What a whole import recorded.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// The conditions under which its entries hold.
    pub made: Made,
    /// The sha256 of each channel's transcript manifest, as written.
    pub manifests: BTreeMap<String, String>,
    /// Each transcript page's size and modification time (ns), as
    /// written, by its path in the archive.
    #[serde(default)]
    pub pages: BTreeMap<String, (u64, u64)>,
    /// Every video, by the path (under `--from`) of the file it is planned
    /// from: its info JSON, bare caption file or transcript result.
    pub videos: BTreeMap<String, Entry>,
}

/// The conditions under which a ledger's entries hold.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Made {
    /// xxh3 of the executable that wrote it.
    pub program: String,
    /// The flags that shape a video's record (`--lang`,
    /// `--caption-source`, `--keep-translations`), as one string.
    pub flags: String,
    /// xxh3 of the canonical `--from` path.
    pub from: String,
    /// When it was written, in ns since the Unix epoch.
    pub written_ns: u64,
}

/// One video's line of the ledger.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Every file the video was read from, in the order the planner
    /// lists them (the primary file first).
    pub files: Vec<FileStamp>,
    /// What orders and groups it before it is written.
    pub order: Order,
    /// Where it was written: `(channel, slug)`.
    pub wrote: (String, String),
    /// The report lines its import gave.
    pub notes: VideoNotes,
}

/// A file as it was imported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileStamp {
    /// Relative to `--from`.
    pub path: String,
    pub size: u64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: u64,
    /// xxh3 of the bytes, 16 hex digits.
    pub xxh3: String,
}

/// What the planner orders, names and groups a video by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub channel: Option<super::ChannelOf>,
    pub seq: Option<u64>,
    /// Its slug before the channel's slugs are made unique ("" for a bare
    /// file named in free text).
    pub slug: String,
    pub title: String,
    pub upload_date: Option<String>,
}

/// The lines of the import report one video gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VideoNotes {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_cues: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata_only: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub translations_only: Vec<String>,
}

/// A file's size and modification time, read without opening it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: u64,
}

impl Stat {
    /// `None` when the file cannot be looked at or is not a regular file
    /// (a FIFO or a device is never stamped: reading it to hash it could
    /// block or consume it).
    pub fn of(path: &Path) -> Option<Stat> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        Some(Stat {
            size: meta.len(),
            mtime_ns: u64::try_from(mtime.as_nanos()).ok()?,
        })
    }
}

/// xxh3 of a file's bytes, 16 hex digits; `None` when it cannot be read.
pub fn hash_file(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
    }
    Some(format!("{:016x}", hasher.digest()))
}

/// The stamp of the file at `path` (named `rel` in the ledger), hashing
/// its bytes; `None` when it cannot be read or named, or is not a
/// regular file.
pub fn stamp(path: &Path, rel: &Path) -> Option<FileStamp> {
    let stat = Stat::of(path)?;
    Some(FileStamp {
        path: rel.to_str()?.to_string(),
        size: stat.size,
        mtime_ns: stat.mtime_ns,
        xxh3: hash_file(path)?,
    })
}

impl Made {
    /// The conditions of an import now: this program, these flags, this
    /// `--from`.
    pub fn now(flags: String, from: &Path) -> Made {
        let program = std::env::current_exe()
            .ok()
            .and_then(|exe| hash_file(&exe))
            .unwrap_or_default();
        let from = std::fs::canonicalize(from).unwrap_or_else(|_| from.to_path_buf());
        Made {
            program,
            flags,
            from: format!(
                "{:016x}",
                xxhash_rust::xxh3::xxh3_64(from.to_string_lossy().as_bytes())
            ),
            written_ns: now_ns(),
        }
    }

    /// Whether a ledger made under `self` holds for an import under `now`.
    fn matches(&self, now: &Made) -> bool {
        !self.program.is_empty()
            && self.program == now.program
            && self.flags == now.flags
            && self.from == now.from
    }
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The ledger of the archive at `out`, when it holds for an import under
/// `now` (see the module's promise); otherwise an empty one, and why.
pub fn previous(out: &Path, now: &Made) -> (Ledger, Option<&'static str>) {
    let Ok(bytes) = std::fs::read(out.join(FILE)) else {
        return (Ledger::default(), None);
    };
    let Ok(ledger) = serde_json::from_slice::<Ledger>(&bytes) else {
        return (Ledger::default(), Some("it cannot be read"));
    };
    if !ledger.made.matches(now) {
        return (
            Ledger::default(),
            Some("another program, other caption flags or another --from folder wrote it"),
        );
    }
    for (channel, sha) in &ledger.manifests {
        let path = out.join(archilyzer_core::format::paths::manifest(
            archilyzer_core::format::paths::Layer::Transcripts,
            channel,
        ));
        let now = std::fs::read(&path).map(|b| archilyzer_core::source::sha256_hex(&b));
        if now.as_deref().ok() != Some(sha.as_str()) {
            return (
                Ledger::default(),
                Some("the archive was changed since (a manifest differs)"),
            );
        }
    }
    (ledger, None)
}

impl Ledger {
    /// The entry of the video planned from `primary` (relative to
    /// `--from`) when its files are unchanged: `files` lists each file
    /// the planner would read for it now, absolute, with its path under
    /// `--from`. The stamps returned are the entry's, with the times
    /// brought up to date where the bytes proved the same.
    pub fn unchanged(&self, primary: &str, files: &[(&Path, &Path)]) -> Option<Entry> {
        let entry = self.videos.get(primary)?;
        if entry.files.len() != files.len() {
            return None;
        }
        let mut out = entry.clone();
        for (stamp, (abs, rel)) in out.files.iter_mut().zip(files) {
            if rel.to_str() != Some(stamp.path.as_str()) {
                return None;
            }
            let now = Stat::of(abs)?;
            if now.size != stamp.size {
                return None;
            }
            let racy = now.mtime_ns.saturating_add(RACY_NS) >= self.made.written_ns;
            if now.mtime_ns != stamp.mtime_ns || racy {
                if hash_file(abs)? != stamp.xxh3 {
                    return None;
                }
                stamp.mtime_ns = now.mtime_ns;
            }
        }
        Some(out)
    }

    /// Writes the ledger as `root/FILE`.
    pub fn write(&self, root: &Path) -> anyhow::Result<()> {
        crate::compose::write_json(root, FILE, self)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger_with(dir: &Path, name: &str, written_ns: u64) -> Ledger {
        let path = dir.join(name);
        let mut videos = BTreeMap::new();
        videos.insert(
            name.to_string(),
            Entry {
                files: vec![stamp(&path, Path::new(name)).unwrap()],
                order: Order {
                    channel: None,
                    seq: None,
                    slug: "v".into(),
                    title: "t".into(),
                    upload_date: None,
                },
                wrote: ("c".into(), "v".into()),
                notes: VideoNotes::default(),
            },
        );
        Ledger {
            made: Made {
                written_ns,
                ..Made::default()
            },
            manifests: BTreeMap::new(),
            pages: BTreeMap::new(),
            videos,
        }
    }

    #[test]
    fn a_file_changed_within_the_same_tick_is_hashed_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.vtt");
        std::fs::write(&path, "WEBVTT\n\nfirst").unwrap();
        let ledger = ledger_with(dir.path(), "a.vtt", now_ns());
        // Same size, same (coarse) time: only the bytes can tell.
        let time = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "WEBVTT\n\nfirsT").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(time)
            .unwrap();
        let files = [(path.as_path(), Path::new("a.vtt"))];
        assert!(ledger.unchanged("a.vtt", &files).is_none());
    }

    #[test]
    fn a_file_with_a_new_time_and_the_same_bytes_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.vtt");
        std::fs::write(&path, "WEBVTT\n\nsame").unwrap();
        let ledger = ledger_with(dir.path(), "a.vtt", now_ns() + 10 * RACY_NS);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let files = [(path.as_path(), Path::new("a.vtt"))];
        let kept = ledger.unchanged("a.vtt", &files).expect("same bytes");
        assert_eq!(kept.files[0].mtime_ns, Stat::of(&path).unwrap().mtime_ns);
        std::fs::write(&path, "WEBVTT\n\ndiff").unwrap();
        assert!(ledger.unchanged("a.vtt", &files).is_none());
    }

    #[test]
    fn a_ledger_of_another_program_or_folder_is_not_trusted() {
        let a = Made {
            program: "1".into(),
            flags: "en".into(),
            from: "f".into(),
            written_ns: 0,
        };
        assert!(a.matches(&a.clone()));
        for other in [
            Made {
                program: "2".into(),
                ..a.clone()
            },
            Made {
                flags: "de".into(),
                ..a.clone()
            },
            Made {
                from: "g".into(),
                ..a.clone()
            },
            Made {
                program: String::new(),
                ..a.clone()
            },
        ] {
            assert!(!other.matches(&a), "{other:?}");
        }
    }
}
