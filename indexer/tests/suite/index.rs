//! The index only prunes: every stale, foreign, corrupt or missing index
//! gives the same hits as a full scan (invariants 1-4 of archilyzer_core's crate docs),
//! and builds are incremental and atomic.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use archilyzer_core::archive::Archive;
use archilyzer_core::format::{Manifest, SiteCorpus};
use archilyzer_core::index::{self, IndexStatus};
use archilyzer_core::query::{search, FilterArgs, Request, Scope};
use archilyzer_index::check;
use common::{copy_dir, generated, open_local};

/// A private copy of the generated alpha site, and an index dir beside it.
struct Fixture {
    _tmp: tempfile::TempDir,
    site: PathBuf,
    index: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("alpha");
    copy_dir(&generated().join("alpha"), &site);
    let index = tmp.path().join("index");
    let f = Fixture {
        _tmp: tmp,
        site,
        index,
    };
    build(&f);
    f
}

fn build(f: &Fixture) -> index::BuildReport {
    index::build(&open_local(&f.site), &f.index, &|_| {}).unwrap()
}

fn plain(q: &str) -> Request {
    Request {
        query: q.into(),
        use_aliases: true,
        ..Default::default()
    }
}

type Hits = BTreeSet<(String, String, usize)>;

fn hits(
    archive: &Archive,
    index: Option<&Path>,
    q: &Request,
) -> (Hits, archilyzer_core::query::Response) {
    let r = search(archive, index, q).unwrap();
    let set = r
        .videos
        .iter()
        .flat_map(|v| {
            v.hits
                .iter()
                .map(move |h| (v.channel.clone(), v.slug.clone(), h.unit))
        })
        .collect();
    (set, r)
}

/// Asserts the indexed answer equals the full scan; returns the status
/// and the pages read with the index.
fn assert_parity(f: &Fixture, q: &Request) -> (IndexStatus, usize, Hits) {
    let archive = open_local(&f.site);
    let (with, r) = hits(&archive, Some(&f.index), q);
    let (without, full) = hits(&archive, None, q);
    assert_eq!(
        with,
        without,
        "{:?}: indexed vs full scan ({})",
        q.query,
        r.index.describe()
    );
    assert!(r.pages_read <= full.pages_read);
    (r.index, r.pages_read, with)
}

fn page_file(f: &Fixture, channel: &str, n: u32) -> PathBuf {
    f.site
        .join(format!("transcripts/{channel}/page-{n:04}.json"))
}

fn manifest(f: &Fixture, channel: &str) -> Manifest {
    serde_json::from_slice(
        &std::fs::read(f.site.join(format!("transcripts/{channel}/manifest.json"))).unwrap(),
    )
    .unwrap()
}

fn write_manifest(f: &Fixture, m: &Manifest) {
    std::fs::write(
        f.site
            .join(format!("transcripts/{}/manifest.json", m.channel)),
        serde_json::to_vec(m).unwrap(),
    )
    .unwrap();
}

