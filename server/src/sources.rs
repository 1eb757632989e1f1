//! Which archive a call reads: the startup source, or the `source` handle
//! the call passes. There is no active source and nothing is remembered
//! between calls but opened archives (their caches), keyed by handle.
//!
//! Handles: `default`, `local:/dir`, `remote:https://site`,
//! `hub:https://hub`, `hub:https://hub#a,b`, `hub:file:///dir#a,b` (a
//! folder holding a hub is always read as one); shorthands, normalised and
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

/// What a call may name as its `source`.
#[derive(Debug, Clone, PartialEq)]
pub enum SourcePolicy {
    /// Anything (stdio: the caller is this machine's own user).
    Open,
    /// Over HTTP: the default corpus, the members of the default hub, and
    /// these handles (`--allow-sources`). Any other path, handle or URL is
    /// refused before anything is read or fetched, so a remote caller can
    /// neither read this machine's disk nor make it request an address.
    Restricted(Vec<SourceHandle>),
}

/// The startup source and every archive opened so far.
pub struct Sources {
    default: SourceHandle,
    policy: SourcePolicy,
    /// `--index DIR`, for the default source only.
    index_override: Option<PathBuf>,
    /// Where every other source's index lives, one folder per source.
    index_root: Option<PathBuf>,
    /// How archives are opened: caches, timeouts, the memory budget every
    /// archive opened here shares.
    options: OpenOptions,
    open: Mutex<HashMap<SourceHandle, Arc<Archive>>>,
}

