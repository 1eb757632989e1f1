//! Passages found by meaning, offline: runs of consecutive cues embedded
//! by a sentence model at build time ([`mod@embed`]), ranked against a
//! query's vector and fused with a words ranking of the same passages
//! ([`mod@find`]).
//!
//! - [`cut`]: where a video's captions are cut into passages.
//! - [`words`]: BM25 over the passages' words.
//! - [`feedback`]: the words `both` adds to the words side from the best
//!   passages by meaning.
//! - [`store`]: the files in `<index>/passages/`, written whole and
//!   checked when opened.
//! - [`mod@embed`]: the build step, incremental and resumable.
//! - [`mod@find`]: the query: both rankings, their fusion, and the texts read
//!   from the archive.
//!
//! The passages rank; they count nothing. Every count the other tools
//! give still comes from the page postings and the text.

pub mod cut;
pub mod embed;
pub mod feedback;
pub mod find;
pub mod store;
pub mod words;

use std::path::PathBuf;

use archilyzer_embed::ModelId;

pub use embed::{embed, EmbedEvent, EmbedReport};
pub use find::{find, By, Found, Passage, PassageQuery};
pub use store::Store;

/// Where installed sentence models live: `<cache>/models`.
pub fn model_root() -> Option<PathBuf> {
    crate::archive::cache_dir().map(|d| d.join("models"))
}

/// The command that embeds an archive's passages.
pub const EMBED_COMMAND: &str = "archilyzer-index build --embed";

/// Why passages could not be found or embedded.
#[derive(Debug, thiserror::Error)]
pub enum PassageError {
    /// The index has no passage store.
    #[error("no passages are embedded beside the index at {}: run `{EMBED_COMMAND}` (with the same archive and index flags) first", .0.display())]
    NotBuilt(PathBuf),
    /// A store file is not what was written.
    #[error("{} is damaged ({why}): run `{EMBED_COMMAND}` to write the passages again", file.display())]
    Damaged {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The vectors are another model's.
    #[error("the passages were embedded with {} (model.safetensors sha256 {}…), but the model loaded is {} ({}…); run `{EMBED_COMMAND}` to embed them with this model, or pass --model DIR with the folder of {}", built.name, &built.weights_sha256[..12.min(built.weights_sha256.len())], loaded.name, &loaded.weights_sha256[..12.min(loaded.weights_sha256.len())], built.name)]
    OtherModel {
        /// The store's model.
        built: Box<ModelId>,
        /// The model loaded.
        loaded: Box<ModelId>,
    },
    /// Ranking by meaning needs a model and none was loaded.
    #[error("ranking by meaning needs the sentence model, and none is loaded")]
    NoModel,
    /// A page could not be read.
    #[error("{0}")]
    Read(String),
    /// The store could not be written.
    #[error("cannot write the passages into {}: {why}", dir.display())]
    Write {
        /// The index folder.
        dir: PathBuf,
        /// What the system said.
        why: String,
    },
}
