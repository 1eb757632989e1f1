//! Why a request cannot run: the query itself is wrong. Everything else
//! (an unrecognised filter value, an unreadable page, a stale index) is
//! named in the answer and never an error (invariant 6).

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
}

impl From<QueryError> for String {
    fn from(e: QueryError) -> String {
        e.to_string()
    }
}
