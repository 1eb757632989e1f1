//! Filters and scope: which videos a query may return, resolved against
//! the archive once, then applied the same way to summary rows (planning)
//! and to real records (confirming).
//!
//! Promise (invariant 6): a filter value that cannot be right (a state,
//! channel, group or tag the archive does not know, a date the calendar
//! does not have, a length that is no length, a range whose start is
//! after its end) refuses the request with a [`FilterError`] naming the
//! argument, the value, what is accepted and the nearest valid value; it
//! never answers "0 videos". Every front end resolves filters here, so
//! the command line (exit 2) and the server (`isError`) refuse alike.

use std::collections::BTreeSet;

use crate::archive::Archive;
use crate::format::{Age, CaptionSource, Facts, HasFacts, MediaType, State};
use crate::time::{parse_clock, parse_day, Clock, Day, DayRange, InvertedRange};

pub use super::filter_args::FilterArgs;

/// Filters resolved against an archive.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// `(site index, channel slug)` in scope; `None` = every channel.
    pub channels: Option<BTreeSet<(usize, String)>>,
    /// The states kept; `None` = any.
    pub states: Option<Vec<State>>,
    /// The first day kept, `YYYYMMDD`.
    pub date_from: Option<String>,
    /// The last day kept, `YYYYMMDD`.
    pub date_to: Option<String>,
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
    pub min_duration: Option<f64>,
    /// The longest length kept, in seconds.
    pub max_duration: Option<f64>,
    /// The caption kinds kept; `None` = any.
    pub captions: Option<Vec<CaptionSource>>,
    /// The resolved scope, and a site whose tags could not be read, for
    /// the footer.
    pub notes: Vec<String>,
}

/// A filter value that cannot be right: the request is refused, and
/// the message names the argument, the value, what is accepted and the
/// nearest valid value where one is close.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FilterError {
    /// The argument at fault (`date_from`, `channels`).
    pub argument: &'static str,
    /// The whole message.
    pub message: String,
}

impl FilterError {
    fn new(argument: &'static str, message: String) -> FilterError {
        FilterError { argument, message }
    }
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

/// What the predicate looks at: a video's site, channel and facts, from a
/// row (planning) or the video itself (confirming). Made only by the
/// constructors below, so both read the same facts the same way.
pub struct VideoFacts<'a> {
    /// The site's position in [`crate::archive::Archive::sites`].
    pub site: usize,
    /// The channel's slug.
    pub channel: &'a str,
    /// The video's facts.
    pub facts: Facts<'a>,
    /// Whether an unknown fact (a length, a caption kind) may pass a
    /// filter on it: true for a summaries or index row, since an archive
    /// written before rows held that fact has none, so the page is read
    /// and the video decides; false for the video itself.
    pub unknown_may_pass: bool,
}

impl<'a> VideoFacts<'a> {
    /// From a summaries (or index) row of site number `site`.
    pub fn of_row(site: usize, channel: &'a str, row: &'a impl HasFacts) -> Self {
        VideoFacts {
            site,
            channel,
            facts: row.facts(),
            unknown_may_pass: true,
        }
    }

    /// From a video as its page holds it (a record or a view).
    pub fn of_video(site: usize, channel: &'a str, v: &'a impl HasFacts) -> Self {
        VideoFacts {
            site,
            channel,
            facts: v.facts(),
            unknown_may_pass: false,
        }
    }

    /// `YYYYMMDD`, when known.
    fn day(&self) -> Option<&'a str> {
        self.facts.upload_date.as_deref()
    }
}

impl Filters {
    /// Resolves `args` against `archive`, or says which value cannot be
    /// right (see [`FilterError`]).
    pub fn resolve(args: &FilterArgs, archive: &Archive) -> Result<Filters, FilterError> {
        let mut f = Filters::default();
        let states: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        f.states = enum_filter(&args.states, "states", State::parse, &states)?;
        let media: Vec<&str> = MediaType::ALL.iter().map(|s| s.as_str()).collect();
        f.media_type = enum_filter(
            args.media_type.as_slice(),
            "media_type",
            MediaType::parse,
            &media,
        )?;
        let ages: Vec<&str> = Age::ALL.iter().map(|s| s.as_str()).collect();
        f.age = enum_filter(args.age.as_slice(), "age", Age::parse, &ages)?;
        (f.date_from, f.date_to) = dates(args)?;
        f.channels = channel_scope(args, archive, &mut f.notes)?;
        f.tags = tag_filter(&args.tags, archive, &mut f.notes)?;
        f.include_undated = args.include_undated;
        (f.min_duration, f.max_duration) = lengths(args)?;
        let kinds: Vec<&str> = CaptionSource::ALL.iter().map(|s| s.as_str()).collect();
        f.captions = enum_filter(&args.captions, "captions", CaptionSource::parse, &kinds)?;
        Ok(f)
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
            || self.captions.is_some()
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
        let undated = v.day().is_none_or(str::is_empty);
        if self.passes(v) {
            Verdict::Passes
        } else if undated && self.passes_ignoring_date(v) {
            Verdict::Undated
        } else {
            Verdict::Fails
        }
    }

