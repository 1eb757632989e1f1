//! Confirming one page: which of its videos, chat and posts pass the
//! filters and hold a hit, decided by the matcher on the page text (never
//! by the index), with every hit's field, unit, time and text.
//!
//! Promise: a video, chat or post is returned only when a query matcher
//! hits it and no exclude matcher does (the one decision,
//! [`super::terms::Terms::judge`], made for every layer); a chat that cannot be checked
//! (its video has no record) is named in [`PageResult::notes`].

use std::sync::Arc;

use super::filters::{Verdict, VideoFacts};
use super::matcher::TokenStream;
use super::page_result::{Item, PageResult, MERGE_GAP};
use super::plan::{Compiled, Target};
use super::prefilter::{Found, PageHint, Shared};
use super::skim::{self, Held, Laid, Window};
use super::terms::{Field, Times};
use super::{Scope, VideoResult};
use crate::archive::{Archive, PageRef, Site};
use crate::format::paths::Layer;
use crate::format::{CaptionSource, HasFacts, Post, VideoView};

/// Confirms page `p`: every video (chat, post) of it that passes the
/// filters and that the matchers hit. With `targets`, only those videos of
/// a transcript page are read, each by its span, when their bytes are the
/// ones indexed (see [`read_targets`]); otherwise the whole page is read.
pub(super) fn confirm_page(
    archive: &Archive,
    p: &PageRef,
    c: &Compiled,
    read: &Reading,
    scratch: &mut TokenStream,
) -> Result<PageResult, String> {
    let targets = read.targets;
    let site = &archive.sites()[p.site];
    let err = |e: crate::source::ReadError| e.to_string();
    match p.layer {
        Layer::Transcripts => {
            let placed = targets.and_then(|t| super::placed::confirm(site, p, c, t, scratch));
            if let Some(found) = placed {
                return Ok(found);
            }
            if let Some((t, runs)) = targets.and_then(|t| Some((t, read_targets(site, p, t)?))) {
                if let Some(found) = confirm_runs(site, p, c, t, &runs, scratch) {
                    return Ok(found);
                }
                tracing::info!(
                    "{}/{} page {}: a video's bytes are not the ones indexed; reading the whole page",
                    site.id(),
                    p.channel,
                    p.page
                );
            }
            // A page kept parsed (a warm server) is confirmed as it is;
            // else only its candidate videos are parsed, when that can
            // be decided.
            let kept = site.kept_page_view(&p.channel, p.page);
            if let (None, Some(layout)) = (&kept, read.layout) {
                if let Some(found) = confirm_candidates(site, p, c, layout, scratch) {
                    return found;
                }
            }
            let kept = match kept {
                Some(kept) => kept,
                None => site.page_view(&p.channel, p.page).map_err(err)?,
            };
            let shared: Shared = kept.backing_cart().clone();
            let (page, read) = (kept.get(), kept.backing_cart().len() as u64);
            let confirm =
                |scratch: &mut TokenStream| confirm_videos(site, p, c, &page.videos, read, scratch);
            Ok(hinted(c, scratch, &shared, None, confirm))
        }
        Layer::Chat => chat_results(site, p, c, scratch).map_err(err),
        Layer::Posts => {
            let page = site.post_page(&p.channel, p.page).map_err(err)?;
            let posts = page
                .posts
                .iter()
                .filter(|post| c.filters.passes_post(p.site, &p.channel, &post.date))
                .filter_map(|post| post_result(site, p, post, c, scratch))
                .collect();
            Ok(PageResult {
                bytes: p.bytes,
                ..PageResult::videos(posts)
            })
        }
    }
}

/// How the plan has a page read: some of its videos by their spans
/// (`targets`), or the whole page, whose videos' spans the index knows
/// (`layout`) or not.
#[derive(Default, Clone, Copy)]
pub(super) struct Reading<'a> {
    pub targets: Option<&'a [Target]>,
    pub layout: Option<&'a [std::ops::Range<u64>]>,
}

