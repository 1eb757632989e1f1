//! Writing a directory atomically: build it in a staging directory beside
//! the target (same file system), then rename it into place.
//!
//! Promises: a reader of the target sees the old directory or the new one,
//! never a mix. Only a claimed target is replaced ([`Claim`]): the claim is
//! checked again just before the rename, and the staged directory carries
//! the claim's marker, so the next run recognises it as ours. A staging
//! directory dropped before [`Staging::commit`] is removed, and so is
//! every live one when the binary is interrupted ([`abandon_all`]). One
//! left by a killed process (`.<target>.partial-*`) holds the marker and
//! the id of the process that made it ([`PID_FILE`]); the next run into
//! the same target removes it once that process is gone, and says so
//! ([`Staging::remove_stale`]). The old
//! target is moved into a fresh directory of our own before it is
//! removed, so no other path beside the target is ever touched.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::claim::{Claim, MARKER};

/// The file in a staging directory naming the process writing it; removed
/// before the directory becomes the target.
pub const PID_FILE: &str = ".archilyzer-staging-pid";

/// A staging directory left without a pid file (by an older release) is
/// stale once untouched this long.
const UNCLAIMED_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// The staging directories being written by this process, and their
/// targets: what [`abandon_all`] removes.
static LIVE: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

/// The targets this process has replaced in full (committed), for the
/// interrupt's account of what was kept.
static WRITTEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Work this process finished and keeps on disk outside any staging
/// directory (an embedding run's chunks), by folder, with the line the
/// interrupt says of it.
static KEPT_WORK: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

/// Says `line` about the finished work in `dir` if this process is
/// interrupted (replacing what was said of `dir` before).
pub fn keep_on_interrupt(dir: &std::path::Path, line: String) {
    let mut kept = KEPT_WORK.lock().unwrap_or_else(|e| e.into_inner());
    kept.retain(|(d, _)| d != dir);
    kept.push((dir.to_path_buf(), line));
}

/// Forgets what [`keep_on_interrupt`] said of `dir` (the work was used).
pub fn forget_kept(dir: &std::path::Path) {
    KEPT_WORK
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(d, _)| d != dir);
}

fn live() -> std::sync::MutexGuard<'static, Vec<(PathBuf, PathBuf)>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every staging directory this process is writing (for an
/// interrupt: Ctrl-C), and says exactly what is on disk: one line per
/// target written in full before the interrupt (kept), one per target
/// being written (as it was). No line when nothing was written.
pub fn abandon_all() -> Vec<String> {
    let written = WRITTEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let kept = written.into_iter().map(|target| {
        format!(
            "interrupted: {} was written in full before the interrupt and is kept",
            target.display()
        )
    });
    let abandoned: Vec<String> = live()
        .drain(..)
        .map(|(dir, target)| {
            let _ = std::fs::remove_dir_all(&dir);
            format!(
                "interrupted: {} is as it was (nothing replaced); the unfinished copy was removed",
                target.display()
            )
        })
        .collect();
    let work: Vec<String> = KEPT_WORK
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(_, line)| format!("interrupted: {line}"))
        .collect();
    kept.chain(work).chain(abandoned).collect()
}

/// A staging directory of an earlier run that was removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Stale {
    /// Where it was.
    pub path: PathBuf,
    /// How many bytes it held.
    pub bytes: u64,
}

fn context(e: io::Error, what: String) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// A directory being written, renamed over the claimed target on
/// [`Staging::commit`] and removed if dropped before that.
pub struct Staging {
    dir: Option<tempfile::TempDir>,
    claim: Claim,
    stale: Vec<Stale>,
}

impl Staging {
    /// A fresh directory beside the claimed target (same file system, so
    /// the final rename is atomic).
    pub fn beside(claim: Claim) -> io::Result<Self> {
        let stale = Staging::remove_stale(&claim);
        let parent = parent_of(claim.resolved());
        std::fs::create_dir_all(&parent)
            .map_err(|e| context(e, format!("cannot create {}", parent.display())))?;
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{}.partial-", name_of(claim.resolved())))
            .tempdir_in(&parent)
            .map_err(|e| {
                context(
                    e,
                    format!("cannot create a staging directory in {}", parent.display()),
                )
            })?;
        claim
            .mark(dir.path())
            .and_then(|()| {
                std::fs::write(dir.path().join(PID_FILE), std::process::id().to_string())
            })
            .map_err(|e| context(e, format!("cannot write in {}", dir.path().display())))?;
        live().push((dir.path().to_path_buf(), claim.target().to_path_buf()));
        Ok(Staging {
            dir: Some(dir),
            claim,
            stale,
        })
    }

