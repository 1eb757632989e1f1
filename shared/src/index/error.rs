//! What can go wrong with an index, each with what to do. A damaged index
//! is never an error for a search (it is ignored, and the pages are read);
//! these reach a user from `build` and from the tools that read an index
//! directly (`check`, `bench`).

use crate::claim::Refusal;

/// An index that could not be built or loaded.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The folder may not be written (not ours, or it overlaps the
    /// archive): choose another folder for `--index`.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A file of the index could not be written (a full disk, no
    /// permission): the previous index is as it was; fix the cause and
    /// build again.
    #[error("cannot write the index at {dir}: {what}: {reason}")]
    Write {
        /// The index folder, as the user named it.
        dir: String,
        /// The file or step (`staging`, `rename`).
        what: String,
        /// The system's message.
        reason: String,
    },
    /// The term dictionary could not be built: a bug to report, since
    /// its input is sorted and deduplicated by the build.
    #[error("cannot build the term dictionary: {0}")]
    Dictionary(String),
    /// A file of an existing index is missing or does not parse: build
    /// the index again.
    #[error("{file}: {reason}")]
    Damaged {
        /// The index file.
        file: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

impl IndexError {
    /// A file of an index that is missing or does not parse.
    pub fn damaged(file: &'static str, reason: impl std::fmt::Display) -> Self {
        IndexError::Damaged {
            file,
            reason: reason.to_string(),
        }
    }
}
