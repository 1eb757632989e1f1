//! `videos.json`, read a page at a time.
//!
//! The file is one JSON array of [`VideoRow`]s, grouped by page in
//! page-table order; `meta.json` records, for each transcript page, the
//! byte range of its rows in the file (`rows`), and the file's xxh3
//! (`videosDigest`). Opening checks the digest (memory speed) and parses
//! nothing; a page's rows are parsed when first asked for, and kept.
//!
//! Promises: a file whose bytes are not the ones the build wrote is
//! refused at open ([`Rows::open`] names it damaged, so the index is used
//! for nothing); a page whose rows cannot be parsed all the same answers
//! `None` ("cannot say"), which every caller reads as "any video of the
//! page may hold a hit". A search that needs three pages parses three
//! pages' rows, not 12,000 videos'.

use std::ops::Range;
use std::sync::OnceLock;

use super::{files, IndexError, Meta, VideoRow};

/// The rows of `videos.json`, parsed on demand.
pub struct Rows {
    bytes: Vec<u8>,
    /// By page id: the byte range of its rows (`None`: it has none).
    ranges: Vec<Option<Range<usize>>>,
    /// By page id: its rows once parsed (`None` inside: unparseable).
    parsed: Vec<OnceLock<Option<Vec<VideoRow>>>>,
    every: OnceLock<Option<Vec<VideoRow>>>,
}

impl Rows {
    /// The rows of `bytes`, as `meta` describes them; an error when the
    /// bytes are not the ones the build recorded.
    pub fn open(bytes: Vec<u8>, meta: &Meta) -> Result<Rows, IndexError> {
        if crate::format::spans::digest(&bytes) != meta.videos_digest {
            return Err(IndexError::damaged(
                files::VIDEOS,
                "its digest is not the one meta.json records",
            ));
        }
        let mut ranges = Vec::with_capacity(meta.pages.len());
        for p in &meta.pages {
            let range = p.rows.map(|[a, b]| a as usize..b as usize);
            if range
                .as_ref()
                .is_some_and(|r| r.start > r.end || r.end > bytes.len())
            {
                return Err(IndexError::damaged(
                    files::META,
                    "a page's rows lie outside videos.json",
                ));
            }
            ranges.push(range);
        }
        let parsed = (0..ranges.len()).map(|_| OnceLock::new()).collect();
        Ok(Rows {
            bytes,
            ranges,
            parsed,
            every: OnceLock::new(),
        })
    }

    /// The rows of page `id`, in page order (empty when it has none);
    /// `None` when they cannot be read.
    pub fn page(&self, id: u32) -> Option<&[VideoRow]> {
        let Some(Some(range)) = self.ranges.get(id as usize) else {
            return Some(&[]);
        };
        self.parsed[id as usize]
            .get_or_init(|| parse_list(&self.bytes[range.clone()]))
            .as_deref()
    }

    /// Every row, in file order; `None` when the file cannot be parsed.
    pub fn every(&self) -> Option<&[VideoRow]> {
        self.every
            .get_or_init(|| crate::format::from_json(&self.bytes).ok())
            .as_deref()
    }
}

/// `rows` are the comma-separated objects of one page (no brackets).
fn parse_list(rows: &[u8]) -> Option<Vec<VideoRow>> {
    let mut list = Vec::with_capacity(rows.len() + 2);
    list.push(b'[');
    list.extend_from_slice(rows);
    list.push(b']');
    crate::format::from_json(&list).ok()
}

/// A page's byte range of rows in `videos.json` (`[start, end)`), by page id.
pub type Ranges = Vec<Option<[u64; 2]>>;

/// `videos` (grouped by page, in page-table order) as `videos.json`'s
/// bytes, and each page's byte range in them, by page id.
pub fn encode(meta: &Meta, videos: &[VideoRow]) -> serde_json::Result<(Vec<u8>, Ranges)> {
    let ids: std::collections::HashMap<super::PageKey, usize> = meta
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key.clone(), i))
        .collect();
    let mut out = vec![b'['];
    let mut ranges: Ranges = vec![None; meta.pages.len()];
    for (i, v) in videos.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len() as u64;
        serde_json::to_writer(&mut out, v)?;
        let end = out.len() as u64;
        if let Some(&id) = ids.get(&v.page_key()) {
            // The build sorts rows by page (`sort_videos`), so a page's
            // rows are one run and its range grows to the run's end.
            let r = ranges[id].get_or_insert([start, start]);
            debug_assert!(
                r[1] + 1 == start || r[1] == start,
                "rows not grouped by page"
            );
            r[1] = end;
        }
    }
    out.push(b']');
    Ok((out, ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_back_its_own_rows_and_damaged_bytes_are_refused() {
        let row = |site: &str, channel: &str, page: u32, slug: &str| -> VideoRow {
            serde_json::from_value(serde_json::json!({
                "site": site, "channel": channel, "slug": slug, "title": slug, "page": page
            }))
            .unwrap()
        };
        let key = |channel: &str, page: u32| super::super::PageMeta {
            key: super::super::PageKey {
                site: "s".into(),
                layer: super::super::LayerName::Transcripts,
                channel: channel.into(),
                page,
            },
            sha256: String::new(),
            stamp: None,
            failed: None,
            rows: None,
        };
        let mut meta = Meta {
            format: super::super::FORMAT_VERSION,
            normalizer: 0,
            source: String::new(),
            built_at: 0,
            pages: vec![key("a", 1), key("a", 2), key("b", 1)],
            postings_blocks: Vec::new(),
            videos_digest: String::new(),
        };
        let videos = vec![
            row("s", "a", 1, "v1"),
            row("s", "a", 1, "v2"),
            row("s", "b", 1, "v3"),
        ];
        let (bytes, ranges) = encode(&meta, &videos).unwrap();
        for (p, r) in meta.pages.iter_mut().zip(&ranges) {
            p.rows = *r;
        }
        meta.videos_digest = crate::format::spans::digest(&bytes);
        let rows = Rows::open(bytes.clone(), &meta).unwrap();
        let slugs = |id| -> Vec<String> {
            rows.page(id)
                .unwrap()
                .iter()
                .map(|r| r.slug.clone())
                .collect()
        };
        assert_eq!(slugs(0), ["v1", "v2"]);
        assert!(slugs(1).is_empty(), "a page without rows has none");
        assert_eq!(slugs(2), ["v3"]);
        assert_eq!(rows.every().unwrap().len(), 3);
        assert_eq!(
            serde_json::from_slice::<Vec<VideoRow>>(&bytes)
                .unwrap()
                .len(),
            3,
            "the file stays one JSON array"
        );
        let mut damaged = bytes;
        damaged[3] ^= 1;
        assert!(Rows::open(damaged, &meta).is_err());
    }
}
