//! Where each video sits inside a transcript page file.
//!
//! A transcript page is a JSON object whose `videos` array holds one object
//! per video. [`videos`] finds the exact bytes of each of those objects, so
//! a reader that knows a video's span can read and parse only those bytes
//! (a positioned read on disk, a `Range` request over HTTP) instead of the
//! whole page.
//!
//! Promise: [`VideoSpan::check`] accepts bytes only when they are as long
//! as the span, hash to its digest *and* parse as a video
//! ([`VideoSpan::check_record`] also requires the slug it is asked for).
//! Bytes that fail prove nothing about the page, and the reader must go
//! back to the whole page (the index never decides a hit; see
//! `crate::index`).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::view::VideoView;
use super::{FormatError, VideoRecord};

/// A video's bytes in its page file: `start..end` (`end` exclusive) and
/// the [`digest64`] of those bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VideoSpan {
    /// Offset of the video's first byte (`{`).
    pub start: u64,
    /// Offset just past its last byte (`}`).
    pub end: u64,
    /// [`digest64`] of the bytes in between.
    pub digest: u64,
}

/// The xxh3 (64 bits) of `bytes`: enough to tell a changed span from the
/// one indexed, short enough to keep per video, and fast enough to check
/// on every read (the whole page keeps its sha256 in the manifest).
pub fn digest64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// [`digest64`] as 16 hex digits, as `meta.json` records a file's.
pub fn digest(bytes: &[u8]) -> String {
    format!("{:016x}", digest64(bytes))
}

/// The page's videos, as raw JSON borrowed from its bytes.
#[derive(Deserialize)]
struct Skim<'a> {
    #[serde(borrow)]
    videos: Vec<&'a RawValue>,
}

/// Every video of a transcript page, in page order: its span, and its
/// JSON text borrowed from `bytes` (what the index builder parses, one
/// video at a time).
pub fn videos<'a>(bytes: &'a [u8], name: &str) -> Result<Vec<(VideoSpan, &'a str)>, FormatError> {
    let base = bytes.as_ptr() as usize;
    Ok(raw_videos(bytes, name)?
        .into_iter()
        .map(|text| {
            let start = (text.as_ptr() as usize - base) as u64;
            let span = VideoSpan {
                start,
                end: start + text.len() as u64,
                digest: digest64(text.as_bytes()),
            };
            (span, text)
        })
        .collect())
}

/// Every video of a transcript page, in page order, as its JSON text
/// borrowed from `bytes` (what a re-import copies for a video it keeps).
pub fn raw_videos<'a>(bytes: &'a [u8], name: &str) -> Result<Vec<&'a str>, FormatError> {
    let skim: Skim = super::from_json(bytes).map_err(|e| FormatError::json(name, e))?;
    Ok(skim.videos.iter().map(|raw| raw.get()).collect())
}

/// Video `slug` of a transcript page's `bytes`, parsing only its object:
/// the objects holding the slug as a JSON string are parsed until one is
/// that video; when the file writes the slug with escapes, each object's
/// slug is read to find it. `None` when the page does not hold it.
pub fn find(bytes: &[u8], name: &str, slug: &str) -> Result<Option<VideoRecord>, FormatError> {
    let spans = videos(bytes, name)?;
    let needle = serde_json::to_string(slug).unwrap_or_default();
    let parse = |json: &str| -> Result<VideoRecord, FormatError> {
        serde_json::from_str(json).map_err(|e| FormatError::json(name, e))
    };
    for (_, json) in &spans {
        if memchr::memmem::find(json.as_bytes(), needle.as_bytes()).is_some() {
            let video = parse(json)?;
            if video.slug == slug {
                return Ok(Some(video));
            }
        }
    }
    #[derive(Deserialize)]
    struct Slug {
        slug: String,
    }
    for (_, json) in &spans {
        let named: Slug = serde_json::from_str(json).map_err(|e| FormatError::json(name, e))?;
        if named.slug == slug {
            return parse(json).map(Some);
        }
    }
    Ok(None)
}

/// A video's cues as raw JSON, borrowed.
#[derive(Deserialize)]
struct CueSkim<'a> {
    #[serde(borrow, default)]
    cues: Vec<&'a RawValue>,
}

