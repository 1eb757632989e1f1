//! Reading videos: `get_transcript`, `get_transcripts` (a batch, whole or
//! as windows around queries) and `get_video_metadata`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::Context;
use crate::editor::transcript::{self, Fallback};
use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::archive::{Archive, Found, Site};
use archilyzer_core::format::{HasFacts, VideoRecord};
use archilyzer_core::links::{clock, LinkTarget};
use archilyzer_core::query::count::{Asked, Queries, VideoCount};
use archilyzer_core::query::QueryError;
use archilyzer_core::source::SourceHandle;

/// Most ids one `get_transcripts` call reads.
pub const MAX_IDS: usize = 20;
/// Most queries one `get_transcripts` call windows around.
pub const MAX_QUERIES: usize = 8;

/// Where a found video's moments link to.
pub fn links<'a>(f: &'a Found) -> LinkTarget<'a> {
    LinkTarget {
        viewer: f.site.viewer(),
        slug: &f.video.slug,
        platform: f.video.platform,
        url: f.video.webpage_url.as_deref(),
    }
}

/// Finds video `id`, looking in the hinted channels first.
fn find_video<'a>(
    archive: &'a Archive,
    id: &str,
    hints: &[String],
) -> Result<Option<Found<'a>>, String> {
    archive.find_video(id, hints).map_err(|e| e.to_string())
}

/// Refuses a channel hint that names no channel of `archive`
/// ([`archilyzer_core::query::filters::check_channel_hints`]).
fn known_channels(archive: &Archive, hints: &[String]) -> Result<(), String> {
    archilyzer_core::query::filters::check_channel_hints(archive, hints).map_err(|e| e.to_string())
}

/// The refusal for video `id`, which `archive` does not hold: what to
/// check, and the nearest id it does hold (case-insensitive).
fn no_video(archive: &Archive, id: &str) -> String {
    let hint = archive
        .nearest_video(id)
        .map(|n| format!(" Did you mean {n:?}?"))
        .unwrap_or_default();
    format!(
        "no video {} in this corpus: check the id (as search results show it) or pass the source it came from.{hint}",
        crate::tools::bounds::quote(id)
    )
}

/// `get_video_metadata`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MetadataArgs {
    /// The video's id (slug), as results show it.
    pub video_id: String,
    /// The owning channel, to speed the lookup.
    #[serde(default)]
    pub channel: Option<String>,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// `get_transcript`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TranscriptArgs {
    /// The video's id (slug), as results show it.
    pub video_id: String,
    /// Skip this many caption lines (to continue a cut transcript).
    #[serde(default)]
    pub offset: usize,
    /// The owning channel, to speed the lookup.
    #[serde(default)]
    pub channel: Option<String>,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// `get_transcripts`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BatchArgs {
    /// Up to 20 ids; more are not read, and are named.
    pub video_ids: Vec<String>,
    /// Window the transcripts around this phrase (or regex).
    #[serde(default)]
    pub query: Option<String>,
    /// Several queries at once (with query, at most 8); counts are
    /// reported per query.
    #[serde(default)]
    pub queries: Vec<String>,
    /// query is a regex over the raw caption text.
    #[serde(default)]
    pub regex: bool,
    /// Drop videos that also match any of these phrases.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Expand through the site's curated aliases (default true).
    #[serde(default = "super::args::yes")]
    pub use_aliases: bool,
    /// Also match index words within this many edits of each 5+ letter
    /// query word (misheard names), each named with its count.
    #[schemars(range(max = archilyzer_core::query::find::MAX_FUZZY))]
    #[serde(default)]
    pub fuzzy: u8,
    /// Fields counted: transcripts (captions), metadata (the title).
    /// Default both, as search_transcripts counts them.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Seconds before each match (default 30).
    #[schemars(range(max = 600))]
    #[serde(default = "thirty")]
    pub before: u32,
    /// Seconds after each match (default 30).
    #[schemars(range(max = 600))]
    #[serde(default = "thirty")]
    pub after: u32,
    /// Lines per video with a query (default 200; the earliest are kept).
    #[schemars(range(min = 1, max = 5000))]
    #[serde(default = "two_hundred")]
    pub max_lines: usize,
    /// video and/or post (default both).
    #[serde(default)]
    pub content_types: Vec<String>,
    /// How lines link to their moments.
    #[serde(default)]
    pub link_style: super::search::LinkStyle,
    /// Owning channel hint.
    #[serde(default)]
    pub channel: Option<String>,
    /// Owning channel hints.
    #[serde(default)]
    pub channels: Vec<String>,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

