//! What a re-import takes from the archive it replaces instead of reading
//! a video's files again (a video the ledger says is unchanged): a whole
//! page when it would be written with the same records in the same
//! order, else each kept video's JSON text from the page that held it.
//!
//! Promise: what is taken is bytes this archive's import wrote, from a
//! page whose size and modification time are the ones the ledger recorded
//! when that import wrote it (so nothing edited it since); a page is taken
//! whole only when its records are exactly those the import would write
//! there, in order, at the same number. Anything that cannot be taken so
//! is `None`, and the caller reads the video's files.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;

use archilyzer_core::format::paths::{self, Layer};
use archilyzer_core::format::{ChannelStats, Manifest, PageEntry, SummaryRow, VideoStats};

use super::layout::Previous;
use super::ledger::{Ledger, Stat};

/// One channel of the archive being replaced.
pub struct OldChannel<'a> {
    previous: &'a Previous,
    ledger: &'a Ledger,
    channel: String,
    manifest: Option<Manifest>,
    stats: ChannelStats,
    /// The page each of its videos is on.
    page_of: HashMap<String, u32>,
    /// The page last read for a video's text.
    open: Option<OldPage>,
}

/// A page read for its videos' texts.
struct OldPage {
    n: u32,
    bytes: Vec<u8>,
    at: HashMap<String, Range<usize>>,
}

impl<'a> OldChannel<'a> {
    /// `channel` of the archive `previous` describes (nothing, when it
    /// has no such channel or the ledger was not trusted).
    pub fn of(previous: &'a Previous, ledger: &'a Ledger, channel: &str) -> Self {
        let read = |rel: String| {
            let out = previous.out()?;
            let bytes = std::fs::read(out.join(rel)).ok()?;
            Some(bytes)
        };
        let manifest = read(paths::manifest(Layer::Transcripts, channel))
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok());
        let stats = read(paths::stats(channel))
            .and_then(|b| serde_json::from_slice::<ChannelStats>(&b).ok())
            .unwrap_or_default();
        let page_of = manifest
            .as_ref()
            .map(|m| {
                m.slug_to_page
                    .iter()
                    .map(|(s, &p)| (s.clone(), p))
                    .collect()
            })
            .unwrap_or_default();
        OldChannel {
            previous,
            ledger,
            channel: channel.to_string(),
            manifest,
            stats,
            page_of,
            open: None,
        }
    }

    /// Page `n`'s file and manifest entry, when its file is as the ledger
    /// recorded it.
    fn page(&self, n: u32) -> Option<(PathBuf, &PageEntry)> {
        let out = self.previous.out()?;
        let entry = self
            .manifest
            .as_ref()?
            .pages
            .get((n as usize).checked_sub(1)?)?;
        let rel = paths::page(Layer::Transcripts, &self.channel, n);
        let path = out.join(&rel);
        let now = Stat::of(&path)?;
        let recorded = self.ledger.pages.get(&rel)?;
        (now.size == entry.bytes && (now.size, now.mtime_ns) == *recorded).then_some((path, entry))
    }

    /// Page `n` to take whole, when it holds exactly `slugs`, in order.
    pub fn whole_page(&self, n: u32, slugs: &[&str]) -> Option<(PathBuf, &PageEntry)> {
        let old = self.previous.slugs_on(&self.channel, n)?;
        let same = old.len() == slugs.len() && old.iter().zip(slugs).all(|(a, b)| a == b);
        same.then(|| self.page(n)).flatten()
    }

    /// The JSON text of video `slug` as the archive has it.
    pub fn json(&mut self, slug: &str) -> Option<&str> {
        let n = *self.page_of.get(slug)?;
        if self.open.as_ref().is_none_or(|p| p.n != n) {
            self.open = self.read_page(n);
        }
        let page = self.open.as_ref().filter(|p| p.n == n)?;
        let range = page.at.get(slug)?.clone();
        std::str::from_utf8(&page.bytes[range]).ok()
    }

    fn read_page(&self, n: u32) -> Option<OldPage> {
        let (path, entry) = self.page(n)?;
        let bytes = std::fs::read(&path).ok()?;
        if bytes.len() as u64 != entry.bytes {
            return None;
        }
        let base = bytes.as_ptr() as usize;
        let mut at = HashMap::new();
        for text in archilyzer_core::format::spans::raw_videos(&bytes, &entry.file).ok()? {
            #[derive(serde::Deserialize)]
            struct Slug {
                slug: String,
            }
            let slug = serde_json::from_str::<Slug>(text).ok()?.slug;
            let start = text.as_ptr() as usize - base;
            at.insert(slug, start..start + text.len());
        }
        Some(OldPage { n, bytes, at })
    }

    /// The summaries row and stats of video `slug`.
    pub fn facts(&self, slug: &str) -> Option<(SummaryRow, VideoStats)> {
        let row = self.previous.row(&self.channel, slug)?.clone();
        Some((row, self.stats.get(slug)?.clone()))
    }
}
