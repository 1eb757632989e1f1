//! The scanner: reads planned pages concurrently (4 at a time from disk, 8
//! over HTTP), confirms every hit with the matcher, and folds the results
//! back in page order, so the order of a result never depends on timing.
//!
//! Promise (invariant 6): a page that cannot be read or parsed is named in
//! `unreadable` and marks the coverage partial; it is never dropped
//! quietly.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::filters::VideoFacts;
use super::matcher::{Matcher, TokenStream};
use super::plan::{Compiled, Plan};
use super::{Coverage, Hit, Response, Scope, VideoResult};
use crate::archive::{Archive, PageRef, Site};
use crate::format::paths::Layer;
use crate::format::{PageView, Post, VideoView};
use crate::index::IndexStatus;
use crate::source::SourceHandle;

type PageOutcome = Result<Vec<VideoResult>, String>;

/// Reads the planned pages and hands each video with hits to `sink`, in
/// page order; the returned response holds the counts (its `videos` is
/// left empty). Only the results of pages read ahead of the next one in
/// order are held at once, so memory does not grow with the result.
pub fn scan(
    archive: &Archive,
    pages: &[PageRef],
    plan: &Plan,
    c: &Compiled,
    sink: &mut dyn FnMut(VideoResult),
    progress: &mut dyn FnMut(usize, usize),
) -> Response {
    let workers = match archive.handle() {
        SourceHandle::Local(_) => 4,
        _ => 8,
    }
    .min(plan.pages.len().max(1));
    let next = AtomicUsize::new(0);
    let mut response = empty_response(archive, plan);
    let mut failed = Vec::new();
    let mut emitted = 0;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, PageOutcome)>(workers * 2);
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || {
                let mut scratch = TokenStream::default();
                while let Some(&i) = plan.pages.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = page_results(archive, &pages[i], c, &mut scratch);
                    if tx.send((i, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<usize, PageOutcome> = BTreeMap::new();
        let cap = c.max_videos.unwrap_or(usize::MAX);
        'receive: for (i, outcome) in rx {
            pending.insert(i, outcome);
            while let Some(outcome) = plan.pages.get(emitted).and_then(|i| pending.remove(i)) {
                let i = plan.pages[emitted];
                fold(&mut response, &pages[i], outcome, sink, || failed.push(i));
                emitted += 1;
                progress(emitted, plan.pages.len());
                if response.total_videos >= cap && emitted < plan.pages.len() {
                    // Dropping the receiver stops the workers.
                    break 'receive;
                }
            }
        }
    });
    let stopped: Vec<usize> = plan.pages[emitted..].to_vec();
    if !stopped.is_empty() {
        response.notes.push(format!(
            "result cap of {} videos reached: stopped after {emitted} of {} planned page(s)",
            c.max_videos.unwrap_or(0),
            plan.pages.len()
        ));
    }
    response.coverage = coverage(archive, pages, plan, &failed, &stopped);
    response
}

fn empty_response(archive: &Archive, plan: &Plan) -> Response {
    Response {
        source: archive.handle().to_string(),
        videos: Vec::new(),
        total_videos: 0,
        total_hits: 0,
        pages_read: 0,
        pages_planned: plan.planned,
        pages_total: plan.in_scope,
        bytes_read: 0,
        index: IndexStatus::NotUsed,
        notes: Vec::new(),
        unreadable: Vec::new(),
        coverage: Coverage::default(),
    }
}

