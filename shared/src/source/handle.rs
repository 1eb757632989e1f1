//! Source handles: the serialised, canonical name of an archive to read.
//!
//! `local:/dir`, `remote:https://site`, `hub:https://hub` and
//! `hub:https://hub#a,b`; a hub on disk is `hub:file:///dir` (members
//! subset the same way). A handle round-trips: `parse(h.to_string()) == h`.
//! Shorthands that need the network to classify (a bare URL, a member's
//! name) are resolved by the server, which then holds one of these.

use std::fmt;
use std::path::{Path, PathBuf};

/// The archive read when no flag or variable names one.
pub const DEFAULT_LOCAL_DIR: &str = "./export/public";

/// Which archive to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SourceHandle {
    /// A composed public dir on disk (an absolute path).
    Local(PathBuf),
    /// One deployed site origin, without a trailing slash.
    Remote(String),
    /// Every member of a hub, or only those named (siteIds, sorted and
    /// deduplicated).
    Hub {
        /// The hub's origin, without a trailing slash: an http(s) origin,
        /// or a `file://` URL for a hub folder on disk.
        url: String,
        /// The members read, by siteId; `None` for all.
        members: Option<Vec<String>>,
    },
}

/// A handle that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HandleError(String);

impl SourceHandle {
    /// Parses a canonical handle, or a bare path (`./dir`, `/dir`), which
    /// is read as `local:`.
    pub fn parse(text: &str) -> Result<Self, HandleError> {
        // Only a line break is dropped from the end: a directory may end
        // in a space, and the handle a path was shown as must name it.
        let text = text.trim_start().trim_end_matches(['\r', '\n']);

        if text.chars().any(char::is_control) {
            return Err(HandleError(format!(
                "{text:?} holds control characters (a line break, a NUL): a handle is one line of text"
            )));
        }
        if let Some(dir) = text.strip_prefix("local:") {
            if dir.trim().is_empty() {
                return Err(HandleError(
                    "local: names no directory: use local:/path/to/public".into(),
                ));
            }
            return Ok(Self::local(Path::new(dir)));
        }
        if let Some(url) = text.strip_prefix("remote:") {
            return Ok(SourceHandle::Remote(web_origin(url)?));
        }
        if let Some(rest) = text.strip_prefix("hub:") {
            let (url, subset) = match rest.split_once('#') {
                Some((u, s)) => (u, Some(s)),
                None => (rest, None),
            };
            let members = subset.map(parse_subset).transpose()?;
            return Ok(SourceHandle::Hub {
                url: hub_origin(url)?,
                members,
            });
        }
        if text.starts_with('/') || text.starts_with("./") || text.starts_with("../") {
            return Ok(Self::local(Path::new(text)));
        }
        Err(HandleError(format!(
            "{text:?} is not a source handle: use local:/dir, remote:https://site, \
             hub:https://hub or hub:https://hub#siteA,siteB"
        )))
    }

    /// The handle the usual flags (or their environment variables) name,
    /// with precedence hub > remote > local. A hub given as a directory
    /// (no `://`) is read from disk: its corpus.json says it is a hub.
    pub fn from_flags(
        hub: Option<&str>,
        remote: Option<&str>,
        local: &Path,
    ) -> Result<Self, HandleError> {
        match (hub, remote) {
            (Some(hub), _) if !hub.contains("://") => Self::of_dir(hub),
            (Some(hub), _) => Self::parse(&format!("hub:{hub}")),
            (None, Some(remote)) => Self::parse(&format!("remote:{remote}")),
            (None, None) => Self::of_dir(&local.to_string_lossy()),
        }
    }

    /// The handle of folder `dir`: `hub:file://…` when its corpus.json
    /// says it is a hub (so its members can be named), else `local:`. A
    /// `#a,b` after a hub folder's path reads only those members.
    pub fn of_dir(text: &str) -> Result<Self, HandleError> {
        let whole = Path::new(text);
        let (dir, subset) = match text.rsplit_once('#') {
            Some((d, s)) if !whole.exists() => (Path::new(d), Some(s)),
            _ => (whole, None),
        };
        if is_hub_dir(dir) {
            return Ok(SourceHandle::Hub {
                url: file_origin(dir)?,
                members: subset.map(parse_subset).transpose()?,
            });
        }
        match subset {
            Some(_) => Err(HandleError(format!(
                "{} is not a hub folder, so `#` cannot name its members: pass the folder alone",
                dir.display()
            ))),
            None => Ok(Self::local(dir)),
        }
    }

