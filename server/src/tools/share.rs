//! `open_link`: a viewer share link re-run here, in one call. The link is
//! decoded (every wrong part named), its origin resolved to a corpus
//! handle, structured `overrides` applied, the channel scope checked
//! against that corpus, and the plan returned with the first page of
//! linked results and the handle to pass as `source` from then on.
//! `dry_run` returns the plan alone. Nothing is switched or remembered.

use super::search::{render_page, Found, PageArgs, Shown, DEFAULT_MAX_PAGES, MAX_VIDEOS};
use crate::context::Context;
use crate::tool::{Progress, Tick, ToolResult};
use archilyzer_core::query::{Filters, Scope, FILTERS};
use archilyzer_core::share::eval::{self, Caps};
use archilyzer_core::share::{Node, ShareLink, Term};
use archilyzer_core::time::parse_day;

/// `open_link`'s adjustments to a link before it runs (each named in the
/// plan it returns).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    /// Drop the link's availability filter.
    #[serde(default)]
    pub clear_availability: bool,
    /// Drop its media-type filter.
    #[serde(default)]
    pub clear_type: bool,
    /// Drop its audience filter.
    #[serde(default)]
    pub clear_age: bool,
    /// Drop its date range.
    #[serde(default)]
    pub clear_dates: bool,
    /// Drop every filter but the channels.
    #[serde(default)]
    pub clear_filters: bool,
    /// Drop its channel scope.
    #[serde(default)]
    pub clear_channels: bool,
    /// Search these channels instead (slugs or names).
    #[serde(default)]
    pub channels: Option<Vec<String>>,
    /// From this upload day: YYYYMMDD or YYYY-MM-DD.
    #[serde(default)]
    pub date_from: Option<String>,
    /// To this upload day.
    #[serde(default)]
    pub date_to: Option<String>,
    /// Search these words instead of the link's.
    #[serde(default)]
    pub query: Option<String>,
    /// The query is a regex.
    #[serde(default)]
    pub regex: Option<bool>,
    /// The one field to search: transcripts, chat, metadata, description,
    /// tags or posts.
    #[serde(default)]
    pub query_scope: Option<String>,
}

fn date(key: &str, v: &str) -> Result<String, String> {
    parse_day(v).map_err(|e| format!("open_link: overrides.{key}: {e}"))
}

/// Applies `o` to `link`; the list of what was applied.
pub fn apply_overrides(link: &mut ShareLink, o: &Overrides) -> Result<Vec<String>, String> {
    let mut applied = Vec::new();
    let f = &mut link.filters;
    let clears = [
        ("clear_availability", o.clear_availability),
        ("clear_type", o.clear_type),
        ("clear_age", o.clear_age),
        ("clear_dates", o.clear_dates),
        ("clear_filters", o.clear_filters),
        ("clear_channels", o.clear_channels),
    ];
    for (key, on) in clears.into_iter().filter(|(_, on)| *on) {
        match key {
            "clear_availability" => f.states.clear(),
            "clear_type" => f.media_type = None,
            "clear_age" => f.age = None,
            "clear_dates" => (f.date_from, f.date_to) = (None, None),
            "clear_filters" => {
                for filter in FILTERS.iter().filter(|x| x.name != "channels") {
                    filter.clear(f);
                }
            }
            _ => f.channels.clear(),
        }
        applied.push(format!("{key}: {on}"));
    }
    if let Some(channels) = &o.channels {
        f.channels = channels.clone();
        applied.push(format!("channels: {channels:?}"));
    }
    if let Some(d) = &o.date_from {
        f.date_from = Some(date("date_from", d)?);
        applied.push(format!("date_from: {d:?}"));
    }
    if let Some(d) = &o.date_to {
        f.date_to = Some(date("date_to", d)?);
        applied.push(format!("date_to: {d:?}"));
    }
    if let Some(tree) = replaced_tree(link, o)? {
        link.tree = tree;
        applied.push("the search replaced by overrides.query".into());
    }
    Ok(applied)
}

/// The tree `query` / `regex` / `query_scope` make, if any is given.
fn replaced_tree(link: &ShareLink, o: &Overrides) -> Result<Option<Node>, String> {
    if o.query.is_none() && o.regex.is_none() && o.query_scope.is_none() {
        return Ok(None);
    }
    let current = match &link.tree {
        Node::Term(t) => t.clone(),
        _ if o.query.is_some() => Term { aliases: true, ..Term::default() },
        _ => return Err("open_link: the link's tree has several terms, so overrides.regex / query_scope need overrides.query too".into()),
    };
    let query = match &o.query {
        None => current.query.clone(),
        Some(q) if !q.trim().is_empty() => q.clone(),
        Some(q) => {
            return Err(format!(
                "open_link: overrides.query must be a non-empty string, got {q:?}"
            ))
        }
    };
    let regex = o.regex.unwrap_or(current.regex);
    let scopes = match &o.query_scope {
        None => current.scopes.clone(),
        Some(name) => {
            let scope = Scope::parse(name).ok_or_else(|| {
                format!("open_link: overrides.query_scope {name:?} is not one of transcripts, chat, metadata, description, tags, posts")
            })?;
            vec![scope.as_str().to_string()]
        }
    };
    Ok(Some(Node::Term(Term {
        query,
        regex,
        case_sensitive: false,
        aliases: !regex,
        scopes,
    })))
}

