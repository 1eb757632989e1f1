//! `archilyzer-index passages`: the passages nearest a question, by
//! meaning, by words, or both fused; as text or `--json`, and as a page
//! with `--html FILE`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::passages::{self, By, Found, PassageQuery, Store};
use archilyzer_core::query::filters::Filters;
use serde::Serialize;

use crate::cli::{IndexArgs, SourceArgs};
use archilyzer_core::query::CallFilters;

/// Flags of `archilyzer-index passages`.
#[derive(clap::Args, Debug, Clone)]
pub struct PassagesArgs {
    /// What to look for, in any words.
    pub query: String,
    #[command(flatten)]
    /// The archive to read.
    pub source: SourceArgs,
    #[command(flatten)]
    /// The index (and its passages).
    pub index: IndexArgs,
    /// How many passages.
    #[arg(long, default_value_t = 10, value_parser = crate::cli::at_least_one)]
    pub limit: usize,
    /// meaning (the sentence model's vectors), words (BM25 over the
    /// passages' words) or both, fused by reciprocal rank (the words side
    /// also searching for words of the best passages by meaning).
    #[arg(long, default_value = "both", value_parser = by_arg)]
    pub by: By,
    /// At most one passage, the best, per video.
    #[arg(long)]
    pub one_per_video: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also write the passages as a self-contained HTML page to FILE,
    /// each linked to its moment.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// The sentence model's folder (as for `build --embed`).
    #[arg(long, value_name = "DIR")]
    pub model: Option<std::path::PathBuf>,
    #[command(flatten)]
    /// The filters, as `search` takes them.
    pub filters: CallFilters,
}

fn by_arg(text: &str) -> Result<By, String> {
    By::parse(text).ok_or_else(|| format!("{text:?} is not a ranking: use meaning, words or both"))
}

/// What `--json` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    passages: &'a [passages::Passage],
    by: By,
    model: &'a str,
    in_scope: u32,
    stale: u32,
    feedback: &'a [String],
    note: &'static str,
}

/// The line every answer ends with.
const NOTE: &str = "Ranked by meaning and words, not counted: for every place a word is said, and exact counts, use `archilyzer-index search`.";

/// Runs the query the flags describe and prints its passages.
pub fn command(args: &PassagesArgs) -> Result<ExitCode> {
    let html = crate::trend::claim(
        args.html.as_deref(),
        archilyzer_core::file_claim::FileKind::Html,
        "--html",
    )?;
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    let filters = Filters::resolve(&args.filters.0, &archive)
        .map_err(|e| anyhow::anyhow!(crate::phrasing::phrase(&e.to_string())))?;
    let store = Store::open(&dir)?;
    let embedder = match args.by {
        By::Words => None,
        By::Meaning | By::Both => Some(crate::model::load(args.model.as_deref())?),
    };
    let q = PassageQuery {
        text: &args.query,
        by: args.by,
        limit: args.limit,
        one_per_video: args.one_per_video,
        filters: &filters,
    };
    let found = passages::find(&archive, &dir, &store, embedder.as_ref(), &q)
        .with_context(|| format!("cannot rank the passages of {}", dir.display()))?;
    let out = match args.json {
        true => json(&found)?,
        false => text(&found),
    };
    if let Some(file) = &html {
        let page = crate::html::passages_page(&archive, &args.query, &found, NOTE);
        crate::trend::write_file(file, &page)?;
    }
    crate::cli::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn json(found: &Found) -> Result<String> {
    let answer = Answer {
        passages: &found.passages,
        by: found.by,
        model: &found.model,
        in_scope: found.in_scope,
        stale: found.stale,
        feedback: &found.feedback,
        note: NOTE,
    };
    Ok(format!("{}\n", serde_json::to_string(&answer)?))
}

fn text(found: &Found) -> String {
    let mut out = format!(
        "{} of {} in scope, by {} ({}):\n",
        found.passages.len(),
        archilyzer_core::report::counted(u64::from(found.in_scope), "passage"),
        found.by.as_str(),
        found.model
    );
    if let Some(line) = passages::find::feedback_line(&found.feedback) {
        out.push_str(&format!("({line})\n"));
    }
    for (i, p) in found.passages.iter().enumerate() {
        let ranks = p.ranks();
        out.push_str(&format!(
            "\n{}. {} (score {:.4}; {})\n",
            i + 1,
            p.heading(),
            p.score,
            if ranks.is_empty() {
                "unranked".into()
            } else {
                ranks
            }
        ));
        if let Some(link) = &p.link {
            out.push_str(&format!("   {link}\n"));
        }
        if !p.words.is_empty() {
            out.push_str(&format!("   words: {}\n", p.words.join(", ")));
        }
        out.push_str(&format!("   {}\n", p.text));
    }
    if found.stale > 0 {
        out.push_str(&format!(
            "\n{} skipped: their videos changed since they were embedded (run `archilyzer-index build --embed`).\n",
            archilyzer_core::report::counted(u64::from(found.stale), "passage")
        ));
    }
    out.push_str(&format!("\n{NOTE}\n"));
    out
}