    /// Whether `v` passes every filter but the dates.
    fn passes_ignoring_date(&self, v: &VideoFacts) -> bool {
        self.channel_in_scope(v.site, v.channel)
            && self
                .states
                .as_ref()
                .is_none_or(|s| s.contains(v.facts.state))
            && self
                .media_type
                .as_ref()
                .is_none_or(|m| m.contains(v.facts.media_type))
            && self.age.as_ref().is_none_or(|a| a.contains(v.facts.age))
            && self.tags.as_ref().is_none_or(|t| {
                v.facts
                    .curated_tags
                    .iter()
                    .any(|x| t.contains(&(v.site, x.clone())))
            })
            && self.length_passes(v)
            && self.captions_pass(v)
    }

    /// Whether `v`'s captions are of a kind kept: unknown (a row written
    /// before rows carried it) passes where [`VideoFacts::unknown_may_pass`],
    /// and a video that does not say has the format's default.
    fn captions_pass(&self, v: &VideoFacts) -> bool {
        let Some(kept) = &self.captions else {
            return true;
        };
        match v.facts.caption_source {
            None if v.unknown_may_pass => true,
            _ => kept.contains(&v.facts.captions()),
        }
    }

    /// Whether `v`'s length is within the bounds: an unknown length is
    /// outside any bound, except where [`VideoFacts::unknown_may_pass`].
    fn length_passes(&self, v: &VideoFacts) -> bool {
        let within = |bound: Option<f64>, ok: fn(f64, f64) -> bool| match (bound, *v.facts.duration)
        {
            (None, _) => true,
            (Some(_), None) => v.unknown_may_pass,
            (Some(b), Some(d)) => ok(d, b),
        };
        within(self.min_duration, |d, min| d >= min) && within(self.max_duration, |d, max| d <= max)
    }

    /// Whether every fact a set filter reads is known for `v`, so that
    /// [`Filters::passes`] decides it rather than letting an unknown pass
    /// ([`VideoFacts::unknown_may_pass`]).
    pub fn knows(&self, v: &VideoFacts) -> bool {
        let bounded = self.min_duration.is_some() || self.max_duration.is_some();
        let unknown_length = bounded && v.facts.duration.is_none();
        let unknown_captions = self.captions.is_some() && v.facts.caption_source.is_none();
        !unknown_length && !unknown_captions
    }

    /// Whether `v` may answer (see [`Filters::verdict`]).
    pub fn passes(&self, v: &VideoFacts) -> bool {
        self.passes_ignoring_date(v) && self.date_passes(v.day().unwrap_or(""))
    }

    /// The predicate for a post: it has a channel and a date and none of
    /// a video's other facts, so a filter on those excludes every post.
    pub fn passes_post(&self, site: usize, channel: &str, date: &str) -> bool {
        let video_only = self.states.is_some()
            || self.media_type.is_some()
            || self.age.is_some()
            || self.tags.is_some()
            || self.min_duration.is_some()
            || self.max_duration.is_some()
            || self.captions.is_some();
        !video_only && self.channel_in_scope(site, channel) && self.date_passes(date)
    }
}

impl Filters {
    /// Whether a date (`YYYYMMDD`, empty when unknown) is within the
    /// bounds: an unknown date is outside any bound.
    pub fn date_passes(&self, date: &str) -> bool {
        let within = |bound: &Option<String>, ok: fn(&str, &str) -> bool| match bound {
            None => true,
            Some(_) if date.is_empty() => self.include_undated,
            Some(d) => ok(date, d),
        };
        within(&self.date_from, |date, from| date >= from)
            && within(&self.date_to, |date, to| date <= to)
    }
}

