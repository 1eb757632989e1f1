//! How a query is found, declared once: [`Find`] is what every front end
//! that searches takes beside the query itself (the command line's
//! `search`, `trend` and `related`; the tools `search_transcripts`,
//! `enumerate_matches`, `mention_trend` and `significant_terms`), and
//! [`Find::request`] is the one place a user's options become an engine
//! [`Request`]. How much a search may read ([`PageCap`]) is apart, since
//! what counts every video in scope (`related`, `significant_terms`)
//! takes no cap rather than ignoring one.
//!
//! From the one declaration come the tools' JSON Schema and the reading
//! of a call (serde and schemars) and, with the `cli` feature, the command
//! line's flags (clap). Where the two front ends word an option
//! differently, both wordings sit on the field: the doc comment is the
//! tools', `help` the command line's. Adding a query option is a field
//! here, its field on [`Request`], and the engine's use of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallFilters, Request};

/// The most edits `fuzzy` may ask for (the vocabulary walk's bound).
pub const MAX_FUZZY: u8 = crate::index::similar::MAX_EDITS as u8;

/// How a query is found: how its words match, what is excluded, which
/// fields and filters, how often it must be said ([`PageCap`] says how
/// much may be read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Find {
    /// query is a regex over the raw caption text.
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(long, help = "Treat the query (and --exclude) as regexes")
    )]
    pub regex: bool,
    /// With a regex: match case as written (the command line's only).
    #[serde(skip)]
    #[schemars(skip)]
    #[cfg_attr(
        feature = "cli",
        arg(long, help = "With --regex: match case as written")
    )]
    pub case_sensitive: bool,
    /// Expand through the site's curated aliases (default true).
    #[serde(default = "yes")]
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "no-aliases",
            action = clap::ArgAction::SetFalse,
            help = "Do not expand the query through the archive's aliases"
        )
    )]
    pub use_aliases: bool,
    /// Drop videos that also match any of these phrases.
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            allow_hyphen_values = true,
            help = "Drop videos that also match this (repeatable; a value beginning with `-` is taken as the phrase)"
        )
    )]
    pub exclude: Vec<String>,
    /// Fields: transcripts, chat, description, tags, metadata, posts
    /// (default: transcripts and titles).
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "scope",
            help = "Fields to search: transcripts, chat, description, tags, metadata, posts (repeatable; default: captions and titles)"
        )
    )]
    pub scopes: Vec<String>,
    /// The filters.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub filters: CallFilters,
    /// Also match index words within this many edits of each 5+ letter
    /// query word (misheard names), each named with its count.
    #[schemars(range(max = MAX_FUZZY))]
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            default_value_t = 0,
            value_parser = clap::value_parser!(u8).range(0..=i64::from(MAX_FUZZY)),
            help = "Also search the vocabulary's words within N edits (1 or 2) of each query word of 5 letters or more, each named with its own hit count (needs an index; not for --regex)"
        )
    )]
    pub fuzzy: u8,
    /// Only videos (chats, posts) where the query is found at least this
    /// many times; by default one is enough.
    #[schemars(range(min = 1))]
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_parser = at_least_one,
            help = "Only videos where the query is found at least N times (by default one is enough)"
        )
    )]
    pub min_hits: Option<usize>,
}

impl Default for Find {
    /// A plain phrase: aliases on, captions and titles, no filter, no cap.
    fn default() -> Find {
        Find {
            regex: false,
            case_sensitive: false,
            use_aliases: true,
            exclude: Vec::new(),
            scopes: Vec::new(),
            filters: CallFilters::default(),
            fuzzy: 0,
            min_hits: None,
        }
    }
}

/// How much a search may read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PageCap {
    /// Pages to read at most (default 400; past it: PARTIAL).
    #[schemars(range(min = 1))]
    #[serde(default)]
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_parser = at_least_one,
            help = "Read at most this many pages; the result then says PARTIAL"
        )
    )]
    pub max_pages: Option<usize>,
}

impl Find {
    /// The engine request for `query` found as these options say, reading
    /// at most what `cap` allows (no cap on the videos; a front end that
    /// pages sets its own).
    pub fn request(&self, query: &str, cap: PageCap) -> Request {
        Request {
            query: query.to_string(),
            regex: self.regex,
            case_sensitive: self.case_sensitive,
            use_aliases: self.use_aliases,
            exclude: self.exclude.clone(),
            fuzzy: self.fuzzy.min(MAX_FUZZY),
            scopes: self.scopes.clone(),
            filters: self.filters.0.clone(),
            max_pages: cap.max_pages,
            max_videos: None,
            min_hits: self.min_hits,
        }
    }
}

/// `true`, as a serde default.
pub fn yes() -> bool {
    true
}

/// A count flag's value (`--limit`, `--max-pages`): a whole number from
/// 1; 0 would ask for nothing, so it is a usage error (exit 2) rather
/// than an empty answer.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("0 asks for nothing: give 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text:?} is not a whole number: give 1 or more")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_sets_nothing_is_the_default_find_and_the_default_request() {
        let find: Find = serde_json::from_str("{}").unwrap();
        assert_eq!(find, Find::default());
        let request = find.request("q", PageCap::default());
        let expected = Request {
            query: "q".into(),
            ..Request::default()
        };
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            serde_json::to_value(&expected).unwrap()
        );
    }

    #[test]
    fn min_hits_keeps_exactly_the_videos_said_that_often_and_no_link_drops_it() {
        use crate::archive::{Archive, OpenOptions};
        use crate::source::SourceHandle;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/archive/alpha");
        let handle = SourceHandle::Local(dir.into());
        let archive = Archive::open(&handle, &OpenOptions::default()).unwrap();
        let search = |find: &Find| {
            let request = find.request("cups", PageCap::default());
            crate::query::search(&archive, None, &request).unwrap()
        };
        let all = search(&Find::default());
        let often = Find {
            min_hits: Some(3),
            ..Find::default()
        };
        let some = search(&often);
        let key = |v: &crate::query::VideoResult| (v.channel.clone(), v.slug.clone(), v.hits.len());
        let expected: Vec<_> = all
            .videos
            .iter()
            .filter(|v| v.hits.len() >= 3)
            .map(key)
            .collect();
        let got: Vec<_> = some.videos.iter().map(key).collect();
        assert!(
            !got.is_empty() && got.len() < all.videos.len(),
            "{} of {}",
            got.len(),
            all.videos.len()
        );
        assert_eq!(got, expected);
        assert_eq!(some.total_videos, expected.len());
        assert_eq!(
            some.total_hits,
            expected.iter().map(|(_, _, n)| n).sum::<usize>()
        );
        let request = often.request("cups", PageCap::default());
        let refused = crate::share::eval::link_for(&archive, "https://example.org", &request);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "a share link cannot carry min_hits (the format has no field for it): share the search without it"
        );
    }

    #[test]
    fn fuzzy_past_its_bound_asks_the_bound() {
        let find = Find {
            fuzzy: 9,
            ..Find::default()
        };
        assert_eq!(find.request("q", PageCap::default()).fuzzy, MAX_FUZZY);
    }
}