fn thirty() -> u32 {
    30
}

fn two_hundred() -> usize {
    200
}

/// The video `video_id` (with the optional `channel` hint) names.
fn video_arg<'a>(archive: &'a Archive, args: &MetadataArgs) -> Result<Found<'a>, String> {
    let id = args.video_id.as_str();
    let hints: Vec<String> = args.channel.iter().cloned().collect();
    known_channels(archive, &hints)?;
    find_video(archive, id, &hints)?.ok_or_else(|| no_video(archive, id))
}

fn header(f: &Found) -> String {
    let v = &f.video;
    let mut out = format!(
        "# {}\n- id: {} · channel: {} ({}) · {} · {} · {}\n",
        v.title,
        v.slug,
        f.channel.name,
        f.channel.slug,
        v.upload_date.as_deref().unwrap_or("no date"),
        v.state.as_str(),
        v.media_type.as_str()
    );
    if let Some(url) = &v.webpage_url {
        out.push_str(&format!("- source: {url}\n"));
    }
    out
}

/// One caption line, linked inline or in the compact base form.
fn cue_line(links: &LinkTarget, base: bool, start: f64, text: &str) -> String {
    if base {
        return format!("[{}|{}] {text}\n", clock(start), start.floor() as u64);
    }
    match links.moment(start) {
        Some(link) => format!("[{}]({link}) {text}\n", clock(start)),
        None => format!("[{}] {text}\n", clock(start)),
    }
}

/// The `get_transcript` tool.
pub fn get_transcript(
    ctx: &Context,
    handle: &SourceHandle,
    args: &TranscriptArgs,
    budget: usize,
) -> ToolResult {
    let archive = ctx.sources.archive(handle)?;
    let id = args.video_id.as_str();
    let channel = args.channel.as_deref();
    let hints: Vec<String> = channel.map(str::to_string).into_iter().collect();
    known_channels(&archive, &hints)?;
    let Some(found) = find_video(&archive, id, &hints)? else {
        return unpublished(ctx, &archive, id, channel);
    };
    let links = links(&found);
    let v = &found.video;
    let offset = args.offset;
    if offset > 0 && offset >= v.cues.len() {
        return Err(format!(
            "offset {offset} is past the end: {id:?} has {} caption line(s), so offsets run from 0 to {}",
            v.cues.len(),
            v.cues.len().saturating_sub(1)
        )
        .into());
    }
    let head = header(&found);
    let lines: Vec<String> = v.cues[offset..]
        .iter()
        .map(|c| cue_line(&links, false, c.start, &c.text))
        .collect();
    // The lines that fit `room` (one at least), then what continues.
    let render = |room: usize| {
        let room = room.saturating_sub(head.len() + 400);
        let kept = crate::budget::lines_each(&[lines.iter().map(String::len).collect()], room)
            .max(1)
            .min(lines.len());
        let end = offset + kept;
        let mut out = head.clone();
        out.push_str(&format!(
            "- caption lines {}–{end} of {}\n\n",
            (offset + 1).min(end),
            v.cues.len()
        ));
        out.push_str(&lines[..kept].concat());
        if end < v.cues.len() {
            out.push_str(&format!(
                "\n… transcript continues: lines {}–{} not shown (size budget). Call get_transcript with offset: {end} for the rest, or get_transcripts with a query to read windows around what you need.\n",
                end + 1,
                v.cues.len()
            ));
        }
        let answer = crate::tool::TranscriptAnswer {
            id: v.slug.clone(),
            channel: found.channel.slug.clone(),
            published: true,
            cues: v.cues.len(),
            title: Some(v.title.clone()),
            site: Some(found.site.id().to_string()),
            offset: Some(offset),
            lines_shown: Some(kept),
            next_offset: (end < v.cues.len()).then_some(end),
            editor_source: None,
            untimed: None,
        };
        (out, crate::output::content(&answer))
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
        render,
    ))
}

