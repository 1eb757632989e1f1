//! The flags of a query besides its words, which `search` and `trend`
//! share: how the words match, what is excluded, which fields and
//! filters, how much to read. Its own module, so that neither command
//! reaches into the other for them.

use crate::filter_flags::FilterFlags;
use archilyzer_core::query::Request;

/// The flags of a query besides its words (`search` and `trend` share
/// them).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QueryOptions {
    /// Treat the query (and --exclude) as regexes.
    #[arg(long)]
    pub regex: bool,
    /// With --regex: match case as written.
    #[arg(long)]
    pub case_sensitive: bool,
    /// Do not expand the query through the archive's aliases.
    #[arg(long)]
    pub no_aliases: bool,
    /// Drop videos that also match this (repeatable; a value beginning
    /// with `-` is taken as the phrase).
    #[arg(long, allow_hyphen_values = true)]
    pub exclude: Vec<String>,
    /// Fields to search: transcripts, chat, description, tags, metadata,
    /// posts (repeatable; default: captions and titles).
    #[arg(long = "scope")]
    pub scopes: Vec<String>,
    /// The filters, one flag each (see `archilyzer_core::query::FILTERS`).
    #[command(flatten)]
    pub filters: FilterFlags,
    /// Read at most this many pages; the result then says PARTIAL.
    #[arg(long, value_parser = crate::cli::at_least_one)]
    pub max_pages: Option<usize>,
    /// Also search the vocabulary's words within N edits (1 or 2) of each
    /// query word of 5 letters or more, each named with its own hit count
    /// (needs an index; not for --regex).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub fuzzy: u8,
}

impl QueryOptions {
    /// Flags that read alone but not together, refused as a usage error
    /// (exit 2): a date range whose start is after its end.
    pub fn validate(&self) -> Result<(), clap::Error> {
        let f = &self.filters.0;
        archilyzer_core::query::check_range(f.date_from.as_deref(), f.date_to.as_deref()).map_err(
            |e| {
                let said = crate::phrasing::phrase(&e.to_string());
                clap::Error::raw(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("{said}\n"),
                )
            },
        )
    }

    /// The engine request for `query` with these flags.
    pub fn request(&self, query: &str) -> Request {
        Request {
            query: query.to_string(),
            regex: self.regex,
            case_sensitive: self.case_sensitive,
            use_aliases: !self.no_aliases,
            exclude: self.exclude.clone(),
            fuzzy: self.fuzzy,
            scopes: self.scopes.clone(),
            filters: self.filters.0.clone(),
            max_pages: self.max_pages,
            max_videos: None,
        }
    }
}
