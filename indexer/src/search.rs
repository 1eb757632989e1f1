//! `archilyzer-index search`: the query engine for a person, as text or as
//! one JSON object.

use archilyzer_core::query::{FilterArgs, Request, Response, Scope};

/// The flags of a search (also used by `check` and `bench`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QueryArgs {
    /// The query: whole words, an optional final `*` (or a regex with --regex).
    pub query: String,
    /// Treat the query (and --exclude) as regexes.
    #[arg(long)]
    pub regex: bool,
    /// With --regex: match case as written.
    #[arg(long)]
    pub case_sensitive: bool,
    /// Do not expand the query through the archive's aliases.
    #[arg(long)]
    pub no_aliases: bool,
    /// Drop videos that also match this (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Fields to search: transcripts, chat, description, tags, metadata,
    /// posts (repeatable; default: captions and titles).
    #[arg(long = "scope")]
    pub scopes: Vec<String>,
    /// Keep videos in this state (repeatable): available, maybe_missing,
    /// deleted, private, members_only, unlisted.
    #[arg(long = "state")]
    pub states: Vec<String>,
    /// Uploaded on or after (YYYYMMDD).
    #[arg(long)]
    pub date_from: Option<String>,
    /// Uploaded on or before (YYYYMMDD).
    #[arg(long)]
    pub date_to: Option<String>,
    /// video or livestream.
    #[arg(long)]
    pub media_type: Option<String>,
    /// all_ages or restricted.
    #[arg(long)]
    pub age: Option<String>,
    /// Only this channel, by slug or name (repeatable).
    #[arg(long = "channel")]
    pub channels: Vec<String>,
    /// Only channels of this group, by id or name (repeatable).
    #[arg(long = "group")]
    pub groups: Vec<String>,
    /// Only videos with this curated tag, by id or label (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Read at most this many pages; the result then says PARTIAL.
    #[arg(long)]
    pub max_pages: Option<usize>,
}

impl QueryArgs {
    pub fn request(&self) -> Request {
        Request {
            query: self.query.clone(),
            regex: self.regex,
            case_sensitive: self.case_sensitive,
            use_aliases: !self.no_aliases,
            exclude: self.exclude.clone(),
            scopes: self.scopes.clone(),
            filters: FilterArgs {
                states: self.states.clone(),
                date_from: self.date_from.clone(),
                date_to: self.date_to.clone(),
                media_type: self.media_type.clone(),
                age: self.age.clone(),
                channels: self.channels.clone(),
                groups: self.groups.clone(),
                tags: self.tags.clone(),
            },
            max_pages: self.max_pages,
        }
    }
}

/// `[h:]mm:ss` of a time in seconds (floored).
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The result as text for a person; `limit` caps the videos listed.
pub fn render(r: &Response, limit: Option<usize>) -> String {
    let mut out = String::new();
    for v in r.videos.iter().take(limit.unwrap_or(usize::MAX)) {
        let date = v.upload_date.as_deref().unwrap_or("no date");
        out.push_str(&format!(
            "{}/{}  {} ({date}, {} hit(s))\n",
            v.channel,
            v.slug,
            v.title,
            v.hits.len()
        ));
        for h in &v.hits {
            let at = match (h.scope, h.start) {
                (Scope::Transcripts | Scope::Chat, Some(t)) => format!("[{}]", clock(t)),
                (scope, _) => format!(
                    "[{}]",
                    serde_json::to_value(scope)
                        .ok()
                        .and_then(|s| s.as_str().map(str::to_string))
                        .unwrap_or_default()
                ),
            };
            out.push_str(&format!("  {at} {}\n", h.text));
        }
    }
    out.push_str(&footer(r, limit));
    out
}

fn footer(r: &Response, limit: Option<usize>) -> String {
    let mut lines = vec![format!(
        "{} video(s), {} hit(s); read {} of {} page(s) ({:.1} MB); {}",
        r.total_videos,
        r.total_hits,
        r.pages_read,
        r.pages_total,
        r.bytes_read as f64 / 1e6,
        r.index.describe()
    )];
    if let Some(l) = limit.filter(|l| *l < r.videos.len()) {
        lines.push(format!(
            "showing the first {l} of {} video(s) (--limit)",
            r.total_videos
        ));
    }
    lines.extend(r.notes.iter().cloned());
    if r.coverage.partial {
        lines.push(format!(
            "PARTIAL: fully scanned: {}; partly: {}; never reached: {}",
            list(&r.coverage.scanned),
            list(&r.coverage.partly),
            list(&r.coverage.unreached)
        ));
    }
    for u in &r.unreadable {
        lines.push(format!("UNREADABLE: {u}"));
    }
    lines.push(format!("(corpus: {})", r.source));
    lines.join("\n") + "\n"
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// The result as JSON; `limit` caps `videos` (the totals stay whole).
pub fn to_json(r: &Response, limit: Option<usize>) -> serde_json::Value {
    let mut value = serde_json::to_value(r).expect("a response serialises");
    if let (Some(l), Some(videos)) = (
        limit,
        value.get_mut("videos").and_then(|v| v.as_array_mut()),
    ) {
        videos.truncate(l);
    }
    value
}
