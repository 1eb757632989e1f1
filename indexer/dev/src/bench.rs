//! `archilyzer-dev bench`: the reference query set, timed, beside a
//! full scan of the same files by `rg` in the same run.
//!
//! Two kinds of figure: pages read and MB parsed are properties of the
//! plan and comparable on any machine; wall time depends on the machine,
//! so the bench refuses to run when the load average per core is above
//! `--max-load` unless `--force`, and then stamps every wall figure
//! UNRELIABLE. Each run of a row is a fresh process (`bench-one`), so the
//! page cache is cold and the peak RSS is that one query's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::format::paths::Layer;
use archilyzer_core::index::RawIndex;
use archilyzer_core::query::{search, FilterArgs, Request};
use archilyzer_core::source::SourceHandle;
use fst::Streamer;
use serde::{Deserialize, Serialize};

/// One row of the query set.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// The row's name, as the table shows it.
    pub name: String,
    /// What the row does.
    pub kind: RowKind,
    /// The word `rg` searches for the baseline, and the transcript
    /// directories it searches (empty: no baseline for this row).
    pub rg_term: Option<String>,
    /// The channels whose transcript folders `rg` reads (empty: all).
    pub rg_channels: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
/// What a row of the query set runs.
pub enum RowKind {
    /// Open the archive and list its channels.
    ListChannels,
    /// This search.
    Search(Box<Request>),
    /// Read these videos' records (one read per distinct page).
    Batch(Vec<(String, String)>),
    /// The "also heard as" lookup of these words in the index's
    /// vocabulary, alone: what it adds to a query (the index is loaded
    /// before the clock starts).
    AlsoHeard(String),
}

/// What one run of a row measured (printed by `bench-one` as JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunFigures {
    /// Wall time of the run, in milliseconds.
    pub wall_ms: f64,
    /// Pages it read.
    pub pages_read: usize,
    /// Bytes it read.
    pub bytes: u64,
    /// Its peak resident memory, in KB.
    pub peak_rss_kb: u64,
    /// Hits (or items) it found.
    pub hits: usize,
}

/// The figures of a row over its repeats.
#[derive(Debug, Clone, Serialize)]
pub struct RowFigures {
    /// The row's name.
    pub name: String,
    /// Median wall time of its runs, in milliseconds.
    pub wall_ms_median: f64,
    /// Pages each run read.
    pub pages_read: usize,
    /// Megabytes each run read.
    pub mb_parsed: f64,
    /// The largest peak resident memory of its runs, in MB.
    pub peak_rss_mb: f64,
    /// Hits (or items) found.
    pub hits: usize,
    /// Median wall time of `rg` over the same files, if the row has a baseline.
    pub rg_ms_median: Option<f64>,
    /// Matches `rg` counted.
    pub rg_matches: Option<u64>,
}

/// Load average (1 min) per core, from /proc/loadavg.
pub fn load_per_core() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let load: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(
        load / std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1) as f64,
    )
}

/// This process's peak resident set, from /proc/self/status.
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_string)
        })
        .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// The reference query set for `archive`, with words chosen from its index
