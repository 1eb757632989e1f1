//! The format round-trips, the generator is deterministic and complete,
//! and readers treat versions, unknown fields and missing files as
//! documented.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use archilyzer_core::archive::{read_corpus, Archive};
use archilyzer_core::format::*;
use archilyzer_core::source::{sha256_hex, LocalStore, SourceHandle, Store};
use archilyzer_dev::generate::{self, Videos};
use common::{gen_options, generated, open_local};

#[test]
fn generate_then_read_gives_every_record_back_equal() {
    let options = gen_options(generated());
    let vocab = generate::vocabulary(&options);
    let videos = Videos::new(&vocab, options.seed, options.bytes);
    let [alpha, beta] = generate::plans(&options);
    for (dir, plans) in [("alpha", alpha), ("beta", beta)] {
        let archive = open_local(&generated().join(dir));
        let site = &archive.sites()[0];
        for plan in plans {
            let manifest = site.transcript_manifest(&plan.slug).unwrap();
            let mut index = 0;
            for n in 1..=manifest.pages.len() as u32 {
                for record in &site.transcript_page(&plan.slug, n).unwrap().videos {
                    let (expected, _) = videos.make(&plan, index);
                    assert_eq!(record, &expected, "{dir}/{} video {index}", plan.slug);
                    index += 1;
                }
            }
            assert_eq!(
                manifest.slug_to_page.len(),
                index,
                "slugToPage lists every record"
            );
        }
    }
}

#[test]
fn manifests_hold_the_size_and_sha256_of_every_page() {
    let dir = generated().join("alpha");
    let archive = open_local(&dir);
    let site = &archive.sites()[0];
    for ch in &site.corpus().channels {
        let m = site.transcript_manifest(&ch.slug).unwrap();
        assert_eq!(m.pages.len() as u32, ch.page_count);
        for (i, p) in m.pages.iter().enumerate() {
            let bytes =
                std::fs::read(dir.join("transcripts").join(&ch.slug).join(&p.file)).unwrap();
            assert_eq!(
                (p.bytes, p.sha256.clone()),
                (bytes.len() as u64, sha256_hex(&bytes))
            );
            let page = site.transcript_page(&ch.slug, i as u32 + 1).unwrap();
            for v in &page.videos {
                assert_eq!(m.slug_to_page[&v.slug], i as u32 + 1);
            }
        }
    }
}

