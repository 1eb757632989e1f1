//! `archilyzer-index`: the command line. Each subcommand parses its flags
//! and calls the library; nothing here decides behaviour of its own.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index;
use archilyzer_core::source::SourceHandle;
use archilyzer_index::progress::Progress;
use archilyzer_index::search::QueryArgs;
use archilyzer_index::{check, generate, import, search, size, stats};
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
        query: QueryArgs,
        /// List at most this many videos (totals stay complete).
        #[arg(long)]
        limit: Option<usize>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
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
    /// Channels, pages, videos, cues and bytes of an archive.
    Stats {
        #[command(flatten)]
        source: SourceArgs,
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
    /// A composed public dir on disk.
    #[arg(long, env = "TRANSCRIPT_LOCAL_DIR")]
    local: Option<PathBuf>,
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
        let text = if let Some(hub) = &self.hub {
            if !hub.contains("://") {
                // A hub on disk: its corpus.json says it is a hub.
                return Ok(SourceHandle::local(std::path::Path::new(hub)));
            }
            format!("hub:{hub}")
        } else if let Some(remote) = &self.remote {
            format!("remote:{remote}")
        } else {
            let dir = self
                .local
                .clone()
                .unwrap_or_else(|| PathBuf::from("./export/public"));
            return Ok(SourceHandle::local(&dir));
        };
        Ok(SourceHandle::parse(&text)?)
    }

    fn open(&self) -> Result<Archive> {
        let handle = self.handle()?;
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

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ARCHILYZER_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
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
                "gen: wrote {} ({} videos, {} pages, {:.1} MB) in {:.2} s: {:.0} MB/s",
                out.display(),
                r.videos,
                r.pages,
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
            let progress = Progress::new("build");
            let report = index::build(&archive, &dir, &|event| match event {
                index::BuildEvent::Start { to_read, .. } => progress.set_total(to_read as u64),
                index::BuildEvent::PageRead { .. } => progress.tick(),
            })?;
            progress.finish();
            eprintln!(
                "build: {} page(s): {} read ({:.1} MB), {} unchanged; {} words, {} videos; index {:.1} MB at {} in {:.2} s",
                report.pages,
                report.read,
                report.bytes_read as f64 / 1e6,
                report.reused,
                report.terms,
                report.videos,
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
        } => {
            let archive = source.open()?;
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
                &query.request(),
                limit,
                json,
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
        Command::Stats { source, json } => {
            let archive = source.open()?;
            let f = stats::figures(&archive)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&f)?);
            } else {
                print!("{}", stats::render(&f));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
