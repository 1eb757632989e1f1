//! What is said alongside a query, and which videos are alike, from the
//! index's postings and census.
//!
//! - [`significant_terms`]: the words said unusually often in the videos
//!   that match a query. Foreground F = the videos the search confirms
//!   (every hit checked on the text, as `search` checks it); background B
//!   = every video in scope after the filters. For a word, `fg` = the
//!   foreground videos that say it and `bg` = the background videos that
//!   say it, in the fields the search looks in. Its score is JLH, as
//!   Elasticsearch's `significant_terms` defines it:
//!   `(fg/F − bg/B) × (fg/F) / (bg/B)`: how much more common the word is
//!   among the matches, times how much more common relatively. A word
//!   said in 40 % of the videos that mention X and 3 % of all videos
//!   scores (0.40 − 0.03) × 0.40 / 0.03 ≈ 4.9. Words not more common in F
//!   than in B, words held by fewer than `min_videos` foreground videos,
//!   and the query's own words are left out.
//! - [`related_videos`]: the videos most like one video, as
//!   Elasticsearch's `more_like_this` finds them: the video's words said
//!   at least twice in it and held by at least five videos, weighed by
//!   `tf × idf` with BM25's `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`
//!   (N the background's videos, df those holding the word); its top
//!   words by weight; then every other video holding one of them, scored
//!   by the sum of the idf of the words it shares.
//!
//! Promise: every count is exact, whatever the index's state. The
//! background is counted from the postings' census on the pages the index
//! vouches for whose videos all pass the filters; every other page (cut
//! by a filter, changed since the build, or with no index at all) is read
//! and its videos' words counted on the text (`background.rs`). Which
//! videos hold a word comes from the postings' holder lists where they
//! name them in the fields asked, and from the page's text otherwise. So
//! a stale or missing index costs pages read, never a different answer;
//! `related.rs` in the indexer's tests checks both answers against a
//! count made by reading every page.
//!
//! Words are counted per video (chat and posts are not: their units are
//! not videos), in the fields of the request's scopes, tokenised by
//! [`crate::text`] as the index tokenises them. The channel's name, a
//! page-wide field, is no video's word here.

mod alike;
mod background;
mod foreground;
mod significant;
mod tally;

pub use alike::{
    related_videos, AlikeOptions, Related, RelatedVideo, WeightedTerm, MOST_TERMS, MOST_VIDEOS,
};
pub use foreground::Counting;
pub use significant::{significant_terms, SignificantOptions, SignificantTerm, SignificantTerms};

use std::collections::BTreeSet;

use crate::format::{VideoRecord, VideoView};
use crate::index::fields::Fields;
use crate::query::{QueryError, Scope};

/// Why a question about related words or videos cannot be answered.
#[derive(Debug, thiserror::Error)]
pub enum RelatedError {
    /// The query, a scope or a filter cannot be right.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A filter value cannot be right.
    #[error(transparent)]
    Filter(#[from] crate::query::FilterError),
    /// Chat or posts were named: their units are not videos.
    #[error("scopes {0:?}: related words and videos are counted over videos (transcripts, title, metadata, description, tags); chat threads and posts are not videos, so leave {0} out")]
    NotVideos(&'static str),
    /// No video has this id.
    #[error("no video {id:?} in this archive{hint}: pass a video id as search results give it")]
    NoVideo {
        /// The id asked for.
        id: String,
        /// "; did you mean …?", when one is close.
        hint: String,
    },
    /// A bound outside what it may be.
    #[error("{name} is {value}; it must be from {min} to {max}")]
    Bound {
        /// The argument.
        name: &'static str,
        /// Its value.
        value: usize,
        /// The least it may be.
        min: usize,
        /// The most it may be.
        max: usize,
    },
    /// The archive could not be read.
    #[error(transparent)]
    Read(#[from] crate::source::ReadError),
}

/// Checks that `value` of argument `name` is within `min..=max`.
pub(crate) fn bound(
    name: &'static str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<usize, RelatedError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(RelatedError::Bound {
            name,
            value,
            min,
            max,
        })
    }
}

/// The fields `names` search, refusing chat and posts.
pub(crate) fn video_fields(names: &[String]) -> Result<Fields, RelatedError> {
    let scopes: BTreeSet<Scope> = Scope::resolve(names)?;
    for s in [Scope::Chat, Scope::Posts] {
        if scopes.contains(&s) {
            return Err(RelatedError::NotVideos(s.as_str()));
        }
    }
    Ok(Scope::fields_of(&scopes))
}

/// Each word of `v` in the fields of `f`, with how often it is said there
/// (the index's tokeniser, the index's fields).
pub fn video_words(v: &impl VideoTexts, f: Fields) -> rustc_hash::FxHashMap<String, u32> {
    let mut words: rustc_hash::FxHashMap<String, u32> = Default::default();
    // A word already seen is counted without a new allocation: most
    // tokens of a transcript are words it said before.
    for_each_word(v, f, |t| match words.get_mut(t) {
        Some(n) => *n += 1,
        None => {
            words.insert(t.to_string(), 1);
        }
    });
    words
}

/// Calls `each` with every word `v` says in the fields of `f`, each time
/// it says it (the index's tokeniser, the index's fields).
pub fn for_each_word(v: &impl VideoTexts, f: Fields, mut each: impl FnMut(&str)) {
    let mut add = |text: &str| crate::text::for_each_token(text, |t, _| each(t));
    if f.meets(Fields::TITLE) {
        add(v.title());
    }
    if f.meets(Fields::DESCRIPTION) {
        add(v.description());
    }
    if f.meets(Fields::TAGS) {
        v.tags().for_each(&mut add);
    }
    if f.meets(Fields::CAPTIONS) {
        v.cue_texts().for_each(&mut add);
    }
}

/// A video's texts, as words are counted on them: a parsed record, or a
/// view borrowing from the bytes read (which allocates nothing per cue).
pub trait VideoTexts {
    /// Its title.
    fn title(&self) -> &str;
    /// The uploader's description.
    fn description(&self) -> &str;
    /// The uploader's tags.
    fn tags(&self) -> impl Iterator<Item = &str>;
    /// The text of each caption line.
    fn cue_texts(&self) -> impl Iterator<Item = &str>;
}

impl VideoTexts for VideoRecord {
    fn title(&self) -> &str {
        &self.title
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn tags(&self) -> impl Iterator<Item = &str> {
        self.tags.iter().map(String::as_str)
    }
    fn cue_texts(&self) -> impl Iterator<Item = &str> {
        self.cues.iter().map(|c| c.text.as_str())
    }
}

impl VideoTexts for VideoView<'_> {
    fn title(&self) -> &str {
        &self.title
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn tags(&self) -> impl Iterator<Item = &str> {
        self.tags.iter().map(|t| t.as_ref())
    }
    fn cue_texts(&self) -> impl Iterator<Item = &str> {
        self.cues.iter().map(|c| c.text.as_ref())
    }
}

/// A video's identity in an answer.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema,
)]
pub struct VideoId {
    /// The site's id.
    pub site: String,
    /// The channel's slug.
    pub channel: String,
    /// The video's id.
    pub slug: String,
}
