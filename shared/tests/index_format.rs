//! The index format, pinned byte for byte: a two-page archive written by
//! hand, indexed, and its vocabulary, term dictionary, decompressed
//! postings, spans, word lists and censuses compared with literal expected values. A change to the
//! tokeniser or the layout shows here first (bump `FORMAT_VERSION` or
//! `NORMALIZER_VERSION` and the history in `index/mod.rs` with it).

use std::path::Path;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index::{self, files};
use archilyzer_core::source::{sha256_hex, SourceHandle};

fn video(slug: &str, title: &str, cue: &str) -> String {
    format!(
        r#"{{"slug":"{slug}","title":"{title}","mediaType":"video","age":"all_ages","state":"available","description":"","tags":[],"captionSource":"manual","cues":[[0.0,1.0,"{cue}"]]}}"#
    )
}

fn page(n: u32, videos: &[String]) -> String {
    format!(
        r#"{{"channel":"c","page":{n},"videos":[{}]}}"#,
        videos.join(",")
    )
}

/// A site with one channel (`Cee`) of two pages: one video, then four.
fn two_page_archive(dir: &Path) -> [String; 2] {
    let pages = [
        page(1, &[video("v1", "Red fox", "The red fox")]),
        page(
            2,
            &[
                video("v2", "Blue fox", "a blue CAFÉ"),
                video("v3", "Grey owl", "the owl"),
                video("v4", "Tan elk", "tan elk"),
                video("v5", "Tan elk", "tan elk"),
            ],
        ),
    ];
    let entries: Vec<String> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                r#"{{"file":"page-{:04}.json","videos":{},"bytes":{},"sha256":"{}"}}"#,
                i + 1,
                [1, 4][i],
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
            r#"{{"channel":"c","name":"Cee","platform":"youtube","pages":[{}],"slugToPage":{{"v1":1,"v2":2,"v3":2,"v4":2,"v5":2}}}}"#,
            entries.join(",")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("corpus.json"),
        r#"{"kind":"site","spec":1,"site":{"id":"s","title":"S","scope":"full"},"channels":[{"slug":"c","name":"Cee","platform":"youtube","videoCount":5,"pageCount":2}]}"#,
    )
    .unwrap();
    pages
}

