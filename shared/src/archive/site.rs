//! One site: its `corpus.json`, and typed, cached access to every other file.
//!
//! Promises: small files (manifests, summaries, aliases, tags, duplicates,
//! stats, digests, reports) are read once and kept until [`Site::refresh`];
//! pages go through the shared byte-budgeted [`PageCache`]s (whole
//! parsed pages, and transcript pages kept as bytes with their scan view,
//! [`Site::page_view`], within the memory budget's keep limit); a page is
//! checked to be the page asked for (its `channel` and `page` fields); a
//! missing optional file is `Ok(None)`; a malformed one is an error naming
//! it.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;

use super::page_cache::PageCache;
use crate::format::paths::{self, Layer};
use crate::format::spans::VideoSpan;
use crate::format::{
    self, Alias, ChannelDigests, ChannelEntry, ChannelStats, ChatPage, CuratedTag, Duplicates,
    Manifest, PageView, Post, PostPage, Report, ReportIndex, SiteCorpus, Summaries, TranscriptPage,
    VideoRecord,
};
use crate::memory::{self, PageBytes};
use crate::source::{ReadError, Store};

/// Which page of which layer of which site.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PageKey {
    /// The site's location (a directory or URL), so two sites never share an entry.
    pub site: String,
    /// Transcripts, chat or posts.
    pub layer: Layer,
    /// The channel's slug.
    pub channel: String,
    /// The page number, from 1.
    pub page: u32,
}

/// A parsed page of any layer, as the cache holds it.
#[derive(Debug)]
pub enum CachedPage {
    /// A transcript page.
    Transcripts(Arc<TranscriptPage>),
    /// A live-chat page.
    Chat(Arc<ChatPage>),
    /// A posts page.
    Posts(Arc<PostPage>),
}

/// A transcript page kept between calls: its bytes (holding their share
/// of the memory budget) and its scan view, which borrows from them.
pub type KeptPage = yoke::Yoke<PageView<'static>, Arc<PageBytes>>;

/// The page caches every site of an archive shares.
pub struct SharedPageCache {
    /// Whole parsed pages of any layer, within their own byte budget.
    parsed: PageCache<PageKey, CachedPage, ReadError>,
    /// Transcript pages' bytes and views, by page and sha256 (a page that
    /// changed is another entry), within the memory budget's keep limit.
    views: PageCache<(PageKey, String), KeptPage, ReadError>,
    /// The memory budget every whole-page read takes its share of.
    memory: Arc<memory::Budget>,
}

impl SharedPageCache {
    /// Caches holding at most `parsed_bytes` of whole parsed pages, and
    /// as many kept pages as `memory`'s [`memory::Budget::keep_limit`]
    /// allows; every whole-page read takes its share of `memory`.
    pub fn new(parsed_bytes: u64, memory: Arc<memory::Budget>) -> Self {
        SharedPageCache {
            parsed: PageCache::new(parsed_bytes),
            views: PageCache::new(memory.keep_limit()),
            memory,
        }
    }

    fn clear(&self) {
        self.parsed.clear();
        self.views.clear();
    }
}

type FileCache = Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>;

/// A site archive and its caches.
pub struct Site {
    store: Box<dyn Store>,
    corpus: SiteCorpus,
    files: FileCache,
    pages: Arc<SharedPageCache>,
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site")
            .field("id", &self.corpus.site.id)
            .field("location", &self.store.location())
            .finish()
    }
}

impl Site {
    /// A site read from `store`, described by `corpus`, caching pages in `pages`.
    pub fn new(store: Box<dyn Store>, corpus: SiteCorpus, pages: Arc<SharedPageCache>) -> Self {
        Site {
            store,
            corpus,
            files: Mutex::new(HashMap::new()),
            pages,
        }
    }

    /// Its `corpus.json`.
    pub fn corpus(&self) -> &SiteCorpus {
        &self.corpus
    }

    /// Its id (`site.id` of corpus.json).
    pub fn id(&self) -> &str {
        &self.corpus.site.id
    }

