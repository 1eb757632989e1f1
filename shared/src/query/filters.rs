//! Filters and scope: which videos a query may return, resolved against
//! the archive once, then applied the same way to summary rows (planning)
//! and to real records (confirming).
//!
//! Promise (invariant 6): a value that is not recognised is named in
//! [`Filters::notes`], never dropped silently. A filter left with no
//! recognised value matches nothing rather than widening to everything;
//! so does a date that is not a calendar day, or a range whose start is
//! after its end ([`crate::time`] decides both).

use std::collections::BTreeSet;

use crate::archive::Archive;
use crate::format::{Age, MediaType, State, SummaryRow, VideoView};
use crate::time::{parse_clock, parse_day, Clock, Day, DayRange, InvertedRange};

pub use super::filter_args::FilterArgs;

/// Filters resolved against an archive.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// `(site index, channel slug)` in scope; `None` = every channel.
    pub channels: Option<BTreeSet<(usize, String)>>,
    /// The states kept; `None` = any.
    pub states: Option<Vec<State>>,
    /// The lower date bound.
    pub date_from: Option<DateBound>,
    /// The upper date bound.
    pub date_to: Option<DateBound>,
    /// The media types kept; `None` = any.
    pub media_type: Option<Vec<MediaType>>,
    /// The age ratings kept; `None` = any.
    pub age: Option<Vec<Age>>,
    /// `(site index, curated tag id)`: a video needs one of its own
    /// site's (tags, like aliases, belong to the site that publishes them).
    pub tags: Option<BTreeSet<(usize, String)>>,
    /// Whether a video with no upload date passes a date filter.
    pub include_undated: bool,
    /// The shortest length kept, in seconds.
    pub min_duration: Option<LengthBound>,
    /// The longest length kept, in seconds.
    pub max_duration: Option<LengthBound>,
    /// What was not recognised, and the resolved scope, for the footer.
    pub notes: Vec<String>,
}

/// A length bound of resolved filters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LengthBound {
    /// Seconds.
    Seconds(f64),
    /// A value that is no length: named in the notes, it matches nothing.
    Malformed,
}

/// What the predicate decides about a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It may answer.
    Passes,
    /// It fails only because it has no upload date and a date filter is
    /// set: it is not listed, but a match is counted and named, so a date
    /// filter never hides undated videos silently.
    Undated,
    /// It may not answer.
    Fails,
}

/// An upload-date bound of resolved filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateBound {
    /// A day, `YYYYMMDD`.
    Day(String),
    /// A value that is no date: named in the notes, it matches nothing.
    Malformed,
}

/// What the predicate looks at, from a summary row or a record. Made
/// only by the constructors below, so planning (rows) and confirming
/// (pages, records) read the same facts the same way.
pub struct VideoFacts<'a> {
    /// The site's position in [`crate::archive::Archive::sites`].
    pub site: usize,
    /// The channel's slug.
    pub channel: &'a str,
    /// `YYYYMMDD`, when known.
    pub upload_date: Option<&'a str>,
    /// Video or livestream.
    pub media_type: MediaType,
    /// All ages or age-restricted.
    pub age: Age,
    /// Available, deleted, private…
    pub state: State,
    /// The curated tags' ids.
    pub curated_tags: Vec<&'a str>,
    /// Its length in seconds, when known.
    pub duration: Option<f64>,
    /// Whether an unknown length may pass a length bound: true for a
    /// summaries or index row, where an archive written before rows held
    /// lengths has none, so the page is read and the record decides;
    /// false for the record itself.
    pub unknown_length_may_pass: bool,
}

impl<'a> VideoFacts<'a> {
    /// From a summaries (or index) row of site number `site`.
    pub fn of_row(site: usize, row: &'a SummaryRow) -> Self {
        VideoFacts {
            site,
            channel: &row.channel,
            upload_date: row.upload_date.as_deref(),
            media_type: row.media_type,
            age: row.age,
            state: row.state,
            curated_tags: row.curated_tags.iter().map(String::as_str).collect(),
            duration: row.duration,
            unknown_length_may_pass: true,
        }
    }

