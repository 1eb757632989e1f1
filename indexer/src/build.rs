//! `archilyzer-index build`: writes an archive's index, with a progress
//! bar on a terminal, and says what it did.

use std::process::ExitCode;

use anyhow::{Context, Result};
use std::path::Path;

use archilyzer_core::archive::Archive;
use archilyzer_core::index;
use archilyzer_core::passages;

use crate::cli::{IndexArgs, SourceArgs};
use crate::progress::Progress;
use archilyzer_core::report::counted;

/// Flags of `archilyzer-index build`.
#[derive(clap::Args, Debug, Clone)]
pub struct BuildArgs {
    #[command(flatten)]
    /// The archive to index.
    pub source: SourceArgs,
    #[command(flatten)]
    /// Where the index goes.
    pub index: IndexArgs,
    #[command(flatten)]
    /// Whether to embed passages too.
    pub embed: EmbedFlags,
}

/// `--embed` and the model it uses (`build`, `import --build`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EmbedFlags {
    /// Also embed every video's passages with the sentence model, for
    /// `passages` and find_passages (only new or changed videos are
    /// embedded; an interrupted run resumes where it stopped).
    #[arg(long)]
    pub embed: bool,
    /// The sentence model's folder (default: ARCHILYZER_MODEL, then the
    /// model `archilyzer-index model install` installed, then the Hugging
    /// Face cache's all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    pub model: Option<std::path::PathBuf>,
}

/// Builds the index the flags name and prints its report.
pub fn command(args: &BuildArgs) -> Result<ExitCode> {
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    run(&archive, &dir, &args.embed)
}

/// Builds (or brings up to date) the index of `archive` in `dir`, with
/// progress, and prints what it did; then embeds its passages when
/// `embed` asks.
pub fn run(archive: &Archive, dir: &Path, embed: &EmbedFlags) -> Result<ExitCode> {
    // The model first: a missing model is said before minutes of work.
    let embedder = match embed.embed {
        true => Some(crate::model::load(embed.model.as_deref())?),
        false => None,
    };
    index_archive(archive, dir)?;
    if let Some(embedder) = embedder {
        embed_passages(archive, dir, &embedder)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Embeds the passages of `archive` beside its index in `dir`, with
/// progress, and prints what it did.
fn embed_passages(
    archive: &Archive,
    dir: &Path,
    embedder: &archilyzer_embed::Embedder,
) -> Result<()> {
    let progress = Progress::new("embed", "passages").doing("to embed");
    let report = passages::embed(archive, dir, embedder, &|event| match event {
        passages::EmbedEvent::Start { to_embed } => progress.set_total(to_embed),
        passages::EmbedEvent::Embedded { passages } => progress.inc(passages),
    })
    .with_context(|| {
        format!(
            "the passages were not all embedded; the store at {} is as it was, and the passages finished are kept for the next run",
            dir.display()
        )
    })?;
    progress.finish();
    eprintln!(
        "embed: {} in {}: {} embedded ({}), {} carried over, {} resumed from an interrupted run; store {:.1} MB with {} in {:.2} s",
        counted(report.passages as u64, "passage"),
        counted(report.videos as u64, "video"),
        report.embedded,
        counted(report.embedded_videos as u64, "video"),
        report.reused,
        report.resumed,
        report.bytes as f64 / 1e6,
        embedder.id().name,
        report.seconds
    );
    for f in &report.failed {
        eprintln!("embed: UNREADABLE {f} (its videos have no passages)");
    }
    Ok(())
}

/// Builds (or brings up to date) the index of `archive` in `dir`.
fn index_archive(archive: &Archive, dir: &Path) -> Result<()> {
    index::claim(archive, dir)?;
    let progress = Progress::new("build", "pages");
    let report = index::build(archive, dir, &|event| match event {
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
        "build: {}: {} read ({:.1} MB), {} unchanged{}; {}, {}; index {:.1} MB at {}{} in {:.2} s",
        counted(report.pages as u64, "page"),
        report.read,
        report.bytes_read as f64 / 1e6,
        report.reused,
        if report.rehashed > 0 {
            format!(
                " ({} rewritten with the same bytes, proved by hashing)",
                report.rehashed
            )
        } else {
            String::new()
        },
        counted(report.terms as u64, "word"),
        counted(report.videos as u64, "video"),
        report.index_bytes as f64 / 1e6,
        dir.display(),
        if report.untouched {
            ", already up to date (nothing written)"
        } else {
            ""
        },
        report.seconds
    );
    for f in &report.failed {
        eprintln!("build: UNREADABLE {f} (searches will read it in full)");
    }
    Ok(())
}
