//! archilyzer-core: everything both binaries need to read a transcript
//! archive (a *composed public dir*).
//!
//! - [`collapse`]: counting recordings, not uploads (duplicate clusters).
//! - [`format`]: the archive format, version 1, as serde types.
//! - [`source`]: where bytes come from (local dir, HTTP with retries and a
//!   disk cache) and the source handles that name an archive.
//! - [`archive`]: an opened site or hub, with typed, cached access to its
//!   files and a byte-budgeted, coalescing page cache.
//! - [`captions`]: parsers for the caption files people have (WebVTT, SRT,
//!   Whisper TSV/JSON, YouTube json3/srv3).
//! - [`logging`]: the stderr logger both binaries install.
//! - [`net`]: the HTTP runtime and client both binaries share.
//! - [`share`]: viewer share links (a whole search in one URL).
//! - [`output`] and [`staging`]: which folders a command may replace
//!   (only its own output) and how it replaces them (atomically).
//! - [`text`]: the one normaliser and tokeniser (index and query share it).

pub mod archive;
pub mod captions;
pub mod collapse;
pub mod format;
pub mod index;
pub mod logging;
pub mod net;
pub mod output;
pub mod query;
pub mod share;
pub mod source;
pub mod staging;
pub mod text;

#[cfg(feature = "testkit")]
pub mod testkit;
