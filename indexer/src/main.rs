//! `archilyzer-index`: the command line people run. Each subcommand is one
//! call into the module named after it; nothing here decides behaviour.
//! The developer tools (the generator, the benchmark, the slowed test
//! host) are the separate `archilyzer-dev` binary (indexer/dev/).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use anyhow::Result;
use archilyzer_index::{
    build, check, import, model, passages, related, search, stats, terms, trend,
};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "archilyzer-index",
    version,
    about = "Import, index, check, search and describe transcript archives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compose an archive from a yt-dlp download folder or bare caption
    /// files (VTT, SRT, Whisper TSV/JSON, json3, srv3).
    Import(import::ImportArgs),
    /// Read the archive once and write its index (incremental: unchanged
    /// pages are not read again).
    Build(build::BuildArgs),
    /// Search an archive, pruned by its index, confirmed on the text.
    Search(search::SearchArgs),
    /// The passages nearest a question by meaning (the sentence model),
    /// by words (BM25), or both fused; needs `build --embed`. Ranks,
    /// never counts.
    Passages(Box<passages::PassagesArgs>),
    /// When the queries were said: their confirmed matches per year,
    /// quarter or month, with hours of speech and hits per hour (bars,
    /// --json, --svg FILE, --html FILE).
    Trend(trend::TrendArgs),
    /// Prove parity: run queries with the index and with a full scan and
    /// exit 1 on any difference in hits.
    Check(check::CheckArgs),
    /// A word and its neighbours in the index's vocabulary (what speech
    /// recognition may have written for it), each searched, with video and
    /// hit counts and one example moment: material for an alias.
    Terms(terms::TermsArgs),
    /// What is said alongside a query: the words said unusually often in
    /// the videos it matches (significant terms, JLH), or with --video ID
    /// the videos most like one video (more-like-this).
    Related(Box<related::RelatedArgs>),
    /// Channels, pages, videos, cues and bytes of an archive.
    Stats(stats::StatsArgs),
    /// The sentence model passages are found by meaning with: install it,
    /// show which one is found, print a text's vector.
    Model(model::ModelArgs),
}

fn main() -> ExitCode {
    archilyzer_core::logging::init();
    archilyzer_index::cli::clean_up_on_interrupt();
    archilyzer_index::cli::finish(run(archilyzer_index::cli::parse::<Cli>()))
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Import(args) => import::run(&args, &|line| eprintln!("import: {line}")),
        Command::Build(args) => build::command(&args),
        Command::Search(args) => search::command(&args),
        Command::Passages(args) => passages::command(&args),
        Command::Trend(args) => trend::command(&args),
        Command::Check(args) => check::command(&args),
        Command::Terms(args) => terms::command(&args),
        Command::Related(args) => related::command(&args),
        Command::Stats(args) => stats::command(&args),
        Command::Model(args) => model::command(&args),
    }
}
