//! The differential property: for random generated archives (random
//! seeds and sizes), edited after the index was built (pages touched,
//! rewritten with new words, deleted from the manifest, a channel added),
//! and random queries (words, phrases, prefixes, regexes, with and
//! without filters), the indexed answer equals the full scan, always.
//! `PROPTEST_CASES` sets how many archives (default 6).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use archilyzer_core::archive::Archive;
use archilyzer_core::query::{search, Request};
use archilyzer_dev::generate::{self, GenOptions};
use common::{files_under, open_local, transcript_pages};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Edit {
    /// Touch a page: same bytes, new stamp.
    Touch(usize),
    /// Put a word the index never saw into a cue of a page.
    NewWord(usize),
    /// Drop a page from its channel's manifest (and disk).
    Delete(usize),
    /// Copy a channel under a new slug, unknown to the index.
    CopyChannel(usize),
}

#[derive(Debug, Clone)]
enum Query {
    Word(usize),
    Phrase(usize),
    Prefix(usize),
    Regex(usize, usize),
    NewWord,
    Filtered(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Touch),
        any::<usize>().prop_map(Edit::NewWord),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::CopyChannel),
    ]
}

fn query() -> impl Strategy<Value = Query> {
    prop_oneof![
        any::<usize>().prop_map(Query::Word),
        any::<usize>().prop_map(Query::Phrase),
        any::<usize>().prop_map(Query::Prefix),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Query::Regex(a, b)),
        Just(Query::NewWord),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Query::Filtered(a, b)),
    ]
}

const NEW_WORD: &str = "zyxwvutsrq";

fn apply(site: &Path, e: &Edit) {
    let all = transcript_pages(site);
    match e {
        Edit::Touch(i) => {
            let p = &all[i % all.len()];
            let bytes = std::fs::read(p).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
            std::fs::write(p, bytes).unwrap();
        }
        Edit::NewWord(i) => {
            let p = &all[i % all.len()];
            let mut page: serde_json::Value =
                serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
            if let Some(cue) = page["videos"][0]["cues"].get_mut(0) {
                cue[2] = format!("{} {NEW_WORD}", cue[2].as_str().unwrap_or("")).into();
            }
            std::fs::write(p, page.to_string()).unwrap();
        }
        Edit::Delete(i) => {
            let p = &all[i % all.len()];
            let manifest_path = p.parent().unwrap().join("manifest.json");
            let mut m: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if let Some(list) = m["pages"].as_array_mut() {
                list.retain(|e| e["file"] != name.as_str());
            }
            std::fs::write(&manifest_path, m.to_string()).unwrap();
            std::fs::remove_file(p).unwrap();
        }
        Edit::CopyChannel(i) => {
            let corpus_path = site.join("corpus.json");
            let mut corpus: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&corpus_path).unwrap()).unwrap();
            let channels = corpus["channels"].as_array().unwrap().clone();
            let mut ch = channels[i % channels.len()].clone();
            let slug = ch["slug"].as_str().unwrap().to_string();
            let copy = format!("{slug}-copy{}", channels.len());
            if site.join("transcripts").join(&slug).is_dir() {
                for f in files_under(&site.join("transcripts").join(&slug)) {
                    let dest = site
                        .join("transcripts")
                        .join(&copy)
                        .join(f.file_name().unwrap());
                    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                    let text = std::fs::read_to_string(&f).unwrap().replace(
                        &format!("\"channel\":\"{slug}\""),
                        &format!("\"channel\":\"{copy}\""),
                    );
                    std::fs::write(dest, text).unwrap();
                }
                ch["slug"] = copy.into();
                corpus["channels"].as_array_mut().unwrap().push(ch);
                std::fs::write(&corpus_path, corpus.to_string()).unwrap();
            }
        }
    }
}

/// Words of the archive, in a stable order, to pick queries from.
fn vocabulary(archive: &Archive) -> Vec<String> {
    let r = search(
        archive,
        None,
        &Request {
            query: "the".into(),
            ..Request::default()
        },
    )
    .unwrap();
    let mut words = BTreeSet::new();
    for v in r.videos.iter().take(20) {
        for h in &v.hits {
            words.extend(
                archilyzer_core::text::tokens(&h.text)
                    .into_iter()
                    .filter(|w| w.len() > 2 && w.is_ascii()),
            );
        }
    }
    words.into_iter().collect()
}

fn request(q: &Query, words: &[String]) -> Request {
    let w = |i: &usize| words[i % words.len()].clone();
    let mut r = Request {
        use_aliases: true,
        ..Request::default()
    };
    match q {
        Query::Word(i) => r.query = w(i),
        Query::Phrase(i) => r.query = format!("{} {}", w(i), w(&(i + 1))),
        Query::Prefix(i) => r.query = format!("{}*", &w(i)[..3]),
        Query::Regex(a, b) => {
            r.query = format!("{}|{}", w(a), w(b));
            r.regex = true;
        }
        Query::NewWord => r.query = NEW_WORD.into(),
        Query::Filtered(i, s) => {
            r.query = w(i);
            let states = [
                "available",
                "deleted",
                "private",
                "members_only",
                "maybe_missing",
                "unlisted",
            ];
            r.filters.states = vec![states[s % states.len()].into()];
            r.scopes = vec!["transcripts".into(), "description".into(), "chat".into()];
        }
    }
    r
}

fn answer(
    archive: &Archive,
    index: Option<&Path>,
    r: &Request,
) -> Vec<(String, String, Vec<usize>)> {
    let res = search(archive, index, r).unwrap();
    res.videos
        .iter()
        .map(|v| {
            (
                v.channel.clone(),
                v.slug.clone(),
                v.hits.iter().map(|h| h.unit).collect(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(6),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_indexed_answer_equals_the_full_scan(
        seed in any::<u64>(),
        kb in 150u64..700,
        edits in prop::collection::vec(edit(), 0..4),
        queries in prop::collection::vec(query(), 1..7),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("archive");
        generate::generate(&GenOptions { out: out.clone(), bytes: kb * 1000, seed, channels: 3 }, &|_| {}).unwrap();
        let site = out.join("alpha");
        let index = tmp.path().join("index");
        archilyzer_core::index::build(&open_local(&site), &index, &|_| {}).unwrap();
        for e in &edits {
            apply(&site, e);
        }
        let archive = open_local(&site);
        let words = vocabulary(&archive);
        prop_assume!(!words.is_empty());
        for q in &queries {
            let r = request(q, &words);
            prop_assert_eq!(answer(&archive, Some(&index), &r), answer(&archive, None, &r), "{:?} after {:?}", r.query, edits);
        }
    }
}
