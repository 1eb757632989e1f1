//! "Also heard as": for each word of a plain query, the words of the
//! index's vocabulary within one edit (two for words of 8 letters or
//! more), so an agent sees the spellings speech recognition may have used
//! and can decide to search them too. Nothing is searched for them here.
//!
//! With `fuzzy: N` ([`expansions`]) the variants within N edits are also
//! searched: each query word of 5 letters or more is replaced, one word
//! at a time, by each of its variants, and every such phrase is a named
//! expansion with its own hit count. The query itself is always searched,
//! so an exact match is never lost.
//!
//! Promise: suggestions come from the index's dictionary only, most
//! videos first, at most [`MAX_VARIANTS`] per word; a query word under 5
//! letters gets none; a regex gets none; without an index the answer says
//! that suggestions need one instead of saying nothing.

use serde::Serialize;

use super::Request;
use crate::index::similar::{edits_for, Variant};
use crate::index::Index;

/// The most variants listed per query word.
pub const MAX_VARIANTS: usize = 8;

/// The variants of one query word.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlsoHeard {
    /// The query's word, normalised.
    pub word: String,
    /// Words near it, with the videos holding each.
    pub variants: Vec<Suggested>,
}

/// One variant, as answers carry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggested {
    /// The word.
    pub word: String,
    /// Videos holding it.
    pub videos: u64,
}

impl From<Variant> for Suggested {
    fn from(v: Variant) -> Self {
        Suggested {
            word: v.word,
            videos: v.videos,
        }
    }
}

impl AlsoHeard {
    /// The footer line: `also in the vocabulary near "word": a (3 videos), b (1)`.
    pub fn describe(&self) -> String {
        let list: Vec<String> = self
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if i == 0 {
                    format!(
                        "{} ({} video{})",
                        v.word,
                        v.videos,
                        if v.videos == 1 { "" } else { "s" }
                    )
                } else {
                    format!("{} ({})", v.word, v.videos)
                }
            })
            .collect();
        format!(
            "also in the vocabulary near {:?}: {} (search them too if they are the same word misheard)",
            self.word,
            list.join(", ")
        )
    }
}

/// The query words that may have variants: those of a plain query long
/// enough for [`edits_for`].
fn candidate_words(request: &Request) -> Vec<String> {
    if request.regex {
        return Vec::new();
    }
    crate::text::tokens(request.query.trim_end_matches('*'))
        .into_iter()
        .filter(|w| edits_for(w.chars().count()) > 0)
        .collect()
}

/// The variants of each query word, and the note to show when there is
/// no index to take them from.
pub fn also_heard(index: Option<&Index>, request: &Request) -> (Vec<AlsoHeard>, Option<String>) {
    let words = candidate_words(request);
    if words.is_empty() {
        return (Vec::new(), None);
    }
    let Some(index) = index else {
        return (
            Vec::new(),
            Some("suggestions of other spellings (what speech recognition may have written) need an index: run `archilyzer-index build`".into()),
        );
    };
    let found = words
        .into_iter()
        .map(|word| {
            let edits = edits_for(word.chars().count());
            let variants = index
                .raw
                .similar(&word, edits, MAX_VARIANTS)
                .into_iter()
                .map(Suggested::from)
                .collect();
            AlsoHeard { word, variants }
        })
        .filter(|a| !a.variants.is_empty())
        .collect();
    (found, None)
}

/// The phrases a `fuzzy` search adds beside the query (one word varied
/// at a time, at most [`MAX_VARIANTS`] variants per word), and the note
/// that says why none were added when fuzzy was asked for but cannot
/// apply.
pub fn expansions(index: Option<&Index>, request: &Request) -> (Vec<String>, Option<String>) {
    let edits = u32::from(request.fuzzy.min(2));
    if edits == 0 {
        return (Vec::new(), None);
    }
    if request.regex {
        return (
            Vec::new(),
            Some("fuzzy does not apply to a regex: it was searched as written".into()),
        );
    }
    let Some(index) = index else {
        return (
            Vec::new(),
            Some("fuzzy needs an index (its vocabulary): the query was searched exactly; run `archilyzer-index build`".into()),
        );
    };
    let prefix = request.query.trim_end().ends_with('*');
    let words = crate::text::tokens(request.query.trim_end().trim_end_matches('*'));
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if word.chars().count() < 5 {
            continue;
        }
        for variant in index.raw.similar(word, edits, MAX_VARIANTS) {
            let mut phrase = words.clone();
            phrase[i] = variant.word;
            let mut text = phrase.join(" ");
            if prefix {
                text.push('*');
            }
            out.push(text);
        }
    }
    let note = out.is_empty().then(|| {
        format!("fuzzy {edits}: no word of the query has a variant within {edits} edit(s) in the vocabulary (only words of 5 letters or more are varied)")
    });
    (out, note)
}
