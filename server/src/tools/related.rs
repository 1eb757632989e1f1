//! `significant_terms` and `related_videos`: what is said alongside a
//! query, and which videos are most like one video. The counting is
//! `archilyzer_core::related`'s; this lays the answer out within the
//! budget, the terms (or videos) shown as far as it holds.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::query::{CallFilters, Request};
use archilyzer_core::related::{
    related_videos as alike, significant_terms as significant, AlikeOptions, Related, RelatedVideo,
    SignificantOptions, SignificantTerms,
};
use archilyzer_core::report::share;
use archilyzer_core::source::SourceHandle;

/// `significant_terms`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SignificantArgs {
    /// The query whose matches are the foreground, as search_transcripts
    /// takes it (a phrase, a final * for a prefix, or a regex).
    pub query: String,
    /// Treat query as a regex over the raw caption text.
    #[serde(default)]
    pub regex: bool,
    /// Drop videos that also match any of these (never alias-expanded).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Fields whose words are counted and searched: transcripts,
    /// description, tags, metadata. Default: captions and titles. Chat and
    /// posts are refused (their units are not videos).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Also match the vocabulary's words within this many edits of each
    /// query word of 5+ letters (default 0).
    #[schemars(range(max = 2))]
    #[serde(default)]
    pub fuzzy: u8,
    /// Expand the query through the curated aliases (default true).
    #[serde(default = "super::args::yes")]
    pub use_aliases: bool,
    /// A term must be said in at least this many matching videos
    /// (default 3).
    #[schemars(range(min = 1))]
    #[serde(default = "three")]
    pub min_videos: usize,
    /// Terms to give, highest score first (default 25).
    #[schemars(range(min = 1, max = 1000))]
    #[serde(default = "twenty_five")]
    pub limit: usize,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
    /// The filters: they choose the background as well as the matches.
    #[serde(flatten)]
    pub filters: CallFilters,
}

fn three() -> usize {
    3
}

fn twenty_five() -> usize {
    25
}

fn ten() -> usize {
    10
}

/// `related_videos`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelatedArgs {
    /// The video's id.
    pub video_id: String,
    /// Its channel (slug or name), to find it first there.
    #[serde(default)]
    pub channel: Option<String>,
    /// Fields whose words are compared: transcripts, description, tags,
    /// metadata. Default: captions and titles.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Of the video's words (said at least twice, held by at least five
    /// videos), how many of the heaviest by tf × idf to look for
    /// (default 25).
    #[schemars(range(min = 1, max = 100))]
    #[serde(default = "twenty_five")]
    pub terms: usize,
    /// Videos to give, most alike first (default 10).
    #[schemars(range(min = 1, max = 200))]
    #[serde(default = "ten")]
    pub limit: usize,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
    /// The filters: which videos may be given.
    #[serde(flatten)]
    pub filters: CallFilters,
}

/// The `significant_terms` tool.
pub fn significant_terms(
    sources: &Sources,
    handle: &SourceHandle,
    args: &SignificantArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let request = Request {
        query: args.query.clone(),
        regex: args.regex,
        use_aliases: args.use_aliases,
        exclude: args.exclude.clone(),
        fuzzy: args.fuzzy.min(2),
        scopes: args.scopes.clone(),
        filters: args.filters.0.clone(),
        ..Request::default()
    };
    let opts = SignificantOptions {
        min_videos: args.min_videos,
        limit: args.limit,
        ..SignificantOptions::default()
    };
    let found =
        significant(&archive, index.as_deref(), &request, opts).map_err(|e| e.to_string())?;
    // The terms as far as the budget holds; if one term with its share
    // link is still too long (a very long query), the links go.
    let render_with = |found: &SignificantTerms, room: usize| {
        let head = significant_head(found);
        let lines: Vec<String> = found.terms.iter().map(|t| term_line(found, t)).collect();
        let (text, shown) = fill(head, &lines, &found.index, room);
        let answer = SignificantTerms {
            terms: found.terms[..shown].to_vec(),
            ..found.clone()
        };
        (text, crate::output::content(&answer))
    };
    let unlinked = SignificantTerms {
        terms: found
            .terms
            .iter()
            .map(|t| archilyzer_core::related::SignificantTerm {
                search: None,
                ..t.clone()
            })
            .collect(),
        ..found.clone()
    };
    let render = |room: usize| {
        let linked = render_with(&found, room);
        match crate::budget::size(&linked.0, &linked.1) <= room {
            true => linked,
            false => render_with(&unlinked, room),
        }
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
        render,
    ))
}

