//! `similar_terms` and `archilyzer-index terms`: a word and its
//! neighbours in the index's vocabulary, each searched in the scope asked
//! for, with its video and hit counts and one example moment, so an agent
//! (or an operator) can see what speech recognition wrote for a name and
//! build an alias from it.
//!
//! Promise: every count is confirmed on the page text by the ordinary
//! search (the index only proposes the words); the word itself comes
//! first, then its variants, most videos in the whole archive first.

use std::path::Path;

use serde::Serialize;

use super::{search, FilterArgs, Hit, QueryError, Request, VideoResult};
use crate::archive::Archive;
use crate::index::similar::edits_for;
use crate::index::Index;

/// One word of the report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TermReport {
    /// The word, normalised.
    pub word: String,
    /// Whether it is the word asked about (not a variant).
    pub asked: bool,
    /// Matching videos in scope (confirmed).
    pub videos: usize,
    /// Their hits.
    pub hits: usize,
    /// The first matching video, with its first hit only.
    pub example: Option<VideoResult>,
}

/// Why there is no report.
#[derive(Debug, thiserror::Error)]
pub enum VocabularyError {
    /// The lookup needs an index.
    #[error("similar terms come from the index's vocabulary, and there is none to read: {0}")]
    NoIndex(String),
    /// The word is not a word.
    #[error(
        "{0:?} holds no word to look up: pass a word or a phrase, e.g. harmontown or dan harmon"
    )]
    NoWord(String),
    /// A search failed.
    #[error(transparent)]
    Query(#[from] QueryError),
}

/// The report for each word of `phrase` (a word, or several: each is
/// reported with its own neighbours, the word first and marked `asked`)
/// within `max_edits` (default: by the word's length), searched within
/// `filters`.
pub fn similar_terms(
    archive: &Archive,
    index_dir: &Path,
    phrase: &str,
    max_edits: Option<u32>,
    filters: &FilterArgs,
) -> Result<Vec<TermReport>, VocabularyError> {
    let mut words = crate::text::tokens(phrase);
    words.dedup();
    if words.is_empty() {
        return Err(VocabularyError::NoWord(phrase.to_string()));
    }
    let (pages, _) = archive.page_table();
    let (index, status) = Index::open(index_dir, archive, &pages);
    let index = index.ok_or_else(|| VocabularyError::NoIndex(status.reason()))?;
    let mut out = Vec::new();
    for normalised in words {
        let edits = max_edits.unwrap_or_else(|| edits_for(normalised.chars().count()).max(1));
        // Counted in the fields the reports search (the default scopes).
        let fields = super::Scope::default_fields();
        let variants = index.raw.similar(
            &normalised,
            edits.min(crate::index::similar::MAX_EDITS),
            8,
            fields,
        );
        let found = std::iter::once((normalised, true))
            .chain(variants.into_iter().map(|v| (v.word, false)));
        for (w, asked) in found {
            out.push(report(archive, index_dir, w, asked, filters)?);
        }
    }
    Ok(out)
}

fn report(
    archive: &Archive,
    index_dir: &Path,
    word: String,
    asked: bool,
    filters: &FilterArgs,
) -> Result<TermReport, VocabularyError> {
    let request = Request {
        query: word.clone(),
        filters: filters.clone(),
        // The word itself, not what an alias would add to it.
        use_aliases: false,
        ..Request::default()
    };
    let r = search(archive, Some(index_dir), &request)?;
    let example = r.videos.first().map(|v| {
        let mut v = v.without_hits();
        let first: Option<Hit> = r.videos[0].hits.first().cloned();
        v.hits.extend(first);
        v
    });
    Ok(TermReport {
        word,
        asked,
        videos: r.total_videos,
        hits: r.total_hits,
        example,
    })
}
