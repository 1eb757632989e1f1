//! Remote and hub readers against a real HTTP server on 127.0.0.1 serving
//! a generated archive, with injected faults.

use crate::common;

use std::time::Duration;

use archilyzer_core::archive::Site;
use archilyzer_core::format::paths::Layer;
use archilyzer_core::source::ReadError;
use archilyzer_testkit::{Fault, TestServer};
use common::{generated, open, open_local};

/// Every file of `a` equals the same file of `b`.
fn assert_same_site(a: &Site, b: &Site) {
    assert_eq!(a.corpus(), b.corpus());
    assert_eq!(a.summaries().unwrap(), b.summaries().unwrap());
    assert_eq!(a.aliases().unwrap(), b.aliases().unwrap());
    assert_eq!(a.tags().unwrap(), b.tags().unwrap());
    assert_eq!(a.duplicates().unwrap(), b.duplicates().unwrap());
    assert_eq!(a.reports().unwrap(), b.reports().unwrap());
    for r in a.reports().unwrap().iter().flat_map(|i| i.reports.clone()) {
        assert_eq!(a.report(&r.id).unwrap(), b.report(&r.id).unwrap());
    }
    for ch in &a.corpus().channels {
        assert_eq!(a.stats(&ch.slug).unwrap(), b.stats(&ch.slug).unwrap());
        assert_eq!(a.digests(&ch.slug).unwrap(), b.digests(&ch.slug).unwrap());
        for layer in [Layer::Transcripts, Layer::Chat, Layer::Posts] {
            let m = a.manifest(layer, &ch.slug).unwrap();
            assert_eq!(m, b.manifest(layer, &ch.slug).unwrap());
            for n in 1..=m.map(|m| m.pages.len() as u32).unwrap_or(0) {
                match layer {
                    Layer::Transcripts => assert_eq!(
                        a.transcript_page(&ch.slug, n).unwrap(),
                        b.transcript_page(&ch.slug, n).unwrap()
                    ),
                    Layer::Chat => assert_eq!(
                        a.chat_page(&ch.slug, n).unwrap(),
                        b.chat_page(&ch.slug, n).unwrap()
                    ),
                    Layer::Posts => assert_eq!(
                        a.post_page(&ch.slug, n).unwrap(),
                        b.post_page(&ch.slug, n).unwrap()
                    ),
                }
            }
        }
    }
}

#[test]
fn a_remote_site_reads_exactly_like_the_local_dir() {
    let server = TestServer::serve(generated());
    let remote = open(&format!("remote:{}", server.url("alpha")), None);
    let local = open_local(&generated().join("alpha"));
    assert_eq!(
        remote.handle().to_string(),
        format!("remote:{}", server.url("alpha"))
    );
    assert_same_site(&remote.sites()[0], &local.sites()[0]);
}

#[test]
fn a_hub_reads_every_member_and_a_subset_only_the_named_ones() {
    let server = TestServer::serve(generated());
    let hub = open(&format!("hub:{}", server.url("hub")), None);
    let ids: Vec<&str> = hub.sites().iter().map(|s| s.id()).collect();
    assert_eq!(ids, ["alphalyzer", "betalyzer"]);
    assert_eq!(hub.hub().unwrap().hub.id, "archilyzer-hub");
    assert_same_site(
        &hub.sites()[1],
        &open_local(&generated().join("beta")).sites()[0],
    );

    let subset = open(&format!("hub:{}#betalyzer", server.url("hub")), None);
    assert_eq!(subset.sites().len(), 1);
    assert_eq!(subset.sites()[0].id(), "betalyzer");
    assert!(
        server.requests_for("alpha/corpus.json").len() == 1,
        "the subset did not read alpha"
    );

    let handle =
        archilyzer_core::source::SourceHandle::parse(&format!("hub:{}#gamma", server.url("hub")))
            .unwrap();
    let err = archilyzer_core::archive::Archive::open(&handle, &common::options(None))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("has no member \"gamma\"; its members are: alphalyzer, betalyzer"),
        "{err}"
    );
}

