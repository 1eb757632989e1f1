//! `mention_trend`: when a query (or up to eight) was said, per year,
//! quarter or month, with the hours of speech in scope, from the one
//! trend engine ([`archilyzer_core::trend`]).
//!
//! The answer spends its budget on counts first: every period's counts
//! always fit or the call is refused with what to ask instead; the top
//! moments come when there is room for all of them.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::args::FindOptions;
use super::search::{first_lines, request};
use crate::budget;
use crate::sources::Sources;
use crate::tool::{Progress, Tick, ToolResult};
use archilyzer_core::query::Request;
use archilyzer_core::report;
use archilyzer_core::source::SourceHandle;
use archilyzer_core::trend::{self, Ask, By, Row, Top, Trend};

/// `mention_trend`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TrendArgs {
    /// Words to find (a phrase of whole words; a final * makes the last a
    /// prefix), or a regex with regex:true (give this or queries).
    #[serde(default)]
    pub query: Option<String>,
    /// Up to 8 phrases to compare, each compiled as query is (give this
    /// or query).
    #[schemars(length(min = 1, max = 8))]
    #[serde(default)]
    pub queries: Vec<String>,
    /// The periods' length (default year).
    #[serde(default)]
    pub by: By,
    /// How the queries are found, and the filters.
    #[serde(flatten)]
    pub find: FindOptions,
}

/// The requests `args` asks for: `query` or `queries`, each with the
/// shared filters and options, and no cap on matching videos (a trend
/// counts every match, as `enumerate_matches` does).
pub fn requests(args: &TrendArgs) -> Result<Vec<Request>, String> {
    let mut queries = args.queries.clone();
    if let Some(q) = &args.query {
        queries.insert(0, q.clone());
    }
    let queries = trend::check_queries(queries)?;
    let base = request("", &args.find);
    Ok(queries
        .into_iter()
        .map(|query| Request {
            query,
            max_videos: None,
            ..base.clone()
        })
        .collect())
}

/// The `mention_trend` tool.
pub fn mention_trend(
    sources: &Sources,
    handle: &SourceHandle,
    args: &TrendArgs,
    budget: usize,
    progress: Progress,
) -> ToolResult {
    let requests = requests(args)?;
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let ask = Ask {
        requests: &requests,
        by: args.by,
        collapse_mirrors: args.find.collapse_duplicates,
    };
    let t = trend::trend(
        &archive,
        index.as_deref(),
        &ask,
        &mut |_, _| {},
        &mut |done, total| progress(Tick::pages(done, total)),
    )
    .map_err(|e| e.to_string())?;
    // Each query's first lines, in query order, each warning said once.
    let mut head = String::new();
    for lines in t.responses.iter().map(|r| first_lines(&archive, r)) {
        if !head.contains(&lines) {
            head.push_str(&lines);
        }
    }
    let room = budget::of_answer(budget, archive.handle());
    for detail in Detail::most_first(&t) {
        let (text, structured) = render(&t, &head, detail);
        if budget::size(&text, &structured) <= room {
            return Ok((text, structured));
        }
    }
    Err(too_long(&t).into())
}

/// What an answer shows beyond the counts: each period's top moment, and
/// how many undated matches it names per query.
#[derive(Debug, Clone, Copy)]
struct Detail {
    tops: bool,
    undated: usize,
}

impl Detail {
    /// The details to try, most first: every top and every undated match,
    /// then fewer undated matches by halves, then no top either.
    fn most_first(t: &Trend) -> Vec<Detail> {
        let most = t
            .undated
            .by_query
            .values()
            .map(|c| c.listed.len())
            .max()
            .unwrap_or(0);
        let halves = std::iter::successors(Some(most), |n| (*n > 0).then_some(n / 2));
        let mut out: Vec<Detail> = halves
            .map(|undated| Detail {
                tops: true,
                undated,
            })
            .collect();
        out.push(Detail {
            tops: false,
            undated: 0,
        });
        out
    }
}

/// The structured content of `mention_trend`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct TrendAnswer {
    /// The counts, per period and query.
    #[serde(flatten)]
    pub trend: Trend,
    /// Each period's top moment is given (false when the size budget left
    /// them out).
    pub tops_included: bool,
    /// Some query's scan did not read every page in scope.
    pub coverage_partial: bool,
}

/// The refusal when even the counts do not fit the budget.
fn too_long(t: &Trend) -> String {
    let (queries, ceiling) = (t.queries.len(), budget::CEILING_CHARS);
    match t.periods.len() {
        0 => format!(
            "the counts and notes of {queries} query(ies) (no dated match, so no period) do not fit the size budget: compare fewer queries, or raise max_chars (at most {ceiling})"
        ),
        n => format!(
            "{n} period(s) by {} for {queries} query(ies) do not fit the size budget even without the top moments: ask by a longer period (quarter, year), narrow date_from/date_to, compare fewer queries, or raise max_chars (at most {ceiling})",
            t.by.as_str()
        ),
    }
}