/// Replaces the first occurrence of `from` in a page with `to` (same length).
fn edit_page(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// A word of the first cue of the first video on a page.
fn a_word_of(path: &Path) -> String {
    let page: archilyzer_core::format::TranscriptPage =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    archilyzer_core::text::tokens(&page.videos[0].cues[0].text)
        .into_iter()
        .find(|w| w.len() >= 4 && w.is_ascii())
        .unwrap()
}

#[test]
fn the_index_only_prunes_a_fresh_index_reads_fewer_pages_for_the_same_hits() {
    let f = fixture();
    let word = a_word_of(&page_file(&f, "stream-vault", 2));
    let (status, read, hits) = assert_parity(&f, &plain(&word));
    assert_eq!(status, IndexStatus::Fresh);
    assert!(!hits.is_empty());
    let total = open_local(&f.site)
        .page_table()
        .0
        .iter()
        .filter(|p| p.layer == archilyzer_core::format::paths::Layer::Transcripts)
        .count();
    assert!(read < total, "a rarer word prunes pages: {read} of {total}");
}

#[test]
fn a_page_the_index_cannot_vouch_for_is_read_when_edited_with_the_same_size() {
    let f = fixture();
    let path = page_file(&f, "daily-dispatch", 3);
    let word = a_word_of(&path);
    let new_word = "q".repeat(word.len());
    edit_page(&path, &word, &new_word);
    let (status, _, hits) = assert_parity(&f, &plain(&new_word));
    assert!(!hits.is_empty(), "the edited word is found");
    assert!(
        matches!(status, IndexStatus::PartlyStale { unvouched: 1, .. }),
        "{status:?}"
    );
    assert!(status.describe().contains("1 of"), "{}", status.describe());
}

/// Writes `path` anew with the bytes it holds, so only its stamp changes.
fn rewrite_same_bytes(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

#[test]
fn a_page_rewritten_with_the_same_bytes_is_reused_after_hashing_and_an_edited_one_is_read() {
    let f = fixture();
    let pages = manifest(&f, "daily-dispatch").pages.len() as u32;
    for n in 1..=pages {
        rewrite_same_bytes(&page_file(&f, "daily-dispatch", n));
    }
    let path = page_file(&f, "daily-dispatch", 3);
    let word = a_word_of(&path);
    let new_word = "q".repeat(word.len());
    edit_page(&path, &word, &new_word);
    let before = open_local(&f.site);
    let (_, status) = index::Index::open(&f.index, &before, &before.page_table().0);
    assert!(
        matches!(status, IndexStatus::PartlyStale { unvouched, .. } if unvouched == pages as usize),
        "new stamps: no page is vouched for by stamp alone ({status:?})"
    );
    let report = build(&f);
    assert_eq!(report.read, 1, "only the edited page is read: {report:?}");
    assert_eq!(report.rehashed, pages as usize - 1, "{report:?}");
    let (status, _, hits) = assert_parity(&f, &plain(&new_word));
    assert!(!hits.is_empty(), "the edited word is found");
    assert_eq!(status, IndexStatus::Fresh, "the new stamps are recorded");
}

#[test]
fn a_page_added_after_the_build_is_read() {
    let f = fixture();
    let mut m = manifest(&f, "daily-dispatch");
    let n = m.pages.len() as u32;
    let last = page_file(&f, "daily-dispatch", n);
    let text = std::fs::read_to_string(&last).unwrap().replacen(
        &format!("\"page\":{n}"),
        &format!("\"page\":{}", n + 1),
        1,
    );
    let text = text.replacen("\"cues\":[[", "\"cues\":[[0.0,1.0,\"brandnewword\"],[", 1);
    std::fs::write(page_file(&f, "daily-dispatch", n + 1), &text).unwrap();
    m.pages.push(archilyzer_core::format::PageEntry {
        file: format!("page-{:04}.json", n + 1),
        videos: m.pages[n as usize - 1].videos,
        bytes: text.len() as u64,
        sha256: archilyzer_core::source::sha256_hex(text.as_bytes()),
    });
    write_manifest(&f, &m);
    let (status, _, hits) = assert_parity(&f, &plain("brandnewword"));
    assert_eq!(hits.len(), 1);
    assert!(
        matches!(status, IndexStatus::PartlyStale { unvouched: 1, .. }),
        "{status:?}"
    );
}

#[test]
fn a_page_deleted_after_the_build_is_simply_gone() {
    let f = fixture();
    let mut m = manifest(&f, "odysee-archive");
    let removed = m.pages.pop().unwrap();
    let word = a_word_of(
        &f.site
            .join("transcripts/odysee-archive")
            .join(&removed.file),
    );
    std::fs::remove_file(
        f.site
            .join("transcripts/odysee-archive")
            .join(&removed.file),
    )
    .unwrap();
    write_manifest(&f, &m);
    let (status, _, _) = assert_parity(&f, &plain(&word));
    assert_eq!(
        status,
        IndexStatus::Fresh,
        "every remaining page is vouched for"
    );
}

#[test]
fn a_channel_added_after_the_build_is_read() {
    let f = fixture();
    let corpus_path = f.site.join("corpus.json");
    let mut corpus: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&corpus_path).unwrap()).unwrap();
    let src = f.site.join("transcripts/daily-dispatch");
    let dst = f.site.join("transcripts/new-channel");
    std::fs::create_dir_all(&dst).unwrap();
    let mut m = manifest(&f, "daily-dispatch");
    m.channel = "new-channel".into();
    m.pages.truncate(1);
    let text = std::fs::read_to_string(src.join("page-0001.json"))
        .unwrap()
        .replacen(
            "\"channel\":\"daily-dispatch\"",
            "\"channel\":\"new-channel\"",
            1,
        );
    m.pages[0].bytes = text.len() as u64;
    m.pages[0].sha256 = archilyzer_core::source::sha256_hex(text.as_bytes());
    std::fs::write(dst.join("page-0001.json"), &text).unwrap();
    write_manifest(&f, &m);
    let mut entry = corpus["channels"][0].clone();
    entry["slug"] = "new-channel".into();
    entry["pageCount"] = 1.into();
    corpus["channels"].as_array_mut().unwrap().push(entry);
    std::fs::write(&corpus_path, serde_json::to_vec(&corpus).unwrap()).unwrap();
    let _: SiteCorpus = serde_json::from_value(corpus).unwrap();
    let word = a_word_of(&dst.join("page-0001.json"));
    let (status, _, hits) = assert_parity(&f, &plain(&word));
    assert!(hits.iter().any(|h| h.0 == "new-channel"));
    assert!(
        matches!(status, IndexStatus::PartlyStale { unvouched: 1, .. }),
        "{status:?}"
    );
}

#[test]
fn an_index_built_from_another_archive_is_ignored() {
    let f = fixture();
    let other = tempfile::tempdir().unwrap();
    index::build(
        &open_local(&generated().join("beta")),
        other.path(),
        &|_| {},
    )
    .unwrap();
    let archive = open_local(&f.site);
    let q = plain("the");
    let (with, r) = hits(&archive, Some(other.path()), &q);
    let (without, _) = hits(&archive, None, &q);
    assert_eq!(with, without);
    assert!(
        r.index
            .describe()
            .contains("ignored (built from another archive (local:"),
        "{}",
        r.index.describe()
    );
}

#[test]
fn a_truncated_or_corrupt_index_file_gives_a_full_scan() {
    for (file, damage) in [
        ("postings.zst", "truncate"),
        ("terms.fst", "garbage"),
        ("meta.json", "truncate"),
        ("spans.bin", "garbage"),
    ] {
        let f = fixture();
        let path = f.index.join(file);
        let bytes = std::fs::read(&path).unwrap();
        match damage {
            "truncate" => std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap(),
            _ => std::fs::write(&path, vec![0xA5u8; bytes.len()]).unwrap(),
        }
        let word = a_word_of(&page_file(&f, "daily-dispatch", 1));
        for q in [
            plain(&word),
            plain("the"),
            Request {
                filters: FilterArgs {
                    states: vec!["deleted".into()],
                    ..Default::default()
                },
                ..plain(&word)
            },
        ] {
            let (status, _, _) = assert_parity(&f, &q);
            assert!(
                matches!(status, IndexStatus::Ignored(ref why) if why.contains("unusable")),
                "{file}: {status:?}"
            );
        }
    }
}

