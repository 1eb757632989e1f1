//! Remote reads against the habits of real hosts and CDNs, played by the
//! test host ([`Habits`], [`Fault`]): compression on the fly, compressed
//! ranges, weak or absent `ETag`s, redirects, HTML error pages. Each
//! answer is the local read's, and every refusal says what the host did.

use crate::common;

use std::path::Path;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index;
use archilyzer_core::query::{search, Request};
use archilyzer_core::source::SourceHandle;
use archilyzer_testkit::{Fault, Habits, TestServer};
use common::{generated, open, open_local};

const PAGE: &str = "alpha/transcripts/daily-dispatch/page-0002.json";

fn query(word: &str) -> Request {
    Request {
        query: word.into(),
        ..Default::default()
    }
}

/// `(channel, slug, hits)` of every matching video.
fn found(archive: &Archive, index: Option<&Path>, word: &str) -> Vec<(String, String, usize)> {
    let r = search(archive, index, &query(word)).unwrap();
    assert!(r.unreadable.is_empty(), "{:?}", r.unreadable);
    r.videos
        .iter()
        .map(|v| (v.channel.clone(), v.slug.clone(), v.hits.len()))
        .collect()
}

/// A word held by few videos, so an indexed search reads by range.
fn rare_word(index: &Path) -> String {
    use fst::Streamer;
    let raw = index::RawIndex::load(index).unwrap();
    let mut stream = raw.terms.stream();
    while let Some((term, offset)) = stream.next() {
        let word = String::from_utf8(term.to_vec()).unwrap();
        let postings = raw.postings_with_counts(offset).unwrap();
        if word.len() >= 6 && postings.len() == 1 && postings[0].holders.is_some() {
            return word;
        }
    }
    panic!("no rare word");
}

fn open_error(handle: &str) -> String {
    let handle = SourceHandle::parse(handle).unwrap();
    match Archive::open(&handle, &OpenOptions::default()) {
        Ok(_) => panic!("{handle} opened"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_gzipping_host_sends_whole_pages_compressed_and_ranges_as_stored() {
    let server = TestServer::serve(generated());
    server.habits(Habits {
        gzip: true,
        ..Habits::default()
    });
    let handle = format!("remote:{}", server.url("alpha"));
    let local = open_local(&generated().join("alpha"));
    let remote = open(&handle, None);
    assert_eq!(found(&remote, None, "the"), found(&local, None, "the"));
    let whole = server.requests_for(PAGE).pop().unwrap();
    let size = std::fs::metadata(generated().join(PAGE)).unwrap().len() as usize;
    assert!(
        whole.bytes < size * 3 / 4,
        "{} of {size} bytes: compressed",
        whole.bytes
    );

    let index = tempfile::tempdir().unwrap();
    index::build(&remote, index.path(), &|_| {}).unwrap();
    let word = rare_word(index.path());
    let ranged = found(&open(&handle, None), Some(index.path()), &word);
    assert_eq!(ranged, found(&local, None, &word));
    let ranges: Vec<_> = server
        .log()
        .into_iter()
        .filter(|l| l.range.is_some())
        .collect();
    assert!(
        !ranges.is_empty() && ranges.iter().all(|l| l.status == 206),
        "{ranges:?}"
    );
}

#[test]
fn a_host_that_compresses_a_range_is_read_by_the_whole_page_instead() {
    let server = TestServer::serve(generated());
    let handle = format!("remote:{}", server.url("alpha"));
    let index = tempfile::tempdir().unwrap();
    index::build(&open(&handle, None), index.path(), &|_| {}).unwrap();
    let word = rare_word(index.path());
    server.habits(Habits {
        gzip: true,
        gzip_ranges: true,
        ..Habits::default()
    });
    let local = found(&open_local(&generated().join("alpha")), None, &word);
    assert_eq!(
        found(&open(&handle, None), Some(index.path()), &word),
        local
    );
    let log = server.log();
    let ranged = log.iter().rposition(|l| l.range.is_some()).unwrap();
    assert!(
        log[ranged + 1..]
            .iter()
            .any(|l| l.range.is_none() && l.status == 200 && l.path == log[ranged].path),
        "the encoded range was set aside for the whole page: {:?}",
        &log[ranged..]
    );
}

#[test]
fn weak_etags_and_last_modified_alone_revalidate_a_cached_file() {
    for habits in [
        Habits {
            weak_etags: true,
            ..Habits::default()
        },
        Habits {
            no_etags: true,
            ..Habits::default()
        },
    ] {
        let server = TestServer::serve(generated());
        server.habits(habits.clone());
        let cache = tempfile::tempdir().unwrap();
        let handle = format!("remote:{}", server.url("alpha"));
        drop(open(&handle, Some(cache.path())));
        let again = open(&handle, Some(cache.path()));
        let corpus = server.requests_for("alpha/corpus.json");
        assert_eq!(
            corpus.iter().map(|l| l.status).collect::<Vec<_>>(),
            [200, 304],
            "{habits:?}"
        );
        if habits.weak_etags {
            assert!(corpus[1]
                .if_none_match
                .as_deref()
                .is_some_and(|t| t.starts_with("W/")));
        }
        assert_eq!(
            again.sites()[0].corpus(),
            open_local(&generated().join("alpha")).sites()[0].corpus()
        );
    }
}

#[test]
fn a_redirect_within_the_origin_is_followed_and_one_elsewhere_is_named() {
    let server = TestServer::serve(generated());
    let elsewhere = TestServer::serve(generated());
    server.fault_once(
        "alpha/corpus.json",
        Fault::Redirect(server.url("alpha/corpus.json")),
    );
    let handle = format!("remote:{}", server.url("alpha"));
    assert_eq!(open(&handle, None).sites()[0].id(), "alphalyzer");
    assert_eq!(
        server
            .requests_for("alpha/corpus.json")
            .iter()
            .map(|l| l.status)
            .collect::<Vec<_>>(),
        [301, 200]
    );

    server.fault_always(
        "alpha/corpus.json",
        Fault::Redirect(elsewhere.url("alpha/corpus.json")),
    );
    let err = open_error(&handle);
    assert!(
        err.contains(&format!("redirects to {}", elsewhere.url("alpha/corpus.json")))
            && err.contains("outside the archive's origin: if the archive moved there, pass that address as the source"),
        "{err}"
    );
    assert!(
        elsewhere.log().is_empty(),
        "nothing was asked of the other origin"
    );
    assert_eq!(
        server.requests_for("alpha/corpus.json").len(),
        3,
        "a refused redirect is not retried"
    );
}

#[test]
fn an_html_page_where_a_file_was_expected_is_named_with_its_title() {
    let server = TestServer::serve(generated());
    let handle = format!("remote:{}", server.url("alpha"));
    server.fault_always(
        "alpha/corpus.json",
        Fault::Html {
            status: 403,
            title: "403 Forbidden".into(),
        },
    );
    let err = open_error(&handle);
    assert!(
        err.contains("the host answered HTTP 403 with an HTML page (\"403 Forbidden\") where an archive file was expected; check that the URL is the archive's root"),
        "{err}"
    );
    server.clear_faults();
    server.fault_always(
        PAGE,
        Fault::Html {
            status: 200,
            title: "Welcome  to\nmy site".into(),
        },
    );
    let r = search(&open(&handle, None), None, &query("the")).unwrap();
    let unreadable = r.unreadable.join("\n");
    assert!(
        unreadable.contains("HTTP 200 with an HTML page (\"Welcome to my site\")"),
        "{unreadable}"
    );
    assert_eq!(
        server.requests_for(PAGE).len(),
        1,
        "an HTML page is not retried"
    );
}