    /// From a video as a page is parsed for a scan.
    pub fn of_view(site: usize, channel: &'a str, v: &'a VideoView<'a>) -> Self {
        VideoFacts {
            site,
            channel,
            upload_date: v.upload_date.as_deref(),
            media_type: v.media_type,
            age: v.age,
            state: v.state,
            curated_tags: v.curated_tags.iter().map(|t| t.as_ref()).collect(),
            duration: v.duration,
            unknown_length_may_pass: false,
        }
    }
}

impl Filters {
    /// Resolves `args` against `archive`.
    pub fn resolve(args: &FilterArgs, archive: &Archive) -> Filters {
        let mut f = Filters::default();
        let states: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        f.states = enum_filter(&args.states, "state", State::parse, &states, &mut f.notes);
        let media: Vec<&str> = MediaType::ALL.iter().map(|s| s.as_str()).collect();
        f.media_type = enum_filter(
            args.media_type.as_slice(),
            "media_type",
            MediaType::parse,
            &media,
            &mut f.notes,
        );
        let ages: Vec<&str> = Age::ALL.iter().map(|s| s.as_str()).collect();
        f.age = enum_filter(args.age.as_slice(), "age", Age::parse, &ages, &mut f.notes);
        (f.date_from, f.date_to) = dates(args, &mut f.notes);
        f.channels = channel_scope(args, archive, &mut f.notes);
        f.tags = tag_filter(&args.tags, archive, &mut f.notes);
        f.include_undated = args.include_undated;
        f.min_duration = length(args.min_duration.as_deref(), "min_duration", &mut f.notes);
        f.max_duration = length(args.max_duration.as_deref(), "max_duration", &mut f.notes);
        f
    }

    /// Whether any filter beyond the channel scope is set.
    pub fn narrows_videos(&self) -> bool {
        self.states.is_some()
            || self.date_from.is_some()
            || self.date_to.is_some()
            || self.media_type.is_some()
            || self.age.is_some()
            || self.tags.is_some()
            || self.min_duration.is_some()
            || self.max_duration.is_some()
    }

    /// Whether a channel of site number `site` is in the channel scope.
    pub fn channel_in_scope(&self, site: usize, channel: &str) -> bool {
        self.channels
            .as_ref()
            .is_none_or(|c| c.contains(&(site, channel.to_string())))
    }

    /// The one predicate planning and confirming share: planning reads
    /// a page when one of its videos is not [`Verdict::Fails`], and
    /// confirming lists the videos that pass and counts the undated ones.
    pub fn verdict(&self, v: &VideoFacts) -> Verdict {
        let undated = v.upload_date.is_none_or(str::is_empty);
        if self.passes(v) {
            Verdict::Passes
        } else if undated && self.passes_ignoring_date(v) && self.dates_are_days() {
            Verdict::Undated
        } else {
            Verdict::Fails
        }
    }

    /// Whether both date bounds (when set) are days, not malformed.
    fn dates_are_days(&self) -> bool {
        !matches!(self.date_from, Some(DateBound::Malformed))
            && !matches!(self.date_to, Some(DateBound::Malformed))
    }

    /// Whether `v` passes every filter but the dates.
    fn passes_ignoring_date(&self, v: &VideoFacts) -> bool {
        self.channel_in_scope(v.site, v.channel)
            && self.states.as_ref().is_none_or(|s| s.contains(&v.state))
            && self
                .media_type
                .as_ref()
                .is_none_or(|m| m.contains(&v.media_type))
            && self.age.as_ref().is_none_or(|a| a.contains(&v.age))
            && self.tags.as_ref().is_none_or(|t| {
                v.curated_tags
                    .iter()
                    .any(|x| t.contains(&(v.site, x.to_string())))
            })
            && self.length_passes(v)
    }

    /// Whether `v`'s length is within the bounds: an unknown length is
    /// outside any bound, except where [`VideoFacts::unknown_length_may_pass`].
    fn length_passes(&self, v: &VideoFacts) -> bool {
        let within =
            |bound: Option<LengthBound>, ok: fn(f64, f64) -> bool| match (bound, v.duration) {
                (None, _) => true,
                (Some(LengthBound::Malformed), _) => false,
                (Some(LengthBound::Seconds(_)), None) => v.unknown_length_may_pass,
                (Some(LengthBound::Seconds(b)), Some(d)) => ok(d, b),
            };
        within(self.min_duration, |d, min| d >= min) && within(self.max_duration, |d, max| d <= max)
    }

