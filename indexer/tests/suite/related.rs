//! Significant terms and related videos against a count made by reading
//! every page: the words of every video tokenised here from its fields,
//! JLH and more_like_this computed from those sets. The answer must be
//! the same with the index fresh, stale, absent, and under a filter that
//! cuts pages in two (so both the census path and the text path run).

use crate::common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use archilyzer_core::archive::Archive;
use archilyzer_core::format::paths::Layer;
use archilyzer_core::query::filters::VideoFacts;
use archilyzer_core::query::{search, FilterArgs, Filters, Request};
use archilyzer_core::related::{
    related_videos, significant_terms, AlikeOptions, Counting, SignificantOptions,
};
use archilyzer_core::text::tokens;

/// (channel, slug) → the words the video says in captions or title, with
/// how often, for every video `filters` admits.
fn every_video(
    archive: &Archive,
    filters: &Filters,
) -> HashMap<(String, String), HashMap<String, u32>> {
    let (pages, _) = archive.page_table();
    let mut out = HashMap::new();
    for p in pages.iter().filter(|p| p.layer == Layer::Transcripts) {
        let site = &archive.sites()[p.site];
        for v in &site.transcript_page(&p.channel, p.page).unwrap().videos {
            if !filters.passes(&VideoFacts::of_video(p.site, &p.channel, v)) {
                continue;
            }
            let mut words: HashMap<String, u32> = HashMap::new();
            let texts =
                std::iter::once(v.title.as_str()).chain(v.cues.iter().map(|c| c.text.as_str()));
            for t in texts.flat_map(tokens) {
                *words.entry(t).or_default() += 1;
            }
            out.insert((p.channel.clone(), v.slug.clone()), words);
        }
    }
    out
}

/// JLH over the sets, as the module doc defines it: (word, fg, bg), best
/// first, the query's words and those under `min` left out.
fn jlh(archive: &Archive, request: &Request, min: u64) -> Vec<(String, u64, u64)> {
    let filters = Filters::resolve(&request.filters, archive).unwrap();
    let all = every_video(archive, &filters);
    let matched: BTreeSet<(String, String)> = search(archive, None, request)
        .unwrap()
        .videos
        .iter()
        .map(|v| (v.channel.clone(), v.slug.clone()))
        .collect();
    let own: HashSet<String> = tokens(&request.query).into_iter().collect();
    let (mut fg, mut bg) = (HashMap::<&str, u64>::new(), HashMap::<&str, u64>::new());
    for (key, words) in &all {
        for w in words.keys() {
            *bg.entry(w).or_default() += 1;
            if matched.contains(key) {
                *fg.entry(w).or_default() += 1;
            }
        }
    }
    let (f, b) = (matched.len() as f64, all.len() as f64);
    let mut out: Vec<(String, u64, u64, f64)> = fg
        .iter()
        .filter(|(w, &n)| n >= min && !own.contains(**w))
        .filter_map(|(w, &n)| {
            let (fs, bs) = (n as f64 / f, bg[w] as f64 / b);
            (fs > bs).then(|| (w.to_string(), n, bg[w], (fs - bs) * fs / bs))
        })
        .collect();
    out.sort_by(|a, b| b.3.total_cmp(&a.3).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(w, f, b, _)| (w, f, b)).collect()
}

