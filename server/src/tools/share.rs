//! `open_link`: a viewer share link re-run here, in one call. The link is
//! decoded (every wrong part named), its origin resolved to a corpus
//! handle, structured `overrides` applied, the channel scope checked
//! against that corpus, and the plan returned with the first page of
//! linked results and the handle to pass as `source` from then on.
//! `dry_run` returns the plan alone. Nothing is switched or remembered.

use serde_json::{Map, Value};

use super::search::{render_page, PageArgs, Shown, DEFAULT_MAX_PAGES, MAX_VIDEOS};
use crate::tool::{Context, Progress, Tick, ToolResult};
use archilyzer_core::query::{Filters, Scope, FILTERS};
use archilyzer_core::share::eval::{self, Caps};
use archilyzer_core::share::{Node, ShareLink, Term};
use archilyzer_core::time::parse_day;

/// The overrides `open_link` takes.
pub const OVERRIDES: &[&str] = &[
    "clear_availability",
    "clear_type",
    "clear_age",
    "clear_dates",
    "clear_filters",
    "clear_channels",
    "channels",
    "date_from",
    "date_to",
    "query",
    "regex",
    "query_scope",
];

fn date(key: &str, v: &Value) -> Result<String, String> {
    let text = v.as_str().ok_or_else(|| {
        format!("open_link: overrides.{key} must be a date, YYYYMMDD or YYYY-MM-DD, got {v}")
    })?;
    parse_day(text).map_err(|e| format!("open_link: overrides.{key}: {e}"))
}

/// Applies `overrides` to `link`; the list of what was applied.
pub fn apply_overrides(
    link: &mut ShareLink,
    overrides: &Map<String, Value>,
) -> Result<Vec<String>, String> {
    let mut applied = Vec::new();
    for (key, v) in overrides {
        if !OVERRIDES.contains(&key.as_str()) {
            return Err(format!(
                "open_link: overrides has no `{key}`; it takes: {}",
                OVERRIDES.join(", ")
            ));
        }
        let on = || {
            v.as_bool()
                .ok_or_else(|| format!("open_link: overrides.{key} must be true or false, got {v}"))
        };
        let f = &mut link.filters;
        match key.as_str() {
            "clear_availability" if on()? => f.states.clear(),
            "clear_type" if on()? => f.media_type = None,
            "clear_age" if on()? => f.age = None,
            "clear_dates" if on()? => (f.date_from, f.date_to) = (None, None),
            "clear_filters" if on()? => {
                for filter in FILTERS.iter().filter(|x| x.name != "channels") {
                    filter.clear(f);
                }
            }
            "clear_channels" if on()? => f.channels.clear(),
            "channels" => {
                f.channels = v
                    .as_array()
                    .filter(|a| a.iter().all(Value::is_string))
                    .ok_or_else(|| format!("open_link: overrides.channels must be a list of channel slugs or names, got {v}"))?
                    .iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect();
            }
            "date_from" => f.date_from = Some(date(key, v)?),
            "date_to" => f.date_to = Some(date(key, v)?),
            "query" | "regex" | "query_scope" => continue,
            _ => continue,
        }
        applied.push(format!("{key}: {v}"));
    }
    if let Some(tree) = replaced_tree(link, overrides)? {
        link.tree = tree;
        applied.push("the search replaced by overrides.query".into());
    }
    Ok(applied)
}

/// The tree `query` / `regex` / `query_scope` make, if any is given.
fn replaced_tree(link: &ShareLink, o: &Map<String, Value>) -> Result<Option<Node>, String> {
    if !["query", "regex", "query_scope"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return Ok(None);
    }
    let current = match &link.tree {
        Node::Term(t) => t.clone(),
        _ if o.contains_key("query") => Term { aliases: true, ..Term::default() },
        _ => return Err("open_link: the link's tree has several terms, so overrides.regex / query_scope need overrides.query too".into()),
    };
    let query = match o.get("query") {
        None => current.query.clone(),
        Some(Value::String(q)) if !q.trim().is_empty() => q.clone(),
        Some(v) => {
            return Err(format!(
                "open_link: overrides.query must be a non-empty string, got {v}"
            ))
        }
    };
    let regex = match o.get("regex") {
        None => current.regex,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(format!(
                "open_link: overrides.regex must be true or false, got {v}"
            ))
        }
    };
    let scopes = match o.get("query_scope") {
        None => current.scopes.clone(),
        Some(v) => {
            let name = v.as_str().unwrap_or("");
            let scope = Scope::parse(name).ok_or_else(|| {
                format!("open_link: overrides.query_scope {v} is not one of transcripts, chat, metadata, description, tags, posts")
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
    /// Adjustments: clear_availability, clear_type, clear_age,
    /// clear_dates, clear_filters, clear_channels (true), channels [..],
    /// date_from, date_to (YYYYMMDD), query, regex, query_scope
    /// (transcripts, chat, metadata, description, tags, posts).
    #[serde(default)]
    pub overrides: Map<String, Value>,
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
        fold: args.collapse_duplicates,
        budget,
        default_order: archilyzer_core::query::order::Order::Archive,
    };
    let (page, mut structured) = render_page(&archive, response, &shown, &link.tree.render());
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
