//! `archilyzer-index`: the command line. Each subcommand parses its flags
//! and calls the library; nothing here decides behaviour of its own.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index;
use archilyzer_core::query::order::Order;
use archilyzer_core::source::{SourceHandle, DEFAULT_LOCAL_DIR};
use archilyzer_index::plural::counted;
use archilyzer_index::progress::Progress;
use archilyzer_index::search::QueryArgs;
use archilyzer_index::{bench, check, generate, import, search, serve, size, stats};
use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "archilyzer-index",
    version,
    about = "Index, check, search, generate and import transcript archives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a deterministic archive of any size (four composed dirs:
    /// alpha, beta, cited, hub).
    Gen {
        /// The directory to create (replaced atomically if it exists).
        #[arg(long)]
        out: PathBuf,
        /// Approximate transcript bytes, e.g. 4MB or 1.3GB.
        #[arg(long, value_parser = size::parse_size)]
        bytes: u64,
        /// Seed of every random choice; the same seed gives the same bytes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Channels of the main site (alpha), at least 3.
        #[arg(long, default_value_t = 5)]
        channels: usize,
    },
    /// Compose an archive from a yt-dlp download folder or bare caption
    /// files (VTT, SRT, Whisper TSV/JSON, json3, srv3).
    Import(import::ImportArgs),
    /// Read the archive once and write its index (incremental: unchanged
    /// pages are not read again).
    Build {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
    },
    /// Search an archive, pruned by its index, confirmed on the text.
    Search {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
        /// Read every page in scope; do not use an index.
        #[arg(long, conflicts_with = "index")]
        no_index: bool,
        #[command(flatten)]
        query: Box<QueryArgs>,
        /// List at most this many videos (totals stay complete).
        #[arg(long)]
        limit: Option<usize>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Also print a viewer share link that re-runs this search (the
        /// MCP server's open_link opens it).
        #[arg(long)]
        share_link: bool,
        /// The origin the share link names (default: the archive's own URL).
        #[arg(long, requires = "share_link")]
        origin: Option<String>,
        /// archive (default: streamed as pages are read), relevance (BM25
        /// over the confirmed hits), newest or oldest (these hold every
        /// match in memory to sort it).
        #[arg(long, default_value = "archive", value_parser = order_arg)]
        order: Order,
    },
    /// Prove parity: run queries with the index and with a full scan and
    /// exit 1 on any difference in hits.
    Check {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
        /// Queries, one per line: plain text, `re:REGEX`, or a JSON request.
        /// Default: a set sampled from the archive.
        #[arg(long)]
        queries: Option<PathBuf>,
    },
    /// Time the reference query set (each run a fresh process) beside a
    /// full scan of the same files by `rg -o -i -w`.
    Bench {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
        /// Runs per row; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Refuse to run above this load average per core...
        #[arg(long, default_value_t = 0.7)]
        max_load: f64,
        /// ...unless forced; wall figures are then marked UNRELIABLE.
        #[arg(long)]
        force: bool,
        /// The rare word (default: the word in the fewest pages).
        #[arg(long)]
        rare: Option<String>,
        /// The common word (default: the most widespread one).
        #[arg(long)]
        common: Option<String>,
        /// Also write the figures as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also time the rows against this archive served over loopback
        /// HTTP (`serve`), with this latency per request in ms...
        #[arg(long, requires = "remote_mbps")]
        remote_latency_ms: Option<u64>,
        /// ...and this bandwidth in MB/s, shared by all requests.
        #[arg(long, requires = "remote_latency_ms")]
        remote_mbps: Option<u64>,
    },
    /// Serve a composed dir over HTTP on loopback, slowed on purpose (a
    /// latency per request, a bandwidth cap), with Range and ETag support
    /// as static hosts have: for measuring remote reads.
    Serve {
        /// The folder to serve (its files appear at the root URL).
        dir: PathBuf,
        /// The loopback address to listen on.
        #[arg(long, default_value = "127.0.0.1:8780")]
        addr: std::net::SocketAddr,
        /// Wait this long before each response, in ms.
        #[arg(long, default_value_t = 0)]
        latency_ms: u64,
        /// Send all bodies together at most this fast, in MB/s (0: no cap).
        #[arg(long, default_value_t = 0)]
        mbps: u64,
        /// Answer Range requests with the whole file, as some hosts do.
        #[arg(long)]
        no_ranges: bool,
    },
    /// A word and its neighbours in the index's vocabulary (what speech
    /// recognition may have written for it), each searched, with video and
    /// hit counts and one example moment: material for an alias.
    Terms {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
        /// The word.
        word: String,
        /// Edits a variant may be away (1 or 2; default: 1, or 2 for a
        /// word of 8 letters or more).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
        max_edits: Option<u32>,
        /// Only this channel, by slug or name (repeatable).
        #[arg(long = "channel")]
        channels: Vec<String>,
        /// Only channels of this group (repeatable).
        #[arg(long = "group")]
        groups: Vec<String>,
    },
    /// One run of one bench row (used by `bench`).
    #[command(hide = true)]
    BenchOne {
        #[arg(long)]
        handle: String,
        #[arg(long)]
        index: PathBuf,
        #[arg(long)]
        row: String,
    },
    /// Channels, pages, videos, cues and bytes of an archive.
    Stats {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        index: IndexArgs,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Which archive to read. Precedence: hub > remote > local; without any,
/// the environment (TRANSCRIPT_HUB_URL, TRANSCRIPT_SITE_URL,
/// TRANSCRIPT_LOCAL_DIR), else ./export/public.
#[derive(Args, Debug, Clone)]
struct SourceArgs {
    /// A composed public dir on disk (read when no --hub or --remote is given).
    #[arg(long, env = "TRANSCRIPT_LOCAL_DIR", default_value = DEFAULT_LOCAL_DIR)]
    local: PathBuf,
    /// A deployed site origin (https://...).
    #[arg(long, env = "TRANSCRIPT_SITE_URL")]
    remote: Option<String>,
    /// A hub origin; `URL#a,b` reads only members a and b. A directory
    /// holding a hub's corpus.json is read as that hub.
    #[arg(long, env = "TRANSCRIPT_HUB_URL")]
    hub: Option<String>,
}

impl SourceArgs {
    fn handle(&self) -> Result<SourceHandle> {
        Ok(SourceHandle::from_flags(
            self.hub.as_deref(),
            self.remote.as_deref(),
            &self.local,
        )?)
    }

    fn open(&self) -> Result<Archive> {
        let handle = self.handle()?;
        if let Some(missing) = handle.missing_local() {
            anyhow::bail!(missing);
        }
        Archive::open(&handle, &OpenOptions::default())
            .with_context(|| format!("cannot open {handle}"))
    }
}

/// Where the index lives.
#[derive(Args, Debug, Clone)]
struct IndexArgs {
    /// The index directory (default: the cache dir, one subdir per source;
    /// ARCHILYZER_INDEX_DIR overrides the root).
    #[arg(long = "index")]
    index: Option<PathBuf>,
}

impl IndexArgs {
    fn dir(&self, archive: &Archive) -> Result<PathBuf> {
        match &self.index {
            Some(d) => Ok(d.clone()),
            None => index::default_dir(archive.handle())
                .context("no cache directory on this system: pass --index DIR"),
        }
    }
}

/// An `--order` value.
fn order_arg(text: &str) -> Result<Order, String> {
    Order::parse(text).ok_or_else(|| {
        format!("{text:?} is not an order: use archive, relevance, newest or oldest")
    })
}

fn main() -> ExitCode {
    archilyzer_core::logging::init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Gen {
            out,
            bytes,
            seed,
            channels,
        } => {
            let options = generate::GenOptions {
                out: out.clone(),
                bytes,
                seed,
                channels,
            };
            let r = generate::generate(&options, &|line| eprintln!("gen: {line}"))?;
            eprintln!(
                "gen: wrote {} ({}, {}, {:.1} MB) in {:.2} s: {:.0} MB/s",
                out.display(),
                counted(r.videos as u64, "video"),
                counted(r.pages as u64, "page"),
                r.bytes_written as f64 / 1e6,
                r.seconds,
                r.bytes_written as f64 / 1e6 / r.seconds.max(1e-9)
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Import(args) => import::run(&args, &|line| eprintln!("import: {line}")),
        Command::Build { source, index } => {
            let archive = source.open()?;
            let dir = index.dir(&archive)?;
            index::claim(&archive, &dir)?;
            let progress = Progress::new("build", "pages");
            let report = index::build(&archive, &dir, &|event| match event {
                index::BuildEvent::Start { to_read, .. } => progress.set_total(to_read as u64),
                index::BuildEvent::PageRead { .. } => progress.tick(),
            })
            .with_context(|| {
                format!(
                    "the build did not finish; the index at {} is as it was before (nothing was replaced). Free space or fix the cause, then build again",
                    dir.display()
                )
            })?;
            progress.finish();
            eprintln!(
                "build: {}: {} read ({:.1} MB), {} unchanged; {}, {}; index {:.1} MB at {} in {:.2} s",
                counted(report.pages as u64, "page"),
                report.read,
                report.bytes_read as f64 / 1e6,
                report.reused,
                counted(report.terms as u64, "word"),
                counted(report.videos as u64, "video"),
                report.index_bytes as f64 / 1e6,
                dir.display(),
                report.seconds
            );
            for f in &report.failed {
                eprintln!("build: UNREADABLE {f} (searches will read it in full)");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Search {
            source,
            index,
            no_index,
            query,
            limit,
            json,
            share_link,
            origin,
            order,
        } => {
            query.validate().unwrap_or_else(|e| e.exit());
            let archive = source.open()?;
            let request = query.request();
            let share = share_link
                .then(|| search::share_link(&archive, origin.as_deref(), &request))
                .transpose()?;
            let dir = if no_index {
                None
            } else {
                Some(index.dir(&archive)?)
            };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            search::run(
                &archive,
                dir.as_deref(),
                &request,
                limit,
                json,
                share.as_deref(),
                order,
                &mut out,
            )?;
            std::io::Write::flush(&mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            source,
            index,
            queries,
        } => {
            let archive = source.open()?;
            let dir = index.dir(&archive)?;
            let queries = match queries {
                Some(file) => check::read_queries(&file)?,
                None => check::sample_queries(&archive, &dir)?,
            };
            let report = check::check(&archive, &dir, &queries, &|line| eprintln!("check: {line}"));
            for d in report.differences.iter().take(10) {
                eprintln!("check: DIFFERENCE {d}");
            }
            println!(
                "check: {} queries, {} hit(s); pages read with the index {} vs full scan {}; {} difference(s) (corpus: {})",
                report.queries,
                report.hits,
                report.pages_read_indexed,
                report.pages_read_full,
                report.differences.len(),
                archive.handle()
            );
            Ok(if report.differences.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Bench {
            source,
            index,
            repeat,
            max_load,
            force,
            rare,
            common,
            json,
            remote_latency_ms,
            remote_mbps,
        } => {
            let load = bench::load_per_core().unwrap_or(0.0);
            if load > max_load && !force {
                anyhow::bail!(
                    "the load average is {load:.2} per core, above --max-load {max_load}: wall times would not be comparable; \
                     wait for an idle machine, or pass --force and every wall figure is marked UNRELIABLE"
                );
            }
            let archive = source.open()?;
            let dir = index.dir(&archive)?;
            let options = bench::BenchOptions {
                repeat,
                load,
                unreliable: load > max_load,
                rare,
                common,
                json,
                remote: remote_latency_ms
                    .zip(remote_mbps)
                    .map(|(ms, mbps)| serve::Pace {
                        latency: std::time::Duration::from_millis(ms),
                        bytes_per_sec: mbps * 1_000_000,
                        ignore_ranges: false,
                    }),
            };
            bench::run(&archive, &dir, &options)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve {
            dir,
            addr,
            latency_ms,
            mbps,
            no_ranges,
        } => {
            let pace = serve::Pace {
                latency: std::time::Duration::from_millis(latency_ms),
                bytes_per_sec: mbps * 1_000_000,
                ignore_ranges: no_ranges,
            };
            let server = serve::Server::start(&dir, addr, pace)?;
            eprintln!(
                "serving {} at {} ({latency_ms} ms a request, {}); Ctrl-C stops",
                dir.display(),
                server.url(),
                if mbps == 0 {
                    "no bandwidth cap".to_string()
                } else {
                    format!("{mbps} MB/s")
                }
            );
            loop {
                std::thread::park();
            }
        }
        Command::Terms {
            source,
            index,
            word,
            max_edits,
            channels,
            groups,
        } => {
            let archive = source.open()?;
            let dir = index.dir(&archive)?;
            let filters = archilyzer_core::query::FilterArgs {
                channels,
                groups,
                ..Default::default()
            };
            let report = archilyzer_core::query::vocabulary::similar_terms(
                &archive, &dir, &word, max_edits, &filters,
            )?;
            for t in &report {
                println!("{}", archilyzer_index::search::term_line(t));
            }
            println!("(corpus: {})", archive.handle());
            Ok(ExitCode::SUCCESS)
        }
        Command::BenchOne { handle, index, row } => {
            let row: bench::Row = serde_json::from_str(&row)?;
            println!(
                "{}",
                serde_json::to_string(&bench::run_once(
                    &SourceHandle::parse(&handle)?,
                    &index,
                    &row
                )?)?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Stats {
            source,
            index,
            json,
        } => {
            let archive = source.open()?;
            let mut f = stats::figures(&archive)?;
            f.index = index
                .dir(&archive)
                .ok()
                .map(|d| stats::index_figures(&archive, &d));
            if json {
                println!("{}", serde_json::to_string_pretty(&f)?);
            } else {
                print!("{}", stats::render(&f));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
