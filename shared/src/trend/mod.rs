//! Mentions over time: the confirmed matches of one or more queries,
//! counted per year, quarter or month beside the hours of speech in scope.
//! Both front ends (`mention_trend`, `archilyzer-index trend`) call
//! [`trend`] and only render what it returns.
//!
//! Promises:
//! - **The counts are the search's own.** Each query runs as one
//!   [`search_each`] with the caller's request, and a video counts the
//!   hits that search confirmed. Summed over the periods and
//!   [`Trend::undated`], a query's videos and hits are what
//!   `enumerate_matches` reports for the same arguments: mirrors of one
//!   recording fold into one video as it folds them, counted once, with
//!   the date and hits of the upload kept for it.
//! - **Nothing is dropped.** A match without an upload date (or with one
//!   that is no calendar day) is counted in [`Trend::undated`].
//! - **Hours are the speech in scope.** A period's hours are the
//!   summaries' lengths of the videos dated in it that pass the same
//!   filters ([`Filters::verdict`]); a video of unknown length adds none
//!   and is counted in [`Hours::unknown_length`], and a site without
//!   summaries is named in [`Hours::sites_without_summaries`].
//! - **Periods run without gaps** from the first period with speech in
//!   scope or a match to the last, so a quiet period is a row with zero
//!   hits (and one with no speech has zero hours), never a missing row.

mod period;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use serde::Serialize;

pub use period::{By, Period};

use crate::archive::Archive;
use crate::collapse::collapse;
use crate::links::LinkTarget;
use crate::query::filters::{Filters, Verdict, VideoFacts};
use crate::query::{search_each, QueryError, Request, Response, Scope, VideoKey, VideoResult};

/// The most queries one trend compares.
pub const MAX_QUERIES: usize = 8;

/// The queries a trend may compare, as typed: blanks dropped; at least
/// one, at most [`MAX_QUERIES`], none twice. The error says what to give.
pub fn check_queries(queries: Vec<String>) -> Result<Vec<String>, String> {
    if let Some(at) = queries.iter().position(|q| q.trim().is_empty()) {
        return Err(format!(
            "query {} of {} is empty: give each query words to count, or leave it out",
            at + 1,
            queries.len()
        ));
    }
    if queries.is_empty() {
        return Err("give a query (one phrase) or several to compare (up to 8)".into());
    }
    if queries.len() > MAX_QUERIES {
        return Err(format!(
            "{} queries given; a trend compares at most {MAX_QUERIES}: split them over several runs",
            queries.len()
        ));
    }
    let mut seen = HashSet::new();
    if let Some(twice) = queries.iter().find(|q| !seen.insert(q.as_str())) {
        return Err(format!(
            "the query {twice:?} is given twice: give each once"
        ));
    }
    Ok(queries)
}

/// What a trend counts: the queries (one engine request each, sharing
/// their filters and scopes) and the periods' length.
pub struct Ask<'a> {
    /// The requests, in the order the answer lists them; their filters
    /// are the first's (every front end builds them from one set).
    pub requests: &'a [Request],
    /// The periods' length.
    pub by: By,
    /// Fold mirrors of one recording into one video (as search does by
    /// default).
    pub collapse_mirrors: bool,
}

/// A trend: per period, the matches of each query and the speech in scope.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Trend {
    /// The periods' length.
    pub by: By,
    /// The queries as typed, in order (the keys of every `by_query`).
    pub queries: Vec<String>,
    /// Every period from the first to the last, oldest first.
    pub periods: Vec<Row>,
    /// The matches with no usable upload date (`period` is `undated`).
    pub undated: Row,
    /// Each query's totals over every period and the undated row: what
    /// `enumerate_matches` heads its answer with.
    pub totals: Vec<Totals>,
    /// Where the hours come from, and what they miss.
    pub hours: Hours,
    /// Each query's search, for its headline, notes and coverage.
    #[serde(skip)]
    pub responses: Vec<Response>,
}

/// One period (or the undated row). The figures are each query's own
/// ([`Row::by_query`]); the only union is [`Row::distinct_videos`], so a
/// video two queries match is never counted twice in one figure.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Row {
    /// `2014`, `2014-Q2`, `2014-05`, or `undated`.
    pub period: String,
    /// Distinct videos any query matched (a video two queries match
    /// counts once).
    pub distinct_videos: usize,
    /// Hours of speech in scope (the lengths of the videos in scope), to
    /// two decimals.
    pub hours: f64,
    /// Each query's own counts, keyed by the query as typed; a query
    /// with no match in the period is absent.
    pub by_query: BTreeMap<String, Cell>,
}

/// One query in one period.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Cell {
    /// Videos it matched.
    pub videos: usize,
    /// Its confirmed hits, aliases and fuzzy variants included.
    pub hits: usize,
    /// Of those, the hits of the query exactly as typed.
    pub exact_hits: usize,
    /// Of those, the hits in captions (speech); the rest are in titles
    /// and the other fields searched.
    pub spoken_hits: usize,
    /// `spoken_hits / hours` of the period: speech against speech;
    /// `None` with no hours.
    pub per_hour: Option<f64>,
    /// The video with the most hits, as a moment (absent with no match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top: Option<Top>,
    /// In the undated row only: every match, most hits first (an undated
    /// video is on no time axis, so it is named here).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listed: Vec<Top>,
}

