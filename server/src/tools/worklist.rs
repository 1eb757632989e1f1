//! `enumerate_matches`: its arguments, the tool, and its worklist, paged
//! to its end.
//!
//! A worklist is made by one scan of the whole scope (keeping only each
//! match's identity and hit count), so its totals are complete. A page
//! lists the rows that fit the size budget from its start; the cursor
//! that continues it names the next row and a fingerprint of the whole
//! list (the arguments that shape it, every row's identity and hit count).
//!
//! A made worklist is kept ([`kept_or_made`], by the rules of
//! [`crate::kept`]) so the cursors that follow it cost no scan; the
//! arguments that shape it are all but the presentation ones.
//!
//! Promise: the pages of one worklist, followed cursor by cursor, list
//! every row exactly once, in order; a cursor used after the list changed
//! (the archive was re-exported, or other arguments were given) is
//! refused with a message saying so, never answered with a shifted page.

use std::collections::HashMap;
use std::sync::Arc;

use archilyzer_core::archive::{Archive, PageTable};
use archilyzer_core::collapse::Counts;
use archilyzer_core::query::{search_each_over, Response};
use archilyzer_core::source::SourceHandle;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::FindOptions;
use super::search::{self, ScanNotes};
use crate::budget;
use crate::context::Context;
use crate::kept::Store;
use crate::tool::{Progress, Tick, ToolResult};
use archilyzer_core::collapse::Row;

/// `enumerate_matches`' arguments.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EnumerateArgs {
    /// Words to find (a phrase of whole words; a final * makes the last a
    /// prefix), or a regex with regex:true.
    pub query: String,
    /// How the query is found, and the filters.
    #[serde(flatten)]
    pub find: FindOptions,
    /// Videos per batch for the batch count (default 12).
    #[schemars(range(min = 1, max = 50))]
    #[serde(default = "twelve", skip_serializing)]
    pub batch_size: usize,
    /// Continue the worklist: the next_cursor the previous page gave
    /// (with the same arguments).
    #[serde(default, skip_serializing)]
    pub cursor: Option<String>,
}

fn twelve() -> usize {
    12
}

/// A page of `enumerate_matches`' worklist.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct WorklistPage {
    /// The complete counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// The number of this page's first row (1 for the first).
    pub first_row: usize,
    /// The rows of this page.
    pub videos: Vec<RowEntry>,
    /// Pass it back as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
    /// Pages read for this page (0 when the list was kept).
    pub pages_read: usize,
    /// What the index did.
    pub index: String,
    /// The channel of every row, when they share one (the rows then
    /// leave it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// On the first page only (the call without cursor): the batches and
    /// what the scan said.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub first: Option<FirstPage>,
}

/// What a worklist's first page says once.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct FirstPage {
    /// Rows per batch of a sweep.
    pub batch_size: usize,
    /// Batches in the whole list.
    pub batches: usize,
    /// What the scan said.
    #[serde(flatten)]
    pub scan: ScanNotes,
}

