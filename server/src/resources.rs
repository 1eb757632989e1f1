//! MCP resources: what a person attaches to a conversation with `@` (a
//! transcript, a channel's list of videos, a report, the archive's
//! overview), and the completions that find them.
//!
//! # URIs
//!
//! ```text
//! archilyzer://SITE/overview                         the site's channels, groups and counts (list_channels)
//! archilyzer://SITE/channel/CHANNEL                  a channel's videos, newest first, with dates
//! archilyzer://SITE/transcript/CHANNEL/VIDEO         a transcript (get_transcript), part 1
//! archilyzer://SITE/transcript/CHANNEL/VIDEO?part=N  part N of a transcript longer than one answer
//! archilyzer://SITE/video/CHANNEL/VIDEO              a video's metadata (get_video_metadata)
//! archilyzer://SITE/report/ID                        a report (get_report)
//! ```
//!
//! SITE is the site's id, so the members of a hub never collide and a URI
//! names the same thing after a restart. `resources/list` offers the few
//! and stable (each site's overview, channels and reports); the templates
//! offer the many (transcripts, metadata).
//!
//! Promise: a resource's text is the text the matching tool answers (the
//! tool is called to make it: one renderer), each part within the
//! default answer budget, the first part of a long transcript naming how
//! many there are; a URI that names nothing is an error that says what
//! it names instead, never an empty resource.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::context::Context;
use archilyzer_core::archive::Archive;

/// The scheme of every resource URI.
pub const SCHEME: &str = "archilyzer://";

/// A resource the server offers, as `resources/list` shows it.
pub struct Listed {
    /// Its URI.
    pub uri: String,
    /// Its short name.
    pub name: String,
    /// What it holds.
    pub description: String,
}

/// A template, as `resources/templates/list` shows it.
pub struct Template {
    /// The RFC 6570 template.
    pub uri_template: &'static str,
    /// Its short name.
    pub name: &'static str,
    /// What it reads.
    pub description: &'static str,
}

/// The templates, declared once.
pub const TEMPLATES: &[Template] = &[
    Template {
        uri_template: "archilyzer://{site}/transcript/{channel}/{video}",
        name: "transcript",
        description: "A video's transcript as markdown: its metadata, then every caption line with a link to its moment (as get_transcript gives it); a long one comes in parts (?part=2, …), the first naming how many.",
    },
    Template {
        uri_template: "archilyzer://{site}/video/{channel}/{video}",
        name: "video",
        description: "A video's metadata (as get_video_metadata gives it).",
    },
    Template {
        uri_template: "archilyzer://{site}/report/{report}",
        name: "report",
        description: "A published report with its claims and citations (as get_report gives it).",
    },
];

/// What a URI names, and which part of it (from 1; every resource
/// longer than one answer comes in parts, [`one_part`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Named {
    Overview {
        site: String,
        part: usize,
    },
    Channel {
        site: String,
        channel: String,
        part: usize,
    },
    Transcript {
        site: String,
        channel: String,
        video: String,
        part: usize,
    },
    Video {
        site: String,
        channel: String,
        video: String,
        part: usize,
    },
    Report {
        site: String,
        id: String,
        part: usize,
    },
}

/// Characters of the longest resource URI read: far past any real one
/// (a site, a channel and a video id), so an error that repeats a part of
/// one stays short.
const MAX_URI_CHARS: usize = 2_000;

/// Reads `uri` into what it names, or says what is wrong with it (quoting
/// at most a short prefix of it).
fn parse(uri: &str) -> Result<Named, String> {
    let chars = uri.chars().count();
    if chars > MAX_URI_CHARS {
        return Err(format!(
            "a resource URI is at most {MAX_URI_CHARS} characters; this one is {chars}: {}",
            crate::tools::bounds::quote(uri)
        ));
    }
    let shown = crate::tools::bounds::quote(uri);
    let rest = uri.strip_prefix(SCHEME).ok_or_else(|| {
        format!("{shown} is not an archilyzer resource: URIs begin with {SCHEME} (resources/list and resources/templates/list give them)")
    })?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let part = match query.strip_prefix("part=") {
        None if query.is_empty() => 1,
        Some(n) => n.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(|| {
            format!("{shown}: part must be a whole number from 1 (the first part says how many there are)")
        })?,
        None => return Err(format!("{shown}: the only query a resource takes is ?part=N")),
    };
    let segs: Vec<String> = path.split('/').map(unescape).collect();
    let s = |i: usize| segs[i].clone();
    Ok(match segs.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [_, "overview"] => Named::Overview { site: s(0), part },
        [_, "channel", _] => Named::Channel { site: s(0), channel: s(2), part },
        [_, "transcript", _, _] => Named::Transcript { site: s(0), channel: s(2), video: s(3), part },
        [_, "video", _, _] => Named::Video { site: s(0), channel: s(2), video: s(3), part },
        [_, "report", _] => Named::Report { site: s(0), id: s(2), part },
        _ => return Err(format!(
            "{shown} names no resource: the layouts are archilyzer://SITE/overview, /channel/CHANNEL, /transcript/CHANNEL/VIDEO, /video/CHANNEL/VIDEO and /report/ID"
        )),
    })
}