    /// Whether `v` may answer (see [`Filters::verdict`]).
    pub fn passes(&self, v: &VideoFacts) -> bool {
        self.passes_ignoring_date(v) && self.date_passes(v.upload_date.unwrap_or(""))
    }

    /// The predicate for a post: it has a channel and a date and none of
    /// a video's other facts, so a filter on those excludes every post.
    pub fn passes_post(&self, site: usize, channel: &str, date: &str) -> bool {
        let video_only = self.states.is_some()
            || self.media_type.is_some()
            || self.age.is_some()
            || self.tags.is_some()
            || self.min_duration.is_some()
            || self.max_duration.is_some();
        !video_only && self.channel_in_scope(site, channel) && self.date_passes(date)
    }
}

impl Filters {
    /// Whether a date (`YYYYMMDD`, empty when unknown) is within the
    /// bounds: an unknown date is outside any bound, and a malformed bound
    /// admits nothing.
    pub fn date_passes(&self, date: &str) -> bool {
        let within = |bound: &Option<DateBound>, ok: fn(&str, &str) -> bool| match bound {
            None => true,
            Some(DateBound::Malformed) => false,
            Some(DateBound::Day(_)) if date.is_empty() => self.include_undated,
            Some(DateBound::Day(d)) => ok(date, d),
        };
        within(&self.date_from, |date, from| date >= from)
            && within(&self.date_to, |date, to| date <= to)
    }
}

fn enum_filter<T: Copy>(
    values: &[String],
    what: &str,
    parse: fn(&str) -> Option<T>,
    valid: &[&str],
    notes: &mut Vec<String>,
) -> Option<Vec<T>> {
    if values.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for v in values {
        match parse(v.trim().to_ascii_lowercase().as_str()) {
            Some(x) => out.push(x),
            None => notes.push(format!(
                "unrecognised {what} {v:?} (valid: {})",
                valid.join(", ")
            )),
        }
    }
    if out.is_empty() {
        notes.push(format!(
            "no valid {what} given: the {what} filter matches nothing"
        ));
    }
    Some(out)
}

fn date(value: Option<&str>, what: &str, notes: &mut Vec<String>) -> Option<DateBound> {
    let v = value?;
    Some(match parse_day(v) {
        Ok(day) => DateBound::Day(day),
        Err(e) => {
            notes.push(format!("{what} {e}; the search matches nothing"));
            DateBound::Malformed
        }
    })
}

fn length(value: Option<&str>, what: &str, notes: &mut Vec<String>) -> Option<LengthBound> {
    let v = value?;
    Some(match parse_clock(v.trim(), Clock::Typed) {
        Some(s) => LengthBound::Seconds(s),
        None => {
            notes.push(format!("{what} {v:?} is not a length (seconds, m:ss or h:mm:ss); the search matches nothing"));
            LengthBound::Malformed
        }
    })
}

/// Both date bounds; an inverted range is named and matches nothing.
fn dates(args: &FilterArgs, notes: &mut Vec<String>) -> (Option<DateBound>, Option<DateBound>) {
    let from = date(args.date_from.as_deref(), "date_from", notes);
    let to = date(args.date_to.as_deref(), "date_to", notes);
    if let Err(e) = check_range(args.date_from.as_deref(), args.date_to.as_deref()) {
        notes.push(format!("{e}; the search matches nothing"));
        return (Some(DateBound::Malformed), Some(DateBound::Malformed));
    }
    (from, to)
}

/// Whether two date texts, where both are days, make a range that is not
/// inverted (a text that is no day is refused by [`parse_day`], not here).
pub fn check_range(from: Option<&str>, to: Option<&str>) -> Result<(), InvertedRange> {
    let day = |t: Option<&str>| t.and_then(|t| Day::parse(t).ok());
    DayRange::new(day(from), day(to)).map(|_| ())
}