/// The `enumerate_matches` tool.
pub fn enumerate_matches(
    ctx: &Context,
    handle: &SourceHandle,
    args: &EnumerateArgs,
    budget: usize,
    progress: Progress,
) -> ToolResult {
    let sources = &ctx.sources;
    let archive = sources.archive(handle)?;
    let (made, kept) = kept_or_made(&ctx.kept.worklists, &archive, args, |table| {
        make_worklist(
            &archive,
            table,
            sources.index_dir(handle).as_deref(),
            args,
            progress,
        )
    })?;
    let (r, rows) = (&made.response, &made.rows);
    let list = List::new(rows, &made.hits, args, budget, archive.sites().len());
    let start = start(args.cursor.as_deref(), &list)?;
    let batch = args.batch_size.max(1);
    let batches = rows.len().div_ceil(batch);
    // The notes are the list's, not the page's: said on the first page
    // only, so the pages that follow fill their budget with rows.
    let first = start == 0;
    let tail = if first {
        let mut tail = String::from("\n---\n");
        tail.extend(made.collapsed.iter().map(|c| format!("{c}\n")));
        tail.push_str(&archilyzer_core::report::footer(r).join("\n"));
        tail
    } else {
        let read = if kept {
            "no page read (list kept"
        } else {
            "scanned again (list not kept: the archive changed or was re-read"
        };
        format!("\n---\n{read}); notes on page 1")
    };
    let counts = Counts::of(rows, |v| made.hits[&v.key()]);
    let label = format!("{:?}", args.query);
    let channel = list
        .channel_note()
        .map_or(String::new(), |c| format!("; {c}"));
    let batches_note = if first {
        format!("; {batches} batch(es) of {batch}")
    } else {
        String::new()
    };
    let head = format!("{}{batches_note}{channel}\n", counts.headline(&label));
    let opening = if first {
        search::first_lines(&archive, r)
    } else {
        String::new()
    };
    let render = |page: &Page| {
        let mut out = opening.clone();
        out.push_str(&head);
        if let Some(warning) = page.warning(&list) {
            out.push_str(&warning);
        }
        out.push_str(&page.range_line(&list));
        out.push_str(&page.lines.concat());
        out.push_str(&tail);
        out.push_str(&format!("\n{}", page.next_line(&list)));
        let structured = WorklistPage {
            counts: counts.clone(),
            first_row: start + 1,
            videos: page.json(),
            next_cursor: page.next_cursor(&list),
            pages_read: if kept { 0 } else { r.pages_read },
            // Why the index was not used is said once, on page 1.
            index: if first {
                r.index.describe()
            } else {
                r.index.brief()
            },
            channel: list.one_channel().map(str::to_string),
            first: first.then(|| FirstPage {
                batch_size: batch,
                batches,
                scan: ScanNotes::of(r, &made.collapsed),
            }),
        };
        let structured = crate::output::content(&structured);
        (out, structured)
    };
    // What a page holds besides its rows, measured on a page of none
    // (plus room for the digits of the row numbers its ranges and cursor
    // name, one more in each of five places at most).
    let budget = budget::of_answer(budget, archive.handle());
    let (text, structured) = render(&Page::none(start));
    let fixed = budget::size(&text, &structured) + 5;
    Ok(budget::fit_whole(budget, |room| {
        let rows_room = room.saturating_sub(fixed);
        render(&list.page(start, rows_room))
    }))
}

/// The worklist of `args`: one scan of the whole scope, no cap on
/// matching videos, and only each video's hit count kept, so memory stays
/// small however many match.
fn make_worklist(
    archive: &Archive,
    table: &PageTable,
    index: Option<&std::path::Path>,
    args: &EnumerateArgs,
    progress: Progress,
) -> Result<Made, String> {
    let mut request = search::request(&args.query, &args.find);
    request.max_videos = None;
    let mut videos = Vec::new();
    let mut hits = HashMap::new();
    let mut r = search_each_over(
        archive,
        table,
        index,
        &request,
        &mut |v| {
            hits.insert(v.key(), v.hits.len());
            videos.push(v.without_hits());
        },
        &mut |done, total| progress(Tick::pages(done, total)),
    )
    .map_err(|e| e.to_string())?;
    r.videos = videos;
    let (rows, collapsed) = search::rows(archive, &mut r, args.find.collapse_duplicates);
    search::recount(&mut r, &rows, |v| hits[&v.key()]);
    Ok(Made {
        response: r,
        rows,
        collapsed,
        hits,
    })
}

pub use archilyzer_core::query::VideoKey as Key;

/// The complete worklist of a call.
pub struct List<'a> {
    /// One row per recording (or upload), in archive order.
    rows: &'a [Row],
    /// Hit counts by identity.
    hits: &'a HashMap<Key, usize>,
    /// A short hash of the list and of the arguments that shaped it.
    fingerprint: String,
    /// Sites in the archive (a row names its site only when several).
    sites: usize,
    /// The channel of every row, when they share one: named once in the
    /// head, not on each row's line.
    one_channel: Option<&'a str>,
    /// The most characters of a title a row's line shows.
    title_chars: usize,
}

/// What one scan found for a worklist.
pub struct Made {
    /// The engine's answer, its videos moved into `rows`.
    pub response: Response,
    /// One row per recording (or upload), in archive order.
    pub rows: Vec<Row>,
    /// The line saying which mirrors were folded, if any.
    pub collapsed: Option<String>,
    /// Hit counts by identity.
    pub hits: HashMap<Key, usize>,
}

impl Made {
    /// About how many bytes it holds.
    fn bytes(&self) -> usize {
        self.rows.len() * 512
    }
}

/// The worklist `args` asks of `archive`: the kept one when a call with
/// the same arguments made it on this archive, unchanged since; else
/// `make`'s. The flag says whether it was kept.
pub fn kept_or_made(
    store: &Store,
    archive: &Arc<Archive>,
    args: &EnumerateArgs,
    make: impl FnOnce(&PageTable) -> Result<Made, String>,
) -> Result<(Arc<Made>, bool), String> {
    store.kept_or_made(archive, &arguments_text(args), |table| {
        make(table).map(|made| {
            let bytes = made.bytes();
            (made, bytes)
        })
    })
}

