//! An opened archive: one site, or the members of a hub read as one.
//!
//! Promises: opening reads `corpus.json` (and, for a hub, each chosen
//! member's) and nothing else; a hub subset naming an unknown member is an
//! error listing the members there are; every site shares one page cache
//! whose budget bounds the whole archive's resident pages.

mod page_cache;
mod site;

pub use page_cache::{budget_from_env, PageCache, DEFAULT_BUDGET_MB};
pub use site::{check_segment, CachedPage, KeptPage, PageKey, SharedPageCache, Site};

use std::path::PathBuf;
use std::sync::Arc;

use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::format::{self, paths, ChannelEntry, CorpusFile, HubCorpus, Post, VideoRecord};
use crate::source::{
    remote_store, DiskCache, HttpOptions, LocalStore, ReadError, SourceHandle, Store,
};

/// How to open archives: caches and network settings.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Budget of the in-memory page cache, in raw page bytes.
    pub page_cache_bytes: u64,
    /// The HTTP disk cache directory; `None` disables it.
    pub http_cache_dir: Option<PathBuf>,
    /// Byte budget of the HTTP disk cache (`ARCHILYZER_HTTP_CACHE_MB`).
    pub http_cache_bytes: u64,
    /// Timeouts and retries of remote reads.
    pub http: HttpOptions,
    /// The memory budget whole-page reads take their shares of, shared by
    /// every archive opened with these options (unlimited by default).
    pub memory: Arc<crate::memory::Budget>,
    /// The indexes loaded for every archive opened with these options,
    /// kept while their files are unchanged.
    pub indexes: Arc<crate::index::cache::IndexCache>,
}

impl Default for OpenOptions {
    /// Budgets from the environment, the HTTP cache under [`cache_dir`].
    fn default() -> Self {
        let http_mb = std::env::var("ARCHILYZER_HTTP_CACHE_MB")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(2048);
        OpenOptions {
            page_cache_bytes: budget_from_env(),
            http_cache_dir: cache_dir().map(|d| d.join("http")),
            http_cache_bytes: http_mb * 1024 * 1024,
            http: HttpOptions::default(),
            memory: Arc::new(crate::memory::Budget::unlimited()),
            indexes: Arc::default(),
        }
    }
}

/// The project's cache directory: `$ARCHILYZER_CACHE_DIR`, else the
/// platform cache dir (`$XDG_CACHE_HOME` or `~/.cache`) + `archilyzer`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARCHILYZER_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::cache_dir().map(|d| d.join("archilyzer"))
}

/// One page of one layer, as the current manifests describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRef {
    /// Index into [`Archive::sites`].
    pub site: usize,
    /// Transcripts, chat or posts.
    pub layer: Layer,
    /// The channel's slug.
    pub channel: String,
    /// The page number, from 1.
    pub page: u32,
    /// The manifest's sha256 and size of the page.
    pub sha256: String,
    /// The page's size as its manifest gives it.
    pub bytes: u64,
    /// The store's stamp of the file (local: size and mtime).
    pub stamp: Option<String>,
}

/// A video found by id: its site, channel and record.
pub struct Found<'a> {
    /// The site that holds the video.
    pub site: &'a Site,
    /// That site's position in [`Archive::sites`] (what decides which
    /// aliases apply to it).
    pub site_index: usize,
    /// Its channel, as corpus.json lists it.
    pub channel: &'a ChannelEntry,
    /// The whole record, cues included.
    pub video: VideoRecord,
}

/// A readable archive.
pub struct Archive {
    handle: SourceHandle,
    hub: Option<HubCorpus>,
    sites: Vec<Arc<Site>>,
    /// Where an index recorded each video, so a one-video read reads only
    /// that video's bytes ([`Archive::read_spans_with`]).
    spans: Option<SpanLookup>,
    /// The indexes kept for it and every archive opened with its options.
    indexes: Arc<crate::index::cache::IndexCache>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("handle", &self.handle)
            .field("hub", &self.hub)
            .field("sites", &self.sites)
            .field("reads_spans", &self.spans.is_some())
            .finish()
    }
}

/// An archive's pages, and the manifests that could not be read (each
/// named), as [`Archive::page_table`] found them at one moment: a call
/// that needs the table twice (a kept result's key, then the scan) takes
/// it once, so both see the same pages.
pub type PageTable = (Vec<PageRef>, Vec<String>);

