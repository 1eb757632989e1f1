//! `archilyzer-index search`: the query engine for a person, as text or as
//! one JSON object.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{order_arg, ReadArgs};
use archilyzer_core::archive::Archive;
use archilyzer_core::collapse::{self, Counts, Folder, Folds};
use archilyzer_core::query::order::Order;
use archilyzer_core::query::{search_each, Request, Response, VideoResult};
use archilyzer_core::query::{Find, PageCap};
use archilyzer_core::report;
use archilyzer_core::share::eval::link_for;

/// Flags of `archilyzer-index search`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    #[command(flatten)]
    /// The archive and index to read.
    pub read: ReadArgs,
    #[command(flatten)]
    /// The query and its options.
    pub query: Box<QueryArgs>,
    /// List at most this many videos (totals stay complete).
    #[arg(long, value_parser = crate::cli::at_least_one)]
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
    /// List and count every upload, mirrors of one recording included (by
    /// default a recording is one row and counts once, as archilyzer-mcp
    /// counts it, its other copies named in the footer).
    #[arg(long)]
    pub keep_mirrors: bool,
}

/// Runs the search the flags describe and prints it to stdout.
pub fn command(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    args.query.validate().unwrap_or_else(|e| e.exit());
    let html = crate::trend::claim(
        args.html.as_deref(),
        archilyzer_core::file_claim::FileKind::Html,
        "--html",
    )?;
    let archive = args.read.source.open()?;
    let request = args.query.request();
    let share = args
        .share_link
        .then(|| share_link(&archive, args.origin.as_deref(), &request))
        .transpose()?;
    let dir = args.read.index_dir(&archive)?;
    if let Some(file) = &html {
        return html_report(&archive, dir.as_deref(), &request, file);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let shape = Shape {
        limit: args.limit,
        json: args.json,
        share: share.as_deref(),
        order: args.order,
        fold: !args.keep_mirrors,
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
    file: &archilyzer_core::file_claim::FileClaim,
) -> anyhow::Result<ExitCode> {
    let by = archilyzer_core::trend::By::Year;
    let counted = crate::trend::count(archive, dir, std::slice::from_ref(request), by, true, true)?;
    // The terms said alongside, as `related` finds them (the ten best).
    let opts = archilyzer_core::related::SignificantOptions {
        limit: HTML_TERMS,
        ..Default::default()
    };
    let terms = archilyzer_core::related::significant_terms(archive, dir, request, opts).ok();
    crate::trend::write_html(file, archive, &counted, request, terms.as_ref())?;
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

/// The significant terms a `search --html` page shows beside its chart.
pub const HTML_TERMS: usize = 10;

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
    /// Fold mirrors of one recording into one row (`--keep-mirrors` off).
    pub fold: bool,
}

/// A query and its flags.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QueryArgs {
    /// The query: whole words, an optional final `*` (or a regex with --regex).
    pub query: String,
    #[command(flatten)]
    /// How the query is searched: scopes, aliases, filters.
    pub options: Find,
    /// How much it may read.
    #[command(flatten)]
    pub cap: PageCap,
}

impl QueryArgs {
    /// See [`crate::cli::check_find`].
    pub fn validate(&self) -> Result<(), clap::Error> {
        crate::cli::check_find(&self.options)
    }

    /// The engine request.
    pub fn request(&self) -> Request {
        self.options.request(&self.query, self.cap)
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
    let origin = match origin {
        Some(o) => o.to_string(),
        None => archilyzer_core::share::origin_of(archive)
            .ok_or_else(|| anyhow::anyhow!("{} cannot be written as a URL", archive.handle()))?,
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

/// The lines after the videos: totals (of the rows listed, mirrors
/// folded as the server folds them), what was read, notes, coverage, the
/// corpus.
pub fn footer(r: &Response, counts: &Counts, limit: Option<usize>) -> String {
    let mut lines = vec![counts.headline("the query")];
    if let Some(l) = limit.filter(|l| *l < counts.total) {
        lines.push(format!(
            "showing the first {l} of {} video(s) (--limit)",
            counts.total
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
/// caps the videos written; the totals stay whole. Mirrors are folded by
/// the one rule the server folds by ([`Folder`]), so the totals are the
/// server's for the same arguments.
///
/// In archive order videos are written as pages are read (memory does not
/// grow with the result; a mirror waits until its recording's canonical
/// copy is known, and one whose canonical copy never matched is written
/// at the end); any other order holds the matches and sorts them first
/// (see `archilyzer_core::query::order`).
pub fn run(
    archive: &Archive,
    index_dir: Option<&Path>,
    request: &Request,
    shape: &Shape,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut lister = Lister::new(shape, out);
    let mut folder = shape.fold.then(|| Folder::new(archive));
    let mut held: Vec<VideoResult> = Vec::new();
    let mut row = |v: VideoResult, lister: &mut Lister| {
        if shape.order == Order::Archive {
            lister.list(v);
        } else {
            lister.count(&v);
            held.push(v);
        }
    };
    let mut sink = |v: VideoResult| match folder.as_mut() {
        Some(f) => {
            if let Some((_, v)) = f.push(v) {
                row(v, &mut lister);
            }
        }
        None => row(v, &mut lister),
    };
    let result = search_each(archive, index_dir, request, &mut sink, &mut |_, _| {});
    let folds = folder.map(|f| {
        let (late, folds) = f.finish();
        late.into_iter().for_each(|(_, v)| row(v, &mut lister));
        folds
    });
    let refs: Vec<&VideoResult> = held.iter().collect();
    for i in shape.order.arrange(&refs, archive.video_count()) {
        lister.write(&held[i]);
    }
    let Lister {
        counts, failure, ..
    } = lister;
    if let Some(e) = failure {
        return Err(e.into());
    }
    let mut response = result.map_err(|e| crate::cli::refused(e, archive))?;
    response.total_videos = counts.total;
    response.total_hits = counts.total_hits;
    response.exact = counts.exact;
    response.notes.push(shape.order.describe_for(held.iter()));
    if let Some(f) = &folds {
        response.notes.extend(folded_lines(f, counts.total));
    }
    finish(&response, &counts, shape, out)
}

/// What folding did: the note, then each row with the uploads folded
/// into it (nothing folded is hidden).
fn folded_lines(folds: &Folds, rows: usize) -> Vec<String> {
    let Some(note) = collapse::note(folds.mirrors, folds.clusters, rows, "--keep-mirrors") else {
        return Vec::new();
    };
    let mut into: Vec<String> = folds
        .into
        .iter()
        .map(|((_, channel, slug), copies)| {
            format!("{channel}/{slug} also archived as {}", copies.join(", "))
        })
        .collect();
    into.sort();
    std::iter::once(note).chain(into).collect()
}

/// Writes the rows of a result as they are decided, counting every row
/// and writing at most `limit` of them; a write error is kept for the end.
struct Lister<'a> {
    out: &'a mut dyn Write,
    json: bool,
    limit: usize,
    written: usize,
    counts: Counts,
    failure: Option<std::io::Error>,
}

impl<'a> Lister<'a> {
    fn new(shape: &Shape, out: &'a mut dyn Write) -> Lister<'a> {
        let mut lister = Lister {
            out,
            json: shape.json,
            limit: shape.limit.unwrap_or(usize::MAX),
            written: 0,
            counts: Counts::default(),
            failure: None,
        };
        if shape.json {
            lister.put("{\"videos\":[");
        }
        lister
    }

    /// Counts `v` as a row of the result.
    fn count(&mut self, v: &VideoResult) {
        self.counts.add(v, v.hits.len());
    }

    /// Counts `v` and writes it.
    fn list(&mut self, v: VideoResult) {
        self.count(&v);
        self.write(&v);
    }

    /// Writes `v`, unless `limit` rows are written already.
    fn write(&mut self, v: &VideoResult) {
        if self.written >= self.limit {
            return;
        }
        let text = if self.json {
            let sep = if self.written > 0 { "," } else { "" };
            format!(
                "{sep}{}",
                serde_json::to_string(v).expect("a video serialises")
            )
        } else {
            render_video(v)
        };
        self.written += 1;
        self.put(&text);
    }

    fn put(&mut self, text: &str) {
        if self.failure.is_none() {
            if let Err(e) = self.out.write_all(text.as_bytes()) {
                self.failure = Some(e);
            }
        }
    }
}

/// Writes what follows the rows: the JSON object's totals, or the text
/// footer, and the share link.
fn finish(r: &Response, counts: &Counts, shape: &Shape, out: &mut dyn Write) -> anyhow::Result<()> {
    if shape.json {
        let mut rest = serde_json::to_value(r)?;
        if let Some(map) = rest.as_object_mut() {
            map.remove("videos");
            if let Some(link) = shape.share {
                map.insert("share_link".into(), link.into());
                if link.starts_with("file:") {
                    map.insert("share_link_note".into(), LOCAL_LINK_NOTE.into());
                }
            }
            let tail = serde_json::to_string(map)?;
            out.write_all(format!("],{}\n", &tail[1..]).as_bytes())?;
        }
        return Ok(());
    }
    out.write_all(footer(r, counts, shape.limit).as_bytes())?;
    if let Some(link) = shape.share {
        out.write_all(format!("share link: {link}\n").as_bytes())?;
        if link.starts_with("file:") {
            out.write_all(format!("{LOCAL_LINK_NOTE}\n").as_bytes())?;
        }
    }
    Ok(())
}
