//! `archilyzer-dev`: the developers' tools, kept out of the command line
//! people install: a deterministic archive generator, the benchmark
//! (each row in a fresh process, beside `rg`), and a slowed loopback host
//! for measuring remote reads.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_dev::{bench, generate, serve};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "archilyzer-dev",
    version,
    about = "Developer tools for archilyzer-index: generate, benchmark, serve"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a deterministic archive of any size (four composed dirs:
    /// alpha, beta, cited, hub).
    Gen(generate::GenArgs),
    /// Time the reference query set (each run a fresh process) beside a
    /// full scan of the same files by `rg -o -i -w`.
    Bench(bench::BenchArgs),
    /// One run of one bench row (used by `bench`).
    #[command(hide = true)]
    BenchOne(bench::BenchOneArgs),
    /// Serve a composed dir over HTTP on loopback, slowed on purpose (a
    /// latency per request, a bandwidth cap), with Range and ETag support
    /// as static hosts have: for measuring remote reads.
    Serve(serve::ServeArgs),
    /// A passage store TIMES the size of an index's, for timing
    /// find_passages at a million passages.
    GrowPassages(archilyzer_dev::grow::GrowArgs),
    /// Write a tiny sentence model with random weights in the real layout
    /// (what the tests embed with; CI's "another model").
    TinyModel {
        /// The folder to write.
        #[arg(long)]
        out: PathBuf,
        /// The weights' seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Join the files of an index into one input of the `index_files`
    /// fuzz target (fuzz/seeds.sh makes its seed with this).
    FuzzSeed {
        /// The index directory (from `archilyzer-index build`).
        #[arg(long)]
        index: PathBuf,
        /// The input file to write.
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    archilyzer_core::logging::init();
    archilyzer_index::cli::clean_up_on_interrupt();
    archilyzer_index::cli::finish(run(Cli::parse()))
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Gen(args) => generate::command(&args),
        Command::Bench(args) => bench::command(&args),
        Command::BenchOne(args) => bench::command_one(&args),
        Command::Serve(args) => serve::command(&args),
        Command::GrowPassages(args) => archilyzer_dev::grow::command(&args),
        Command::TinyModel { out, seed } => {
            archilyzer_embed::tiny::write(&out, seed)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::FuzzSeed { index, out } => {
            let seed = archilyzer_fuzzing::index_seed(&index).with_context(|| {
                format!(
                    "reading the index at {} (make one with `archilyzer-index build --index DIR`)",
                    index.display()
                )
            })?;
            std::fs::write(&out, seed).with_context(|| format!("writing {}", out.display()))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
