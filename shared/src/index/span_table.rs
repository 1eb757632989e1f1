//! `spans.bin`: where each video the index read sits in its page file, as
//! fixed-size records, so a plan finds the spans of a page's holders
//! without parsing a row.
//!
//! Layout: one 24-byte record per row of `videos.json.zst`, in the same order
//! (grouped by page, in page-table order): the span's start, end and
//! digest, each a little-endian u64; a video whose span is unknown is 24
//! zero bytes (a real span is never empty). `meta.json` records, for each
//! transcript page with videos, its first record and count (`records`),
//! and the file's xxh3 (`spansDigest`).
//!
//! Promises: a file whose bytes are not the ones the build wrote is
//! refused at open ([`SpanTable::open`] names it damaged, and the index is
//! used for nothing); a page's spans are its rows' spans, position for
//! position (the row of record `i` is row `i` of `videos.json.zst`).

use std::ops::Range;

use super::{files, IndexError, Meta, VideoRow};
use crate::format::spans::VideoSpan;

/// Bytes per record.
const RECORD: usize = 24;

/// The span table, read whole (24 bytes a video).
pub struct SpanTable {
    bytes: Vec<u8>,
    /// By page id: its records (`None`: it has none).
    pages: Vec<Option<Range<usize>>>,
}

impl SpanTable {
    /// The table of `bytes`, as `meta` describes it; an error when the
    /// bytes are not the ones the build recorded.
    pub fn open(bytes: Vec<u8>, meta: &Meta) -> Result<SpanTable, IndexError> {
        if crate::format::spans::digest(&bytes) != meta.spans_digest {
            return Err(IndexError::damaged(
                files::SPANS,
                "its digest is not the one meta.json records",
            ));
        }
        let records = bytes.len() / RECORD;
        let mut pages = Vec::with_capacity(meta.pages.len());
        for p in &meta.pages {
            let range = p
                .records
                .map(|[first, count]| first as usize..first as usize + count as usize);
            if range.as_ref().is_some_and(|r| r.end > records) {
                return Err(IndexError::damaged(
                    files::META,
                    "a page's records lie outside spans.bin",
                ));
            }
            pages.push(range);
        }
        Ok(SpanTable { bytes, pages })
    }

    /// The records of page `id` (empty when it has none).
    pub fn records(&self, id: u32) -> Range<usize> {
        self.pages
            .get(id as usize)
            .cloned()
            .flatten()
            .unwrap_or(0..0)
    }

    /// The span of record `i`, if the build knew it.
    pub fn get(&self, i: usize) -> Option<VideoSpan> {
        let at = i.checked_mul(RECORD)?;
        let record = self.bytes.get(at..at + RECORD)?;
        let word = |k: usize| u64::from_le_bytes(record[k * 8..k * 8 + 8].try_into().unwrap());
        let (start, end, digest) = (word(0), word(1), word(2));
        (end > start).then_some(VideoSpan { start, end, digest })
    }

    /// The spans of page `id`'s videos, in page order; `None` when the
    /// page has none or one is unknown.
    pub fn page(&self, id: u32) -> Option<Vec<VideoSpan>> {
        let records = self.records(id);
        if records.is_empty() {
            return None;
        }
        records.map(|i| self.get(i)).collect()
    }
}

/// `videos` (grouped by page, in page-table order, as `videos.json.zst`
/// holds them) as `spans.bin`'s bytes.
pub fn encode(videos: &[VideoRow]) -> Vec<u8> {
    let mut out = Vec::with_capacity(videos.len() * RECORD);
    for v in videos {
        let words = v
            .span
            .as_ref()
            .map_or([0; 3], |s| [s.start, s.end, s.digest]);
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_back_its_own_spans_and_damaged_bytes_are_refused() {
        let span = |start: u64, end: u64| VideoSpan {
            start,
            end,
            digest: crate::format::spans::digest64(&start.to_le_bytes()),
        };
        let row = |span: Option<VideoSpan>| VideoRow {
            span,
            ..VideoRow::default()
        };
        let videos = [row(Some(span(10, 20))), row(Some(span(20, 35))), row(None)];
        let bytes = encode(&videos);
        let mut meta: Meta = serde_json::from_value(serde_json::json!({
            "format": 0, "normalizer": 0, "source": "", "builtAt": 0,
            "pages": [
                {"site": "s", "layer": "transcripts", "channel": "a", "page": 1, "sha256": "", "records": [0, 2]},
                {"site": "s", "layer": "transcripts", "channel": "a", "page": 2, "sha256": ""},
                {"site": "s", "layer": "transcripts", "channel": "b", "page": 1, "sha256": "", "records": [2, 1]}
            ],
            "videosDigest": "", "spansDigest": crate::format::spans::digest(&bytes)
        }))
        .unwrap();
        let table = SpanTable::open(bytes.clone(), &meta).unwrap();
        assert_eq!(table.page(0), Some(vec![span(10, 20), span(20, 35)]));
        assert_eq!(table.page(1), None, "a page without videos has no spans");
        assert_eq!(
            table.page(2),
            None,
            "an unknown span leaves the page unknown"
        );
        assert_eq!(table.get(2), None);
        let mut damaged = bytes.clone();
        damaged[3] ^= 1;
        assert!(SpanTable::open(damaged, &meta).is_err());
        meta.pages[2].records = Some([2, 2]);
        assert!(
            SpanTable::open(bytes, &meta).is_err(),
            "records past the end"
        );
    }
}