/// Confirms a transcript page read whole by parsing only the videos its
/// raw bytes show can hold a hit ([`super::candidates`]); `None` when
/// that cannot be decided (a regex, a word outside ASCII, the channel's
/// name holding a required word in the metadata scope, a layout that does
/// not fit the bytes, a candidate that does not parse), and the page is
/// parsed whole.
fn confirm_candidates(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    layout: &[std::ops::Range<u64>],
    scratch: &mut TokenStream,
) -> Option<Result<PageResult, String>> {
    let words = c.terms.required_words(p.site)?;
    if c.scopes.contains(&Scope::Metadata) {
        let name = site.channel(&p.channel).map_or("", |ch| ch.name.as_str());
        let name = crate::text::normalize(name);
        if words.iter().any(|w| name.contains(w.as_str())) {
            return None;
        }
    }
    let bytes = match site.page_bytes(Layer::Transcripts, &p.channel, p.page) {
        Ok((bytes, _)) => std::sync::Arc::new(bytes),
        Err(e) => return Some(Err(e.to_string())),
    };
    let page: &[u8] = &bytes[..];
    let (chosen, found) = super::candidates::candidates(page, layout, &words)?;
    let spans: Vec<&[u8]> = chosen
        .iter()
        .map(|&i| &page[layout[i].start as usize..layout[i].end as usize])
        .collect();
    let read = page.len() as u64;
    if let Some(anchors) = c.terms.anchors(p.site) {
        return confirm_skimmed(site, p, c, &anchors, &spans, read, scratch).map(Ok);
    }
    let views = spans
        .iter()
        .map(|span| crate::format::from_json::<VideoView>(span).ok())
        .collect::<Option<Vec<VideoView>>>()?;
    let shared: Shared = bytes.clone();
    let confirm = |scratch: &mut TokenStream| confirm_videos(site, p, c, &views, read, scratch);
    Some(Ok(hinted(c, scratch, &shared, Some(found), confirm)))
}

/// Confirms the videos whose bytes are `spans`, each skimmed around
/// `anchors` or parsed whole ([`skim::read`]), `read` bytes having been
/// read for them; `None` when one does not parse.
fn confirm_skimmed(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    anchors: &skim::Anchors,
    spans: &[&[u8]],
    read: u64,
    scratch: &mut TokenStream,
) -> Option<PageResult> {
    let laid: Vec<Laid> = spans.iter().map(|span| skim::lay(span)).collect();
    let mut block = Vec::new();
    let videos = laid
        .iter()
        .map(|l| skim::read(l, anchors, &mut block))
        .collect::<Option<Vec<_>>>()?;
    Some(confirm_videos(site, p, c, &videos, read, scratch))
}

/// Runs `confirm` with the matcher's page hint set on `page` (starting
/// from what a pass over it already `found`) when the query's matchers
/// use the hint, else as it is.
fn hinted(
    c: &Compiled,
    scratch: &mut TokenStream,
    page: &Shared,
    found: Option<Found>,
    confirm: impl FnOnce(&mut TokenStream) -> PageResult,
) -> PageResult {
    if c.terms.uses_page_hint() {
        PageHint::within(scratch, page, found, confirm)
    } else {
        confirm(scratch)
    }
}

/// Bytes read in one piece for some of the targets, and where each of
/// those targets' spans lies in them.
struct Run {
    bytes: Arc<Vec<u8>>,
    /// (the target's position in the targets, its span's offsets here).
    spans: Vec<(usize, std::ops::Range<usize>)>,
}

/// The runs of bytes holding the targets' spans, when reading them beats
/// reading the page: spans covering at most half of the page, fetched in
/// runs (spans less than [`MERGE_GAP`] apart are read as one). `None` (a
/// read failed, or the spans are most of the page) sends the caller to
/// the whole page, which then reports any failure itself.
fn read_targets(site: &Site, p: &PageRef, targets: &[Target]) -> Option<Vec<Run>> {
    let wanted: u64 = targets.iter().map(|t| t.span.len()).sum();
    if wanted.saturating_mul(2) > p.bytes {
        return None;
    }
    let mut runs: Vec<(std::ops::Range<u64>, Vec<usize>)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        match runs.last_mut() {
            Some((r, held)) if t.span.start >= r.end && t.span.start - r.end <= MERGE_GAP => {
                r.end = r.end.max(t.span.end);
                held.push(i);
            }
            _ => runs.push((t.span.start..t.span.end, vec![i])),
        }
    }
    let ranges: Vec<_> = runs.iter().map(|(r, _)| r.clone()).collect();
    let fetched = site.page_ranges(Layer::Transcripts, &p.channel, p.page, &ranges);
    let fetched = fetched
        .map_err(|e| tracing::info!("{e}; reading the whole page"))
        .ok()?;
    let runs = runs.into_iter().zip(fetched).map(|((range, held), bytes)| {
        let spans = held.into_iter().map(|i| {
            let from = (targets[i].span.start - range.start) as usize;
            let to = from + targets[i].span.len() as usize;
            (to <= bytes.len()).then_some((i, from..to))
        });
        Some(Run {
            spans: spans.collect::<Option<Vec<_>>>()?,
            bytes: Arc::new(bytes),
        })
    });
    runs.collect()
}