/// A video the corpus lacks: asked of the editor, or not found.
fn unpublished(ctx: &Context, archive: &Archive, id: &str, channel: Option<&str>) -> ToolResult {
    let missing = no_video(archive, id);
    match transcript::from_editor(&ctx.editor, id, channel) {
        Ok(Fallback::Found(text, facts)) => Ok((text, facts)),
        Ok(Fallback::NotThere) => {
            Err(format!("{missing} And the local editor has no transcript of it either.").into())
        }
        Ok(Fallback::NoEditor) => Err(missing.into()),
        Err(e) => Err(format!("{missing} And the local editor could not be asked: {e}").into()),
    }
}

/// How a query's count reads in a batch video's head.
fn describe(c: &VideoCount) -> String {
    let mut s = format!("{:?}: {}", c.label, c.total());
    if c.title {
        s.push_str(" (1 in the title)");
    }
    if c.through_aliases > 0 {
        let via = if c.expansions.is_empty() {
            "an alias"
        } else {
            "an alias or a fuzzy expansion"
        };
        s.push_str(&format!(" ({} only through {via})", c.through_aliases));
    }
    for (phrase, n) in &c.expansions {
        s.push_str(&format!("; fuzzy {phrase:?}: {n}"));
    }
    s
}

/// The cues inside the time windows around every hit, in order.
fn window_lines(v: &VideoRecord, counted: &[VideoCount], before: f64, after: f64) -> Vec<usize> {
    let spans: Vec<(f64, f64)> = counted
        .iter()
        .flat_map(|c| c.cues.iter())
        .map(|&i| (v.cues[i].start - before, v.cues[i].start + after))
        .collect();
    (0..v.cues.len())
        .filter(|&i| {
            let t = v.cues[i].start;
            spans.iter().any(|(a, b)| t >= *a && t <= *b)
        })
        .collect()
}

/// The queries of a call, compiled by the engine as a search compiles
/// them (aliases per site, `use_aliases`, `regex`, `exclude`, `fuzzy`
/// with the index in `index_dir`).
fn asked(
    archive: &Archive,
    index_dir: Option<&std::path::Path>,
    args: &BatchArgs,
) -> Result<Queries, String> {
    let mut queries: Vec<String> = args.query.iter().cloned().collect();
    queries.extend(args.queries.iter().cloned());
    if queries.len() > MAX_QUERIES {
        return Err(format!(
            "at most {MAX_QUERIES} queries per call (got {}); split the call",
            queries.len()
        ));
    }
    let exclude = args.exclude.clone();
    if queries.is_empty() && !exclude.is_empty() {
        return Err(
            "exclude applies to a query: pass query or queries with it, or drop exclude".into(),
        );
    }
    let asked = Asked {
        queries,
        regex: args.regex,
        use_aliases: args.use_aliases,
        exclude,
        fuzzy: args.fuzzy.min(archilyzer_core::query::find::MAX_FUZZY),
        scopes: args.scopes.clone(),
    };
    Queries::compile(archive, index_dir, &asked).map_err(|e| match e {
        QueryError::NotCounted { .. } => format!("{e} (search_transcripts)"),
        e => e.to_string(),
    })
}