/// unless given.
pub fn rows(
    archive: &Archive,
    index_dir: &Path,
    rare: Option<String>,
    common: Option<String>,
) -> Result<Vec<Row>> {
    let raw = RawIndex::load(index_dir).map_err(|e| {
        anyhow::anyhow!(
            "no usable index at {}: {e}; run `archilyzer-index build` first",
            index_dir.display()
        )
    })?;
    let (auto_rare, auto_common) = pick_terms(&raw);
    let rare = rare
        .or(auto_rare)
        .context("the index holds no word of five letters or more; pass --rare")?;
    let common = common
        .or(auto_common)
        .context("no common word found in the index; pass --common")?;
    let site = &archive.sites()[0];
    let first_channel = site
        .corpus()
        .channels
        .first()
        .context("the archive has no channel")?
        .slug
        .clone();
    let year = median_year(&raw).unwrap_or_else(|| "2020".into());
    let search_row = |name: &str, query: &str, filters: FilterArgs, rg_channels: Vec<String>| Row {
        name: name.to_string(),
        kind: RowKind::Search(Box::new(Request {
            query: query.to_string(),
            filters,
            ..Default::default()
        })),
        rg_term: Some(query.to_string()),
        rg_channels,
    };
    let batch: Vec<(String, String)> = raw
        .every_row()
        .unwrap_or_default()
        .iter()
        .filter(|v| v.channel == first_channel && v.site == site.id())
        .take(20)
        .map(|v| (v.channel.clone(), v.slug.clone()))
        .collect();
    Ok(vec![
        Row {
            name: "list channels (cold)".into(),
            kind: RowKind::ListChannels,
            rg_term: None,
            rg_channels: vec![],
        },
        search_row(
            &format!("rare term `{rare}`, whole corpus"),
            &rare,
            FilterArgs::default(),
            vec![],
        ),
        search_row(
            &format!("common term `{common}`, whole corpus"),
            &common,
            FilterArgs::default(),
            vec![],
        ),
        search_row(
            &format!("common term, one channel ({first_channel})"),
            &common,
            FilterArgs {
                channels: vec![first_channel.clone()],
                ..Default::default()
            },
            vec![first_channel.clone()],
        ),
        search_row(
            &format!("common term, upload year {year}"),
            &common,
            FilterArgs {
                date_from: Some(format!("{year}0101")),
                date_to: Some(format!("{year}1231")),
                ..Default::default()
            },
            vec![],
        ),
        search_row(
            "common term, missing states only",
            &common,
            FilterArgs {
                states: ["maybe_missing", "deleted", "private", "members_only"]
                    .map(String::from)
                    .to_vec(),
                ..Default::default()
            },
            vec![],
        ),
        Row {
            name: "enumerate all matches, whole corpus".into(),
            kind: RowKind::Search(Box::new(Request {
                query: common.clone(),
                use_aliases: true,
                ..Default::default()
            })),
            rg_term: Some(common.clone()),
            rg_channels: vec![],
        },
        Row {
            name: format!("batch read of {} ids, one channel", batch.len()),
            kind: RowKind::Batch(batch),
            rg_term: None,
            rg_channels: vec![],
        },
        Row {
            name: format!("also-heard-as lookup, {common:?} (vocabulary only)"),
            kind: RowKind::AlsoHeard(common.clone()),
            rg_term: None,
            rg_channels: vec![],
        },
    ])
}

/// The word the fewest videos hold in the fields a search looks in by
/// default (the first of those tied; a word only of a channel's name,
/// held by no video, is not one), and the word in
/// the most pages (the longest of those tied), both lower-case ASCII of
/// five letters or more.
fn pick_terms(raw: &RawIndex) -> (Option<String>, Option<String>) {
    let mut rare: Option<(usize, String)> = None;
    let mut common: Option<(usize, usize, String)> = None;
    let mut stream = raw.terms.stream();
    while let Some((t, offset)) = stream.next() {
        let t = String::from_utf8_lossy(t).into_owned();
        if t.len() < 5 || !t.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let df = raw.postings(offset).map(|p| p.len()).unwrap_or(0);
        let searched = archilyzer_core::query::Scope::default_fields();
        let videos = raw.videos_holding(offset, searched).unwrap_or(0) as usize;
        if videos > 0 && rare.as_ref().is_none_or(|r| videos < r.0) {
            rare = Some((videos, t.clone()));
        }
        let key = (df, t.len(), t);
        if common.as_ref().is_none_or(|c| (c.0, c.1) < (key.0, key.1)) {
            common = Some(key);
        }
    }
    (rare.map(|r| r.1), common.map(|c| c.2))
}

fn median_year(raw: &RawIndex) -> Option<String> {
    let mut years: Vec<&str> = raw
        .every_row()
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.upload_date.as_deref())
        .filter_map(|d| d.get(..4))
        .collect();
    years.sort_unstable();
    years.get(years.len() / 2).map(|y| y.to_string())
}

/// Runs one row once in this process (what `bench-one` does): opens the
/// archive cold, then runs the row; the wall time covers both.
pub fn run_once(handle: &SourceHandle, index_dir: &Path, row: &Row) -> Result<RunFigures> {
    if let RowKind::AlsoHeard(query) = &row.kind {
        return also_heard_once(handle, index_dir, query);
    }
    let started = Instant::now();
    let archive = &Archive::open(handle, &OpenOptions::default())?;
    let mut f = RunFigures::default();
    match &row.kind {
        RowKind::ListChannels => {
            f.hits = archive
                .sites()
                .iter()
                .map(|s| s.corpus().channels.len())
                .sum();
        }
        RowKind::Search(request) => {
            let r = search(archive, Some(index_dir), request).map_err(|e| anyhow::anyhow!(e))?;
            f.pages_read = r.pages_read;
            f.bytes = r.bytes_read;
            f.hits = r.total_hits;
        }
        RowKind::AlsoHeard(_) => unreachable!("timed by also_heard_once"),
        RowKind::Batch(ids) => {
            let site = &archive.sites()[0];
            let mut pages = std::collections::BTreeSet::new();
            for (channel, slug) in ids {
                let m = site.transcript_manifest(channel)?;
                let n = *m
                    .slug_to_page
                    .get(slug)
                    .context("a batch id is not in its manifest")?;
                let page = site.transcript_page(channel, n)?;
                f.hits += page.videos.iter().filter(|v| &v.slug == slug).count();
                if pages.insert((channel.clone(), n)) {
                    f.bytes += m.pages[n as usize - 1].bytes;
                }
            }
            f.pages_read = pages.len();
        }
    }
    f.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    f.peak_rss_kb = peak_rss_kb();
    Ok(f)
}

