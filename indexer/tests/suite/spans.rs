//! Video-level reads: with a fresh index, a query reads only the videos
//! its postings select, by their byte spans, on disk and over HTTP (with
//! `Range`, or the whole page from a server that ignores it); a span whose
//! bytes are not the ones indexed sends the read back to the whole page,
//! so every stale case still answers exactly as a full scan does.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use archilyzer_core::archive::Archive;
use archilyzer_core::format::spans;
use archilyzer_core::index::{self, LayerName, RawIndex};
use archilyzer_core::query::{search, Request, Response};
use archilyzer_testkit::TestServer;
use common::{copy_dir, generated, open, open_local};
use fst::Streamer;

/// A word only one video of a page of several holds, and that page's file
/// (relative to the site).
struct Rare {
    word: String,
    page: String,
    channel: String,
    number: u32,
    /// The holder's position on the page, and its span's length.
    holder: usize,
    span_len: u64,
}

/// The first such word of the index in `dir`, in vocabulary order.
fn rare_word(dir: &Path) -> Rare {
    let raw = RawIndex::load(dir).unwrap();
    let mut stream = raw.terms.stream();
    while let Some((term, offset)) = stream.next() {
        let word = String::from_utf8(term.to_vec()).unwrap();
        if word.len() < 6 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let postings = raw.postings_with_counts(offset).unwrap();
        let [p] = postings.as_slice() else { continue };
        let key = &raw.meta.pages[p.page as usize].key;
        let rows = raw.page_rows(p.page).unwrap();
        if let (LayerName::Transcripts, Some([h])) = (key.layer, p.holders.as_deref()) {
            if rows.len() >= 3 {
                return Rare {
                    word,
                    page: format!("transcripts/{}/page-{:04}.json", key.channel, key.page),
                    channel: key.channel.clone(),
                    number: key.page,
                    holder: *h as usize,
                    span_len: rows[*h as usize].span.as_ref().unwrap().len(),
                };
            }
        }
    }
    panic!("the generated archive has a word held by one video of a page");
}

fn query(word: &str) -> Request {
    Request {
        query: word.into(),
        use_aliases: true,
        ..Default::default()
    }
}

type Hits = BTreeSet<(String, String, usize, String)>;

fn hits(r: &Response) -> Hits {
    r.videos
        .iter()
        .flat_map(|v| {
            v.hits
                .iter()
                .map(move |h| (v.channel.clone(), v.slug.clone(), h.unit, h.text.clone()))
        })
        .collect()
}

/// Searches `word` with the index and without; asserts the same hits and
/// returns the indexed response.
fn assert_parity(archive: &Archive, index: &Path, word: &str) -> Response {
    let with = search(archive, Some(index), &query(word)).unwrap();
    let without = search(archive, None, &query(word)).unwrap();
    assert_eq!(hits(&with), hits(&without), "{word}: indexed vs full scan");
    assert!(with.unreadable.is_empty(), "{:?}", with.unreadable);
    with
}

/// A private copy of the generated alpha site, indexed.
fn indexed_copy() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("alpha");
    copy_dir(&generated().join("alpha"), &site);
    let index = tmp.path().join("index");
    index::build(&open_local(&site), &index, &|_| {}).unwrap();
    (tmp, site, index)
}

