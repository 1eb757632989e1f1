//! The one instructions builder behind `sweep_plan`, `ask_plan` and the
//! `sweep` prompt, so the discipline cannot drift between them.
//!
//! A sweep is a map-reduce over the complete worklist: scope first (never
//! a silent whole-corpus sweep), one `enumerate_matches`, N and the batch
//! count stated, verbatim extraction per batch on a cheap model with the
//! corpus handle passed explicitly, synthesis with linked citations, and a
//! summary of how many were actually read. An ask is the short form.
//! Every backticked word in these texts is a real tool (a test checks).

use serde_json::Value;

use archilyzer_core::share::request::Parsed;

/// Which plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A map-reduce sweep over the complete worklist.
    Sweep,
    /// An answer with linked citations.
    Ask,
}

/// How the worklist is found.
#[derive(Debug, Clone, PartialEq)]
pub enum Worklist {
    /// One `enumerate_matches` with these arguments (from a link whose
    /// tree is a plain search).
    Enumerate(Value),
    /// Page `open_link` (a tree no single search expresses), narrowed to
    /// the channels the request named beside the link, if any.
    OpenLink {
        /// The link.
        link: String,
        /// The channels to narrow it to.
        channels: Option<Vec<String>>,
    },
    /// The agent picks the terms from the question.
    FromQuestion,
}

/// Everything the builder needs, already resolved against the corpus.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Which plan.
    pub kind: Kind,
    /// The corpus, as the handle to pass as `source`.
    pub handle: String,
    /// The request, parsed.
    pub parsed: Parsed,
    /// The scope as a sentence, or `None` when none was given.
    pub scope: Option<String>,
    /// `id · name · N channels` lines, for picking a scope.
    pub roster: Vec<String>,
    /// How the worklist is found.
    pub worklist: Worklist,
    /// The share link the request carried.
    pub link: Option<String>,
}

fn numbered(steps: &[String]) -> String {
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {s}\n", i + 1))
        .collect()
}

/// The plan's text.
pub fn build(r: &Resolved) -> String {
    let p = &r.parsed;
    let s = &p.settings;
    let title = match r.kind {
        Kind::Sweep => "Sweep plan",
        Kind::Ask => "Ask plan",
    };
    let mut out = format!("# {title}\n");
    for w in &p.warnings {
        out.push_str(&format!("{w}\n"));
    }
    let directive = s.directive.clone().unwrap_or_else(|| p.question.clone());
    out.push_str(&format!(
        "- corpus: {h}. Pass source: \"{h}\" on every call, and give it to every subagent (one that leaves it out reads another archive).\n- question: {}\n- directive: {directive}\n",
        p.question,
        h = r.handle
    ));
    if r.kind == Kind::Sweep {
        out.push_str(&format!(
            "- batches of {}, extracted on model {}; report file: {}\n",
            s.batch_size,
            s.parse_model,
            s.report.as_deref().unwrap_or("sweep-report.md")
        ));
    }
    out.push('\n');
    let steps = match r.kind {
        Kind::Sweep => sweep_steps(r),
        Kind::Ask => ask_steps(r),
    };
    out.push_str(&numbered(&steps));
    out
}

fn scope_step(r: &Resolved) -> String {
    match &r.scope {
        Some(scope) => format!("**Scope.** {scope}."),
        None => format!(
            "**Scope first.** No scope was given. Never sweep the whole corpus silently: pick the channels or groups the question is about from this roster (pass them as channels or groups), or ask me.\n{}",
            r.roster.iter().map(|l| format!("   - {l}")).collect::<Vec<_>>().join("\n")
        ),
    }
}

fn worklist_step(r: &Resolved) -> String {
    let once = "It lists every match with complete totals; when a page gives a next_cursor, call it again with the same arguments and that cursor until none is given. Never page `search_transcripts` to cover a query. If it says PARTIAL, run it again scoped to the channels it did not reach before you go on.";
    match &r.worklist {
        Worklist::Enumerate(args) => format!(
            "**The worklist, once.** Call `enumerate_matches` with {args} (the link's search{}). {once}",
            narrowed(r)
        ),
        Worklist::OpenLink { link, channels } => format!(
            "**The worklist.** The link's query tree is more than one search, so call `open_link` with link: \"{link}\"{}, limit: 200 and collapse_duplicates as you need, then again with offset 200, 400, … until has_more is false. Its videos are the worklist.",
            overrides(channels)
        ),
        Worklist::FromQuestion => format!(
            "**The worklist, once.** Choose the search terms from the question (a phrase of whole words, or a regex with regex: true{}), then call `enumerate_matches` once with them, the scope and source: \"{}\". {once}",
            if r.parsed.settings.regex { ", as asked" } else { "" },
            r.handle
        ),
    }
}

