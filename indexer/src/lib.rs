//! archilyzer-index as a library: what the `archilyzer-index` binary
//! does, in modules the tests (and `archilyzer-dev`) can call. Each
//! subcommand is a module with its flags and one `command` function.
//!
//! - [`cli`]: the flags several commands share (the archive, the index);
//!   a query's own flags are `archilyzer_core::query::Find`'s.
//! - [`build`]: writing an archive's index, with progress.
//! - [`terms`]: a word's neighbours in the vocabulary.
//! - [`related`]: what is said alongside a query, and which videos are alike.
//! - [`model`]: installing the sentence model, and printing vectors.
//! - [`passages`]: passages by meaning, by words, or both.
//! - [`phrasing`]: the command line's words for the tools' argument and tool names.
//! - [`check`]: index-vs-full-scan parity.
//! - [`search`]: search flags and the rendering of results.
//! - [`trend`]: mentions over time: bars, JSON, and the files below.
//! - [`chart`]: a trend as an SVG chart.
//! - [`html`]: a search or trend as one self-contained HTML page.
//! - [`progress`]: progress bars on a terminal, lines otherwise.
//! - [`compose`]: writing a composed public dir (pages, manifests, extras).
//! - [`import`]: composing an archive from caption files people have.
//! - [`stats`]: figures about an archive.
//! - [`size`]: human byte sizes on the command line (`50MB`, `1.3GiB`).
//!
//! The developers' tools (`archilyzer-dev`: the generator, the benchmark,
//! the slowed loopback host) are a crate of their own, indexer/dev/, so
//! nothing of them is in what people install.
#![forbid(unsafe_code)]

pub mod build;
pub mod chart;
pub mod check;
pub mod cli;
pub mod compose;
pub mod html;
pub mod import;
pub mod model;
pub mod passages;
pub mod phrasing;
pub mod progress;
pub mod related;
pub mod search;
pub mod size;
pub mod stats;
pub mod terms;
pub mod trend;