fn digest_tree(dir: &Path) -> BTreeMap<String, String> {
    common::files_under(dir)
        .into_iter()
        .map(|p| {
            (
                p.strip_prefix(dir).unwrap().display().to_string(),
                sha256_hex(&std::fs::read(&p).unwrap()),
            )
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let again = tmp.path().join("again");
    generate::generate(&gen_options(&again), &|_| {}).unwrap();
    assert_eq!(digest_tree(generated()), digest_tree(&again));
    let other = tmp.path().join("other");
    generate::generate(
        &generate::GenOptions {
            seed: 8,
            ..gen_options(&other)
        },
        &|_| {},
    )
    .unwrap();
    assert_ne!(digest_tree(generated()), digest_tree(&other));
}

#[test]
fn the_generated_archive_has_every_value_and_file_of_the_format() {
    let archive = open_local(&generated().join("alpha"));
    let site = &archive.sites()[0];
    let mut states = BTreeSet::new();
    let mut media = BTreeSet::new();
    let mut ages = BTreeSet::new();
    let mut sources = BTreeSet::new();
    let mut platforms = BTreeSet::new();
    let mut dash_ids = 0;
    let mut rumble_embed_differs = 0;
    for ch in &site.corpus().channels {
        let m = site.transcript_manifest(&ch.slug).unwrap();
        for n in 1..=m.pages.len() as u32 {
            for v in &site.transcript_page(&ch.slug, n).unwrap().videos {
                states.insert(v.state.as_str());
                media.insert(v.media_type.as_str());
                ages.insert(v.age.as_str());
                sources.insert(
                    v.caption_source
                        .expect("the generator writes every caption source")
                        .as_str(),
                );
                platforms.insert(ch.platform.as_str());
                dash_ids += usize::from(v.slug.starts_with('-'));
                if ch.platform == Platform::Rumble
                    && !v.webpage_url.as_deref().unwrap_or("").contains(&v.slug)
                {
                    rumble_embed_differs += 1;
                }
            }
        }
        assert!(site.stats(&ch.slug).unwrap().is_some());
        assert!(site.digests(&ch.slug).unwrap().is_some());
    }
    assert_eq!(states.len(), State::ALL.len(), "{states:?}");
    assert_eq!(media.len(), MediaType::ALL.len());
    assert_eq!(ages.len(), Age::ALL.len());
    // Every caption source but `translated`, which only an import asked to
    // keep machine translations writes.
    let written: Vec<_> = CaptionSource::ALL
        .iter()
        .filter(|s| **s != CaptionSource::Translated)
        .collect();
    assert_eq!(sources.len(), written.len(), "{sources:?}");
    assert!(
        platforms.contains("rumble") && platforms.len() >= 4,
        "{platforms:?}"
    );
    assert!(dash_ids > 0, "some YouTube ids begin with '-'");
    assert!(
        rumble_embed_differs > 0,
        "Rumble embed ids differ from the URL's id"
    );

    let dups = site.duplicates().unwrap().unwrap();
    let verdicts: BTreeSet<Option<bool>> = dups
        .clusters
        .iter()
        .flat_map(|c| c.members.iter().map(|m| m.aligned))
        .collect();
    assert_eq!(
        verdicts,
        BTreeSet::from([None, Some(false), Some(true)]),
        "aligned, not aligned, not measured"
    );
    assert!(!site.aliases().unwrap().unwrap().is_empty());
    assert!(!site.tags().unwrap().unwrap().is_empty());
    let reports = site.reports().unwrap().unwrap();
    assert!(reports.reports.iter().any(|r| !r.verdicts.is_empty()));
    assert!(site
        .manifest(paths::Layer::Chat, "late-night-live")
        .unwrap()
        .is_some());
    let posts = site
        .manifest(paths::Layer::Posts, "daily-dispatch")
        .unwrap()
        .unwrap();
    let page = site.post_page("daily-dispatch", 1).unwrap();
    assert!(page.posts.iter().any(|p| p.reply_to.is_some()) && !posts.slug_to_page.is_empty());

    let cited = open_local(&generated().join("cited"));
    assert_eq!(cited.sites()[0].corpus().site.scope, SiteScope::Cited);
    assert!(cited.sites()[0].corpus().channels.is_empty());
    assert!(cited.sites()[0].reports().unwrap().is_some());
    let hub = open_local(&generated().join("hub"));
    assert_eq!(
        hub.sites().len(),
        2,
        "a local hub reads its members beside it"
    );
}

fn corpus_with(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        r#"{{"spec":1,"kind":"site","site":{{"id":"x","title":"X","futureField":1}},"channels":[],"groups":[]{extra}}}"#
    );
    std::fs::write(dir.path().join("corpus.json"), body).unwrap();
    dir
}

#[test]
fn a_newer_major_version_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.json"),
        r#"{"spec":2,"kind":"site","whatever":true}"#,
    )
    .unwrap();
    let err = Archive::open(&SourceHandle::local(dir.path()), &common::options(None))
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("corpus.json declares format spec 2, but this build reads spec 1 only: upgrade archilyzer to read this archive"),
        "{err}"
    );
}

#[test]
fn unknown_fields_are_ignored_and_missing_optional_files_mean_none_published() {
    let dir = corpus_with(r#","addedInSpec1_5":{"a":1}"#);
    let archive = open_local(dir.path());
    let site = &archive.sites()[0];
    assert_eq!(site.id(), "x");
    assert!(site.summaries().unwrap().is_none());
    assert!(site.aliases().unwrap().is_none());
    assert!(site.duplicates().unwrap().is_none());
    assert!(site.reports().unwrap().is_none());
    assert!(site.stats("anything").unwrap().is_none());
}

#[test]
fn a_malformed_or_missing_file_is_an_error_naming_it() {
    let dir = corpus_with("");
    std::fs::write(dir.path().join("aliases.json"), "[{\"id\": 3}]").unwrap();
    let archive = open_local(dir.path());
    let err = archive.sites()[0].aliases().unwrap_err().to_string();
    assert!(
        err.contains("aliases.json: not valid archive JSON"),
        "{err}"
    );

    let empty = tempfile::tempdir().unwrap();
    let store = LocalStore::open(empty.path()).unwrap();
    let err = read_corpus(&store).unwrap_err().to_string();
    assert!(
        err.starts_with("no corpus.json at") && err.contains("composed public dir"),
        "{err}"
    );
    assert!(store.read("corpus.json").unwrap().is_none());
}
