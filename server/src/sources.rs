//! Which archive a call reads: the startup source, or the `source` handle
//! the call passes. There is no active source and nothing is remembered
//! between calls but opened archives (their caches), keyed by handle.
//!
//! Handles: `default`, `local:/dir`, `remote:https://site`,
//! `hub:https://hub`, `hub:https://hub#a,b`; shorthands, normalised and
//! echoed: a bare site or hub URL (classified by probing its corpus.json),
//! a member of the default hub by siteId or title (→ that member's
//! `remote:` handle), `site:a` / `sites:a,b` (→ a subset of the default
//! hub), and `./dir` or `/dir`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use archilyzer_core::archive::{read_corpus, Archive, OpenOptions};
use archilyzer_core::format::CorpusFile;
use archilyzer_core::source::{HttpStore, SourceHandle};

/// The startup source and every archive opened so far.
pub struct Sources {
    default: SourceHandle,
    /// `--index DIR`, for the default source only.
    index_override: Option<PathBuf>,
    options: OpenOptions,
    open: Mutex<HashMap<SourceHandle, Arc<Archive>>>,
}

impl Sources {
    pub fn new(default: SourceHandle, index_override: Option<PathBuf>) -> Self {
        Sources {
            default,
            index_override,
            options: OpenOptions::default(),
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn default_handle(&self) -> &SourceHandle {
        &self.default
    }

    /// The canonical handle for what a call passed (`None`: the default).
    pub fn resolve(&self, text: Option<&str>) -> Result<SourceHandle, String> {
        let text = match text.map(str::trim) {
            None | Some("") | Some("default") => return Ok(self.default.clone()),
            Some(t) => t,
        };
        if ["local:", "remote:", "hub:", "/", "./", "../"]
            .iter()
            .any(|p| text.starts_with(p))
        {
            return SourceHandle::parse(text).map_err(|e| e.to_string());
        }
        if text.starts_with("http://") || text.starts_with("https://") {
            return self.classify_url(text);
        }
        if let Some(list) = text
            .strip_prefix("sites:")
            .or_else(|| text.strip_prefix("site:"))
        {
            return self.default_hub_subset(list);
        }
        self.member_by_name(text)
    }

    /// A bare URL: a hub if its corpus.json says so, else a site.
    fn classify_url(&self, url: &str) -> Result<SourceHandle, String> {
        let store =
            HttpStore::new(url, self.options.http.clone(), None).map_err(|e| e.to_string())?;
        let kind = match read_corpus(&store).map_err(|e| format!("cannot classify {url}: {e}"))? {
            CorpusFile::Hub(_) => "hub",
            CorpusFile::Site(_) => "remote",
        };
        SourceHandle::parse(&format!("{kind}:{url}")).map_err(|e| e.to_string())
    }

    fn default_hub_subset(&self, list: &str) -> Result<SourceHandle, String> {
        let SourceHandle::Hub { url, .. } = &self.default else {
            return Err(format!(
                "`site:`/`sites:` names members of the default hub, but the default source is {}: pass a handle such as remote:https://site",
                self.default
            ));
        };
        SourceHandle::parse(&format!("hub:{url}#{list}")).map_err(|e| e.to_string())
    }

    /// A member of the default hub named by siteId or title.
    fn member_by_name(&self, name: &str) -> Result<SourceHandle, String> {
        let not_found = || {
            format!(
                "{name:?} is not a source handle: use default, local:/dir, remote:https://site, hub:https://hub or hub:https://hub#a,b{}",
                if matches!(self.default, SourceHandle::Hub { .. }) { ", or a member of the default hub by siteId or title" } else { "" }
            )
        };
        if !matches!(self.default, SourceHandle::Hub { .. }) {
            return Err(not_found());
        }
        let hub = self.archive(&self.default)?;
        let lower = name.to_lowercase();
        let member = hub
            .hub()
            .and_then(|h| {
                h.members
                    .iter()
                    .find(|m| m.site_id.to_lowercase() == lower || m.title.to_lowercase() == lower)
            })
            .ok_or_else(not_found)?;
        let site = hub
            .sites()
            .iter()
            .find(|s| s.id() == member.site_id)
            .ok_or_else(not_found)?;
        let location = site.location();
        if location.starts_with("http://") || location.starts_with("https://") {
            SourceHandle::parse(&format!("remote:{location}")).map_err(|e| e.to_string())
        } else {
            Ok(SourceHandle::local(std::path::Path::new(&location)))
        }
    }

    /// The archive of a handle, opened once and kept.
    pub fn archive(&self, handle: &SourceHandle) -> Result<Arc<Archive>, String> {
        if let Some(a) = self.open.lock().unwrap().get(handle) {
            return Ok(a.clone());
        }
        let archive = Arc::new(Archive::open(handle, &self.options).map_err(|e| e.to_string())?);
        self.open
            .lock()
            .unwrap()
            .insert(handle.clone(), archive.clone());
        Ok(archive)
    }

    /// Forgets an opened archive, so the next call re-reads it.
    pub fn forget(&self, handle: &SourceHandle) {
        self.open.lock().unwrap().remove(handle);
    }

    /// Where the index of `handle` lives.
    pub fn index_dir(&self, handle: &SourceHandle) -> Option<PathBuf> {
        if handle == &self.default {
            if let Some(dir) = &self.index_override {
                return Some(dir.clone());
            }
        }
        archilyzer_core::index::default_dir(handle)
    }
}
