//! Kept pages: a server keeps transcript pages it read whole, bytes and
//! parsed view, within half its memory budget, so the next search of
//! those pages reads and parses nothing. (This file is its own process: it sets the memory budget,
//! which the command line leaves unlimited and so keeps nothing.)

mod common;

use archilyzer_core::memory;
use archilyzer_core::query::{search, Request};
use archilyzer_testkit::TestServer;
use common::{generated, open};

/// Requests for transcript pages, whole (not ranges).
fn whole_page_reads(server: &TestServer) -> usize {
    server
        .log()
        .iter()
        .filter(|l| l.path.contains("/transcripts/") && l.path.contains("/page-"))
        .filter(|l| l.range.is_none())
        .count()
}

#[test]
fn a_page_read_whole_is_kept_within_half_the_budget_and_not_read_again() {
    memory::set_limit(64 << 20);
    let budget = memory::global();
    assert_eq!(budget.keep_limit(), 32 << 20);

    let server = TestServer::serve(generated());
    let archive = open(&format!("remote:{}", server.url("alpha")), None);
    // A word on every page, searched with no index: every page read whole.
    let request = Request {
        query: "the".into(),
        ..Request::default()
    };
    let first = search(&archive, None, &request).unwrap();
    let pages = whole_page_reads(&server);
    assert!(pages >= 10, "the search read {pages} pages");
    assert!(
        budget.held() <= budget.keep_limit(),
        "kept pages hold {} bytes of the budget, over its keep limit",
        budget.held()
    );

    let again = search(&archive, None, &request).unwrap();
    assert_eq!(
        (again.total_videos, again.total_hits),
        (first.total_videos, first.total_hits)
    );
    // The whole archive is well within the keep limit: nothing is read again.
    assert_eq!(whole_page_reads(&server) - pages, 0, "pages read again");
}