/// Times the "also heard as" lookup of `query` alone, the index loaded.
fn also_heard_once(handle: &SourceHandle, index_dir: &Path, query: &str) -> Result<RunFigures> {
    let archive = Archive::open(handle, &OpenOptions::default())?;
    let (pages, _) = archive.page_table();
    let (index, _) = archilyzer_core::index::Index::open(index_dir, &archive, &pages);
    let index = index.context("no usable index for the also-heard-as row")?;
    let request = Request {
        query: query.to_string(),
        ..Default::default()
    };
    let started = Instant::now();
    let (found, _) = archilyzer_core::query::also_heard(Some(&index), &request);
    Ok(RunFigures {
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
        hits: found.iter().map(|a| a.variants.len()).sum(),
        peak_rss_kb: peak_rss_kb(),
        ..Default::default()
    })
}

/// `rg -o -i -w TERM` over the rows' transcript files: (ms, matches), or
/// `None` when rg is not installed.
pub fn rg_baseline(archive_dir: &Path, row: &Row) -> Option<(f64, u64)> {
    let term = row.rg_term.as_ref()?;
    let dirs: Vec<PathBuf> = if row.rg_channels.is_empty() {
        vec![archive_dir.join(Layer::Transcripts.dir())]
    } else {
        row.rg_channels
            .iter()
            .map(|c| archive_dir.join(Layer::Transcripts.dir()).join(c))
            .collect()
    };
    let started = Instant::now();
    let out = Command::new("rg")
        .args([
            "-o",
            "-i",
            "-w",
            "--no-filename",
            "--no-line-number",
            "--",
            term,
        ])
        .args(&dirs)
        .output()
        .ok()?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let matches = out.stdout.iter().filter(|&&b| b == b'\n').count() as u64;
    Some((ms, matches))
}

/// The median of `v` (0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// The table, as Markdown.
pub fn render(rows: &[RowFigures], unreliable: bool) -> String {
    let stamp = if unreliable { " UNRELIABLE" } else { "" };
    let mut s = String::from("| query | wall ms (median) | pages read | MB parsed | peak RSS MB | hits | rg -o -i -w ms | rg matches | ratio |\n|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let (rg_ms, rg_n, ratio) = match (r.rg_ms_median, r.rg_matches) {
            (Some(ms), Some(n)) => (
                format!("{ms:.0}{stamp}"),
                n.to_string(),
                format!("{:.2}×", r.wall_ms_median / ms.max(0.001)),
            ),
            _ => ("-".into(), "-".into(), "-".into()),
        };
        s.push_str(&format!(
            "| {} | {:.0}{stamp} | {} | {:.1} | {:.0} | {} | {rg_ms} | {rg_n} | {ratio} |\n",
            r.name, r.wall_ms_median, r.pages_read, r.mb_parsed, r.peak_rss_mb, r.hits
        ));
    }
    s
}

/// Runs `row` once in a fresh `bench-one` process; with `cache`, its HTTP
/// disk cache is that folder (a fresh one makes the run cold).
fn run_row(
    exe: &Path,
    handle: &SourceHandle,
    index: &Path,
    row: &Row,
    cache: Option<&Path>,
) -> Result<RunFigures> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["bench-one", "--handle", &handle.to_string(), "--index"])
        .arg(index)
        .args(["--row", &serde_json::to_string(row)?]);
    if let Some(cache) = cache {
        cmd.env("ARCHILYZER_CACHE_DIR", cache);
    }
    let out = cmd.output()?;
    anyhow::ensure!(
        out.status.success(),
        "bench row {:?} failed: {}",
        row.name,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice::<RunFigures>(&out.stdout)?)
}

