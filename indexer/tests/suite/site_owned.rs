//! Invariant 9: aliases and curated tags belong to the site that publishes
//! them. A hub answers for each member exactly what that member answers
//! alone, even when the members publish different aliases and give one
//! tag id different labels.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use archilyzer_core::query::{search, FilterArgs, Request};
use common::{copy_dir, open_local};

fn testdata() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/archive"))
}

/// `(channel, slug, hits)` of every match, for the members named.
fn answer(dir: &Path, request: &Request) -> BTreeSet<(String, String, usize)> {
    search(&open_local(dir), None, request)
        .unwrap()
        .videos
        .into_iter()
        .filter(|v| v.site == "betalyzer")
        .map(|v| (v.channel, v.slug, v.hits.len()))
        .collect()
}

#[test]
fn aliases_and_tags_belong_to_the_site_that_publishes_them() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(testdata(), tmp.path());
    // Beta gives the tag id "tech" a label of its own.
    let tags = tmp.path().join("beta/tags.json");
    let text = std::fs::read_to_string(&tags).unwrap();
    std::fs::write(&tags, text.replace("\"Technology\"", "\"Engineering\"")).unwrap();

    let alias = Request {
        query: "k cups".into(),
        use_aliases: true,
        ..Request::default()
    };
    let through_hub = answer(&tmp.path().join("hub"), &alias);
    let alone = answer(&tmp.path().join("beta"), &alias);
    assert!(!alone.is_empty(), "beta says k cups itself");
    assert_eq!(
        through_hub, alone,
        "alpha's K-Cups alias never fires on beta's pages"
    );
    let hub = search(&open_local(&tmp.path().join("hub")), None, &alias).unwrap();
    assert!(
        hub.notes.iter().any(
            |n| n == "expanded via alias K-Cups → `(k|cake)[ -]?cups?` (aliases of alphalyzer)"
        ),
        "{:?}",
        hub.notes
    );

    let by_tag = |label: &str| Request {
        query: "the".into(),
        filters: FilterArgs {
            tags: vec![label.into()],
            ..FilterArgs::default()
        },
        ..Request::default()
    };
    let hub = tmp.path().join("hub");
    assert!(
        answer(&hub, &by_tag("Technology")).is_empty(),
        "beta has no tag labelled Technology"
    );
    assert_eq!(
        answer(&hub, &by_tag("Engineering")),
        answer(&tmp.path().join("beta"), &by_tag("tech")),
        "beta's own label finds beta's tech videos"
    );
    assert!(!answer(&hub, &by_tag("Engineering")).is_empty());
}
