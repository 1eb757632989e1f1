//! A one-word search answered from where its word is said: the videos
//! the plan placed ([`super::plan::Placing`]) confirmed from the cues the
//! index placed ([`crate::index::places`]), read and matched, with the
//! video's title and facts from its row.
//!
//! Promise: a placed video's result is the one its span would give. Its
//! captions' hits can only be in the placed cues (the build placed every
//! cue holding the word, and only a video holding it in its captions
//! alone); its other fields do not hold the word (same rule), and its
//! title and facts are the row's, taken from the same page. So each
//! placed cue is matched with the query's own matcher; a video an exclude
//! may hold (the postings cannot rule it out) is never placed. The cues'
//! bytes are used only when they hash to the digest the build recorded
//! and each parses as a cue; otherwise the page's targets are read by
//! their spans (`confirm::read_targets`).

use super::filters::{Verdict, VideoFacts};
use super::matcher::TokenStream;
use super::page_result::{Item, PageResult, MERGE_GAP};
use super::plan::{Compiled, PlacedTarget, Target};
use super::terms::{Field, Times};
use super::Scope;
use crate::archive::{PageRef, Site};
use crate::format::paths::Layer;
use crate::format::{CueView, HasFacts};

/// Confirms page `p`'s `targets` from their places, when every one is
/// placed and every place's bytes are the ones indexed; `None` sends the
/// caller to the spans.
pub(super) fn confirm(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    targets: &[Target],
    scratch: &mut TokenStream,
) -> Option<PageResult> {
    let placed: Vec<&PlacedTarget> = targets
        .iter()
        .map(|t| t.placed.as_deref())
        .collect::<Option<_>>()?;
    let ranges: Vec<std::ops::Range<u64>> = targets
        .iter()
        .zip(&placed)
        .flat_map(|(t, v)| v.places.cues.iter().map(|c| shift(c.range(), t.span.start)))
        .collect();
    let (read, bytes) = read_ranges(site, p, &ranges)?;
    let mut out = PageResult {
        bytes: read,
        ..PageResult::default()
    };
    let mut cues = bytes.iter();
    for v in placed {
        let mine: Vec<&[u8]> = cues
            .by_ref()
            .take(v.places.cues.len())
            .map(Vec::as_slice)
            .collect();
        let digest = crate::index::places::digest(mine.iter().copied());
        if digest != v.places.digest {
            return None;
        }
        let parsed = mine
            .iter()
            .map(|b| crate::format::from_json::<CueView>(b).ok())
            .collect::<Option<Vec<_>>>()?;
        let verdict = c
            .filters
            .verdict(&VideoFacts::of_video(p.site, &p.channel, &v.row));
        if verdict == Verdict::Fails {
            continue;
        }
        let Some(result) = placed_result(site, p, c, v, &parsed, scratch) else {
            continue;
        };
        match verdict {
            Verdict::Passes => out.videos.push(result),
            _ => out.undated += 1,
        }
    }
    Some(out)
}

/// `r` moved on by `by` bytes.
fn shift(r: std::ops::Range<u64>, by: u64) -> std::ops::Range<u64> {
    r.start + by..r.end + by
}

/// The bytes of `ranges` of page `p`, read in runs (ranges closer than
/// [`MERGE_GAP`] in one read), and how many bytes were read;
/// `None` when a read fails.
fn read_ranges(
    site: &Site,
    p: &PageRef,
    ranges: &[std::ops::Range<u64>],
) -> Option<(u64, Vec<Vec<u8>>)> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_unstable_by_key(|&i| ranges[i].start);
    let mut runs: Vec<std::ops::Range<u64>> = Vec::new();
    for &i in &order {
        let r = &ranges[i];
        match runs.last_mut() {
            Some(run) if r.start >= run.start && r.start <= run.end + MERGE_GAP => {
                run.end = run.end.max(r.end);
            }
            _ => runs.push(r.clone()),
        }
    }
    let read = site.page_ranges(Layer::Transcripts, &p.channel, p.page, &runs);
    let read = read
        .map_err(|e| tracing::info!("{e}; reading the spans"))
        .ok()?;
    let pieces = ranges
        .iter()
        .map(|r| {
            let run = runs
                .iter()
                .position(|run| run.start <= r.start && r.end <= run.end)?;
            let from = (r.start - runs[run].start) as usize;
            read[run]
                .get(from..from + (r.end - r.start) as usize)
                .map(<[u8]>::to_vec)
        })
        .collect::<Option<_>>()?;
    Some((read.iter().map(|b| b.len() as u64).sum(), pieces))
}

/// The result of placed video `v` whose placed cues are `cues`: the
/// query's hits in them (each at its cue's number in the video) and in
/// the row's title; `None` when the query does not hit it.
fn placed_result(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    v: &PlacedTarget,
    cues: &[CueView],
    scratch: &mut TokenStream,
) -> Option<crate::query::VideoResult> {
    let row = &v.row;
    let channel_name = site.channel(&p.channel).map_or("", |ch| ch.name.as_str());
    let untimed = |scope, texts| Field {
        scope,
        texts,
        times: Times::Untimed,
        first: 0,
        span: false,
    };
    let fields: Vec<Field> = c
        .scopes
        .iter()
        .filter_map(|&scope| match scope {
            Scope::Transcripts => Some(Field {
                scope,
                texts: cues.iter().map(|cue| cue.text.as_ref()).collect(),
                times: Times::Cues(cues),
                first: 0,
                span: false,
            }),
            Scope::Title => Some(untimed(scope, vec![row.title.as_str()])),
            Scope::Metadata => Some(untimed(scope, vec![row.title.as_str(), channel_name])),
            // The build placed only videos holding the word in their
            // captions alone, and no exclude may hold the video.
            Scope::Description | Scope::Tags | Scope::Chat | Scope::Posts => None,
        })
        .collect();
    let mut r = c.terms.judge(p.site, &fields, scratch)?;
    for hit in &mut r.hits {
        if hit.scope == Scope::Transcripts {
            hit.unit = v.places.cues[hit.unit].cue as usize;
        }
    }
    Some(r.into_result(
        site,
        p,
        Item {
            kind: "video",
            slug: &row.slug,
            title: &row.title,
            date: row.upload_date.clone(),
            url: row.url.clone(),
            platform: row.platform,
            captions: row.facts().captions(),
            length: row.caption_bytes.unwrap_or_default(),
        },
    ))
}