/// A row's figures: medians of its runs and of `rg`'s.
fn row_figures(name: &str, runs: &[RunFigures], rg: &[(f64, u64)]) -> RowFigures {
    let last = runs.last().cloned().unwrap_or_default();
    RowFigures {
        name: name.to_string(),
        wall_ms_median: median(runs.iter().map(|r| r.wall_ms).collect()),
        pages_read: last.pages_read,
        mb_parsed: last.bytes as f64 / 1e6,
        peak_rss_mb: runs.iter().map(|r| r.peak_rss_kb).max().unwrap_or(0) as f64 / 1024.0,
        hits: last.hits,
        rg_ms_median: (!rg.is_empty()).then(|| median(rg.iter().map(|r| r.0).collect())),
        rg_matches: rg.first().map(|r| r.1),
    }
}

/// The rare-word, one-channel and one-year rows against the archive at
/// `local` served on loopback at `pace` (`serve`), indexed over HTTP
/// first: every run cold (an empty HTTP disk cache), and the rare word
/// warm too (the cache a first, unmeasured run filled).
fn remote_rows(
    exe: &Path,
    local: &Path,
    pace: &crate::serve::Pace,
    rows: &[Row],
    repeat: usize,
) -> Result<Vec<RowFigures>> {
    let server = crate::serve::Server::start(local, "127.0.0.1:0".parse()?, pace.clone())?;
    let handle = SourceHandle::parse(&format!("remote:{}", server.url()))?;
    let label = format!(
        "remote ({} ms a request, {} MB/s)",
        pace.latency.as_millis(),
        pace.bytes_per_sec / 1_000_000
    );
    let index = tempfile::tempdir()?;
    let options = OpenOptions {
        http_cache_dir: None,
        ..OpenOptions::default()
    };
    let report =
        archilyzer_core::index::build(&Archive::open(&handle, &options)?, index.path(), &|_| {})?;
    eprintln!(
        "bench: {label}: index built over HTTP in {:.1} s",
        report.seconds
    );
    let mut out = Vec::new();
    let cold = |row: &Row| -> Result<Vec<RunFigures>> {
        (0..repeat.max(1))
            .map(|_| {
                let cache = tempfile::tempdir()?;
                run_row(exe, &handle, index.path(), row, Some(cache.path()))
            })
            .collect()
    };
    // Rows 1, 3 and 4 of the query set: the rare word, one channel, one year.
    for row in [1, 3, 4].iter().filter_map(|&i| rows.get(i)) {
        out.push(row_figures(
            &format!("{label}: {}, cold", row.name),
            &cold(row)?,
            &[],
        ));
        eprintln!("bench: {label}: {} done", row.name);
    }
    if let Some(rare) = rows.get(1) {
        let cache = tempfile::tempdir()?;
        run_row(exe, &handle, index.path(), rare, Some(cache.path()))?;
        let warm = (0..repeat.max(1))
            .map(|_| run_row(exe, &handle, index.path(), rare, Some(cache.path())))
            .collect::<Result<Vec<_>>>()?;
        out.push(row_figures(
            &format!("{label}: {}, warm", rare.name),
            &warm,
            &[],
        ));
    }
    Ok(out)
}

/// Flags of `archilyzer-dev bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    #[command(flatten)]
    /// The archive to measure.
    pub source: archilyzer_index::cli::SourceArgs,
    #[command(flatten)]
    /// Its index.
    pub index: archilyzer_index::cli::IndexArgs,
    /// Runs per row; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Refuse to run above this load average per core...
    #[arg(long, default_value_t = 0.7)]
    pub max_load: f64,
    /// ...unless forced; wall figures are then marked UNRELIABLE.
    #[arg(long)]
    pub force: bool,
    /// The rare word (default: the word in the fewest pages).
    #[arg(long)]
    pub rare: Option<String>,
    /// The common word (default: the most widespread one).
    #[arg(long)]
    pub common: Option<String>,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also time the rows against this archive served over loopback
    /// HTTP (`serve`), with this latency per request in ms...
    #[arg(long, requires = "remote_mbps")]
    pub remote_latency_ms: Option<u64>,
    /// ...and this bandwidth in MB/s, shared by all requests.
    #[arg(long, requires = "remote_latency_ms")]
    pub remote_mbps: Option<u64>,
}

/// Flags of `archilyzer-dev bench-one` (one run of one row, in a fresh
/// process: what `bench` starts).
#[derive(clap::Args, Debug, Clone)]
pub struct BenchOneArgs {
    #[arg(long)]
    /// The archive, as a source handle.
    pub handle: String,
    #[arg(long)]
    /// The index to prune with.
    pub index: PathBuf,
    #[arg(long)]
    /// The row to run, as JSON.
    pub row: String,
}