/// The values of an enumerated filter, each one the enum knows.
fn enum_filter<T: Copy>(
    values: &[String],
    argument: &'static str,
    parse: fn(&str) -> Option<T>,
    valid: &[&str],
) -> Result<Option<Vec<T>>, FilterError> {
    if values.is_empty() {
        return Ok(None);
    }
    let one = |v: &String| {
        parse(v.trim().to_ascii_lowercase().as_str()).ok_or_else(|| {
            let hint = crate::typo::nearest(v.trim(), valid.iter().copied())
                .map_or(String::new(), |near| format!("; did you mean {near:?}?"));
            let accepted = valid.join(", ");
            FilterError::new(
                argument,
                format!("{argument} {v:?} is not one of {accepted}{hint}"),
            )
        })
    };
    values.iter().map(one).collect::<Result<_, _>>().map(Some)
}

/// One date bound: a day the calendar has.
fn date(value: Option<&str>, argument: &'static str) -> Result<Option<String>, FilterError> {
    value
        .map(parse_day)
        .transpose()
        .map_err(|e| FilterError::new(argument, format!("{argument} {e}")))
}

/// Both date bounds; a range whose start is after its end is refused.
fn dates(args: &FilterArgs) -> Result<(Option<String>, Option<String>), FilterError> {
    let from = date(args.date_from.as_deref(), "date_from")?;
    let to = date(args.date_to.as_deref(), "date_to")?;
    check_range(args.date_from.as_deref(), args.date_to.as_deref())
        .map_err(|e| FilterError::new("date_to", e.to_string()))?;
    Ok((from, to))
}

/// One length bound, in seconds.
fn length(value: Option<&str>, argument: &'static str) -> Result<Option<f64>, FilterError> {
    let Some(v) = value else { return Ok(None) };
    parse_length(v)
        .map(Some)
        .map_err(|e| FilterError::new(argument, format!("{argument} {e}")))
}

/// A length bound as typed (seconds, `m:ss` or `h:mm:ss`), in seconds;
/// the one check every front end's length flag and argument goes through.
pub fn parse_length(text: &str) -> Result<f64, String> {
    parse_clock(text.trim(), Clock::Typed).ok_or_else(|| {
        format!("{text:?} is not a length: give seconds (90), m:ss (1:30) or h:mm:ss (1:01:30), never below 0")
    })
}

/// Both length bounds; a shortest length above the longest is refused.
fn lengths(args: &FilterArgs) -> Result<(Option<f64>, Option<f64>), FilterError> {
    let min = length(args.min_duration.as_deref(), "min_duration")?;
    let max = length(args.max_duration.as_deref(), "max_duration")?;
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(FilterError::new(
                "max_duration",
                format!(
                    "max_duration {} is shorter than min_duration {}, so no video is both; swap the two",
                    crate::format::clock(hi),
                    crate::format::clock(lo)
                ),
            ));
        }
    }
    Ok((min, max))
}

/// Whether two date texts, where both are days, make a range that is not
/// inverted (a text that is no day is refused by [`parse_day`], not here).
pub fn check_range(from: Option<&str>, to: Option<&str>) -> Result<(), InvertedRange> {
    let day = |t: Option<&str>| t.and_then(|t| Day::parse(t).ok());
    DayRange::new(day(from), day(to)).map(|_| ())
}

/// The refusal for a `what` (channel, group, tag) named `token` that
/// matches none of `names`: the nearest name ([`crate::typo`]), else the
/// names there are (the first few).
fn no_such<'a>(
    argument: &'static str,
    what: &str,
    token: &str,
    names: impl Iterator<Item = &'a str>,
) -> FilterError {
    let mut names: Vec<&str> = names.collect();
    let said = format!("{what} {token:?} matches no {what} of this archive");
    if let Some(near) = crate::typo::nearest(token.trim(), names.iter().copied()) {
        return FilterError::new(argument, format!("{said}; did you mean {near:?}?"));
    }
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return FilterError::new(argument, format!("{said}: it has none; drop {argument}"));
    }
    let more = names.len().saturating_sub(NAMES_LISTED);
    names.truncate(NAMES_LISTED);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    FilterError::new(
        argument,
        format!("{said}; it has {}{tail}", names.join(", ")),
    )
}

/// Refuses a channel hint (the `channel` that says where to look for a
/// video first) that names no channel of `archive`: a typo would
/// otherwise pass unnoticed. Matched as the `channels` filter matches,
/// by slug or name, case-insensitive; the refusal gives the nearest.
pub fn check_channel_hints(archive: &Archive, hints: &[String]) -> Result<(), FilterError> {
    let scope = FilterArgs {
        channels: hints.to_vec(),
        ..Default::default()
    };
    channel_scope(&scope, archive, &mut Vec::new()).map(|_| ())
}

/// How many names a "matches no channel" refusal lists.
const NAMES_LISTED: usize = 12;