/// The first, middle and last words `places.fst` holds: rare words, whose
/// search reads their places.
fn placed_words(index: &Path) -> Vec<String> {
    use fst::Streamer;
    let map = fst::Map::new(std::fs::read(index.join(index::files::PLACE_WORDS)).unwrap()).unwrap();
    let mut words = Vec::new();
    let mut stream = map.stream();
    while let Some((w, _)) = stream.next() {
        words.push(String::from_utf8(w.to_vec()).unwrap());
    }
    assert!(!words.is_empty(), "the fixture has rare words");
    vec![
        words[0].clone(),
        words[words.len() / 2].clone(),
        words[words.len() - 1].clone(),
    ]
}

/// `fst` walks its bytes trusting them: one flipped byte can send a lookup
/// past the end (found by the `index_files` fuzzer). Every fst of the index
/// is checked when it is read, so a flipped byte anywhere in one costs a
/// full scan (the dictionary) or span reads (the rare words' places),
/// never a panic or a different answer.
#[test]
fn a_dictionary_with_one_flipped_byte_is_checked_before_any_lookup() {
    let f = fixture();
    let archive = open_local(&f.site);
    let word = a_word_of(&page_file(&f, "daily-dispatch", 1));
    let mut queries = vec![
        plain(&word),
        plain(&format!("{}*", &word[..2])),
        plain("the"),
    ];
    queries.extend(placed_words(&f.index).iter().map(|w| plain(w)));
    let expected: Vec<Hits> = queries.iter().map(|q| hits(&archive, None, q).0).collect();
    for file in [index::files::TERMS, index::files::PLACE_WORDS] {
        for k in 0..12 {
            let dir = f._tmp.path().join(format!("{file}-{k}"));
            copy_dir(&f.index, &dir);
            let mut bytes = std::fs::read(dir.join(file)).unwrap();
            let at = (bytes.len() - 1) * k / 11;
            bytes[at] ^= 0xFF;
            std::fs::write(dir.join(file), &bytes).unwrap();
            for (q, want) in queries.iter().zip(&expected) {
                let (got, r) = hits(&archive, Some(&dir), q);
                assert_eq!(&got, want, "{file}, byte {at} flipped: {:?}", q.query);
                let refused =
                    matches!(r.index, IndexStatus::Ignored(ref why) if why.contains("unusable"));
                assert_eq!(
                    refused,
                    file == index::files::TERMS,
                    "{file}, byte {at}: {:?}",
                    r.index
                );
            }
        }
    }
}

#[test]
fn a_damaged_video_table_leaves_the_filters_to_the_pages() {
    let f = fixture();
    let path = f.index.join("videos.json.zst");
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    std::fs::write(&path, vec![0xA5u8; len]).unwrap();
    let word = a_word_of(&page_file(&f, "daily-dispatch", 1));
    let (status, _, _) = assert_parity(&f, &plain(&word));
    assert_eq!(status, IndexStatus::Fresh, "the words need no row");
    let filtered = Request {
        filters: FilterArgs {
            states: vec!["deleted".into()],
            ..Default::default()
        },
        ..plain(&word)
    };
    assert_parity(&f, &filtered);
    let r = search(&open_local(&f.site), Some(&f.index), &filtered).unwrap();
    assert!(
        r.notes.iter().any(|n| n
            == "the index's videos.json.zst is damaged: the filters were decided on the pages themselves; rebuild the index"),
        "{:?}",
        r.notes
    );
}

#[test]
fn a_normaliser_version_mismatch_means_the_index_is_ignored() {
    let f = fixture();
    let path = f.index.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    meta["normalizer"] = 999.into();
    std::fs::write(&path, serde_json::to_vec(&meta).unwrap()).unwrap();
    let (status, _, _) = assert_parity(&f, &plain("the"));
    let text = status.describe();
    assert!(
        text.contains("normaliser 999") && text.contains("rebuild it"),
        "{text}"
    );
}

#[test]
fn a_rebuild_reads_only_the_pages_that_changed() {
    let f = fixture();
    let path = page_file(&f, "late-night-live", 2);
    let word = a_word_of(&path);
    edit_page(&path, &word, &"z".repeat(word.len()));
    let report = build(&f);
    assert_eq!(report.read, 1, "only the edited page is read again");
    assert_eq!(report.reused, report.pages - 1);
    let (status, _, hits) = assert_parity(&f, &plain(&"z".repeat(word.len())));
    assert_eq!(status, IndexStatus::Fresh);
    assert!(!hits.is_empty());
    // The carried-over words still prune correctly.
    let other = a_word_of(&page_file(&f, "daily-dispatch", 1));
    assert_parity(&f, &plain(&other));
    // And the incremental index is the one a full build writes.
    let scratch = tempfile::tempdir().unwrap();
    index::build(&open_local(&f.site), scratch.path(), &|_| {}).unwrap();
    for file in [
        "terms.fst",
        "postings.zst",
        "terms.txt",
        "videos.json.zst",
        "words.bin",
        "held.bin",
    ] {
        assert!(
            std::fs::read(f.index.join(file)).unwrap()
                == std::fs::read(scratch.path().join(file)).unwrap(),
            "{file} differs"
        );
    }
}

#[test]
fn two_builds_of_one_archive_write_the_same_index() {
    // The reading threads take pages in whatever order they finish, and
    // each keeps its word table from page to page: nothing of that may
    // show in the files (before, which rare words kept their places
    // depended on it).
    let site = common::testdata_archive().join("alpha");
    let builds: Vec<tempfile::TempDir> = (0..3)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            index::build(&open_local(&site), dir.path(), &|_| {}).unwrap();
            dir
        })
        .collect();
    // meta.json says when the index was built; every other file is compared.
    for file in index::files::ALL
        .iter()
        .filter(|&&n| n != index::files::META)
    {
        let first = std::fs::read(builds[0].path().join(file)).unwrap();
        for other in &builds[1..] {
            let bytes = std::fs::read(other.path().join(file)).unwrap();
            assert!(bytes == first, "{file} differs between two builds");
        }
    }
}

