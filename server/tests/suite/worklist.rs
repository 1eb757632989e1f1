//! `enumerate_matches` followed cursor by cursor at the smallest budget:
//! the whole answer a client gets (text, structured content and the
//! corpus trailer) fits `max_chars`, and the pages after the first are
//! filled with rows.

use crate::common;

use common::{alpha_context, run};
use serde_json::{json, Value};

/// What a client counts: the text's characters and the compact JSON's.
fn whole(out: &archilyzer_mcp::tools::Output) -> usize {
    out.text.chars().count()
        + serde_json::to_string(&out.structured)
            .unwrap()
            .chars()
            .count()
}

/// Every page of the worklist of `args`, in order.
fn pages(args: Value) -> Vec<archilyzer_mcp::tools::Output> {
    let ctx = alpha_context();
    let mut args = args;
    let mut out = Vec::new();
    loop {
        let page = run(&ctx, "enumerate_matches", args.clone());
        assert!(!page.is_error, "{}", page.text);
        let next = page.structured["next_cursor"].as_str().map(str::to_string);
        out.push(page);
        match next {
            Some(c) => args["cursor"] = json!(c),
            None => return out,
        }
    }
}

fn rows(page: &archilyzer_mcp::tools::Output) -> &Vec<Value> {
    page.structured["videos"].as_array().unwrap()
}

#[test]
fn a_worklist_page_fits_max_chars_with_its_corpus_trailer() {
    let pages = pages(json!({"query": "the", "max_chars": 2000}));
    assert!(pages.len() > 3, "the test needs a long worklist");
    for (i, page) in pages.iter().enumerate() {
        assert!(
            whole(page) <= 2000,
            "page {} is {} characters:\n{}",
            i + 1,
            whole(page),
            page.text
        );
    }
    let listed: usize = pages.iter().map(|p| rows(p).len()).sum();
    assert_eq!(
        listed,
        pages[0].structured["total"].as_u64().unwrap() as usize
    );
}

/// The rows' lines of a page's text.
fn row_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
        })
        .collect()
}

#[test]
fn continuation_pages_at_the_smallest_budget_list_ten_rows_or_more() {
    // One channel, no mirrors: rows as a podcast's archive has them.
    let pages = pages(json!({"query": "the", "channels": ["late-night-live"], "max_chars": 2000}));
    assert!(pages.len() > 2, "the test needs a long worklist");
    let middle = &pages[1..pages.len() - 1];
    for page in middle {
        assert!(
            rows(page).len() >= 10,
            "{} rows:\n{}",
            rows(page).len(),
            page.text
        );
    }
}

#[test]
fn rows_of_one_channel_name_it_once_for_the_page() {
    let one = pages(json!({"query": "the", "channels": ["late-night-live"], "max_chars": 2000}));
    for page in &one {
        assert_eq!(page.structured["channel"], "late-night-live");
        assert!(rows(page).iter().all(|r| r.get("channel").is_none()));
        assert!(
            page.text.contains("; all in channel late-night-live\n"),
            "{}",
            page.text
        );
        assert!(!page.text.contains(" · late-night-live ·"), "{}", page.text);
    }
    let many = pages(json!({"query": "the", "max_chars": 2000}));
    assert!(many[0].structured.get("channel").is_none());
    assert!(rows(&many[0]).iter().all(|r| r["channel"].is_string()));
}

#[test]
fn titles_are_shortened_only_at_small_budgets() {
    let small = &pages(json!({"query": "the", "max_chars": 2000}))[1];
    let line = row_lines(&small.text)[0];
    let title = line.split(" · ").nth(1).unwrap();
    assert!(title.chars().count() <= 37, "{line}");
    let large = run(
        &alpha_context(),
        "enumerate_matches",
        json!({"query": "the", "max_chars": 150000}),
    );
    let longest = row_lines(&large.text)
        .into_iter()
        .map(|l| l.split(" · ").nth(1).unwrap().chars().count())
        .max()
        .unwrap();
    assert!(
        longest > 37,
        "at the largest budget titles are whole up to 120 characters"
    );
}