    /// The folder a hub on disk is read from; `None` for any other handle.
    pub fn hub_dir(&self) -> Option<PathBuf> {
        match self {
            SourceHandle::Hub { url, .. } => url::Url::parse(url)
                .ok()
                .filter(|u| u.scheme() == "file")
                .and_then(|u| u.to_file_path().ok()),
            _ => None,
        }
    }

    /// `local:` for `dir`, made absolute against the working directory.
    pub fn local(dir: &Path) -> Self {
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        SourceHandle::Local(normalize(&abs))
    }

    /// For a local handle whose folder holds no `corpus.json`: what is
    /// wrong and how to choose an archive. `None` for any other handle.
    pub fn missing_local(&self) -> Option<String> {
        let SourceHandle::Local(dir) = self else {
            return None;
        };
        let why = if !dir.exists() {
            "it does not exist"
        } else if !dir.join("corpus.json").is_file() {
            "it holds no corpus.json"
        } else {
            return None;
        };
        if let Some(found) = looks_like_a_download(dir) {
            return Some(format!(
                "no archive at {dir}: it holds {found} and no corpus.json: a download, not an archive yet. \
                 Make an archive of it, then search that: \
                 archilyzer-index import --from {dir} --out {dir}-archive --build",
                dir = dir.display()
            ));
        }
        Some(format!(
            "no archive at {}: {why}. Choose one with --local DIR, --remote URL or --hub URL \
             (or TRANSCRIPT_LOCAL_DIR, TRANSCRIPT_SITE_URL, TRANSCRIPT_HUB_URL); without any, \
             the archive is {DEFAULT_LOCAL_DIR}",
            dir.display()
        ))
    }

    /// A short, file-name-safe key for per-source cache directories: the
    /// handle's last whole words (at most 40 characters, never cut inside
    /// a word) and a hash of the whole handle, e.g.
    /// `local-testdata-archive-alpha-1a2b3c4d5e6f`.
    pub fn cache_key(&self) -> String {
        let text = self.to_string();
        let words: Vec<&str> = text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let kind = words.first().copied().unwrap_or("source");
        let mut tail: Vec<&str> = Vec::new();
        let mut len = kind.len();
        for w in words.iter().skip(1).rev() {
            if len + 1 + w.len() > CACHE_KEY_WORDS {
                break;
            }
            len += 1 + w.len();
            tail.push(w);
        }
        tail.reverse();
        let readable = std::iter::once(kind).chain(tail).collect::<Vec<_>>();
        let hash = &super::sha256_hex(text.as_bytes())[..12];
        format!("{}-{hash}", readable.join("-"))
    }
}

/// The most characters of words a cache key shows before its hash.
const CACHE_KEY_WORDS: usize = 40;

impl fmt::Display for SourceHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceHandle::Local(dir) => write!(f, "local:{}", dir.display()),
            SourceHandle::Remote(url) => write!(f, "remote:{url}"),
            SourceHandle::Hub { url, members: None } => write!(f, "hub:{url}"),
            SourceHandle::Hub {
                url,
                members: Some(m),
            } => write!(f, "hub:{url}#{}", m.join(",")),
        }
    }
}

