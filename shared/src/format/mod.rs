//! The archive format, version 1, as serde types (documented for people in
//! `docs/corpus-format.md`).
//!
//! Promises: every type here round-trips (write → read gives an equal
//! value); an unknown field is ignored, so a newer minor version still
//! reads; a newer major version is refused by [`parse_corpus`] with a
//! message naming both versions. Paths inside an archive are built only by
//! [`paths`], so no other module spells a file name.

/// Declares a record stored on disk as a JSON array of its fields, in
/// order (`[start, end, "text"]`), with named fields in Rust.
macro_rules! array_record {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty),+
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let ($($field,)+) = <($($ty,)+)>::deserialize(d)?;
                Ok($name { $($field),+ })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ($(&self.$field,)+).serialize(s)
            }
        }
    };
}

mod corpus;
pub mod cue_layout;
mod extras;
pub mod facts;
pub mod spans;
mod transcripts;
pub mod url_transcript;
mod view;

pub use corpus::*;
pub use extras::*;
pub use facts::{Facts, HasFacts};
pub use transcripts::*;
pub use view::{CueView, PageView, VideoView};

/// A file of the archive could not be understood.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FormatError {
    /// Not JSON of the expected shape: re-export the archive.
    #[error("{file}: not valid archive JSON: {reason}")]
    Json {
        /// The file, as the archive names it.
        file: String,
        /// serde's message (line and column).
        reason: String,
    },
    /// JSON of the right shape that breaks a rule (a page that says it is
    /// another page): re-export the archive.
    #[error("{file}: {reason}")]
    Invalid {
        /// The file, as the archive names it.
        file: String,
        /// The rule broken.
        reason: String,
    },
    #[error(
        "{file} declares format spec {found}, but this build reads spec {} only: \
         upgrade archilyzer to read this archive",
        SPEC_VERSION
    )]
    /// Written by a newer exporter: upgrade archilyzer.
    NewerSpec {
        /// The file that declares it.
        file: String,
        /// The spec it declares.
        found: u64,
    },
}

impl FormatError {
    /// A JSON error of `file`, kept as its message.
    pub fn json(file: &str, e: serde_json::Error) -> Self {
        FormatError::Json {
            file: file.to_string(),
            reason: e.to_string(),
        }
    }
}

/// Parses one archive file, naming it in the error.
pub fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8], file: &str) -> Result<T, FormatError> {
    from_json(bytes).map_err(|e| FormatError::json(file, e))
}

/// JSON `bytes` as `T`. The bytes are checked to be UTF-8 once, up front
/// (`simdutf8`, a SIMD pass), so the parser need not check each string
/// again; bytes that are not UTF-8 are parsed as bytes, for serde_json's
/// precise message.
pub fn from_json<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// Parses a page and checks it is the page the manifest promised (its
/// `channel` and `page` fields).
pub fn parse_page<'a, T: serde::Deserialize<'a> + Paged>(
    bytes: &'a [u8],
    name: &str,
    channel: &str,
    n: u32,
) -> Result<T, FormatError> {
    let page: T = from_json(bytes).map_err(|e| FormatError::json(name, e))?;
    let (found_channel, found_page) = page.header();
    if (found_channel, found_page) != (channel, n) {
        return Err(FormatError::Invalid {
            file: name.to_string(),
            reason: format!(
                "holds channel {found_channel:?} page {found_page} where the manifest promises {channel:?} page {n}"
            ),
        });
    }
    Ok(page)
}

/// The relative path of every file in an archive.
pub mod paths {
    use super::page_file_name;

    /// The site's (or hub's) description.
    pub const CORPUS: &str = "corpus.json";
    /// One row per video.
    pub const SUMMARIES: &str = "summaries/index.json";
    /// What each video was imported from (written by `import`, read by
    /// the next import only; no reader of the archive needs it).
    pub const IMPORT_LEDGER: &str = "import-ledger.json";
    /// Curated query expansions.
    pub const ALIASES: &str = "aliases.json";
    /// Curated tags.
    pub const TAGS: &str = "tags.json";
    /// Clusters of mirrored uploads.
    pub const DUPLICATES: &str = "duplicates.json";
    /// The reports a site publishes.
    pub const REPORTS: &str = "reports/index.json";

    /// The three paged layers, each `<layer>/<channel>/manifest.json` plus
    /// `page-NNNN.json` files.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Layer {
        /// Captions.
        Transcripts,
        /// Live chat.
        Chat,
        /// Posts.
        Posts,
    }

    impl Layer {
        /// The folder of this layer (`transcripts`, `chat`, `posts`).
        pub fn dir(self) -> &'static str {
            match self {
                Layer::Transcripts => "transcripts",
                Layer::Chat => "chat",
                Layer::Posts => "posts",
            }
        }
    }

    /// A channel's manifest of a layer.
    pub fn manifest(layer: Layer, channel: &str) -> String {
        format!("{}/{channel}/manifest.json", layer.dir())
    }

    /// Page `page` of a channel's layer, as the exporter names it.
    pub fn page(layer: Layer, channel: &str, page: u32) -> String {
        format!("{}/{channel}/{}", layer.dir(), page_file_name(page))
    }

    /// A channel's figures.
    pub fn stats(channel: &str) -> String {
        format!("stats/{channel}.json")
    }

    /// A channel's AI digests.
    pub fn digests(channel: &str) -> String {
        format!("digests/{channel}.json")
    }

    /// One report.
    pub fn report(id: &str) -> String {
        format!("reports/{id}/page.json")
    }
}

/// A time in seconds as `[h:]mm:ss` (floored; negative is 0:00), as every
/// printed timestamp shows it.
pub fn clock(seconds: f64) -> String {
    match seconds.max(0.0) < 3600.0 {
        true => {
            let s = seconds.max(0.0).floor() as u64;
            format!("{}:{:02}", s / 60, s % 60)
        }
        false => clock_with_hours(seconds),
    }
}

/// A time in seconds as `h:mm:ss`, the hours shown even when 0 (the
/// transcript tool's line stamps, which line up in a column).
pub fn clock_with_hours(seconds: f64) -> String {
    let s = seconds.max(0.0).floor() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The length of `texts` in bytes: what relevance weighs hits against
/// (it only compares lengths, so bytes serve as well as words, and cost
/// no pass over the text). One rule for a video read from its page and
/// one answered from the index's row (`captionBytes`).
pub fn text_bytes<'a>(texts: impl Iterator<Item = &'a str>) -> u32 {
    let bytes: usize = texts.map(str::len).sum();
    u32::try_from(bytes).unwrap_or(u32::MAX)
}
