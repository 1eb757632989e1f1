//! Building the index: read every page once (or only the changed ones),
//! tokenise every searchable field, write the files atomically.
//!
//! Promises: a page whose manifest sha256 and file stamp equal those of the
//! previous build (same source, same versions) is not read again, its words
//! are carried over; a page that cannot be read or parsed is recorded as
//! failed with the reason (the planner then always reads it); the index is
//! written to a staging directory and renamed into place (invariant 3).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use fst::Streamer;

use super::read::RawIndex;
use super::{encode_postings, LayerName, Meta, PageKey, PageMeta, VideoRow, FORMAT_VERSION};
use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;
use crate::format::{self, ChatPage, PostPage, TranscriptPage};
use crate::source::ReadError;
use crate::staging::Staging;
use crate::text::{for_each_token, NORMALIZER_VERSION};

/// What a build reports as it goes.
#[derive(Debug)]
pub enum BuildEvent<'a> {
    /// Pages in all, and how many must be read (the rest are reused).
    Start { pages: usize, to_read: usize },
    /// One page read (or failed).
    PageRead { key: &'a PageKey, bytes: u64 },
}

/// What a build did.
#[derive(Debug, Default)]
pub struct BuildReport {
    pub pages: usize,
    pub read: usize,
    pub reused: usize,
    pub bytes_read: u64,
    /// `page: reason` for each page (or manifest) that could not be read.
    pub failed: Vec<String>,
    pub terms: usize,
    pub videos: usize,
    pub index_bytes: u64,
    pub seconds: f64,
}

/// The words and videos of one page.
#[derive(Default)]
struct PageWords {
    words: HashSet<Box<str>>,
    videos: Vec<VideoRow>,
}

/// Builds (or incrementally rebuilds) the index of `archive` in `dir`.
pub fn build(
    archive: &Archive,
    dir: &Path,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, ReadError> {
    let started = Instant::now();
    let (pages, problems) = archive.page_table();
    let source = archive.handle().to_string();
    let keys: Vec<PageKey> = pages.iter().map(|p| key_of(archive, p)).collect();
    let old = RawIndex::load(dir)
        .ok()
        .filter(|o| o.meta.source == source && o.compatible());
    let reuse: Vec<Option<u32>> = keys
        .iter()
        .zip(&pages)
        .map(|(k, p)| {
            old.as_ref()
                .and_then(|o| o.reusable(k, &p.sha256, p.stamp.as_deref()))
        })
        .collect();
    let to_read: Vec<usize> = (0..pages.len()).filter(|&i| reuse[i].is_none()).collect();
    progress(BuildEvent::Start {
        pages: pages.len(),
        to_read: to_read.len(),
    });

    let mut words: Vec<PageWords> = (0..pages.len()).map(|_| PageWords::default()).collect();
    let mut report = BuildReport {
        pages: pages.len(),
        failed: problems,
        ..Default::default()
    };
    if let Some(old) = &old {
        carry_over(old, &reuse, &mut words)?;
    }
    let fresh = read_pages(archive, &pages, &keys, &to_read, progress);
    let mut failures: HashMap<usize, String> = HashMap::new();
    for (i, result) in fresh {
        match result {
            Ok((w, bytes)) => {
                words[i] = w;
                report.bytes_read += bytes;
            }
            Err(e) => {
                report.failed.push(e.to_string());
                failures.insert(i, e.to_string());
            }
        }
    }
    report.read = to_read.len();
    report.reused = pages.len() - to_read.len();
    let meta = Meta {
        format: FORMAT_VERSION,
        normalizer: NORMALIZER_VERSION,
        source,
        built_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        pages: keys
            .into_iter()
            .zip(&pages)
            .enumerate()
            .map(|(i, (key, p))| PageMeta {
                key,
                sha256: p.sha256.clone(),
                stamp: p.stamp.clone(),
                failed: failures.remove(&i),
            })
            .collect(),
    };
    let (terms, videos, bytes) = write(dir, &meta, words)?;
    report.terms = terms;
    report.videos = videos;
    report.index_bytes = bytes;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

pub(crate) fn key_of(archive: &Archive, p: &PageRef) -> PageKey {
    PageKey {
        site: archive.sites()[p.site].id().to_string(),
        layer: p.layer.into(),
        channel: p.channel.clone(),
        page: p.page,
    }
}

/// Gives reused pages their words and videos from the previous index.
fn carry_over(
    old: &RawIndex,
    reuse: &[Option<u32>],
    words: &mut [PageWords],
) -> Result<(), ReadError> {
    let new_of_old: HashMap<u32, usize> = reuse
        .iter()
        .enumerate()
        .filter_map(|(new, o)| o.map(|o| (o, new)))
        .collect();
    if new_of_old.is_empty() {
        return Ok(());
    }
    let mut stream = old.terms.stream();
    while let Some((term, offset)) = stream.next() {
        let term: Box<str> = String::from_utf8_lossy(term).into();
        for id in old.postings(offset)? {
            if let Some(&new) = new_of_old.get(&id) {
                words[new].words.insert(term.clone());
            }
        }
    }
    for row in &old.videos {
        let old_id = old.page_id(&PageKey {
            site: row.site.clone(),
            layer: LayerName::Transcripts,
            channel: row.row.channel.clone(),
            page: row.row.page,
        });
        if let Some(new) = old_id.and_then(|o| new_of_old.get(&o)) {
            words[*new].videos.push(row.clone());
        }
    }
    Ok(())
}

type PageResult = (usize, Result<(PageWords, u64), ReadError>);

/// Reads and tokenises the pages `todo`, on every core.
fn read_pages(
    archive: &Archive,
    pages: &[PageRef],
    keys: &[PageKey],
    todo: &[usize],
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> Vec<PageResult> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(todo.len()));
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some(&i) = todo.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let result = page_words(archive, &pages[i]);
                    let bytes = result.as_ref().map(|r| r.1).unwrap_or(0);
                    progress(BuildEvent::PageRead {
                        key: &keys[i],
                        bytes,
                    });
                    out.lock().unwrap().push((i, result));
                }
            });
        }
    });
    out.into_inner().unwrap()
}