/// The `get_transcripts` tool.
pub fn get_transcripts(
    sources: &Sources,
    handle: &SourceHandle,
    args: &BatchArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let mut ids = batch_ids(&args.video_ids)?;
    let mut notes = Vec::new();
    if ids.len() > MAX_IDS {
        notes.push(format!(
            "{} id(s) past the limit of {MAX_IDS} were not read: {}",
            ids.len() - MAX_IDS,
            ids[MAX_IDS..].join(", ")
        ));
        ids.truncate(MAX_IDS);
    }
    let index_dir = sources.index_dir(handle);
    let asked = asked(&archive, index_dir.as_deref(), args)?;
    notes.extend(asked.notes.iter().cloned());
    let before = f64::from(args.before);
    let after = f64::from(args.after);
    let max_lines = args.max_lines;
    let base = args.link_style == super::search::LinkStyle::Base;
    let (want_video, want_post) = content_types(&args.content_types)?;
    let mut hints = args.channels.clone();
    hints.extend(args.channel.iter().cloned());
    known_channels(&archive, &hints)?;
    let mut pieces: Vec<Piece> = Vec::new();
    let mut rows = Vec::new();
    for id in &ids {
        if want_video {
            if let Some(found) = find_video(&archive, id, &hints)? {
                if let Some(phrase) = asked.excluded_by(&found.video) {
                    pieces.push(Piece::fixed(format!(
                        "# {id}\nnot shown: it matches the excluded phrase {phrase:?}, as search_transcripts with the same exclude would leave it out (drop exclude to read it)\n\n"
                    )));
                    rows.push(BatchRow {
                        id: id.clone(),
                        read: Read::Excluded { by: phrase },
                    });
                    continue;
                }
                rows.push(render_batch_video(
                    &mut pieces,
                    &found,
                    &asked,
                    (before, after, max_lines),
                    base,
                ));
                continue;
            }
        }
        if want_post {
            if let Ok((channel, post)) = super::reports::find_post(&archive, id) {
                let mut head = format!(
                    "# post by {}, {} ({channel})\n- id: {}\n",
                    post.author, post.date, post.id
                );
                if let Some(url) = &post.url {
                    head.push_str(&format!("- source: {url}\n"));
                }
                head.push_str(&format!("\n{}\n\n", post.text));
                pieces.push(Piece::fixed(head));
                rows.push(BatchRow {
                    id: post.id,
                    read: Read::Post { channel },
                });
                continue;
            }
        }
        let left_out = if !want_video && find_video(&archive, id, &hints)?.is_some() {
            Some("video")
        } else if !want_post && super::reports::find_post(&archive, id).is_ok() {
            Some("post")
        } else {
            None
        };
        match left_out {
            Some(kind) => {
                pieces.push(Piece::fixed(format!(
                    "# {id}\nnot shown: it is a {kind}, and content_types leaves {kind}s out\n\n"
                )));
                rows.push(BatchRow {
                    id: id.clone(),
                    read: Read::LeftOut { is: kind.into() },
                });
            }
            None => {
                let nearest = archive.nearest_video(id);
                let hint = nearest
                    .as_ref()
                    .map_or(String::new(), |n| format!("; did you mean {n:?}?"));
                pieces.push(Piece::fixed(format!(
                    "# {}\nnot found in this corpus{hint}\n\n",
                    crate::tools::bounds::clip(id)
                )));
                rows.push(BatchRow {
                    id: id.clone(),
                    read: Read::Missing { nearest },
                });
            }
        }
    }
    if rows.iter().all(|r| matches!(r.read, Read::Missing { .. })) {
        return Err(none_found(&rows).into());
    }
    let render = |room: usize| {
        let (out, shown) = assemble(&pieces, &ids, &notes, room);
        let batch = Batch {
            videos: rows[..shown].to_vec(),
            not_read: ids[shown..].to_vec(),
            notes: notes.clone(),
        };
        (out, crate::output::content(&batch))
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
        render,
    ))
}

/// The kinds `content_types` asks for: (videos, posts). None given means
/// both; an unknown value is refused, with the nearest kind.
fn content_types(types: &[String]) -> Result<(bool, bool), String> {
    const KNOWN: [&str; 2] = ["video", "post"];
    if types.is_empty() {
        return Ok((true, true));
    }
    if let Some(t) = types.iter().find(|t| !KNOWN.contains(&t.as_str())) {
        let hint = crate::tool::nearest(t, KNOWN)
            .map_or(String::new(), |k| format!("; did you mean {k:?}?"));
        return Err(format!(
            "content_types {t:?} is not one of video, post{hint}"
        ));
    }
    let want = |k: &str| types.iter().any(|t| t == k);
    Ok((want("video"), want("post")))
}

