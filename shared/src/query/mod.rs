//! The query engine: source → planner → scanner → matcher → result.
//!
//! - [`filter_args`]: every filter a user can set, declared once (flags,
//!   schemas and share links derive from it).
//! - [`filters`]: filters and channel scope, one predicate for planning and
//!   confirming.
//! - [`find`]: how a query is found (its options beside the words),
//!   declared once for every front end, and the one place they become a
//!   [`Request`]; `filter_flags` (the `cli` feature) gives the filters
//!   their command-line flags.
//! - [`count`]: a query's hits in one video, counted as a search counts
//!   them (what `get_transcripts` reports).
//! - `matcher`: phrases and regexes decided on the real text.
//! - `prune`: the pages a query could match, from the index's words.
//! - `plan`: which pages to read: scope ∩ filters ∩ query, plus every page
//!   the index cannot vouch for.
//! - `scan`: schedules the planned pages over workers, folds in page
//!   order, and says what it covered; `confirm` decides one page's hits.
//!
//! Only the modules linked above are public: the engine's internals stay
//! inside the crate, so the front ends call `search`, `count` and the
//! filters, never the matcher or the planner.
//!
//! Promise (invariant 1): the index only prunes. Hits are decided by the
//! matcher on the page text alone, so a result is the same with the index
//! fresh, stale, corrupt, foreign or absent; only `pages_read` differs.

mod candidates;
mod confirm;
pub mod count;
mod error;
pub mod filter_args;
pub(crate) mod filter_first;
#[cfg(feature = "cli")]
mod filter_flags;
pub mod filters;
pub mod find;
pub(crate) mod matcher;
pub mod order;
mod page_result;
pub(crate) mod placed;
pub(crate) mod plan;
pub(crate) mod prefilter;
pub(crate) mod prune;
pub(crate) mod scan;
mod skim;
pub(crate) mod suggest;
pub(crate) mod terms;
pub mod vocabulary;

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

pub use error::QueryError;
pub use filter_args::{CallFilters, Filter, FILTERS};
pub use filters::{check_range, FilterArgs, FilterError, Filters};
pub use find::{Find, PageCap};
pub use suggest::{also_heard, AlsoHeard, Suggested};
pub(crate) use terms::Terms;

use crate::archive::Archive;
use crate::index::fields::Fields;
use crate::index::IndexStatus;

/// A search as a caller asks for it. The default is what both front ends
/// default to: a plain phrase, aliases on, every field of captions and
/// titles, no filter, no cap.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Request {
    /// The phrase, or the regex with `regex`.
    pub query: String,
    /// Treat `query` as a regex over the raw caption text.
    pub regex: bool,
    /// Regexes only: match case as written.
    pub case_sensitive: bool,
    /// Expand a plain query through the archive's curated aliases.
    pub use_aliases: bool,
    /// Drop any video that also matches one of these (never alias-expanded).
    pub exclude: Vec<String>,
    /// Also search the vocabulary's words within this many edits (0-2) of
    /// each query word of 5 letters or more, one word varied at a time;
    /// each expansion is named with its own hit count. Needs an index;
    /// never applied to a regex.
    #[serde(skip_serializing_if = "is_zero")]
    pub fuzzy: u8,
    /// Which fields to match: transcripts, chat, description, tags,
    /// metadata, posts. Empty means captions plus titles.
    pub scopes: Vec<String>,
    /// Which videos may answer.
    #[serde(flatten)]
    pub filters: FilterArgs,
    /// Read at most this many pages (`None`: no cap).
    pub max_pages: Option<usize>,
    /// Stop reading pages once this many videos matched (`None`: no cap);
    /// the coverage then says PARTIAL.
    pub max_videos: Option<usize>,
    /// Only items the query hits at least this many times (`None`: one
    /// hit is enough).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_hits: Option<usize>,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            query: String::new(),
            regex: false,
            case_sensitive: false,
            use_aliases: true,
            exclude: Vec::new(),
            fuzzy: 0,
            scopes: Vec::new(),
            filters: FilterArgs::default(),
            max_pages: None,
            max_videos: None,
            min_hits: None,
        }
    }
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// A searchable field.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Captions.
    Transcripts,
    /// Titles.
    Title,
    /// Title and channel name.
    Metadata,
    /// Uploader descriptions.
    Description,
    /// Uploader tags.
    Tags,
    /// Live chat.
    Chat,
    /// Posts.
    Posts,
}

