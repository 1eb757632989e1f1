//! Flags several commands share: which archive to read, and where its
//! index lives.

use std::path::PathBuf;

use anyhow::{Context, Result};
use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::index;
use archilyzer_core::query::order::Order;
use archilyzer_core::query::Find;
use archilyzer_core::source::{SourceFlags, SourceHandle};
use clap::Args;

/// Which archive to read: the flags both binaries share
/// ([`SourceFlags`]), opened for a command.
#[derive(Args, Debug, Clone)]
pub struct SourceArgs {
    /// `--local`, `--remote`, `--hub`.
    #[command(flatten)]
    pub flags: SourceFlags,
}

impl SourceArgs {
    /// The handle the flags name.
    pub fn handle(&self) -> Result<SourceHandle> {
        Ok(self.flags.handle()?)
    }

    /// The archive the flags name, opened.
    pub fn open(&self) -> Result<Archive> {
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
pub struct IndexArgs {
    /// The index directory (default: the cache dir, one subdir per source;
    /// ARCHILYZER_INDEX_DIR overrides the root).
    #[arg(long = "index")]
    pub index: Option<PathBuf>,
}

impl IndexArgs {
    /// The index directory of `archive`.
    pub fn dir(&self, archive: &Archive) -> Result<PathBuf> {
        match &self.index {
            Some(d) => Ok(d.clone()),
            None => index::default_dir(archive.handle())
                .context("no cache directory on this system: pass --index DIR"),
        }
    }
}

/// The archive a query reads, and whether its index prunes the pages
/// (`search` and `trend` share these flags).
#[derive(Args, Debug, Clone)]
pub struct ReadArgs {
    #[command(flatten)]
    /// The archive to read.
    pub source: SourceArgs,
    #[command(flatten)]
    /// The index to prune with.
    pub index: IndexArgs,
    /// Read every page in scope; do not use an index.
    #[arg(long, conflicts_with = "index")]
    pub no_index: bool,
}

impl ReadArgs {
    /// The index directory to prune with; `None` with `--no-index`.
    pub fn index_dir(&self, archive: &Archive) -> Result<Option<PathBuf>> {
        if self.no_index {
            return Ok(None);
        }
        self.index.dir(archive).map(Some)
    }
}

/// The command line of `T`, parsed: its `--help` wrapped to the width of
/// the terminal it is shown on, and not wrapped at all when written to a
/// pipe or a file (where there is no width to fit).
pub fn parse<T: clap::Parser>() -> T {
    use std::io::IsTerminal;
    let mut command = phrased_filter_help(T::command());
    if !std::io::stdout().is_terminal() {
        command = command.term_width(0);
    }
    let matches = command.get_matches();
    T::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// `command` with the help of every filter flag, in it and in its
/// subcommands, in the command line's words ([`crate::phrasing`]): the
/// filter table words its help for the tools.
fn phrased_filter_help(command: clap::Command) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let command = command.mut_args(|arg| {
        let filter = archilyzer_core::query::FILTERS
            .iter()
            .any(|f| f.name == arg.get_id().as_str());
        match arg.get_help() {
            Some(help) if filter => {
                let said = crate::phrasing::phrase(&help.to_string());
                arg.help(said)
            }
            _ => arg,
        }
    });
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, phrased_filter_help)
    })
}

/// A request that cannot be right (a bad query, scope or filter value),
/// named with the corpus it was asked of: the command exits 2.
#[derive(Debug, thiserror::Error)]
#[error("{error} (corpus: {corpus})")]
pub struct Refused {
    /// What is wrong.
    pub error: Box<dyn std::error::Error + Send + Sync>,
    /// The corpus's handle.
    pub corpus: String,
}

/// `error` refused on `archive`, as an error [`finish`] exits 2 for.
pub fn refused(
    error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    archive: &Archive,
) -> anyhow::Error {
    anyhow::Error::new(Refused {
        error: error.into(),
        corpus: archive.handle().to_string(),
    })
}

/// Writes `text` to standard output. A reader that went away (`| head`)
/// is an error [`finish`] ends quietly on, never a panic.
pub fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether `e` is a write to a pipe whose reader has gone (`| head`).
fn reader_gone(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The exit code of a command's result; an error is printed on stderr
/// with its causes (a reader gone from the pipe is no error: exit 0), and
/// exits 2 when the request itself cannot be right
/// (a [`Refused`]: a bad query, scope or filter value, as clap's usage
/// errors do), else 1.
pub fn finish(result: Result<std::process::ExitCode>) -> std::process::ExitCode {
    result.unwrap_or_else(|e| {
        // The reader has all it wanted: stop as a Unix filter does.
        if reader_gone(&e) {
            return std::process::ExitCode::SUCCESS;
        }
        eprintln!("error: {}", crate::phrasing::phrase(&format!("{e:#}")));
        match e.chain().any(|cause| cause.is::<Refused>()) {
            true => std::process::ExitCode::from(2),
            false => std::process::ExitCode::FAILURE,
        }
    })
}

/// On Ctrl-C: removes the unfinished staging folder of whatever this
/// process is writing, says in one line per target that it is as it was,
/// and exits 130 (the shell's code for an interrupt).
pub fn clean_up_on_interrupt() {
    let installed = ctrlc::set_handler(|| {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            // A progress bar may hold the line: clear it, so each message
            // below starts a line of its own.
            eprint!("\r\x1b[2K");
        }
        let lines = archilyzer_core::staging::abandon_all();
        if lines.is_empty() {
            eprintln!(
                "interrupted before anything was written: every file and folder is as it was"
            );
        }
        for line in lines {
            eprintln!("{line}");
        }
        std::process::exit(130);
    });
    if let Err(e) = installed {
        tracing::warn!("Ctrl-C will not clean up after itself: {e}");
    }
}

/// A count flag's value (see the core's).
pub use archilyzer_core::query::find::at_least_one;

/// A query's flags that read alone but not together, refused as a usage
/// error (exit 2): a date range whose start is after its end.
pub fn check_find(find: &Find) -> Result<(), clap::Error> {
    let f = &find.filters.0;
    archilyzer_core::query::check_range(f.date_from.as_deref(), f.date_to.as_deref()).map_err(|e| {
        let said = crate::phrasing::phrase(&e.to_string());
        clap::Error::raw(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{said}\n"),
        )
    })
}

/// An `--order` value.
pub fn order_arg(text: &str) -> Result<Order, String> {
    Order::parse(text).ok_or_else(|| {
        format!("{text:?} is not an order: use archive, relevance, newest or oldest")
    })
}