/// The ids of a `get_transcripts` call: one at least, each once.
fn batch_ids(ids: &[String]) -> Result<Vec<String>, String> {
    if ids.is_empty() {
        return Err("video_ids is empty: give the ids of the videos (or posts) to read, as search results show them".into());
    }
    let mut seen = std::collections::HashSet::new();
    match ids.iter().find(|id| !seen.insert(id.as_str())) {
        Some(twice) => Err(format!(
            "video_ids names {twice:?} twice: give each id once"
        )),
        None => Ok(ids.to_vec()),
    }
}

/// One item of a `get_transcripts` answer: its head, its caption lines
/// (what the size budget shares out), and what follows them.
#[derive(Default)]
struct Piece {
    head: String,
    lines: Vec<String>,
    after: String,
    /// For a whole transcript: the video's id, so a cut can say where to
    /// continue with `get_transcript`'s offset.
    whole: Option<String>,
}

impl Piece {
    fn fixed(head: String) -> Piece {
        Piece {
            head,
            ..Piece::default()
        }
    }

    /// The piece with its first `n` lines, and a line saying what the
    /// budget left out.
    fn render(&self, n: usize, out: &mut String) {
        out.push_str(&self.head);
        out.push_str(&self.lines[..n.min(self.lines.len())].concat());
        if self.lines.len() > n {
            let left = self.lines.len() - n;
            out.push_str(&match &self.whole {
                Some(id) => format!("… {left} more line(s) not shown (size budget): get_transcript with video_id {id:?} and offset: {n} continues here\n"),
                None => format!("… {left} more line(s) of these windows not shown (size budget): ask for fewer ids or narrower before/after\n"),
            });
        }
        out.push_str(&self.after);
    }
}

/// The pieces in `budget` characters: as many as their heads fit (one at
/// least, in order), every one given the same number of lines, as many as
/// fit; then a line naming the ids left out, and the notes. Returns the
/// text and how many pieces it shows.
fn assemble(pieces: &[Piece], ids: &[String], notes: &[String], budget: usize) -> (String, usize) {
    const CUT_LINE: usize = 200;
    let fixed = |p: &Piece| p.head.len() + p.after.len() + CUT_LINE;
    let noted = notes.iter().map(|n| n.len() + 1).sum::<usize>();
    let mut room = budget.saturating_sub(noted);
    let mut shown = 0;
    for p in pieces {
        if shown > 0 && fixed(p) > room {
            break;
        }
        room = room.saturating_sub(fixed(p));
        shown += 1;
    }
    let lens: Vec<Vec<usize>> = pieces[..shown]
        .iter()
        .map(|p| p.lines.iter().map(String::len).collect())
        .collect();
    let n = crate::budget::lines_each(&lens, room);
    let mut out = String::new();
    for p in &pieces[..shown] {
        p.render(n, &mut out);
    }
    if shown < pieces.len() {
        out.push_str(&format!(
            "… {} id(s) not read (size budget): {}; read them in another call, or raise max_chars\n",
            pieces.len() - shown,
            ids[shown..].join(", ")
        ));
    }
    for note in notes {
        out.push_str(&format!("{note}\n"));
    }
    (out, shown)
}

/// `get_transcripts`' structured content.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Batch {
    /// Each id read, in the order asked.
    pub videos: Vec<BatchRow>,
    /// The ids the size budget left for another call.
    pub not_read: Vec<String>,
    /// What compiling the queries and reading the ids left to say.
    pub notes: Vec<String>,
}

/// One id of a batch read.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct BatchRow {
    /// The id as asked.
    pub id: String,
    /// What became of it.
    #[serde(flatten)]
    pub read: Read,
}

