//! The scanner: schedules the planned pages over workers (4 at a time from
//! disk, 16 over HTTP, where most of a read is waiting), has each confirmed ([`super::confirm`]), and folds
//! the results back in page order, so the order of a result never depends
//! on timing; it then says what it covered.
//!
//! Promise (invariant 6): a page that cannot be read or parsed is named in
//! `unreadable` and marks the coverage partial; it is never dropped
//! quietly.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use super::confirm::{confirm_page, Reading};
use super::matcher::TokenStream;
use super::page_result::PageResult;
use super::plan::{Compiled, Plan};
use super::{Coverage, VideoResult};
use crate::archive::{Archive, PageRef};
use crate::in_order::in_order;
use crate::source::SourceHandle;

type PageOutcome = Result<PageResult, String>;

/// What a scan did, beside the videos it handed on.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Matching videos.
    pub total_videos: usize,
    /// Their hits.
    pub total_hits: usize,
    /// Videos and hits of the query as typed alone.
    pub exact: super::ExactCount,
    /// Matching videos a date filter left out for having no date.
    pub undated: usize,
    /// Per fuzzy expansion: (hits, videos) it found on its own.
    pub expansion_hits: Vec<(usize, usize)>,
    /// Pages read and confirmed.
    pub pages_read: usize,
    /// Bytes read to confirm them (whole pages, or only the spans of the
    /// videos the index selected).
    pub bytes_read: u64,
    /// What the pages could not check, and the result cap if reached.
    pub notes: Vec<String>,
    /// Whether the result cap stopped the scan before its last page.
    pub stopped_at_cap: bool,
    /// Pages that could not be read or parsed, with why.
    pub unreadable: Vec<String>,
    /// Which channels were read, partly read, never reached.
    pub coverage: Coverage,
}

/// Reads the planned pages and hands each video with hits to `sink`, in
/// page order, and returns the counts. Only the results of pages read ahead of the next one in
/// order are held at once, so memory does not grow with the result.
pub fn scan(
    archive: &Archive,
    pages: &[PageRef],
    plan: &Plan,
    c: &Compiled,
    sink: &mut dyn FnMut(VideoResult),
    progress: &mut dyn FnMut(usize, usize),
) -> Scanned {
    let workers = match archive.handle() {
        _ if is_small(pages, plan) => 1,
        SourceHandle::Local(_) => 4,
        _ => 16,
    };
    let mut response = Scanned::default();
    let mut failed = Vec::new();
    let cap = c.max_videos.unwrap_or(usize::MAX);
    let confirm = |scratch: &mut TokenStream, &i: &usize| {
        let read = Reading {
            targets: plan.targets.get(&i).map(Vec::as_slice),
            layout: plan.layouts.get(&i).map(Vec::as_slice),
        };
        confirm_page(archive, &pages[i], c, &read, scratch)
    };
    let emitted = in_order(
        &plan.pages,
        workers,
        TokenStream::default,
        confirm,
        |n, outcome| {
            let i = plan.pages[n];
            fold(&mut response, outcome, sink, || failed.push(i));
            progress(n + 1, plan.pages.len());
            if response.total_videos >= cap && n + 1 < plan.pages.len() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    let stopped: Vec<usize> = plan.pages[emitted..].to_vec();
    if !stopped.is_empty() {
        response.stopped_at_cap = true;
        response.notes.push(format!(
            "result cap of {} videos reached: stopped after {emitted} of {} planned page(s), so the totals above count only what was read",
            c.max_videos.unwrap_or(0),
            plan.pages.len()
        ));
    }
    response.coverage = coverage(archive, pages, plan, &failed, &stopped);
    response
}

/// A plan that reads at most this many bytes is confirmed on the calling
/// thread: starting workers would cost more than they save (a rare word
/// in a warm server reads a few video spans).
const INLINE_BYTES: u64 = 4 << 20;

/// Whether `plan` is small enough to read on the calling thread alone
/// (at most [`INLINE_BYTES`]): the search then starts no thread at all.
pub fn is_small(pages: &[PageRef], plan: &Plan) -> bool {
    plan_bytes(pages, plan) <= INLINE_BYTES
}

/// The bytes `plan` reads: each targeted video's span, each other page
/// whole.
fn plan_bytes(pages: &[PageRef], plan: &Plan) -> u64 {
    plan.pages
        .iter()
        .map(|i| match plan.targets.get(i) {
            Some(targets) => targets.iter().map(|t| t.span.len()).sum(),
            None => pages[*i].bytes,
        })
        .sum()
}

/// Adds one page's outcome to the counts and hands its videos on.
fn fold(
    r: &mut Scanned,
    outcome: PageOutcome,
    sink: &mut dyn FnMut(VideoResult),
    on_failure: impl FnOnce(),
) {
    match outcome {
        Ok(PageResult {
            videos,
            notes,
            undated,
            bytes,
        }) => {
            r.undated += undated;
            r.pages_read += 1;
            r.bytes_read += bytes;
            r.notes.extend(notes);
            for v in videos {
                add_expansions(&mut r.expansion_hits, &v.expansion_hits);
                r.total_videos += 1;
                r.total_hits += v.hits.len();
                r.exact.videos += usize::from(v.exact_hits > 0);
                r.exact.hits += v.exact_hits;
                sink(v);
            }
        }
        Err(e) => {
            r.unreadable.push(e);
            on_failure();
        }
    }
}

/// Adds one video's per-expansion hits to the totals.
fn add_expansions(totals: &mut Vec<(usize, usize)>, video: &[usize]) {
    if totals.len() < video.len() {
        totals.resize(video.len(), (0, 0));
    }
    for (t, &n) in totals.iter_mut().zip(video) {
        t.0 += n;
        t.1 += usize::from(n > 0);
    }
}

/// Which channels were fully read, partly read, never reached.
fn coverage(
    archive: &Archive,
    pages: &[PageRef],
    plan: &Plan,
    failed: &[usize],
    stopped: &[usize],
) -> Coverage {
    if plan.cut.is_empty() && failed.is_empty() && stopped.is_empty() {
        return Coverage::default();
    }
    let name = |p: &PageRef| {
        if archive.sites().len() > 1 {
            format!("{}/{}", archive.sites()[p.site].id(), p.channel)
        } else {
            p.channel.clone()
        }
    };
    // (read, not read) per channel, in archive order.
    let mut per: BTreeMap<(usize, usize), (String, usize, usize)> = BTreeMap::new();
    let mut order = |i: usize, read: bool| {
        let p = &pages[i];
        let first = pages
            .iter()
            .position(|q| q.site == p.site && q.channel == p.channel)
            .unwrap_or(i);
        let e = per
            .entry((first, p.site))
            .or_insert_with(|| (name(p), 0, 0));
        if read {
            e.1 += 1;
        } else {
            e.2 += 1;
        }
    };
    for &i in &plan.pages {
        order(i, !failed.contains(&i) && !stopped.contains(&i));
    }
    for &i in &plan.cut {
        order(i, false);
    }
    let mut c = Coverage {
        partial: true,
        ..Default::default()
    };
    for (_, (channel, read, missed)) in per {
        match (read, missed) {
            (_, 0) => c.scanned.push(channel),
            (0, _) => c.unreached.push(channel),
            _ => c.partly.push(channel),
        }
    }
    c
}