/// The arguments that shape a list, as text, by name in sorted order (so
/// the order the types declare them in does not matter). What only
/// presents it (the cursor, the batch size, the budget) is not
/// serialised, so it is not in the fingerprint.
fn arguments_text(args: &EnumerateArgs) -> String {
    let sorted = serde_json::to_value(args).unwrap_or_default();
    let mut text = sorted.to_string();
    text.push('\n');
    text
}

impl<'a> List<'a> {
    /// The list of `rows` (with their hit counts) that `args` asked for.
    pub fn new(
        rows: &'a [Row],
        hits: &'a HashMap<Key, usize>,
        args: &EnumerateArgs,
        budget: usize,
        sites: usize,
    ) -> Self {
        let first = rows.first().map(|r| r.video.channel.as_str());
        let one_channel = first.filter(|c| rows.iter().all(|r| r.video.channel == *c));
        let mut list = List {
            rows,
            hits,
            fingerprint: String::new(),
            sites,
            one_channel,
            title_chars: title_chars(budget),
        };
        list.fingerprint = list.fingerprint(args);
        list
    }

    /// What the head says of the rows' channel when they share one.
    pub fn channel_note(&self) -> Option<String> {
        self.one_channel.map(|c| format!("all in channel {c}"))
    }

    /// The channel every row is in, when they share one.
    pub fn one_channel(&self) -> Option<&str> {
        self.one_channel
    }

    fn hits_of(&self, row: &Row) -> usize {
        self.hits.get(&row.video.key()).copied().unwrap_or(0)
    }

    /// A short hash of the list and of the arguments that shaped it.
    fn fingerprint(&self, args: &EnumerateArgs) -> String {
        let mut text = arguments_text(args);
        for row in self.rows {
            let v = &row.video;
            text.push_str(&format!(
                "{}/{}/{}/{}:{}\n",
                v.site,
                v.channel,
                v.slug,
                v.kind,
                self.hits_of(row)
            ));
        }
        archilyzer_core::source::sha256_hex(text.as_bytes())[..12].to_string()
    }

    /// The rows from `start` that fit in `room` characters (at least one,
    /// so a page always moves the list on).
    /// Each row costs its text line and its structured entry, both
    /// counted as a client counts them.
    pub fn page(&self, start: usize, room: usize) -> Page {
        let (mut lines, mut json) = (Vec::new(), Vec::new());
        let mut used = 0;
        for (i, row) in self.rows.iter().enumerate().skip(start) {
            let line = self.line(i, row);
            let entry = self.entry(row);
            let sent = crate::output::content(&entry);
            let cost = line.chars().count() + crate::budget::structured_len(&sent) + 1;
            if used + cost > room && !lines.is_empty() {
                break;
            }
            used += cost;
            lines.push(line);
            json.push(entry);
        }
        Page { start, lines, json }
    }

    /// A listed row for `structuredContent`: what identifies it and its
    /// count (the title is in the text's line); the channel only when the
    /// rows do not share one (else it is the page's `channel`), the kind
    /// only when it is not a video, the site only in an archive of
    /// several, the mirrors only when there are some.
    fn entry(&self, row: &Row) -> RowEntry {
        let v = &row.video;
        RowEntry {
            id: v.slug.clone(),
            matches: self.hits_of(row),
            channel: self.one_channel.is_none().then(|| v.channel.clone()),
            date: v.upload_date.clone(),
            kind: (v.kind != "video").then(|| v.kind.to_string()),
            site: (self.sites > 1).then(|| v.site.clone()),
            also_archived_as: row.also.clone(),
        }
    }

    fn line(&self, i: usize, row: &Row) -> String {
        let v = &row.video;
        let also = if row.also.is_empty() {
            String::new()
        } else {
            format!(" · ⧉ also {}", row.also.join(", "))
        };
        let date = v
            .upload_date
            .as_deref()
            .map_or(String::new(), |d| format!(" · {d}"));
        let channel = match self.one_channel {
            Some(_) => String::new(),
            None => format!(" · {}", v.channel),
        };
        format!(
            "{}. {} · {}{channel}{date} · {} hit(s){also}\n",
            i + 1,
            v.slug,
            crate::budget::clip(&v.title, self.title_chars),
            self.hits_of(row),
        )
    }
}

/// The most characters of a title a row shows at `budget`: a 55th of
/// it, between 36 and 120, so a page of the smallest budget still lists
/// a dozen rows (the whole title is in `get_transcript`'s header).
fn title_chars(budget: usize) -> usize {
    (budget / 55).clamp(36, 120)
}