fn filters_line(link: &ShareLink) -> String {
    let f = &link.filters;
    let mut parts = Vec::new();
    if !f.channels.is_empty() {
        parts.push(format!("channels {}", f.channels.join(", ")));
    }
    parts.extend(f.media_type.iter().map(|t| format!("type {t}")));
    parts.extend(f.age.iter().map(|a| format!("audience {a}")));
    if !f.states.is_empty() {
        parts.push(format!("availability {}", f.states.join(", ")));
    }
    if f.date_from.is_some() || f.date_to.is_some() {
        parts.push(format!(
            "uploaded {} to {}",
            f.date_from.as_deref().unwrap_or("the start"),
            f.date_to.as_deref().unwrap_or("now")
        ));
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(" · ")
    }
}

/// `open_link`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct OpenLinkArgs {
    /// The share link, as pasted.
    pub link: String,
    /// Return the plan without searching.
    #[serde(default)]
    pub dry_run: bool,
    /// Adjustments to the link before it runs.
    #[serde(default)]
    pub overrides: Overrides,
    /// Fold mirrors of one recording into one row, naming the copies
    /// (default true).
    #[serde(default = "super::args::yes")]
    pub collapse_duplicates: bool,
    /// The page of results (in archive order unless order says).
    #[serde(flatten)]
    pub page: PageArgs,
}

/// The `open_link` tool; the corpus its result names comes from the link.
pub fn open_link(
    ctx: &Context,
    args: OpenLinkArgs,
    budget: usize,
    progress: Progress,
) -> (ToolResult, String) {
    let default = ctx.sources.default_handle().to_string();
    let mut link = match ShareLink::decode(&args.link) {
        Ok(l) => l,
        Err(e) => return (Err(format!("open_link: {e}").into()), default),
    };
    let overrides = &args.overrides;
    let applied = match apply_overrides(&mut link, overrides) {
        Ok(a) => a,
        Err(e) => return (Err(e.into()), default),
    };
    let (handle, how) = match ctx.sources.handle_for_origin(&link.origin) {
        Ok(h) => h,
        Err(e) => return (Err(format!("open_link: {e}").into()), default),
    };
    (
        run(
            ctx,
            &link,
            (&handle, &how),
            &applied,
            (&args, budget),
            progress,
        ),
        handle.to_string(),
    )
}

/// Runs `link` on the corpus it resolved to (`corpus`: its handle and
/// how it was found), with the `overrides` applied, paged as `asked`
/// says (the arguments and the budget).
fn run(
    ctx: &Context,
    link: &ShareLink,
    corpus: (&archilyzer_core::source::SourceHandle, &str),
    applied: &[String],
    asked: (&OpenLinkArgs, usize),
    progress: Progress,
) -> ToolResult {
    let ((handle, how), (args, budget)) = (corpus, asked);
    let archive = ctx.sources.archive(handle)?;
    let scope = Filters::resolve(&link.filters, &archive)
        .map_err(|e| format!("the link's filters do not fit corpus {handle}: {e}"))?
        .notes;
    let mut plan = format!(
        "# Share link plan\n- corpus: {handle} ({how}); pass source: \"{handle}\" in follow-up calls\n- search: {}\n- filters: {}\n",
        link.tree.render(),
        filters_line(link)
    );
    for note in &scope {
        let mark = if note.starts_with("scope:") {
            ""
        } else {
            "⚠ "
        };
        plan.push_str(&format!("- {mark}{note}\n"));
    }
    for i in &link.ignored {
        plan.push_str(&format!("- ignored: {i}\n"));
    }
    if !applied.is_empty() {
        plan.push_str(&format!("- overrides applied: {}\n", applied.join("; ")));
    }
    let facts = LinkPlan {
        source: handle.to_string(),
        origin: link.origin.clone(),
        search: link.tree.render(),
        filters: link.filters.clone(),
        ignored: link.ignored.clone(),
        overrides: applied.to_vec(),
        scope,
    };
    if args.dry_run {
        plan.push_str("\n(dry run: nothing was searched; call again without dry_run to run it)\n");
        let answer = OpenLink {
            plan: facts,
            page: None,
        };
        return Ok((plan, crate::output::content(&answer)));
    }
    let caps = Caps {
        max_pages: Some(DEFAULT_MAX_PAGES),
        max_videos: Some(MAX_VIDEOS),
    };
    let index = ctx.sources.index_dir(handle);
    let response = eval::run(&archive, index.as_deref(), link, caps, &mut |d, t| {
        progress(Tick::pages(d, t))
    })
    .map_err(|e| format!("open_link: {e}"))?;
    let shown = Shown {
        page: &args.page,
        budget,
        default_order: archilyzer_core::query::order::Order::Archive,
    };
    let found = Found::of(&archive, response, args.collapse_duplicates);
    let (page, mut structured) = render_page(&archive, &found, false, &shown, &link.tree.render());
    // The page is a SearchPage already; the plan joins it, as OpenLink
    // declares.
    structured["plan"] = crate::output::content(&facts);
    Ok((format!("{plan}\n{page}"), structured))
}

/// `open_link`'s structured content: the plan, and the first page of
/// results unless `dry_run`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct OpenLink {
    /// What the link asks, resolved here.
    pub plan: LinkPlan,
    /// The results (absent with `dry_run`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub page: Option<super::search::SearchPage>,
}

/// A share link's plan.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct LinkPlan {
    /// The corpus handle to pass as `source` from now on.
    pub source: String,
    /// The link's origin.
    pub origin: String,
    /// Its search, as a query tree.
    pub search: String,
    /// Its filters.
    pub filters: archilyzer_core::query::FilterArgs,
    /// Parts of the link not used, each with why.
    pub ignored: Vec<String>,
    /// The overrides applied.
    pub overrides: Vec<String>,
    /// The resolved scope, and what could not be read.
    pub scope: Vec<String>,
}
