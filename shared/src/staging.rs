//! Writing a directory atomically: build it in a staging directory beside
//! the target (same file system), then rename it into place.
//!
//! Promise: a reader of the target sees the old directory or the new one,
//! never a mix. A staging directory dropped before [`Staging::commit`] is
//! removed; one left by a killed process is named `.<target>.partial-*`
//! and is harmless.

use std::io;
use std::path::{Path, PathBuf};

fn context(e: io::Error, what: String) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// A directory being written, renamed over the target on [`Staging::commit`]
/// and removed if dropped before that.
pub struct Staging {
    dir: Option<tempfile::TempDir>,
    target: PathBuf,
}

impl Staging {
    /// A fresh directory beside `target` (same file system, so the final
    /// rename is atomic).
    pub fn beside(target: &Path) -> io::Result<Self> {
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)
            .map_err(|e| context(e, format!("cannot create {}", parent.display())))?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{name}.partial-"))
            .tempdir_in(&parent)
            .map_err(|e| {
                context(
                    e,
                    format!("cannot create a staging directory in {}", parent.display()),
                )
            })?;
        Ok(Staging {
            dir: Some(dir),
            target: target.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        self.dir
            .as_ref()
            .expect("staging is live until commit")
            .path()
    }

    /// Replaces `target` with the staged directory. An existing target is
    /// moved aside first and removed after the rename.
    pub fn commit(mut self) -> io::Result<()> {
        let dir = self.dir.take().expect("commit runs once").keep();
        let old = self.target.with_extension("old-archilyzer");
        let had_old = self.target.exists();
        if had_old {
            let _ = std::fs::remove_dir_all(&old);
            std::fs::rename(&self.target, &old).map_err(|e| {
                context(
                    e,
                    format!("cannot move the old {} aside", self.target.display()),
                )
            })?;
        }
        std::fs::rename(&dir, &self.target).map_err(|e| {
            context(
                e,
                format!(
                    "cannot rename {} to {}",
                    dir.display(),
                    self.target.display()
                ),
            )
        })?;
        if had_old {
            std::fs::remove_dir_all(&old)
                .map_err(|e| context(e, format!("cannot remove {}", old.display())))?;
        }
        Ok(())
    }
}
