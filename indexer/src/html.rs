//! A search or trend as one self-contained HTML page for people: what was
//! asked (queries, filters, archive), the trend chart inline, the counts
//! per period, and every matching video with each hit linked to its
//! moment; or the passages a question found, each linked to its moment.
//! No script, no external file: the page opens anywhere.
//!
//! Every moment is an `<a class="moment">` carrying `data-channel`,
//! `data-slug` and `data-t` (the floored second it cites), so a checker
//! can hold each link against the archive.

use std::fmt::Write;

use archilyzer_core::archive::Archive;
use archilyzer_core::links::{clock, LinkTarget};
use archilyzer_core::passages::Found;
use archilyzer_core::query::{Request, VideoResult};
use archilyzer_core::report;
use archilyzer_core::trend::Trend;

use crate::chart::{escape, svg};

/// What a page shows: the trend, the request its filters came from, and
/// each query's matching videos with their hits.
pub struct Report<'a> {
    /// The archive searched.
    pub archive: &'a Archive,
    /// The counts per period.
    pub trend: &'a Trend,
    /// The request, as the page describes it.
    pub request: &'a Request,
    /// Per query: its matching videos, with their hits.
    pub videos: &'a [Vec<VideoResult>],
    /// A search's significant terms (`search --html`), shown beside the
    /// chart, each linking to its combined search.
    pub terms: Option<&'a archilyzer_core::related::SignificantTerms>,
}

const STYLE: &str = "body{font-family:sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
th:first-child,td:first-child{text-align:left}.video{margin:1em 0}.video h3{margin:0 0 .2em;font-size:1em}\
.facts{color:#555;font-size:.9em}ul{margin:.2em 0}a.moment{font-family:monospace}";

/// The page.
pub fn page(r: &Report) -> String {
    let title = r.trend.title();
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = write!(out, "<h1>{}</h1>\n{}", escape(&title), asked(r));
    out.push_str(&svg(r.trend, &title));
    if let Some(terms) = r.terms {
        out.push_str(&terms_section(terms));
    }
    out.push_str(&counts_table(r.trend));
    for (k, query) in r.trend.queries.iter().enumerate() {
        out.push_str(&matches(r, k, query));
    }
    out.push_str("</body></html>\n");
    out
}

/// The archive, the queries' options and every filter set.
fn asked(r: &Report) -> String {
    let mut set: Vec<String> = Vec::new();
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&r.request.filters) {
        for (name, value) in map {
            let empty = value.is_null()
                || value == false
                || value.as_array().is_some_and(Vec::is_empty)
                || value.as_str() == Some("");
            if !empty {
                set.push(format!("{name}: {value}"));
            }
        }
    }
    let options = [
        (r.request.regex, "regex".to_string()),
        (!r.request.use_aliases, "no aliases".into()),
        (
            !r.request.exclude.is_empty(),
            format!("exclude: {:?}", r.request.exclude),
        ),
        (
            !r.request.scopes.is_empty(),
            format!("scopes: {:?}", r.request.scopes),
        ),
        (r.request.fuzzy > 0, format!("fuzzy: {}", r.request.fuzzy)),
    ];
    set.extend(options.into_iter().filter(|(on, _)| *on).map(|(_, s)| s));
    let filters = if set.is_empty() {
        "none".to_string()
    } else {
        set.join("; ")
    };
    format!(
        "<p class=\"asked\">archive: {}<br>filters and options: {}</p>\n",
        escape(&r.archive.handle().to_string()),
        escape(&filters)
    )
}

/// The words said unusually often where the query is said, each with its
/// shares and, where a share link can carry the search, a link to the
/// query AND the word (`a.term`, `data-word`). A table, so that the page's
/// list items stay its hit lines.
fn terms_section(s: &archilyzer_core::related::SignificantTerms) -> String {
    let mut out = format!(
        "<section class=\"terms\"><h2>Said alongside</h2><p class=\"facts\">Words said in at least {} of the {} matching uploads and more often there than in the {} in scope (JLH score; every upload counts, mirrors of one recording too).</p><table class=\"terms\"><tr><th>word</th><th>matching uploads</th><th>all in scope</th></tr>\n",
        s.min_videos, s.foreground, s.background
    );
    for t in &s.terms {
        let word = match &t.search {
            Some(link) => format!(
                "<a class=\"term\" data-word=\"{0}\" href=\"{1}\">{0}</a>",
                escape(&t.word),
                escape(link)
            ),
            None => format!(
                "<b class=\"term\" data-word=\"{0}\">{0}</b>",
                escape(&t.word)
            ),
        };
        let _ = writeln!(
            out,
            "<tr><td>{word}</td><td>{}</td><td>{}</td></tr>",
            report::share(t.fg, s.foreground as u64),
            report::share(t.bg, s.background as u64)
        );
    }
    out.push_str("</table></section>\n");
    out
}