/// Each index file's bytes and modification time.
fn index_files(f: &Fixture) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    index::files::ALL
        .iter()
        .map(|name| {
            let path = f.index.join(name);
            let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
            (name.to_string(), std::fs::read(&path).unwrap(), modified)
        })
        .collect()
}

#[test]
fn a_build_with_nothing_changed_writes_nothing() {
    let f = fixture();
    let before = index_files(&f);
    let report = build(&f);
    assert!(report.untouched, "{report:?}");
    assert_eq!((report.read, report.reused), (0, report.pages));
    assert!(report.terms > 0 && report.videos > 0 && report.index_bytes > 0);
    assert!(index_files(&f) == before, "no index file was rewritten");
    // A page written anew with the same bytes has a new stamp to record.
    rewrite_same_bytes(&page_file(&f, "daily-dispatch", 2));
    let report = build(&f);
    assert!(!report.untouched && report.rehashed == 1, "{report:?}");
    let (status, _, _) = assert_parity(&f, &plain("the"));
    assert_eq!(status, IndexStatus::Fresh, "the new stamp is recorded");
    assert!(build(&f).untouched, "and then nothing is left to do");
}

#[test]
fn a_build_over_a_damaged_index_starts_from_nothing() {
    for file in [
        "places.bin",
        "words.bin",
        "held.bin",
        "terms.fst",
        "postings.zst",
    ] {
        let f = fixture();
        let path = f.index.join(file);
        let mut bytes = std::fs::read(&path).unwrap();
        // The same length, so only the contents tell.
        let middle = bytes.len() / 2;
        for b in &mut bytes[middle.saturating_sub(64)..(middle + 64).min(middle * 2)] {
            *b ^= 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        assert!(
            !index::RawIndex::load(&f.index).is_ok_and(|i| i.whole()),
            "{file}"
        );
        let report = build(&f);
        assert!(!report.untouched, "{file}: {report:?}");
        assert_eq!(report.read, report.pages, "{file}: every page read again");
        assert!(index::RawIndex::load(&f.index).unwrap().whole(), "{file}");
        let word = a_word_of(&page_file(&f, "late-night-live", 3));
        let (status, _, hits) = assert_parity(&f, &plain(&word));
        assert_eq!(status, IndexStatus::Fresh, "{file}");
        assert!(!hits.is_empty(), "{file}");
    }
}

#[test]
fn an_interrupted_build_leaves_the_previous_index_working() {
    let f = fixture();
    let before = std::fs::read(f.index.join("meta.json")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
        .args([
            "build",
            "--local",
            f.site.to_str().unwrap(),
            "--index",
            f.index.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    child.kill().unwrap();
    child.wait().unwrap();
    let (status, _, _) = assert_parity(&f, &plain("the"));
    assert_eq!(
        status,
        IndexStatus::Fresh,
        "the old or the new index, whole"
    );
    let after = std::fs::read(f.index.join("meta.json")).unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&after).unwrap();
    assert!(parsed["pages"].is_array());
    let _ = before;
}

#[test]
fn the_sampled_parity_check_finds_no_difference_on_the_generated_archive() {
    let f = fixture();
    let archive = open_local(&f.site);
    let queries = check::sample_queries(&archive, &f.index).unwrap();
    assert!(queries.len() >= 50, "{}", queries.len());
    assert!(queries.iter().any(|q| q.regex) && queries.iter().any(|q| !q.scopes.is_empty()));
    let report = check::check(&archive, &f.index, &queries, &|_| {});
    assert!(report.differences.is_empty(), "{:#?}", report.differences);
    assert!(report.hits > 0 && report.pages_read_indexed < report.pages_read_full);
}

/// The refusal of a search of "the" with `filters`.
fn refusal(archive: &Archive, index: &Path, filters: FilterArgs) -> String {
    let q = Request {
        filters,
        ..plain("the")
    };
    match search(archive, Some(index), &q) {
        Ok(r) => panic!("answered {} videos instead of refusing", r.total_videos),
        Err(e) => e.to_string(),
    }
}

#[test]
fn impossible_filter_values_are_refused_never_answered_as_nothing() {
    let f = fixture();
    let archive = open_local(&f.site);
    let bad = |filters: FilterArgs| refusal(&archive, &f.index, filters);
    assert_eq!(
        bad(FilterArgs { states: vec!["availble".into()], ..Default::default() }),
        "states \"availble\" is not one of available, maybe_missing, deleted, private, members_only, unlisted; did you mean \"available\"?"
    );
    assert_eq!(
        bad(FilterArgs {
            media_type: Some("podcast".into()),
            ..Default::default()
        }),
        "media_type \"podcast\" is not one of video, livestream"
    );
    let slugs: Vec<String> = archive.sites()[0]
        .corpus()
        .channels
        .iter()
        .map(|c| c.slug.clone())
        .collect();
    let typo = slugs[0][1..].to_string();
    assert_eq!(
        bad(FilterArgs {
            channels: vec![typo.clone()],
            ..Default::default()
        }),
        format!(
            "channel {typo:?} matches no channel of this archive; did you mean {:?}?",
            slugs[0]
        )
    );
    assert!(
        bad(FilterArgs {
            channels: vec!["zzzzzzzzzz".into()],
            ..Default::default()
        })
        .starts_with("channel \"zzzzzzzzzz\" matches no channel of this archive; it has "),
        "far from every slug, the slugs are listed"
    );
    assert!(bad(FilterArgs {
        groups: vec!["zzzzzzzzzz".into()],
        ..Default::default()
    })
    .starts_with("group \"zzzzzzzzzz\" matches no group of this archive"));
    assert_eq!(
        bad(FilterArgs {
            captions: vec!["whisper".into()],
            ..Default::default()
        }),
        "captions \"whisper\" is not one of manual, auto, asr, translated"
    );
    assert_eq!(
        bad(FilterArgs {
            date_from: Some("yesterday".into()),
            ..Default::default()
        }),
        "date_from \"yesterday\" is not a date: use YYYYMMDD or YYYY-MM-DD"
    );
    for (min, max) in [("abc", None), ("-5", None)] {
        assert_eq!(
            bad(FilterArgs { min_duration: Some(min.into()), max_duration: max, ..Default::default() }),
            format!("min_duration {min:?} is not a length: give seconds (90), m:ss (1:30) or h:mm:ss (1:01:30), never below 0")
        );
    }
    assert_eq!(
        bad(FilterArgs {
            min_duration: Some("7200".into()),
            max_duration: Some("60".into()),
            ..Default::default()
        }),
        "max_duration 1:00 is shorter than min_duration 2:00:00, so no video is both; swap the two"
    );
    let q = Request {
        scopes: vec!["bogus".into()],
        ..plain("the")
    };
    assert_eq!(
        search(&archive, Some(&f.index), &q).unwrap_err().to_string(),
        "scopes \"bogus\" is not a scope; the scopes are transcripts, chat, description, tags, metadata, posts"
    );
    let q = Request {
        regex: true,
        ..plain("")
    };
    assert!(search(&archive, Some(&f.index), &q)
        .unwrap_err()
        .to_string()
        .contains("matches the empty string"));
}

#[test]
fn an_iso_date_is_a_date_and_a_malformed_date_is_refused() {
    let f = fixture();
    let archive = open_local(&f.site);
    let since = |day: &str| {
        let q = Request {
            filters: FilterArgs {
                date_from: Some(day.into()),
                ..Default::default()
            },
            ..plain("the")
        };
        search(&archive, Some(&f.index), &q).unwrap()
    };
    let all = search(&archive, Some(&f.index), &plain("the")).unwrap();
    let (iso, compact) = (since("2023-06-01"), since("20230601"));
    assert_eq!(iso.total_videos, compact.total_videos);
    assert_eq!(iso.total_hits, compact.total_hits);
    assert!(
        0 < iso.total_videos && iso.total_videos < all.total_videos,
        "the bound narrows: {} of {}",
        iso.total_videos,
        all.total_videos
    );
    for bad in [
        "2023-13-01",
        "2023-6-1",
        "June 2023",
        "20230632",
        "2023-02-30",
        "20230431",
    ] {
        let q = Request {
            filters: FilterArgs {
                date_from: Some(bad.into()),
                ..Default::default()
            },
            ..plain("the")
        };
        let e = search(&archive, Some(&f.index), &q)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("date_from {bad:?} is not a date")),
            "{e}"
        );
    }
}

#[test]
fn an_inverted_date_range_is_refused() {
    let f = fixture();
    let archive = open_local(&f.site);
    let e = refusal(
        &archive,
        &f.index,
        FilterArgs {
            date_from: Some("2024-01-01".into()),
            date_to: Some("2023-01-01".into()),
            ..Default::default()
        },
    );
    assert_eq!(e, "the date range is inverted: date_from 2024-01-01 is after date_to 2023-01-01, so no day is in it; swap the two");
}

/// Every video's length, read from the pages themselves.
fn lengths(site: &Path) -> std::collections::BTreeMap<(String, String), Option<f64>> {
    let archive = open_local(site);
    let s = &archive.sites()[0];
    let mut out = std::collections::BTreeMap::new();
    for c in &s.corpus().channels {
        let pages = s.transcript_manifest(&c.slug).unwrap().pages.len() as u32;
        for p in 1..=pages {
            for v in &s.transcript_page(&c.slug, p).unwrap().videos {
                out.insert((c.slug.clone(), v.slug.clone()), v.duration);
            }
        }
    }
    out
}

#[test]
fn a_duration_filter_keeps_exactly_the_videos_of_that_length_with_or_without_summaries_lengths() {
    let f = fixture();
    let archive = open_local(&f.site);
    let lengths = lengths(&f.site);
    let mut known: Vec<f64> = lengths.values().flatten().copied().collect();
    known.sort_by(f64::total_cmp);
    let (min, max) = (known[known.len() / 4], known[known.len() * 3 / 4]);
    let q = Request {
        filters: FilterArgs {
            min_duration: Some(min.to_string()),
            max_duration: Some(format!("{}:{:02}", (max as u64) / 60, (max as u64) % 60)),
            ..Default::default()
        },
        ..plain("the")
    };
    let max = ((max as u64) / 60 * 60 + (max as u64) % 60) as f64;
    let (all, _) = hits(&archive, Some(&f.index), &plain("the"));
    let expected: Hits = all
        .into_iter()
        .filter(|(c, s, _)| lengths[&(c.clone(), s.clone())].is_some_and(|d| d >= min && d <= max))
        .collect();
    assert!(!expected.is_empty());
    let (indexed, r) = hits(&archive, Some(&f.index), &q);
    let same = |got: &Hits, what: &str| {
        assert!(
            got == &expected,
            "{what}: {} hits, expected {}",
            got.len(),
            expected.len()
        );
    };
    same(&indexed, "with the index");
    let (scanned, full) = hits(&archive, None, &q);
    same(&scanned, "without it, planned from the summaries");
    assert!(r.pages_read <= full.pages_read);

    // An archive whose summaries hold no lengths (written before they
    // did): no page is skipped for its length, and the answer is the same.
    let summaries = f.site.join("summaries/index.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summaries).unwrap()).unwrap();
    for row in v["videos"].as_array_mut().unwrap() {
        row.as_object_mut().unwrap().remove("duration");
    }
    std::fs::write(&summaries, serde_json::to_vec(&v).unwrap()).unwrap();
    let (old, _) = hits(&open_local(&f.site), None, &q);
    same(&old, "summaries without lengths");

    let e = refusal(
        &archive,
        &f.index,
        FilterArgs {
            min_duration: Some("ten minutes".into()),
            ..Default::default()
        },
    );
    assert!(
        e.starts_with("min_duration \"ten minutes\" is not a length"),
        "{e}"
    );
}

#[test]
fn max_pages_reports_partial_coverage_naming_the_channels() {
    let f = fixture();
    let archive = open_local(&f.site);
    let r = search(
        &archive,
        None,
        &Request {
            max_pages: Some(3),
            ..plain("the")
        },
    )
    .unwrap();
    assert_eq!(r.pages_read, 3);
    assert!(r.coverage.partial);
    assert_eq!(r.coverage.partly, ["daily-dispatch"]);
    assert_eq!(
        r.coverage.unreached,
        [
            "late-night-live",
            "dispatch-rumble",
            "stream-vault",
            "odysee-archive"
        ]
    );
}

#[test]
fn a_page_with_broken_json_is_named_and_the_rest_answered() {
    let f = fixture();
    std::fs::write(
        page_file(&f, "stream-vault", 2),
        b"{\"channel\": \"stream-vault\", \"page\": 2, \"videos\": [",
    )
    .unwrap();
    let archive = open_local(&f.site);
    let r = search(&archive, Some(&f.index), &plain("the")).unwrap();
    assert!(r.total_videos > 0);
    assert!(r.coverage.partial);
    assert!(
        r.unreadable
            .iter()
            .any(|u| u.contains("stream-vault/page-0002.json: not valid archive JSON")),
        "{:?}",
        r.unreadable
    );
    assert_eq!(r.coverage.partly, ["stream-vault"]);
}

#[test]
fn a_chat_whose_video_has_no_record_is_named_not_skipped() {
    let f = fixture();
    let chat_page = f.site.join("chat/daily-dispatch/page-0001.json");
    let chat: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&chat_page).unwrap()).unwrap();
    let slug = chat["videos"][0]["slug"].as_str().unwrap().to_string();
    let mut m = manifest(&f, "daily-dispatch");
    assert!(m.slug_to_page.remove(&slug).is_some());
    write_manifest(&f, &m);
    let archive = open_local(&f.site);
    let q = Request {
        scopes: vec!["chat".into()],
        ..plain("the")
    };
    let r = search(&archive, Some(&f.index), &q).unwrap();
    let note = format!(
        "the live chat of daily-dispatch/{slug} (chat page 1) was not searched: the video has no record in the transcripts"
    );
    assert!(r.notes.contains(&note), "{:?}", r.notes);
    assert!(r.videos.iter().all(|v| v.slug != slug));
}

