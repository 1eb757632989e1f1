//! What confirming a page gives, shared by every way of confirming it
//! (whole, by spans, by places): the videos found with what each result
//! says, and how near two reads must be to be made as one.

use super::terms::Judged;
use super::VideoResult;
use crate::archive::{PageRef, Site};
use crate::format::CaptionSource;

/// What one page gave: its matching videos (or posts), and what could
/// not be checked.
#[derive(Debug, Default)]
pub(super) struct PageResult {
    pub videos: Vec<VideoResult>,
    pub notes: Vec<String>,
    /// Matching videos left out only for having no upload date.
    pub undated: usize,
    /// Bytes read to confirm the page.
    pub bytes: u64,
}

impl PageResult {
    pub fn videos(videos: Vec<VideoResult>) -> Self {
        PageResult {
            videos,
            ..PageResult::default()
        }
    }
}

/// Spans closer than this are fetched in one read: a request costs more
/// than a few kilobytes more of body.
pub(super) const MERGE_GAP: u64 = 16 * 1024;

/// What a result says about the item it is (a video, or a post).
pub(super) struct Item<'a> {
    pub kind: &'static str,
    pub slug: &'a str,
    pub title: &'a str,
    pub date: Option<String>,
    pub url: Option<String>,
    pub platform: Option<crate::format::Platform>,
    pub captions: CaptionSource,
    /// What relevance weighs its hits against ([`crate::format::text_bytes`] of its text).
    pub length: u32,
}

impl Judged {
    pub(super) fn into_result(self, site: &Site, p: &PageRef, item: Item) -> VideoResult {
        VideoResult {
            site: site.id().to_string(),
            channel: p.channel.clone(),
            slug: item.slug.to_string(),
            title: item.title.to_string(),
            upload_date: item.date,
            url: item.url,
            platform: item.platform,
            machine_translated: item.captions == CaptionSource::Translated,
            kind: item.kind,
            page: p.page,
            hits: self.hits,
            expansion_hits: self.expansion_hits,
            exact_hits: self.exact_hits,
            length: item.length,
        }
    }
}