fn counts_table(t: &Trend) -> String {
    let mut out =
        String::from("<table class=\"counts\"><tr><th>period</th><th>hours of speech</th>");
    for q in &t.queries {
        let _ = write!(
            out,
            "<th>{} videos</th><th>hits</th><th>per hour</th>",
            escape(&format!("{q:?}"))
        );
    }
    out.push_str("</tr>\n");
    for row in t.periods.iter().chain([&t.undated]) {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{:.1}</td>",
            escape(&row.period),
            row.hours
        );
        for q in &t.queries {
            let c = row.by_query.get(q);
            let rate = c
                .and_then(|c| c.per_hour)
                .map_or(String::new(), |r| format!("{r:.2}"));
            let _ = write!(
                out,
                "<td>{}</td><td>{}</td><td>{rate}</td>",
                c.map_or(0, |c| c.videos),
                c.map_or(0, |c| c.hits)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

/// One query's matching videos, every hit linked.
fn matches(r: &Report, k: usize, query: &str) -> String {
    let headline = r.trend.headline(k);
    let mut out = format!(
        "<section class=\"query\"><h2>{}</h2><p>{}</p>\n",
        escape(&format!("{query:?}")),
        escape(&headline)
    );
    for v in &r.videos[k] {
        out.push_str(&video(r.archive, v));
    }
    out.push_str("</section>\n");
    out
}

fn video(archive: &Archive, v: &VideoResult) -> String {
    let target = LinkTarget::of(archive, v);
    let mut out = format!(
        "<div class=\"video\"><h3>{}</h3><div class=\"facts\">{}/{} · {}</div>",
        escape(&v.title),
        escape(&v.channel),
        escape(&v.slug),
        escape(&report::video_facts(v, v.hits.len()))
    );
    if let Some(w) = v.caption_warning() {
        let _ = write!(out, "<div class=\"warning\">{}</div>", escape(w));
    }
    out.push_str("<ul>");
    for h in &v.hits {
        let place = escape(&report::hit_place(h));
        let stamp = match h.start.and_then(|s| Some((s, target.moment(s)?))) {
            Some((s, link)) => moment(&link, &v.channel, &v.slug, s),
            None => format!("<span class=\"place\">[{place}]</span>"),
        };
        let _ = write!(out, "<li>{stamp} {}</li>", escape(&h.labelled_text()));
    }
    out.push_str("</ul></div>\n");
    out
}

/// A link to second `at` of a video, as every page writes one (the
/// module's promise: `data-channel`, `data-slug`, `data-t` floored).
fn moment(link: &str, channel: &str, slug: &str, at: f64) -> String {
    format!(
        "<a class=\"moment\" href=\"{}\" data-channel=\"{}\" data-slug=\"{}\" data-t=\"{}\">[{}]</a>",
        escape(link),
        escape(channel),
        escape(slug),
        at.max(0.0).floor() as u64,
        escape(&clock(at))
    )
}

/// `passages --html`: the passages found for `query`, best first, each
/// with its moment link, its ranks and its words as captioned, then
/// `note` (what the ranking is and is not).
pub fn passages_page(archive: &Archive, query: &str, found: &Found, note: &str) -> String {
    let title = format!("Passages for {query:?}");
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    let _ = writeln!(
        out,
        "<p class=\"facts\">{} of {} in scope, by {} ({}), in {}</p>",
        found.passages.len(),
        escape(&report::counted(u64::from(found.in_scope), "passage")),
        found.by.as_str(),
        escape(&found.model),
        escape(&archive.handle().to_string())
    );
    if let Some(line) = archilyzer_core::passages::find::feedback_line(&found.feedback) {
        let _ = writeln!(out, "<p class=\"facts\">{}</p>", escape(&line));
    }
    for p in &found.passages {
        let stamp = p
            .link
            .as_deref()
            .map(|link| moment(link, &p.channel, &p.video, p.start))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<div class=\"video passage\"><h3>{}</h3><div class=\"facts\">{stamp} score {:.4} · {}</div><p>{}</p></div>",
            escape(&p.heading()),
            p.score,
            escape(&p.ranks()),
            escape(&p.text)
        );
    }
    if found.stale > 0 {
        let _ = writeln!(
            out,
            "<p class=\"warning\">{} skipped: their videos changed since they were embedded.</p>",
            escape(&report::counted(u64::from(found.stale), "passage"))
        );
    }
    let _ = writeln!(out, "<p class=\"facts\">{}</p>", escape(note));
    out.push_str("</body></html>\n");
    out
}