fn tree_digest(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    common::files_under(dir)
        .into_iter()
        .map(|p| {
            let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes, modified)
        })
        .collect()
}

#[test]
fn read_only_building_and_searching_never_write_to_the_archive() {
    let f = fixture();
    let before = tree_digest(&f.site);
    build(&f);
    assert_parity(&f, &plain("the"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
        .args([
            "search",
            "--local",
            f.site.to_str().unwrap(),
            "--index",
            f.index.to_str().unwrap(),
            "--limit",
            "1",
            "the",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        before,
        tree_digest(&f.site),
        "the archive is unchanged, to the byte and the mtime"
    );
}

#[test]
fn every_result_names_the_corpus_it_read_errors_included() {
    let f = fixture();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
            .args([
                "search",
                "--local",
                f.site.to_str().unwrap(),
                "--index",
                f.index.to_str().unwrap(),
            ])
            .args(args)
            .output()
            .unwrap()
    };
    let handle = format!("(corpus: local:{})", f.site.display());
    let ok = run(&["--limit", "1", "the"]);
    assert!(String::from_utf8_lossy(&ok.stdout)
        .trim_end()
        .ends_with(&handle));
    let json = run(&["--json", "--limit", "1", "the"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["source"], format!("local:{}", f.site.display()));
    assert_eq!(value["videos"].as_array().unwrap().len(), 1);
    assert!(value["total_videos"].as_u64().unwrap() > 1);
    let bad = run(&["--regex", "("]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("does not compile") && err.trim_end().ends_with(&handle),
        "{err}"
    );
}

#[test]
fn a_result_cap_stops_the_scan_and_says_partial() {
    let f = fixture();
    let archive = open_local(&f.site);
    let r = search(
        &archive,
        Some(&f.index),
        &Request {
            max_videos: Some(5),
            ..plain("the")
        },
    )
    .unwrap();
    assert!(
        r.total_videos >= 5 && r.pages_read < r.pages_planned,
        "{} videos, {} of {} pages",
        r.total_videos,
        r.pages_read,
        r.pages_planned
    );
    assert!(r.coverage.partial);
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("result cap of 5 videos reached: stopped after")),
        "{:?}",
        r.notes
    );
    assert!(!r.coverage.unreached.is_empty());
}

#[test]
fn without_an_index_a_filter_prunes_pages_from_the_summaries_and_never_loses_a_hit() {
    let f = fixture();
    let archive = open_local(&f.site);
    let q = Request {
        filters: FilterArgs {
            date_from: Some("20260101".into()),
            ..Default::default()
        },
        ..plain("the")
    };
    let (indexed, _) = hits(&archive, Some(&f.index), &q);
    let (pruned, r) = hits(&archive, None, &q);
    assert_eq!(
        pruned, indexed,
        "filter-first planning finds what the index finds"
    );
    assert!(!pruned.is_empty());
    assert!(
        r.pages_read < r.pages_total,
        "the summaries let it skip pages: {} of {}",
        r.pages_read,
        r.pages_total
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("filter-pruned: planned ")),
        "{:?}",
        r.notes
    );

    // A video the summaries do not know has its page read.
    let summaries = f.site.join("summaries/index.json");
    let mut table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summaries).unwrap()).unwrap();
    let rows = table["videos"].as_array_mut().unwrap();
    let passing = rows
        .iter()
        .position(|v| v["uploadDate"].as_str().is_some_and(|d| d >= "20260101"))
        .unwrap();
    rows.remove(passing);
    std::fs::write(&summaries, serde_json::to_vec(&table).unwrap()).unwrap();
    let (without_row, _) = hits(&open_local(&f.site), None, &q);
    assert_eq!(
        without_row, indexed,
        "a video the summaries lack is still found"
    );

    let plain_query = plain("the");
    let (_, full) = hits(&archive, None, &plain_query);
    assert!(
        full.notes
            .iter()
            .any(|n| n
                .starts_with("full scan: no page in scope was pruned; an index would read only")),
        "{:?}",
        full.notes
    );
}

