//! The optional files of a site: summaries, aliases, curated tags,
//! duplicate clusters, stats, digests, live chat, social posts and reports.
//!
//! A site that does not publish one of these simply lacks the file; readers
//! return `None` for it and the tools say "none published".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::transcripts::Paged;
use super::HasFacts;

/// `summaries/index.json`: one row per video, no transcript text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summaries {
    /// One row per video of the site.
    pub videos: Vec<SummaryRow>,
}

super::facts::with_facts! {
    /// A video as `summaries/index.json` lists it: enough to plan a filtered question without reading pages.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct SummaryRow {
        /// The channel's slug.
        pub channel: String,
        /// The video's slug (its platform id).
        pub slug: String,
        /// Its title.
        pub title: String,
        ..Facts,
        /// The transcript page that holds the video (1-based).
        pub page: u32,
    }
}

impl SummaryRow {
    /// The row of video `slug` (`title`, `facts`) found on `page` of `channel`.
    pub fn of(channel: &str, page: u32, slug: &str, title: &str, facts: super::Facts) -> Self {
        let mut row = SummaryRow {
            channel: channel.to_string(),
            slug: slug.to_string(),
            title: title.to_string(),
            page,
            ..SummaryRow::default()
        };
        row.set_facts(facts);
        row
    }
}

/// One entry of `aliases.json`: a plain query that matches a trigger also
/// searches `regex`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alias {
    /// The alias's id.
    pub id: String,
    /// How the footer names it (`K-Cups`).
    pub label: String,
    /// Plain queries that fire it, compared normalised.
    pub triggers: Vec<String>,
    /// The regex searched beside the query when it fires.
    pub regex: String,
}

/// One entry of `tags.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CuratedTag {
    /// The id the `tags` filter takes.
    pub id: String,
    /// How people see it.
    pub label: String,
    /// The group it is listed under, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `duplicates.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Duplicates {
    /// Every cluster of uploads of one recording.
    pub clusters: Vec<DuplicateCluster>,
}

/// Uploads of one recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateCluster {
    /// The cluster's id.
    pub id: String,
    /// The upload treated as the original.
    pub canonical: VideoKey,
    /// Every upload of the recording, the canonical one included.
    pub members: Vec<DuplicateMember>,
}

/// A video by channel and slug.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VideoKey {
    /// The channel's slug.
    pub channel: String,
    /// The video's slug.
    pub slug: String,
}

/// One upload of a duplicate cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateMember {
    /// The channel's slug.
    pub channel: String,
    /// The video's slug.
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

/// Figures of one video, from `stats/<channel>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VideoStats {
    /// Views, when the platform reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views: Option<u64>,
    /// Likes, when the platform reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub likes: Option<u64>,
    /// How many cues its transcript has.
    pub cues: u32,
    /// Fraction (0..=1) of the duration covered by captions.
    pub coverage: f64,
}

/// `digests/<channel>.json`: slug → AI chapters and tags.
pub type ChannelDigests = BTreeMap<String, Digest>;

/// What a language model made of one video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    /// Chapters with their start times.
    pub chapters: Vec<Chapter>,
    /// Topic tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The model that made it (these are not evidence).
    pub model: String,
}

/// One AI chapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chapter {
    /// Where it starts, seconds.
    pub start: f64,
    /// Its title.
    pub title: String,
}

/// `chat/<channel>/page-NNNN.json`. Its manifest is a
/// [`Manifest`](super::Manifest) whose `slugToPage` maps video slugs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatPage {
    /// The channel's slug.
    pub channel: String,
    /// The page number, from 1.
    pub page: u32,
    /// Each video's chat on this page.
    pub videos: Vec<VideoChat>,
}

impl Paged for ChatPage {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

/// The live chat of one video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoChat {
    /// The video's slug (its record is on a transcript page).
    pub slug: String,
    /// The messages, in time order.
    pub messages: Vec<ChatMessage>,
}

array_record! {
    /// `[t, author, text]` on disk; `t` in seconds from the video's start.
    ChatMessage {
        /// Seconds from the video's start.
        t: f64,
        /// The viewer who wrote it (never the speaker).
        author: String,
        /// What they wrote.
        text: String,
    }
}

/// `posts/<channel>/page-NNNN.json`. Its manifest's `slugToPage` maps post
/// ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostPage {
    /// The channel's slug.
    pub channel: String,
    /// The page number, from 1.
    pub page: u32,
    /// The posts of this page.
    pub posts: Vec<Post>,
}

impl Paged for PostPage {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

/// A post (community post, tweet, forum message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    /// Its id, unique in the channel.
    pub id: String,
    /// Who wrote it.
    pub author: String,
    /// `YYYYMMDD`.
    pub date: String,
    /// What it says.
    pub text: String,
    /// Where it was published, if known.
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportIndex {
    /// Every report, in the order the site lists them.
    pub reports: Vec<ReportSummary>,
}

/// A report as the index lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportSummary {
    /// Its id (`reports/<id>.json`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// `fact-check`, `timeline`, `brief`... free text.
    pub kind: String,
    /// How many claims it makes.
    pub claims: u32,
    /// How many moments it cites.
    pub citations: u32,
    /// Verdict → how many claims carry it (fact-checks only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verdicts: BTreeMap<String, u32>,
}

/// `reports/<id>/page.json`: one report with every citation resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// What kind of report (a fact-check, a digest…).
    pub kind: String,
    /// Its summary, as published.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// Its sections, in order.
    pub sections: Vec<ReportSection>,
}

/// A section of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportSection {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its claims, in order.
    pub claims: Vec<Claim>,
}

/// One claim of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Claim {
    /// The claim, verbatim.
    pub text: String,
    /// A fact-check's verdict, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// What was found, as published.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub findings: String,
    /// The moments it cites.
    pub citations: Vec<Citation>,
}

/// One cited moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Citation {
    /// The channel's slug.
    pub channel: String,
    /// The video's slug.
    pub slug: String,
    /// Start of the cited span, seconds.
    pub start: f64,
    /// End of the cited span, seconds.
    pub end: f64,
    /// Verbatim words of the cited span.
    pub quote: String,
    /// The original at the cited second (platform page, post, document).
    pub url: String,
}
