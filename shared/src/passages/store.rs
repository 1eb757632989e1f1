//! The passage store: `passages/` in the index folder.
//!
//! ```text
//! meta.json    format, the model's identity (name, hashes, dimension),
//!              the cut (seconds), each video (site, channel, slug, a
//!              digest of its cues, its first passage and count), the
//!              passage count, the mean length in words, and the xxh3 of
//!              each file below
//! records.bin  per passage, 24 bytes: video number, first cue, cue
//!              count, length in words (u32 each), the vector's scale
//!              (f32) and the fingerprint of its text (u32), little-endian
//! vectors.i8   per passage, the model's dimension in int8
//!              (archilyzer_embed::vectors)
//! words.fst, words.bin
//!              the words side (super::words)
//! ```
//!
//! Promises: the folder is written whole under a temporary name in the
//! index folder and renamed into place, so a reader sees the old store or
//! the new one, never a mix; a file whose bytes are not the ones
//! meta.json records is refused at open, naming it, with the command
//! that rebuilds it.

use std::path::{Path, PathBuf};

use archilyzer_embed::vectors::Vectors;
use archilyzer_embed::ModelId;
use serde::{Deserialize, Serialize};

use super::words::Words;
use super::PassageError;

/// The folder's name inside the index folder.
pub use crate::index::files::PASSAGES as DIR;

/// The folder of an embedding run's unfinished work
/// ([`mod@super::embed`]), in the index folder.
pub use crate::index::files::PASSAGES_PENDING as PENDING;

/// The store's format.
pub const FORMAT: u32 = 1;

/// Bytes per record.
pub const RECORD: usize = 24;

/// File names.
pub mod files {
    /// The store's description.
    pub const META: &str = "meta.json";
    /// Fixed-size passage records.
    pub const RECORDS: &str = "records.bin";
    /// The int8 vectors.
    pub const VECTORS: &str = "vectors.i8";
    /// Words → offsets.
    pub const WORD_MAP: &str = "words.fst";
    /// Passage lists of words.
    pub const WORD_LISTS: &str = "words.bin";
}

/// One video of the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredVideo {
    /// The site's id.
    pub site: String,
    /// The channel's slug.
    pub channel: String,
    /// The video's slug.
    pub slug: String,
    /// xxh3 of its cues ([`super::embed::digest`]).
    pub digest: String,
    /// Its first passage's number.
    pub first: u32,
    /// How many passages it has.
    pub count: u32,
}

/// `meta.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// [`FORMAT`].
    pub format: u32,
    /// The model the vectors are of.
    pub model: ModelId,
    /// The cut's length ([`super::cut::SECONDS`]).
    pub seconds: f64,
    /// Passages in all.
    pub passages: u32,
    /// Their mean length in words.
    pub mean_words: f32,
    /// The videos, in store order.
    pub videos: Vec<StoredVideo>,
    /// xxh3 of each data file, by name.
    pub digests: std::collections::BTreeMap<String, String>,
}

/// One passage's record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// Its video's number in [`Meta::videos`].
    pub video: u32,
    /// Its first cue.
    pub first_cue: u32,
    /// How many cues.
    pub cues: u32,
    /// Its length in words.
    pub words: u32,
    /// Its vector's scale.
    pub scale: f32,
    /// [`super::cut::fingerprint`] of its text.
    pub fingerprint: u32,
}

impl Record {
    /// The record's bytes.
    pub fn bytes(&self) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[0..4].copy_from_slice(&self.video.to_le_bytes());
        b[4..8].copy_from_slice(&self.first_cue.to_le_bytes());
        b[8..12].copy_from_slice(&self.cues.to_le_bytes());
        b[12..16].copy_from_slice(&self.words.to_le_bytes());
        b[16..20].copy_from_slice(&self.scale.to_le_bytes());
        b[20..24].copy_from_slice(&self.fingerprint.to_le_bytes());
        b
    }

    /// The record in `b` (24 bytes).
    pub fn read(b: &[u8]) -> Record {
        let u = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Record {
            video: u(0),
            first_cue: u(4),
            cues: u(8),
            words: u(12),
            scale: f32::from_bits(u(16)),
            fingerprint: u(20),
        }
    }
}

/// A store, opened and checked.
pub struct Store {
    /// Its description.
    pub meta: Meta,
    records: Vec<u8>,
    /// The vectors, mapped.
    pub vectors: Vectors,
    /// The words side.
    pub words: Words,
}

