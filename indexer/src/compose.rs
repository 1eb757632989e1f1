//! Writing a composed public dir: pages, manifests, summaries, extras and
//! `corpus.json`, the way an export would.
//!
//! Promises: every page file's `bytes` and `sha256` in its manifest are
//! those of the bytes written; `slugToPage` lists every record; pages are
//! cut at a byte target, never splitting a record; the summaries table has
//! one row per video written. The caller writes into a staging directory
//! and renames it into place ([`Staging`]), so a reader never sees half an
//! archive.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use archilyzer_core::format::paths::{self, Layer};
use archilyzer_core::format::{page_file_name, CorpusFile, Manifest, PageEntry, Platform};
use archilyzer_core::source::sha256_hex;
pub use archilyzer_core::staging::Staging;
use serde::Serialize;

/// Writes `value` as JSON to `root/rel`, creating directories.
pub fn write_json<T: Serialize>(root: &Path, rel: &str, value: &T) -> Result<u64> {
    let bytes = serde_json::to_vec(value)?;
    write_bytes(root, rel, &bytes)
}

fn write_bytes(root: &Path, rel: &str, bytes: &[u8]) -> Result<u64> {
    let path = root.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(bytes.len() as u64)
}

/// Cuts serialized records of one channel and layer into pages.
pub struct Pager<'a> {
    root: &'a Path,
    layer: Layer,
    channel: String,
    /// `"videos"` or `"posts"`: the array's name in the page object.
    field: &'static str,
    target_bytes: usize,
    pages: Vec<PageEntry>,
    slug_to_page: BTreeMap<String, u32>,
    current: Vec<u8>,
    current_count: u32,
}

impl<'a> Pager<'a> {
    /// A pager writing `layer` pages of `channel` under `root`, each of about `target_bytes`.
    pub fn new(root: &'a Path, layer: Layer, channel: &str, target_bytes: usize) -> Self {
        Pager {
            root,
            layer,
            channel: channel.to_string(),
            field: if layer == Layer::Posts {
                "posts"
            } else {
                "videos"
            },
            target_bytes,
            pages: Vec::new(),
            slug_to_page: BTreeMap::new(),
            current: Vec::new(),
            current_count: 0,
        }
    }

    /// The page number the next record will land on.
    pub fn next_page(&self) -> u32 {
        self.pages.len() as u32 + 1
    }

    /// Adds one record, keyed by `slug` (a post's id for posts); returns
    /// its page and its size in bytes.
    pub fn push<T: Serialize>(&mut self, slug: &str, record: &T) -> Result<(u32, usize)> {
        let placed = self.push_uncut(slug, record)?;
        if self.current.len() >= self.target_bytes {
            self.flush()?;
        }
        Ok(placed)
    }

    /// Adds one record to the page being written whatever its size (a
    /// page kept as it was); [`Pager::cut`] ends the page.
    pub fn push_uncut<T: Serialize>(&mut self, slug: &str, record: &T) -> Result<(u32, usize)> {
        if self.current_count > 0 {
            self.current.push(b',');
        }
        let before = self.current.len();
        serde_json::to_writer(&mut self.current, record)?;
        Ok(self.placed(slug, before))
    }

    /// Adds one record given as its JSON text (a record kept from the
    /// page of an earlier archive, written then by [`Pager::push`]);
    /// returns its page and its size in bytes.
    pub fn push_raw(&mut self, slug: &str, json: &str, open: bool) -> Result<(u32, usize)> {
        if self.current_count > 0 {
            self.current.push(b',');
        }
        let before = self.current.len();
        self.current.extend_from_slice(json.as_bytes());
        let placed = self.placed(slug, before);
        if open && self.current.len() >= self.target_bytes {
            self.flush()?;
        }
        Ok(placed)
    }

    fn placed(&mut self, slug: &str, before: usize) -> (u32, usize) {
        self.current_count += 1;
        let page = self.next_page();
        self.slug_to_page.insert(slug.to_string(), page);
        (page, self.current.len() - before)
    }

    /// Takes page `entry` of an earlier archive whole, its file at `old`
    /// (linked where the file system allows, else copied), as the next
    /// page, holding `slugs`. The caller has proved the page is the one
    /// it would write: the same records, in order, at the same number
    /// (the number is part of the page's bytes).
    pub fn keep_page(&mut self, old: &Path, entry: &PageEntry, slugs: &[&str]) -> Result<()> {
        anyhow::ensure!(self.current_count == 0, "a page is being written");
        let n = self.next_page();
        anyhow::ensure!(
            entry.file == page_file_name(n),
            "page {n} is not {}",
            entry.file
        );
        let path = self.root.join(paths::page(self.layer, &self.channel, n));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        if std::fs::hard_link(old, &path).is_err() {
            std::fs::copy(old, &path)
                .with_context(|| format!("cannot copy {} to {}", old.display(), path.display()))?;
        }
        for slug in slugs {
            self.slug_to_page.insert(slug.to_string(), n);
        }
        self.pages.push(entry.clone());
        Ok(())
    }

    /// Ends the page being written (nothing when it is empty).
    pub fn cut(&mut self) -> Result<()> {
        self.flush()
    }

    fn flush(&mut self) -> Result<()> {
        if self.current_count == 0 {
            return Ok(());
        }
        let n = self.next_page();
        let head = format!(
            "{{\"channel\":{},\"page\":{n},\"{}\":[",
            serde_json::to_string(&self.channel)?,
            self.field
        );
        let mut bytes = Vec::with_capacity(head.len() + self.current.len() + 2);
        bytes.extend_from_slice(head.as_bytes());
        bytes.append(&mut self.current);
        bytes.extend_from_slice(b"]}");
        write_bytes(
            self.root,
            &paths::page(self.layer, &self.channel, n),
            &bytes,
        )?;
        self.pages.push(PageEntry {
            file: page_file_name(n),
            videos: self.current_count,
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
        });
        self.current_count = 0;
        Ok(())
    }

    /// Writes the last page and the manifest; returns the manifest.
    pub fn finish(mut self, name: &str, platform: Option<Platform>) -> Result<Manifest> {
        self.flush()?;
        let manifest = Manifest {
            channel: self.channel.clone(),
            name: name.to_string(),
            platform,
            pages: self.pages,
            slug_to_page: self.slug_to_page.into(),
        };
        write_json(
            self.root,
            &paths::manifest(self.layer, &self.channel),
            &manifest,
        )?;
        Ok(manifest)
    }
}

/// Writes `corpus.json` last, so a directory with one is complete.
pub fn write_corpus(root: &Path, corpus: &CorpusFile) -> Result<()> {
    write_json(root, paths::CORPUS, corpus)?;
    Ok(())
}
