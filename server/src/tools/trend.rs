//! `mention_trend`: when a query (or up to eight) was said, per year,
//! quarter or month, with the hours of speech in scope, from the one
//! trend engine ([`archilyzer_core::trend`]).
//!
//! The answer spends its budget on counts first: every period's counts
//! always fit or the call is refused with what to ask instead; the top
//! moments come when there is room for all of them.

use serde_json::{json, Map, Value};

use super::search::{first_lines, request};
use crate::budget;
use crate::sources::Sources;
use crate::tool::{bool_arg, list_arg, str_arg, Progress, Tick, ToolResult};
use archilyzer_core::query::Request;
use archilyzer_core::report;
use archilyzer_core::source::SourceHandle;
use archilyzer_core::trend::{self, Ask, By, Cell, Row, Trend};

/// The requests `args` asks for: `query` or `queries`, each with the
/// shared filters and options, and no cap on matching videos (a trend
/// counts every match, as `enumerate_matches` does).
pub fn requests(args: &Map<String, Value>) -> Result<Vec<Request>, String> {
    let mut queries = list_arg(args, "queries");
    if let Some(q) = str_arg(args, "query") {
        queries.insert(0, q.to_string());
    }
    let queries = trend::check_queries(queries)?;
    let base = request(args);
    Ok(queries
        .into_iter()
        .map(|query| Request {
            query,
            max_videos: None,
            ..base.clone()
        })
        .collect())
}

/// The length of the periods `args` asks for (default: year).
pub fn by(args: &Map<String, Value>) -> By {
    str_arg(args, "by").and_then(By::parse).unwrap_or_default()
}

pub fn mention_trend(
    sources: &Sources,
    handle: &SourceHandle,
    args: &Map<String, Value>,
    progress: Progress,
) -> ToolResult {
    let requests = requests(args)?;
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let ask = Ask {
        requests: &requests,
        by: by(args),
        collapse_mirrors: bool_arg(args, "collapse_duplicates", true),
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
    let room = budget::of(args).saturating_sub(budget::SLACK);
    for tops in [true, false] {
        let (text, structured) = render(&t, &head, tops);
        if budget::size(&text, &structured) <= room {
            return Ok((text, structured));
        }
    }
    Err(too_long(&t).into())
}

/// The refusal when even the counts do not fit the budget.
fn too_long(t: &Trend) -> String {
    format!(
        "{} period(s) by {} for {} query(ies) do not fit the size budget even without the top moments: ask by a longer period (quarter, year), narrow date_from/date_to, compare fewer queries, or raise max_chars (at most {})",
        t.periods.len(),
        t.by.as_str(),
        t.queries.len(),
        budget::CEILING_CHARS
    )
}

/// The answer's text and structured content, with or without each
/// period's top moment.
fn render(t: &Trend, head: &str, tops: bool) -> (String, Value) {
    let mut out = head.to_string();
    for k in 0..t.queries.len() {
        out.push_str(&format!("{}, by {}\n", t.headline(k), t.by.as_str()));
    }
    out.push_str(&format!("{}\n", hours_line(t)));
    out.push_str("each period: hours of speech in scope · videos, hits · hits per hour");
    if t.queries.len() > 1 {
        out.push_str("; then each query that matched in it");
    }
    out.push_str("\n\n");
    for row in t.periods.iter().chain(std::iter::once(&t.undated)) {
        out.push_str(&period_block(t, row, tops));
    }
    if !tops {
        out.push_str("\n(top moments left out for the size budget: ask with fewer periods, or a larger max_chars, to get them)\n");
    }
    out.push_str("\n---\n");
    for line in t.footer() {
        out.push_str(&format!("{line}\n"));
    }
    let mut structured = serde_json::to_value(t).unwrap_or_default();
    if !tops {
        strip_tops(&mut structured);
    }
    if let Value::Object(m) = &mut structured {
        m.insert("tops_included".into(), json!(tops));
        m.insert(
            "coverage_partial".into(),
            json!(t.responses.iter().any(|r| r.coverage.partial)),
        );
    }
    (out, structured)
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

/// One period: its speech and counts, then each query that matched in
/// it (with several) and its top moment.
fn period_block(t: &Trend, row: &Row, tops: bool) -> String {
    let mut out = format!(
        "{} · {:.1} h · {}{}\n",
        row.period,
        row.hours,
        report::counts(row.videos, row.hits),
        rate(row.per_hour)
    );
    for (query, cell) in t
        .queries
        .iter()
        .filter_map(|q| Some((q, row.by_query.get(q)?)))
    {
        if t.queries.len() > 1 {
            out.push_str(&format!(
                "  {query:?}: {}{}\n",
                report::counts(cell.videos, cell.hits),
                rate(cell.per_hour)
            ));
        }
        if tops {
            out.push_str(&top_line(cell));
        }
    }
    out
}

fn rate(per_hour: Option<f64>) -> String {
    per_hour.map_or(String::new(), |r| format!(" · {r:.2}/h"))
}

fn top_line(cell: &Cell) -> String {
    let Some(top) = &cell.top else {
        return String::new();
    };
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

/// Removes every `top` from the structured trend.
fn strip_tops(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("top");
            m.values_mut().for_each(strip_tops);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_tops),
        _ => {}
    }
}