/// What a batch read made of one id.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Read {
    /// A video, read.
    Video {
        /// Its channel.
        channel: String,
        /// Its caption lines in the answer (windows, or the whole).
        lines: usize,
        /// Hits per query, counted as a search of the same scopes counts.
        matches: BTreeMap<String, usize>,
    },
    /// A post, read.
    Post {
        /// Its channel.
        channel: String,
    },
    /// Left out: it matches this excluded phrase.
    Excluded {
        /// The phrase.
        by: String,
    },
    /// Left out: `content_types` leaves its kind (video or post) out.
    LeftOut {
        /// Its kind.
        is: String,
    },
    /// Not in this corpus.
    Missing {
        /// The id of this corpus nearest to it (case-insensitive, within
        /// two edits), if one is.
        #[serde(skip_serializing_if = "Option::is_none")]
        nearest: Option<String>,
    },
}

/// The refusal of a batch none of whose ids this corpus holds: each id
/// with the nearest one it does hold.
fn none_found(rows: &[BatchRow]) -> String {
    let each: Vec<String> = rows
        .iter()
        .map(|r| match &r.read {
            Read::Missing { nearest: Some(n) } => {
                format!(
                    "{} (did you mean {n:?}?)",
                    crate::tools::bounds::quote(&r.id)
                )
            }
            _ => crate::tools::bounds::quote(&r.id),
        })
        .collect();
    format!(
        "none of the {} id(s) is in this corpus: {}. Check the ids (as search results show them) or pass the source they came from",
        rows.len(),
        each.join(", ")
    )
}

fn render_batch_video(
    pieces: &mut Vec<Piece>,
    found: &Found,
    asked: &Queries,
    (before, after, max_lines): (f64, f64, usize),
    base: bool,
) -> BatchRow {
    let links = links(found);
    let v = &found.video;
    let mut piece = Piece::fixed(header(found));
    let base_line = if base { links.base() } else { None };
    if let Some(b) = &base_line {
        piece.head.push_str(&format!("- moment_base: {b}\n"));
    }
    let counted = asked.count(found.site_index, v);
    let lines = if asked.is_empty() {
        piece.whole = Some(v.slug.clone());
        (0..v.cues.len()).collect()
    } else {
        window_lines(v, &counted, before, after)
    };
    if !counted.is_empty() {
        let per: Vec<String> = counted.iter().map(describe).collect();
        piece
            .head
            .push_str(&format!("- matches per query: {}\n", per.join(", ")));
    }
    piece.head.push('\n');
    let cap = if asked.is_empty() {
        usize::MAX
    } else {
        max_lines
    };
    piece.lines = lines
        .iter()
        .take(cap)
        .map(|&i| {
            cue_line(
                &links,
                base_line.is_some(),
                v.cues[i].start,
                &v.cues[i].text,
            )
        })
        .collect();
    if lines.len() > cap {
        piece.after.push_str(&format!(
            "… {} more line(s) past max_lines {cap}\n",
            lines.len() - cap
        ));
    }
    piece.after.push('\n');
    pieces.push(piece);
    let counts: BTreeMap<String, usize> = counted
        .into_iter()
        .map(|c| (c.label.clone(), c.total()))
        .collect();
    BatchRow {
        id: v.slug.clone(),
        read: Read::Video {
            channel: found.channel.slug.clone(),
            lines: lines.len().min(cap),
            matches: counts,
        },
    }
}