/// more_like_this over the sets: the top `limit` (slug, shared words).
fn mlt(archive: &Archive, channel: &str, slug: &str, limit: usize) -> Vec<(String, Vec<String>)> {
    let all = every_video(archive, &Filters::default());
    let n = all.len() as f64;
    let df = |w: &str| all.values().filter(|v| v.contains_key(w)).count() as f64;
    let idf = |d: f64| (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
    let me = &all[&(channel.to_string(), slug.to_string())];
    let mut terms: Vec<(String, f64, f64)> = me
        .iter()
        .filter(|(_, &tf)| tf >= 2)
        .map(|(w, &tf)| (w.clone(), df(w), tf))
        .filter(|(_, d, _)| *d >= 5.0)
        .map(|(w, d, tf)| (w, idf(d), f64::from(tf) * idf(d)))
        .collect();
    terms.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    terms.truncate(25);
    let mut scored: Vec<(f64, String, String, Vec<String>)> = all
        .iter()
        .filter(|(k, _)| k.1 != slug)
        .filter_map(|((c, s), words)| {
            let shared: Vec<&(String, f64, f64)> =
                terms.iter().filter(|t| words.contains_key(&t.0)).collect();
            let score: f64 = shared.iter().map(|t| t.1).sum();
            (!shared.is_empty()).then(|| {
                (
                    score,
                    c.clone(),
                    s.clone(),
                    shared.iter().map(|t| t.0.clone()).collect(),
                )
            })
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then((&a.1, &a.2).cmp(&(&b.1, &b.2))));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, s, w)| (s, w))
        .collect()
}

/// A copy of the test archive, indexed, and the same copy with one page
/// rewritten after the build (so the index vouches for the rest only).
fn archives(tmp: &Path) -> (Archive, std::path::PathBuf, Archive, std::path::PathBuf) {
    let fresh = tmp.join("fresh");
    common::copy_dir(&common::testdata_archive().join("alpha"), &fresh);
    let fresh_index = tmp.join("fresh-index");
    let a = common::open_local(&fresh);
    archilyzer_core::index::build(&a, &fresh_index, &|_| {}).unwrap();
    let stale = tmp.join("stale");
    common::copy_dir(&fresh, &stale);
    let stale_index = tmp.join("stale-index");
    archilyzer_core::index::build(&common::open_local(&stale), &stale_index, &|_| {}).unwrap();
    // Rewriting a page with a later mtime: the index no longer vouches
    // for it, so it must be read.
    let page = common::transcript_pages(&stale).into_iter().next().unwrap();
    let bytes = std::fs::read(&page).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&page, bytes).unwrap();
    (a, fresh_index, common::open_local(&stale), stale_index)
}

/// A date that cuts the test archive's pages in two: the median upload.
fn median_date(archive: &Archive) -> String {
    let mut dates: Vec<String> = archive.sites()[0]
        .summaries()
        .unwrap()
        .unwrap()
        .videos
        .iter()
        .filter_map(|r| r.upload_date.clone())
        .collect();
    dates.sort();
    dates[dates.len() / 2].clone()
}

#[test]
fn significant_terms_are_jlh_over_every_video_s_words_with_the_index_fresh_stale_or_absent() {
    let tmp = tempfile::tempdir().unwrap();
    let (fresh, fresh_index, stale, stale_index) = archives(tmp.path());
    let date = median_date(&fresh);
    for (query, filters) in [
        ("k cups", FilterArgs::default()),
        (
            "k cups",
            FilterArgs {
                date_from: Some(date.clone()),
                ..FilterArgs::default()
            },
        ),
        (
            "really",
            FilterArgs {
                channels: vec!["daily-dispatch".into(), "late-night-live".into()],
                ..FilterArgs::default()
            },
        ),
    ] {
        let request = Request {
            query: query.into(),
            filters,
            ..Request::default()
        };
        let expected = jlh(&fresh, &request, 3);
        assert!(
            expected.len() > 10,
            "{query}: a real test needs terms, got {}",
            expected.len()
        );
        let ways = [
            Counting::Cheaper,
            Counting::Lists,
            Counting::Text,
            Counting::Postings,
        ];
        for ((archive, dir), counting) in [
            (&fresh, Some(&fresh_index)),
            (&fresh, None),
            (&stale, Some(&stale_index)),
        ]
        .into_iter()
        .flat_map(|at| ways.map(|way| (at, way)))
        {
            let opts = SignificantOptions {
                min_videos: 3,
                limit: 1000,
                counting,
            };
            let got = significant_terms(archive, dir.map(|d| d.as_path()), &request, opts).unwrap();
            let got: Vec<(String, u64, u64)> = got
                .terms
                .iter()
                .map(|t| (t.word.clone(), t.fg, t.bg))
                .collect();
            assert_eq!(
                got,
                expected[..expected.len().min(1000)],
                "{query}, index {dir:?}, counted {counting:?}"
            );
        }
        // A fresh index lists every matched video's words: counting them
        // reads no page that confirming the matches did not.
        let read = |counting| {
            let opts = SignificantOptions {
                min_videos: 3,
                limit: 1000,
                counting,
            };
            significant_terms(&fresh, Some(&fresh_index), &request, opts)
                .unwrap()
                .pages_read
        };
        assert!(
            read(Counting::Lists) < read(Counting::Text),
            "{query}: the word lists were not used"
        );
    }
}