/// The `related_videos` tool.
pub fn related_videos(
    sources: &Sources,
    handle: &SourceHandle,
    args: &RelatedArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let opts = AlikeOptions {
        terms: args.terms,
        limit: args.limit,
        ..AlikeOptions::default()
    };
    let hints: Vec<String> = args.channel.iter().cloned().collect();
    let found = alike(
        &archive,
        index.as_deref(),
        &args.video_id,
        &hints,
        &args.scopes,
        &args.filters.0,
        opts,
    )
    .map_err(|e| e.to_string())?;
    // The videos as far as the budget holds; at small budgets each
    // video's shared words are listed in part, then the words looked for
    // are cut too (the heaviest kept).
    let render_with = |terms: usize, shared: usize, room: usize| {
        let r = Related {
            terms: found.terms[..terms].to_vec(),
            videos: found
                .videos
                .iter()
                .map(|v| RelatedVideo {
                    shared: v.shared.iter().take(shared).cloned().collect(),
                    ..v.clone()
                })
                .collect(),
            ..found.clone()
        };
        let lines: Vec<String> = r.videos.iter().map(video_line).collect();
        let (text, shown) = fill(related_head(&r, found.terms.len()), &lines, &r.index, room);
        let answer = Related {
            videos: r.videos[..shown].to_vec(),
            ..r
        };
        (text, crate::output::content(&answer))
    };
    let all = found.terms.len();
    let tries: Vec<(usize, usize)> = [(all, usize::MAX), (all, 10), (all, 3)]
        .into_iter()
        .chain((1..all).rev().map(|t| (t, 3)))
        .collect();
    let render = |room: usize| {
        let mut answer = render_with(all, usize::MAX, room);
        for &(terms, shared) in &tries {
            answer = render_with(terms, shared, room);
            if crate::budget::size(&answer.0, &answer.1) <= room {
                break;
            }
        }
        answer
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
        render,
    ))
}

/// `head`, then as many of `lines` as `room` holds (one at least), then
/// how many were left out and the index's line; the text and the lines
/// shown.
fn fill(head: String, lines: &[String], index: &str, room: usize) -> (String, usize) {
    let mut out = head;
    let tail = format!("{index}\n");
    let mut shown = 0;
    for l in lines {
        if shown > 0 && out.len() + l.len() + tail.len() + 80 > room {
            break;
        }
        out.push_str(l);
        shown += 1;
    }
    if shown < lines.len() {
        out.push_str(&format!(
            "… {} more not shown (size budget): raise max_chars, or lower limit\n",
            lines.len() - shown
        ));
    }
    out.push_str(&tail);
    (out, shown)
}

/// What a significant-terms answer counts, partial coverage first.
fn significant_head(s: &SignificantTerms) -> String {
    let mut out = partial_line(&s.unreadable);
    out.push_str(&format!(
        "# Said alongside {:?}\n{} matching video(s) (the foreground) of {} in scope (the background); {} word(s) are said in at least {} of the matches and more often there than in the background, scored by JLH = (fg/F − bg/B) × (fg/F) / (bg/B).\n\n",
        s.query, s.foreground, s.background, s.terms_total, s.min_videos
    ));
    out
}

/// One term: its score and shares, and the search for the query with it.
fn term_line(s: &SignificantTerms, t: &archilyzer_core::related::SignificantTerm) -> String {
    let search = match &t.search {
        Some(link) => format!(" — query AND {}: open_link {link}", t.word),
        None => String::new(),
    };
    format!(
        "- **{}** (score {:.2}): said in {} of the matches, {} of the background{search}\n",
        t.word,
        t.score,
        share(t.fg, s.foreground as u64),
        share(t.bg, s.background as u64),
    )
}

/// What a related-videos answer compares, partial coverage first.
fn related_head(r: &Related, looked_for: usize) -> String {
    let mut out = partial_line(&r.unreadable);
    let words: Vec<String> = r
        .terms
        .iter()
        .map(|t| format!("{} (×{}, in {} videos)", t.word, t.tf, t.df))
        .collect();
    out.push_str(&format!(
        "# Videos like {}/{} \"{}\"\nIts {} heaviest word(s) by tf × idf: {}{}.\n{} of {} video(s) in scope share at least one; scored by the sum of the idf of the words shared.\n\n",
        r.video.channel,
        r.video.slug,
        r.title,
        looked_for,
        words.join(", "),
        if r.terms.len() < looked_for {
            format!(" (the first {} shown: size budget)", r.terms.len())
        } else {
            String::new()
        },
        r.videos_total,
        r.background
    ));
    out
}

/// One related video: score, identity, and the words it shares.
fn video_line(v: &RelatedVideo) -> String {
    let more = match v.shared_count - v.shared.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let copy = match v.same_recording {
        true => " (another upload of this recording)",
        false => "",
    };
    format!(
        "- {:.2} **{}** ({}/{}){copy} — shares {} word(s): {}{more}\n",
        v.score,
        v.title,
        v.channel,
        v.slug,
        v.shared_count,
        v.shared.join(", ")
    )
}

/// The line that says some pages could not be read, or nothing.
fn partial_line(unreadable: &[String]) -> String {
    match unreadable {
        [] => String::new(),
        pages => format!(
            "⚠ PARTIAL: {} page(s) could not be read, so their videos are not counted: {}\n",
            pages.len(),
            pages.join("; ")
        ),
    }
}
