//! `archilyzer-index terms`: a word and its neighbours in the index's
//! vocabulary, each searched, with counts and an example moment.

use std::process::ExitCode;

use anyhow::Result;
use archilyzer_core::query::vocabulary::{similar_terms, TermReport};
use archilyzer_core::query::FilterArgs;
use archilyzer_core::report;

use crate::cli::{IndexArgs, SourceArgs};
use archilyzer_core::report::counted;

/// Flags of `archilyzer-index terms`.
#[derive(clap::Args, Debug, Clone)]
pub struct TermsArgs {
    #[command(flatten)]
    /// The archive whose vocabulary is looked in.
    pub source: SourceArgs,
    #[command(flatten)]
    /// Its index.
    pub index: IndexArgs,
    /// The word.
    pub word: String,
    /// Edits a variant may be away (1 or 2; default: 1, or 2 for a
    /// word of 8 letters or more).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub max_edits: Option<u32>,
    /// Only this channel, by slug or name (repeatable).
    #[arg(long = "channel")]
    pub channels: Vec<String>,
    /// Only channels of this group (repeatable).
    #[arg(long = "group")]
    pub groups: Vec<String>,
}

/// Prints the word's neighbours, one line each.
pub fn command(args: &TermsArgs) -> Result<ExitCode> {
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    let filters = FilterArgs {
        channels: args.channels.clone(),
        groups: args.groups.clone(),
        ..Default::default()
    };
    let found = similar_terms(&archive, &dir, &args.word, args.max_edits, &filters)?;
    let mut out: String = found
        .iter()
        .map(|t| format!("{}\n", term_line(t)))
        .collect();
    out.push_str(&format!(
        "{}\n",
        report::corpus(&archive.handle().to_string())
    ));
    crate::cli::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// One line of `archilyzer-index terms`: the word, its counts, and an
/// example moment.
pub fn term_line(t: &TermReport) -> String {
    let label = if t.asked { " (asked)" } else { "" };
    let example = t.example.as_ref().and_then(|v| {
        let h = v.hits.first()?;
        Some(format!(
            "; e.g. \"{}\" ({}/{}) at [{}]: {}",
            v.title,
            v.channel,
            v.slug,
            report::hit_place(h),
            h.labelled_text()
        ))
    });
    format!(
        "{}{label}: {}, {}{}",
        t.word,
        counted(t.videos as u64, "video"),
        counted(t.hits as u64, "hit"),
        example.unwrap_or_default()
    )
}