#[test]
fn related_videos_are_more_like_this_over_every_video_s_words_with_the_index_fresh_stale_or_absent()
{
    let tmp = tempfile::tempdir().unwrap();
    let (fresh, fresh_index, stale, stale_index) = archives(tmp.path());
    let rows = &fresh.sites()[0].summaries().unwrap().unwrap().videos;
    for row in rows.iter().step_by(37) {
        let expected = mlt(&fresh, &row.channel, &row.slug, 10);
        assert!(!expected.is_empty(), "{}: no related video", row.slug);
        for (archive, dir) in [
            (&fresh, Some(&fresh_index)),
            (&fresh, None),
            (&stale, Some(&stale_index)),
        ] {
            let got = related_videos(
                archive,
                dir.map(|d| d.as_path()),
                &row.slug,
                std::slice::from_ref(&row.channel),
                &[],
                &FilterArgs::default(),
                AlikeOptions::default(),
            )
            .unwrap();
            let got: Vec<(String, Vec<String>)> = got
                .videos
                .iter()
                .map(|v| (v.slug.clone(), v.shared.clone()))
                .collect();
            assert_eq!(got, expected, "{}, index {dir:?}", row.slug);
        }
    }
}

fn related(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
        .arg("related")
        .arg("--local")
        .arg(common::testdata_archive().join("alpha"))
        .arg("--no-index")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_command_line_gives_the_documented_json_and_refuses_what_cannot_be_answered() {
    let o = related(&["k cups", "--json", "--limit", "3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["query"], "k cups");
    assert!(
        v["foreground"].as_u64().unwrap() > 0
            && v["background"].as_u64().unwrap() >= v["foreground"].as_u64().unwrap()
    );
    let terms = v["terms"].as_array().unwrap();
    assert_eq!(terms.len(), 3);
    for t in terms {
        for key in ["word", "fg", "bg", "score"] {
            assert!(t.get(key).is_some(), "{key} in {t}");
        }
    }
    let o = related(&["--video", "RTOHlVpUe9M", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["video"]["slug"], "RTOHlVpUe9M");
    assert!(v["terms"][0].get("weight").is_some() && v["terms"][0].get("df").is_some());
    assert!(v["videos"][0].get("shared").is_some() && v["videos"][0].get("score").is_some());
    for (args, says) in [
        (
            &["k cups", "--scope", "chat"][..],
            "chat threads and posts are not videos, so leave chat out",
        ),
        (
            &["--video", "RTOHlVpUe9N"][..],
            "no video \"RTOHlVpUe9N\" in this archive; did you mean \"RTOHlVpUe9M\"?",
        ),
        (
            &["k cups", "--min-videos", "0"][..],
            "invalid value '0' for '--min-videos <MIN_VIDEOS>': 0 asks for nothing: give 1 or more",
        ),
        (
            &["k cups", "--channel", "daily-dispach"][..],
            "did you mean \"daily-dispatch\"?",
        ),
    ] {
        let o = related(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
