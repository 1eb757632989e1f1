//! Finding `yt-dlp` and `whisper-ctranslate2`.
//!
//! A server's `PATH` is often only `/usr/local/bin:/usr/bin`, so a binary
//! the owner's shell runs fine would look missing. The search order is:
//! this program's own directory, `PATH`, `~/.local/bin`, then each
//! `~/.local/pipx/venvs/*/bin`. A setting (`yt_dlp_path`, `whisper_path`:
//! environment variables, lower case, as the host hands settings over)
//! overrides the search, and a setting that points at nothing is an
//! error, never a quiet fall-back to another copy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A binary `transcript` runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Binary {
    /// Its name on PATH.
    pub name: &'static str,
    /// The setting that names its path.
    pub setting: &'static str,
    /// How to install it.
    pub install: &'static str,
}

/// yt-dlp, which fetches captions and audio.
pub const YT_DLP: Binary = Binary {
    name: "yt-dlp",
    setting: "yt_dlp_path",
    install: "pipx install yt-dlp (a distro package is usually too old: YouTube changes caption delivery every few months, and an old yt-dlp returns nothing rather than failing)",
};

/// whisper-ctranslate2, which transcribes audio.
pub const WHISPER: Binary = Binary {
    name: "whisper-ctranslate2",
    setting: "whisper_path",
    install: "pipx install whisper-ctranslate2 (CPU is enough; no GPU or ffmpeg binary is needed)",
};

/// Where to look, captured once from the environment (or set by a test).
#[derive(Debug, Clone, Default)]
pub struct Locator {
    /// This program's own directory.
    pub own_dir: Option<PathBuf>,
    /// The PATH to search.
    pub path: Option<OsString>,
    /// The home folder (for ~/.local/bin and the like).
    pub home: Option<PathBuf>,
    /// yt-dlp's path, when named (the `yt_dlp_path` setting).
    pub yt_dlp_path: Option<PathBuf>,
    /// whisper-ctranslate2's path, when named (the `whisper_path` setting).
    pub whisper_path: Option<PathBuf>,
}

impl Locator {
    /// A locator from this process's environment.
    pub fn from_env() -> Locator {
        let setting = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Locator {
            own_dir: std::env::current_exe()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf)),
            path: std::env::var_os("PATH"),
            home: dirs::home_dir(),
            yt_dlp_path: setting(YT_DLP.setting),
            whisper_path: setting(WHISPER.setting),
        }
    }

    /// The directories searched, in order.
    pub fn search_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.own_dir.iter().cloned().collect();
        dirs.extend(self.path.iter().flat_map(std::env::split_paths));
        if let Some(home) = &self.home {
            dirs.push(home.join(".local/bin"));
            let venvs = home.join(".local/pipx/venvs");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&venvs)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("bin"))
                .collect();
            found.sort();
            dirs.extend(found);
        }
        dirs
    }

    /// The path of `bin`, or what to do about it.
    pub fn find(&self, bin: Binary) -> Result<PathBuf, String> {
        let setting = if bin == YT_DLP {
            &self.yt_dlp_path
        } else {
            &self.whisper_path
        };
        if let Some(path) = setting {
            return if is_executable(path) {
                Ok(path.clone())
            } else {
                Err(format!(
                    "{} is set to {}, which is not an executable file: fix the path, or unset it to search the usual places",
                    bin.setting,
                    path.display()
                ))
            };
        }
        let dirs = self.search_dirs();
        dirs.iter()
            .map(|d| d.join(bin.name))
            .find(|p| is_executable(p))
            .ok_or_else(|| {
                format!(
                    "{} is not installed: it was not in this program's directory, PATH, ~/.local/bin or ~/.local/pipx/venvs. Install it with: {}. Or set {} to its path.",
                    bin.name, bin.install, bin.setting
                )
            })
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