    /// What the run before left and this one removed, one line each.
    pub fn removed_stale(&self) -> Vec<String> {
        self.stale
            .iter()
            .map(|s| {
                format!(
                    "removed {} ({:.1} MB), the unfinished copy of an interrupted run",
                    s.path.display(),
                    s.bytes as f64 / 1e6
                )
            })
            .collect()
    }

    /// Removes the staging directories of earlier runs into the target of
    /// `claim` that carry our marker and whose process is gone.
    pub fn remove_stale(claim: &Claim) -> Vec<Stale> {
        let parent = parent_of(claim.resolved());
        let prefix = format!(".{}.partial-", name_of(claim.resolved()));
        let mut removed = Vec::new();
        for e in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
            let path = e.path();
            let ours =
                e.file_name().to_string_lossy().starts_with(&prefix) && path.join(MARKER).is_file();
            if ours && is_abandoned(&path) {
                let bytes = size_of(&path);
                if std::fs::remove_dir_all(&path).is_ok() {
                    removed.push(Stale { path, bytes });
                }
            }
        }
        removed
    }

    /// The staging directory to write into.
    pub fn path(&self) -> &Path {
        self.dir
            .as_ref()
            .expect("staging is live until commit")
            .path()
    }

    /// Copies into the staged directory the curated files of the target
    /// being replaced (see [`Claim::keep_curated`]); the names kept.
    pub fn keep_curated(&self) -> io::Result<Vec<String>> {
        self.claim.keep_curated(self.path())
    }

    /// Replaces the target with the staged directory, after checking the
    /// claim once more. An existing target is moved into a fresh directory
    /// beside it and removed after the rename.
    pub fn commit(mut self) -> io::Result<()> {
        self.claim
            .check()
            .map_err(|r| io::Error::new(io::ErrorKind::AlreadyExists, r.to_string()))?;
        std::fs::remove_file(self.path().join(PID_FILE))?;
        forget(self.path());
        let target = self.claim.resolved().to_path_buf();
        let staged = self.dir.take().expect("commit runs once");
        let aside = if target.exists() {
            let holder = tempfile::Builder::new()
                .prefix(&format!(".{}.old-", name_of(&target)))
                .tempdir_in(parent_of(&target))
                .map_err(|e| {
                    context(e, format!("cannot move the old {} aside", target.display()))
                })?;
            let old = holder.path().join("old");
            std::fs::rename(&target, &old).map_err(|e| {
                context(e, format!("cannot move the old {} aside", target.display()))
            })?;
            Some(holder)
        } else {
            None
        };
        let dir = staged.keep();
        if let Err(e) = std::fs::rename(&dir, &target) {
            let e = context(
                e,
                format!("cannot rename {} to {}", dir.display(), target.display()),
            );
            return Err(match aside {
                Some(holder) => put_back(holder, &target, e),
                None => e,
            });
        }
        WRITTEN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(target.clone());
        if let Some(holder) = aside {
            let path = holder.path().to_path_buf();
            holder
                .close()
                .map_err(|e| context(e, format!("cannot remove {}", path.display())))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            forget(dir.path());
        }
    }
}

/// Takes `dir` off the list of live staging directories.
fn forget(dir: &Path) {
    live().retain(|(d, _)| d != dir);
}

/// Whether the staging directory at `dir` belongs to no running process:
/// its pid file names a process that is gone, or, with no pid file (an
/// older release wrote it), it has not been touched for an hour.
fn is_abandoned(dir: &Path) -> bool {
    match std::fs::read_to_string(dir.join(PID_FILE)) {
        Ok(pid) => pid
            .trim()
            .parse::<u32>()
            .is_ok_and(|pid| pid != std::process::id() && !process_alive(pid)),
        Err(_) => std::fs::metadata(dir)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > UNCLAIMED_AFTER),
    }
}

/// Whether process `pid` runs, where the system can say (`/proc`); where
/// it cannot, every process counts as running, so nothing is removed.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// Bytes under `path`.
fn size_of(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| size_of(&e.path()))
            .sum(),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Moves the old target back after a failed rename; if even that fails,
/// keeps it where it is and says where.
fn put_back(holder: tempfile::TempDir, target: &Path, e: io::Error) -> io::Error {
    match std::fs::rename(holder.path().join("old"), target) {
        Ok(()) => e,
        Err(_) => {
            let kept = holder.keep().join("old");
            context(
                e,
                format!(
                    "the previous {} is kept at {}",
                    target.display(),
                    kept.display()
                ),
            )
        }
    }
}

fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn name_of(target: &Path) -> String {
    target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
