//! `archilyzer-index search`: the query engine for a person, as text or as
//! one JSON object.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{order_arg, ReadArgs};
use crate::query_flags::QueryOptions;
use archilyzer_core::archive::Archive;
use archilyzer_core::query::order::Order;
use archilyzer_core::query::{search_each, Request, Response, VideoResult};
use archilyzer_core::report;
use archilyzer_core::share::eval::link_for;
use archilyzer_core::source::SourceHandle;

/// Flags of `archilyzer-index search`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub query: Box<QueryArgs>,
    /// List at most this many videos (totals stay complete).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also print a viewer share link that re-runs this search (the
    /// MCP server's open_link opens it).
    #[arg(long)]
    pub share_link: bool,
    /// The origin the share link names (default: the archive's own URL).
    #[arg(long, requires = "share_link")]
    pub origin: Option<String>,
    /// archive (default: streamed as pages are read), relevance (BM25
    /// over the confirmed hits), newest or oldest (these hold every
    /// match in memory to sort it).
    #[arg(long, default_value = "archive", value_parser = order_arg)]
    pub order: Order,
    /// Write a self-contained HTML report to FILE instead: the query and
    /// filters, the matches per year as a chart, and every matching video
    /// with each hit linked to its moment.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["json", "share_link"])]
    pub html: Option<std::path::PathBuf>,
}

