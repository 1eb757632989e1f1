//! `notes` against the fake umtool: list groups open notes by target,
//! read gives the digest and the file to edit, and reply sends nothing
//! and answers the command to run.

use crate::common;

use archilyzer_mcp::service::Service;
use archilyzer_mcp::tools::{Context, Output};
use common::alpha_context;
use common::fake_umtool::FakeUmtool;
use serde_json::{json, Value};

fn ctx(umtool: Result<Service, String>) -> Context {
    Context {
        umtool,
        ..alpha_context()
    }
}

fn run(ctx: &Context, args: Value) -> Output {
    common::run(ctx, "notes", args)
}

fn fake() -> FakeUmtool {
    let u = FakeUmtool::start();
    u.add_target("article/-k-cups", "The K-Cup affair", "articles/k-cups.md");
    u.add_target("video/recap-3", "Recap 3", "videos/recap-3/script.md");
    u.add_note("article/-k-cups", json!({"id": "n1", "anchor": "p3", "anchorText": "the second paragraph", "text": "Cite the 12:40 moment here", "author": "op", "createdAt": "2026-11-28", "status": "open", "replies": [{"author": "agent", "text": "done?", "createdAt": "2026-11-29"}]}));
    u.add_note("article/-k-cups", json!({"id": "n2", "anchor": "p9", "text": "old", "author": "op", "createdAt": "2026-11-01", "status": "resolved"}));
    u.add_note("video/recap-3", json!({"id": "n3", "anchor": "00:14", "anchorText": "intro", "text": "Trim this", "author": "op", "createdAt": "2026-11-30", "status": "open"}));
    u
}

#[test]
fn list_groups_open_notes_by_target_and_read_gives_the_digest() {
    let u = fake();
    let c = ctx(Service::new("umtool", "UMTOOL_URL", &u.url(), None));
    let out = run(&c, json!({}));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("2 open note(s) on 2 target(s)\n\n## The K-Cup affair (target: article/-k-cups)\n- note n1 at \"the second paragraph\": Cite the 12:40 moment here (op, 2026-11-28)\n\n## Recap 3 (target: video/recap-3)\n- note n3 at \"intro\": Trim this"), "{}", out.text);
    let out = run(&c, json!({"action": "read", "target": "article/-k-cups"}));
    assert!(out.text.starts_with("# The K-Cup affair\n- target: article/-k-cups · the source file to edit: articles/k-cups.md\n\n## note n1 (open) at \"the second paragraph\"\n> Cite the 12:40 moment here\n(op, 2026-11-28)\n- reply by agent (2026-11-29): done?\n"), "{}", out.text);
    assert_eq!(u.requests().last().unwrap().2, "target=article/-k-cups");
    let out = run(&c, json!({"action": "read", "target": "nope"}));
    assert!(
        out.is_error && out.text.contains("umtool has no target \"nope\""),
        "{}",
        out.text
    );
    let out = run(&c, json!({"action": "read"}));
    assert!(
        out.is_error && out.text.contains("notes: action read needs `target`"),
        "{}",
        out.text
    );
}

#[test]
fn reply_posts_nothing_and_answers_the_command_to_run() {
    let u = fake();
    let c = ctx(Service::new("umtool", "UMTOOL_URL", &u.url(), None));
    let out = run(
        &c,
        json!({"action": "reply", "target": "article/-k-cups", "note": "n1", "text": "Done: it's at 12:40"}),
    );
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains(
            "umtool notes reply --text 'Done: it'\\''s at 12:40' -- 'article/-k-cups' 'n1'"
        ),
        "{}",
        out.text
    );
    assert!(
        u.requests().iter().all(|r| r.0 == "GET"),
        "{:?}",
        u.requests()
    );
    let out = run(
        &c,
        json!({"action": "reply", "target": "article/-k-cups", "note": "n9", "text": "x"}),
    );
    assert!(
        out.is_error && out.text.contains("has no note \"n9\""),
        "{}",
        out.text
    );
}

#[test]
fn without_umtool_the_tool_says_which_variable_to_set() {
    let out = run(&ctx(archilyzer_mcp::context::umtool_from_env()), json!({}));
    assert!(
        out.is_error
            && out
                .text
                .contains("notes: no umtool is configured, so nothing was read: set UMTOOL_URL"),
        "{}",
        out.text
    );
    let dead = FakeUmtool::start();
    let url = dead.url();
    drop(dead);
    let out = run(
        &ctx(Service::new("umtool", "UMTOOL_URL", &url, None)),
        json!({}),
    );
    assert!(
        out.is_error
            && out
                .text
                .contains(&format!("Could not reach umtool at {url}")),
        "{}",
        out.text
    );
}
