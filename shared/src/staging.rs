//! Writing a directory atomically: build it in a staging directory beside
//! the target (same file system), then rename it into place.
//!
//! Promises: a reader of the target sees the old directory or the new one,
//! never a mix. Only a claimed target is replaced ([`Claim`]): the claim is
//! checked again just before the rename, and the staged directory carries
//! the claim's marker, so the next run recognises it as ours. A staging
//! directory dropped before [`Staging::commit`] is removed; one left by a
//! killed process is named `.<target>.partial-*` and is harmless. The old
//! target is moved into a fresh directory of our own before it is
//! removed, so no other path beside the target is ever touched.

use std::io;
use std::path::{Path, PathBuf};

use crate::output::Claim;

fn context(e: io::Error, what: String) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// A directory being written, renamed over the claimed target on
/// [`Staging::commit`] and removed if dropped before that.
pub struct Staging {
    dir: Option<tempfile::TempDir>,
    claim: Claim,
}

impl Staging {
    /// A fresh directory beside the claimed target (same file system, so
    /// the final rename is atomic).
    pub fn beside(claim: Claim) -> io::Result<Self> {
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
            .map_err(|e| context(e, format!("cannot write in {}", dir.path().display())))?;
        Ok(Staging {
            dir: Some(dir),
            claim,
        })
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
        if let Some(holder) = aside {
            let path = holder.path().to_path_buf();
            holder
                .close()
                .map_err(|e| context(e, format!("cannot remove {}", path.display())))?;
        }
        Ok(())
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
