//! archilyzer-embed: sentence vectors in-process, from local files.
//!
//! A model is a folder in the sentence-transformers layout
//! (`config.json`, `model.safetensors`, `tokenizer.json`,
//! `1_Pooling/config.json`, optionally `sentence_bert_config.json`) of a
//! BERT-family encoder; the default is `all-MiniLM-L6-v2` (384
//! dimensions). Nothing here opens a socket: a model is read from disk or
//! not at all.
//!
//! - [`wordpiece`]: the tokeniser (`tokenizer.json`).
//! - [`config`]: the encoder's shape and pooling.
//! - [`bert`]: the weights and the forward pass.
//! - [`mod@locate`]: where a model is looked for, and what is said when none is.
//! - [`vectors`]: int8 vectors on disk, memory-mapped, and their dot
//!   products with a query.
//! - [`tiny`]: a small model with random weights in the same layout, for
//!   tests that must run without the real one.
//!
//! [`Embedder::embed`] spreads texts over the machine's cores; its vectors
//! are unit length, so a dot product is their cosine.

#![deny(unsafe_code)]

pub mod bert;
pub mod config;
pub mod locate;
pub mod tiny;
pub mod vectors;
pub mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

pub use bert::Bert;
pub use config::Config;
pub use locate::{locate, Located, DEFAULT_MODEL, MODEL_ENV};
pub use wordpiece::WordPiece;

/// Why a model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The folder is not a model this crate runs.
    #[error("the model is not usable: {0}")]
    Model(String),
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl EmbedError {
    pub(crate) fn model(why: impl Into<String>) -> Self {
        EmbedError::Model(why.into())
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        EmbedError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// What a model is, as recorded beside the vectors it made: vectors of
/// two models never meet, since their hashes differ.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelId {
    /// A name for people (the folder's, or the one it was installed as).
    pub name: String,
    /// sha256 of `model.safetensors`.
    pub weights_sha256: String,
    /// sha256 of `tokenizer.json`.
    pub tokenizer_sha256: String,
    /// The vectors' dimension.
    pub dim: usize,
}

impl ModelId {
    /// Whether vectors made by `other` can be compared with this model's.
    pub fn same_model(&self, other: &ModelId) -> bool {
        self.weights_sha256 == other.weights_sha256
            && self.tokenizer_sha256 == other.tokenizer_sha256
            && self.dim == other.dim
    }
}

/// A loaded model: tokeniser, encoder and identity.
pub struct Embedder {
    tokenizer: WordPiece,
    bert: Bert,
    id: ModelId,
    threads: usize,
}

/// Texts per batch: their tokens go through the dense layers as one
/// matrix.
const BATCH: usize = 16;

impl Embedder {
    /// Loads the model in `dir`, named `name`, hashing its weights and
    /// tokeniser for its identity.
    pub fn load(dir: &Path, name: &str) -> Result<Embedder, EmbedError> {
        let config = Config::read(dir)?;
        let read = |file: &str| {
            let path = dir.join(file);
            std::fs::read(&path).map_err(|e| EmbedError::io(&path, e))
        };
        let weights = dir.join("model.safetensors");
        let tokenizer_bytes = read("tokenizer.json")?;
        let tokenizer = WordPiece::from_json(&String::from_utf8_lossy(&tokenizer_bytes))?;
        let id = ModelId {
            name: name.to_string(),
            weights_sha256: sha256_file(&weights)?,
            tokenizer_sha256: sha256(&tokenizer_bytes),
            dim: config.hidden,
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let bert = Bert::load(config, &weights)?;
        Ok(Embedder {
            tokenizer,
            bert,
            id,
            threads,
        })
    }

    /// The model's identity.
    pub fn id(&self) -> &ModelId {
        &self.id
    }

    /// The tokeniser.
    pub fn tokenizer(&self) -> &WordPiece {
        &self.tokenizer
    }

    /// Runs on at most `threads` threads (at least one).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The word-piece ids of `text`, cut to the model's limit.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, self.bert.config().max_tokens)
    }

    /// One unit vector per text, in order, over the embedder's threads.
    pub fn embed<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        self.embed_with(texts, &|_| {})
    }

    /// The same, calling `done(n)` as each batch of `n` texts is embedded.
    pub fn embed_with<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        done: &(dyn Fn(usize) + Sync),
    ) -> Vec<Vec<f32>> {
        let batches: Vec<&[S]> = texts.chunks(BATCH).collect();
        let mut out: Vec<Vec<Vec<f32>>> = Vec::new();
        out.resize_with(batches.len(), Vec::new);
        let next = AtomicUsize::new(0);
        let slots: Vec<std::sync::Mutex<&mut Vec<Vec<f32>>>> =
            out.iter_mut().map(std::sync::Mutex::new).collect();
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(batches.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(batch) = batches.get(i) else { break };
                    let ids: Vec<Vec<u32>> =
                        batch.iter().map(|t| self.encode(t.as_ref())).collect();
                    // One thread per batch already: the layers stay on it.
                    let vectors = self.bert.embed(&ids, 1);
                    **slots[i].lock().expect("a batch's slot is filled once") = vectors;
                    done(batch.len());
                });
            }
        });
        drop(slots);
        out.into_iter().flatten().collect()
    }

    /// The vector of one text.
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        self.bert
            .embed(&[self.encode(text)], self.threads)
            .pop()
            .expect("one text, one vector")
    }
}

/// sha256 of the file at `path`, read in pieces, as lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String, EmbedError> {
    let mut file = std::fs::File::open(path).map_err(|e| EmbedError::io(path, e))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| EmbedError::io(path, e))?;
    Ok(hex::encode(hasher.finalize()))
}

/// sha256 of `bytes`, as lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