/// Where an index recorded video `slug` of `channel` of `site`: its page
/// number and span, if it has them (see `crate::index::span_lookup`).
pub type SpanLookup = Box<dyn Fn(&str, &str, &str) -> Option<(u32, VideoSpan)> + Send + Sync>;

impl Archive {
    /// Opens the archive a handle names.
    pub fn open(handle: &SourceHandle, options: &OpenOptions) -> Result<Archive, ReadError> {
        let pages = Arc::new(SharedPageCache::new(
            options.page_cache_bytes,
            options.memory.clone(),
        ));
        let disk = open_disk_cache(options);
        let store: Box<dyn Store> = match (handle, handle.hub_dir()) {
            (_, Some(dir)) => Box::new(LocalStore::open(&dir)?),
            (SourceHandle::Local(dir), None) => Box::new(LocalStore::open(dir)?),
            (SourceHandle::Remote(url) | SourceHandle::Hub { url, .. }, None) => {
                remote_store(url, &options.http, disk.clone())?
            }
        };
        let corpus = read_corpus(store.as_ref())?;
        match (handle, corpus) {
            (SourceHandle::Hub { .. }, CorpusFile::Site(_)) if store.local_root().is_some() => {
                Err(ReadError::Other(format!(
                    "{} is a site, not a hub: use local:{}",
                    store.location(),
                    store.location()
                )))
            }
            (SourceHandle::Hub { .. }, CorpusFile::Site(_)) => Err(ReadError::Other(format!(
                "{} is a site, not a hub: use remote:{}",
                store.location(),
                store.location().trim_end_matches('/')
            ))),
            (SourceHandle::Remote(url), CorpusFile::Hub(_)) => Err(ReadError::Other(format!(
                "{url} is a hub, not a site: use hub:{url}"
            ))),
            (_, CorpusFile::Site(site)) => Ok(Archive {
                handle: handle.clone(),
                hub: None,
                sites: vec![Arc::new(Site::new(store, site, pages))],
                spans: None,
                indexes: options.indexes.clone(),
            }),
            (_, CorpusFile::Hub(hub)) => {
                let wanted = match handle {
                    SourceHandle::Hub { members, .. } => members.clone(),
                    _ => None,
                };
                let sites = open_members(
                    store.as_ref(),
                    &hub,
                    wanted.as_deref(),
                    options,
                    &disk,
                    &pages,
                )?;
                Ok(Archive {
                    handle: handle.clone(),
                    hub: Some(hub),
                    sites,
                    spans: None,
                    indexes: options.indexes.clone(),
                })
            }
        }
    }

    /// How many videos the archive's channels hold, as corpus.json counts
    /// them (N of relevance ordering).
    pub fn video_count(&self) -> usize {
        self.sites
            .iter()
            .flat_map(|s| s.corpus().channels.iter())
            .map(|c| c.video_count as usize)
            .sum()
    }

    /// The indexes kept for this archive (and every archive opened with
    /// its options).
    pub fn indexes(&self) -> &Arc<crate::index::cache::IndexCache> {
        &self.indexes
    }

    /// The handle this archive was opened from.
    pub fn handle(&self) -> &SourceHandle {
        &self.handle
    }

    /// Reads single videos by the spans `lookup` gives (when it has the
    /// video, and its bytes are still the ones indexed; else the whole
    /// page is read as before).
    pub fn read_spans_with(&mut self, lookup: SpanLookup) {
        self.spans = Some(lookup);
    }

    /// Where video `slug` of `channel` of `site` sat when the index was
    /// built, if a lookup is set and has it.
    fn span_of(&self, site: &str, channel: &str, slug: &str) -> Option<(u32, VideoSpan)> {
        (self.spans.as_ref()?)(site, channel, slug)
    }