/// Every hit of a search: (channel, slug, field, unit).
fn hit_set(r: &archilyzer_core::query::Response) -> BTreeSet<(String, String, String, usize)> {
    r.videos
        .iter()
        .flat_map(|v| {
            v.hits.iter().map(|h| {
                (
                    v.channel.clone(),
                    v.slug.clone(),
                    h.scope.as_str().to_string(),
                    h.unit,
                )
            })
        })
        .collect()
}

/// The index's words of lower-case ASCII letters, at least `min` long.
fn lower_case_words(raw: &index::RawIndex, min: usize) -> Vec<String> {
    use fst::Streamer;
    let mut stream = raw.terms.stream();
    let mut out = Vec::new();
    while let Some((t, _)) = stream.next() {
        let t = String::from_utf8_lossy(t).into_owned();
        if t.len() >= min && t.chars().all(|c| c.is_ascii_lowercase()) {
            out.push(t);
        }
    }
    out
}

#[test]
fn a_wider_fuzzy_search_only_adds_words_and_finds_a_superset_of_videos() {
    let f = fixture();
    let archive = open_local(&f.site);
    let raw = index::RawIndex::load(&f.index).unwrap();
    let words = lower_case_words(&raw, 5);
    let mut checked = 0;
    for w in words.iter().step_by(words.len() / 200 + 1) {
        let one: BTreeSet<String> = raw
            .similar(w, 1, 8, Scope::default_fields())
            .into_iter()
            .map(|v| v.word)
            .collect();
        let two: Vec<index::similar::Variant> = raw.similar(w, 2, 8, Scope::default_fields());
        let two_words: BTreeSet<String> = two.iter().map(|v| v.word.clone()).collect();
        assert!(
            one.is_subset(&two_words),
            "{w}: {one:?} not within {two_words:?}"
        );
        assert!(
            two.windows(2).all(|p| p[0].edits <= p[1].edits),
            "{w}: nearest first"
        );
        checked += usize::from(!one.is_empty());
    }
    assert!(checked > 5, "{checked} words with neighbours");
    let word = words
        .iter()
        .find(|w| !raw.similar(w, 1, 8, Scope::default_fields()).is_empty())
        .unwrap();
    let videos = |fuzzy: u8| -> BTreeSet<String> {
        let q = Request {
            fuzzy,
            ..plain(word)
        };
        let r = search(&archive, Some(&f.index), &q).unwrap();
        r.videos.iter().map(|v| v.slug.clone()).collect()
    };
    let (zero, one, two) = (videos(0), videos(1), videos(2));
    assert!(
        zero.is_subset(&one) && one.is_subset(&two),
        "fuzzy 0 ⊆ 1 ⊆ 2 for {word}"
    );
    // Exact first: the counts of the word as typed, beside the wider ones.
    let exact = search(&archive, Some(&f.index), &plain(word)).unwrap();
    let wide = search(
        &archive,
        Some(&f.index),
        &Request {
            fuzzy: 2,
            ..plain(word)
        },
    )
    .unwrap();
    assert_eq!(
        (wide.exact.videos, wide.exact.hits),
        (exact.total_videos, exact.total_hits),
        "the exact count of a fuzzy search is the plain search's"
    );
    assert!(wide.total_hits > wide.exact.hits);
}

