//! Why a request cannot run: the query, a scope or a filter value cannot
//! be right (invariant 6: refused, never answered "0 videos"). What the
//! archive does wrong (an unreadable page, a stale index) is named in the
//! answer and never an error.

use super::matcher::MAX_QUERY_BYTES;

/// A query that cannot be searched, with what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Longer than `MAX_QUERY_BYTES`: shorten it, or split it into
    /// several searches.
    #[error("the query is {bytes} bytes long; the limit is {MAX_QUERY_BYTES}")]
    TooLong {
        /// Its length.
        bytes: usize,
    },
    /// A plain query with no letters or digits: search for words.
    #[error("the query {query:?} has no words (letters or digits) to search for")]
    NoWords {
        /// The query as given.
        query: String,
    },
    /// A regex that does not compile, or compiles past the size limit:
    /// fix or simplify the pattern.
    #[error("the regex {pattern:?} does not compile: {reason}")]
    Regex {
        /// The pattern as given.
        pattern: String,
        /// The regex crate's message.
        reason: String,
    },
    /// A regex that matches the empty string would match everywhere.
    #[error("the regex {pattern:?} matches the empty string, so it would match every line; give a pattern that needs at least one character")]
    EmptyRegex {
        /// The pattern as given.
        pattern: String,
    },
    /// A scope name that is no scope.
    #[error("scopes {name:?} is not a scope; {hint}")]
    Scope {
        /// The name as given.
        name: String,
        /// The nearest scope, or the scopes there are.
        hint: String,
    },
    /// A scope that is not read when counting in one transcript.
    #[error("scopes {name:?} cannot be counted in a transcript: a transcript read counts captions (transcripts) and titles (metadata) only; a search reaches the other fields")]
    NotCounted {
        /// The scope as given.
        name: String,
    },
    /// A filter value that cannot be right.
    #[error(transparent)]
    Filter(#[from] super::filters::FilterError),
}

impl From<QueryError> for String {
    fn from(e: QueryError) -> String {
        e.to_string()
    }
}
