//! `open_link` through the tool layer: a link re-runs its search exactly,
//! `dry_run` plans without searching, overrides adjust it, the origin
//! resolves to a corpus (the default's own site, or a site probed over
//! HTTP), and a hostile link is refused naming the part that is wrong.

use crate::common;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::query::Request;
use archilyzer_core::share::eval::link_for;
use archilyzer_core::source::SourceHandle;
use archilyzer_testkit::TestServer;
use common::{context as ctx, run, slugs as ids, testdata};
use serde_json::json;

fn link(archive_dir: &std::path::Path, origin: &str, req: &Request) -> String {
    let archive =
        Archive::open(&SourceHandle::local(archive_dir), &OpenOptions::default()).unwrap();
    link_for(&archive, origin, req).unwrap().encode()
}

#[test]
fn a_link_opens_as_the_search_it_was_made_from() {
    let alpha = testdata("alpha");
    let c = ctx(SourceHandle::local(&alpha));
    let mut req = Request {
        query: "really".into(),
        use_aliases: true,
        ..Request::default()
    };
    req.exclude = vec!["torlyan".into()];
    req.filters.states = vec!["available".into(), "deleted".into()];
    let url = link(&alpha, "https://alphalyzer.example", &req);
    let search = run(
        &c,
        "search_transcripts",
        json!({"query": "really", "exclude": ["torlyan"], "states": ["available", "deleted"], "limit": 200, "order": "archive"}),
    );
    let opened = run(&c, "open_link", json!({"link": url, "limit": 200}));
    assert!(!opened.is_error, "{}", opened.text);
    assert_eq!(ids(&opened), ids(&search));
    assert_eq!(opened.structured["total"], search.structured["total"]);
    assert!(opened.text.starts_with(&format!("# Share link plan\n- corpus: local:{} (the default corpus, which was composed for this origin); pass source: \"local:{}\" in follow-up calls\n- search: \"really\" AND NOT \"torlyan\"\n- filters: availability available, deleted\n", alpha.display(), alpha.display())), "{}", opened.text);
    assert!(
        opened.text.contains("](https://alphalyzer.example/?v="),
        "results are linked"
    );
    assert!(opened
        .text
        .ends_with(&format!("(corpus: local:{})", alpha.display())));

    let dry = run(&c, "open_link", json!({"link": url, "dry_run": true}));
    assert!(
        dry.text.contains("(dry run: nothing was searched")
            && dry.structured.get("videos").is_none(),
        "{}",
        dry.text
    );

    let wider = run(
        &c,
        "open_link",
        json!({"link": url, "limit": 200, "overrides": {"clear_availability": true}}),
    );
    let all = run(
        &c,
        "search_transcripts",
        json!({"query": "really", "exclude": ["torlyan"], "limit": 200, "order": "archive"}),
    );
    assert_eq!(ids(&wider), ids(&all));
    assert!(
        wider
            .text
            .contains("- overrides applied: clear_availability: true"),
        "{}",
        wider.text
    );

    let posts = run(
        &c,
        "open_link",
        json!({"link": url, "overrides": {"query": "people", "query_scope": "posts", "clear_filters": true}}),
    );
    assert!(
        posts.text.contains("- search: posts:\"people\""),
        "{}",
        posts.text
    );
    assert!(
        posts.structured["total"].as_u64().unwrap() > 0,
        "{}",
        posts.text
    );
    assert!(
        posts.structured["videos"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["kind"] == "post"),
        "{}",
        posts.text
    );

    let bad = run(
        &c,
        "open_link",
        json!({"link": url, "overrides": {"clear_avail": true}}),
    );
    assert!(
        bad.is_error
            && bad.text.contains(
                "open_link has no argument `overrides.clear_avail`; it takes: overrides.channels, overrides.clear_age, overrides.clear_availability,"
            ),
        "{}",
        bad.text
    );
    let bad = run(
        &c,
        "open_link",
        json!({"link": url, "overrides": {"clear_typ": true}}),
    );
    assert!(
        bad.text
            .contains("`overrides.clear_typ` (did you mean `overrides.clear_type`?)"),
        "{}",
        bad.text
    );
    let bad = run(
        &c,
        "open_link",
        json!({"link": url, "overrides": {"clear_type": "yes"}}),
    );
    assert!(
        bad.is_error
            && bad
                .text
                .contains("open_link: `overrides.clear_type` must be true or false, got \"yes\""),
        "a nested value is checked as a top-level one is: {}",
        bad.text
    );
}