impl Scope {
    /// The name results use for the scope.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Transcripts => "transcripts",
            Scope::Title => "title",
            Scope::Metadata => "metadata",
            Scope::Description => "description",
            Scope::Tags => "tags",
            Scope::Chat => "chat",
            Scope::Posts => "posts",
        }
    }

    /// The fields of the index's census this scope looks in (the channel
    /// name, which `metadata` also searches, is page-wide and counted by
    /// no posting).
    pub fn fields(self) -> Fields {
        match self {
            Scope::Transcripts => Fields::CAPTIONS,
            Scope::Title | Scope::Metadata => Fields::TITLE,
            Scope::Description => Fields::DESCRIPTION,
            Scope::Tags => Fields::TAGS,
            Scope::Chat => Fields::CHAT,
            Scope::Posts => Fields::POSTS,
        }
    }

    /// The scopes a request's `names` ask for: captions and titles when
    /// none is named; a name that is no scope is refused.
    pub fn resolve(names: &[String]) -> Result<BTreeSet<Scope>, QueryError> {
        if names.is_empty() {
            return Ok(BTreeSet::from([Scope::Transcripts, Scope::Title]));
        }
        let one = |s: &String| {
            Scope::parse(s).ok_or_else(|| QueryError::Scope {
                name: s.clone(),
                hint: Scope::hint(s),
            })
        };
        names.iter().map(one).collect()
    }

    /// What to say of a name that is no scope: the scope a common other
    /// word for it means, else the nearest name, else the names there are.
    fn hint(name: &str) -> String {
        let word = name.trim().to_lowercase();
        let meant = Scope::OTHER_WORDS
            .iter()
            .find(|(other, _)| *other == word)
            .map(|(_, scope)| *scope)
            .or_else(|| crate::typo::nearest(&word, Scope::NAMES.iter().copied()));
        match meant {
            Some(near) => format!("did you mean {near:?}?"),
            None => format!("the scopes are {}", Scope::NAMES.join(", ")),
        }
    }

    /// Words users say for a scope that are not its name, each refused
    /// with the name it means (a synonym accepted here would be a second
    /// name no list shows).
    const OTHER_WORDS: &'static [(&'static str, &'static str)] = &[
        ("captions", "transcripts"),
        ("caption", "transcripts"),
        ("subtitles", "transcripts"),
        ("transcript", "transcripts"),
        ("title", "metadata"),
        ("titles", "metadata"),
        ("post", "posts"),
    ];

    /// The names [`Scope::parse`] takes, as the tools' schema lists them.
    pub const NAMES: &'static [&'static str] = &[
        "transcripts",
        "chat",
        "description",
        "tags",
        "metadata",
        "posts",
    ];

    /// The fields a request that names no scope searches.
    pub fn default_fields() -> Fields {
        Scope::fields_of(&BTreeSet::from([Scope::Transcripts, Scope::Title]))
    }

    /// The fields of all of `scopes`.
    pub fn fields_of(scopes: &BTreeSet<Scope>) -> Fields {
        scopes.iter().fold(Fields::NONE, |f, s| f.with(s.fields()))
    }

    /// A scope by the name requests use; `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Scope> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "transcripts" => Scope::Transcripts,
            "metadata" => Scope::Metadata,
            "description" => Scope::Description,
            "tags" => Scope::Tags,
            "chat" => Scope::Chat,
            "posts" => Scope::Posts,
            _ => return None,
        })
    }
}

/// One place a query matched.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Hit {
    /// The field the hit is in.
    pub scope: Scope,
    /// The cue (transcripts), message (chat) or tag index; 0 otherwise.
    pub unit: usize,
    /// Seconds into the video, for timed fields.
    pub start: Option<f64>,
    /// The text of that unit (the cue, message, field); left out where
    /// an answer's text shows it already.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Who wrote a chat message: a viewer, never the speaker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

/// A fuzzy expansion of the query, and what it found on its own.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Expansion {
    /// The phrase searched beside the query.
    pub query: String,
    /// Hits it found on its own (some may also be hits of the query).
    pub hits: usize,
    /// Videos where it found at least one hit.
    pub videos: usize,
}

