//! `videos.json.zst`, read a page at a time, and only when asked.
//!
//! The file is one JSON array of [`VideoRow`]s, grouped by page in
//! page-table order, compressed as one zstd frame per page (rows of
//! JSON repeat their keys, so a frame is about a seventh of its text):
//! `zstd -dc` gives the array back. The first frame opens the array with
//! `[`, each later page's frame begins with the `,` that separates it from
//! the one before, and a last frame holds the closing `]`. `meta.json`
//! records, for each transcript page, the byte range of its frame in the
//! file (`rows`), and the file's xxh3 (`videosDigest`). Opening reads
//! nothing: the file is read and its digest checked when a search first
//! needs a row (a filter, a related videos answer); a page's frame is
//! decompressed and its rows parsed when first asked for, given their
//! spans from [`SpanTable`], and kept.
//!
//! Promises: bytes that are not the ones the build wrote are never
//! parsed, and neither are rows the file cannot hold: every page then
//! answers `None` ("cannot say"), which every caller reads as "any video
//! of the page may hold a hit", and the damage is logged once, naming the
//! file. A search that needs three pages decompresses and parses three
//! pages' rows, not 12,000 videos'.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::span_table::SpanTable;
use super::{files, Meta, VideoRow};

/// The rows of `videos.json.zst`, read and parsed on demand.
pub struct Rows {
    path: PathBuf,
    digest: String,
    /// The file's bytes once read and checked (`None`: unusable).
    bytes: OnceLock<Option<Vec<u8>>>,
    /// By page id: the byte range of its frame (`None`: it has no rows).
    ranges: Vec<Option<Range<usize>>>,
    /// By page id: its frame decompressed, once asked for (`None` inside:
    /// it does not decompress).
    texts: Vec<OnceLock<Option<Vec<u8>>>>,
    /// By page id: its rows once parsed (`None` inside: unparseable).
    parsed: Vec<OnceLock<Option<Vec<VideoRow>>>>,
    every: OnceLock<Option<Vec<VideoRow>>>,
    spans: SpanTable,
}

impl Rows {
    /// The rows of the file at `path`, as `meta` describes them, with
    /// their spans from `spans`. Reads nothing.
    pub fn open(path: PathBuf, meta: &Meta, spans: SpanTable) -> Rows {
        let ranges = meta
            .pages
            .iter()
            .map(|p| p.rows.map(|[a, b]| a as usize..b as usize))
            .collect();
        Rows {
            path,
            digest: meta.videos_digest.clone(),
            bytes: OnceLock::new(),
            ranges,
            texts: (0..meta.pages.len()).map(|_| OnceLock::new()).collect(),
            parsed: (0..meta.pages.len()).map(|_| OnceLock::new()).collect(),
            every: OnceLock::new(),
            spans,
        }
    }

    /// The spans of the videos of page `id`, in page order, without
    /// reading a row; `None` when the page has none or one is unknown.
    pub fn page_spans(&self, id: u32) -> Option<Vec<crate::format::spans::VideoSpan>> {
        self.spans.page(id)
    }

    /// The records (in `spans.bin`, `words.bin`) of page `id`'s videos,
    /// in page order.
    pub fn records(&self, id: u32) -> Range<usize> {
        self.spans.records(id)
    }

    /// The file's bytes, read and checked once.
    fn bytes(&self) -> Option<&[u8]> {
        self.bytes
            .get_or_init(|| {
                let checked = std::fs::read(&self.path)
                    .map_err(|e| e.to_string())
                    .and_then(|b| {
                        (crate::format::spans::digest(&b) == self.digest)
                            .then_some(b)
                            .ok_or_else(|| "its digest is not the one meta.json records".into())
                    });
                checked
                    .map_err(|e| {
                        tracing::warn!(
                            "{} ({}) is unusable: {e}; searches read the pages instead; rebuild the index",
                            files::VIDEOS,
                            self.path.display()
                        )
                    })
                    .ok()
            })
            .as_deref()
    }

    /// Whether the file was read and found usable.
    pub fn ready(&self) -> bool {
        matches!(self.bytes.get(), Some(Some(_)))
    }

    /// Reads and checks the file now, if not yet.
    pub fn warm(&self) {
        self.bytes();
    }

    /// Whether the file was read and found unusable (missing, or not the
    /// bytes the build wrote); `false` until a row is first asked for.
    pub fn unusable(&self) -> bool {
        matches!(self.bytes.get(), Some(None))
    }