/// A period's top video for a query: where its first hit is.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Top {
    /// The channel's slug.
    pub channel: String,
    /// The video's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// `YYYYMMDD`, when known.
    pub date: Option<String>,
    /// Its hits.
    pub hits: usize,
    /// Seconds to its first timed hit.
    pub start: Option<f64>,
    /// The link to that moment, else to the video.
    pub link: Option<String>,
}

/// One query's totals.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Totals {
    /// The query as typed.
    pub query: String,
    /// Videos it matched (mirrors folded).
    pub videos: usize,
    /// Their hits, aliases and fuzzy variants included.
    pub hits: usize,
    /// Videos the query exactly as typed matched.
    pub exact_videos: usize,
    /// Its hits exactly as typed.
    pub exact_hits: usize,
}

/// Where the hours come from.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Hours {
    /// Videos in scope whose length the summaries do not give (they add
    /// no hours).
    pub unknown_length: usize,
    /// Sites whose summaries could not be read: their speech adds no
    /// hours.
    pub sites_without_summaries: Vec<String>,
}

/// A matched upload, reduced to what a trend counts.
#[derive(Clone)]
struct Matched {
    video: VideoResult,
    hits: usize,
    exact: usize,
    spoken: usize,
    start: Option<f64>,
}

/// Counts `ask` on `archive`, pruning with the index in `index_dir`.
/// `seen(k, video)` is handed every video query `k` matches, with its
/// hits, before it is reduced to counts (what a report listing them
/// needs); `progress(pages done, pages planned)` runs per query.
pub fn trend(
    archive: &Archive,
    index_dir: Option<&Path>,
    ask: &Ask,
    seen: &mut dyn FnMut(usize, &VideoResult),
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Trend, QueryError> {
    let by = ask.by;
    let mut matches = Vec::new();
    let mut responses = Vec::new();
    for (k, request) in ask.requests.iter().enumerate() {
        let mut found = Vec::new();
        let response = search_each(
            archive,
            index_dir,
            request,
            &mut |v| {
                seen(k, &v);
                found.push(reduce(v));
            },
            progress,
        )?;
        matches.push(found);
        responses.push(response);
    }
    let filters = Filters::resolve(&ask.requests[0].filters, archive)?;
    let (speech, hours) = speech_in_scope(archive, &filters, by);
    let counted: Vec<BTreeMap<Option<Period>, Tally>> = matches
        .into_iter()
        .map(|found| tally(archive, found, by, ask.collapse_mirrors))
        .collect();
    let queries: Vec<String> = ask.requests.iter().map(|r| r.query.clone()).collect();
    let row = |p: Option<Period>| {
        let label = p.map_or("undated".to_string(), |p| by.label(p));
        let hours = speech.get(&p).copied().unwrap_or(0.0);
        make_row(archive, label, hours, &queries, &counted, p)
    };
    let mut dated: BTreeSet<Period> = speech.keys().flatten().copied().collect();
    dated.extend(counted.iter().flat_map(|c| c.keys().flatten().copied()));
    let periods = match (dated.first(), dated.last()) {
        (Some(&first), Some(&last)) => by.span(first, last).map(|p| row(Some(p))).collect(),
        _ => Vec::new(),
    };
    let undated = row(None);
    let totals = queries
        .iter()
        .zip(&counted)
        .map(|(q, c)| totals(q, c))
        .collect();
    Ok(Trend {
        by,
        queries,
        periods,
        undated,
        totals,
        hours,
        responses,
    })
}

impl Trend {
    /// `"a", "b" by quarter`: what the trend counts, for a title.
    pub fn title(&self) -> String {
        let quoted: Vec<String> = self.queries.iter().map(|q| format!("{q:?}")).collect();
        format!("{} by {}", quoted.join(", "), self.by.as_str())
    }

    /// Query `k`'s headline: its exact counts first, as every search says.
    pub fn headline(&self, k: usize) -> String {
        let t = &self.totals[k];
        crate::report::headline(
            &format!("{:?}", t.query),
            (t.exact_videos, t.exact_hits),
            (t.videos, t.hits),
        )
    }

    /// What each query's search read, noted and could not read (its
    /// footer), each line named by its query when there are several.
    pub fn footer(&self) -> Vec<String> {
        let several = self.queries.len() > 1;
        let mut lines = Vec::new();
        for (query, r) in self.queries.iter().zip(&self.responses) {
            let prefix = if several {
                format!("{query:?}: ")
            } else {
                String::new()
            };
            lines.extend(
                crate::report::footer(r)
                    .into_iter()
                    .map(|l| format!("{prefix}{l}")),
            );
        }
        lines
    }
}

fn totals(query: &str, tallies: &BTreeMap<Option<Period>, Tally>) -> Totals {
    let mut out = Totals {
        query: query.to_string(),
        ..Totals::default()
    };
    for t in tallies.values() {
        out.videos += t.videos.len();
        out.hits += t.hits;
        out.exact_videos += t.exact_videos;
        out.exact_hits += t.exact;
    }
    out
}

fn reduce(v: VideoResult) -> Matched {
    let start = v.hits.iter().find_map(|h| h.start);
    Matched {
        hits: v.hits.len(),
        exact: v.exact_hits,
        spoken: v
            .hits
            .iter()
            .filter(|h| h.scope == Scope::Transcripts)
            .count(),
        start,
        video: v.without_hits(),
    }
}

/// One query's matches in one period.
#[derive(Default)]
struct Tally {
    /// The recordings (after folding mirrors) dated in the period.
    videos: HashSet<VideoKey>,
    /// Of those, the ones the query exactly as typed matched.
    exact_videos: usize,
    hits: usize,
    exact: usize,
    spoken: usize,
    /// The upload with the most hits (the first of equals).
    top: Option<Matched>,
    /// Every match, for the undated row, which lists them.
    all: Vec<Matched>,
}

/// One query's matches by period: each recording (mirrors folded, when
/// asked) counts once, with the date and hits of the upload kept for it,
/// as the search tools' rows do.
fn tally(
    archive: &Archive,
    found: Vec<Matched>,
    by: By,
    fold: bool,
) -> BTreeMap<Option<Period>, Tally> {
    let kept: Option<HashSet<VideoKey>> = fold.then(|| {
        let uploads = found.iter().map(|m| m.video.clone()).collect();
        collapse(archive, uploads)
            .rows
            .iter()
            .map(|r| r.video.key())
            .collect()
    });
    let mut out: BTreeMap<Option<Period>, Tally> = BTreeMap::new();
    for m in found {
        if kept.as_ref().is_some_and(|k| !k.contains(&m.video.key())) {
            continue;
        }
        let period = by.period_of_date(m.video.upload_date.as_deref());
        let t = out.entry(period).or_default();
        t.videos.insert(m.video.key());
        t.exact_videos += usize::from(m.exact > 0);
        t.hits += m.hits;
        t.exact += m.exact;
        t.spoken += m.spoken;
        if period.is_none() {
            t.all.push(m.clone());
        }
        if t.top.as_ref().is_none_or(|top| m.hits > top.hits) {
            t.top = Some(m);
        }
    }
    out
}

fn make_row(
    archive: &Archive,
    period: String,
    hours: f64,
    queries: &[String],
    counted: &[BTreeMap<Option<Period>, Tally>],
    p: Option<Period>,
) -> Row {
    let rate = |hits: usize| (hours > 0.0).then(|| round(hits as f64 / hours, 3));
    let mut all: HashSet<&VideoKey> = HashSet::new();
    let mut by_query = BTreeMap::new();
    for (query, tallies) in queries.iter().zip(counted) {
        let Some(t) = tallies.get(&p) else {
            continue;
        };
        all.extend(&t.videos);
        let mut listed: Vec<&Matched> = t.all.iter().collect();
        listed.sort_by_key(|m| std::cmp::Reverse(m.hits));
        let cell = Cell {
            videos: t.videos.len(),
            hits: t.hits,
            exact_hits: t.exact,
            spoken_hits: t.spoken,
            per_hour: rate(t.spoken),
            top: t.top.as_ref().map(|m| top(archive, m)),
            listed: listed.into_iter().map(|m| top(archive, m)).collect(),
        };
        by_query.insert(query.clone(), cell);
    }
    Row {
        period,
        distinct_videos: all.len(),
        hours: round(hours, 2),
        by_query,
    }
}

/// `x` to `places` decimals: what a reader can use, and fewer characters
/// of an answer's budget.
fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

fn top(archive: &Archive, m: &Matched) -> Top {
    let v = &m.video;
    let target = LinkTarget::of(archive, v);
    let link = m
        .start
        .and_then(|s| target.moment(s))
        .or_else(|| v.url.clone());
    Top {
        channel: v.channel.clone(),
        id: v.slug.clone(),
        title: v.title.clone(),
        date: v.upload_date.clone(),
        hits: m.hits,
        start: m.start,
        link,
    }
}

/// Hours of speech in scope by period (`None`: undated), from every
/// site's summaries: the lengths of the videos `filters` passes.
fn speech_in_scope(
    archive: &Archive,
    filters: &Filters,
    by: By,
) -> (BTreeMap<Option<Period>, f64>, Hours) {
    let mut speech: BTreeMap<Option<Period>, f64> = BTreeMap::new();
    let mut hours = Hours::default();
    for (i, site) in archive.sites().iter().enumerate() {
        let Ok(Some(summaries)) = site.summaries() else {
            hours.sites_without_summaries.push(site.id().to_string());
            continue;
        };
        for row in &summaries.videos {
            if filters.verdict(&VideoFacts::of_row(i, &row.channel, row)) != Verdict::Passes {
                continue;
            }
            let slot = speech
                .entry(by.period_of_date(row.upload_date.as_deref()))
                .or_default();
            match row.duration {
                Some(seconds) => *slot += seconds / 3600.0,
                None => hours.unknown_length += 1,
            }
        }
    }
    (speech, hours)
}