/// Where a call starts: row 0, or the row its `cursor` names when the
/// cursor's fingerprint is this list's.
pub fn start(cursor: Option<&str>, list: &List) -> Result<usize, String> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    let parsed = cursor
        .split_once('-')
        .and_then(|(n, fp)| Some((n.parse::<usize>().ok()?, fp)));
    let Some((row, fp)) = parsed else {
        return Err(format!(
            "cursor {cursor:?} is not one enumerate_matches gave: pass the next_cursor of the previous page unchanged, or omit cursor to start at the first row"
        ));
    };
    if fp != list.fingerprint || row > list.rows.len() {
        return Err(format!(
            "cursor {cursor:?} belongs to another worklist: the archive changed since it was made, or the arguments differ from those of the page that gave it. Omit cursor to start the worklist again ({} row(s) now)",
            list.rows.len()
        ));
    }
    Ok(row)
}

/// One page of a worklist.
pub struct Page {
    start: usize,
    /// The rows' lines.
    pub lines: Vec<String>,
    /// The rows' structured entries.
    json: Vec<RowEntry>,
}

/// One row of a worklist page, as its structured content holds it.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct RowEntry {
    /// The video's (or post's) id.
    pub id: String,
    /// Its confirmed hits.
    pub matches: usize,
    /// Its channel; absent when every row is in the page's `channel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Its upload date, `YYYYMMDD`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// `post`; absent for a video.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its site, in an archive of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Other uploads of the same recording folded into this row.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_archived_as: Vec<String>,
}

impl Page {
    /// A page of no rows from `start`: what a page costs besides its rows.
    pub fn none(start: usize) -> Page {
        Page {
            start,
            lines: Vec::new(),
            json: Vec::new(),
        }
    }

    fn end(&self) -> usize {
        self.start + self.lines.len()
    }

    /// The cursor of the next page; `None` on the last.
    pub fn next_cursor(&self, list: &List) -> Option<String> {
        (self.end() < list.rows.len()).then(|| format!("{}-{}", self.end(), list.fingerprint))
    }

    /// The warning a page that is not the whole list opens with.
    pub fn warning(&self, list: &List) -> Option<String> {
        let complete = self.start == 0 && self.end() == list.rows.len();
        if self.start > 0 {
            return Some(format!(
                "⚠ WORKLIST PAGE — rows {}–{} of {} (totals complete)\n",
                self.start + 1,
                self.end(),
                list.rows.len()
            ));
        }
        (!complete).then(|| {
            format!(
                "⚠ WORKLIST PAGE — rows {}–{} of {}. The totals above are complete; the rows are not: {}\n\n",
                self.start + 1,
                self.end(),
                list.rows.len(),
                match self.next_cursor(list) {
                    Some(c) => format!("continue with cursor {c:?} (same arguments) until no cursor is given."),
                    None => "this is the last page.".to_string(),
                }
            )
        })
    }

    /// The line that says which rows are listed.
    pub fn range_line(&self, list: &List) -> String {
        if list.rows.is_empty() || self.warning(list).is_some() {
            return "\n".into();
        }
        format!(
            "rows {}–{} of {}\n\n",
            self.start + 1,
            self.end(),
            list.rows.len()
        )
    }

    /// The closing line: how to get the next page, or that the list ends.
    pub fn next_line(&self, list: &List) -> String {
        match self.next_cursor(list) {
            Some(c) if self.start > 0 => format!(
                "next page: same arguments, cursor {c:?} (rows {}–{} remain)",
                self.end() + 1,
                list.rows.len()
            ),
            Some(c) => format!(
                "next page: call enumerate_matches again with the same arguments and cursor: {c:?} (rows {}–{} remain)",
                self.end() + 1,
                list.rows.len()
            ),
            None if self.start == 0 => "the worklist is complete on this page".to_string(),
            None => format!(
                "the worklist ends here: rows 1–{} have been listed across pages",
                list.rows.len()
            ),
        }
    }

    /// The listed rows for `structuredContent`.
    pub fn json(&self) -> Vec<RowEntry> {
        self.json.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprinted_arguments_do_not_depend_on_the_order_their_types_declare_them() {
        let args: EnumerateArgs = serde_json::from_value(serde_json::json!({
            "query": "cup", "fuzzy": 1, "channels": ["a"], "regex": false, "cursor": "1-x"
        }))
        .unwrap();
        let text = arguments_text(&args);
        let keys: Vec<&str> = text
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|k| ["channels", "fuzzy", "query", "regex"].contains(k))
            .collect();
        assert_eq!(keys, ["channels", "fuzzy", "query", "regex"], "{text}");
        assert!(
            !text.contains("cursor"),
            "presentation is not fingerprinted: {text}"
        );
    }
}