    /// The rows of page `id`, in page order (empty when it has none);
    /// `None` when they cannot be read.
    pub fn page(&self, id: u32) -> Option<&[VideoRow]> {
        if !matches!(self.ranges.get(id as usize), Some(Some(_))) {
            return Some(&[]);
        }
        self.parsed[id as usize]
            .get_or_init(|| {
                let mut rows = parse_list(self.text(id)?)?;
                let records = self.spans.records(id);
                if records.len() != rows.len() {
                    return None;
                }
                for (row, i) in rows.iter_mut().zip(records) {
                    row.span = self.spans.get(i);
                }
                Some(rows)
            })
            .as_deref()
    }

    /// The page id of the row of video `slug` of `channel` of `site`, and
    /// its position there, looked for on pages `ids`: a page's rows are
    /// parsed only when their bytes hold the slug as its row spells it, so
    /// finding one video parses one page's rows, not every row. `None`
    /// when no row has it or the rows cannot be read.
    pub fn locate(
        &self,
        ids: impl Iterator<Item = u32>,
        site: &str,
        channel: &str,
        slug: &str,
    ) -> Option<(u32, usize)> {
        let spelled = format!("\"slug\":{}", serde_json::to_string(slug).ok()?);
        let finder = memchr::memmem::Finder::new(spelled.as_bytes());
        self.bytes()?;
        for id in ids {
            if !matches!(self.ranges.get(id as usize), Some(Some(_))) {
                continue;
            }
            if finder.find(self.text(id)?).is_none() {
                continue;
            }
            let rows = self.page(id)?;
            let at = rows
                .iter()
                .position(|r| r.slug == slug && r.channel == channel && r.site == site);
            if let Some(at) = at {
                return Some((id, at));
            }
        }
        None
    }

    /// Every row, in file order; `None` when the file cannot be parsed.
    pub fn every(&self) -> Option<&[VideoRow]> {
        self.every
            .get_or_init(|| {
                let text = zstd::stream::decode_all(self.bytes()?).ok()?;
                let mut rows: Vec<VideoRow> = crate::format::from_json(&text).ok()?;
                for (i, row) in rows.iter_mut().enumerate() {
                    row.span = self.spans.get(i);
                }
                Some(rows)
            })
            .as_deref()
    }
}

