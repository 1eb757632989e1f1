//! `archilyzer-index build`: writes an archive's index, with a progress
//! bar on a terminal, and says what it did.

use std::process::ExitCode;

use anyhow::{Context, Result};
use std::path::Path;

use archilyzer_core::archive::Archive;
use archilyzer_core::index;

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
}

/// Builds the index the flags name and prints its report.
pub fn command(args: &BuildArgs) -> Result<ExitCode> {
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    run(&archive, &dir)
}

/// Builds (or brings up to date) the index of `archive` in `dir`, with
/// progress, and prints what it did.
pub fn run(archive: &Archive, dir: &Path) -> Result<ExitCode> {
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
    Ok(ExitCode::SUCCESS)
}