/// A path segment with `%XX` escapes decoded.
fn unescape(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// A value as a path segment (`/`, `%`, `?`, `#` and spaces escaped).
fn segment(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '/' | '%' | '?' | '#' | ' ' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The URI of video `video` of `channel` on `site` (`kind`: transcript or
/// video).
pub fn video_uri(kind: &str, site: &str, channel: &str, video: &str) -> String {
    format!(
        "{SCHEME}{}/{kind}/{}/{}",
        segment(site),
        segment(channel),
        segment(video)
    )
}

/// The archive a resource reads: the server's default corpus.
fn archive(ctx: &Context) -> Result<std::sync::Arc<Archive>, String> {
    ctx.sources.archive(ctx.sources.default_handle())
}

/// The `source` argument that reaches `site` from the default corpus
/// (none for a single site; the member for a hub's).
fn source_of(archive: &Archive, site: &str) -> Result<Map<String, Value>, String> {
    if !archive.sites().iter().any(|s| s.id() == site) {
        let near = archilyzer_core::typo::nearest(site, archive.sites().iter().map(|s| s.id()));
        return Err(format!(
            "no site {site:?} in this archive{}: the sites are {}",
            near.map(|n| format!("; did you mean {n:?}?"))
                .unwrap_or_default(),
            archive
                .sites()
                .iter()
                .map(|s| s.id())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut args = Map::new();
    if archive.hub().is_some() {
        args.insert("source".into(), json!(format!("site:{site}")));
    }
    Ok(args)
}

/// Every resource offered: for each site its overview, its channels and
/// its reports.
pub fn list(ctx: &Context) -> Result<Vec<Listed>, String> {
    let archive = archive(ctx)?;
    let mut out = Vec::new();
    for site in archive.sites() {
        let id = site.id();
        let corpus = site.corpus();
        out.push(Listed {
            uri: format!("{SCHEME}{}/overview", segment(id)),
            name: format!("{id}: overview"),
            description: format!("The channels of {id}, under their groups, with video counts."),
        });
        for ch in &corpus.channels {
            out.push(Listed {
                uri: format!("{SCHEME}{}/channel/{}", segment(id), segment(&ch.slug)),
                name: format!("{}: {}", id, ch.name),
                description: format!(
                    "The videos of {} ({}), newest first, with dates.",
                    ch.name, ch.slug
                ),
            });
        }
        if let Ok(Some(reports)) = site.reports() {
            for r in &reports.reports {
                out.push(Listed {
                    uri: format!("{SCHEME}{}/report/{}", segment(id), segment(&r.id)),
                    name: format!("{id}: {}", r.title),
                    description: format!("Report ({}), {} claim(s).", r.kind, r.claims),
                });
            }
        }
    }
    Ok(out)
}

/// Resources listed per page of `resources/list`.
pub const PER_PAGE: usize = 100;

/// The page of [`list`] that `cursor` names (none: the first), and the
/// cursor of the next page while one remains; a cursor this server did
/// not give is refused.
pub fn page(ctx: &Context, cursor: Option<&str>) -> Result<(Vec<Listed>, Option<String>), String> {
    let all = list(ctx)?;
    let from = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= all.len())
            .ok_or_else(|| {
                format!("cursor {c:?} is not one this server gave: start again without a cursor")
            })?,
    };
    let next = from + PER_PAGE;
    let more = (next < all.len()).then(|| next.to_string());
    Ok((all.into_iter().skip(from).take(PER_PAGE).collect(), more))
}

/// The text of `uri`, and its MIME type.
pub fn read(ctx: &Context, uri: &str) -> Result<(String, &'static str), String> {
    let named = parse(uri)?;
    let archive = archive(ctx)?;
    let base = uri.split_once('?').map_or(uri, |(base, _)| base);
    let (tool, mut args, part) = match &named {
        Named::Overview { site, part } => ("list_channels", source_of(&archive, site)?, *part),
        Named::Channel {
            site,
            channel,
            part,
        } => {
            source_of(&archive, site)?;
            let whole = channel_text(&archive, site, channel)?;
            return one_part(base, split_parts(&whole, PART_CHARS), *part)
                .map(|t| (t, "text/markdown"));
        }
        Named::Transcript {
            site,
            channel,
            video,
            part,
        } => {
            known_video(&archive, site, channel, video)?;
            let parts = transcript_parts(ctx, &archive, site, channel, video)?;
            return one_part(base, parts, *part).map(|t| (t, "text/markdown"));
        }
        Named::Video {
            site,
            channel,
            video,
            part,
        } => {
            known_video(&archive, site, channel, video)?;
            let mut a = source_of(&archive, site)?;
            a.insert("video_id".into(), json!(video));
            a.insert("channel".into(), json!(channel));
            ("get_video_metadata", a, *part)
        }
        Named::Report { site, id, part } => {
            let mut a = source_of(&archive, site)?;
            a.insert("report".into(), json!(id));
            ("get_report", a, *part)
        }
    };
    // The whole answer (the largest budget), then cut into parts.
    args.insert("max_chars".into(), json!(crate::budget::CEILING_CHARS));
    let out = crate::tools::call(ctx, tool, &args, &mut |_| {});
    match out.is_error {
        true => Err(out.text),
        false => {
            one_part(base, split_parts(&out.text, PART_CHARS), part).map(|t| (t, "text/markdown"))
        }
    }
}

/// Characters of one part of a resource: a part and the line naming the
/// others fit the default answer budget.
const PART_CHARS: usize = crate::budget::DEFAULT_CHARS - PART_NOTE;

/// `text` cut at line ends into parts of at most `room` characters (a
/// line longer than that is a part of its own, cut at `room`): every
/// line is in exactly one part, in order.
fn split_parts(text: &str, room: usize) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if chars + n > room && chars > 0 {
            parts.push(String::new());
            chars = 0;
        }
        let line: String = line.chars().take(room).collect();
        chars += line.chars().count();
        parts.last_mut().expect("one part at least").push_str(&line);
    }
    parts
}

/// Part `part` (from 1) of a resource `base` cut into `parts`: past the
/// last it is refused naming how many there are; of several, it begins
/// by naming the others.
fn one_part(base: &str, mut parts: Vec<String>, part: usize) -> Result<String, String> {
    let total = parts.len();
    if part > total {
        return Err(format!(
            "{base}?part={part}: this resource has {total} part(s); ask for part 1 to {total}"
        ));
    }
    let text = parts.swap_remove(part - 1);
    Ok(match total {
        1 => text,
        n => format!(
            "Part {part} of {n} of this resource (the others: {}).\n\n{text}",
            (1..=n)
                .filter(|&k| k != part)
                .map(|k| format!("{base}?part={k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// Refuses a video the site's summaries do not list in `channel`, naming
/// the nearest id there (an archive without summaries is asked through
/// the tool, which says what it finds).
fn known_video(archive: &Archive, site: &str, channel: &str, video: &str) -> Result<(), String> {
    source_of(archive, site)?;
    let site_ref = archive
        .sites()
        .iter()
        .find(|s| s.id() == site)
        .expect("checked above");
    let Ok(Some(summaries)) = site_ref.summaries() else {
        return Ok(());
    };
    let ids: Vec<&str> = summaries
        .videos
        .iter()
        .filter(|r| r.channel == channel)
        .map(|r| r.slug.as_str())
        .collect();
    if ids.contains(&video) {
        return Ok(());
    }
    if ids.is_empty() && site_ref.channel(channel).is_none() {
        return Err(no_channel(site_ref, channel));
    }
    let near = archilyzer_core::typo::nearest(video, ids.iter().copied());
    Err(format!(
        "no video {video:?} in {site}/{channel}{}: completion/complete on the transcript template finds ids by their start or by words of the title",
        near.map(|n| format!("; did you mean {}?", video_uri("transcript", site, channel, n)))
            .unwrap_or_default()
    ))
}

/// The error for a channel `site` does not have, naming the nearest slug.
fn no_channel(site: &archilyzer_core::archive::Site, channel: &str) -> String {
    let slugs = site.corpus().channels.iter().map(|c| c.slug.as_str());
    let near = archilyzer_core::typo::nearest(channel, slugs);
    format!(
        "no channel {channel:?} on site {}{}",
        site.id(),
        near.map(|n| format!("; did you mean {n:?}?"))
            .unwrap_or_default()
    )
}

/// Where the next part of a get_transcript answer starts, when there is
/// one.
#[derive(Deserialize)]
struct Next {
    next_offset: Option<u64>,
}

/// The parts of a transcript, each one get_transcript answer at the
/// default budget (less the room [`one_part`] takes to name the others).
fn transcript_parts(
    ctx: &Context,
    archive: &Archive,
    site: &str,
    channel: &str,
    video: &str,
) -> Result<Vec<String>, String> {
    let mut base = source_of(archive, site)?;
    base.insert("video_id".into(), json!(video));
    base.insert("channel".into(), json!(channel));
    base.insert("max_chars".into(), json!(PART_CHARS));
    let mut parts: Vec<String> = Vec::new();
    let mut offset = 0u64;
    loop {
        let mut args = base.clone();
        args.insert("offset".into(), json!(offset));
        let out = crate::tools::call(ctx, "get_transcript", &args, &mut |_| {});
        if out.is_error {
            return Err(out.text);
        }
        parts.push(out.text);
        match Next::deserialize(&out.structured)
            .ok()
            .and_then(|n| n.next_offset)
        {
            Some(next) if next > offset => offset = next,
            _ => break,
        }
    }
    Ok(parts)
}

/// Room kept in each part for the line naming the others.
const PART_NOTE: usize = 4_000;

/// A channel's videos, newest first (undated last), one line each with
/// its date, title and transcript URI: all of them ([`read`] pages it).
fn channel_text(archive: &Archive, site_id: &str, channel: &str) -> Result<String, String> {
    let site = archive
        .sites()
        .iter()
        .find(|s| s.id() == site_id)
        .expect("source_of checked the site");
    let Some(entry) = site.channel(channel) else {
        return Err(no_channel(site, channel));
    };
    let summaries = site.summaries().map_err(|e| e.to_string())?;
    let mut rows: Vec<&archilyzer_core::format::SummaryRow> = summaries
        .iter()
        .flat_map(|s| s.videos.iter())
        .filter(|r| r.channel == entry.slug)
        .collect();
    rows.sort_by(|a, b| b.upload_date.cmp(&a.upload_date).then(a.slug.cmp(&b.slug)));
    let mut out = format!(
        "# {} ({}/{})\n{} video(s), newest first. Each transcript: the URI after it.\n\n",
        entry.name,
        site_id,
        entry.slug,
        rows.len()
    );
    for r in &rows {
        out.push_str(&format!(
            "- {} **{}** ({}) {}\n",
            r.upload_date
                .as_deref()
                .map(|d| archilyzer_core::time::Day::parse(d).map_or(d.to_string(), |d| d.iso()))
                .unwrap_or_else(|| "undated".into()),
            r.title,
            r.slug,
            video_uri("transcript", site_id, &entry.slug, &r.slug)
        ));
    }
    Ok(out)
}

/// What a completion request completes an argument of.
#[derive(Debug, Clone, Copy)]
pub enum Completing<'a> {
    /// A prompt, by name.
    Prompt(&'a str),
    /// A resource template, by its URI template.
    Template(&'a str),
}

impl Completing<'_> {
    /// The arguments it takes, or an error naming what there is instead
    /// (the protocol's answer to a prompt or template that does not
    /// exist is an error, never an empty list).
    fn arguments(self) -> Result<Vec<&'static str>, String> {
        match self {
            Completing::Prompt(name) if name == crate::plans::PROMPT => {
                Ok(crate::plans::PROMPT_ARGS.iter().map(|(a, _)| *a).collect())
            }
            Completing::Prompt(name) => Err(format!(
                "no prompt named {name:?} to complete; the one prompt is {}",
                crate::plans::PROMPT
            )),
            Completing::Template(uri) => match TEMPLATES.iter().find(|t| t.uri_template == uri) {
                Some(t) => Ok(t.variables()),
                None => Err(format!(
                    "no resource template {uri:?} to complete; the templates are {}",
                    TEMPLATES
                        .iter()
                        .map(|t| t.uri_template)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
        }
    }

    /// Refuses an argument `what` does not take, naming those it takes.
    pub fn check(self, argument: &str) -> Result<(), String> {
        let arguments = self.arguments()?;
        if arguments.contains(&argument) {
            return Ok(());
        }
        let what = match self {
            Completing::Prompt(name) => format!("the prompt {name}"),
            Completing::Template(uri) => format!("the template {uri}"),
        };
        Err(format!(
            "{what} has no argument {argument:?}; its arguments are {}",
            arguments.join(", ")
        ))
    }
}

impl Template {
    /// The names between braces in the template, in order.
    fn variables(&self) -> Vec<&'static str> {
        self.uri_template
            .split('{')
            .skip(1)
            .filter_map(|part| part.split_once('}').map(|(name, _)| name))
            .collect()
    }
}

/// Completions of argument `name` of `what` (value so far `value`), given
/// the arguments already chosen (`known`): the values, and how many match
/// in all. A prompt or template that does not exist, or an argument it
/// does not take, is refused.
pub fn complete(
    ctx: &Context,
    what: Completing<'_>,
    name: &str,
    value: &str,
    known: &std::collections::HashMap<String, String>,
) -> Result<(Vec<String>, usize), String> {
    what.check(name)?;
    let Ok(archive) = archive(ctx) else {
        return Ok((Vec::new(), 0));
    };
    let sites: Vec<&archilyzer_core::archive::Site> = archive
        .sites()
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| known.get("site").is_none_or(|k| k == s.id())) // not JSON: the completion's map of strings
        .collect();
    let v = value.to_lowercase();
    let all: Vec<String> = match name {
        "site" | "source" => archive
            .sites()
            .iter()
            .map(|s| s.id().to_string())
            .filter(|s| s.to_lowercase().starts_with(&v))
            .collect(),
        "channel" | "channels" => {
            // Slugs that start with the value first, then names holding it.
            let channels: Vec<&archilyzer_core::format::ChannelEntry> = sites
                .iter()
                .flat_map(|s| s.corpus().channels.iter())
                .collect();
            let by_slug = channels
                .iter()
                .filter(|c| c.slug.to_lowercase().starts_with(&v));
            let by_name = channels.iter().filter(|c| {
                !c.slug.to_lowercase().starts_with(&v) && c.name.to_lowercase().contains(&v)
            });
            by_slug.chain(by_name).map(|c| c.slug.clone()).collect()
        }
        "group" | "groups" => sites
            .iter()
            .flat_map(|s| s.corpus().groups.iter())
            .filter(|g| g.id.to_lowercase().starts_with(&v) || g.name.to_lowercase().contains(&v))
            .map(|g| g.id.clone())
            .collect(),
        "report" => sites
            .iter()
            .filter_map(|s| s.reports().ok().flatten())
            .flat_map(|r| r.reports.clone())
            .filter(|r| r.id.to_lowercase().starts_with(&v) || r.title.to_lowercase().contains(&v))
            .map(|r| r.id)
            .collect(),
        "video" => videos(&sites, known.get("channel"), value), // not JSON: the completion's map of strings
        _ => Vec::new(),
    };
    let total = all.len();
    // At most as many as the protocol allows (rmcp states the number).
    let most = rmcp::model::CompletionInfo::MAX_VALUES;
    Ok((all.into_iter().take(most).collect(), total))
}

/// Video ids whose id starts with `value`, then those whose title holds
/// every word of it, newest first within each.
fn videos(
    sites: &[&archilyzer_core::archive::Site],
    channel: Option<&String>,
    value: &str,
) -> Vec<String> {
    let words = archilyzer_core::text::tokens(value);
    let mut by_id = Vec::new();
    let mut by_title = Vec::new();
    for s in sites {
        let Ok(Some(summaries)) = s.summaries() else {
            continue;
        };
        for r in summaries
            .videos
            .iter()
            .filter(|r| channel.is_none_or(|c| &r.channel == c))
        {
            if r.slug.starts_with(value) {
                by_id.push((r.upload_date.clone(), r.slug.clone()));
            } else if !words.is_empty() {
                let title = archilyzer_core::text::tokens(&r.title);
                if words
                    .iter()
                    .all(|w| title.iter().any(|t| t.starts_with(w.as_str())))
                {
                    by_title.push((r.upload_date.clone(), r.slug.clone()));
                }
            }
        }
    }
    for list in [&mut by_id, &mut by_title] {
        list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    by_id.into_iter().chain(by_title).map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_of_what_does_not_exist_is_refused_naming_what_does() {
        let transcript = TEMPLATES[0].uri_template;
        assert!(Completing::Template(transcript).check("video").is_ok());
        assert!(Completing::Prompt("sweep").check("channel").is_ok());
        assert_eq!(
            Completing::Prompt("test_prompt").check("arg1").unwrap_err(),
            "no prompt named \"test_prompt\" to complete; the one prompt is sweep"
        );
        assert_eq!(
            Completing::Template(transcript).check("report").unwrap_err(),
            format!("the template {transcript} has no argument \"report\"; its arguments are site, channel, video")
        );
        let unknown = Completing::Template("test://template/{id}/data").check("id");
        assert!(unknown
            .unwrap_err()
            .starts_with("no resource template \"test://template/{id}/data\" to complete; the templates are archilyzer://{site}/transcript/{channel}/{video}, "));
    }

    #[test]
    fn the_parts_of_a_resource_hold_every_line_once_and_a_part_past_the_last_is_refused() {
        let lines: Vec<String> = (0..500)
            .map(|i| format!("- video {i:03} {}\n", "x".repeat(i % 90)))
            .collect();
        let whole = lines.concat();
        let parts = split_parts(&whole, 2_000);
        assert!(parts.len() > 10, "{}", parts.len());
        assert!(parts.iter().all(|p| p.chars().count() <= 2_000));
        assert_eq!(parts.concat(), whole, "every line once, in order");
        let base = "archilyzer://alpha/channel/daily-dispatch";
        let n = parts.len();
        let second = one_part(base, parts.clone(), 2).unwrap();
        assert!(
            second.starts_with(&format!(
                "Part 2 of {n} of this resource (the others: {base}?part=1, {base}?part=3"
            )),
            "{second}"
        );
        assert!(second.ends_with(&parts[1]));
        assert_eq!(
            one_part(base, parts, n + 1).unwrap_err(),
            format!(
                "{base}?part={}: this resource has {n} part(s); ask for part 1 to {n}",
                n + 1
            )
        );
        let single = split_parts("# one line\n", 2_000);
        assert_eq!(
            one_part(base, single.clone(), 1).unwrap(),
            "# one line\n",
            "one part: no header"
        );
        assert!(one_part(base, single, 2)
            .unwrap_err()
            .contains("this resource has 1 part(s)"));
    }

    #[test]
    fn a_uri_reads_back_as_what_it_names_and_a_wrong_one_says_the_layouts() {
        let uri = video_uri("transcript", "alpha", "daily/dispatch", "aB3_dE4-fG5");
        assert_eq!(
            uri,
            "archilyzer://alpha/transcript/daily%2Fdispatch/aB3_dE4-fG5"
        );
        assert_eq!(
            parse(&format!("{uri}?part=2")).unwrap(),
            Named::Transcript {
                site: "alpha".into(),
                channel: "daily/dispatch".into(),
                video: "aB3_dE4-fG5".into(),
                part: 2
            }
        );
        assert!(parse("archilyzer://alpha/nothing")
            .unwrap_err()
            .contains("the layouts are"));
        assert!(parse(&format!("{uri}?part=0"))
            .unwrap_err()
            .contains("whole number from 1"));
        assert!(parse("file:///etc/passwd")
            .unwrap_err()
            .contains("URIs begin with archilyzer://"));
        let long = format!("archilyzer://alpha/channel/{}", "c".repeat(50_000));
        let e = parse(&long).unwrap_err();
        assert!(e.starts_with("a resource URI is at most 2000 characters; this one is 50027: \"archilyzer://alpha/channel/ccccccccccccc\"…"), "{e}");
        assert!(e.chars().count() < 200, "{e}");
        let e = parse(&format!("archilyzer://alpha/nothing/{}", "n".repeat(1_500))).unwrap_err();
        assert!(
            e.chars().count() < 400,
            "an error quotes a short prefix: {e}"
        );
    }
}