/// Swaps the holder of `rare` with a neighbour in its page file: the same
/// bytes in all, the same size, and the holder's span now holds another
/// video.
fn move_the_holder(site: &Path, rare: &Rare) {
    let path = site.join(&rare.page);
    let text = std::fs::read(&path).unwrap();
    let s: Vec<_> = spans::videos(&text, "page")
        .unwrap()
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    let (i, j) = if rare.holder == 0 {
        (0, 1)
    } else {
        (rare.holder - 1, rare.holder)
    };
    let (a, b) = (&s[i], &s[j]);
    let mut out = text[..a.start as usize].to_vec();
    out.extend_from_slice(&text[b.start as usize..b.end as usize]);
    out.extend_from_slice(&text[a.end as usize..b.start as usize]);
    out.extend_from_slice(&text[a.start as usize..a.end as usize]);
    out.extend_from_slice(&text[b.end as usize..]);
    assert_eq!(out.len(), text.len());
    assert_ne!(out, text);
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_rare_word_reads_only_the_video_that_holds_it() {
    let (_tmp, site, index) = indexed_copy();
    let rare = rare_word(&index);
    let archive = open_local(&site);
    let r = assert_parity(&archive, &index, &rare.word);
    let page_bytes = std::fs::metadata(site.join(&rare.page)).unwrap().len();
    assert_eq!(r.total_videos, 1);
    assert_eq!(r.pages_read, 1);
    assert_eq!(
        r.bytes_read, rare.span_len,
        "only the holder's bytes are read, of a {page_bytes}-byte page"
    );
}

#[test]
fn a_video_moved_within_its_page_is_found_by_reading_the_whole_page() {
    let (_tmp, site, index) = indexed_copy();
    let rare = rare_word(&index);
    let path = site.join(&rare.page);
    // Keep the file's size and time, so the index still vouches for it:
    // only the spans' digests can tell that its videos moved.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    move_the_holder(&site, &rare);
    set_time(&path, mtime);
    assert_whole_page_read(
        &open_local(&site),
        &index,
        &rare.word,
        &path,
        "the spans failed their digests",
    );
}

/// Sets `path`'s modification time back to `mtime`.
fn set_time(path: &Path, mtime: std::time::SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

/// Asserts that a search of `word` in `archive`, whose page `path` the index
/// still vouches for, found its one video by reading that whole page (for
/// the reason `why`), as a full scan finds it.
fn assert_whole_page_read(archive: &Archive, index: &Path, word: &str, path: &Path, why: &str) {
    let r = assert_parity(archive, index, word);
    assert_eq!(
        r.index,
        index::IndexStatus::Fresh,
        "the page is vouched for"
    );
    assert_eq!(r.total_videos, 1);
    let page = std::fs::metadata(path).unwrap().len();
    assert_eq!(r.bytes_read, page, "{why}, so the whole page was read");
}

#[test]
fn a_page_rewritten_with_the_same_size_is_read_whole() {
    let (_tmp, site, index) = indexed_copy();
    let rare = rare_word(&index);
    move_the_holder(&site, &rare);
    let archive = open_local(&site);
    let r = assert_parity(&archive, &index, &rare.word);
    assert!(
        matches!(
            r.index,
            index::IndexStatus::PartlyStale { unvouched: 1, .. }
        ),
        "{:?}",
        r.index
    );
    assert_eq!(r.total_videos, 1);
}

/// The alpha site served on loopback, its index built over HTTP.
struct Remote {
    server: TestServer,
    handle: String,
    index: tempfile::TempDir,
}

fn remote(root: &Path) -> Remote {
    let server = TestServer::serve(root);
    let handle = format!("remote:{}", server.url("alpha"));
    let index = tempfile::tempdir().unwrap();
    index::build(&open(&handle, None), index.path(), &|_| {}).unwrap();
    Remote {
        server,
        handle,
        index,
    }
}

#[test]
fn a_remote_site_is_read_by_range_and_a_server_that_ignores_ranges_still_answers() {
    let r = remote(generated());
    let rare = rare_word(r.index.path());
    let path = format!("alpha/{}", rare.page);
    let local = search(
        &open_local(&generated().join("alpha")),
        None,
        &query(&rare.word),
    )
    .unwrap();

    let cache = tempfile::tempdir().unwrap();
    let ranged = search(
        &open(&r.handle, Some(cache.path())),
        Some(r.index.path()),
        &query(&rare.word),
    )
    .unwrap();
    assert_eq!(hits(&ranged), hits(&local));
    let asked = r.server.requests_for(&path);
    let page_bytes = std::fs::metadata(generated().join(&path)).unwrap().len() as usize;
    assert!(!asked.is_empty());
    for l in &asked[asked.len() - 1..] {
        assert_eq!(l.status, 206, "{l:?}");
        assert!(l.range.as_deref().is_some_and(|r| r.starts_with("bytes=")));
        assert_eq!(l.bytes as u64, rare.span_len, "of {page_bytes}");
    }
    // The disk cache keeps the range: asking again costs no request.
    let before = r.server.requests_for(&path).len();
    let again = search(
        &open(&r.handle, Some(cache.path())),
        Some(r.index.path()),
        &query(&rare.word),
    )
    .unwrap();
    assert_eq!(hits(&again), hits(&local));
    assert_eq!(r.server.requests_for(&path).len(), before);

    // A server without range support sends the whole page: it is checked
    // against the manifest, used, and kept.
    r.server.ignore_ranges();
    let cache = tempfile::tempdir().unwrap();
    let whole = search(
        &open(&r.handle, Some(cache.path())),
        Some(r.index.path()),
        &query(&rare.word),
    )
    .unwrap();
    assert_eq!(hits(&whole), hits(&local));
    let last = r.server.requests_for(&path).pop().unwrap();
    assert_eq!((last.status, last.bytes), (200, page_bytes));
    let before = r.server.requests_for(&path).len();
    let site = open(&r.handle, Some(cache.path()));
    site.sites()[0]
        .transcript_page(&rare.channel, rare.number)
        .unwrap();
    assert_eq!(
        r.server.requests_for(&path).len(),
        before,
        "the whole page it sent was kept in the disk cache"
    );
}

#[test]
fn a_remote_page_changed_behind_an_unchanged_manifest_is_refused_never_misread() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&generated().join("alpha"), &tmp.path().join("alpha"));
    let r = remote(tmp.path());
    let rare = rare_word(r.index.path());
    move_the_holder(&tmp.path().join("alpha"), &rare);
    let answer = search(
        &open(&r.handle, None),
        Some(r.index.path()),
        &query(&rare.word),
    )
    .unwrap();
    assert!(answer.videos.is_empty(), "{:?}", hits(&answer));
    let unreadable = answer.unreadable.join("\n");
    assert!(
        unreadable.contains(&rare.page) && unreadable.contains("does not match the manifest's"),
        "{unreadable}"
    );
    assert!(answer.coverage.partial);
}

