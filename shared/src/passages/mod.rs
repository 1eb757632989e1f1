//! Passages found by meaning: runs of consecutive cues, embedded by a
//! sentence model at build time, ranked against a query's vector and
//! fused with a words ranking of the same passages.

use std::path::PathBuf;

/// Where installed sentence models live: `<cache>/models`.
pub fn model_root() -> Option<PathBuf> {
    crate::archive::cache_dir().map(|d| d.join("models"))
}
