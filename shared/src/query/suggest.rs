//! "Also heard as": for each word of a plain query, the words of the
//! index's vocabulary within one edit (two for words of 8 letters or
//! more), so an agent sees the spellings speech recognition may have used
//! and can decide to search them too. Nothing is searched for them here.
//!
//! With `fuzzy: N` ([`expansions`]) the variants within N edits are also
//! searched: each query word of 5 letters or more is replaced, one word
//! at a time, by each of its variants, and every such phrase is a named
//! expansion with its own hit count. The query itself is always searched,
//! so an exact match is never lost. Every one-edit variant comes before
//! any two-edit one, so `fuzzy: 2` finds all that `fuzzy: 1` finds. A
//! two-edit variant is more often another word than a mishearing
//! (`harmon` → `aaron`, `carson`), so one is searched only when it keeps
//! the query word's first letter and, when the query word is itself in
//! the vocabulary, no more videos hold it than hold the query word
//! ([`far_variant_is_likely_another_word`]); the others are named in the
//! answer as left out, with their video counts, never dropped silently.
//!
//! Promise: suggestions come from the index's dictionary only, most
//! videos first, at most [`MAX_VARIANTS`] per word; a query word under 5
//! letters gets none; a regex gets none; without an index the answer says
//! that suggestions need one instead of saying nothing.

use serde::Serialize;

use super::{Request, Scope};
use crate::index::fields::Fields;
use crate::index::similar::{edits_for, Variant};
use crate::index::Index;

/// The most variants listed per query word.
pub const MAX_VARIANTS: usize = 8;

/// The variants of one query word.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AlsoHeard {
    /// The query's word, normalised.
    pub word: String,
    /// Words near it, with the videos holding each.
    pub variants: Vec<Suggested>,
}

/// One variant, as answers carry it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
            "also in the vocabulary near {:?}: {} (videos holding each in the fields searched; search them too if they are the same word misheard)",
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

/// The fields the request's scopes search: variants are counted there
/// (none for scopes that are refused, as the request is).
fn searched_fields(request: &Request) -> Fields {
    Scope::fields_of(&Scope::resolve(&request.scopes).unwrap_or_default())
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
                .similar(&word, edits, MAX_VARIANTS, searched_fields(request))
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
    let edits = u32::from(request.fuzzy.min(super::find::MAX_FUZZY));
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
    let mut left_out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if word.chars().count() < 5 {
            continue;
        }
        let fields = searched_fields(request);
        let own = index.raw.videos_with(word, fields);
        for variant in index.raw.similar(word, edits, MAX_VARIANTS, fields) {
            if far_variant_is_likely_another_word(word, own, &variant) {
                left_out.push(format!("{} ({} videos)", variant.word, variant.videos));
                continue;
            }
            let mut phrase = words.clone();
            phrase[i] = variant.word;
            let mut text = phrase.join(" ");
            if prefix {
                text.push('*');
            }
            out.push(text);
        }
    }
    let note = if out.is_empty() && left_out.is_empty() {
        Some(format!("fuzzy {edits}: no word of the query has a variant within {edits} edit(s) in the vocabulary (only words of 5 letters or more are varied)"))
    } else if !left_out.is_empty() {
        Some(format!(
            "fuzzy {edits}: not searched, as two edits away they are likely other words (another first letter, or more videos than the word typed): {}; search one by name if it is the same word misheard",
            left_out.join(", ")
        ))
    } else {
        None
    };
    (out, note)
}

/// The rule for variants two edits away: one is likely another word, and
/// not searched, when its first letter differs from the query word's, or
/// when more videos hold it than hold the query word (`own`, when the
/// vocabulary has the query word at all).
pub fn far_variant_is_likely_another_word(word: &str, own: u64, v: &Variant) -> bool {
    v.edits >= 2 && (word.chars().next() != v.word.chars().next() || (own > 0 && v.videos > own))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(word: &str, edits: u32, videos: u64) -> Variant {
        Variant {
            word: word.into(),
            videos,
            edits,
        }
    }

    #[test]
    fn a_far_variant_with_another_first_letter_or_more_videos_is_likely_another_word() {
        let other = |word, own, variant| far_variant_is_likely_another_word(word, own, &variant);
        // "harmon", held by 361 videos.
        assert!(
            other("harmon", 361, v("aaron", 2, 200)),
            "another first letter"
        );
        assert!(
            other("harmon", 361, v("carson", 2, 12)),
            "another first letter"
        );
        assert!(
            !other("harmon", 361, v("harm", 2, 100)),
            "same letter, fewer videos"
        );
        assert!(
            other("harmon", 361, v("harmed", 2, 400)),
            "more videos than the word typed"
        );
        assert!(
            !other("harmon", 361, v("harmony", 1, 5000)),
            "one edit is always searched"
        );
        // "mcgathy", a misspelling the vocabulary lacks.
        assert!(
            !other("mcgathy", 0, v("mccarthy", 2, 300)),
            "the word meant"
        );
        assert!(
            other("mcgathy", 0, v("cathy", 2, 40)),
            "another first letter"
        );
    }
}