/// Runs the bench the flags describe, refusing a loaded machine unless
/// forced.
pub fn command(args: &BenchArgs) -> Result<std::process::ExitCode> {
    let json = archilyzer_index::trend::claim(
        args.json.as_deref(),
        archilyzer_core::file_claim::FileKind::Json,
        "--json",
    )?;
    let load = load_per_core().unwrap_or(0.0);
    if load > args.max_load && !args.force {
        anyhow::bail!(
            "the load average is {load:.2} per core, above --max-load {}: wall times would not be comparable; \
             wait for an idle machine, or pass --force and every wall figure is marked UNRELIABLE",
            args.max_load
        );
    }
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    let options = BenchOptions {
        repeat: args.repeat,
        load,
        unreliable: load > args.max_load,
        rare: args.rare.clone(),
        common: args.common.clone(),
        json,
        remote: args
            .remote_latency_ms
            .zip(args.remote_mbps)
            .map(|(ms, mbps)| crate::serve::Pace {
                latency: std::time::Duration::from_millis(ms),
                bytes_per_sec: mbps * 1_000_000,
                ignore_ranges: false,
            }),
    };
    run(&archive, &dir, &options)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// One run of one row, printed as JSON (what `bench` reads back).
pub fn command_one(args: &BenchOneArgs) -> Result<std::process::ExitCode> {
    let row: Row = serde_json::from_str(&args.row)?;
    let figures = run_once(&SourceHandle::parse(&args.handle)?, &args.index, &row)?;
    println!("{}", serde_json::to_string(&figures)?);
    Ok(std::process::ExitCode::SUCCESS)
}

/// What `archilyzer-dev bench` was asked, and the load it measured.
pub struct BenchOptions {
    /// Runs per row; the median is reported.
    pub repeat: usize,
    /// The load average per core when the bench started.
    pub load: f64,
    /// Above `--max-load` (forced): every wall figure is marked.
    pub unreliable: bool,
    /// The rare word (default: the one the fewest videos hold).
    pub rare: Option<String>,
    /// The common word (default: the one in the most pages).
    pub common: Option<String>,
    /// Also write the figures as JSON to this claimed file.
    pub json: Option<archilyzer_core::file_claim::FileClaim>,
    /// Also time the remote rows against the archive served this way.
    pub remote: Option<crate::serve::Pace>,
}

/// The whole bench: each row run `repeat` times in a fresh process, `rg`
/// beside it, the table printed to stdout.
pub fn run(archive: &Archive, dir: &Path, options: &BenchOptions) -> Result<()> {
    let BenchOptions {
        repeat,
        load,
        unreliable,
        ..
    } = *options;
    let rows = rows(archive, dir, options.rare.clone(), options.common.clone())?;
    let (pages, _) = archive.page_table();
    let transcripts: Vec<_> = pages
        .iter()
        .filter(|p| p.layer == Layer::Transcripts)
        .collect();
    println!(
        "corpus: {}; {} site(s), {} channel(s), {} transcript pages, {:.0} MB; load {load:.2}/core; {repeat} run(s) per row, median",
        archive.handle(),
        archive.sites().len(),
        archive.sites().iter().map(|s| s.corpus().channels.len()).sum::<usize>(),
        transcripts.len(),
        transcripts.iter().map(|p| p.bytes).sum::<u64>() as f64 / 1e6,
    );
    let exe = std::env::current_exe()?;
    let local_dir = match archive.handle() {
        SourceHandle::Local(d) => Some(d.clone()),
        _ => None,
    };
    let mut figures = Vec::new();
    for row in &rows {
        let runs = (0..repeat.max(1))
            .map(|_| run_row(&exe, archive.handle(), dir, row, None))
            .collect::<Result<Vec<_>>>()?;
        let rg: Vec<(f64, u64)> = (0..repeat.max(1))
            .filter_map(|_| local_dir.as_deref().and_then(|d| rg_baseline(d, row)))
            .collect();
        figures.push(row_figures(&row.name, &runs, &rg));
        eprintln!("bench: {} done", row.name);
    }
    if let (Some(pace), Some(local)) = (&options.remote, &local_dir) {
        figures.extend(remote_rows(&exe, local, pace, &rows, repeat)?);
    }
    print!("{}", render(&figures, unreliable));
    if let Some(file) = &options.json {
        let body =
            serde_json::json!({"unreliable": unreliable, "load_per_core": load, "rows": figures});
        file.write(&serde_json::to_string(&body)?)
            .map_err(anyhow::Error::msg)?;
    }
    Ok(())
}