fn citation_rule() -> &'static str {
    "Cite every source as [title @ mm:ss](<moment_base><seconds>): the video's moment_base with the integer seconds appended, so a click opens that second; a video with no moment_base is cited by its source URL. A post has no timeline: cite it as [post by <author>, <date>](<url>), never with @ mm:ss."
}

fn media_step(r: &Resolved) -> String {
    format!(
        "**Media for a cited moment, through the editor only.** When I ask for the clip behind a citation (or the report needs one), call `fetch_clip` with that citation's channel, video id, start and end in seconds (or mm:ss) and a one-line reason (or full: true when the ask genuinely needs the whole recording; a window is the default), and pass source: \"{}\" so a Rumble id resolves to the right directory. NEVER run yt-dlp yourself, in any form. If the tool says no editor is configured, say so and stop: the README's yt-dlp command is the operator's fallback, not yours. If it answers queued, call it again with the job it names.",
        r.handle
    )
}

fn content_types(r: &Resolved) -> String {
    let types = &r.parsed.settings.content_types;
    if types.is_empty() {
        String::new()
    } else {
        format!(", content_types: {:?}", types)
    }
}

fn sweep_steps(r: &Resolved) -> Vec<String> {
    let s = &r.parsed.settings;
    let b = s.batch_size;
    vec![
        scope_step(r),
        worklist_step(r),
        format!("**Size.** State N, the number of videos in the worklist, and the batch count: ceil(N / {b}) batches of {b}."),
        format!(
            "**Per batch: verbatim extraction on the cheap model.** For each batch, spawn a subagent with the Task tool on model \"{}\" (where the Task tool takes no model override, spawn it on the default). Give it the batch's ids, the directive and the corpus handle. It calls `get_transcripts` with video_ids (the batch), query or queries (the search terms), link_style: \"base\" and source: \"{}\"{}, and returns ONLY the lines that bear on the directive, verbatim, grouped per video under its moment_base line, in their [mm:ss|seconds] form: at most 40 lines (about 600 words) per batch. No analysis and no summary. Batches are independent: run several at once.",
            s.parse_model,
            r.handle,
            content_types(r)
        ),
        format!(
            "**Synthesis (you, not the subagents).** Build the claims, contradictions and cross-references from the fragments, then drop each fragment. {}",
            citation_rule()
        ),
        media_step(r),
        format!(
            "**Finish.** Write the report to {}. End it with how many of the N videos were actually read (every batch, or which were not); never state a count you did not read.",
            s.report.as_deref().unwrap_or("sweep-report.md")
        ),
    ]
}

/// How the link's search was changed by the request's channels.
fn narrowed(r: &Resolved) -> &'static str {
    let s = &r.parsed.settings;
    if s.channels.is_empty() && s.groups.is_empty() {
        ", exactly"
    } else {
        ", narrowed to the channels you named"
    }
}

/// `open_link`'s overrides for the channels a request named.
fn overrides(channels: &Option<Vec<String>>) -> String {
    channels.as_ref().map_or(String::new(), |c| {
        format!(", overrides: {}", serde_json::json!({ "channels": c }))
    })
}

fn ask_steps(r: &Resolved) -> Vec<String> {
    let find = match &r.worklist {
        Worklist::Enumerate(args) => format!(
            "**Find.** Call `search_transcripts` with {args} (the link's search{}); its results are the candidates. If the answer needs a count or every match, call `enumerate_matches` with the same arguments instead: never count from a page.",
            narrowed(r)
        ),
        Worklist::OpenLink { link, channels } => format!(
            "**Find.** Call `open_link` with link: \"{link}\"{}; its results are the candidates.",
            overrides(channels)
        ),
        Worklist::FromQuestion => format!(
            "**Find.** Call `search_transcripts` with the terms of the question, the scope and source: \"{}\". If the answer needs a count or every match, call `enumerate_matches` instead (one scan, the complete list): never count from a page.",
            r.handle
        ),
    };
    let mut steps = vec![
        scope_step(r),
        find,
        format!(
            "**Read.** Call `get_transcripts` on the most relevant ids (up to 20 per call) with the question's terms as queries, link_style: \"base\" and source: \"{}\"{}; use `get_transcript` for one whole video.",
            r.handle,
            content_types(r)
        ),
        format!("**Answer** from what you read. {}", citation_rule()),
        media_step(r),
    ];
    let finish = match &r.parsed.settings.report {
        Some(path) => format!("**Finish.** Write the answer to {path}, and say which videos you read; if it rests on one page of results, say that it is not the whole set."),
        None => "**Finish.** Say which videos you read; if the answer rests on one page of results, say that it is not the whole set.".to_string(),
    };
    steps.push(finish);
    steps
}