#[test]
fn a_two_page_index_has_exactly_these_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let pages = two_page_archive(&site);
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
    assert_eq!(
        vocabulary,
        "a\nblue\ncafe\ncee\nelk\nfox\ngrey\nowl\nred\ntan\nthe\n"
    );
    let at = |w: &str, offset: u64| (w.to_string(), offset);
    assert_eq!(
        dictionary,
        [
            at("a", 0),
            at("blue", 5),
            at("cafe", 13),
            at("cee", 18),
            at("elk", 25),
            at("fox", 34),
            at("grey", 48),
            at("owl", 56),
            at("red", 64),
            at("tan", 71),
            at("the", 80)
        ],
        "each word's value is the offset of its list in the decompressed postings"
    );
    // Page ids: 0 = page-0001 (v1, the red fox), 1 = page-0002 (v2, a
    // blue café; v3, the grey owl; v4 and v5, tan elk). Each page is
    // followed by how many of its videos hold the word and a flag byte:
    // bit 1 when the holders' positions follow (some but not all of the
    // page's videos hold it; else any video may: all hold it, or only the
    // channel name, a page-wide field, does), as deltas (or, with bit 3,
    // as a bitmap where that is shorter), bit 2 when a census of fields
    // follows (combinations, then each as field bits, 1 captions and
    // 2 title, and a count), which is left out when every holder holds
    // the word in the captions alone, and bit 4 when a page-wide field
    // (the channel name) holds it too.
    #[rustfmt::skip]
    let expected: [u8; 88] = [
        1, 1, 1, 1, 0,                // a:    page 1, 1 video: position 0 (v2), captions
        1, 1, 1, 3, 0, 1, 3, 1,       // blue: the same, in captions and title
        1, 1, 1, 1, 0,                // cafe: as a
        2, 0, 0, 8, 1, 0, 8,          // cee:  pages 0 and 0+1, no video, any: the channel name (bit 4)
        1, 1, 2, 3, 2, 1, 1, 3, 2,    // elk:  page 1, 2 videos of 4: positions 2 and 2+1, both in captions and title
        2, 0, 1, 2, 1, 3, 1,          // fox:  page 0, its one video, captions and title;
           1, 1, 3, 0, 1, 2, 1,       //       page 1, v2 only, in its title only
        1, 1, 1, 3, 1, 1, 2, 1,       // grey: page 1, position 1 (v3), title only
        1, 1, 1, 3, 1, 1, 3, 1,       // owl:  the same, captions and title
        1, 0, 1, 2, 1, 3, 1,          // red:  page 0, its one video, captions and title
        1, 1, 2, 3, 2, 1, 1, 3, 2,    // tan:  as elk
        2, 0, 1, 0, 1, 1, 1, 1,       // the:  page 0; page 1, v3 only; captions alone
    ];
    assert_eq!(postings, expected);
    // Each video's span is a 24-byte record of spans.bin, in the rows'
    // order (start, end, xxh3 of those bytes; little-endian u64 each):
    // exactly its object in the page file. meta.json gives each page its
    // first record and count.
    let rows: Vec<serde_json::Value> = serde_json::from_slice(
        &zstd::stream::decode_all(std::fs::read(dir.join(files::VIDEOS)).unwrap().as_slice())
            .unwrap(),
    )
    .unwrap();
    let table = std::fs::read(dir.join(files::SPANS)).unwrap();
    assert_eq!(table.len(), 24 * rows.len());
    let spans: Vec<(String, String)> = rows
        .iter()
        .zip(table.chunks(24))
        .map(|(r, record)| {
            assert!(r.get("span").is_none(), "a row does not repeat its span");
            let page = &pages[r["page"].as_u64().unwrap() as usize - 1];
            let word = |k: usize| u64::from_le_bytes(record[k * 8..k * 8 + 8].try_into().unwrap());
            let text = page[word(0) as usize..word(1) as usize].to_string();
            assert_eq!(
                word(2),
                archilyzer_core::format::spans::digest64(text.as_bytes())
            );
            (r["slug"].as_str().unwrap().to_string(), text)
        })
        .collect();
    assert_eq!(
        spans,
        [
            ("v1".to_string(), video("v1", "Red fox", "The red fox")),
            ("v2".to_string(), video("v2", "Blue fox", "a blue CAFÉ")),
            ("v3".to_string(), video("v3", "Grey owl", "the owl")),
            ("v4".to_string(), video("v4", "Tan elk", "tan elk")),
            ("v5".to_string(), video("v5", "Tan elk", "tan elk")),
        ]
    );
    // words.bin: 5 records, then the common words (here every word a
    // video says: each is held by at least one video in ten), most held
    // first (elk, fox, tan, the: two videos each; then a, blue, cafe,
    // grey, owl, red), as numbers in terms.txt; the table of where each
    // list starts; then each video's list: a 2-byte bitmap of the common
    // words it says in its captions alone, and its other words with their
    // fields (gap << 1 | 1, then the field bits: 1 captions, 2 title).
    let u32s = |v: &[u32]| v.iter().flat_map(|n| n.to_le_bytes()).collect::<Vec<u8>>();
    let u64s = |v: &[u64]| v.iter().flat_map(|n| n.to_le_bytes()).collect::<Vec<u8>>();
    #[rustfmt::skip]
    let lists: [u8; 35] = [
        8, 0, 2, 11, 3, 5, 3,         // v1: the; fox (5) and red (5+1+2) in captions and title
        80, 0, 2, 3, 3, 7, 2,         // v2: a, cafe; blue (1) in both, fox (1+1+3) in the title only
        8, 0, 2, 13, 2, 1, 3,         // v3: the; grey (6) in the title, owl (6+1+0) in both
        0, 0, 2, 9, 3, 9, 3,          // v4: elk (4) and tan (4+1+4), both in both
        0, 0, 2, 9, 3, 9, 3,          // v5: the same
    ];
    let mut words_bin = u32s(&[5, 10, 4, 5, 9, 10, 0, 1, 2, 6, 7, 8]);
    words_bin.extend(u64s(&[0, 7, 14, 21, 28, 35]));
    words_bin.extend(lists);
    assert_eq!(std::fs::read(dir.join(files::WORDS)).unwrap(), words_bin);
    // held.bin: 11 words; for each, the videos holding it in their
    // captions alone (a, cafe: v2; the: v1 and v3; cee, only in the
    // channel's name, none); then 8 entries of the other combinations,
    // each a word number, field bits and a count (blue: v2 in captions
    // and title; elk: v4, v5 in both; fox: v2 in its title alone and v1
    // in both; ...).
    let mut held_bin = u32s(&[11, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 8]);
    for (number, bits, count) in [
        (1u32, 3u8, 1u32),
        (4, 3, 2),
        (5, 2, 1),
        (5, 3, 1),
        (6, 2, 1),
        (7, 3, 1),
        (8, 3, 1),
        (9, 3, 2),
    ] {
        held_bin.extend(number.to_le_bytes());
        held_bin.push(bits);
        held_bin.extend(count.to_le_bytes());
    }
    assert_eq!(std::fs::read(dir.join(files::HELD)).unwrap(), held_bin);
    // One block of postings, then the ends (decompressed and file sizes).
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(files::META)).unwrap()).unwrap();
    let file_len = std::fs::metadata(dir.join(files::POSTINGS)).unwrap().len();
    assert_eq!(
        meta["postingsBlocks"],
        serde_json::json!([[0, 0], [88, file_len]])
    );
    let records: Vec<&serde_json::Value> = meta["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["records"])
        .collect();
    assert_eq!(
        records,
        [&serde_json::json!([0, 1]), &serde_json::json!([1, 4])]
    );
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = files::ALL.iter().map(|f| f.to_string()).collect();
    expected.push(archilyzer_core::claim::MARKER.to_string());
    expected.sort();
    assert_eq!(written, expected, "the index's files, and nothing else");
}
