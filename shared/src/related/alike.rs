//! `related_videos`: the videos most like one video, as `more_like_this`
//! finds them (the definitions are in the module above).

use std::collections::HashSet;
use std::path::Path;

use super::background::{Background, Holder, Opened, VideoRef};
use super::{bound, video_fields, video_words, RelatedError, VideoId};
use crate::archive::Archive;
use crate::query::{FilterArgs, Filters};

/// The bounds of a `related_videos` answer.
#[derive(Debug, Clone, Copy)]
pub struct AlikeOptions {
    /// The video's words to look for (highest tf × idf first).
    pub terms: usize,
    /// Videos to give, most alike first.
    pub limit: usize,
    /// A word must be said at least this often in the video.
    pub min_tf: u32,
    /// A word must be held by at least this many videos.
    pub min_df: u64,
}

impl Default for AlikeOptions {
    fn default() -> Self {
        AlikeOptions {
            terms: 25,
            limit: 10,
            min_tf: 2,
            min_df: 5,
        }
    }
}

/// One of the video's words, weighed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct WeightedTerm {
    /// The word, as the index normalises it.
    pub word: String,
    /// Times the video says it.
    pub tf: u32,
    /// Background videos saying it.
    pub df: u64,
    /// tf × idf.
    pub weight: f64,
}

/// A video like the one asked about.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct RelatedVideo {
    /// The site's id.
    pub site: String,
    /// The channel's slug.
    pub channel: String,
    /// The video's id.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// The sum of the idf of the words it shares.
    pub score: f64,
    /// The words it shares, heaviest first (an answer cut to its size
    /// budget may list only the first of them).
    pub shared: Vec<String>,
    /// How many words it shares, listed or not.
    pub shared_count: usize,
    /// It is another upload of the same recording (the archive's
    /// `duplicates.json` says so): listed, never hidden, but no news.
    pub same_recording: bool,
}

/// The videos most like one video.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Related {
    /// The video asked about.
    pub video: VideoId,
    /// Its title.
    pub title: String,
    /// N: the videos in scope after the filters.
    pub background: usize,
    /// Its words looked for, heaviest first.
    pub terms: Vec<WeightedTerm>,
    /// The videos sharing them, most alike first.
    pub videos: Vec<RelatedVideo>,
    /// Videos sharing at least one of the words, shown or not.
    pub videos_total: usize,
    /// Pages read (the video's own, and where the index could not say).
    pub pages_read: usize,
    /// What the index could do.
    pub index: String,
    /// Whether some page could not be read (the answer then misses its
    /// videos); named in `unreadable`.
    pub partial: bool,
    /// Pages that could not be read, with why.
    pub unreadable: Vec<String>,
}