    /// Video `id` in any channel of any site, looking in the channels
    /// named by `hints` (slugs or names) first.
    pub fn find_video(&self, id: &str, hints: &[String]) -> Result<Option<Found<'_>>, ReadError> {
        let mut order: Vec<(usize, &Site, &ChannelEntry)> = self
            .sites
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.corpus().channels.iter().map(move |c| (i, s.as_ref(), c)))
            .collect();
        order.sort_by_key(|(_, _, ch)| !hints.iter().any(|h| h == &ch.slug || h == &ch.name));
        for (site_index, site, channel) in order {
            let span = || self.span_of(site.id(), &channel.slug, id);
            if let Some(video) = site.find_video(&channel.slug, id, span)? {
                return Ok(Some(Found {
                    site,
                    site_index,
                    channel,
                    video,
                }));
            }
        }
        Ok(None)
    }

    /// The id of a video of this archive that `id` is nearest to
    /// ([`crate::typo::nearest`]: within two edits, case-insensitive; an
    /// id that differs only in case is found), for a "did you mean".
    pub fn nearest_video(&self, id: &str) -> Option<String> {
        let known: Vec<String> = self
            .sites
            .iter()
            .filter_map(|s| s.summaries().ok().flatten())
            .flat_map(|s| s.videos.iter().map(|r| r.slug.clone()).collect::<Vec<_>>())
            .collect();
        crate::typo::nearest(id, known.iter().map(String::as_str)).map(str::to_string)
    }

    /// Post `id` in any channel of any site, with its channel's slug.
    pub fn find_post(&self, id: &str) -> Result<Option<(String, Post)>, ReadError> {
        for site in &self.sites {
            for ch in &site.corpus().channels {
                if let Some(post) = site.find_post(&ch.slug, id)? {
                    return Ok(Some((ch.slug.clone(), post)));
                }
            }
        }
        Ok(None)
    }

    /// Every local directory this archive is read from: the handle's own
    /// directory (a site, or a hub's) and each local member site's.
    pub fn local_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = match &self.handle {
            SourceHandle::Local(dir) => vec![dir.clone()],
            other => other.hub_dir().into_iter().collect(),
        };
        for site in &self.sites {
            if let Some(root) = site.store().local_root() {
                dirs.push(root.to_path_buf());
            }
        }
        dirs.dedup();
        dirs
    }

    /// The hub's own `corpus.json`, when this archive is a hub.
    pub fn hub(&self) -> Option<&HubCorpus> {
        self.hub.as_ref()
    }

    /// The sites read: one, or the chosen hub members in hub order.
    pub fn sites(&self) -> &[Arc<Site>] {
        &self.sites
    }

    /// Every page of every layer of every site, in archive order (site,
    /// channel as `corpus.json` lists them, layer, page), with what the
    /// manifests say of each. A manifest that cannot be read is returned
    /// as a problem naming it, never skipped quietly.
    pub fn page_table(&self) -> PageTable {
        self.prefetch_manifests();
        let mut pages = Vec::new();
        let mut problems = Vec::new();
        for (site_index, site) in self.sites.iter().enumerate() {
            let first = pages.len();
            let mut files = Vec::new();
            for ch in &site.corpus().channels {
                for layer in [Layer::Transcripts, Layer::Chat, Layer::Posts] {
                    let manifest = match site.manifest(layer, &ch.slug) {
                        Ok(Some(m)) => m,
                        Ok(None) if layer != Layer::Transcripts => continue,
                        Ok(None) => {
                            problems.push(format!(
                                "{}: transcript manifest missing",
                                site.describe(&paths::manifest(layer, &ch.slug))
                            ));
                            continue;
                        }
                        Err(e) => {
                            problems.push(e.to_string());
                            continue;
                        }
                    };
                    for (i, entry) in manifest.pages.iter().enumerate() {
                        files.push(format!("{}/{}/{}", layer.dir(), ch.slug, entry.file));
                        pages.push(PageRef {
                            site: site_index,
                            layer,
                            channel: ch.slug.clone(),
                            page: i as u32 + 1,
                            sha256: entry.sha256.clone(),
                            bytes: entry.bytes,
                            stamp: None,
                        });
                    }
                }
            }
            let stamps = site.store().stamps(&files);
            for (p, stamp) in pages[first..].iter_mut().zip(stamps) {
                p.stamp = stamp;
            }
        }
        (pages, problems)
    }

    /// Reads the manifests of remote sites, and the small files every
    /// query reads (aliases, tags, duplicates), many at a time (each site
    /// keeps what it read), so opening a remote archive costs a few round
    /// trips rather than one per file. Files already kept are not asked
    /// for again, so once the cache is warm this starts no thread at all.
    /// Failures are left for the readers to meet again and report.
    fn prefetch_manifests(&self) {
        type Job<'a> = Box<dyn Fn() + Send + Sync + 'a>;
        let mut jobs: Vec<Job> = Vec::new();
        for site in self
            .sites
            .iter()
            .filter(|s| s.store().local_root().is_none())
        {
            let wanted = |path: &str| !site.has_cached(path);
            if wanted(paths::ALIASES) {
                jobs.push(Box::new(move || drop(site.aliases())));
            }
            if wanted(paths::TAGS) {
                jobs.push(Box::new(move || drop(site.tags())));
            }
            if wanted(paths::DUPLICATES) {
                jobs.push(Box::new(move || drop(site.duplicates())));
            }
            for ch in &site.corpus().channels {
                for layer in [Layer::Transcripts, Layer::Chat, Layer::Posts] {
                    if wanted(&paths::manifest(layer, &ch.slug)) {
                        jobs.push(Box::new(move || drop(site.manifest(layer, &ch.slug))));
                    }
                }
            }
        }
        if jobs.is_empty() {
            return;
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..jobs.len().min(MANIFESTS_AT_ONCE) {
                s.spawn(|| {
                    let taken = || next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    while let Some(job) = jobs.get(taken()) {
                        job();
                    }
                });
            }
        });
    }

    /// Forgets every cached file and page.
    pub fn refresh(&self) {
        for site in &self.sites {
            site.refresh();
        }
    }
}

