//! The catalog tools on a cited-only site and on a hub: each says what
//! kind of corpus it is and where reports live.

use std::path::PathBuf;

use archilyzer_core::source::SourceHandle;
use archilyzer_mcp::editor::EditorSetup;
use archilyzer_mcp::sources::Sources;
use archilyzer_mcp::tools::{call, Context, Output};
use serde_json::{json, Value};

fn ctx(default: SourceHandle) -> Context {
    Context {
        sources: Sources::new(default, None),
        editor: EditorSetup::Missing,
        umtool: Err("no umtool".into()),
        binaries: Default::default(),
    }
}

fn run(ctx: &Context, tool: &str, args: Value) -> Output {
    call(ctx, tool, args.as_object().unwrap(), &mut |_| {})
}

fn testdata(name: &str) -> PathBuf {
    std::fs::canonicalize(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata/archive")
            .join(name),
    )
    .unwrap()
}

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