impl Hit {
    /// The label a printed hit carries before its text so that it is never
    /// taken for speech: `[chat] author:` for a live-chat message; `None`
    /// for a caption. (Untimed fields print their field name in place of a
    /// time already.)
    pub fn label(&self) -> Option<String> {
        (self.scope == Scope::Chat).then(|| {
            format!(
                "[chat] {}:",
                self.author.as_deref().unwrap_or("unknown viewer")
            )
        })
    }

    /// The hit's text with its label, as both printers show it.
    pub fn labelled_text(&self) -> String {
        match self.label() {
            Some(label) => format!("{label} {}", self.text),
            None => self.text.clone(),
        }
    }
}

/// A video (or post) with its hits.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VideoResult {
    /// The site's id.
    pub site: String,
    /// The channel's slug.
    pub channel: String,
    /// The video's (or post's) id.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// `YYYYMMDD`, when known.
    pub upload_date: Option<String>,
    /// The watch page (videos) or the post's URL.
    pub url: Option<String>,
    /// Where it is hosted.
    pub platform: Option<crate::format::Platform>,
    /// `video` or `post`.
    pub kind: &'static str,
    /// The transcript (or posts) page that holds it.
    pub page: u32,
    /// Every hit, in field then unit order.
    pub hits: Vec<Hit>,
    /// Its captions are the platform's machine translation
    /// ([`crate::format::CaptionSource::Translated`]): see
    /// [`VideoResult::caption_warning`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub machine_translated: bool,
    /// With `fuzzy`: the hits each expansion finds here on its own, in
    /// the order of [`Response::fuzzy`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expansion_hits: Vec<usize>,
    /// Its hits of the query as typed alone: without the aliases that
    /// fired and the fuzzy variants (what an agent may quote as exact).
    pub exact_hits: usize,
    /// The video's length in bytes of text (its captions; a chat's or
    /// post's text), what relevance ordering weighs hits against.
    #[serde(skip)]
    pub length: u32,
}

/// Videos and hits of the query exactly as typed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExactCount {
    /// Videos the query as typed hits.
    pub videos: usize,
    /// Its hits in them.
    pub hits: usize,
}

/// How much of the archive a result covers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Coverage {
    /// Some planned page was not read (a cap, or a read error).
    pub partial: bool,
    /// `site/channel` fully read, partly read, and never reached.
    pub scanned: Vec<String>,
    /// `site/channel` partly read.
    pub partly: Vec<String>,
    /// `site/channel` never reached.
    pub unreached: Vec<String>,
}

/// A match's identity: site, channel, slug, kind (`video` or `post`).
pub type VideoKey = (String, String, String, &'static str);

impl VideoResult {
    /// The match's identity, what tells two results apart.
    pub fn key(&self) -> VideoKey {
        (
            self.site.clone(),
            self.channel.clone(),
            self.slug.clone(),
            self.kind,
        )
    }

    /// What every rendering of this video says about its captions before
    /// quoting them, when they are not the speaker's words.
    pub fn caption_warning(&self) -> Option<&'static str> {
        self.machine_translated
            .then_some("⚠ captions are the platform's machine translation, not the speaker's words")
    }

    /// The same video with no hits: what a count of videos needs, without
    /// copying every hit's text.
    pub fn without_hits(&self) -> VideoResult {
        VideoResult {
            site: self.site.clone(),
            channel: self.channel.clone(),
            slug: self.slug.clone(),
            title: self.title.clone(),
            upload_date: self.upload_date.clone(),
            url: self.url.clone(),
            platform: self.platform,
            machine_translated: self.machine_translated,
            exact_hits: self.exact_hits,
            kind: self.kind,
            page: self.page,
            hits: Vec::new(),
            expansion_hits: self.expansion_hits.clone(),
            length: self.length,
        }
    }
}

impl Coverage {
    /// The one wording of partial coverage both printers show, `None`
    /// when every planned page was read.
    pub fn describe(&self) -> Option<String> {
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        self.partial.then(|| {
            format!(
                "coverage: PARTIAL — fully scanned: {}; partly scanned: {}; never reached: {}. Re-run scoped to the rest.",
                list(&self.scanned),
                list(&self.partly),
                list(&self.unreached)
            )
        })
    }
}

