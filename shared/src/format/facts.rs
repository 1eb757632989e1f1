//! A video's facts, declared once.
//!
//! A *fact* is what describes a video apart from its words and links:
//! when it was uploaded, how long it runs, what it is, who made its
//! captions and in what language. Filters read facts; summaries and the
//! index's rows carry them so that a filtered question is planned without
//! reading pages.
//!
//! The archive spells the facts at the top level of every JSON object that
//! describes a video (a transcript page's video, a `summaries/index.json`
//! row, a row of the index's `videos.json.zst`), so each struct that reads one
//! holds them as its own fields. The list below is the only place they
//! are named: `with_facts!` adds every fact, with its documentation and
//! serde attributes, to each struct it wraps (written `..Facts,` where the
//! facts go), and implements [`HasFacts`] for it, through which filters
//! read any of them alike ([`Facts`], the facts borrowed).
//!
//! Adding a fact is one entry of the list: records, page views, summary
//! rows and index rows carry it from then on. A filter on it is then a
//! row of `query::filter_args::FILTERS` and a predicate in
//! `query::filters`.
//!
//! (serde's `flatten` would let each struct embed one owned `Facts`, but
//! it reads through a buffer of every key and value, which cost several
//! milliseconds per 10,000 index rows; the macro costs nothing at run
//! time.)

use super::CaptionSource;

/// Declares [`Facts`], [`HasFacts`] and `with_facts!` from the one list
/// of facts (`$d` is a `$`, which the inner macro needs for its own
/// variables). Types in the list are spelled from the crate's root, since
/// they are expanded in other modules.
macro_rules! declare_facts {
    ($d:tt $( $(#[doc = $doc:literal])* #[serde($($serde:tt)*)] $name:ident : $ty:ty, )*) => {
        /// A video's facts, borrowed from the record, view or row that
        /// holds them (see the module's documentation).
        #[derive(Debug, Clone, Copy)]
        pub struct Facts<'a> {
            $( $(#[doc = $doc])* pub $name: &'a $ty, )*
        }

        /// A struct that holds every fact (made by `with_facts!`).
        pub trait HasFacts {
            /// Its facts, borrowed.
            fn facts(&self) -> Facts<'_>;
            /// Sets its facts to copies of `facts`.
            fn set_facts(&mut self, facts: Facts<'_>);
        }

        /// Wraps a struct declaration whose fields are all `pub`, adding
        /// every fact where the body says `..Facts,`, and implements
        /// [`HasFacts`] for it.
        macro_rules! with_facts {
            (
                $d(#[$d attr:meta])*
                $d vis:vis struct $d sname:ident $d(<$d lt:lifetime>)? {
                    $d($d(#[$d head_attr:meta])* pub $d head:ident : $d head_ty:ty,)*
                    ..Facts,
                    $d($d(#[$d tail_attr:meta])* pub $d tail:ident : $d tail_ty:ty),* $d(,)?
                }
            ) => {
                $d(#[$d attr])*
                $d vis struct $d sname $d(<$d lt>)? {
                    $d($d(#[$d head_attr])* pub $d head: $d head_ty,)*
                    $( $(#[doc = $doc])* #[serde($($serde)*)] pub $name: $ty, )*
                    $d($d(#[$d tail_attr])* pub $d tail: $d tail_ty,)*
                }

                impl $d(<$d lt>)? $crate::format::HasFacts for $d sname $d(<$d lt>)? {
                    fn facts(&self) -> $crate::format::Facts<'_> {
                        $crate::format::Facts { $( $name: &self.$name, )* }
                    }
                    fn set_facts(&mut self, facts: $crate::format::Facts<'_>) {
                        $( self.$name = facts.$name.clone(); )*
                    }
                }
            };
        }
        pub(crate) use with_facts;
    };
}

declare_facts! { $
    /// `YYYYMMDD`; absent when the source did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    upload_date: Option<String>,
    /// Its length in seconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration: Option<f64>,
    /// Where it is hosted, when it differs from the channel's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    platform: Option<crate::format::Platform>,
    /// Video or livestream.
    #[serde(default)]
    media_type: crate::format::MediaType,
    /// All ages or age-restricted.
    #[serde(default)]
    age: crate::format::Age,
    /// Available, deleted, private…
    #[serde(default)]
    state: crate::format::State,
    /// Ids from `tags.json`: the operator's vocabulary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    curated_tags: Vec<String>,
    /// `YYYYMMDD` of the original live recording, for mirrors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recorded_date: Option<String>,
    /// Who made the captions: the uploader, the platform, our speech to
    /// text, a machine translation. Absent in a record means the format's
    /// default ([`crate::format::Facts::captions`]); absent in a row written before rows
    /// carried it means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    caption_source: Option<crate::format::CaptionSource>,
    /// The language of the captions, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
}

impl Facts<'_> {
    /// Who made the captions, as a record reads: the format's default
    /// when the record does not say.
    pub fn captions(&self) -> CaptionSource {
        self.caption_source.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SummaryRow, VideoRecord, VideoView};
    use super::*;

    const VIDEO: &str = r#"{"slug":"s","title":"t","uploadDate":"20240102","duration":61.5,
        "platform":"rumble","mediaType":"livestream","age":"restricted","state":"unlisted",
        "curatedTags":["ai"],"recordedDate":"20231231","captionSource":"auto","lang":"es",
        "page":3,"channel":"c","cues":[]}"#;

    /// The facts as a comparable text.
    fn spelled(f: Facts) -> String {
        format!("{f:?}")
    }

    #[test]
    fn every_struct_that_reads_a_video_reads_the_same_facts() {
        let record: VideoRecord = serde_json::from_str(VIDEO).unwrap();
        let view: VideoView = serde_json::from_str(VIDEO).unwrap();
        let row: SummaryRow = serde_json::from_str(VIDEO).unwrap();
        let facts = spelled(record.facts());
        assert!(
            facts.contains("20231231") && facts.contains("Auto"),
            "{facts}"
        );
        assert_eq!(spelled(view.facts()), facts);
        assert_eq!(spelled(row.facts()), facts);
        let again: SummaryRow =
            serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
        assert_eq!(spelled(again.facts()), facts, "a row round-trips its facts");
    }

    #[test]
    fn set_facts_copies_every_fact() {
        let record: VideoRecord = serde_json::from_str(VIDEO).unwrap();
        let mut row = SummaryRow::default();
        row.set_facts(record.facts());
        assert_eq!(spelled(row.facts()), spelled(record.facts()));
    }

    #[test]
    fn an_absent_caption_source_reads_as_the_formats_default() {
        let record: VideoRecord = serde_json::from_str(r#"{"slug":"s","title":"t"}"#).unwrap();
        assert_eq!(*record.facts().caption_source, None);
        assert_eq!(record.facts().captions(), CaptionSource::Manual);
    }
}