#[test]
fn a_site_opened_as_a_hub_or_a_hub_as_a_site_says_which_handle_to_use() {
    let server = TestServer::serve(generated());
    let opts = common::options(None);
    let as_hub =
        archilyzer_core::source::SourceHandle::parse(&format!("hub:{}", server.url("alpha")))
            .unwrap();
    let err = archilyzer_core::archive::Archive::open(&as_hub, &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a site, not a hub: use remote:"), "{err}");
    let as_site =
        archilyzer_core::source::SourceHandle::parse(&format!("remote:{}", server.url("hub")))
            .unwrap();
    let err = archilyzer_core::archive::Archive::open(&as_site, &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a hub, not a site: use hub:"), "{err}");
}

const PAGE: &str = "alpha/transcripts/daily-dispatch/page-0002.json";

fn remote_alpha(server: &TestServer) -> archilyzer_core::archive::Archive {
    open(&format!("remote:{}", server.url("alpha")), None)
}

#[test]
fn a_500_then_success_is_retried_and_succeeds() {
    let server = TestServer::serve(generated());
    server.fault_once(PAGE, Fault::Status(500));
    let page = remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();
    assert_eq!(page.page, 2);
    let statuses: Vec<u16> = server.requests_for(PAGE).iter().map(|l| l.status).collect();
    assert_eq!(statuses, [500, 200]);
}

#[test]
fn a_429_is_retried_and_a_persistent_500_is_reported_with_the_attempts() {
    let server = TestServer::serve(generated());
    server.fault_once(PAGE, Fault::TooManyRequests { retry_after: 0 });
    remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();
    assert_eq!(server.requests_for(PAGE).len(), 2);

    server.fault_always(PAGE, Fault::Status(503));
    let err = remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::Http {
                status: 503,
                attempts: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("HTTP 503 after 3 attempt(s)"),
        "{err}"
    );
}

#[test]
fn a_404_other_than_for_optional_files_is_not_retried() {
    let server = TestServer::serve(generated());
    server.fault_always(PAGE, Fault::Status(404));
    let err = remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("page-0002.json is listed in its manifest but missing"),
        "{err}"
    );
    assert_eq!(server.requests_for(PAGE).len(), 1);
}

#[test]
fn a_slow_response_past_the_read_timeout_is_retried_then_reported() {
    let server = TestServer::serve(generated());
    server.fault_once(PAGE, Fault::Delay(Duration::from_millis(1500)));
    remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();
    assert_eq!(
        server.requests_for(PAGE).len(),
        2,
        "one slow attempt, one good one"
    );

    server.fault_always(PAGE, Fault::Delay(Duration::from_millis(1500)));
    let err = remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("timed out") && err.contains("after 3 attempt(s)"),
        "{err}"
    );
}

#[test]
fn a_truncated_body_is_retried_then_reported() {
    let server = TestServer::serve(generated());
    server.fault_once(PAGE, Fault::Truncate);
    remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();
    assert_eq!(server.requests_for(PAGE).len(), 2);

    server.fault_always("alpha/summaries/index.json", Fault::Truncate);
    let err = remote_alpha(&server).sites()[0]
        .summaries()
        .unwrap_err()
        .to_string();
    assert!(err.contains("cut short"), "{err}");
}

