//! The server with a cache directory it cannot write (a file stands where
//! the directory should be: as root, permission bits would not stop a
//! write, a file in the way does). It must answer from the remote site
//! anyway, say that no index was used, and still read what it is asked.
//! The cache folders are the sources' own (their open options and index
//! root), so the test sets nothing process-wide.

use archilyzer_core::archive::OpenOptions;
use archilyzer_core::source::SourceHandle;
use archilyzer_mcp::tools::Context;
use archilyzer_testkit::TestServer;
use serde_json::json;

use crate::common::{self, context, testdata};

#[test]
fn an_unwritable_cache_dir_means_answers_without_an_index_that_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("not-a-dir");
    std::fs::write(&blocker, b"a file where the cache dir should be").unwrap();
    let cache = blocker.join("cache");
    let server = TestServer::serve(testdata(""));
    let handle = SourceHandle::parse(&format!("remote:{}", server.url("alpha"))).unwrap();
    let options = OpenOptions {
        http_cache_dir: Some(cache.join("http")),
        ..OpenOptions::default()
    };
    let base = context(handle);
    let ctx = Context {
        sources: base.sources.with_caches(options, Some(cache.join("index"))),
        ..base
    };
    let run = |tool: &str, args: serde_json::Value| common::run(&ctx, tool, args);
    let out = run("search_transcripts", json!({"query": "really", "limit": 2}));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains("no index at") && out.text.contains("not-a-dir"),
        "the footer says no index was used: {}",
        out.text
    );
    let first = out.structured["videos"][0]["slug"]
        .as_str()
        .unwrap()
        .to_string();
    let out = run("get_transcript", json!({"video_id": first}));
    assert!(
        !out.is_error && out.text.contains("](https://alphalyzer.example/?v="),
        "{}",
        out.text
    );
    // The file in the way is the user's: never replaced or removed.
    assert_eq!(
        std::fs::read(&blocker).unwrap(),
        b"a file where the cache dir should be",
        "the file standing where the cache dir should be is untouched"
    );
}
