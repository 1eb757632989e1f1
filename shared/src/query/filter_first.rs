//! Filter-first planning without an index: which transcript pages may
//! hold a video that passes the filters, decided from the site's
//! `summaries/index.json` (each video's facts) and each manifest's
//! `slugToPage` (where each video is).
//!
//! Promise: a page is left out only when every video `slugToPage` places
//! on it has a summaries row and that row fails the filters
//! ([`Verdict::Fails`], the predicate confirming uses). A video the
//! summaries do not know, a page no slug is placed on, a channel whose
//! manifest cannot be read, and a site whose summaries cannot be read all
//! have their pages read.

use std::collections::{HashMap, HashSet};

use super::filters::{Filters, Verdict, VideoFacts};
use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;

/// For each page of `pages`, whether it may hold a video passing
/// `filters`; `None` when the filters narrow nothing (every page may).
/// Pages of other layers than transcripts are always kept.
pub fn pages(archive: &Archive, pages: &[PageRef], filters: &Filters) -> Option<Vec<bool>> {
    if !filters.narrows_videos() {
        return None;
    }
    let mut keep: HashSet<(usize, &str, u32)> = HashSet::new();
    let mut unknown: HashSet<(usize, &str)> = HashSet::new();
    for (site_index, site) in archive.sites().iter().enumerate() {
        let Ok(Some(summaries)) = site.summaries() else {
            for ch in &site.corpus().channels {
                unknown.insert((site_index, ch.slug.as_str()));
            }
            continue;
        };
        let rows: HashMap<(&str, &str), &crate::format::SummaryRow> = summaries
            .videos
            .iter()
            .map(|r| ((r.channel.as_str(), r.slug.as_str()), r))
            .collect();
        for ch in &site.corpus().channels {
            let manifest = match site.transcript_manifest(&ch.slug) {
                Ok(m) if !m.slug_to_page.is_empty() => m,
                _ => {
                    unknown.insert((site_index, ch.slug.as_str()));
                    continue;
                }
            };
            for (slug, &page) in &manifest.slug_to_page {
                let passes = rows
                    .get(&(ch.slug.as_str(), slug.as_str()))
                    .is_none_or(|r| {
                        filters.verdict(&VideoFacts::of_row(site_index, &r.channel, *r))
                            != Verdict::Fails
                    });
                if passes {
                    keep.insert((site_index, ch.slug.as_str(), page));
                }
            }
            // A page no slug is placed on is not described: read it.
            let placed: HashSet<u32> = manifest.slug_to_page.values().copied().collect();
            for page in (1..=manifest.pages.len() as u32).filter(|p| !placed.contains(p)) {
                keep.insert((site_index, ch.slug.as_str(), page));
            }
        }
    }
    Some(
        pages
            .iter()
            .map(|p| {
                p.layer != Layer::Transcripts
                    || unknown.contains(&(p.site, p.channel.as_str()))
                    || keep.contains(&(p.site, p.channel.as_str(), p.page))
            })
            .collect(),
    )
}