#[test]
fn a_link_naming_a_channel_not_in_the_corpus_is_refused_and_the_plan_names_the_ignored_fk() {
    let alpha = testdata("alpha");
    let c = ctx(SourceHandle::local(&alpha));
    let mut req = Request {
        query: "really".into(),
        ..Request::default()
    };
    req.filters.channels = vec!["daily-dispatch".into(), "no-such-channel".into()];
    let url = link(&alpha, "https://alphalyzer.example", &req);
    let out = run(&c, "open_link", json!({"link": url, "dry_run": true}));
    assert!(
        out.is_error
            && out.text.starts_with(&format!(
                "Error: the link's filters do not fit corpus local:{}: channel \"no-such-channel\" matches no channel of this archive",
                alpha.display()
            )),
        "{}",
        out.text
    );
    req.filters.channels = vec!["daily-dispatch".into()];
    let url = link(&alpha, "https://alphalyzer.example", &req) + "&fk=en";
    let out = run(&c, "open_link", json!({"link": url, "dry_run": true}));
    assert!(
        out.text
            .contains("- scope: channel The Daily Dispatch (1 channel)"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("- ignored: fk=en (a subtitle-track token"),
        "{}",
        out.text
    );
    for (bad, want) in [
        (
            "https://alphalyzer.example/?qt=!!!",
            "open_link: qt is not base64url",
        ),
        (
            "alphalyzer.example/?qt=x",
            "open_link: the link is not a URL",
        ),
        (
            "https://alphalyzer.example/?qt=eyJxIjoieCJ9&fdt=20241350",
            "open_link: fdt: \"20241350\" is not a date",
        ),
    ] {
        let out = run(&c, "open_link", json!({"link": bad}));
        assert!(
            out.is_error && out.text.contains(want),
            "{bad}: {}",
            out.text
        );
    }
}

#[test]
fn an_origin_that_is_not_the_default_is_probed_over_http() {
    let server = TestServer::serve(testdata(""));
    let beta_url = server.url("beta").trim_end_matches('/').to_string();
    let c = ctx(SourceHandle::local(&testdata("alpha")));
    let req = Request {
        query: "really".into(),
        ..Request::default()
    };
    let url = link(&testdata("beta"), &beta_url, &req);
    let out = run(&c, "open_link", json!({"link": url, "limit": 3}));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains(&format!(
            "- corpus: remote:{beta_url} (probed {beta_url}/corpus.json)"
        )),
        "{}",
        out.text
    );
    assert!(
        out.text.ends_with(&format!("(corpus: remote:{beta_url})")),
        "{}",
        out.text
    );
    let nowhere = link(&testdata("beta"), "http://127.0.0.1:9", &req);
    let out = run(&c, "open_link", json!({"link": nowhere}));
    assert!(
        out.is_error
            && out.text.contains(
                "the link's origin http://127.0.0.1:9 is not a corpus this server can read"
            ),
        "{}",
        out.text
    );
}

/// A copy of `testdata/archive/alpha` whose corpus.json declares no
/// public URL, as an imported archive has none.
fn alpha_without_url(into: &std::path::Path) -> std::path::PathBuf {
    let dir = into.join("my archive");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(testdata("alpha"))
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    let corpus = dir.join("corpus.json");
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&corpus).unwrap()).unwrap();
    value["site"].as_object_mut().unwrap().remove("url");
    std::fs::write(&corpus, serde_json::to_vec(&value).unwrap()).unwrap();
    dir
}

#[test]
fn a_link_from_a_local_archive_without_a_url_opens_on_the_machine_that_made_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = alpha_without_url(tmp.path());
    let origin = archilyzer_core::share::local_origin(&dir).unwrap();
    assert!(
        origin.starts_with("file:///") && origin.ends_with("my%20archive"),
        "{origin}"
    );
    let req = Request {
        query: "really".into(),
        use_aliases: true,
        ..Request::default()
    };
    let url = link(&dir, &origin, &req);
    // A server whose default corpus is another archive still opens it.
    let c = ctx(SourceHandle::local(&testdata("beta")));
    let opened = run(&c, "open_link", json!({"link": url, "limit": 200}));
    assert!(!opened.is_error, "{}", opened.text);
    let canonical = std::fs::canonicalize(&dir).unwrap();
    assert!(
        opened.text.contains(&format!(
            "- corpus: local:{} (the local archive at {} (a file:// link))",
            canonical.display(),
            canonical.display()
        )),
        "{}",
        opened.text
    );
    let direct = run(
        &ctx(SourceHandle::local(&dir)),
        "search_transcripts",
        json!({"query": "really", "limit": 200, "order": "archive"}),
    );
    assert_eq!(ids(&opened), ids(&direct));

    // Elsewhere (the folder gone), the link says where it opens.
    std::fs::remove_file(dir.join("corpus.json")).unwrap();
    let gone = run(&c, "open_link", json!({"link": url}));
    assert!(gone.is_error);
    assert!(
        gone.text.contains(&format!(
            "the link's origin is the folder {}, which holds no archive on this machine: a file:// link opens only where it was made",
            dir.display()
        )),
        "{}",
        gone.text
    );
}