impl Rows {
    /// The rows of page `id` as JSON text: its frame decompressed, without
    /// the `[` or `,` it begins with. `None` when the file is unusable or
    /// the frame does not decompress.
    fn text(&self, id: u32) -> Option<&[u8]> {
        let range = self.ranges.get(id as usize)?.clone()?;
        let text = self.texts[id as usize]
            .get_or_init(|| zstd::stream::decode_all(self.bytes()?.get(range)?).ok())
            .as_deref()?;
        match text.first() {
            Some(b'[' | b',') => Some(&text[1..]),
            _ => None,
        }
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

/// Where one page's rows lie: their frame's bytes in `videos.json.zst`
/// and their records in `spans.bin` (first, count), by page id.
pub type Ranges = Vec<Option<([u64; 2], [u32; 2])>>;

/// The zstd level of the rows' frames (they are written once per build
/// and read a page at a time).
const ROWS_ZSTD_LEVEL: i32 = 9;

/// `videos` (grouped by page, in page-table order) as `videos.json.zst`'s
/// bytes, and where each page's rows lie, by page id.
pub fn encode(meta: &Meta, videos: &[VideoRow]) -> std::io::Result<(Vec<u8>, Ranges)> {
    let ids: std::collections::HashMap<super::PageKey, usize> = meta
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key.clone(), i))
        .collect();
    let mut out = Vec::new();
    let mut ranges: Ranges = vec![None; meta.pages.len()];
    let mut first = 0;
    // The build sorts rows by page (`sort_videos`), so a page's rows are
    // one run: one frame.
    while first < videos.len() {
        let key = videos[first].page_key();
        let count = videos[first..]
            .iter()
            .take_while(|v| v.page_key() == key)
            .count();
        let mut text = vec![if first == 0 { b'[' } else { b',' }];
        for (k, v) in videos[first..first + count].iter().enumerate() {
            if k > 0 {
                text.push(b',');
            }
            serde_json::to_writer(&mut text, v)?;
        }
        let start = out.len() as u64;
        out.extend(zstd::bulk::compress(&text, ROWS_ZSTD_LEVEL)?);
        if let Some(&id) = ids.get(&key) {
            debug_assert!(ranges[id].is_none(), "rows not grouped by page");
            ranges[id] = Some(([start, out.len() as u64], [first as u32, count as u32]));
        }
        first += count;
    }
    let close: &[u8] = if videos.is_empty() { b"[]" } else { b"]" };
    out.extend(zstd::bulk::compress(close, ROWS_ZSTD_LEVEL)?);
    Ok((out, ranges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::spans::VideoSpan;

    #[test]
    fn rows_read_back_by_page_one_video_found_on_its_page_alone_damage_refused() {
        let row = |channel: &str, page: u32, slug: &str, start: u64| -> VideoRow {
            let mut row: VideoRow = serde_json::from_value(serde_json::json!({
                "site": "s", "channel": channel, "slug": slug, "title": slug, "page": page
            }))
            .unwrap();
            row.span = Some(VideoSpan {
                start,
                end: start + 5,
                digest: crate::format::spans::digest64(slug.as_bytes()),
            });
            row
        };
        let mut meta: Meta = serde_json::from_value(serde_json::json!({
            "format": 0, "normalizer": 0, "source": "", "builtAt": 0,
            "pages": [
                {"site": "s", "layer": "transcripts", "channel": "a", "page": 1, "sha256": ""},
                {"site": "s", "layer": "transcripts", "channel": "a", "page": 2, "sha256": ""},
                {"site": "s", "layer": "transcripts", "channel": "b", "page": 1, "sha256": ""}
            ]
        }))
        .unwrap();
        let videos = vec![
            row("a", 1, "v1", 0),
            row("a", 1, "v\"2", 5),
            row("b", 1, "v3", 0),
        ];
        let (bytes, ranges) = encode(&meta, &videos).unwrap();
        for (p, r) in meta.pages.iter_mut().zip(&ranges) {
            p.rows = r.map(|r| r.0);
            p.records = r.map(|r| r.1);
        }
        let spans = super::super::span_table::encode(&videos);
        meta.videos_digest = crate::format::spans::digest(&bytes);
        meta.spans_digest = crate::format::spans::digest(&spans);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(files::VIDEOS);
        std::fs::write(&path, &bytes).unwrap();
        let open = || {
            let table = SpanTable::open(spans.clone(), &meta).unwrap();
            Rows::open(path.clone(), &meta, table)
        };
        let rows = open();
        assert_eq!(rows.page(0).unwrap(), &videos[..2], "rows and spans");
        assert!(
            rows.page(1).unwrap().is_empty(),
            "a page without rows has none"
        );
        assert_eq!(rows.page(2).unwrap(), &videos[2..]);
        assert_eq!(rows.every().unwrap(), &videos[..]);
        assert_eq!(
            rows.page_spans(2),
            Some(vec![videos[2].span.clone().unwrap()])
        );
        assert_eq!(
            serde_json::from_slice::<Vec<VideoRow>>(&zstd::stream::decode_all(&bytes[..]).unwrap())
                .unwrap()
                .len(),
            3,
            "the file decompresses to one JSON array"
        );

        // Finding one video parses the rows of the page that holds it,
        // and of no other page.
        let rows = open();
        assert_eq!(rows.locate(0..3, "s", "b", "v3"), Some((2, 0)));
        assert!(rows.parsed[0].get().is_none() && rows.parsed[1].get().is_none());
        assert_eq!(
            rows.locate(0..3, "s", "a", "v\"2"),
            Some((0, 1)),
            "a slug JSON escapes"
        );
        assert_eq!(
            rows.locate(0..3, "s", "b", "v1"),
            None,
            "another channel's video"
        );
        assert_eq!(rows.locate(0..3, "s", "a", "v"), None, "a prefix of a slug");
        assert_eq!(
            rows.locate(1..3, "s", "a", "v1"),
            None,
            "only pages asked for"
        );
        let mut damaged = bytes;
        damaged[3] ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        let rows = open();
        assert!(!rows.unusable(), "nothing read yet");
        assert_eq!(rows.page(0), None, "damaged rows cannot say");
        assert!(rows.unusable());
        assert_eq!(rows.every(), None);
        assert!(
            rows.page_spans(0).is_some(),
            "the spans do not need the rows"
        );
    }
}