/// A search's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Response {
    /// The handle of the archive searched.
    pub source: String,
    /// The matching videos (empty from `search_each`, which streams them).
    pub videos: Vec<VideoResult>,
    /// Matching videos, complete even when the list is cut.
    pub total_videos: usize,
    /// Hits of those videos.
    pub total_hits: usize,
    /// Of those, the videos and hits of the query as typed alone: equal
    /// to the totals unless aliases fired or fuzzy variants were searched.
    pub exact: ExactCount,
    /// Matching videos a date filter left out because they have no upload
    /// date (named in the notes; `include_undated` lists them).
    pub undated_left_out: usize,
    /// Pages read and confirmed.
    pub pages_read: usize,
    /// Pages the plan chose.
    pub pages_planned: usize,
    /// Pages of the layers the scopes search, in the channels in scope.
    pub pages_total: usize,
    /// Bytes of the pages read.
    pub bytes_read: u64,
    /// Whether an index helped, and why not.
    #[serde(serialize_with = "as_text")]
    pub index: IndexStatus,
    /// Unrecognised values, the resolved scope, aliases that fired,
    /// whether the index could help.
    pub notes: Vec<String>,
    /// Pages (or manifests) that could not be read or parsed, with why.
    pub unreadable: Vec<String>,
    /// Which channels were read, partly read, never reached.
    pub coverage: Coverage,
    /// Other spellings of the query's words in the index's vocabulary.
    pub also_heard: Vec<suggest::AlsoHeard>,
    /// With `fuzzy`: each expansion searched, with its own counts.
    pub fuzzy: Vec<Expansion>,
    /// Whether the result cap (`Request::max_videos`) stopped the scan
    /// before its last page (the notes say so; a front end says how to
    /// list every match without the cap).
    #[serde(skip)]
    pub stopped_at_cap: bool,
}

impl Response {
    /// The notes no other field carries: those of [`Response::notes`]
    /// but the also-heard lines, which [`Response::also_heard`] holds.
    /// Structured results list these, so a note is not paid for twice.
    pub fn notes_besides_fields(&self) -> Vec<&str> {
        let carried: Vec<String> = self.also_heard.iter().map(|a| a.describe()).collect();
        self.notes
            .iter()
            .filter(|n| !carried.contains(n))
            .map(String::as_str)
            .collect()
    }
}

fn as_text<S: serde::Serializer>(status: &IndexStatus, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&status.describe())
}

/// Runs `request` on `archive`, pruning with the index in `index_dir`
/// when one is given. The error says what is wrong with the query.
pub fn search(
    archive: &Archive,
    index_dir: Option<&Path>,
    request: &Request,
) -> Result<Response, QueryError> {
    let mut videos = Vec::new();
    let mut response = search_each(
        archive,
        index_dir,
        request,
        &mut |v| videos.push(v),
        &mut |_, _| {},
    )?;
    response.videos = videos;
    Ok(response)
}