/// Adds one page's outcome to the counts and hands its videos on.
fn fold(
    r: &mut Response,
    page: &PageRef,
    outcome: PageOutcome,
    sink: &mut dyn FnMut(VideoResult),
    on_failure: impl FnOnce(),
) {
    match outcome {
        Ok(videos) => {
            r.pages_read += 1;
            r.bytes_read += page.bytes;
            for v in videos {
                r.total_videos += 1;
                r.total_hits += v.hits.len();
                sink(v);
            }
        }
        Err(e) => {
            r.unreadable.push(e);
            on_failure();
        }
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

fn page_results(
    archive: &Archive,
    p: &PageRef,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> PageOutcome {
    let site = &archive.sites()[p.site];
    let err = |e: crate::source::ReadError| e.to_string();
    match p.layer {
        Layer::Transcripts => {
            let (bytes, _) = site.page_bytes(p.layer, &p.channel, p.page).map_err(err)?;
            let name = site.describe(&crate::format::paths::page(p.layer, &p.channel, p.page));
            let page: PageView = crate::format::parse_page(&bytes, &name, &p.channel, p.page)
                .map_err(|e| e.to_string())?;
            Ok(page
                .videos
                .iter()
                .filter(|v| {
                    let tags: Vec<String> = v.curated_tags.iter().map(|t| t.to_string()).collect();
                    c.filters.passes(&VideoFacts {
                        site: p.site,
                        channel: &p.channel,
                        upload_date: v.upload_date.as_deref(),
                        media_type: v.media_type,
                        age: v.age,
                        state: v.state,
                        curated_tags: &tags,
                    })
                })
                .filter_map(|v| video_result(site, p, v, c, scratch))
                .collect())
        }
        Layer::Chat => chat_results(site, p, c, scratch).map_err(err),
        Layer::Posts => {
            let page = site.post_page(&p.channel, p.page).map_err(err)?;
            Ok(page
                .posts
                .iter()
                .filter(|post| post_passes(c, p, post))
                .filter_map(|post| post_result(site, p, post, c, scratch))
                .collect())
        }
    }
}

/// Chat messages are matched each on its own; the video's record (found
/// through its transcript page) decides the filters and gives the title.
fn chat_results(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Result<Vec<VideoResult>, crate::source::ReadError> {
    let page = site.chat_page(&p.channel, p.page)?;
    let mut out = Vec::new();
    for chat in &page.videos {
        let Some(record) = site.find_video(&p.channel, &chat.slug).ok().flatten() else {
            continue;
        };
        let facts = VideoFacts {
            site: p.site,
            channel: &p.channel,
            upload_date: record.upload_date.as_deref(),
            media_type: record.media_type,
            age: record.age,
            state: record.state,
            curated_tags: &record.curated_tags,
        };
        if !c.filters.passes(&facts) {
            continue;
        }
        let texts: Vec<&str> = chat.messages.iter().map(|m| m.text.as_str()).collect();
        let start = |i: usize| Some(chat.messages[i].t);
        let hits = unit_hits(&c.matchers, Scope::Chat, &texts, &start, false, scratch);
        if !hits.is_empty()
            && unit_hits(&c.excludes, Scope::Chat, &texts, &start, false, scratch).is_empty()
        {
            let mut r = result_of(
                site,
                p,
                &record.slug,
                &record.title,
                record.upload_date.clone(),
                "video",
                hits,
            );
            r.url = record.webpage_url.clone();
            r.platform = record.platform;
            out.push(r);
        }
    }
    Ok(out)
}

/// Posts have a date and a channel, none of a video's other facts: a
/// filter on those excludes them.
fn post_passes(c: &Compiled, p: &PageRef, post: &Post) -> bool {
    let f = &c.filters;
    let video_only =
        f.states.is_some() || f.media_type.is_some() || f.age.is_some() || f.tags.is_some();
    let date = post.date.as_str();
    !video_only && f.channel_in_scope(p.site, &p.channel) && f.date_passes(date)
}

/// Hits of `matchers` over `texts`: spanning across them when `span`
/// (captions), else each alone. `start(i)` gives unit i's time.
fn unit_hits(
    matchers: &[Matcher],
    scope: Scope,
    texts: &[&str],
    start: &dyn Fn(usize) -> Option<f64>,
    span: bool,
    scratch: &mut TokenStream,
) -> Vec<Hit> {
    let mut found: Vec<usize> = Vec::new();
    for m in matchers {
        if span {
            found.extend(m.hits(texts.iter().copied(), scratch));
        } else {
            for (i, t) in texts.iter().enumerate() {
                if !m.hits(std::iter::once(*t), scratch).is_empty() {
                    found.push(i);
                }
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
        .into_iter()
        .map(|i| Hit {
            scope,
            unit: i,
            start: start(i),
            text: texts[i].to_string(),
        })
        .collect()
}

/// Every hit of a video in the scopes searched.
fn record_hits(
    matchers: &[Matcher],
    c: &Compiled,
    site: &Site,
    channel: &str,
    v: &VideoView,
    scratch: &mut TokenStream,
) -> Vec<Hit> {
    let untimed = |_: usize| None;
    let mut hits = Vec::new();
    for &scope in &c.scopes {
        let (texts, span): (Vec<&str>, bool) = match scope {
            Scope::Transcripts => (v.cues.iter().map(|cue| cue.text.as_ref()).collect(), true),
            Scope::Title => (vec![v.title.as_ref()], false),
            Scope::Metadata => {
                let channel_name = site.channel(channel).map_or("", |ch| ch.name.as_str());
                (vec![v.title.as_ref(), channel_name], false)
            }
            Scope::Description => (vec![v.description.as_ref()], false),
            Scope::Tags => (v.tags.iter().map(|t| t.as_ref()).collect(), false),
            Scope::Chat | Scope::Posts => continue,
        };
        if scope == Scope::Transcripts {
            hits.extend(unit_hits(
                matchers,
                scope,
                &texts,
                &|i| v.cues[i].start(),
                span,
                scratch,
            ));
        } else {
            hits.extend(unit_hits(matchers, scope, &texts, &untimed, span, scratch));
        }
    }
    hits
}

fn video_result(
    site: &Site,
    p: &PageRef,
    v: &VideoView,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Option<VideoResult> {
    let hits = record_hits(&c.matchers, c, site, &p.channel, v, scratch);
    if hits.is_empty() || !record_hits(&c.excludes, c, site, &p.channel, v, scratch).is_empty() {
        return None;
    }
    let mut r = result_of(
        site,
        p,
        &v.slug,
        &v.title,
        v.upload_date.as_deref().map(str::to_string),
        "video",
        hits,
    );
    r.url = v.webpage_url.as_deref().map(str::to_string);
    r.platform = v.platform;
    Some(r)
}

fn post_result(
    site: &Site,
    p: &PageRef,
    post: &Post,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Option<VideoResult> {
    let texts = [post.text.as_str()];
    let untimed = |_: usize| None;
    let hits = unit_hits(&c.matchers, Scope::Posts, &texts, &untimed, false, scratch);
    if hits.is_empty()
        || !unit_hits(&c.excludes, Scope::Posts, &texts, &untimed, false, scratch).is_empty()
    {
        return None;
    }
    let title = format!("post by {}, {}", post.author, post.date);
    let mut r = result_of(
        site,
        p,
        &post.id,
        &title,
        Some(post.date.clone()),
        "post",
        hits,
    );
    r.url = post.url.clone();
    Some(r)
}

fn result_of(
    site: &Site,
    p: &PageRef,
    slug: &str,
    title: &str,
    date: Option<String>,
    kind: &'static str,
    hits: Vec<Hit>,
) -> VideoResult {
    VideoResult {
        site: site.id().to_string(),
        channel: p.channel.clone(),
        slug: slug.to_string(),
        title: title.to_string(),
        upload_date: date,
        url: None,
        platform: None,
        kind,
        page: p.page,
        hits,
    }
}