/// Runs the search the flags describe and prints it to stdout.
pub fn command(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    args.query.validate().unwrap_or_else(|e| e.exit());
    let archive = args.read.source.open()?;
    let request = args.query.request();
    let share = args
        .share_link
        .then(|| share_link(&archive, args.origin.as_deref(), &request))
        .transpose()?;
    let dir = args.read.index_dir(&archive)?;
    if let Some(file) = &args.html {
        return html_report(&archive, dir.as_deref(), &request, file);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let shape = Shape {
        limit: args.limit,
        json: args.json,
        share: share.as_deref(),
        order: args.order,
    };
    run(&archive, dir.as_deref(), &request, &shape, &mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `search --html`: the search as a page, through the trend engine (one
/// scan gives the matches and their counts per year).
fn html_report(
    archive: &Archive,
    dir: Option<&Path>,
    request: &Request,
    file: &Path,
) -> anyhow::Result<ExitCode> {
    let by = archilyzer_core::trend::By::Year;
    let counted = crate::trend::count(archive, dir, std::slice::from_ref(request), by, true, true)?;
    crate::trend::write_html(file, archive, &counted, request)?;
    let total = &counted.trend.totals[0];
    crate::cli::print(&format!(
        "{}\n{}\n",
        report::headline(
            "the query",
            (total.exact_videos, total.exact_hits),
            (total.videos, total.hits)
        ),
        report::corpus(&archive.handle().to_string())
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// How a search's result is written.
pub struct Shape<'a> {
    /// List at most this many videos (totals stay whole).
    pub limit: Option<usize>,
    /// One JSON object instead of text.
    pub json: bool,
    /// A share link to print after the footer.
    pub share: Option<&'a str>,
    /// The order videos are listed in.
    pub order: Order,
}

/// A query and its flags.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QueryArgs {
    /// The query: whole words, an optional final `*` (or a regex with --regex).
    pub query: String,
    #[command(flatten)]
    pub options: QueryOptions,
}

impl QueryArgs {
    /// See [`QueryOptions::validate`].
    pub fn validate(&self) -> Result<(), clap::Error> {
        self.options.validate()
    }

    /// The engine request.
    pub fn request(&self) -> Request {
        self.options.request(&self.query)
    }
}

/// The viewer share link for `request` on `archive`, at `origin` or else
/// the archive's own public URL (a hub's or remote site's URL, or the
/// `site.url` its corpus.json declares).
pub fn share_link(
    archive: &Archive,
    origin: Option<&str>,
    request: &Request,
) -> anyhow::Result<String> {
    let origin_arg = origin;
    let declared = archive
        .sites()
        .first()
        .and_then(|s| s.corpus().site.url.clone());
    let origin = match (origin, archive.handle()) {
        (Some(o), _) => o.to_string(),
        (None, SourceHandle::Hub { url, .. } | SourceHandle::Remote(url)) => url.clone(),
        (None, SourceHandle::Local(dir)) => match declared {
            Some(url) => url,
            None => archilyzer_core::share::local_origin(dir).ok_or_else(|| {
                anyhow::anyhow!("{} cannot be written as a file:// URL", dir.display())
            })?,
        },
    };
    let ok = origin.starts_with("http://")
        || origin.starts_with("https://")
        || (origin.starts_with("file://") && origin_arg.is_none());
    if !ok {
        anyhow::bail!("--origin {origin:?} is not an http:// or https:// URL");
    }
    Ok(link_for(archive, &origin, request)?.encode())
}

/// One video and its hits as text.
pub fn render_video(v: &VideoResult) -> String {
    let mut out = format!(
        "{}/{}  {} ({})\n",
        v.channel,
        v.slug,
        v.title,
        report::video_facts(v, v.hits.len())
    );
    if let Some(w) = v.caption_warning() {
        out.push_str(&format!("  {w}\n"));
    }
    for h in &v.hits {
        out.push_str(&format!(
            "  [{}] {}\n",
            report::hit_place(h),
            h.labelled_text()
        ));
    }
    out
}

/// The lines after the videos: totals, what was read, notes, coverage,
/// the corpus.
pub fn footer(r: &Response, limit: Option<usize>) -> String {
    let mut lines = vec![report::headline(
        "the query",
        (r.exact.videos, r.exact.hits),
        (r.total_videos, r.total_hits),
    )];
    if let Some(l) = limit.filter(|l| *l < r.total_videos) {
        lines.push(format!(
            "showing the first {l} of {} video(s) (--limit)",
            r.total_videos
        ));
    }
    lines.extend(report::footer(r));
    lines.push(report::corpus(&r.source));
    lines.join("\n") + "\n"
}

/// Said with a share link whose origin is a folder on this machine.
pub const LOCAL_LINK_NOTE: &str = "this link names a folder on this machine (the archive declares no site.url): archilyzer-mcp opens it here (open_link), nowhere else; pass --origin URL for a link to the published site";

/// Runs a search and writes its result to `out` as it is confirmed: text,
/// or one JSON object whose `videos` come first and totals last. `limit`
/// caps the videos written; the totals stay whole.
/// How `run` lists videos: `Archive` streams them as pages are read
/// (memory does not grow with the result); any other order holds the
/// matches and sorts them first (see `archilyzer_core::query::order`).
pub fn run(
    archive: &Archive,
    index_dir: Option<&Path>,
    request: &Request,
    shape: &Shape,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let Shape {
        limit,
        json,
        share,
        order,
    } = *shape;
    let limit_n = limit.unwrap_or(usize::MAX);
    let mut written = 0;
    let mut failure: Option<std::io::Error> = None;
    if json {
        out.write_all(b"{\"videos\":[")?;
    }
    // Who matched (without hits), to say how many are mirrors.
    let mut matched: Vec<VideoResult> = Vec::new();
    // With an order other than the archive's: every match, sorted below.
    let mut held: Vec<VideoResult> = Vec::new();
    let mut emit = |v: &VideoResult, out: &mut dyn Write| {
        if written >= limit_n || failure.is_some() {
            return;
        }
        let text = if json {
            let sep = if written > 0 { "," } else { "" };
            format!(
                "{sep}{}",
                serde_json::to_string(v).expect("a video serialises")
            )
        } else {
            render_video(v)
        };
        written += 1;
        if let Err(e) = out.write_all(text.as_bytes()) {
            failure = Some(e);
        }
    };
    let mut sink = |v: VideoResult| {
        matched.push(v.without_hits());
        if order == Order::Archive {
            emit(&v, out);
        } else {
            held.push(v);
        }
    };
    let result = search_each(archive, index_dir, request, &mut sink, &mut |_, _| {});
    let archive_videos = archive.video_count();
    let refs: Vec<&VideoResult> = held.iter().collect();
    for i in order.arrange(&refs, archive_videos) {
        emit(&held[i], out);
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    let mut response = result.map_err(|e| crate::cli::refused(e, archive))?;
    response.notes.push(order.describe_for(matched.iter()));
    response
        .notes
        .extend(archilyzer_core::collapse::mirrors_note(archive, matched));
    if json {
        let mut rest = serde_json::to_value(&response)?;
        if let Some(map) = rest.as_object_mut() {
            map.remove("videos");
            if let Some(link) = share {
                map.insert("share_link".into(), link.into());
                if link.starts_with("file:") {
                    map.insert("share_link_note".into(), LOCAL_LINK_NOTE.into());
                }
            }
            let tail = serde_json::to_string(map)?;
            out.write_all(format!("],{}\n", &tail[1..]).as_bytes())?;
        }
    } else {
        out.write_all(footer(&response, limit).as_bytes())?;
        if let Some(link) = share {
            out.write_all(format!("share link: {link}\n").as_bytes())?;
            if link.starts_with("file:") {
                out.write_all(format!("{LOCAL_LINK_NOTE}\n").as_bytes())?;
            }
        }
    }
    Ok(())
}