#[test]
fn fuzzy_finds_exactly_the_union_of_the_query_and_its_named_expansions() {
    let f = fixture();
    let archive = open_local(&f.site);
    let raw = index::RawIndex::load(&f.index).unwrap();
    // A word of the generated vocabulary with neighbours within one edit.
    let word = {
        use fst::Streamer;
        let mut stream = raw.terms.stream();
        let mut found = None;
        while let Some((t, _)) = stream.next() {
            let t = String::from_utf8_lossy(t).into_owned();
            if t.len() >= 6
                && t.chars().all(|c| c.is_ascii_lowercase())
                && !raw.similar(&t, 1, 8, Scope::default_fields()).is_empty()
            {
                found = Some(t);
                break;
            }
        }
        found.expect("a word with a neighbour")
    };
    let q = Request {
        fuzzy: 1,
        ..plain(&word)
    };
    let fuzzy = search(&archive, Some(&f.index), &q).unwrap();
    assert!(!fuzzy.fuzzy.is_empty(), "expansions are named");
    let exact = search(&archive, Some(&f.index), &plain(&word)).unwrap();
    let mut union = hit_set(&exact);
    for e in &fuzzy.fuzzy {
        let alone = search(&archive, Some(&f.index), &plain(&e.query)).unwrap();
        assert_eq!(e.hits, alone.total_hits, "{} counts its own hits", e.query);
        union.extend(hit_set(&alone));
    }
    assert_eq!(
        hit_set(&fuzzy),
        union,
        "fuzzy is the union, and keeps every exact hit"
    );
    let no_index = search(&archive, None, &q).unwrap();
    assert!(no_index.fuzzy.is_empty());
    assert!(
        no_index
            .notes
            .iter()
            .any(|n| n.starts_with("fuzzy needs an index")),
        "{:?}",
        no_index.notes
    );
}