/// Remote files read at once when an archive's page table is built.
const MANIFESTS_AT_ONCE: usize = 16;

fn open_disk_cache(options: &OpenOptions) -> Option<Arc<DiskCache>> {
    let dir = options.http_cache_dir.as_ref()?;
    match DiskCache::open(dir, options.http_cache_bytes) {
        Ok(c) => Some(Arc::new(c)),
        Err(e) => {
            tracing::warn!(
                "HTTP page cache at {} is unusable ({e}); reading without it",
                dir.display()
            );
            None
        }
    }
}

/// Reads and checks `corpus.json` of a store.
pub fn read_corpus(store: &dyn Store) -> Result<CorpusFile, ReadError> {
    let bytes = store.read(paths::CORPUS)?.ok_or_else(|| {
        ReadError::Other(format!(
            "no corpus.json at {}: point at a composed public dir (the folder an export writes)",
            store.location()
        ))
    })?;
    let origin = format!(
        "{}/{}",
        store.location().trim_end_matches('/'),
        paths::CORPUS
    );
    Ok(format::parse_corpus(&bytes, &origin)?)
}

fn open_members(
    hub_store: &dyn Store,
    hub: &HubCorpus,
    wanted: Option<&[String]>,
    options: &OpenOptions,
    disk: &Option<Arc<DiskCache>>,
    pages: &Arc<SharedPageCache>,
) -> Result<Vec<Arc<Site>>, ReadError> {
    if let Some(wanted) = wanted {
        let unknown: Vec<&String> = wanted
            .iter()
            .filter(|w| !hub.members.iter().any(|m| &m.site_id == *w))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = hub.members.iter().map(|m| m.site_id.as_str()).collect();
            return Err(ReadError::Other(format!(
                "hub {} has no member {}; its members are: {}",
                hub_store.location(),
                unknown
                    .iter()
                    .map(|u| format!("{u:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                known.join(", ")
            )));
        }
    }
    let chosen = hub
        .members
        .iter()
        .filter(|m| wanted.is_none_or(|w| w.contains(&m.site_id)));
    let mut sites = Vec::new();
    for member in chosen {
        let store: Box<dyn Store> =
            if member.url.starts_with("http://") || member.url.starts_with("https://") {
                remote_store(&member.url, &options.http, disk.clone())?
            } else {
                hub_store.relative(&member.url)?
            };
        match read_corpus(store.as_ref())? {
            CorpusFile::Site(site) => sites.push(Arc::new(Site::new(store, site, pages.clone()))),
            CorpusFile::Hub(_) => {
                return Err(ReadError::Other(format!(
                    "hub member {} at {} is itself a hub; hubs of hubs are not supported",
                    member.site_id,
                    store.location()
                )))
            }
        }
    }
    Ok(sites)
}