    /// The origin of the site's own viewer, where moments link: the
    /// `site.url` its corpus.json declares, else, for a site read over
    /// HTTP, the origin it was read from (a deployed site is its viewer).
    /// `None` for a local folder that declares none.
    pub fn viewer(&self) -> Option<String> {
        let declared = self
            .corpus
            .site
            .url
            .as_deref()
            .filter(|u| !u.trim().is_empty());
        match declared {
            Some(url) => Some(url.trim_end_matches('/').to_string()),
            None if self.store.local_root().is_none() => {
                Some(self.store.location().trim_end_matches('/').to_string())
            }
            None => None,
        }
    }

    /// Where the site is read from (a directory or URL).
    pub fn location(&self) -> String {
        self.store.location()
    }

    /// Where its bytes come from.
    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Forgets every cached file and page of this site.
    pub fn refresh(&self) {
        self.files.lock().unwrap().clear();
        self.pages.clear();
    }

    /// Whether the file at `path` was read (or found unpublished) and is kept.
    pub fn has_cached(&self, path: &str) -> bool {
        self.files.lock().unwrap().contains_key(path)
    }

    /// A JSON file read once and kept; `None` when not published.
    fn cached<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        path: &str,
    ) -> Result<Option<Arc<T>>, ReadError> {
        if let Some(hit) = self.files.lock().unwrap().get(path) {
            if let Ok(v) = hit.clone().downcast::<Option<Arc<T>>>() {
                return Ok((*v).clone());
            }
        }
        let value = match self.store.read(path)? {
            Some(bytes) => Some(Arc::new(format::parse::<T>(&bytes, &self.describe(path))?)),
            None => None,
        };
        self.files
            .lock()
            .unwrap()
            .insert(path.to_string(), Arc::new(value.clone()));
        Ok(value)
    }

    /// `path` as a user can find it: `<location>/<path>`.
    pub fn describe(&self, path: &str) -> String {
        let loc = self.store.location();
        format!("{}/{path}", loc.trim_end_matches('/'))
    }

    /// A layer's manifest for `channel`; `None` when the layer has none.
    pub fn manifest(
        &self,
        layer: Layer,
        channel: &str,
    ) -> Result<Option<Arc<Manifest>>, ReadError> {
        check_segment(channel, "channel")?;
        self.cached(&paths::manifest(layer, channel))
    }

    /// The transcript manifest of a channel the site lists, which must exist.
    pub fn transcript_manifest(&self, channel: &str) -> Result<Arc<Manifest>, ReadError> {
        self.manifest(Layer::Transcripts, channel)?.ok_or_else(|| {
            ReadError::Other(format!(
                "{} is missing: corpus.json lists channel {channel:?} but its manifest is not published; re-export the site",
                self.describe(&paths::manifest(Layer::Transcripts, channel))
            ))
        })
    }

    /// `summaries/index.json`: one row per video, for planning without an index.
    pub fn summaries(&self) -> Result<Option<Arc<Summaries>>, ReadError> {
        self.cached(paths::SUMMARIES)
    }
    /// `aliases.json`: the curated query expansions.
    pub fn aliases(&self) -> Result<Option<Arc<Vec<Alias>>>, ReadError> {
        self.cached(paths::ALIASES)
    }
    /// `tags.json`: the curated tags.
    pub fn tags(&self) -> Result<Option<Arc<Vec<CuratedTag>>>, ReadError> {
        self.cached(paths::TAGS)
    }
    /// `duplicates.json`: clusters of mirrored uploads.
    pub fn duplicates(&self) -> Result<Option<Arc<Duplicates>>, ReadError> {
        self.cached(paths::DUPLICATES)
    }
    /// A channel's `stats/<channel>.json`: views, likes, cue counts, coverage.
    pub fn stats(&self, channel: &str) -> Result<Option<Arc<ChannelStats>>, ReadError> {
        check_segment(channel, "channel")?;
        self.cached(&paths::stats(channel))
    }
    /// A channel's AI digests (chapters, tags).
    pub fn digests(&self, channel: &str) -> Result<Option<Arc<ChannelDigests>>, ReadError> {
        check_segment(channel, "channel")?;
        self.cached(&paths::digests(channel))
    }
    /// `reports/index.json`: the reports the site publishes.
    pub fn reports(&self) -> Result<Option<Arc<ReportIndex>>, ReadError> {
        self.cached(paths::REPORTS)
    }
    /// One report, by id.
    pub fn report(&self, id: &str) -> Result<Option<Arc<Report>>, ReadError> {
        check_segment(id, "report id")?;
        self.cached(&paths::report(id))
    }

    /// The raw bytes of page `n` of a layer, as the manifest lists it,
    /// with the manifest's sha256 for it. The bytes hold their share of
    /// the memory budget ([`crate::memory`]), taken before they are read.
    pub fn page_bytes(
        &self,
        layer: Layer,
        channel: &str,
        n: u32,
    ) -> Result<(PageBytes, String), ReadError> {
        let (path, sha256, size) = self.page_entry(layer, channel, n)?;
        let share = self
            .pages
            .memory
            .take(
                size.saturating_mul(memory::PARSE_FACTOR),
                memory::WAIT_FOR_ROOM,
            )
            .map_err(|e| ReadError::Other(e.to_string()))?;
        let bytes = self
            .store
            .read_page(&path, &sha256)?
            .ok_or_else(|| self.missing_page(&path))?;
        Ok((PageBytes::new(bytes, share), sha256))
    }

    /// Byte ranges of page `n` of a layer, one buffer per range. The
    /// bytes are not checked against the manifest's sha256, which covers
    /// the whole file: the caller checks each against what it expects.
    pub fn page_ranges(
        &self,
        layer: Layer,
        channel: &str,
        n: u32,
        ranges: &[std::ops::Range<u64>],
    ) -> Result<Vec<Vec<u8>>, ReadError> {
        let (path, sha256, _) = self.page_entry(layer, channel, n)?;
        let read = |r: &std::ops::Range<u64>| {
            self.store
                .read_page_range(&path, &sha256, r.clone())?
                .ok_or_else(|| self.missing_page(&path))
        };
        if self.store.local_root().is_some() || ranges.len() < 2 {
            return ranges.iter().map(read).collect();
        }
        // Remote: every range at once, since each is mostly waiting.
        std::thread::scope(|s| {
            let reads: Vec<_> = ranges.iter().map(|r| s.spawn(move || read(r))).collect();
            reads
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(ReadError::Other("a range read panicked".into())))
                })
                .collect()
        })
    }

    /// The path, sha256 and size of page `n` of a layer, from its manifest.
    fn page_entry(
        &self,
        layer: Layer,
        channel: &str,
        n: u32,
    ) -> Result<(String, String, u64), ReadError> {
        let manifest = self.manifest(layer, channel)?.ok_or_else(|| {
            ReadError::Other(format!(
                "{} is not published",
                self.describe(&paths::manifest(layer, channel))
            ))
        })?;
        let entry = n
            .checked_sub(1)
            .and_then(|i| manifest.pages.get(i as usize))
            .ok_or_else(|| {
                ReadError::Other(format!(
                    "{channel} has no {} page {n}: its manifest lists {} page(s)",
                    layer.dir(),
                    manifest.pages.len()
                ))
            })?;
        check_segment(&entry.file, "page file")?;
        let path = format!("{}/{channel}/{}", layer.dir(), entry.file);
        Ok((path, entry.sha256.clone(), entry.bytes))
    }

    fn missing_page(&self, path: &str) -> ReadError {
        ReadError::Other(format!(
            "{} is listed in its manifest but missing; re-export the site",
            self.describe(path)
        ))
    }

    /// The path of page `n` of a layer as its manifest names it.
    pub fn page_path(&self, layer: Layer, channel: &str, n: u32) -> Option<String> {
        let manifest = self.manifest(layer, channel).ok()??;
        let entry = manifest.pages.get(n.checked_sub(1)? as usize)?;
        Some(format!("{}/{channel}/{}", layer.dir(), entry.file))
    }

    /// The channel `slug` as corpus.json lists it.
    pub fn channel(&self, slug: &str) -> Option<&ChannelEntry> {
        self.corpus.channels.iter().find(|c| c.slug == slug)
    }

    /// Video `slug` of `channel`, found through its manifest's
    /// `slugToPage`; `Ok(None)` when the manifest does not list it or its
    /// page does not hold it. Only that video of its page is parsed
    /// ([`format::spans::find`]), and the page's bytes are let go once it
    /// is, so a large page costs its bytes for a moment, not a parsed
    /// page held in memory.
    ///
    /// `span` gives the page and span an index recorded for it (asked
    /// only once the manifest lists the video here): only those bytes are
    /// read first, and used when they are still the video's
    /// ([`VideoSpan::check_record`]).
    pub fn find_video(
        &self,
        channel: &str,
        slug: &str,
        span: impl FnOnce() -> Option<(u32, VideoSpan)>,
    ) -> Result<Option<VideoRecord>, ReadError> {
        let manifest = self.transcript_manifest(channel)?;
        let Some(&n) = manifest.slug_to_page.get(slug) else {
            return Ok(None);
        };
        if let Some((_, span)) = span().filter(|(page, _)| *page == n) {
            let range = std::ops::Range {
                start: span.start,
                end: span.end,
            };
            let read = self.page_ranges(Layer::Transcripts, channel, n, &[range]);
            if let Some(video) = read.ok().and_then(|b| span.check_record(&b[0], slug)) {
                return Ok(Some(video));
            }
        }
        let (bytes, _) = self.page_bytes(Layer::Transcripts, channel, n)?;
        let name = self.describe(&paths::page(Layer::Transcripts, channel, n));
        Ok(format::spans::find(&bytes, &name, slug)?)
    }

    /// Video `slug` of `channel` from its whole parsed page, kept in the
    /// page cache: for a reader that asks for many videos of one page in
    /// turn (the chat threads of a chat page). `Ok(None)` as
    /// [`Site::find_video`].
    pub fn find_video_in_cached_page(
        &self,
        channel: &str,
        slug: &str,
    ) -> Result<Option<VideoRecord>, ReadError> {
        let manifest = self.transcript_manifest(channel)?;
        let Some(&n) = manifest.slug_to_page.get(slug) else {
            return Ok(None);
        };
        let page = self.transcript_page(channel, n)?;
        Ok(page.videos.iter().find(|v| v.slug == slug).cloned())
    }

    /// Post `id` of `channel`, found through its posts manifest;
    /// `Ok(None)` when the channel has no posts or none with that id.
    pub fn find_post(&self, channel: &str, id: &str) -> Result<Option<Post>, ReadError> {
        let Some(manifest) = self.manifest(Layer::Posts, channel)? else {
            return Ok(None);
        };
        let Some(&n) = manifest.slug_to_page.get(id) else {
            return Ok(None);
        };
        let page = self.post_page(channel, n)?;
        Ok(page.posts.iter().find(|p| p.id == id).cloned())
    }

    /// Transcript page `n` (1-based) of `channel`, through the page cache.
    pub fn transcript_page(&self, channel: &str, n: u32) -> Result<Arc<TranscriptPage>, ReadError> {
        match &*self.page(Layer::Transcripts, channel, n)? {
            CachedPage::Transcripts(p) => Ok(p.clone()),
            _ => unreachable!("the transcripts layer caches transcript pages"),
        }
    }

    /// Chat page `n` (1-based) of `channel`, through the page cache.
    pub fn chat_page(&self, channel: &str, n: u32) -> Result<Arc<ChatPage>, ReadError> {
        match &*self.page(Layer::Chat, channel, n)? {
            CachedPage::Chat(p) => Ok(p.clone()),
            _ => unreachable!("the chat layer caches chat pages"),
        }
    }

    /// Posts page `n` (1-based) of `channel`, through the page cache.
    pub fn post_page(&self, channel: &str, n: u32) -> Result<Arc<PostPage>, ReadError> {
        match &*self.page(Layer::Posts, channel, n)? {
            CachedPage::Posts(p) => Ok(p.clone()),
            _ => unreachable!("the posts layer caches post pages"),
        }
    }

    /// Transcript page `n` of `channel`, parsed, if the cache holds it now
    /// (nothing is read).
    pub fn kept_page_view(&self, channel: &str, n: u32) -> Option<Arc<KeptPage>> {
        let (_, sha256, _) = self.page_entry(Layer::Transcripts, channel, n).ok()?;
        let key = self.page_key(Layer::Transcripts, channel, n);
        self.pages.views.get(&(key, sha256))
    }

    /// Transcript page `n` of `channel`, read whole and parsed for a scan,
    /// kept for the next call while the keep limit allows (concurrent
    /// calls for one page share one read). The bytes hold their share of
    /// the memory budget as long as the page is kept or in use.
    pub fn page_view(&self, channel: &str, n: u32) -> Result<Arc<KeptPage>, ReadError> {
        let (_, sha256, _) = self.page_entry(Layer::Transcripts, channel, n)?;
        let key = self.page_key(Layer::Transcripts, channel, n);
        self.pages
            .views
            .get_or_load(&(key, sha256), || {
                let (bytes, _) = self.page_bytes(Layer::Transcripts, channel, n)?;
                let cost = bytes.share_bytes();
                let name = self.describe(&paths::page(Layer::Transcripts, channel, n));
                let kept = yoke::Yoke::try_attach_to_cart(Arc::new(bytes), |b: &PageBytes| {
                    format::parse_page(&b[..], &name, channel, n)
                })?;
                Ok((kept, cost))
            })
            .map_err(|e| (*e).clone())
    }

    /// The cache key of page `n` of a layer of this site.
    fn page_key(&self, layer: Layer, channel: &str, n: u32) -> PageKey {
        PageKey {
            site: self.store.location(),
            layer,
            channel: channel.to_string(),
            page: n,
        }
    }

    fn page(&self, layer: Layer, channel: &str, n: u32) -> Result<Arc<CachedPage>, ReadError> {
        let key = self.page_key(layer, channel, n);
        self.pages
            .parsed
            .get_or_load(&key, || self.load_page(layer, channel, n))
            .map_err(|e| (*e).clone())
    }

    fn load_page(
        &self,
        layer: Layer,
        channel: &str,
        n: u32,
    ) -> Result<(CachedPage, u64), ReadError> {
        let (bytes, _) = self.page_bytes(layer, channel, n)?;
        let name = self.describe(&paths::page(layer, channel, n));
        let page = match layer {
            Layer::Transcripts => {
                CachedPage::Transcripts(Arc::new(format::parse_page(&bytes, &name, channel, n)?))
            }
            Layer::Chat => {
                CachedPage::Chat(Arc::new(format::parse_page(&bytes, &name, channel, n)?))
            }
            Layer::Posts => {
                CachedPage::Posts(Arc::new(format::parse_page(&bytes, &name, channel, n)?))
            }
        };
        Ok((page, bytes.len() as u64))
    }
}

/// A name used as one path segment (a channel slug, a file name, an id)
/// must not hold `/` or be `.` / `..`.
pub fn check_segment(name: &str, what: &'static str) -> Result<(), ReadError> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0', ':']) {
        return Err(ReadError::UnsafePath {
            path: name.to_string(),
            reason: match what {
                "channel" => "a channel slug is one path segment",
                "page file" => "a manifest's page file is a plain file name",
                _ => "an id is one path segment",
            },
        });
    }
    Ok(())
}