#[test]
fn fuzzy_two_leaves_out_far_variants_that_are_likely_other_words_and_names_them() {
    let f = fixture();
    let archive = open_local(&f.site);
    let raw = index::RawIndex::load(&f.index).unwrap();
    // A word with a neighbour two edits away that starts with another letter.
    let (word, far) = {
        use fst::Streamer;
        let mut stream = raw.terms.stream();
        let mut found = None;
        while let Some((t, _)) = stream.next() {
            let t = String::from_utf8_lossy(t).into_owned();
            if t.chars().count() < 5 || !t.chars().all(|c| c.is_ascii_lowercase()) {
                continue;
            }
            let far = raw
                .similar(&t, 2, 8, Scope::default_fields())
                .into_iter()
                .find(|v| v.edits == 2 && v.word.chars().next() != t.chars().next());
            if let Some(v) = far {
                found = Some((t, v));
                break;
            }
        }
        found.expect("a word with a far neighbour of another first letter")
    };
    let r = search(
        &archive,
        Some(&f.index),
        &Request {
            fuzzy: 2,
            ..plain(&word)
        },
    )
    .unwrap();
    assert!(
        r.fuzzy.iter().all(|e| e.query != far.word),
        "{} is not searched for {word}",
        far.word
    );
    let named = format!("{} ({} videos)", far.word, far.videos);
    assert!(
        r.notes.iter().any(|n| n
            .starts_with("fuzzy 2: not searched, as two edits away they are likely other words")
            && n.contains(&named)),
        "{named} is named: {:?}",
        r.notes
    );
}

/// Dates every file of `dir` a minute back, as an index built earlier.
fn age(dir: &Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for entry in std::fs::read_dir(dir).unwrap() {
        let file = std::fs::File::options()
            .write(true)
            .open(entry.unwrap().path());
        file.unwrap().set_modified(then).unwrap();
    }
}

#[test]
fn a_settled_index_is_loaded_once_per_owner_and_a_rebuild_is_loaded_again() {
    let f = fixture();
    age(&f.index);
    // Archives opened with the same options share one index cache.
    let options = common::options(None);
    let open_with = |options: &archilyzer_core::archive::OpenOptions| {
        let handle = archilyzer_core::source::SourceHandle::local(&f.site);
        let archive = Archive::open(&handle, options).unwrap();
        let (pages, _) = archive.page_table();
        index::Index::open(&f.index, &archive, &pages).0.unwrap()
    };
    let open = || open_with(&options);
    let (first, again) = (open(), open());
    assert!(std::sync::Arc::ptr_eq(&first.raw, &again.raw), "kept");
    let other = open_with(&common::options(None));
    assert!(
        !std::sync::Arc::ptr_eq(&first.raw, &other.raw),
        "another owner's options keep their own"
    );
    let page = page_file(&f, "daily-dispatch", 1);
    edit_page(&page, "the", "teh");
    build(&f);
    age(&f.index);
    let rebuilt = open();
    assert!(
        !std::sync::Arc::ptr_eq(&first.raw, &rebuilt.raw),
        "reloaded"
    );
    assert_eq!(
        rebuilt.vouched.ids.iter().filter(|i| i.is_none()).count(),
        0
    );
    assert_parity(&f, &plain("teh"));
}

#[test]
fn a_word_is_counted_in_the_videos_a_search_of_the_same_scopes_finds() {
    let f = fixture();
    let archive = open_local(&f.site);
    let raw = index::RawIndex::load(&f.index).unwrap();
    let words = lower_case_words(&raw, 4);
    let scope_sets: [&[&str]; 6] = [
        &[],
        &["description"],
        &["tags"],
        &["transcripts"],
        &["chat"],
        &["transcripts", "description"],
    ];
    let mut differ = 0;
    for w in words.iter().step_by(words.len() / 25 + 1) {
        let mut counts = Vec::new();
        for names in scope_sets {
            let scopes: Vec<String> = names.iter().map(|s| s.to_string()).collect();
            let set = Scope::resolve(&scopes).unwrap();
            let counted = raw.videos_with(w, Scope::fields_of(&set));
            let q = Request {
                scopes,
                use_aliases: false,
                ..plain(w)
            };
            let found = search(&archive, None, &q).unwrap().total_videos as u64;
            assert_eq!(counted, found, "{w} in {names:?}");
            counts.push(counted);
        }
        differ += usize::from(counts.iter().any(|&c| c != counts[0]));
    }
    assert!(
        differ > 3,
        "the scopes must tell the words apart ({differ})"
    );
}

#[test]
fn each_word_s_census_from_held_bin_is_the_sum_of_its_postings() {
    use archilyzer_core::index::fields::Fields;
    let f = fixture();
    let raw = index::RawIndex::load(&f.index).unwrap();
    let vocabulary = std::fs::read_to_string(f.index.join(index::files::VOCABULARY)).unwrap();
    let sets = [
        Fields::CAPTIONS,
        Fields::TITLE,
        Fields::CAPTIONS.with(Fields::TITLE),
        Fields::DESCRIPTION.with(Fields::TAGS),
        Fields::EVERY,
    ];
    let mut held_somewhere = 0;
    for (n, word) in vocabulary.lines().enumerate() {
        assert_eq!(raw.number(word), Some(n as u32), "{word}");
        for f in sets {
            let census = raw.census(word, f);
            assert_eq!(census, raw.census_from_postings(word, f), "{word} in {f:?}");
            held_somewhere += usize::from(census > Some(0));
        }
    }
    assert!(
        held_somewhere > 1000,
        "a real test counts words: {held_somewhere}"
    );
    assert_eq!(raw.number("zzzz-not-a-word"), None);
    // A damaged held.bin is not used: the census walks the postings.
    let path = f.index.join(index::files::HELD);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[4] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let raw = index::RawIndex::load(&f.index).unwrap();
    let word = vocabulary.lines().next().unwrap();
    assert_eq!(
        raw.census(word, Fields::CAPTIONS),
        raw.census_from_postings(word, Fields::CAPTIONS)
    );
}