/// Every word of every searchable field of one page.
fn page_words(archive: &Archive, p: &PageRef) -> Result<(PageWords, u64), ReadError> {
    let site = &archive.sites()[p.site];
    let (bytes, _) = site.page_bytes(p.layer, &p.channel, p.page)?;
    let name = site.describe(&format::paths::page(p.layer, &p.channel, p.page));
    let mut w = PageWords::default();
    let mut add = |text: &str| {
        for_each_token(text, |t, _| {
            if !w.words.contains(t) {
                w.words.insert(t.into());
            }
        })
    };
    let channel_name = site
        .corpus()
        .channels
        .iter()
        .find(|c| c.slug == p.channel)
        .map(|c| c.name.clone())
        .unwrap_or_default();
    add(&channel_name);
    let mut videos = Vec::new();
    match p.layer {
        Layer::Transcripts => {
            let page: TranscriptPage = format::parse(&bytes, &name)?;
            for v in &page.videos {
                add(&v.title);
                add(&v.description);
                for t in &v.tags {
                    add(t);
                }
                for c in &v.cues {
                    add(&c.text);
                }
                videos.push(VideoRow::of(site.id(), &p.channel, p.page, v));
            }
        }
        Layer::Chat => {
            let page: ChatPage = format::parse(&bytes, &name)?;
            for m in page.videos.iter().flat_map(|v| &v.messages) {
                add(&m.text);
            }
        }
        Layer::Posts => {
            let page: PostPage = format::parse(&bytes, &name)?;
            for post in &page.posts {
                add(&post.text);
            }
        }
    }
    w.videos = videos;
    Ok((w, bytes.len() as u64))
}

/// Writes the index files to a staging dir and renames it over `dir`.
/// Returns the term count, video count and index size in bytes.
fn write(dir: &Path, meta: &Meta, pages: Vec<PageWords>) -> Result<(usize, usize, u64), ReadError> {
    let io = |what: &str, e: std::io::Error| {
        ReadError::Other(format!(
            "cannot write the index at {}: {what}: {e}",
            dir.display()
        ))
    };
    let mut postings: HashMap<Box<str>, Vec<u32>> = HashMap::new();
    let mut videos = Vec::new();
    for (id, page) in pages.into_iter().enumerate() {
        for w in page.words {
            postings.entry(w).or_default().push(id as u32);
        }
        videos.extend(page.videos);
    }
    let mut terms: Vec<(Box<str>, Vec<u32>)> = postings.into_iter().collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let staging = Staging::beside(dir).map_err(|e| io("staging", e))?;
    let root = staging.path();
    let mut map = fst::MapBuilder::new(Vec::new()).map_err(|e| ReadError::Other(e.to_string()))?;
    let mut blob = Vec::new();
    let mut text = String::new();
    for (term, ids) in &mut terms {
        ids.sort_unstable();
        map.insert(term.as_bytes(), blob.len() as u64)
            .map_err(|e| ReadError::Other(e.to_string()))?;
        encode_postings(&mut blob, ids);
        text.push_str(term);
        text.push('\n');
    }
    let fst_bytes = map
        .into_inner()
        .map_err(|e| ReadError::Other(e.to_string()))?;
    let files: [(&str, Vec<u8>); 5] = [
        ("terms.fst", fst_bytes),
        ("postings.bin", blob),
        ("terms.txt", text.into_bytes()),
        (
            "videos.json",
            serde_json::to_vec(&videos).map_err(|e| ReadError::Other(e.to_string()))?,
        ),
        (
            "meta.json",
            serde_json::to_vec(meta).map_err(|e| ReadError::Other(e.to_string()))?,
        ),
    ];
    let mut total = 0;
    for (name, bytes) in &files {
        std::fs::write(root.join(name), bytes).map_err(|e| io(name, e))?;
        total += bytes.len() as u64;
    }
    staging.commit().map_err(|e| io("rename", e))?;
    Ok((terms.len(), videos.len(), total))
}
