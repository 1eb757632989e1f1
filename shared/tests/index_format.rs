//! The index format, pinned byte for byte: a two-page archive written by
//! hand, indexed, and its vocabulary, term dictionary and decompressed
//! postings compared with literal expected values. A change to the
//! tokeniser or the layout shows here first (bump `FORMAT_VERSION` or
//! `NORMALIZER_VERSION` and the history in `index/mod.rs` with it).

use std::path::Path;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index::{self, files};
use archilyzer_core::source::{sha256_hex, SourceHandle};

fn page(n: u32, slug: &str, title: &str, cue: &str) -> String {
    format!(
        r#"{{"channel":"c","page":{n},"videos":[{{"slug":"{slug}","title":"{title}","mediaType":"video","age":"all_ages","state":"available","description":"","tags":[],"captionSource":"manual","cues":[[0.0,1.0,"{cue}"]]}}]}}"#
    )
}

/// A site with one channel (`Cee`) of two pages, one video each.
fn two_page_archive(dir: &Path) {
    let pages = [
        page(1, "v1", "Red fox", "The red fox"),
        page(2, "v2", "Blue fox", "a blue CAFÉ"),
    ];
    let entries: Vec<String> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                r#"{{"file":"page-{:04}.json","videos":1,"bytes":{},"sha256":"{}"}}"#,
                i + 1,
                p.len(),
                sha256_hex(p.as_bytes())
            )
        })
        .collect();
    let channel = dir.join("transcripts/c");
    std::fs::create_dir_all(&channel).unwrap();
    for (i, p) in pages.iter().enumerate() {
        std::fs::write(channel.join(format!("page-{:04}.json", i + 1)), p).unwrap();
    }
    std::fs::write(
        channel.join("manifest.json"),
        format!(
            r#"{{"channel":"c","name":"Cee","platform":"youtube","pages":[{}],"slugToPage":{{"v1":1,"v2":2}}}}"#,
            entries.join(",")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("corpus.json"),
        r#"{"kind":"site","spec":1,"site":{"id":"s","title":"S","scope":"full"},"channels":[{"slug":"c","name":"Cee","platform":"youtube","videoCount":2,"pageCount":2}]}"#,
    )
    .unwrap();
}

#[test]
fn a_two_page_index_has_exactly_these_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    two_page_archive(&site);
    let archive = Archive::open(&SourceHandle::local(&site), &OpenOptions::default()).unwrap();
    let dir = tmp.path().join("index");
    index::build(&archive, &dir, &|_| {}).unwrap();

    let vocabulary = std::fs::read_to_string(dir.join(files::VOCABULARY)).unwrap();
    let terms = fst::Map::new(std::fs::read(dir.join(files::TERMS)).unwrap()).unwrap();
    let dictionary: Vec<(String, u64)> = {
        use fst::Streamer;
        let mut out = Vec::new();
        let mut stream = terms.stream();
        while let Some((k, v)) = stream.next() {
            out.push((String::from_utf8(k.to_vec()).unwrap(), v));
        }
        out
    };
    let postings =
        zstd::decode_all(std::fs::read(dir.join(files::POSTINGS)).unwrap().as_slice()).unwrap();
    // Normalised words: case folded, the accent of CAFÉ dropped; the
    // channel name is a field of every page.
    assert_eq!(vocabulary, "a\nblue\ncafe\ncee\nfox\nred\nthe\n");
    let at = |w: &str, offset: u64| (w.to_string(), offset);
    assert_eq!(
        dictionary,
        [
            at("a", 0),
            at("blue", 3),
            at("cafe", 6),
            at("cee", 9),
            at("fox", 14),
            at("red", 19),
            at("the", 22)
        ],
        "each word's value is the offset of its list in the decompressed postings"
    );
    // Page ids: 0 = page-0001 (the red fox), 1 = page-0002 (a blue café).
    // Each page is followed by how many of its videos hold the word: the
    // channel name holds for the page, not for a video.
    #[rustfmt::skip]
    let expected: [u8; 25] = [
        1, 1, 1,       // a:    1 page: id 1, 1 video
        1, 1, 1,       // blue: 1 page: id 1, 1 video
        1, 1, 1,       // cafe: 1 page: id 1, 1 video
        2, 0, 0, 1, 0, // cee:  2 pages: id 0, 0 videos; id 0+1, 0 videos
        2, 0, 1, 1, 1, // fox:  2 pages: id 0, 1 video; id 0+1, 1 video
        1, 0, 1,       // red:  1 page: id 0, 1 video
        1, 0, 1,       // the:  1 page: id 0, 1 video
    ];
    assert_eq!(postings, expected);
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = files::ALL.iter().map(|f| f.to_string()).collect();
    expected.push(archilyzer_core::output::MARKER.to_string());
    expected.sort();
    assert_eq!(written, expected, "the index's files, and nothing else");
}