/// The answer's text and structured content, with the `detail` given.
fn render(t: &Trend, head: &str, detail: Detail) -> (String, Value) {
    let mut out = head.to_string();
    for k in 0..t.queries.len() {
        out.push_str(&format!("{}, by {}\n", t.headline(k), t.by.as_str()));
    }
    out.push_str(&format!("{}\n", hours_line(t)));
    out.push_str("each period: hours of speech in scope · videos, hits · caption hits per hour (title hits apart)");
    if t.queries.len() > 1 {
        out.push_str("; each query apart, then the distinct videos any matched");
    }
    out.push_str("\n\n");
    let shown = detailed(t, detail);
    for row in shown.periods.iter().chain(std::iter::once(&shown.undated)) {
        out.push_str(&period_block(t, row, detail.tops));
    }
    out.push_str(&undated_block(t, &shown));
    if !detail.tops {
        out.push_str("\n(top moments left out for the size budget: ask with fewer periods, or a larger max_chars, to get them)\n");
    }
    out.push_str("\n---\n");
    for line in t.footer() {
        out.push_str(&format!("{line}\n"));
    }
    let answer = TrendAnswer {
        trend: shown,
        tops_included: detail.tops,
        coverage_partial: t.responses.iter().any(|r| r.coverage.partial),
    };
    (out, crate::output::content(&answer))
}

/// `t` as an answer with `detail` shows it: tops dropped, undated lists
/// cut.
fn detailed(t: &Trend, detail: Detail) -> Trend {
    let mut shown = t.clone();
    for row in shown
        .periods
        .iter_mut()
        .chain(std::iter::once(&mut shown.undated))
    {
        for cell in row.by_query.values_mut() {
            if !detail.tops {
                cell.top = None;
            }
            cell.listed.truncate(detail.undated);
        }
    }
    shown
}

/// The undated matches each query names, and how many more there are.
fn undated_block(t: &Trend, shown: &Trend) -> String {
    let mut out = String::new();
    for (query, cell) in &shown.undated.by_query {
        let all = t.undated.by_query.get(query).map_or(0, |c| c.listed.len());
        if all == 0 {
            continue;
        }
        out.push_str(&format!(
            "undated matches of {query:?} (on no time axis):\n"
        ));
        for top in &cell.listed {
            out.push_str(&top_line(top));
        }
        if all > cell.listed.len() {
            out.push_str(&format!(
                "    … and {} more (enumerate_matches lists them all)\n",
                all - cell.listed.len()
            ));
        }
    }
    out
}

/// What the hours are and what they miss.
fn hours_line(t: &Trend) -> String {
    let total: f64 = t.periods.iter().map(|r| r.hours).sum::<f64>() + t.undated.hours;
    let mut line = format!(
        "hours of speech in scope: {total:.1} (the summaries' lengths of the videos that pass the filters)"
    );
    if t.hours.unknown_length > 0 {
        line.push_str(&format!(
            "; {} video(s) in scope have no known length and add none",
            t.hours.unknown_length
        ));
    }
    if !t.hours.sites_without_summaries.is_empty() {
        line.push_str(&format!(
            "; no summaries, so no hours, for: {}",
            t.hours.sites_without_summaries.join(", ")
        ));
    }
    line
}

/// One period: its speech, each query's counts (on the period's line
/// with one query), the distinct videos with several, and each query's
/// top moment.
fn period_block(t: &Trend, row: &Row, tops: bool) -> String {
    let several = t.queries.len() > 1;
    let mut out = format!("{} · {:.1} h", row.period, row.hours);
    if several {
        out.push_str(&format!(" · {} distinct video(s)\n", row.distinct_videos));
    }
    for (query, cell) in t
        .queries
        .iter()
        .filter_map(|q| Some((q, row.by_query.get(q)?)))
    {
        let counts = format!(
            "{}{}",
            report::counts(cell.videos, cell.hits),
            rate(cell.per_hour)
        );
        match several {
            true => out.push_str(&format!("  {query:?}: {counts}\n")),
            false => out.push_str(&format!(" · {counts}")),
        }
        if tops && row.period != "undated" {
            if !several {
                out.push('\n');
            }
            out.extend(cell.top.as_ref().map(top_line));
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn rate(per_hour: Option<f64>) -> String {
    per_hour.map_or(String::new(), |r| format!(" · {r:.2}/h"))
}

fn top_line(top: &Top) -> String {
    let at = top.start.map_or(String::new(), |s| {
        format!(" at {}", archilyzer_core::links::clock(s))
    });
    let link = top
        .link
        .as_deref()
        .map_or(String::new(), |l| format!(" {l}"));
    format!(
        "    top: {} ({}/{}, {} hit(s)){at}{link}\n",
        top.title, top.channel, top.id, top.hits
    )
}