/// Confirms the targets read in `runs`: skimmed around where a match can
/// begin ([`skim`]) when the query allows, else each run with the
/// matcher's page hint set on it (one SIMD search of the run per word
/// instead of one per cue); `None` when a target's bytes are not the ones
/// indexed, and the caller reads the whole page.
fn confirm_runs(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    targets: &[Target],
    runs: &[Run],
    scratch: &mut TokenStream,
) -> Option<PageResult> {
    let spans = runs
        .iter()
        .map(|run| {
            let span = |(i, r): &(usize, std::ops::Range<usize>)| {
                let bytes = &run.bytes[r.clone()];
                targets[*i].span.holds(bytes).then_some(bytes)
            };
            run.spans.iter().map(span).collect::<Option<Vec<&[u8]>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    let read = targets.iter().map(|t| t.span.len()).sum();
    if let Some(anchors) = c.terms.anchors(p.site) {
        let all: Vec<&[u8]> = spans.iter().flatten().copied().collect();
        return confirm_skimmed(site, p, c, &anchors, &all, read, scratch);
    }
    let mut out = PageResult {
        bytes: read,
        ..PageResult::default()
    };
    for (run, spans) in runs.iter().zip(&spans) {
        let views = spans
            .iter()
            .map(|span| crate::format::from_json::<VideoView>(span).ok())
            .collect::<Option<Vec<VideoView>>>()?;
        let confirm = |scratch: &mut TokenStream| confirm_videos(site, p, c, &views, 0, scratch);
        let shared: Shared = run.bytes.clone();
        let found = hinted(c, scratch, &shared, None, confirm);
        out.videos.extend(found.videos);
        out.notes.extend(found.notes);
        out.undated += found.undated;
    }
    Some(out)
}

/// The videos of a transcript page that pass the filters and hold a hit.
fn confirm_videos(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    videos: &[impl Held],
    bytes: u64,
    scratch: &mut TokenStream,
) -> PageResult {
    let mut out = PageResult {
        bytes,
        ..PageResult::default()
    };
    for v in videos {
        let verdict = c
            .filters
            .verdict(&VideoFacts::of_video(p.site, &p.channel, v.view()));
        if verdict == Verdict::Fails {
            continue;
        }
        let Some(result) = video_result(site, p, v, c, scratch) else {
            continue;
        };
        match verdict {
            Verdict::Passes => out.videos.push(result),
            _ => out.undated += 1,
        }
    }
    out
}

/// Chat messages are matched each on its own; the video's record (found
/// through its transcript page) decides the filters and gives the title.
/// A chat whose video has no record cannot be filtered or titled: it is
/// named in the notes, never skipped quietly.
fn chat_results(
    site: &Site,
    p: &PageRef,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Result<PageResult, crate::source::ReadError> {
    let page = site.chat_page(&p.channel, p.page)?;
    let mut out = PageResult {
        bytes: p.bytes,
        ..PageResult::default()
    };
    for chat in &page.videos {
        let record = match site.find_video_in_cached_page(&p.channel, &chat.slug) {
            Ok(Some(record)) => record,
            Ok(None) => {
                out.notes.push(format!(
                    "the live chat of {}/{} (chat page {}) was not searched: the video has no record in the transcripts",
                    p.channel, chat.slug, p.page
                ));
                continue;
            }
            Err(e) => {
                out.notes.push(format!(
                    "the live chat of {}/{} (chat page {}) was not searched: {e}",
                    p.channel, chat.slug, p.page
                ));
                continue;
            }
        };
        let verdict = c
            .filters
            .verdict(&VideoFacts::of_video(p.site, &p.channel, &record));
        if verdict == Verdict::Fails {
            continue;
        }
        let texts: Vec<&str> = chat.messages.iter().map(|m| m.text.as_str()).collect();
        let fields = [Field {
            scope: Scope::Chat,
            texts,
            times: Times::Chat(&chat.messages),
            first: 0,
            span: false,
        }];
        let Some(mut r) = c.terms.judge(p.site, &fields, scratch) else {
            continue;
        };
        for h in &mut r.hits {
            h.author = Some(chat.messages[h.unit].author.clone());
        }
        let r = r.into_result(
            site,
            p,
            Item {
                kind: "video",
                slug: &record.slug,
                title: &record.title,
                date: record.upload_date.clone(),
                url: record.webpage_url.clone(),
                platform: record.platform,
                captions: record.facts().captions(),
                length: crate::format::text_bytes(fields[0].texts.iter().copied()),
            },
        );
        match verdict {
            Verdict::Passes => out.videos.push(r),
            _ => out.undated += 1,
        }
    }
    Ok(out)
}

/// The fields of a video in the scopes searched: its captions as one
/// field, or one per run of cues when the view holds only `runs`.
fn video_fields<'t>(
    c: &Compiled,
    site: &'t Site,
    channel: &str,
    v: &'t VideoView<'t>,
    runs: Option<&[Window]>,
) -> Vec<Field<'t>> {
    let untimed = |scope, texts| Field {
        scope,
        texts,
        times: Times::Untimed,
        first: 0,
        span: false,
    };
    let whole = [Window {
        first: 0,
        at: 0..v.cues.len(),
    }];
    let captions = |w: &Window| Field {
        scope: Scope::Transcripts,
        texts: v.cues[w.at.clone()]
            .iter()
            .map(|cue| cue.text.as_ref())
            .collect(),
        times: Times::Cues(&v.cues[w.at.clone()]),
        first: w.first,
        span: true,
    };
    let mut fields = Vec::new();
    for &scope in &c.scopes {
        match scope {
            Scope::Transcripts => fields.extend(runs.unwrap_or(&whole).iter().map(captions)),
            Scope::Title => fields.push(untimed(scope, vec![v.title.as_ref()])),
            Scope::Metadata => {
                let channel_name = site.channel(channel).map_or("", |ch| ch.name.as_str());
                fields.push(untimed(scope, vec![v.title.as_ref(), channel_name]));
            }
            Scope::Description => fields.push(untimed(scope, vec![v.description.as_ref()])),
            Scope::Tags => fields.push(untimed(scope, v.tags.iter().map(|t| t.as_ref()).collect())),
            Scope::Chat | Scope::Posts => {}
        }
    }
    fields
}

fn video_result(
    site: &Site,
    p: &PageRef,
    held: &impl Held,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Option<VideoResult> {
    let (v, runs) = (held.view(), held.runs());
    let fields = video_fields(c, site, &p.channel, v, runs.map(|(w, _)| w));
    let r = c.terms.judge(p.site, &fields, scratch)?;
    Some(r.into_result(
        site,
        p,
        Item {
            kind: "video",
            slug: &v.slug,
            title: &v.title,
            date: v.upload_date.as_deref().map(str::to_string),
            url: v.webpage_url.as_deref().map(str::to_string),
            platform: v.platform,
            captions: v.facts().captions(),
            length: runs.map_or_else(|| v.caption_bytes(), |(_, bytes)| bytes),
        },
    ))
}

fn post_result(
    site: &Site,
    p: &PageRef,
    post: &Post,
    c: &Compiled,
    scratch: &mut TokenStream,
) -> Option<VideoResult> {
    let fields = [Field {
        scope: Scope::Posts,
        texts: vec![post.text.as_str()],
        times: Times::Untimed,
        first: 0,
        span: false,
    }];
    let r = c.terms.judge(p.site, &fields, scratch)?;
    let title = format!("post by {}, {}", post.author, post.date);
    Some(r.into_result(
        site,
        p,
        Item {
            kind: "post",
            slug: &post.id,
            title: &title,
            date: Some(post.date.clone()),
            url: post.url.clone(),
            platform: None,
            captions: CaptionSource::default(),
            length: crate::format::text_bytes(std::iter::once(post.text.as_str())),
        },
    ))
}
