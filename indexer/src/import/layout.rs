//! Where each video of a channel goes: the page layout.
//!
//! A fresh import cuts a channel's videos into pages by size, in date
//! order. A re-import into an archive of ours keeps the layout that archive
//! has, so the daily loop rewrites few pages and the next `build` reads
//! only those:
//!
//! - every video still there stays on its page, in its place (a page whose
//!   videos are unchanged is written with the same bytes);
//! - a page left with no video is filled by the channel's last page, so
//!   at most that one page changes its number;
//! - new videos, in date order, go onto the last page until it reaches the
//!   target size, then onto new pages.
//!
//! Adding, back-filling, removing or changing one video thus rewrites at
//! most two pages of its channel. The price: a kept archive's pages are in
//! the order videos arrived, dated order only within each import's new
//! pages; `import --repack` writes the whole archive in date order again.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use archilyzer_core::format::{Summaries, SummaryRow};

use super::Planned;

/// The pages of each channel of an existing archive: the slugs on each,
/// in page order and in their order on the page.
#[derive(Debug, Default)]
pub struct Previous {
    channels: BTreeMap<String, Vec<Vec<String>>>,
    /// Its summaries rows, by `(channel, slug)`.
    rows: HashMap<(String, String), SummaryRow>,
    /// Where it is, when there is one.
    out: Option<PathBuf>,
}

impl Previous {
    /// The layout of the archive at `out`, read from its summaries (rows
    /// are written in page order); empty when there is none to read.
    pub fn of(out: &Path) -> Previous {
        let path = out.join(archilyzer_core::format::paths::SUMMARIES);
        let rows = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Summaries>(&b).ok())
            .map(|s| s.videos)
            .unwrap_or_default();
        let mut channels: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        let mut by_slug = HashMap::new();
        for row in rows {
            let pages = channels.entry(row.channel.clone()).or_default();
            let n = row.page.max(1) as usize;
            if pages.len() < n {
                pages.resize(n, Vec::new());
            }
            pages[n - 1].push(row.slug.clone());
            by_slug.insert((row.channel.clone(), row.slug.clone()), row);
        }
        Previous {
            channels,
            rows: by_slug,
            out: Some(out.to_path_buf()),
        }
    }

    /// The archive's folder, when there was one.
    pub fn out(&self) -> Option<&Path> {
        self.out.as_deref().filter(|_| !self.channels.is_empty())
    }

    /// The slugs on page `n` (1-based) of `channel`, in page order.
    pub fn slugs_on(&self, channel: &str, n: u32) -> Option<&[String]> {
        let pages = self.channels.get(channel)?;
        pages.get((n as usize).checked_sub(1)?).map(Vec::as_slice)
    }

    /// The summaries row of `slug` in `channel`.
    pub fn row(&self, channel: &str, slug: &str) -> Option<&SummaryRow> {
        self.rows.get(&(channel.to_string(), slug.to_string()))
    }

    /// What an import writing `now` (`(channel, id)` of every video)
    /// changes against this layout; `None` when there was no archive.
    pub fn change(&self, now: &BTreeSet<(String, String)>) -> Option<Change> {
        if self.channels.is_empty() {
            return None;
        }
        let before: BTreeSet<(String, String)> = self
            .channels
            .iter()
            .flat_map(|(c, pages)| pages.iter().flatten().map(move |s| (c.clone(), s.clone())))
            .collect();
        Some(Change {
            added: now.difference(&before).cloned().collect(),
            gone: before.difference(now).cloned().collect(),
            kept: now.intersection(&before).count(),
        })
    }
}

/// What a re-import changed: the videos new to the archive, those no
/// longer in it, and how many stayed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Change {
    /// `(channel, id)` of each video new to the archive.
    pub added: Vec<(String, String)>,
    /// `(channel, id)` of each video the archive had and no longer has.
    pub gone: Vec<(String, String)>,
    /// Videos in both.
    pub kept: usize,
}

/// One page to write: its videos, and whether the pager may cut it by
/// size (a kept page is written whole, as it was).
pub struct PagePlan {
    pub videos: Vec<Planned>,
    /// The page continues with the new videos until the target size.
    pub open: bool,
}

/// The pages of `channel`, its `videos` given in date order.
pub fn arrange(channel: &str, videos: Vec<Planned>, previous: &Previous) -> Vec<PagePlan> {
    let Some(old) = previous.channels.get(channel) else {
        return vec![PagePlan { videos, open: true }];
    };
    let mut by_slug: HashMap<String, Planned> = videos
        .into_iter()
        .map(|v| (v.record.slug.clone(), v))
        .collect();
    let mut kept: Vec<Vec<Planned>> = old
        .iter()
        .map(|slugs| slugs.iter().filter_map(|s| by_slug.remove(s)).collect())
        .collect();
    fill_holes(&mut kept);
    let mut new: Vec<Planned> = by_slug.into_values().collect();
    new.sort_by_key(date_order);
    let last = kept.len().saturating_sub(1);
    let mut pages: Vec<PagePlan> = kept
        .into_iter()
        .enumerate()
        .map(|(i, videos)| PagePlan {
            videos,
            open: i == last,
        })
        .collect();
    match pages.last_mut() {
        Some(p) => p.videos.extend(new),
        None => pages.push(PagePlan {
            videos: new,
            open: true,
        }),
    }
    pages
}

/// Fills each page left empty with the last page, so only that page's
/// number changes; drops empty pages at the end.
fn fill_holes(pages: &mut Vec<Vec<Planned>>) {
    while pages.last().is_some_and(Vec::is_empty) {
        pages.pop();
    }
    let mut i = 0;
    while i < pages.len() {
        if pages[i].is_empty() {
            let last = pages.pop().unwrap_or_default();
            if i < pages.len() {
                pages[i] = last;
            }
            while pages.last().is_some_and(Vec::is_empty) {
                pages.pop();
            }
        }
        i += 1;
    }
}

/// The order a fresh import writes a channel in.
pub fn date_order(v: &Planned) -> (Option<String>, Option<u64>, String, String) {
    (
        v.record.upload_date.clone(),
        v.seq,
        v.record.slug.clone(),
        v.record.title.clone(),
    )
}
