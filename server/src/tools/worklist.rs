//! `enumerate_matches`'s worklist, paged to its end.
//!
//! Every call scans the whole scope (keeping only each match's identity
//! and hit count), so the totals on every page are complete. A page lists
//! the rows that fit the size budget from its start; the cursor that
//! continues it names the next row and a fingerprint of the whole list
//! (the arguments that shape it, every row's identity and hit count).
//!
//! Promise: the pages of one worklist, followed cursor by cursor, list
//! every row exactly once, in order; a cursor used after the list changed
//! (the archive was re-exported, or other arguments were given) is
//! refused with a message saying so, never answered with a shifted page.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::tool::str_arg;
use archilyzer_core::collapse::Row;

pub use archilyzer_core::query::VideoKey as Key;

/// The complete worklist of a call.
pub struct List<'a> {
    /// One row per recording (or upload), in archive order.
    rows: &'a [Row],
    /// Hit counts by identity.
    hits: &'a HashMap<Key, usize>,
    /// A short hash of the list and of the arguments that shaped it.
    fingerprint: String,
}

/// Arguments that do not change the list, left out of the fingerprint.
const PRESENTATION: [&str; 3] = ["cursor", "max_chars", "batch_size"];

impl<'a> List<'a> {
    /// The list of `rows` (with their hit counts) that `args` asked for.
    pub fn new(rows: &'a [Row], hits: &'a HashMap<Key, usize>, args: &Map<String, Value>) -> Self {
        let mut list = List {
            rows,
            hits,
            fingerprint: String::new(),
        };
        list.fingerprint = list.fingerprint(args);
        list
    }

    fn hits_of(&self, row: &Row) -> usize {
        self.hits.get(&row.video.key()).copied().unwrap_or(0)
    }

    /// A short hash of the list and of the arguments that shaped it.
    fn fingerprint(&self, args: &Map<String, Value>) -> String {
        let mut text = String::new();
        let mut names: Vec<&String> = args
            .keys()
            .filter(|k| !PRESENTATION.contains(&k.as_str()))
            .collect();
        names.sort();
        for n in names {
            text.push_str(&format!("{n}={}\n", args[n]));
        }
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
    pub fn page(&self, start: usize, room: usize) -> Page {
        let mut lines = Vec::new();
        let mut used = 0;
        for (i, row) in self.rows.iter().enumerate().skip(start) {
            let line = self.line(i, row);
            if used + line.len() > room && !lines.is_empty() {
                break;
            }
            used += line.len();
            lines.push(line);
        }
        Page { start, lines }
    }

    fn line(&self, i: usize, row: &Row) -> String {
        let v = &row.video;
        let also = if row.also.is_empty() {
            String::new()
        } else {
            format!(" · ⧉ also {}", row.also.join(", "))
        };
        format!(
            "{}. {} · {} · {} · {} · {} hit(s){also}\n",
            i + 1,
            v.slug,
            crate::budget::clip(&v.title, 200),
            v.channel,
            v.upload_date.as_deref().unwrap_or("no date"),
            self.hits_of(row),
        )
    }
}

/// Where a call starts: row 0, or the row its `cursor` names when the
/// cursor's fingerprint is this list's.
pub fn start(args: &Map<String, Value>, list: &List) -> Result<usize, String> {
    let Some(cursor) = str_arg(args, "cursor") else {
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
}

impl Page {
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
        (!complete).then(|| {
            format!(
                "⚠ WORKLIST PAGE — rows {}–{} of {}. The totals below are complete; the rows are not: {}\n\n",
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
        if list.rows.is_empty() {
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
    pub fn json(&self, list: &List) -> Vec<Value> {
        list.rows[self.start..self.end()]
            .iter()
            .map(|row| {
                let v = &row.video;
                // The title is in the text's line already.
                json!({"id": v.slug, "channel": v.channel, "site": v.site, "date": v.upload_date, "kind": v.kind, "matches": list.hits_of(row), "also_archived_as": row.also})
            })
            .collect()
    }
}