/// The note for a channel token that matched none: the nearest slug
/// ([`crate::typo`]), or the slugs there are (the first few).
fn no_such_channel(token: &str, archive: &Archive) -> String {
    let mut slugs: Vec<&str> = archive
        .sites()
        .iter()
        .flat_map(|s| s.corpus().channels.iter().map(|c| c.slug.as_str()))
        .collect();
    let said = format!("channel {token:?} matched no channel");
    if let Some(near) = crate::typo::nearest(token.trim(), slugs.iter().copied()) {
        return format!("{said}; did you mean {near}?");
    }
    slugs.sort_unstable();
    slugs.dedup();
    let more = slugs.len().saturating_sub(SLUGS_LISTED);
    slugs.truncate(SLUGS_LISTED);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{said}; the channels are {}{tail}", slugs.join(", "))
}

/// How many channel slugs a "matched no channel" note lists.
const SLUGS_LISTED: usize = 12;

/// Channels and groups (additive), by slug, name or group id/name,
/// case-insensitive. Unmatched tokens are named.
fn channel_scope(
    args: &FilterArgs,
    archive: &Archive,
    notes: &mut Vec<String>,
) -> Option<BTreeSet<(usize, String)>> {
    if args.channels.is_empty() && args.groups.is_empty() {
        return None;
    }
    let mut scope = BTreeSet::new();
    // What the scope was made of, by name, for the note.
    let mut named: Vec<String> = Vec::new();
    for token in &args.channels {
        let t = token.trim().to_lowercase();
        let mut found = false;
        for (i, site) in archive.sites().iter().enumerate() {
            for c in &site.corpus().channels {
                if c.slug.to_lowercase() == t || c.name.to_lowercase() == t {
                    scope.insert((i, c.slug.clone()));
                    named.push(format!("channel {}", c.name));
                    found = true;
                }
            }
        }
        if !found {
            notes.push(no_such_channel(token, archive));
        }
    }
    for token in &args.groups {
        let t = token.trim().to_lowercase();
        let mut found = false;
        for (i, site) in archive.sites().iter().enumerate() {
            let groups: Vec<_> = site
                .corpus()
                .groups
                .iter()
                .filter(|g| g.id.to_lowercase() == t || g.name.to_lowercase() == t)
                .collect();
            named.extend(groups.iter().map(|g| format!("group {}", g.name)));
            let ids: Vec<&str> = groups.iter().map(|g| g.id.as_str()).collect();
            for c in &site.corpus().channels {
                if c.group.as_deref().is_some_and(|g| ids.contains(&g)) {
                    scope.insert((i, c.slug.clone()));
                    found = true;
                }
            }
        }
        if !found {
            notes.push(format!("group {token:?} matched no group"));
        }
    }
    named.dedup();
    let count = match scope.len() {
        1 => "1 channel".to_string(),
        n => format!("{n} channels"),
    };
    notes.push(if named.is_empty() {
        format!("scope: {count}")
    } else {
        format!("scope: {} ({count})", named.join(", "))
    });
    Some(scope)
}

/// Curated tags by id or label, case-insensitive, each resolved in the
/// site that publishes it.
fn tag_filter(
    tags: &[String],
    archive: &Archive,
    notes: &mut Vec<String>,
) -> Option<BTreeSet<(usize, String)>> {
    if tags.is_empty() {
        return None;
    }
    let mut known: Vec<(usize, String, String)> = Vec::new();
    for (site, s) in archive.sites().iter().enumerate() {
        match s.tags() {
            Ok(t) => known.extend(
                t.iter()
                    .flat_map(|t| t.iter())
                    .map(|c| (site, c.id.clone(), c.label.clone())),
            ),
            Err(e) => notes.push(format!(
                "the curated tags of site {} could not be read, so its videos match no tag: {e}",
                s.id()
            )),
        }
    }
    let mut out = BTreeSet::new();
    for token in tags {
        let t = token.trim().to_lowercase();
        let matched: Vec<(usize, String)> = known
            .iter()
            .filter(|(_, id, label)| id.to_lowercase() == t || label.to_lowercase() == t)
            .map(|(site, id, _)| (*site, id.clone()))
            .collect();
        if matched.is_empty() {
            notes.push(format!(
                "tag {token:?} is not a curated tag of this archive"
            ));
        }
        out.extend(matched);
    }
    if out.is_empty() {
        notes.push("no curated tag matched: the tags filter matches nothing".into());
    }
    Some(out)
}
