//! `mention_trend` against the tools it must agree with: its counts are
//! enumerate_matches' counts, binned by the dates the worklist gives; its
//! hours are the summaries' lengths; its answer fits the budget.

use crate::common;

use std::collections::BTreeMap;

use common::{alpha_context, run, testdata};
use serde_json::{json, Value};

/// Every row of a query's worklist (following next_cursor): `(date, matches)`.
fn worklist(args: &Value) -> (Value, Vec<(Option<String>, u64)>) {
    let ctx = alpha_context();
    let mut rows = Vec::new();
    let mut args = args.clone();
    loop {
        let out = run(&ctx, "enumerate_matches", args.clone());
        assert!(!out.is_error, "{}", out.text);
        for v in out.structured["videos"].as_array().unwrap() {
            let date = v["date"].as_str().map(str::to_string);
            rows.push((date, v["matches"].as_u64().unwrap()));
        }
        match out.structured["next_cursor"].as_str() {
            Some(c) => args["cursor"] = json!(c),
            None => return (out.structured, rows),
        }
    }
}

fn trend(args: Value) -> Value {
    let out = run(&alpha_context(), "mention_trend", args);
    assert!(!out.is_error, "{}", out.text);
    out.structured
}

/// `(videos, hits)` by period label, from a trend's rows.
fn by_period(t: &Value, query: &str) -> BTreeMap<String, (u64, u64)> {
    let rows = t["periods"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&t["undated"]]);
    rows.map(|r| {
        let c = &r["by_query"][query];
        let n = |k: &str| c[k].as_u64().unwrap_or(0);
        (
            r["period"].as_str().unwrap().to_string(),
            (n("videos"), n("hits")),
        )
    })
    .filter(|(_, counts)| *counts != (0, 0))
    .collect()
}

#[test]
fn a_trend_counts_what_enumerate_matches_lists_period_by_period() {
    for (query, by) in [("the", "year"), ("the", "quarter"), ("husolvozel", "month")] {
        let args = json!({"query": query, "date_from": "2016-03-01", "max_chars": 2000});
        let (head, rows) = worklist(&args);
        let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for (date, matches) in rows {
            let label = match date.map(|d| d.replace('-', "")) {
                None => "undated".to_string(),
                Some(d) => {
                    let month: u32 = d[4..6].parse().unwrap();
                    match by {
                        "year" => d[..4].to_string(),
                        "quarter" => format!("{}-Q{}", &d[..4], (month - 1) / 3 + 1),
                        _ => format!("{}-{:02}", &d[..4], month),
                    }
                }
            };
            let slot = want.entry(label).or_default();
            *slot = (slot.0 + 1, slot.1 + matches);
        }
        let mut t_args = args.clone();
        t_args["by"] = json!(by);
        t_args["max_chars"] = json!(150000);
        let t = trend(t_args);
        assert_eq!(by_period(&t, query), want, "{query} by {by}");
        let totals = &t["totals"][0];
        assert_eq!(
            (&totals["videos"], &totals["hits"]),
            (&head["total"], &head["total_hits"])
        );
    }
}

#[test]
fn periods_run_without_gaps_and_hours_are_the_summaries_lengths_in_scope() {
    let t = trend(json!({"query": "husolvozel", "by": "month", "channels": ["daily-dispatch"]}));
    let labels: Vec<&str> = t["periods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["period"].as_str().unwrap())
        .collect();
    for pair in labels.windows(2) {
        let (y0, m0): (u32, u32) = (pair[0][..4].parse().unwrap(), pair[0][5..].parse().unwrap());
        let (y1, m1): (u32, u32) = (pair[1][..4].parse().unwrap(), pair[1][5..].parse().unwrap());
        assert_eq!(y1 * 12 + m1, y0 * 12 + m0 + 1, "{labels:?}");
    }
    let summaries: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("alpha").join("summaries/index.json")).unwrap(),
    )
    .unwrap();
    let mut want: BTreeMap<String, f64> = BTreeMap::new();
    for v in summaries["videos"].as_array().unwrap() {
        if v["channel"] == "daily-dispatch" {
            let d = v["uploadDate"].as_str().unwrap();
            *want.entry(format!("{}-{}", &d[..4], &d[4..6])).or_default() +=
                v["duration"].as_f64().unwrap() / 3600.0;
        }
    }
    for r in t["periods"].as_array().unwrap() {
        let got = r["hours"].as_f64().unwrap();
        let expected = want
            .get(r["period"].as_str().unwrap())
            .copied()
            .unwrap_or(0.0);
        assert!(
            (got - expected).abs() <= 0.005,
            "{}: {got} vs {expected}",
            r["period"]
        );
        // One query: its cell is the period's; per hour counts speech
        // against speech, title hits apart.
        let cell = r["by_query"].as_object().unwrap().values().next();
        if let Some(cell) = cell {
            match cell["per_hour"].as_f64() {
                Some(rate) => assert!(
                    (rate - cell["spoken_hits"].as_f64().unwrap() / expected).abs() <= 0.0005
                ),
                None => assert_eq!(got, 0.0),
            }
        }
    }
}

#[test]
fn several_queries_each_count_as_they_would_alone() {
    let both = trend(json!({"queries": ["the", "husolvozel"], "by": "year", "max_chars": 150000}));
    for q in ["the", "husolvozel"] {
        let alone = trend(json!({"query": q, "by": "year", "max_chars": 150000}));
        assert_eq!(by_period(&both, q), by_period(&alone, q), "{q}");
    }
    let top = &both["periods"][0]["by_query"]["the"]["top"];
    assert!(top["link"].as_str().unwrap().contains("t="), "{top}");
}

#[test]
fn a_trend_fits_its_budget_counts_first_and_says_what_it_left_out() {
    let ctx = alpha_context();
    let out = run(
        &ctx,
        "mention_trend",
        json!({"query": "the", "by": "month", "max_chars": 12000}),
    );
    let size = out.text.len() + serde_json::to_string(&out.structured).unwrap().len();
    if out.is_error {
        assert!(
            out.text.contains(
                "do not fit the size budget even without the top moments: ask by a longer period"
            ),
            "{}",
            out.text
        );
    } else {
        assert!(size <= 12000 + 600, "{size}");
        assert_eq!(out.structured["tops_included"], false);
        assert!(
            out.text
                .contains("top moments left out for the size budget"),
            "{}",
            out.text
        );
    }
    let out = run(&ctx, "mention_trend", json!({"query": "the", "by": "year"}));
    assert!(
        !out.is_error && out.structured["tops_included"] == true,
        "{}",
        out.text
    );
    assert!(out.text.starts_with("140 video(s)"), "{}", out.text);
}

#[test]
fn a_trend_refuses_what_it_cannot_answer_saying_what_to_give() {
    let ctx = alpha_context();
    let cases = [
        (
            json!({}),
            "give a query (one phrase) or several to compare (up to 8)",
        ),
        (
            json!({"queries": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}),
            "mention_trend: `queries` holds 9 items; the bound is 8: split the call",
        ),
        (
            json!({"queries": ["a", "a"]}),
            "the query \"a\" is given twice: give each once",
        ),
    ];
    for (args, want) in cases {
        let out = run(&ctx, "mention_trend", args);
        assert!(out.is_error && out.text.contains(want), "{}", out.text);
    }
    let out = run(&ctx, "mention_trend", json!({"query": "the", "by": "week"}));
    assert!(out.is_error && out.text.contains("by"), "{}", out.text);
}