/// Like [`search`], but hands each video to `sink` in order as its page is
/// confirmed, so a huge result never sits in memory (the response's
/// `videos` stays empty), and reports `progress(pages done, pages planned)`.
pub fn search_each(
    archive: &Archive,
    index_dir: Option<&Path>,
    request: &Request,
    sink: &mut dyn FnMut(VideoResult),
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Response, QueryError> {
    // The index's files are read while the manifests are: neither needs
    // the other, and the search needs both. The load is kept, and
    // `Index::open` below takes it; only an index written in the last
    // seconds (not yet settled, so not kept) is read a second time there.
    let table = std::thread::scope(|s| {
        if let Some(dir) = index_dir {
            s.spawn(|| archive.indexes().load(dir));
        }
        archive.page_table()
    });
    search_each_over(archive, &table, index_dir, request, sink, progress)
}

/// [`search_each`] over the pages of `table`, which the caller took from
/// `archive` (see [`crate::archive::PageTable`]).
pub fn search_each_over(
    archive: &Archive,
    table: &crate::archive::PageTable,
    index_dir: Option<&Path>,
    request: &Request,
    sink: &mut dyn FnMut(VideoResult),
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Response, QueryError> {
    let (pages, problems) = table;
    let (index, status) = match index_dir {
        Some(dir) => crate::index::Index::open(dir, archive, pages),
        None => (None, IndexStatus::NotUsed),
    };
    let compiled = plan::Compiled::new(archive, request, index.as_ref())?;
    let planned = plan::plan(archive, pages, index.as_ref(), &compiled, request.max_pages);
    // Other spellings are looked up in the vocabulary (they need the
    // index alone) while the pages are read, unless the reading is too
    // small to pay for a thread.
    let heard = || suggest::also_heard(index.as_ref(), request);
    let mut read = || scan::scan(archive, pages, &planned, &compiled, sink, progress);
    let (scanned, (also_heard, suggest_note)) = if scan::is_small(pages, &planned) {
        (read(), heard())
    } else {
        std::thread::scope(|s| {
            let heard = s.spawn(heard);
            let scanned = read();
            let heard = heard
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (scanned, heard)
        })
    };
    let expansion_notes = fuzzy_notes(&compiled, &scanned);
    Ok(Response {
        source: archive.handle().to_string(),
        videos: Vec::new(),
        total_videos: scanned.total_videos,
        total_hits: scanned.total_hits,
        exact: scanned.exact,
        undated_left_out: scanned.undated,
        pages_read: scanned.pages_read,
        stopped_at_cap: scanned.stopped_at_cap,
        pages_planned: planned.planned,
        pages_total: planned.in_scope,
        bytes_read: scanned.bytes_read,
        index: status,
        notes: [
            cited_only_notes(archive),
            missing_layer_notes(pages, &compiled.scopes),
            compiled.notes,
            undated_note(scanned.undated),
            scanned.notes,
            planned.notes,
            expansion_notes,
            also_heard
                .iter()
                .map(suggest::AlsoHeard::describe)
                .collect(),
            suggest_note.into_iter().collect(),
        ]
        .concat(),
        unreadable: [problems.clone(), scanned.unreadable].concat(),
        fuzzy: compiled
            .terms
            .expansions
            .iter()
            .zip(&scanned.expansion_hits)
            .map(|((query, _), &(hits, videos))| Expansion {
                query: query.clone(),
                hits,
                videos,
            })
            .collect(),
        coverage: scanned.coverage,
        also_heard,
    })
}

/// One note per fuzzy expansion: what it found on its own.
fn fuzzy_notes(compiled: &plan::Compiled, scanned: &scan::Scanned) -> Vec<String> {
    compiled
        .terms
        .expansions
        .iter()
        .enumerate()
        .map(|(k, (query, _))| {
            let (hits, videos) = scanned.expansion_hits.get(k).copied().unwrap_or((0, 0));
            format!("fuzzy: also searched {query:?}: {hits} hit(s) in {videos} video(s) on its own")
        })
        .collect()
}

/// The note that a date filter left matching videos out for having no
/// upload date, and how to include them.
fn undated_note(undated: usize) -> Vec<String> {
    (undated > 0)
        .then(|| {
            format!(
                "{undated} matching video(s) had no upload date and were left out by the date filter: pass include_undated: true (command line: --include-undated) to list them too"
            )
        })
        .into_iter()
        .collect()
}

/// A note for each site that publishes reports only: an empty answer from
/// it means nothing was there to search, not that nothing was said.
/// A note for each scope asked for whose layer the archive does not have
/// at all (no chat, no posts), so an empty answer is not read as silence.
fn missing_layer_notes(
    pages: &[crate::archive::PageRef],
    scopes: &std::collections::BTreeSet<Scope>,
) -> Vec<String> {
    use crate::format::paths::Layer;
    [(Scope::Chat, Layer::Chat, "live chat"), (Scope::Posts, Layer::Posts, "posts")]
        .into_iter()
        .filter(|(scope, layer, _)| scopes.contains(scope) && !pages.iter().any(|p| p.layer == *layer))
        .map(|(scope, _, what)| {
            format!(
                "this archive has no {what} at all: the {} scope searched nothing (an empty answer here is not silence)",
                scope.as_str()
            )
        })
        .collect()
}

fn cited_only_notes(archive: &Archive) -> Vec<String> {
    archive
        .sites()
        .iter()
        .filter(|s| s.corpus().site.scope == crate::format::SiteScope::Cited)
        .map(|s| {
            format!(
                "site {} publishes reports only (cited-only): it has no transcripts, chat or posts to search; read its reports with list_reports and get_report",
                s.id()
            )
        })
        .collect()
}