/// Channels and groups (additive), by slug, name or group id/name,
/// case-insensitive; a token that matches none is refused.
fn channel_scope(
    args: &FilterArgs,
    archive: &Archive,
    notes: &mut Vec<String>,
) -> Result<Option<BTreeSet<(usize, String)>>, FilterError> {
    if args.channels.is_empty() && args.groups.is_empty() {
        return Ok(None);
    }
    let mut scope = BTreeSet::new();
    // What the scope was made of, by name, for the note.
    let mut named: Vec<String> = Vec::new();
    let sites = archive.sites();
    let channels = || {
        sites
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.corpus().channels.iter().map(move |c| (i, c)))
    };
    for token in &args.channels {
        let t = token.trim().to_lowercase();
        let found: Vec<_> = channels()
            .filter(|(_, c)| c.slug.to_lowercase() == t || c.name.to_lowercase() == t)
            .collect();
        if found.is_empty() {
            let slugs = channels().map(|(_, c)| c.slug.as_str());
            return Err(no_such("channels", "channel", token, slugs));
        }
        for (i, c) in found {
            scope.insert((i, c.slug.clone()));
            named.push(format!("channel {}", c.name));
        }
    }
    let groups = || {
        sites
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.corpus().groups.iter().map(move |g| (i, g)))
    };
    for token in &args.groups {
        let t = token.trim().to_lowercase();
        let found: Vec<_> = groups()
            .filter(|(_, g)| g.id.to_lowercase() == t || g.name.to_lowercase() == t)
            .collect();
        if found.is_empty() {
            let ids = groups().map(|(_, g)| g.id.as_str());
            return Err(no_such("groups", "group", token, ids));
        }
        for (i, g) in found {
            named.push(format!("group {}", g.name));
            let members = channels().filter(|(at, c)| *at == i && c.group.as_ref() == Some(&g.id));
            scope.extend(members.map(|(at, c)| (at, c.slug.clone())));
        }
    }
    named.dedup();
    let count = match scope.len() {
        1 => "1 channel".to_string(),
        n => format!("{n} channels"),
    };
    notes.push(format!("scope: {} ({count})", named.join(", ")));
    Ok(Some(scope))
}

/// Curated tags by id or label, case-insensitive, each resolved in the
/// site that publishes it; a tag no site publishes is refused.
fn tag_filter(
    tags: &[String],
    archive: &Archive,
    notes: &mut Vec<String>,
) -> Result<Option<BTreeSet<(usize, String)>>, FilterError> {
    if tags.is_empty() {
        return Ok(None);
    }
    let mut known: Vec<(usize, String, String)> = Vec::new();
    let mut unreadable = false;
    for (site, s) in archive.sites().iter().enumerate() {
        match s.tags() {
            Ok(t) => known.extend(
                t.iter()
                    .flat_map(|t| t.iter())
                    .map(|c| (site, c.id.clone(), c.label.clone())),
            ),
            Err(e) => {
                unreadable = true;
                notes.push(format!(
                    "the curated tags of site {} could not be read, so its videos match no tag: {e}",
                    s.id()
                ));
            }
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
        // A site whose tags cannot be read may publish it: named above.
        if matched.is_empty() && !unreadable {
            let ids = known.iter().map(|(_, id, _)| id.as_str());
            return Err(no_such("tags", "tag", token, ids));
        }
        out.extend(matched);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{SummaryRow, VideoRecord};

    fn record(json: &str) -> VideoRecord {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_caption_filter_keeps_its_kinds_and_lets_only_a_rows_unknown_pass() {
        let f = Filters {
            captions: Some(vec![CaptionSource::Auto, CaptionSource::Asr]),
            ..Filters::default()
        };
        let auto = record(r#"{"slug":"a","title":"t","captionSource":"auto"}"#);
        let manual = record(r#"{"slug":"m","title":"t","captionSource":"manual"}"#);
        let silent = record(r#"{"slug":"s","title":"t"}"#);
        let video = |v| f.passes(&VideoFacts::of_video(0, "c", v));
        assert!(video(&auto));
        assert!(!video(&manual));
        assert!(!video(&silent), "a record that does not say is manual");
        let old_row: SummaryRow =
            serde_json::from_str(r#"{"channel":"c","slug":"s","title":"t","page":1}"#).unwrap();
        let facts = VideoFacts::of_row(0, "c", &old_row);
        assert!(
            f.passes(&facts),
            "a row that does not say may pass: its page is read"
        );
        assert!(!f.knows(&facts), "and the row cannot decide it");
        assert!(!f.passes_post(0, "c", "20240101"), "a post has no captions");
    }
}
