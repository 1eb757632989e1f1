//! Share links against the engine: a link made from a search, encoded and
//! decoded, runs as the very same search; a general tree combines the
//! video sets of its terms as AND / OR / NOT say.

use crate::common;

use std::collections::BTreeSet;

use archilyzer_core::query::{search, FilterArgs, Request, Response};
use archilyzer_core::share::eval::{self, Caps};
use archilyzer_core::share::{Node, ShareLink, Term};
use common::{generated, open_local};

fn ids(r: &Response) -> Vec<(String, String)> {
    r.videos
        .iter()
        .map(|v| (v.channel.clone(), v.slug.clone()))
        .collect()
}

fn set(r: &Response) -> BTreeSet<(String, String)> {
    ids(r).into_iter().collect()
}

fn req(query: &str) -> Request {
    Request {
        query: query.into(),
        use_aliases: true,
        ..Request::default()
    }
}

#[test]
fn a_link_made_from_a_search_opens_as_the_same_search() {
    let dir = generated().join("alpha");
    let archive = open_local(&dir);
    let group = archive.sites()[0].corpus().groups[0].id.clone();
    let mut cases = vec![req("the"), req("k cups")];
    let mut r = req("really");
    r.exclude = vec!["really going".into(), "torlyan".into()];
    r.filters.states = vec!["deleted".into(), "private".into()];
    cases.push(r);
    let mut r = req("real(ly)? go");
    r.regex = true;
    r.scopes = vec!["transcripts".into(), "description".into(), "chat".into()];
    r.filters = FilterArgs {
        groups: vec![group],
        media_type: Some("livestream".into()),
        date_from: Some("20200101".into()),
        ..FilterArgs::default()
    };
    cases.push(r);
    let mut r = req("k cups");
    r.use_aliases = false;
    r.filters.age = Some("all_ages".into());
    cases.push(r);
    for request in cases {
        let direct = search(&archive, None, &request).unwrap();
        let link = eval::link_for(&archive, "https://alphalyzer.example/", &request).unwrap();
        let opened = ShareLink::decode(&link.encode()).unwrap();
        assert_eq!(opened, link);
        let again = eval::run(&archive, None, &opened, Caps::default(), &mut |_, _| {}).unwrap();
        assert!(
            !direct.videos.is_empty(),
            "every case finds something, so equal means something: {request:?}"
        );
        assert_eq!(ids(&again), ids(&direct), "{request:?}");
        assert_eq!(again.total_hits, direct.total_hits, "{request:?}");
    }
    let mut tagged = req("x");
    tagged.filters.tags = vec!["economy".into()];
    let err = eval::link_for(&archive, "https://a.example", &tagged)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "a share link cannot carry tags (the format has no field for it): drop the tag filter, or name the channels instead"
    );
    let mut long = req("x");
    long.filters.min_duration = Some("600".into());
    let err = eval::link_for(&archive, "https://a.example", &long)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "a share link cannot carry min_duration (the format has no field for it): drop it, or share the search without a length bound"
    );
}

#[test]
fn a_general_tree_combines_the_sets_of_its_terms() {
    let archive = open_local(&generated().join("alpha"));
    let term = |q: &str, scopes: &[&str]| {
        Node::Term(Term {
            query: q.into(),
            aliases: false,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            ..Term::default()
        })
    };
    let one = |q: &str, scopes: &[&str]| {
        let mut r = req(q);
        r.use_aliases = false;
        r.scopes = scopes.iter().map(|s| s.to_string()).collect();
        set(&search(&archive, None, &r).unwrap())
    };
    let run = |tree: Node| {
        let link = ShareLink {
            origin: "https://a.example".into(),
            tree,
            filters: FilterArgs::default(),
            ignored: vec![],
        };
        eval::run(&archive, None, &link, Caps::default(), &mut |_, _| {})
    };
    let (a, b, c) = (
        one("really", &[]),
        one("people", &["chat"]),
        one("like", &["description"]),
    );
    assert!(!a.is_empty() && !b.is_empty() && !c.is_empty());
    let or = run(Node::Or(vec![
        term("really", &[]),
        term("people", &["chat"]),
    ]))
    .unwrap();
    assert_eq!(set(&or), a.union(&b).cloned().collect());
    let and = run(Node::And(vec![
        term("really", &[]),
        term("like", &["description"]),
    ]))
    .unwrap();
    assert_eq!(set(&and), a.intersection(&c).cloned().collect());
    assert!(
        !set(&and).is_empty(),
        "an intersection that holds something"
    );
    let not = run(Node::And(vec![
        term("really", &[]),
        Node::Not(Box::new(term("like", &["description"]))),
    ]))
    .unwrap();
    assert_eq!(set(&not), a.difference(&c).cloned().collect());
    assert!(
        !set(&not).is_empty() && set(&not).len() < a.len(),
        "a difference that removes some and keeps some"
    );
    assert_eq!(not.total_videos, not.videos.len());
    let err = run(Node::Not(Box::new(term("really", &[])))).unwrap_err();
    assert!(
        err.starts_with("qt: a NOT alone would list every video"),
        "{err}"
    );
    let err = run(Node::Or(vec![
        term("a", &[]),
        Node::Not(Box::new(term("b", &[]))),
    ]))
    .unwrap_err();
    assert!(err.starts_with("qt: a NOT under an OR"), "{err}");
}
