//! Channel manifests, transcript pages and the video records they hold.
//!
//! A page is the unit of cost: readers fetch and parse whole pages, and the
//! manifest's per-page `bytes` and `sha256` let a reader tell, without
//! reading a page, whether it is the page an index was built from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::corpus::Platform;

/// `transcripts/<channel>/manifest.json` (and the same shape for chat and
/// posts, where `slugToPage` maps video slugs or post ids).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// The channel's slug.
    pub channel: String,
    /// The channel's name, as people see it.
    #[serde(default)]
    pub name: String,
    /// Where its videos are hosted, if the exporter says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Its pages, in order; page N is `pages[N-1]`.
    pub pages: Vec<PageEntry>,
    /// Video slug (or post id) → 1-based page number.
    #[serde(default)]
    pub slug_to_page: SlugToPage,
}

/// A manifest's `slugToPage`, checked when the manifest is read (every
/// value a page number) but built into a map only when first looked
/// into: a search's page table needs the pages alone, and building the
/// map of a 2,500-video channel costs more than the rest of its manifest.
#[derive(Default, Clone)]
pub struct SlugToPage {
    /// The object as the file holds it (`None`: made from a map).
    raw: Option<Box<serde_json::value::RawValue>>,
    map: std::sync::OnceLock<BTreeMap<String, u32>>,
}

impl std::ops::Deref for SlugToPage {
    type Target = BTreeMap<String, u32>;

    fn deref(&self) -> &BTreeMap<String, u32> {
        self.map.get_or_init(|| {
            // Checked at read (see `Deserialize`), so this parse succeeds.
            self.raw
                .as_ref()
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or_default()
        })
    }
}

impl std::ops::DerefMut for SlugToPage {
    fn deref_mut(&mut self) -> &mut BTreeMap<String, u32> {
        let _ = &**self;
        self.raw = None;
        self.map.get_mut().expect("built by the deref above")
    }
}

impl From<BTreeMap<String, u32>> for SlugToPage {
    fn from(map: BTreeMap<String, u32>) -> Self {
        SlugToPage {
            raw: None,
            map: map.into(),
        }
    }
}

impl<'a> IntoIterator for &'a SlugToPage {
    type Item = (&'a String, &'a u32);
    type IntoIter = std::collections::btree_map::Iter<'a, String, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for SlugToPage {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for SlugToPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for SlugToPage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for SlugToPage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        serde_json::from_str::<PageNumbers>(raw.get()).map_err(serde::de::Error::custom)?;
        Ok(SlugToPage {
            raw: Some(raw),
            map: std::sync::OnceLock::new(),
        })
    }
}

/// An object whose every value is a page number, checked without
/// building anything.
struct PageNumbers;

impl<'de> Deserialize<'de> for PageNumbers {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = PageNumbers;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of slug → page number")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<PageNumbers, A::Error> {
                while m.next_entry::<serde::de::IgnoredAny, u32>()?.is_some() {}
                Ok(PageNumbers)
            }
        }
        d.deserialize_map(Visit)
    }
}

/// One page file as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageEntry {
    /// File name inside the channel directory, e.g. `page-0001.json`.
    pub file: String,
    /// How many records the page holds.
    pub videos: u32,
    /// The file's size.
    pub bytes: u64,
    /// Lower-case hex sha256 of the file's bytes.
    pub sha256: String,
}

/// The file name of page `n` (1-based): `page-0001.json`.
pub fn page_file_name(n: u32) -> String {
    format!("page-{n:04}.json")
}

/// `transcripts/<channel>/page-NNNN.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptPage {
    /// The channel's slug (checked against the page asked for).
    pub channel: String,
    /// The page number, from 1 (checked too).
    pub page: u32,
    /// The videos of this page.
    pub videos: Vec<VideoRecord>,
}

/// A page of any layer: it says which channel and page it is.
pub trait Paged {
    /// The channel and page number the file says it is.
    fn header(&self) -> (&str, u32);
}

impl Paged for TranscriptPage {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

super::facts::with_facts! {
    /// Everything known about one video, and its captions.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct VideoRecord {
        /// The platform's id (for Rumble the embed id; `webpageUrl` carries the
        /// URL's slug id). Unique within a channel.
        pub slug: String,
        /// Its title.
        pub title: String,
        ..Facts,
        /// The watch page on its platform.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub webpage_url: Option<String>,
        /// The uploader's description.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub description: String,
        /// The uploader's own keywords.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub tags: Vec<String>,
        /// The caption lines, in time order.
        #[serde(default)]
        pub cues: Vec<Cue>,
    }
}

array_record! {
    /// One caption line: `[start, end, "text"]` on disk, seconds.
    Cue {
        /// Seconds from the video's start.
        start: f64,
        /// Seconds from the video's start.
        end: f64,
        /// What was said.
        text: String,
    }
}

/// Whether the upload is a plain video or a (recorded) livestream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaType {
    /// A plain upload.
    #[default]
    Video,
    /// A recorded livestream.
    Livestream,
}

/// Whether the platform age-restricts the upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Age {
    /// Anyone may watch it.
    #[default]
    AllAges,
    /// Age-restricted on its platform.
    Restricted,
}

/// Whether the upload still exists on its platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Online as archived.
    #[default]
    Available,
    /// Could not be checked lately.
    MaybeMissing,
    /// Removed from its platform.
    Deleted,
    /// Made private.
    Private,
    /// For paying members only.
    MembersOnly,
    /// Online, but unlisted.
    Unlisted,
}

/// Where the captions came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptionSource {
    /// Written by the uploader.
    #[default]
    Manual,
    /// The platform's automatic captions.
    Auto,
    /// Our own speech-to-text (Whisper).
    Asr,
    /// The platform's machine translation from another language, kept
    /// only when asked (`import --keep-translations`) and labelled
    /// wherever the video is shown: the words are not the speaker's.
    Translated,
}

macro_rules! names {
    ($ty:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in the order messages list them.
            pub const ALL: &'static [$ty] = &[$(<$ty>::$variant),+];
            /// The value as the format spells it.
            pub fn as_str(self) -> &'static str {
                match self { $(<$ty>::$variant => $name),+ }
            }
            /// The inverse of [`Self::as_str`].
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($name => Some(<$ty>::$variant),)+ _ => None }
            }
        }
    };
}

names!(MediaType { Video => "video", Livestream => "livestream" });
names!(Age { AllAges => "all_ages", Restricted => "restricted" });
names!(State {
    Available => "available",
    MaybeMissing => "maybe_missing",
    Deleted => "deleted",
    Private => "private",
    MembersOnly => "members_only",
    Unlisted => "unlisted",
});
names!(CaptionSource {
    Manual => "manual",
    Auto => "auto",
    Asr => "asr",
    Translated => "translated",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_to_page_is_checked_at_read_and_looked_into_later() {
        let good = r#"{"channel":"c","pages":[],"slugToPage":{"a":1,"b\u0022":2}}"#;
        let m: Manifest = serde_json::from_str(good).unwrap();
        assert_eq!(m.slug_to_page.get("b\""), Some(&2));
        assert_eq!(m.slug_to_page.len(), 2);
        let back: Manifest = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        let mut edited = m.clone();
        edited.slug_to_page.remove("a");
        let written = serde_json::to_string(&edited).unwrap();
        assert!(written.contains(r#""slugToPage":{"b\"":2}"#), "{written}");
        let bad = r#"{"channel":"c","pages":[],"slugToPage":{"a":"one"}}"#;
        let e = serde_json::from_str::<Manifest>(bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected u32"), "{e}");
    }
}
