//! `archilyzer-index trend`: when the queries were said, per year, quarter
//! or month, from the one trend engine (`archilyzer_core::trend`): bars on
//! the terminal, one JSON object, an SVG chart or an HTML report.
//! `search --html` writes its page through [`write_html`] too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use archilyzer_core::archive::Archive;
use archilyzer_core::file_claim::{FileClaim, FileKind};
use archilyzer_core::query::{Request, VideoResult};
use archilyzer_core::report;
use archilyzer_core::trend::{self, Ask, By, Row, Trend};

use crate::cli::ReadArgs;
use archilyzer_core::query::{Find, PageCap};

/// Flags of `archilyzer-index trend`.
#[derive(clap::Args, Debug, Clone)]
pub struct TrendArgs {
    #[command(flatten)]
    /// The archive and index to read.
    pub read: ReadArgs,
    /// The queries, compared side by side (up to 8; each as `search`
    /// takes one).
    #[arg(required = true)]
    pub queries: Vec<String>,
    #[command(flatten)]
    /// How the queries are searched: scopes, aliases, filters.
    pub options: Box<Find>,
    /// How much each may read.
    #[command(flatten)]
    pub cap: PageCap,
    /// The periods: year, quarter or month.
    #[arg(long, default_value = "year", value_parser = by_arg)]
    pub by: By,
    /// Count every upload, mirrors of one recording included (by default
    /// a recording counts once, as archilyzer-mcp counts it).
    #[arg(long)]
    pub keep_mirrors: bool,
    /// Print one JSON object instead of bars.
    #[arg(long)]
    pub json: bool,
    /// Also write the chart to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE: the chart, the
    /// counts, and every matching video with its hits linked.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

fn by_arg(text: &str) -> Result<By, String> {
    By::parse(text).ok_or_else(|| format!("{text:?} is not a period: use year, quarter or month"))
}

/// A trend and, when asked, each query's matching videos with their hits.
pub struct Counted {
    /// The counts per period.
    pub trend: Trend,
    /// Per query, its matching videos with their hits (for a report that lists them).
    pub videos: Vec<Vec<VideoResult>>,
}

/// Counts `requests` by `by` on `archive`; keeps the matching videos
/// (with every hit) when `keep_videos`, for a report that lists them.
pub fn count(
    archive: &Archive,
    index_dir: Option<&Path>,
    requests: &[Request],
    by: By,
    fold: bool,
    keep_videos: bool,
) -> anyhow::Result<Counted> {
    let mut videos: Vec<Vec<VideoResult>> = vec![Vec::new(); requests.len()];
    let ask = Ask {
        requests,
        by,
        collapse_mirrors: fold,
    };
    let mut seen = |k: usize, v: &VideoResult| {
        if keep_videos {
            videos[k].push(v.clone());
        }
    };
    let trend = trend::trend(archive, index_dir, &ask, &mut seen, &mut |_, _| {})
        .map_err(|e| crate::cli::refused(e, archive))?;
    // The videos listed are the rows counted: mirrors folded alike.
    if fold {
        for listed in &mut videos {
            let uploads = std::mem::take(listed);
            let rows = archilyzer_core::collapse::collapse(archive, uploads).rows;
            *listed = rows.into_iter().map(|row| row.video).collect();
        }
    }
    Ok(Counted { trend, videos })
}

/// Runs the trend the flags describe.
pub fn command(args: &TrendArgs) -> anyhow::Result<ExitCode> {
    crate::cli::check_find(&args.options).unwrap_or_else(|e| e.exit());
    let queries = trend::check_queries(args.queries.clone()).unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n")).exit()
    });
    // Every file this run writes is claimed before anything is read.
    let svg = claim(args.svg.as_deref(), FileKind::Svg, "--svg")?;
    let html = claim(args.html.as_deref(), FileKind::Html, "--html")?;
    let archive = args.read.source.open()?;
    let dir = args.read.index_dir(&archive)?;
    let requests: Vec<Request> = queries
        .iter()
        .map(|q| args.options.request(q, args.cap))
        .collect();
    let counted = count(
        &archive,
        dir.as_deref(),
        &requests,
        args.by,
        !args.keep_mirrors,
        args.html.is_some(),
    )?;
    let t = &counted.trend;
    if let Some(file) = &svg {
        let title = t.title();
        write_file(file, &crate::chart::svg(t, &title))?;
    }
    if let Some(file) = &html {
        write_html(file, &archive, &counted, &requests[0], None)?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(t)?)?;
    } else {
        out.write_all(bars(t, &archive).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A claim on `path` (named by `flag`) for a file of `kind`, when one is
/// named: refused (exit 1, as a folder is) before anything is read or
/// written.
pub fn claim(path: Option<&Path>, kind: FileKind, flag: &str) -> anyhow::Result<Option<FileClaim>> {
    Ok(path.map(|p| FileClaim::new(p, kind, flag)).transpose()?)
}

/// Writes the HTML report of `counted` to the claimed file.
pub fn write_html(
    file: &FileClaim,
    archive: &Archive,
    counted: &Counted,
    request: &Request,
    terms: Option<&archilyzer_core::related::SignificantTerms>,
) -> anyhow::Result<()> {
    let page = crate::html::page(&crate::html::Report {
        archive,
        trend: &counted.trend,
        request,
        videos: &counted.videos,
        terms,
    });
    write_file(file, &page)
}

/// Writes `text` to the claimed file (signed by the claim).
pub fn write_file(file: &FileClaim, text: &str) -> anyhow::Result<()> {
    file.write(text).map_err(anyhow::Error::msg)?;
    eprintln!("wrote {}", file.target().display());
    Ok(())
}

/// The widest bar, in characters.
const BAR: usize = 40;

/// The trend as bars: one per period and query, with the count and the
/// rate; then what was read.
pub fn bars(t: &Trend, archive: &Archive) -> String {
    let mut out = String::new();
    for k in 0..t.queries.len() {
        out.push_str(&format!("{}, by {}\n", t.headline(k), t.by.as_str()));
    }
    let max = t
        .periods
        .iter()
        .chain([&t.undated])
        .flat_map(|r| r.by_query.values().map(|c| c.hits))
        .max()
        .unwrap_or(0);
    let width = t
        .periods
        .iter()
        .map(|r| r.period.len())
        .max()
        .unwrap_or(4)
        .max(7);
    for row in t.periods.iter().chain([&t.undated]) {
        out.push_str(&period_bars(t, row, max, width));
    }
    out.push_str(&undated_list(t));
    out.push_str("(bar: hits; /h: caption hits per hour of speech in scope, title hits apart)\n");
    for line in t.footer() {
        out.push_str(&format!("{line}\n"));
    }
    out.push_str(&format!(
        "{}\n",
        report::corpus(&archive.handle().to_string())
    ));
    out
}

/// How many undated matches the command line names per query.
const UNDATED_LISTED: usize = 20;

/// The undated matches of each query, by name: they are on no time axis.
fn undated_list(t: &Trend) -> String {
    let mut out = String::new();
    for (query, cell) in &t.undated.by_query {
        out.push_str(&format!("undated matches of {query:?}:\n"));
        for top in cell.listed.iter().take(UNDATED_LISTED) {
            out.push_str(&format!(
                "  {} ({}/{}, {} hit(s))\n",
                top.title, top.channel, top.id, top.hits
            ));
        }
        if cell.listed.len() > UNDATED_LISTED {
            out.push_str(&format!(
                "  … and {} more\n",
                cell.listed.len() - UNDATED_LISTED
            ));
        }
    }
    out
}

fn period_bars(t: &Trend, row: &Row, max: usize, width: usize) -> String {
    let speech = if row.hours == 0.0 && row.period != "undated" {
        "  (no speech in scope)".to_string()
    } else {
        format!("  {:.1} h of speech", row.hours)
    };
    let mut out = String::new();
    let several = t.queries.len() > 1;
    if several {
        out.push_str(&format!("{}{speech}\n", row.period));
    }
    for query in &t.queries {
        let (videos, hits, rate) = row
            .by_query
            .get(query)
            .map_or((0, 0, None), |c| (c.videos, c.hits, c.per_hour));
        let label = if several {
            format!("  {query:?}")
        } else {
            row.period.clone()
        };
        let rate = rate.map_or(String::new(), |r| format!(" · {r:.2}/h"));
        out.push_str(&format!(
            "{label:<width$} {} {hits} hit(s) · {videos} video(s){rate}{}\n",
            bar(hits, max),
            if several { "" } else { &speech }
        ));
    }
    out
}

/// A bar of `hits` against `max`, in eighths of a character.
fn bar(hits: usize, max: usize) -> String {
    const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
    let eighths = (hits * BAR * 8).checked_div(max).unwrap_or(0);
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(EIGHTHS[eighths % 8 - 1]);
    }
    if hits > 0 && s.is_empty() {
        s.push('▏');
    }
    format!("{s:<BAR$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_count_and_show_any_hit() {
        assert_eq!(bar(10, 10).trim_end().chars().count(), BAR);
        assert_eq!(bar(5, 10).trim_end(), "█".repeat(BAR / 2));
        assert_eq!(bar(1, 1000).trim_end(), "▏");
        assert_eq!(bar(0, 10).trim_end(), "");
        assert_eq!(bar(0, 10).chars().count(), BAR);
    }
}
