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
    let terms_wanted = bound("terms", opts.terms, 1, 100)?;
    let limit = bound("limit", opts.limit, 1, 200)?;
    let fields = video_fields(scopes)?;
    let filters = Filters::resolve(filters, archive)?;
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
    let known: Vec<String> = archive
        .sites()
        .iter()
        .filter_map(|s| s.summaries().ok().flatten())
        .flat_map(|s| s.videos.iter().map(|r| r.slug.clone()).collect::<Vec<_>>())
        .collect();
    let hint = crate::typo::nearest(id, known.iter().map(String::as_str))
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
    let mut number: rustc_hash::FxHashMap<Key, usize> = Default::default();
    let mut met: Vec<Met> = Vec::new();
    let me_listed = bg.listed_at(me).map(|(page, at)| Key::Listed(page, at));
    let me_read = VideoRef::of(me);
    for (k, t) in terms.iter().enumerate() {
        let weight = idf(bg.videos, t.df);
        bg.each_holder(&t.word, &mut |holder| {
            let (key, title) = match holder {
                Holder::Listed { page, at } => (Key::Listed(page, at), None),
                Holder::Read(id, _) if id == me_read => return,
                Holder::Read(id, title) => (Key::Read(id.to_owned()), Some(title)),
            };
            if me_listed.as_ref() == Some(&key) {
                return;
            }
            let at = match number.get(&key) {
                Some(&at) => at,
                None => {
                    number.insert(key.clone(), met.len());
                    met.push(Met {
                        key,
                        title: title.map(str::to_string),
                        score: 0.0,
                        shared: Vec::new(),
                    });
                    met.len() - 1
                }
            };
            let v = &mut met[at];
            if v.shared.last() != Some(&k) {
                v.score += weight;
                v.shared.push(k);
            }
        });
    }
    let total = met.len();
    if met.len() > limit {
        // Only videos scoring at least the limit-th best can be shown:
        // they alone are named (ties are broken by their ids).
        met.select_nth_unstable_by(limit - 1, |a, b| b.score.total_cmp(&a.score));
        let least = met[limit - 1].score;
        met.retain(|m| m.score >= least);
    }
    let mut unnamed = Vec::new();
    let mut shown: Vec<(VideoId, String, Met)> = met
        .into_iter()
        .filter_map(|m| {
            let (id, title) = match &m.key {
                Key::Listed(page, at) => bg.name(*page, *at).map_err(|e| unnamed.push(e)).ok()?,
                Key::Read(id) => (id.clone(), m.title.clone().unwrap_or_default()),
            };
            Some((id, title, m))
        })
        .collect();
    shown.sort_by(|a, b| b.2.score.total_cmp(&a.2.score).then_with(|| a.0.cmp(&b.0)));
    shown.truncate(limit);
    let videos = shown
        .into_iter()
        .map(|(id, title, m)| RelatedVideo {
            shared_count: m.shared.len(),
            shared: m.shared.iter().map(|&k| terms[k].word.clone()).collect(),
            site: id.site,
            channel: id.channel,
            slug: id.slug,
            title,
            score: m.score,
            same_recording: false,
        })
        .collect();
    (videos, total, unnamed)
}

/// A video met while scoring, as its holder named it: its place in the
/// index, or its id where it was read from a page's text.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Listed(u32, u32),
    Read(VideoId),
}

/// A video met while scoring: who it is (and its title, when read from
/// the text), its score so far, and the terms it shares (positions in the
/// terms, ascending).
struct Met {
    key: Key,
    title: Option<String>,
    score: f64,
    shared: Vec<usize>,
}