#[test]
fn a_page_whose_sha256_does_not_match_its_manifest_is_refused() {
    let server = TestServer::serve(generated());
    server.fault_always(PAGE, Fault::Corrupt);
    let err = remote_alpha(&server).sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap_err();
    assert!(matches!(err, ReadError::Integrity { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("page-0002.json: sha256") && text.contains("does not match the manifest's"),
        "{text}"
    );
}

#[test]
fn cached_files_are_revalidated_and_pages_come_from_the_disk_cache() {
    let server = TestServer::serve(generated());
    let cache = tempfile::tempdir().unwrap();
    let url = format!("remote:{}", server.url("alpha"));
    let first = open(&url, Some(cache.path()));
    first.sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();
    drop(first);
    let second = open(&url, Some(cache.path()));
    second.sites()[0]
        .transcript_page("daily-dispatch", 2)
        .unwrap();

    let corpus = server.requests_for("alpha/corpus.json");
    assert_eq!(corpus.len(), 2);
    assert!(corpus[0].if_none_match.is_none());
    assert!(
        corpus[1].if_none_match.is_some(),
        "the second open revalidates"
    );
    assert_eq!(corpus[1].status, 304);
    assert_eq!(
        server.requests_for(PAGE).len(),
        1,
        "the page is served from the disk cache by its sha256"
    );
    assert_same_site(
        &second.sites()[0],
        &open_local(&generated().join("alpha")).sites()[0],
    );
}

#[test]
fn a_site_read_over_http_without_a_declared_url_is_its_own_viewer() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("served");
    common::copy_dir(&generated().join("alpha"), &root.join("alpha"));
    let corpus = root.join("alpha/corpus.json");
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&corpus).unwrap()).unwrap();
    value["site"].as_object_mut().unwrap().remove("url");
    std::fs::write(&corpus, serde_json::to_vec(&value).unwrap()).unwrap();

    let server = TestServer::serve(&root);
    let remote = open(&format!("remote:{}", server.url("alpha")), None);
    assert_eq!(
        remote.sites()[0].viewer().as_deref(),
        Some(server.url("alpha").trim_end_matches('/')),
        "a deployed site links moments to itself, whatever the platform"
    );
    assert_eq!(
        open_local(&root.join("alpha")).sites()[0].viewer(),
        None,
        "a local folder that declares no url has no viewer"
    );
    let declared = open_local(&generated().join("alpha"));
    assert_eq!(
        declared.sites()[0].viewer(),
        declared.sites()[0]
            .corpus()
            .site
            .url
            .as_deref()
            .map(|u| u.trim_end_matches('/').to_string())
    );
}

#[test]
fn a_warm_page_table_asks_the_server_for_nothing() {
    let server = TestServer::serve(generated());
    let archive = remote_alpha(&server);
    let (first, problems) = archive.page_table();
    assert!(problems.is_empty(), "{problems:?}");
    let manifests = |log: &[archilyzer_testkit::Logged]| {
        log.iter()
            .filter(|l| l.path.ends_with("manifest.json"))
            .count()
    };
    let cold = server.log();
    let channels = archive.sites()[0].corpus().channels.len();
    assert!(
        manifests(&cold) >= channels,
        "every transcript manifest was fetched: {cold:?}"
    );
    let (second, _) = archive.page_table();
    assert_eq!(first.len(), second.len());
    let warm = server.log();
    assert_eq!(
        warm.len(),
        cold.len(),
        "a second page table sent requests: {:?}",
        &warm[cold.len()..]
    );
}

/// The error opening `handle`, as a user reads it.
fn open_error(handle: &str) -> String {
    let handle = archilyzer_core::source::SourceHandle::parse(handle).unwrap();
    archilyzer_core::archive::Archive::open(&handle, &common::options(None))
        .map(|_| ())
        .expect_err("no archive there")
        .to_string()
}

#[test]
fn a_refused_connection_is_retried_and_said_to_have_no_listener() {
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = open_error(&format!("remote:http://127.0.0.1:{port}"));
    assert!(err.contains("could not connect"), "{err}");
    assert!(
        err.ends_with("after 3 attempt(s); nothing listens at that address and port: check the URL, or start the server that publishes the archive"),
        "{err}"
    );
}

#[test]
fn a_host_name_that_does_not_resolve_is_not_retried_and_says_so() {
    // `.invalid` never resolves (RFC 2606).
    let err = open_error("remote:http://no-such-archive.invalid");
    assert!(
        err.ends_with("after 1 attempt(s); no such host: check the address for a typo, and this machine's network and DNS"),
        "{err}"
    );
}
