//! A borrowed, read-only view of a transcript page for scanning.
//!
//! Scanning parses every page it reads, so it parses only what matching
//! and filtering need: strings borrow from the page's bytes where the JSON
//! has no escapes, cue times stay unparsed until a hit needs one, and
//! fields a scan never looks at are skipped. Readers that need whole
//! records use [`super::TranscriptPage`].

use std::borrow::Cow;

use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::transcripts::Paged;

/// A transcript page parsed for a scan: strings borrowed from the file's bytes where they need no unescaping.
/// `Yokeable`: a kept page holds its view beside the bytes it borrows from
/// ([`crate::archive::KeptPage`]).
#[derive(Debug, Deserialize, yoke::Yokeable)]
pub struct PageView<'a> {
    /// The channel's slug.
    #[serde(borrow)]
    pub channel: Cow<'a, str>,
    /// The page number, from 1.
    pub page: u32,
    /// The videos of this page.
    #[serde(borrow)]
    pub videos: Vec<VideoView<'a>>,
}

impl Paged for PageView<'_> {
    fn header(&self) -> (&str, u32) {
        (&self.channel, self.page)
    }
}

super::facts::with_facts! {
    /// A video as a scan sees it: its facts, and its texts borrowed.
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct VideoView<'a> {
        /// Its slug.
        #[serde(borrow)]
        pub slug: Cow<'a, str>,
        /// Its title.
        #[serde(borrow)]
        pub title: Cow<'a, str>,
        ..Facts,
        /// Its watch page.
        #[serde(borrow, default)]
        pub webpage_url: Option<Cow<'a, str>>,
        /// The uploader's description.
        #[serde(borrow, default)]
        pub description: Cow<'a, str>,
        /// The uploader's tags.
        #[serde(borrow, default)]
        pub tags: Vec<Cow<'a, str>>,
        /// The caption lines.
        #[serde(borrow, default)]
        pub cues: Vec<CueView<'a>>,
    }
}

impl VideoView<'_> {
    /// The length of its captions' text: [`super::text_bytes`] of its cues.
    pub fn caption_bytes(&self) -> u32 {
        super::text_bytes(self.cues.iter().map(|c| c.text.as_ref()))
    }
}

/// A cue: its start time as written, and its text.
#[derive(Debug)]
pub struct CueView<'a> {
    start: &'a RawValue,
    /// The caption text.
    pub text: Cow<'a, str>,
}

impl CueView<'_> {
    /// The start in seconds (parsed now; `None` if it is not a number).
    pub fn start(&self) -> Option<f64> {
        self.start.get().parse().ok()
    }
}

/// A string field that borrows when it can.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for CueView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CueVisitor;
        impl<'de> Visitor<'de> for CueVisitor {
            type Value = CueView<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a cue [start, end, \"text\"]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let missing =
                    |n| serde::de::Error::invalid_length(n, &"a cue [start, end, \"text\"]");
                let start: &RawValue = seq.next_element()?.ok_or_else(|| missing(0))?;
                let _end: IgnoredAny = seq.next_element()?.ok_or_else(|| missing(1))?;
                let Text(text) = seq.next_element()?.ok_or_else(|| missing(2))?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(CueView { start, text })
            }
        }
        d.deserialize_seq(CueVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::State;

    #[test]
    fn a_view_reads_what_a_scan_needs_and_borrows_plain_strings() {
        let json = r#"{"channel":"c","page":2,"videos":[{"slug":"s1","title":"T \u00e9","duration":9,
            "uploadDate":"20200101","state":"deleted","tags":["a"],"cues":[[1.5,2,"plain"],[3,4,"esc \"q\""]]}]}"#;
        let page: PageView = serde_json::from_str(json).unwrap();
        let v = &page.videos[0];
        assert_eq!(
            (v.slug.as_ref(), v.title.as_ref(), v.state),
            ("s1", "T é", State::Deleted)
        );
        assert!(matches!(v.cues[0].text, Cow::Borrowed("plain")));
        assert_eq!(v.cues[1].text, "esc \"q\"");
        assert_eq!(v.cues[0].start(), Some(1.5));
        assert!(serde_json::from_str::<PageView>(
            r#"{"channel":"c","page":1,"videos":[{"slug":"s","title":"t","cues":[[1,2]]}]}"#
        )
        .is_err());
    }
}