/// Where each cue of a video sits in its JSON text `json` (the text of
/// its span): byte ranges from the span's start, in cue order. `None`
/// when the text does not parse or is too long to count in 32 bits.
pub fn cue_ranges(json: &str) -> Option<Vec<std::ops::Range<u32>>> {
    let skim: CueSkim = serde_json::from_str(json).ok()?;
    let base = json.as_ptr() as usize;
    skim.cues
        .iter()
        .map(|raw| {
            let start = u32::try_from(raw.get().as_ptr() as usize - base).ok()?;
            Some(start..start.checked_add(u32::try_from(raw.get().len()).ok()?)?)
        })
        .collect()
}

impl VideoSpan {
    /// The span's length in bytes.
    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span is empty (never, for a span [`find`] found).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`VideoSpan::check`], parsed into an owned record that must be
    /// video `slug`.
    pub fn check_record(&self, bytes: &[u8], slug: &str) -> Option<VideoRecord> {
        if !self.holds(bytes) {
            return None;
        }
        let video: VideoRecord = super::from_json(bytes).ok()?;
        (video.slug == slug).then_some(video)
    }

    /// Whether `bytes` are the ones this span was taken from: as long,
    /// with the same digest.
    pub fn holds(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.len() && digest64(bytes) == self.digest
    }

    /// `bytes` parsed as a video, if they are exactly the bytes this span
    /// was taken from (same length, same digest); `None` sends the reader
    /// to the whole page.
    pub fn check<'a>(&self, bytes: &'a [u8]) -> Option<VideoView<'a>> {
        if !self.holds(bytes) {
            return None;
        }
        super::from_json(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"{"channel":"c","page":1,"videos":[ {"slug":"a","title":"A","cues":[[0,1,"x"]]},
        {"slug":"b","title":"B \"q\"","cues":[]} ]}"#;

    #[test]
    fn each_span_holds_exactly_its_video() {
        let spans: Vec<VideoSpan> = videos(PAGE.as_bytes(), "p")
            .unwrap()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(spans.len(), 2);
        for (span, slug) in spans.iter().zip(["a", "b"]) {
            let bytes = &PAGE.as_bytes()[span.start as usize..span.end as usize];
            assert!(bytes.starts_with(b"{") && bytes.ends_with(b"}"));
            let video = span.check(bytes).expect("the span's own bytes pass");
            assert_eq!(video.slug, slug);
        }
        assert_eq!(spans[1].check(b"{}").map(|v| v.slug.len()), None);
    }

    #[test]
    fn a_video_is_found_by_its_slug_escaped_or_not_and_only_it_parsed() {
        let page = r#"{"channel":"c","page":1,"videos":[
            {"slug":"a","title":"says \"b\"","mediaType":"video","age":"all_ages","state":"available","captionSource":"manual","cues":[]},
            {"slug":"\u0062","title":"B","mediaType":"video","age":"all_ages","state":"available","captionSource":"manual","cues":[]} ]}"#;
        let b = find(page.as_bytes(), "p", "b")
            .unwrap()
            .expect("b is on the page");
        assert_eq!((b.slug.as_str(), b.title.as_str()), ("b", "B"));
        let a = find(page.as_bytes(), "p", "a")
            .unwrap()
            .expect("a is on the page");
        assert_eq!(a.title, "says \"b\"");
        assert!(find(page.as_bytes(), "p", "z").unwrap().is_none());
    }

    #[test]
    fn bytes_that_are_not_the_indexed_video_are_refused() {
        let spans: Vec<VideoSpan> = videos(PAGE.as_bytes(), "p")
            .unwrap()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        let a = &PAGE.as_bytes()[spans[0].start as usize..spans[0].end as usize];
        // The right bytes under the wrong name, and same-sized other bytes.
        assert!(spans[0].check_record(a, "b").is_none());
        assert!(spans[0].check_record(a, "a").is_some());
        let mut edited = a.to_vec();
        let x = edited.iter().rposition(|&b| b == b'x').unwrap();
        edited[x] = b'y';
        assert!(spans[0].check(&edited).is_none());
        assert!(spans[0].check(&a[1..]).is_none());
    }
}