#[test]
fn one_video_is_read_by_its_span_and_a_stale_span_falls_back_to_the_page() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&generated().join("alpha"), &tmp.path().join("alpha"));
    let r = remote(tmp.path());
    let rare = rare_word(r.index.path());
    let raw = RawIndex::load(r.index.path()).unwrap();
    let site_id = open_local(&tmp.path().join("alpha")).sites()[0]
        .id()
        .to_string();
    let slug = {
        let rows = raw
            .every_row()
            .unwrap()
            .iter()
            .filter(|v| v.channel == rare.channel && v.page == rare.number);
        rows.clone().nth(rare.holder).unwrap().slug.clone()
    };
    let local = open_local(&tmp.path().join("alpha"));
    let expected = local.find_video(&slug, &[]).unwrap().unwrap().video;
    let path = format!("alpha/{}", rare.page);

    let built = r.server.requests_for(&path).len();
    let mut remote = open(&r.handle, None);
    let lookup = index::span_lookup(&remote, r.index.path().to_path_buf());
    remote.read_spans_with(lookup);
    let found = remote
        .find_video(&slug, std::slice::from_ref(&rare.channel))
        .unwrap()
        .unwrap();
    assert_eq!(found.video, expected);
    assert_eq!(found.site.id(), site_id);
    let asked = r.server.requests_for(&path)[built..].to_vec();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        (asked[0].status, asked[0].bytes as u64),
        (206, rare.span_len),
        "only the video's bytes"
    );

    // The page rewritten behind its manifest with the video moved: its span
    // now holds another video, so the whole page is read, and refused, as
    // its bytes are not the manifest's. Never another video's record.
    move_the_holder(&tmp.path().join("alpha"), &rare);
    let mut remote = open(&r.handle, None);
    let lookup = index::span_lookup(&remote, r.index.path().to_path_buf());
    remote.read_spans_with(lookup);
    let again = remote.find_video(&slug, std::slice::from_ref(&rare.channel));
    let last = r.server.requests_for(&path).pop().unwrap();
    assert!(
        last.range.is_none(),
        "the stale span sent the read to the whole page: {last:?}"
    );
    let err = again
        .err()
        .expect("the changed page is refused")
        .to_string();
    assert!(err.contains("does not match the manifest's"), "{err}");
}

