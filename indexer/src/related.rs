//! `archilyzer-index related`: what is said alongside a query (its
//! significant terms), or, with `--video ID`, the videos most like one
//! video. The rules are `archilyzer_core::related`'s; this prints them.

use std::process::ExitCode;

use anyhow::Result;
use archilyzer_core::archive::Archive;
use archilyzer_core::related::{
    related_videos, significant_terms, AlikeOptions, Related, RelatedError, SignificantOptions,
    SignificantTerms,
};
use archilyzer_core::report;

use crate::cli::ReadArgs;
use archilyzer_core::query::{Find, PageCap};

/// Flags of `archilyzer-index related`.
#[derive(clap::Args, Debug, Clone)]
pub struct RelatedArgs {
    #[command(flatten)]
    /// The archive and index to read.
    pub read: ReadArgs,
    /// The query whose significant terms to find (as `search` takes it).
    #[arg(required_unless_present = "video", conflicts_with = "video")]
    pub query: Option<String>,
    /// Instead: the videos most like this video (its id; one beginning
    /// with `-`, as YouTube ids may, is taken as the id).
    #[arg(long, value_name = "ID", allow_hyphen_values = true)]
    pub video: Option<String>,
    #[command(flatten)]
    /// How the query is searched, and which videos are in scope.
    pub options: Find,
    /// A term must be said in at least this many matching videos.
    #[arg(long, default_value_t = 3, conflicts_with = "video", value_parser = crate::cli::at_least_one)]
    pub min_videos: usize,
    /// Terms (default 25) or, with --video, videos (default 10) to list.
    #[arg(long, value_parser = crate::cli::at_least_one)]
    pub limit: Option<usize>,
    /// With --video: how many of its words to look for.
    #[arg(long, default_value_t = 25, requires = "video", value_parser = crate::cli::at_least_one)]
    pub terms: usize,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs the question the flags describe and prints the answer.
pub fn command(args: &RelatedArgs) -> Result<ExitCode> {
    crate::cli::check_find(&args.options).unwrap_or_else(|e| e.exit());
    let archive = args.read.source.open()?;
    let dir = args.read.index_dir(&archive)?;
    let refuse = |e: RelatedError| match e {
        RelatedError::Read(e) => anyhow::Error::new(e),
        e => crate::cli::refused(e, &archive),
    };
    let text = match &args.video {
        Some(id) => {
            let request = args.options.request("", PageCap::default());
            let opts = AlikeOptions {
                terms: args.terms,
                limit: args.limit.unwrap_or(10),
                ..AlikeOptions::default()
            };
            let hints = request.filters.channels.clone();
            let found = related_videos(
                &archive,
                dir.as_deref(),
                id,
                &hints,
                &request.scopes,
                &request.filters,
                opts,
            )
            .map_err(refuse)?;
            match args.json {
                true => serde_json::to_string_pretty(&found)? + "\n",
                false => alike_text(&archive, &found),
            }
        }
        None => {
            let request = args
                .options
                .request(args.query.as_deref().unwrap_or(""), PageCap::default());
            let opts = SignificantOptions {
                min_videos: args.min_videos,
                limit: args.limit.unwrap_or(25),
                ..SignificantOptions::default()
            };
            let found =
                significant_terms(&archive, dir.as_deref(), &request, opts).map_err(refuse)?;
            match args.json {
                true => serde_json::to_string_pretty(&found)? + "\n",
                false => significant_text(&archive, &found),
            }
        }
    };
    crate::cli::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The significant terms as lines: the counts first, then one word a
/// line with its shares.
pub fn significant_text(archive: &Archive, s: &SignificantTerms) -> String {
    let mut out = partial(&s.unreadable);
    out.push_str(&format!(
        "{:?}: {} matching video(s) of {} in scope; {} word(s) said in at least {} of them and more often there than elsewhere{}\n",
        s.query,
        s.foreground,
        s.background,
        s.terms_total,
        s.min_videos,
        if s.terms_total > s.terms.len() {
            format!(", the top {} shown", s.terms.len())
        } else {
            String::new()
        }
    ));
    for t in &s.terms {
        out.push_str(&format!(
            "{:<24} {:>6.2}  said in {} of the matching videos, {} of all in scope\n",
            t.word,
            t.score,
            report::share(t.fg, s.foreground as u64),
            report::share(t.bg, s.background as u64),
        ));
    }
    out.push_str(&format!(
        "{}\n{}\n",
        s.index,
        report::corpus(&archive.handle().to_string())
    ));
    out
}

/// The related videos as lines: the words looked for, then each video
/// with its score and the words it shares.
pub fn alike_text(archive: &Archive, r: &Related) -> String {
    let mut out = partial(&r.unreadable);
    out.push_str(&format!(
        "videos like {}/{} \"{}\": {} of {} in scope share one of its {} heaviest word(s)\n",
        r.video.channel,
        r.video.slug,
        r.title,
        r.videos_total,
        r.background,
        r.terms.len()
    ));
    let words: Vec<String> = r
        .terms
        .iter()
        .map(|t| format!("{} (×{}, in {})", t.word, t.tf, t.df))
        .collect();
    out.push_str(&format!("its words: {}\n", words.join(", ")));
    for v in &r.videos {
        out.push_str(&format!(
            "{:>7.2}  {}/{}  {}{}  shares: {}\n",
            v.score,
            v.channel,
            v.slug,
            v.title,
            if v.same_recording {
                " (another upload of this recording)"
            } else {
                ""
            },
            v.shared.join(", ")
        ));
    }
    out.push_str(&format!(
        "{}\n{}\n",
        r.index,
        report::corpus(&archive.handle().to_string())
    ));
    out
}

/// The first line of an answer some pages of which could not be read, or
/// nothing.
fn partial(unreadable: &[String]) -> String {
    match unreadable {
        [] => String::new(),
        pages => format!(
            "PARTIAL: {} page(s) could not be read, so their videos are not counted: {}\n",
            pages.len(),
            pages.join("; ")
        ),
    }
}