/// The store folder of the index in `index_dir`.
pub fn dir_of(index_dir: &Path) -> PathBuf {
    index_dir.join(DIR)
}

/// xxh3 of `bytes` as hex.
pub fn digest(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

impl Store {
    /// Opens the store of the index in `index_dir`.
    pub fn open(index_dir: &Path) -> Result<Store, PassageError> {
        let dir = dir_of(index_dir);
        if !dir.join(files::META).is_file() {
            return Err(PassageError::NotBuilt(index_dir.to_path_buf()));
        }
        let damaged = |file: &str, why: String| PassageError::Damaged {
            file: dir.join(file),
            why,
        };
        let read =
            |file: &str| std::fs::read(dir.join(file)).map_err(|e| damaged(file, e.to_string()));
        let meta: Meta = serde_json::from_slice(&read(files::META)?)
            .map_err(|e| damaged(files::META, e.to_string()))?;
        if meta.format != FORMAT {
            return Err(damaged(
                files::META,
                format!("store format {}, this build reads {FORMAT}", meta.format),
            ));
        }
        let checked = |file: &str, bytes: &[u8]| {
            if meta.digests.get(file).map(String::as_str) == Some(digest(bytes).as_str()) {
                Ok(())
            } else {
                Err(damaged(
                    file,
                    "its bytes are not the ones meta.json records".into(),
                ))
            }
        };
        let records = read(files::RECORDS)?;
        checked(files::RECORDS, &records)?;
        let map_bytes = read(files::WORD_MAP)?;
        checked(files::WORD_MAP, &map_bytes)?;
        let blob = read(files::WORD_LISTS)?;
        checked(files::WORD_LISTS, &blob)?;
        let vectors = Vectors::open(&dir.join(files::VECTORS), meta.model.dim)
            .map_err(|e| damaged(files::VECTORS, e.to_string()))?;
        checked(files::VECTORS, vectors.bytes())?;
        let n = meta.passages as usize;
        if records.len() != n * RECORD || vectors.len() != n {
            return Err(damaged(
                files::RECORDS,
                format!("it does not hold {n} passages"),
            ));
        }
        let map = fst::Map::new(map_bytes).map_err(|e| damaged(files::WORD_MAP, e.to_string()))?;
        let lengths = records.chunks_exact(RECORD).map(|r| Record::read(r).words);
        let words = Words::new(map, blob, lengths, meta.mean_words);
        Ok(Store {
            meta,
            records,
            vectors,
            words,
        })
    }

    /// Passage `i`'s record.
    pub fn record(&self, i: u32) -> Record {
        let at = i as usize * RECORD;
        Record::read(&self.records[at..at + RECORD])
    }

    /// How many passages the store holds.
    pub fn len(&self) -> u32 {
        self.meta.passages
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.meta.passages == 0
    }
}

/// Everything a store is written from.
pub struct Written {
    /// Its description (digests filled in by [`write()`]).
    pub meta: Meta,
    /// The records' bytes.
    pub records: Vec<u8>,
    /// The vectors' bytes.
    pub vectors: Vec<u8>,
    /// `words.fst`.
    pub word_map: Vec<u8>,
    /// `words.bin`.
    pub word_lists: Vec<u8>,
}

/// Writes the store of the index in `index_dir`: to a temporary folder
/// beside it, then renamed over the old one. Returns its size in bytes.
pub fn write(index_dir: &Path, mut w: Written) -> std::io::Result<u64> {
    let files = [
        (files::RECORDS, &w.records),
        (files::VECTORS, &w.vectors),
        (files::WORD_MAP, &w.word_map),
        (files::WORD_LISTS, &w.word_lists),
    ];
    for (name, bytes) in files {
        w.meta.digests.insert(name.into(), digest(bytes));
    }
    let staged = tempfile::Builder::new()
        .prefix(".passages.partial-")
        .tempdir_in(index_dir)?;
    let mut total = 0;
    for (name, bytes) in files {
        std::fs::write(staged.path().join(name), bytes)?;
        total += bytes.len() as u64;
    }
    let meta = serde_json::to_vec(&w.meta).map_err(std::io::Error::other)?;
    std::fs::write(staged.path().join(files::META), &meta)?;
    total += meta.len() as u64;
    let target = dir_of(index_dir);
    let aside = tempfile::Builder::new()
        .prefix(".passages.old-")
        .tempdir_in(index_dir)?;
    if target.exists() {
        std::fs::rename(&target, aside.path().join("old"))?;
    }
    std::fs::rename(staged.keep(), &target)?;
    drop(aside);
    Ok(total)
}