/// The `get_video_metadata` tool.
pub fn get_video_metadata(
    sources: &Sources,
    handle: &SourceHandle,
    args: &MetadataArgs,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let found = video_arg(&archive, args)?;
    let v = &found.video;
    let mut out = header(&found);
    out.push_str(&format!(
        "- duration: {} · age: {} · captions: {} ({})\n",
        v.duration.map(clock).unwrap_or_else(|| "unknown".into()),
        v.age.as_str(),
        v.facts().captions().as_str(),
        v.lang.as_deref().unwrap_or("?")
    ));
    if !v.tags.is_empty() {
        out.push_str(&format!("- uploader tags: {}\n", v.tags.join(", ")));
    }
    if !v.curated_tags.is_empty() {
        out.push_str(&format!("- curated tags: {}\n", v.curated_tags.join(", ")));
    }
    let stats = found
        .site
        .stats(&found.channel.slug)
        .map_err(|e| e.to_string())?;
    let stat = stats.as_ref().and_then(|s| s.get(&v.slug)).cloned();
    match &stat {
        Some(s) => out.push_str(&format!(
            "- stats: {} views · {} likes · {} cues · {:.0}% of the duration captioned\n",
            s.views.map_or("?".into(), |n| n.to_string()),
            s.likes.map_or("?".into(), |n| n.to_string()),
            s.cues,
            s.coverage * 100.0
        )),
        None => out.push_str("- stats: none published\n"),
    }
    let copies = other_copies(found.site, &found.channel.slug, &v.slug)?;
    if copies.is_empty() {
        out.push_str("- other copies: none known\n");
    }
    for (channel, slug, aligned, offset) in &copies {
        let verdict = if *aligned == Some(true) {
            format!(
                "timings measured as aligned (offset {:+.1} s)",
                offset.unwrap_or(0.0)
            )
        } else if aligned.is_none() {
            "alignment never measured: do NOT map a timestamp across".to_string()
        } else {
            "timings NOT aligned: do NOT map a timestamp across".to_string()
        };
        out.push_str(&format!(
            "- same recording also archived as {channel}/{slug}: {verdict}\n"
        ));
    }
    let digests = found
        .site
        .digests(&found.channel.slug)
        .map_err(|e| e.to_string())?;
    if let Some(d) = digests.as_ref().and_then(|d| d.get(&v.slug)) {
        out.push_str(&format!(
            "- AI digest ({}): tags {}\n",
            d.model,
            d.tags.join(", ")
        ));
        let links = links(&found);
        for c in &d.chapters {
            let stamp = match links.moment(c.start) {
                Some(link) => format!("[{}]({link})", clock(c.start)),
                None => format!("[{}]", clock(c.start)),
            };
            out.push_str(&format!("  - {stamp} {}\n", c.title));
        }
    }
    let copies = copies
        .into_iter()
        .map(|(channel, slug, aligned, offset)| OtherCopy {
            channel,
            slug,
            aligned,
            offset,
        })
        .collect();
    let answer = Metadata {
        id: v.slug.clone(),
        channel: found.channel.slug.clone(),
        stats: stat,
        copies,
    };
    Ok((out, crate::output::content(&answer)))
}

/// `get_video_metadata`'s structured content (the text has the rest).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Metadata {
    /// The video's id.
    pub id: String,
    /// Its channel's slug.
    pub channel: String,
    /// Its published figures, if any.
    pub stats: Option<archilyzer_core::format::VideoStats>,
    /// Other uploads of the same recording.
    pub copies: Vec<OtherCopy>,
}

/// Another upload of the same recording.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct OtherCopy {
    /// Its channel.
    pub channel: String,
    /// Its id.
    pub slug: String,
    /// Whether both sides were measured aligned (null: never measured):
    /// only then does a timestamp map across.
    pub aligned: Option<bool>,
    /// The measured offset, seconds.
    pub offset: Option<f64>,
}

type Copy = (String, String, Option<bool>, Option<f64>);

/// The other uploads of the same recording, with their alignment verdict
/// against this one (aligned only when both sides were measured aligned).
fn other_copies(site: &Site, channel: &str, slug: &str) -> Result<Vec<Copy>, String> {
    let Some(dups) = site.duplicates().map_err(|e| e.to_string())? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for cluster in &dups.clusters {
        let Some(me) = cluster
            .members
            .iter()
            .find(|m| m.channel == channel && m.slug == slug)
        else {
            continue;
        };
        for m in cluster
            .members
            .iter()
            .filter(|m| !(m.channel == channel && m.slug == slug))
        {
            let aligned = match (me.aligned, m.aligned) {
                (Some(true), Some(true)) => Some(true),
                (None, _) | (_, None) => None,
                _ => Some(false),
            };
            let offset = Some(m.offset.unwrap_or(0.0) - me.offset.unwrap_or(0.0));
            out.push((m.channel.clone(), m.slug.clone(), aligned, offset));
        }
    }
    Ok(out)
}
