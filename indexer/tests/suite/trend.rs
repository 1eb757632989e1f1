//! `archilyzer-index trend`: its JSON counts each upload year as
//! `search --json` lists the matches (an independent binning of the
//! search's own rows), its bars and files are written, and bad input is a
//! usage error that says what to give.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn alpha() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha")
}

fn trend(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_archilyzer-index"));
    c.args(["trend", "--local"])
        .arg(alpha())
        .arg("--no-index")
        .args(args);
    c.env_remove("TRANSCRIPT_HUB_URL")
        .env_remove("TRANSCRIPT_SITE_URL");
    c.output().unwrap()
}

fn search_json(query: &str, more: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
        .args(["search", "--local"])
        .arg(alpha())
        .args(["--no-index", query, "--json"])
        .args(more)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn trend_json_counts_by_year_what_search_lists_mirrors_folded_or_kept() {
    for more in [&[][..], &["--keep-mirrors"][..]] {
        let o = trend(&[&["k cups", "husolvozel", "--json"][..], more].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let t: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(t["by"], "year");
        for query in ["k cups", "husolvozel"] {
            trend_counts_what_search_lists(&t, query, more);
        }
    }
}

fn trend_counts_what_search_lists(t: &Value, query: &str, more: &[&str]) {
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for v in search_json(query, more)["videos"].as_array().unwrap() {
        let year = v["upload_date"]
            .as_str()
            .map_or("undated".into(), |d| d[..4].to_string());
        let slot = want.entry(year).or_default();
        *slot = (
            slot.0 + 1,
            slot.1 + v["hits"].as_array().unwrap().len() as u64,
        );
    }
    let rows = t["periods"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&t["undated"]]);
    let got: BTreeMap<String, (u64, u64)> = rows
        .filter_map(|r| {
            let c = r["by_query"].get(query)?;
            Some((
                r["period"].as_str().unwrap().to_string(),
                (c["videos"].as_u64().unwrap(), c["hits"].as_u64().unwrap()),
            ))
        })
        .collect();
    assert_eq!(got, want, "{query} {more:?}");
}

#[test]
fn trend_draws_bars_and_writes_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("t.svg");
    let o = trend(&["k cups", "--by", "quarter", "--svg", svg.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("\n2025-Q4 ") && text.contains("█") && text.contains("/h"),
        "{text}"
    );
    assert!(text.contains("(no speech in scope)"), "{text}");
    let chart = std::fs::read_to_string(svg).unwrap();
    let signature = archilyzer_core::file_claim::FileKind::Svg.signature();
    assert!(
        chart.starts_with(&format!("{signature}\n<svg")) && chart.contains("<polyline"),
        "signed, so a later run may replace it: {chart}"
    );
}

#[test]
fn bad_trend_input_is_a_usage_error_saying_what_to_give() {
    let nine: Vec<String> = (0..9).map(|i| format!("w{i}")).collect();
    let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
    let cases: [(&[&str], &str); 3] = [
        (&nine, "9 queries given; a trend compares at most 8"),
        (
            &["a", "a"],
            "the query \"a\" is given twice: give each once",
        ),
        (
            &["a", "--by", "week"],
            "\"week\" is not a period: use year, quarter or month",
        ),
    ];
    for (args, want) in cases {
        let o = trend(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{err}");
    }
}
