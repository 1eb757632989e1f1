//! archilyzer-index as a library: what the `archilyzer-index` binary does,
//! in modules the tests can call.
//!
//! - [`compose`]: writing a composed public dir (pages, manifests, extras).
//! - [`generate`]: the deterministic archive generator.
//! - [`import`]: composing an archive from caption files people have.
//! - [`stats`]: figures about an archive.
//! - [`size`]: human byte sizes on the command line (`50MB`, `1.3GiB`).

pub mod compose;
pub mod generate;
pub mod import;
pub mod size;
pub mod stats;