/// BM25's idf of a word held by `df` of `n` videos.
pub fn idf(n: usize, df: u64) -> f64 {
    let (n, df) = (n as f64, df as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The videos most like video `id` (looked for first in the channels of
/// `hints`), in the fields of `scopes`, among the videos `filters` admit.
pub fn related_videos(
    archive: &Archive,
    index_dir: Option<&Path>,
    id: &str,
    hints: &[String],
    scopes: &[String],
    filters: &FilterArgs,
    opts: AlikeOptions,
) -> Result<Related, RelatedError> {
    let terms_wanted = bound("terms", opts.terms, 1, MOST_TERMS)?;
    let limit = bound("limit", opts.limit, 1, MOST_VIDEOS)?;
    let fields = video_fields(scopes)?;
    let filters = Filters::resolve(filters, archive)?;
    crate::query::filters::check_channel_hints(archive, hints)?;
    let found = archive
        .find_video(id, hints)?
        .ok_or_else(|| no_video(archive, id))?;
    let me = VideoId {
        site: found.site.id().to_string(),
        channel: found.channel.slug.clone(),
        slug: found.video.slug.clone(),
    };
    let tf: rustc_hash::FxHashMap<String, u32> = video_words(&found.video, fields)
        .into_iter()
        .filter(|(_, n)| *n >= opts.min_tf)
        .collect();
    let bg = Background::new(
        archive,
        Opened::new(archive, archive.page_table(), index_dir),
        &filters,
        fields,
        tf.keys().cloned().collect(),
    )?;
    let terms = weigh(&tf, &bg, opts.min_df, terms_wanted);
    let (mut videos, videos_total, unnamed) = alike(&bg, &terms, &me, limit);
    let copies = copies_of(archive, &me);
    for v in &mut videos {
        v.same_recording = copies.contains(&(v.site.clone(), v.channel.clone(), v.slug.clone()));
    }
    Ok(Related {
        video: me,
        title: found.video.title.clone(),
        background: bg.videos,
        terms,
        videos,
        videos_total,
        pages_read: 1 + bg.pages_read + bg.pages_read_for_holders(),
        index: bg.status.describe(),
        partial: !bg.unreadable.is_empty() || !unnamed.is_empty(),
        unreadable: bg.unreadable.iter().cloned().chain(unnamed).collect(),
    })
}

/// The other uploads of `me`'s recording, as (site, channel, slug).
fn copies_of(archive: &Archive, me: &VideoId) -> HashSet<(String, String, String)> {
    let Some(site) = archive.sites().iter().find(|s| s.id() == me.site) else {
        return HashSet::new();
    };
    let Ok(Some(dups)) = site.duplicates() else {
        return HashSet::new();
    };
    dups.clusters
        .iter()
        .filter(|c| {
            c.members
                .iter()
                .any(|m| m.channel == me.channel && m.slug == me.slug)
        })
        .flat_map(|c| c.members.iter())
        .filter(|m| !(m.channel == me.channel && m.slug == me.slug))
        .map(|m| (me.site.clone(), m.channel.clone(), m.slug.clone()))
        .collect()
}

/// The error for an id no video has, naming the nearest id the index
/// knows when one is close.
fn no_video(archive: &Archive, id: &str) -> RelatedError {
    let hint = archive
        .nearest_video(id)
        .map(|n| format!("; did you mean {n:?}?"))
        .unwrap_or_default();
    RelatedError::NoVideo {
        id: id.to_string(),
        hint,
    }
}

/// The video's words by tf × idf, heaviest first (ties by word), those
/// held by fewer than `min_df` background videos left out.
fn weigh(
    tf: &rustc_hash::FxHashMap<String, u32>,
    bg: &Background,
    min_df: u64,
    keep: usize,
) -> Vec<WeightedTerm> {
    let mut terms: Vec<WeightedTerm> = tf
        .iter()
        .filter_map(|(word, &tf)| {
            let df = bg.count(word);
            (df >= min_df).then(|| WeightedTerm {
                word: word.clone(),
                tf,
                df,
                weight: f64::from(tf) * idf(bg.videos, df),
            })
        })
        .collect();
    terms.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.word.cmp(&b.word)));
    terms.truncate(keep);
    terms
}

/// The `limit` other background videos most alike `me`: every video
/// holding one of `terms` scored by the idf of the words it shares, most
/// alike first (ties by identity); how many there were in all; and the
/// pages where a video could not be named (its row and its page both
/// unreadable), which the answer then misses.
fn alike(
    bg: &Background,
    terms: &[WeightedTerm],
    me: &VideoId,
    limit: usize,
) -> (Vec<RelatedVideo>, usize, Vec<String>) {
    let mut met = Met::default();
    let me_listed = bg.listed_at(me);
    let me_read = VideoRef::of(me);
    for (k, t) in terms.iter().enumerate() {
        let weight = idf(bg.videos, t.df);
        bg.each_holder(&t.word, &mut |holder| match holder {
            Holder::Listed { page, at } if me_listed != Some((page, at)) => {
                met.listed(page, at, k, weight)
            }
            Holder::Read(id, title) if id != me_read => met.read(id, title, k, weight),
            _ => {}
        });
    }
    let total = met.scores.len();
    let mut unnamed = Vec::new();
    let mut shown: Vec<(VideoId, String, &Score)> = met
        .best(limit)
        .into_iter()
        .filter_map(|m| {
            let (id, title) = match &m.key {
                Key::Listed(page, at) => bg.name(*page, *at).map_err(|e| unnamed.push(e)).ok()?,
                Key::Read(id, title) => (id.clone(), title.clone()),
            };
            Some((id, title, m))
        })
        .collect();
    shown.sort_by(|a, b| b.2.score.total_cmp(&a.2.score).then_with(|| a.0.cmp(&b.0)));
    shown.truncate(limit);
    let videos = shown
        .into_iter()
        .map(|(id, title, m)| {
            let shared: Vec<String> = (0..terms.len())
                .filter(|&k| m.shared & (1 << k) != 0)
                .map(|k| terms[k].word.clone())
                .collect();
            RelatedVideo {
                shared_count: shared.len(),
                shared,
                site: id.site,
                channel: id.channel,
                slug: id.slug,
                title,
                score: m.score,
                same_recording: false,
            }
        })
        .collect();
    (videos, total, unnamed)
}

/// A video met while scoring, as its holder named it: its place in the
/// index, or its id and title where it was read from a page's text.
enum Key {
    Listed(u32, u32),
    Read(VideoId, String),
}

/// A video met while scoring: who it is, its score so far, and the terms
/// it shares (bit `k` for term `k`).
struct Score {
    key: Key,
    score: f64,
    shared: TermSet,
}

/// A set of positions in the terms looked for: a bit each, so no video
/// met allocates a list of them (a common term has thousands of holders).
type TermSet = u128;

/// The terms a question may look for: each is a bit of the set of terms
/// a video shares (a `u128`).
pub const MOST_TERMS: usize = 100;
/// The videos a question may ask for.
pub const MOST_VIDEOS: usize = 200;
const _: () = assert!(MOST_TERMS <= TermSet::BITS as usize);

/// The videos met so far. A video the postings name is found by its
/// (page, position) in a table per page, with no hashing: scoring touches
/// every holder of every term, tens of thousands on a large archive.
#[derive(Default)]
struct Met {
    /// By index page, then position on it: 1 + the video's number in
    /// `scores` (0: not met).
    listed: Vec<Vec<u32>>,
    read: rustc_hash::FxHashMap<VideoId, usize>,
    scores: Vec<Score>,
}

impl Met {
    /// The video at `at` of index page `page` shares term `k` of `weight`.
    fn listed(&mut self, page: u32, at: u32, k: usize, weight: f64) {
        let (page, at) = (page as usize, at as usize);
        if self.listed.len() <= page {
            self.listed.resize_with(page + 1, Vec::new);
        }
        let on_page = &mut self.listed[page];
        if on_page.len() <= at {
            on_page.resize(at + 1, 0);
        }
        if on_page[at] == 0 {
            self.scores
                .push(Score::new(Key::Listed(page as u32, at as u32)));
            on_page[at] = self.scores.len() as u32;
        }
        let n = on_page[at] as usize - 1;
        self.scores[n].share(k, weight);
    }

    /// The video `id` (titled `title`), read from a page, shares term `k`
    /// of `weight`.
    fn read(&mut self, id: VideoRef, title: &str, k: usize, weight: f64) {
        let id = id.to_owned();
        let n = match self.read.get(&id) {
            Some(&n) => n,
            None => {
                self.read.insert(id.clone(), self.scores.len());
                self.scores
                    .push(Score::new(Key::Read(id, title.to_string())));
                self.scores.len() - 1
            }
        };
        self.scores[n].share(k, weight);
    }

    /// The videos that can be among the `limit` best: those scoring at
    /// least the `limit`-th best score (ties are broken later, by id,
    /// once they are named).
    fn best(&mut self, limit: usize) -> Vec<&Score> {
        let scores = &mut self.scores;
        if scores.len() > limit {
            scores.select_nth_unstable_by(limit - 1, |a, b| b.score.total_cmp(&a.score));
            let least = scores[limit - 1].score;
            return scores.iter().filter(|m| m.score >= least).collect();
        }
        scores.iter().collect()
    }
}

impl Score {
    fn new(key: Key) -> Score {
        Score {
            key,
            score: 0.0,
            shared: 0,
        }
    }

    /// Counts term `k` of `weight`, once however often it is met.
    fn share(&mut self, k: usize, weight: f64) {
        let bit: TermSet = 1 << k;
        if self.shared & bit == 0 {
            self.score += weight;
            self.shared |= bit;
        }
    }
}
