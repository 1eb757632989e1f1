//! Kept pages: a server keeps transcript pages it read whole, bytes and
//! parsed view, within half its memory budget, so the next search of
//! those pages reads and parses nothing. (The budget is the archive's
//! own, in its open options; the command line leaves it unlimited and
//! so keeps nothing.)

use std::sync::Arc;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::memory::Budget;
use archilyzer_core::query::{search, Request};
use archilyzer_core::source::SourceHandle;
use archilyzer_testkit::TestServer;

use crate::common::{generated, options};

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
    let budget = Arc::new(Budget::new(64 << 20));
    assert_eq!(budget.keep_limit(), 32 << 20);

    let server = TestServer::serve(generated());
    let handle = SourceHandle::parse(&format!("remote:{}", server.url("alpha"))).unwrap();
    let options = OpenOptions {
        memory: budget.clone(),
        ..options(None)
    };
    let archive = Archive::open(&handle, &options).unwrap();
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
