//! Counting queries in one video, exactly as a search counts them: what a
//! reader of a transcript (`get_transcripts`) asks of the engine, so its
//! counts cannot drift from a search's.
//!
//! [`Queries::compile`] compiles each query as a search compiles it
//! (aliases per site, `use_aliases`, `regex`, `exclude`, `fuzzy` with the
//! index, and the scopes: captions and titles); [`Queries::count`] counts
//! each query's hits in a video in those scopes: the cues it (or an
//! alias, or a fuzzy variant) hits, and the title; [`Queries::excluded_by`] names the
//! excluded phrase that would drop the video from a search.

use std::path::Path;

use super::matcher::TokenStream;
use super::suggest::expansions;
use super::terms::hits_of;
use super::{QueryError, Request, Scope, Terms};
use crate::archive::Archive;
use crate::format::VideoRecord;
use crate::index::Index;

/// What a caller asks: queries and how to compile them.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// The queries, each counted apart.
    pub queries: Vec<String>,
    /// Treat each query as a regex.
    pub regex: bool,
    /// Expand plain queries through the archive's aliases.
    pub use_aliases: bool,
    /// Phrases whose videos a search drops.
    pub exclude: Vec<String>,
    /// Fuzzy edits (0-2), with an index.
    pub fuzzy: u8,
    /// The fields counted, as a search names them: `transcripts`
    /// (captions) and `metadata` (the title); none named means both, as
    /// a search's default scopes count.
    pub scopes: Vec<String>,
}

/// One compiled query.
struct Query {
    label: String,
    terms: Terms,
}

/// Queries compiled against an archive.
pub struct Queries {
    queries: Vec<Query>,
    exclude: Vec<String>,
    /// Captions are counted.
    captions: bool,
    /// The title is counted.
    title: bool,
    /// What compiling left to say: why fuzzy added nothing, which aliases
    /// may fire.
    pub notes: Vec<String>,
}

/// A query's hits in one video.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoCount {
    /// The query as asked.
    pub label: String,
    /// The cues it hits (positions in the record's cues).
    pub cues: Vec<usize>,
    /// The title matches too.
    pub title: bool,
    /// Cues only an alias or a fuzzy variant found.
    pub through_aliases: usize,
    /// Each fuzzy variant that hit here, with its own hit count.
    pub expansions: Vec<(String, usize)>,
}

impl VideoCount {
    /// Hits as a search counts them: the cues, and the title.
    pub fn total(&self) -> usize {
        self.cues.len() + usize::from(self.title)
    }
}

impl Queries {
    /// Compiles `asked` against `archive`, with the index at `index_dir`
    /// for fuzzy variants.
    pub fn compile(
        archive: &Archive,
        index_dir: Option<&Path>,
        asked: &Asked,
    ) -> Result<Queries, QueryError> {
        let scopes = Scope::resolve(&asked.scopes)?;
        if let Some(other) = scopes
            .iter()
            .find(|s| !matches!(s, Scope::Transcripts | Scope::Title | Scope::Metadata))
        {
            return Err(QueryError::NotCounted {
                name: other.as_str().to_string(),
            });
        }
        let index = match (asked.fuzzy, index_dir) {
            (0, _) | (_, None) => None,
            (_, Some(dir)) => Index::open(dir, archive, &archive.page_table().0).0,
        };
        let mut notes = Vec::new();
        let mut queries = Vec::new();
        for q in &asked.queries {
            let request = Request {
                query: q.clone(),
                regex: asked.regex,
                use_aliases: asked.use_aliases,
                exclude: asked.exclude.clone(),
                fuzzy: asked.fuzzy,
                ..Request::default()
            };
            let (phrases, note) = expansions(index.as_ref(), &request);
            notes.extend(note);
            let terms = Terms::compile(archive, &request)?.with_expansions(phrases)?;
            queries.push(Query {
                label: q.clone(),
                terms,
            });
        }
        notes.dedup();
        for q in &queries {
            for n in q.terms.describe(archive.sites().len()) {
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
        Ok(Queries {
            queries,
            exclude: asked.exclude.clone(),
            captions: scopes.contains(&Scope::Transcripts),
            title: scopes.contains(&Scope::Title) || scopes.contains(&Scope::Metadata),
            notes,
        })
    }

    /// Whether there is any query to count.
    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }

    /// Each query's hits in `video` of site number `site`.
    pub fn count(&self, site: usize, video: &VideoRecord) -> Vec<VideoCount> {
        let mut scratch = TokenStream::default();
        // Captions out of scope are counted as none.
        let read = if self.captions { video.cues.len() } else { 0 };
        let cues = || video.cues[..read].iter().map(|c| c.text.as_str());
        self.queries
            .iter()
            .map(|q| {
                let all = q.terms.cue_hits(site, cues(), &mut scratch);
                let title = std::iter::once(video.title.as_str());
                let title = self.title && !q.terms.cue_hits(site, title, &mut scratch).is_empty();
                let own = hits_of(q.terms.typed(site), cues(), &mut scratch);
                let expansions = q
                    .terms
                    .expansions
                    .iter()
                    .map(|(phrase, m)| (phrase.clone(), m.hits(cues(), &mut scratch).len()))
                    .filter(|(_, n)| *n > 0)
                    .collect();
                VideoCount {
                    label: q.label.clone(),
                    through_aliases: all.len() - own.len(),
                    cues: all,
                    title,
                    expansions,
                }
            })
            .collect()
    }

    /// The excluded phrase that `video`'s captions or title match, if any:
    /// the fields a search's default scopes look in.
    pub fn excluded_by(&self, video: &VideoRecord) -> Option<String> {
        let terms = &self.queries.first()?.terms;
        let mut scratch = TokenStream::default();
        let cues = video.cues.iter().map(|c| c.text.as_str());
        terms
            .excluded(cues, &mut scratch)
            .or_else(|| terms.excluded(std::iter::once(video.title.as_str()), &mut scratch))
            .and_then(|i| self.exclude.get(i).cloned())
    }
}
