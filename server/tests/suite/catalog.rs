//! The catalog tools on a cited-only site and on a hub: each says what
//! kind of corpus it is and where reports live.

use crate::common;

use archilyzer_core::source::SourceHandle;
use common::{context as ctx, run, testdata};
use serde_json::json;

#[test]
fn a_cited_only_site_says_so_everywhere_and_a_hub_sends_reports_to_a_member() {
    let cited = ctx(SourceHandle::local(&testdata("cited")));
    for (tool, want) in [
        ("list_sources", "cited-only site, 1 report(s)"),
        ("list_channels", "cited-only site: 1 report(s)"),
        ("resolve_source", "(cited-only site)"),
    ] {
        let args = if tool == "resolve_source" {
            json!({"source": "default"})
        } else {
            json!({})
        };
        let out = run(&cited, tool, args);
        assert!(
            !out.is_error && out.text.contains(want),
            "{tool}: {}",
            out.text
        );
    }
    let hub = ctx(SourceHandle::local(&testdata("hub")));
    let out = run(&hub, "list_reports", json!({}));
    assert!(
        out.is_error
            && out
                .text
                .contains("a hub publishes no reports of its own: pass one member as source"),
        "{}",
        out.text
    );
}
