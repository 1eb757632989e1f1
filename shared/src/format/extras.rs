//! The optional files of a site: summaries, aliases, curated tags,
//! duplicate clusters, stats, digests, live chat, social posts and reports.
//!
//! A site that does not publish one of these simply lacks the file; readers
//! return `None` for it and the tools say "none published".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::transcripts::{Age, MediaType, Paged, State};

/// `summaries/index.json`: one row per video, no transcript text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summaries {
    pub videos: Vec<SummaryRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRow {
    pub channel: String,
    pub slug: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_date: Option<String>,
    #[serde(default)]
    pub media_type: MediaType,
    #[serde(default)]
    pub age: Age,
    #[serde(default)]
    pub state: State,
    /// The transcript page that holds the video (1-based).
    pub page: u32,
    /// Curated tag ids, so a `tags` filter can be planned without pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curated_tags: Vec<String>,
}

impl SummaryRow {
    /// The row of a video record found on `page` of `channel`.
    pub fn of(channel: &str, page: u32, v: &super::VideoRecord) -> Self {
        SummaryRow {
            channel: channel.to_string(),
            slug: v.slug.clone(),
            title: v.title.clone(),
            upload_date: v.upload_date.clone(),
            media_type: v.media_type,
            age: v.age,
            state: v.state,
            page,
            curated_tags: v.curated_tags.clone(),
        }
    }
}

/// One entry of `aliases.json`: a plain query that matches a trigger also
/// searches `regex`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alias {
    pub id: String,
    pub label: String,
    pub triggers: Vec<String>,
    pub regex: String,
}

/// One entry of `tags.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CuratedTag {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `duplicates.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Duplicates {
    pub clusters: Vec<DuplicateCluster>,
}

/// Uploads of one recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateCluster {
    pub id: String,
    pub canonical: VideoKey,
    pub members: Vec<DuplicateMember>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VideoKey {
    pub channel: String,
    pub slug: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateMember {
    pub channel: String,
    pub slug: String,
    /// `Some(true)` only when the timings were measured to line up. Absent
    /// means never measured, which must be treated as not aligned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned: Option<bool>,
    /// Seconds to add to this member's times to reach the canonical's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<f64>,
}

/// `stats/<channel>.json`: slug → figures.
pub type ChannelStats = BTreeMap<String, VideoStats>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoStats {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub likes: Option<u64>,
    pub cues: u32,
    /// Fraction (0..=1) of the duration covered by captions.
    pub coverage: f64,
}

/// `digests/<channel>.json`: slug → AI chapters and tags.
pub type ChannelDigests = BTreeMap<String, Digest>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    pub chapters: Vec<Chapter>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub model: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chapter {
    pub start: f64,
    pub title: String,
}

/// `chat/<channel>/page-NNNN.json`. Its manifest is a
/// [`Manifest`](super::Manifest) whose `slugToPage` maps video slugs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatPage {
    pub channel: String,
    pub page: u32,
    pub videos: Vec<VideoChat>,
}

impl Paged for ChatPage {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoChat {
    pub slug: String,
    pub messages: Vec<ChatMessage>,
}

array_record! {
    /// `[t, author, text]` on disk; `t` in seconds from the video's start.
    ChatMessage { t: f64, author: String, text: String }
}

/// `posts/<channel>/page-NNNN.json`. Its manifest's `slugToPage` maps post
/// ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostPage {
    pub channel: String,
    pub page: u32,
    pub posts: Vec<Post>,
}

impl Paged for PostPage {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    pub id: String,
    pub author: String,
    /// `YYYYMMDD`.
    pub date: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The post this one answers, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<String>,
    /// The id of the thread's first post (itself, for a root post).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
}

/// `reports/index.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReportIndex {
    pub reports: Vec<ReportSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSummary {
    pub id: String,
    pub title: String,
    /// `fact-check`, `timeline`, `brief`... free text.
    pub kind: String,
    pub claims: u32,
    pub citations: u32,
    /// Verdict → how many claims carry it (fact-checks only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verdicts: BTreeMap<String, u32>,
}

/// `reports/<id>/page.json`: one report with every citation resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub id: String,
    pub title: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    pub sections: Vec<ReportSection>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSection {
    pub id: String,
    pub title: String,
    pub claims: Vec<Claim>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub findings: String,
    pub citations: Vec<Citation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    pub channel: String,
    pub slug: String,
    pub start: f64,
    pub end: f64,
    /// Verbatim words of the cited span.
    pub quote: String,
    /// The original at the cited second (platform page, post, document).
    pub url: String,
}