/// The index in `dir` as a server keeps it: its files dated back past
/// the kept-index rule's settling time, loaded into `archive`'s cache,
/// and its rows and places read (so its searches answer from places).
fn keep_warm(archive: &Archive, dir: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for name in index::files::ALL {
        let file = std::fs::File::options()
            .write(true)
            .open(dir.join(name))
            .unwrap();
        file.set_modified(past).unwrap();
    }
    archive.indexes().load(dir).unwrap().warm();
}

/// A word of the index in `dir` placed in exactly one video, which holds
/// it in one cue, on a page of several videos: the word and that video's
/// places.
fn placed_word(dir: &Path) -> (String, index::places::PlacedVideo) {
    let raw = RawIndex::load(dir).unwrap();
    let every = raw
        .places()
        .expect("the build wrote places")
        .every()
        .unwrap();
    every
        .into_iter()
        .find_map(|(word, videos)| {
            let [v] = videos.as_slice() else { return None };
            let plain = word.len() >= 6 && word.bytes().all(|b| b.is_ascii_lowercase());
            let offset = raw.terms.get(word.as_bytes())?;
            let held: u32 = raw
                .postings_with_counts(offset)
                .ok()?
                .iter()
                .map(|p| p.videos)
                .sum();
            let rows = raw.page_rows(v.page)?.len();
            (plain && held == 1 && v.cues.len() == 1 && rows >= 3)
                .then(|| (word.to_string(), v.clone()))
        })
        .expect("the generated archive has a word one cue of one video says")
}

/// What a search answers about each video, all of it (the length too,
/// which the JSON leaves out).
fn answers(r: &Response) -> Vec<(serde_json::Value, u32)> {
    r.videos
        .iter()
        .map(|v| (serde_json::to_value(v).unwrap(), v.length))
        .collect()
}

#[test]
fn a_rare_word_is_answered_from_its_places_as_from_the_spans() {
    let (_tmp, site, index) = indexed_copy();
    let (word, placed) = placed_word(&index);
    let archive = open_local(&site);
    let by_span = search(&archive, Some(&index), &query(&word)).unwrap();
    keep_warm(&archive, &index);
    let by_place = assert_parity(&archive, &index, &word);
    assert_eq!(answers(&by_place), answers(&by_span), "{word}");
    assert_eq!(by_place.total_videos, 1);
    let cue = placed.cues[0];
    assert_eq!(by_place.videos[0].hits[0].unit, cue.cue as usize);
    assert_eq!(
        (
            by_place.bytes_read,
            by_span.bytes_read > by_place.bytes_read
        ),
        (u64::from(cue.len), true),
        "only the cue holding {word:?} is read, not the video's {} bytes",
        by_span.bytes_read
    );
}

#[test]
fn a_stale_place_falls_back_and_answers_as_a_full_scan_does() {
    let (_tmp, site, index) = indexed_copy();
    let (word, placed) = placed_word(&index);
    let raw = RawIndex::load(&index).unwrap();
    let key = &raw.meta.pages[placed.page as usize].key;
    let path = site.join(format!(
        "transcripts/{}/page-{:04}.json",
        key.channel, key.page
    ));
    let span = raw.page_rows(placed.page).unwrap()[placed.video as usize]
        .span
        .clone()
        .unwrap();
    // One byte of the placed cue changed in place (same size, same time):
    // the index still vouches for the page, only the digests can tell.
    let mut bytes = std::fs::read(&path).unwrap();
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let cue = span.start as usize + placed.cues[0].at as usize;
    let text = &mut bytes[cue..cue + placed.cues[0].len as usize];
    let at = text
        .iter()
        .position(|b| b.is_ascii_digit())
        .expect("a cue starts with its time");
    text[at] = if text[at] == b'9' { b'8' } else { text[at] + 1 };
    std::fs::write(&path, &bytes).unwrap();
    set_time(&path, mtime);
    let archive = open_local(&site);
    keep_warm(&archive, &index);
    assert_whole_page_read(
        &archive,
        &index,
        &word,
        &path,
        "the place and the span failed their digests",
    );
}