/// Whether `dir/corpus.json` declares a hub (its `kind` alone is read:
/// a damaged hub is still opened as one, and its reader says what is
/// wrong).
fn is_hub_dir(dir: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    std::fs::read(dir.join("corpus.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Kind>(&b).ok())
        .is_some_and(|v| v.kind.as_deref() == Some("hub"))
}

/// The `file://` URL of folder `dir`, made absolute, without a trailing
/// slash.
fn file_origin(dir: &Path) -> Result<String, HandleError> {
    let abs = normalize(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    url::Url::from_directory_path(&abs)
        .map(|u| u.to_string().trim_end_matches('/').to_string())
        .map_err(|_| HandleError(format!("{} is not a folder path", dir.display())))
}

/// A hub's origin: an http(s) URL, or a folder as `file://` (a `file://`
/// URL or an absolute or `./` path).
fn hub_origin(text: &str) -> Result<String, HandleError> {
    let t = text.trim();
    if let Some(dir) = url::Url::parse(t)
        .ok()
        .filter(|u| u.scheme() == "file")
        .and_then(|u| u.to_file_path().ok())
    {
        return file_origin(&dir);
    }
    if t.starts_with('/') || t.starts_with("./") || t.starts_with("../") {
        return file_origin(Path::new(t));
    }
    web_origin(t)
}

/// An http(s) URL without a trailing slash, query or fragment.
fn web_origin(url: &str) -> Result<String, HandleError> {
    let parsed = url::Url::parse(url.trim()).map_err(|e| {
        HandleError(format!(
            "{url:?} is not a URL ({e}): give an https:// origin"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(HandleError(format!(
            "{url:?} is not an http:// or https:// URL"
        )));
    }
    let mut s = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or(""));
    if let Some(port) = parsed.port() {
        s.push_str(&format!(":{port}"));
    }
    s.push_str(parsed.path().trim_end_matches('/'));
    Ok(s)
}

fn parse_subset(list: &str) -> Result<Vec<String>, HandleError> {
    let mut ids: Vec<String> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if ids.is_empty() {
        return Err(HandleError(
            "a hub subset after `#` names at least one member siteId: hub:https://hub#alpha,beta"
                .into(),
        ));
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Removes `.` and `..` segments without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What makes `dir` look like caption files or a yt-dlp download (in it or
/// one folder down): `"12 caption file(s) and 12 yt-dlp info JSON file(s)"`.
fn looks_like_a_download(dir: &Path) -> Option<String> {
    let mut counts = (0, 0);
    for sub in count_inputs(dir, true, &mut counts).iter().take(200) {
        count_inputs(sub, false, &mut counts);
    }
    match counts {
        (0, 0) => None,
        (c, 0) => Some(format!("{c} caption file(s)")),
        (c, i) => Some(format!(
            "{c} caption file(s) and {i} yt-dlp info JSON file(s)"
        )),
    }
}

/// Adds the caption files and info JSONs directly in `d` to `counts`;
/// with `deeper`, returns its folders.
fn count_inputs(d: &Path, deeper: bool, counts: &mut (usize, usize)) -> Vec<std::path::PathBuf> {
    let mut folders = Vec::new();
    for e in std::fs::read_dir(d)
        .into_iter()
        .flatten()
        .flatten()
        .take(5000)
    {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if deeper {
                folders.push(path);
            }
        } else if name.ends_with(".info.json") {
            counts.1 += 1;
        } else if !name.ends_with(".json")
            && crate::captions::CaptionFormat::of_path(&path).is_some()
        {
            counts.0 += 1;
        }
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_key_keeps_whole_words_and_tells_sources_apart() {
        let key = SourceHandle::parse("local:/home/someone/projects/archives/kitchen-talks/public")
            .unwrap()
            .cache_key();
        let (words, hash) = key.rsplit_once('-').unwrap();
        assert_eq!(words, "local-archives-kitchen-talks-public");
        assert_eq!(hash.len(), 12);
        let other = SourceHandle::parse("local:/elsewhere/projects/archives/kitchen-talks/public")
            .unwrap()
            .cache_key();
        assert_ne!(key, other, "the hash tells them apart");
        assert_eq!(
            SourceHandle::parse("remote:https://example.org")
                .unwrap()
                .cache_key()
                .rsplit_once('-')
                .unwrap()
                .0,
            "remote-https-example-org"
        );
    }

    #[test]
    fn handles_round_trip_in_canonical_form() {
        for (input, canonical) in [
            ("local:/srv/export/public", "local:/srv/export/public"),
            ("/srv/x/../export/", "local:/srv/export"),
            (
                "  local:/srv/dir ending in a space \n",
                "local:/srv/dir ending in a space ",
            ),
            (
                "remote:https://site.example/",
                "remote:https://site.example",
            ),
            (
                "remote:http://127.0.0.1:8080/a/",
                "remote:http://127.0.0.1:8080/a",
            ),
            ("hub:https://hub.example", "hub:https://hub.example"),
            (
                "hub:https://hub.example/#beta, alpha,beta",
                "hub:https://hub.example#alpha,beta",
            ),
            ("hub:/srv/hub/#b,a", "hub:file:///srv/hub#a,b"),
            ("hub:file:///srv/my%20hub", "hub:file:///srv/my%20hub"),
        ] {
            let h = SourceHandle::parse(input).unwrap();
            assert_eq!(h.to_string(), canonical, "{input}");
            assert_eq!(SourceHandle::parse(&h.to_string()).unwrap(), h);
        }
    }

    #[test]
    fn bad_handles_say_what_to_pass() {
        let e = SourceHandle::parse("ftp:x").unwrap_err().to_string();
        assert!(e.contains("use local:/dir, remote:https://site"), "{e}");
        let e = SourceHandle::parse("hub:https://h#,")
            .unwrap_err()
            .to_string();
        assert!(e.contains("names at least one member"), "{e}");
        let e = SourceHandle::parse("remote:file:///etc")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an http:// or https:// URL"), "{e}");
    }
}