impl Sources {
    /// Sources answering for `default`, reading indexes from `index_override` (else each source's cache folder).
    pub fn new(default: SourceHandle, index_override: Option<PathBuf>) -> Self {
        Sources {
            default,
            policy: SourcePolicy::Open,
            index_override,
            index_root: archilyzer_core::index::default_root(),
            options: OpenOptions::default(),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The same sources opening archives with `options` (the server's
    /// memory budget, its caches) and keeping indexes under `index_root`.
    pub fn with_caches(mut self, options: OpenOptions, index_root: Option<PathBuf>) -> Self {
        self.options = options;
        self.index_root = index_root;
        self
    }

    /// The same sources under `policy`.
    pub fn with_policy(mut self, policy: SourcePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The indexes kept for every archive these sources open.
    pub fn indexes(&self) -> &Arc<archilyzer_core::index::IndexCache> {
        &self.options.indexes
    }

    /// The bytes downloaded by every remote store these sources open.
    pub fn downloaded(&self) -> &Arc<archilyzer_core::net::Downloaded> {
        &self.options.http.downloaded
    }

    /// The startup source.
    pub fn default_handle(&self) -> &SourceHandle {
        &self.default
    }

    /// Whether calls may name sources freely (stdio) or not (HTTP).
    pub fn is_restricted(&self) -> bool {
        matches!(self.policy, SourcePolicy::Restricted(_))
    }

    /// Under a restricted policy, refuses `text` (a path, handle or URL)
    /// unless it names the default corpus or an allowed handle; decided
    /// from the text alone, before any file or URL is touched.
    fn check_allowed(&self, text: &str) -> Result<(), String> {
        let SourcePolicy::Restricted(allowed) = &self.policy else {
            return Ok(());
        };
        let candidates: Vec<String> = if text.starts_with("http://") || text.starts_with("https://")
        {
            vec![format!("remote:{text}"), format!("hub:{text}")]
        } else if ["/", "./", "../"].iter().any(|p| text.starts_with(p)) {
            vec![format!("local:{text}")]
        } else {
            vec![text.to_string()]
        };
        let named = candidates
            .iter()
            .filter_map(|c| SourceHandle::parse(c).ok())
            .any(|h| h == self.default || allowed.contains(&h));
        if named {
            return Ok(());
        }
        Err(format!(
            "source {text:?} is refused: over HTTP this server reads only its own corpus (`default`{}) and the sources its operator allowed with --allow-sources{}. \
             Local paths and other URLs are never read for a remote caller",
            if matches!(self.default, SourceHandle::Hub { .. }) { ", and its hub's members by siteId or `site:`" } else { "" },
            if allowed.is_empty() { " (none)".to_string() } else {
                format!(" ({})", allowed.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", "))
            }
        ))
    }

    /// The canonical handle for what a call passed (`None`: the default).
    pub fn resolve(&self, text: Option<&str>) -> Result<SourceHandle, String> {
        let text = match text.map(str::trim) {
            None | Some("") | Some("default") => return Ok(self.default.clone()),
            Some(t) => t,
        };
        let explicit = [
            "/", "./", "../", "local:", "remote:", "hub:", "http://", "https://",
        ];
        if explicit.iter().any(|p| text.starts_with(p)) {
            self.check_allowed(text)?;
        }
        if ["/", "./", "../"].iter().any(|p| text.starts_with(p)) {
            return SourceHandle::of_dir(text).map_err(|e| e.to_string());
        }
        if ["local:", "remote:", "hub:"]
            .iter()
            .any(|p| text.starts_with(p))
        {
            return match SourceHandle::parse(text).map_err(|e| e.to_string())? {
                // A folder that holds a hub is read as one, so its members
                // can be named.
                SourceHandle::Local(dir) => {
                    SourceHandle::of_dir(&dir.to_string_lossy()).map_err(|e| e.to_string())
                }
                other => Ok(other),
            };
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
    /// The corpus a share link's `origin` names, and how it was found:
    /// the default corpus (or a member of the default hub) when the
    /// origin is the URL it was composed for, else the site or hub that
    /// answers at the origin (probed through its corpus.json).
    pub fn handle_for_origin(&self, origin: &str) -> Result<(SourceHandle, String), String> {
        if origin.starts_with("file://") {
            if self.is_restricted() {
                return Err(format!(
                    "the link's origin {origin} is a folder on this machine: over HTTP this server opens only links to its own corpus"
                ));
            }
            return local_origin(origin);
        }
        let same = |url: &str| url.trim_end_matches('/') == origin.trim_end_matches('/');
        if let Ok(archive) = self.archive(&self.default) {
            if let SourceHandle::Hub { url, .. } | SourceHandle::Remote(url) = &self.default {
                if same(url) {
                    return Ok((self.default.clone(), "the default corpus".into()));
                }
            }
            let sites = archive.sites();
            let declared = sites
                .iter()
                .find(|s| s.corpus().site.url.as_deref().is_some_and(same));
            match (declared, archive.hub().is_some()) {
                (Some(_), false) => {
                    return Ok((
                        self.default.clone(),
                        "the default corpus, which was composed for this origin".into(),
                    ))
                }
                (Some(site), true) => {
                    let member = self.resolve(Some(site.id()))?;
                    return Ok((member, format!("member {} of the default hub", site.id())));
                }
                _ => {}
            }
        }
        let handle = self.resolve(Some(origin)).map_err(|e| {
            format!("the link's origin {origin} is not a corpus this server can read: {e}")
        })?;
        Ok((handle, format!("probed {origin}/corpus.json")))
    }

    /// The archive of `handle`, opened once and kept while its files are unchanged.
    pub fn archive(&self, handle: &SourceHandle) -> Result<Arc<Archive>, String> {
        if let Some(a) = self.open.lock().unwrap().get(handle) {
            return Ok(a.clone());
        }
        // A local folder that is no archive: say what it is and how to
        // choose one, as the start-up line does, not the bare OS error.
        if let Some(why) = handle.missing_local() {
            return Err(why);
        }
        let mut archive = Archive::open(handle, &self.options).map_err(|e| e.to_string())?;
        if let Some(dir) = self.index_dir(handle) {
            let lookup = archilyzer_core::index::span_lookup(&archive, dir);
            archive.read_spans_with(lookup);
        }
        let archive = Arc::new(archive);
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
        let root = self.index_root.as_deref()?;
        Some(archilyzer_core::index::dir_under(root, handle))
    }
}

/// A `file://` origin: the local archive a link was made from, which
/// exists only on the machine that made it.
fn local_origin(origin: &str) -> Result<(SourceHandle, String), String> {
    let dir = url::Url::parse(origin)
        .ok()
        .and_then(|u| u.to_file_path().ok())
        .ok_or_else(|| format!("the link's origin {origin} is not a folder path"))?;
    if !dir.join("corpus.json").is_file() {
        return Err(format!(
            "the link's origin is the folder {}, which holds no archive on this machine: a file:// link opens only where it was made; ask for a link to the published site",
            dir.display()
        ));
    }
    Ok((
        SourceHandle::local(&dir),
        format!("the local archive at {} (a file:// link)", dir.display()),
    ))
}

/// The corpus a call reads: a handle, a member name or a URL.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Source {
    /// Corpus handle (list_sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use archilyzer_testkit::TestServer;

    fn testdata() -> PathBuf {
        std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/archive")).unwrap()
    }

    #[test]
    fn shorthands_resolve_to_canonical_handles_and_are_echoed() {
        let server = TestServer::serve(testdata());
        let hub = SourceHandle::parse(&format!("hub:{}", server.url("hub"))).unwrap();
        let sources = Sources::new(hub.clone(), None);
        let resolve = |s: &str| sources.resolve(Some(s)).map(|h| h.to_string());
        assert_eq!(resolve("default").unwrap(), hub.to_string());
        assert_eq!(sources.resolve(None).unwrap(), hub);
        assert_eq!(
            resolve("alphalyzer").unwrap(),
            format!("remote:{}", server.url("alpha"))
        );
        assert_eq!(
            resolve("Betalyzer").unwrap(),
            format!("remote:{}", server.url("beta")),
            "by title, any case"
        );
        assert_eq!(
            resolve("site:alphalyzer").unwrap(),
            format!("hub:{}#alphalyzer", server.url("hub"))
        );
        assert_eq!(
            resolve("sites:betalyzer,alphalyzer").unwrap(),
            format!("hub:{}#alphalyzer,betalyzer", server.url("hub"))
        );
        assert_eq!(
            resolve(&format!("{}/", server.url("alpha"))).unwrap(),
            format!("remote:{}", server.url("alpha")),
            "a bare site URL"
        );
        assert_eq!(
            resolve(&server.url("hub")).unwrap(),
            format!("hub:{}", server.url("hub")),
            "a bare hub URL"
        );
        let dir = testdata().join("alpha");
        assert_eq!(
            resolve(dir.to_str().unwrap()).unwrap(),
            format!("local:{}", dir.display())
        );
        let err = resolve("gamma").unwrap_err();
        assert!(
            err.contains("is not a source handle") && err.contains("a member of the default hub"),
            "{err}"
        );
    }

    #[test]
    fn site_shorthands_need_a_hub_default() {
        let sources = Sources::new(SourceHandle::local(&testdata().join("alpha")), None);
        let err = sources.resolve(Some("site:alphalyzer")).unwrap_err();
        assert!(err.contains("names members of the default hub"), "{err}");
        let err = sources.resolve(Some("alphalyzer")).unwrap_err();
        assert!(
            err.starts_with("\"alphalyzer\" is not a source handle: use default, local:/dir"),
            "{err}"
        );
    }

    #[test]
    fn every_result_names_its_corpus_and_hub_listings_name_the_site() {
        let server = TestServer::serve(testdata());
        let hub = SourceHandle::parse(&format!("hub:{}", server.url("hub"))).unwrap();
        let ctx = crate::tools::Context {
            sources: Sources::new(hub.clone(), None),
            editor: crate::editor::EditorSetup::Missing,
            umtool: Err("no umtool".into()),
            binaries: Default::default(),
            passages: crate::passages::PassageSetup::new(None),
            kept: Default::default(),
            metrics: Default::default(),
        };
        let args = serde_json::Map::new();
        let out = crate::tools::call(&ctx, "list_channels", &args, &mut |_| {});
        assert!(!out.is_error, "{}", out.text);
        assert!(
            out.text.contains("# Alphalyzer (alphalyzer)")
                && out.text.contains("# Betalyzer (betalyzer)"),
            "{}",
            out.text
        );
        assert!(
            out.text.ends_with(&format!("(corpus: {hub})")),
            "{}",
            out.text
        );
        let mut bad = serde_json::Map::new();
        bad.insert("source".into(), "nowhere".into());
        let out = crate::tools::call(&ctx, "list_channels", &bad, &mut |_| {});
        assert!(
            out.is_error && out.text.ends_with("(corpus: unresolved \"nowhere\")"),
            "{}",
            out.text
        );
        let mut alias = serde_json::Map::new();
        alias.insert("source".into(), "alphalyzer".into());
        let out = crate::tools::call(&ctx, "use_source", &alias, &mut |_| {});
        assert!(
            out.text
                .contains("there is no active source. Pass source: \"remote:"),
            "{}",
            out.text
        );
    }
}
