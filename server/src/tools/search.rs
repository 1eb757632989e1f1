//! `search_transcripts`: the request every search tool builds from the
//! shared filter arguments, one engine call, and its rendering
//! (`enumerate_matches`, which pages a complete list, is in
//! [`super::worklist`]).
//!
//! Paging materialises the whole match set and then slices it, so a page
//! that is not the whole set is headed by an INCOMPLETE PAGE warning; the
//! footer says what was searched, what the index did, what was not
//! recognised, and whether coverage is PARTIAL.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::args::FindOptions;

use crate::budget;
use crate::context::Context;
use crate::sources::Sources;
use crate::tool::{Progress, Tick, ToolResult};
use archilyzer_core::archive::{Archive, PageTable};
use archilyzer_core::collapse::{self, collapse, Counts, Row};
use archilyzer_core::format::SiteScope;
use archilyzer_core::links::LinkTarget;
use archilyzer_core::query::order::Order;
use archilyzer_core::query::{
    search_each_over, AlsoHeard, Coverage, Expansion, PageCap, Request, Response, Scope,
    VideoResult,
};
use archilyzer_core::report;
use archilyzer_core::source::SourceHandle;

/// Default scan cap, in pages.
pub const DEFAULT_MAX_PAGES: usize = 400;
/// A scan stops after the page where this many videos have matched.
pub const MAX_VIDEOS: usize = 2000;

/// `search_transcripts`' arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to find (a phrase of whole words; a final * makes the last a
    /// prefix), or a regex with regex:true.
    pub query: String,
    /// How the query is found, and the filters.
    #[serde(flatten)]
    pub find: FindOptions,
    /// The page of results.
    #[serde(flatten)]
    pub page: PageArgs,
}

/// Which page of a result, and how it is shown: `search_transcripts`'
/// and `open_link`'s.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PageArgs {
    /// Videos per page.
    #[schemars(range(min = 1, max = 200))]
    #[serde(default = "twenty")]
    pub limit: usize,
    /// Result order (default relevance); the whole set is ordered before
    /// paging.
    #[serde(default)]
    pub order: Option<Order>,
    /// Skip this many matching videos.
    #[serde(default)]
    pub offset: usize,
    /// false: a cheap worklist without cue text.
    #[serde(default = "super::args::yes")]
    pub include_snippets: bool,
    /// How lines link to their moments.
    #[serde(default)]
    pub link_style: LinkStyle,
}

/// How a page's lines link to their moments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkStyle {
    /// A link on every line.
    #[default]
    Inline,
    /// One moment_base line per video, and [mm:ss|seconds] stamps.
    Base,
}

fn twenty() -> usize {
    20
}

/// The engine request for `query` found as `find` says: the core's
/// ([`archilyzer_core::query::Find::request`]), with this tool's caps on
/// pages and videos.
pub fn request(query: &str, find: &FindOptions) -> Request {
    let cap = PageCap {
        max_pages: Some(find.cap.max_pages.unwrap_or(DEFAULT_MAX_PAGES)),
    };
    Request {
        max_videos: Some(MAX_VIDEOS),
        ..find.find.request(query, cap)
    }
}

fn run(
    sources: &Sources,
    handle: &SourceHandle,
    archive: &Archive,
    table: &PageTable,
    request: &Request,
    progress: Progress,
) -> Result<Response, String> {
    let index = sources.index_dir(handle);
    let mut videos = Vec::new();
    let mut response = search_each_over(
        archive,
        table,
        index.as_deref(),
        request,
        &mut |v| videos.push(v),
        &mut |done, total| progress(Tick::pages(done, total)),
    )?;
    response.videos = videos;
    Ok(response)
}

/// A search's result, ready to page: its rows (mirrors folded unless the
/// call said not to), what folding did, and the rows' counts (the
/// response's hit totals set to them).
pub struct Found {
    r: Response,
    rows: Vec<Row>,
    collapsed: Option<String>,
    counts: Counts,
}

impl Found {
    /// The result of `r`, its videos folded into rows when `fold` says.
    pub fn of(archive: &Archive, r: Response, fold: bool) -> Found {
        let mut r = noting_cap_remedy(r);
        let (rows, collapsed) = rows(archive, &mut r, fold);
        let counts = recount(&mut r, &rows, |v| v.hits.len());
        Found {
            r,
            rows,
            collapsed,
            counts,
        }
    }

    /// About how many bytes it holds.
    fn bytes(&self) -> usize {
        let hit = |h: &archilyzer_core::query::Hit| 96 + h.text.len();
        self.rows
            .iter()
            .map(|row| 512 + row.video.hits.iter().map(hit).sum::<usize>())
            .sum()
    }
}

/// What to do when the result cap stopped the scan: the engine's note
/// says that it did; the tool to call instead is this front end's word.
const CAP_REMEDY: &str = "enumerate_matches lists every match without the result cap";

/// `r`, its notes ending with [`CAP_REMEDY`] when the result cap stopped
/// its scan (so the footer and the structured notes both carry it).
fn noting_cap_remedy(mut r: Response) -> Response {
    if r.stopped_at_cap {
        r.notes.push(CAP_REMEDY.to_string());
    }
    r
}

/// The first line of any search of a corpus whose every site publishes
/// reports only: an empty answer there means nothing could match, not
/// that nothing was said.
fn nothing_to_search(archive: &Archive) -> Option<&'static str> {
    archive
        .sites()
        .iter()
        .all(|s| s.corpus().site.scope == SiteScope::Cited)
        .then_some("⚠ NOTHING TO SEARCH: this corpus publishes reports only (cited-only), so no search can match here. Use list_reports, then get_report.\n\n")
}

/// What a search result says before anything else, so an agent cannot
/// miss it: that the corpus has nothing to search, or that not every page
/// in scope was read (the same wording the footer repeats).
pub(crate) fn first_lines(archive: &Archive, r: &Response) -> String {
    let mut out = nothing_to_search(archive).unwrap_or_default().to_string();
    if let Some(partial) = r.coverage.describe() {
        out.push_str(&format!("⚠ {partial}\n\n"));
    }
    out
}

/// One video's block of a search result: its head (title, facts,
/// links) and one line per hit, each hit's text clipped to
/// [`budget::MAX_HIT_CHARS`].
struct Block {
    head: String,
    hits: Vec<String>,
}

fn block(n: usize, archive: &Archive, row: &Row, snippets: bool, base_style: bool) -> Block {
    let v = &row.video;
    let mut head = format!(
        "## {n}. {}\n- id: {} · channel: {} · {}\n",
        v.title,
        v.slug,
        v.channel,
        report::video_facts(v, v.hits.len())
    );
    if let Some(w) = v.caption_warning() {
        head.push_str(&format!("- {w}\n"));
    }
    if !row.also.is_empty() {
        head.push_str(&format!(
            "- ⧉ same recording also archived as: {}\n",
            row.also.join(", ")
        ));
    }
    if !snippets {
        return Block {
            head,
            hits: Vec::new(),
        };
    }
    let t = LinkTarget::of(archive, v);
    if let Some(url) = &v.url {
        head.push_str(&format!("- source: {url}\n"));
    }
    let base = if base_style { t.base() } else { None };
    if let Some(b) = &base {
        head.push_str(&format!("- moment_base: {b}\n"));
    }
    let hits = v
        .hits
        .iter()
        .map(|h| {
            let place = report::hit_place(h);
            let stamp = match (h.scope, h.start) {
                (Scope::Transcripts | Scope::Chat, Some(s)) if base.is_some() => {
                    format!("[{place}|{}]", s.floor() as u64)
                }
                (Scope::Transcripts | Scope::Chat, Some(s)) => match t.moment(s) {
                    Some(link) => format!("[{place}]({link})"),
                    None => format!("[{place}]"),
                },
                _ => format!("[{place}]"),
            };
            let text = budget::clip(&h.labelled_text(), budget::MAX_HIT_CHARS);
            format!("- {stamp} {text}\n")
        })
        .collect();
    Block { head, hits }
}

/// The line under a video whose hits did not all fit.
fn more_hits(v: &VideoResult, shown: usize, label: &str) -> String {
    format!(
        "- … {} more hit(s) in this video not shown (size budget): get_transcripts with video_ids [{:?}] and query {label} shows every one in context\n",
        v.hits.len() - shown,
        v.slug
    )
}

/// The result rows: recordings (mirrors folded) unless `fold` is false
/// (`collapse_duplicates:false`), and the line that says what was folded.
pub(super) fn rows(archive: &Archive, r: &mut Response, fold: bool) -> (Vec<Row>, Option<String>) {
    let videos = std::mem::take(&mut r.videos);
    if !fold {
        return (
            videos
                .into_iter()
                .map(|video| Row {
                    video,
                    also: Vec::new(),
                })
                .collect(),
            None,
        );
    }
    let c = collapse(archive, videos);
    let note = collapse::note(
        c.mirrors,
        c.clusters,
        c.rows.len(),
        "collapse_duplicates:false",
    );
    (c.rows, note)
}

/// The counts of the rows listed, and the response's hit totals set to
/// them: a recording's mirrors fold into one row, so its speech counts
/// once (the hits of the upload kept), and the rows' hits add up to the
/// headline (what `mention_trend` counts).
pub(super) fn recount(
    r: &mut Response,
    rows: &[Row],
    hits: impl Fn(&VideoResult) -> usize,
) -> Counts {
    let counts = Counts::of(rows, hits);
    r.total_hits = counts.total_hits;
    r.exact.hits = counts.exact.hits;
    counts
}

/// A listed video of a page, as its structured content holds it: the
/// video's facts and counts, and where each shown hit is (field, unit,
/// time, author); the hits' words are in the text already, so they are
/// left out here.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Listed {
    /// The video, with the hits the text shows (their words left out).
    #[serde(flatten)]
    pub video: VideoResult,
    /// Its hits in all, shown or not.
    pub hits_total: usize,
    /// Other uploads of the same recording folded into this row.
    pub also_archived_as: Vec<String>,
}

/// `row` with its first `hits` hits, their words left out.
fn listed(row: &Row, hits: usize) -> Listed {
    let mut video = row.video.clone();
    video.hits.truncate(hits);
    video.hits.iter_mut().for_each(|h| h.text.clear());
    Listed {
        video,
        hits_total: row.video.hits.len(),
        also_archived_as: row.also.clone(),
    }
}

/// What a scan says beside its rows: on every search page, and on the
/// first page of a worklist.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct ScanNotes {
    /// Matches a date filter left out for having no upload date.
    pub undated_left_out: usize,
    /// Other spellings of the query's words the vocabulary holds.
    pub also_heard: Vec<AlsoHeard>,
    /// With `fuzzy`: each variant searched, with its own counts.
    pub fuzzy: Vec<Expansion>,
    /// What folding mirrors did, when it folded any.
    pub collapsed: Option<String>,
    /// What the notes say that no other field carries.
    pub notes: Vec<String>,
    /// Which channels were read, partly read, never reached.
    pub coverage: Coverage,
    /// Pages that could not be read, with why.
    pub unreadable: Vec<String>,
}

impl ScanNotes {
    pub(super) fn of(r: &Response, collapsed: &Option<String>) -> ScanNotes {
        ScanNotes {
            undated_left_out: r.undated_left_out,
            also_heard: r.also_heard.clone(),
            fuzzy: r.fuzzy.clone(),
            collapsed: collapsed.clone(),
            notes: r
                .notes_besides_fields()
                .into_iter()
                .map(str::to_string)
                .collect(),
            coverage: r.coverage.clone(),
            unreadable: r.unreadable.clone(),
        }
    }
}

/// A page of `search_transcripts` (and of `open_link`'s results).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct SearchPage {
    /// The complete counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// The rows skipped before this page.
    pub offset: usize,
    /// More rows follow this page.
    pub has_more: bool,
    /// Hit lines shown per listed video (absent without snippets).
    pub hits_shown_per_video: Option<usize>,
    /// How the rows are ordered.
    pub order: String,
    /// The rows of this page.
    pub videos: Vec<Listed>,
    /// Pages read to answer.
    pub pages_read: usize,
    /// Pages in scope.
    pub pages_total: usize,
    /// What the index did.
    pub index: String,
    /// What the scan said.
    #[serde(flatten)]
    pub scan: ScanNotes,
}

/// The `search_transcripts` tool.
pub fn search_transcripts(
    ctx: &Context,
    handle: &SourceHandle,
    args: &SearchArgs,
    budget: usize,
    progress: Progress,
) -> ToolResult {
    let sources = &ctx.sources;
    let archive = sources.archive(handle)?;
    // The arguments are read once, here: what to find, then how to show it.
    let request = request(&args.query, &args.find);
    let collapse = args.find.collapse_duplicates;
    let label = format!("{:?}", args.query);
    let shown = Shown {
        page: &args.page,
        budget,
        default_order: Order::Relevance,
    };
    let searches = &ctx.kept.searches;
    let (found, kept) = searches.kept_or_made(&archive, &shape(&request, collapse), |table| {
        let r = run(sources, handle, &archive, table, &request, progress)?;
        let found = Found::of(&archive, r, collapse);
        let bytes = found.bytes();
        Ok::<_, String>((found, bytes))
    })?;
    Ok(render_page(&archive, &found, kept, &shown, &label))
}

/// What decides a search's result: the engine request and whether
/// mirrors fold (not the page asked, nor how it is shown).
fn shape(request: &Request, collapse: bool) -> String {
    let request = serde_json::to_string(request).unwrap_or_default();
    format!("search_transcripts\n{request}\ncollapse={collapse}")
}

/// How a page of a result is shown: which page, the call's budget,
/// and the order when the page names none.
pub struct Shown<'a> {
    /// Which page, and how its lines link.
    pub page: &'a PageArgs,
    /// The call's size budget, in characters.
    pub budget: usize,
    /// The order when the page names none.
    pub default_order: Order,
}

/// One page of a result, as `shown` says, headed by a warning when it is
/// not the whole set; `label` names what was searched, `kept` says the
/// result was kept from an earlier call (so no page was read for this
/// one).
pub fn render_page(
    archive: &Archive,
    found: &Found,
    kept: bool,
    shown: &Shown,
    label: &str,
) -> (String, Value) {
    let order = shown.page.order.unwrap_or(shown.default_order);
    let rows = arranged(archive, &found.rows, order);
    let (limit, offset) = (shown.page.limit, shown.page.offset);
    let snippets = shown.page.include_snippets;
    let base_style = shown.page.link_style == LinkStyle::Base;
    let blocks: Vec<Block> = rows
        .iter()
        .skip(offset)
        .take(limit)
        .enumerate()
        .map(|(i, row)| block(offset + i + 1, archive, row, snippets, base_style))
        .collect();
    let order_line = order.describe_for(rows.iter().map(|r| &r.video));
    let mut tail = format!("{order_line}\n");
    tail.extend(found.collapsed.iter().map(|c| format!("{c}\n")));
    tail.push_str(&report::footer(&found.r).join("\n"));
    if kept {
        tail.push_str(KEPT_LINE);
    }
    let page = Page {
        archive,
        counts: found.counts.clone(),
        r: &found.r,
        pages_read: if kept { 0 } else { found.r.pages_read },
        rows: &rows,
        blocks: &blocks,
        label,
        tail: &tail,
        order_line: &order_line,
        collapsed: &found.collapsed,
        limit,
        offset,
        snippets,
    };
    budget::fit_whole(budget::of_answer(shown.budget, archive.handle()), |room| {
        page.render(room)
    })
}

/// What a page of a kept result says of the pages it read.
const KEPT_LINE: &str =
    "\nno page read for this page: the result of the same search on the unchanged archive was kept";

/// One page of a search result, before it is fitted to its budget.
struct Page<'a> {
    archive: &'a Archive,
    counts: Counts,
    r: &'a Response,
    pages_read: usize,
    rows: &'a [&'a Row],
    blocks: &'a [Block],
    label: &'a str,
    tail: &'a str,
    order_line: &'a str,
    collapsed: &'a Option<String>,
    limit: usize,
    offset: usize,
    snippets: bool,
}

impl Page<'_> {
    /// The text and structured result when the text may take `room`
    /// characters.
    fn render(&self, room: usize) -> (String, Value) {
        let (r, label, offset, limit) = (self.r, self.label, self.offset, self.limit);
        let total = self.rows.len();
        let mut fit = fit_blocks(
            self.blocks,
            room,
            first_lines(self.archive, r).len() + self.tail.len(),
        );
        // A page lists one row at least while rows remain, so paging by
        // the offset it names always advances.
        if fit.videos == 0 && !self.blocks.is_empty() {
            fit = Fit {
                videos: 1,
                hits_each: 0,
            };
        }
        let shown: Vec<&Row> = self
            .rows
            .iter()
            .copied()
            .skip(offset)
            .take(fit.videos)
            .collect();
        // The exact count first (after a warning that qualifies every
        // count), then what this page is of it.
        let mut out = first_lines(self.archive, r);
        out.push_str(&format!("{}\n\n", self.counts.headline(label)));
        if total > 0 && offset >= total {
            let last = (total - 1) / limit.max(1) * limit.max(1);
            out.push_str(&format!(
                "⚠ offset {offset} is past the end: there are {total} video(s) in all, so the last page of {limit} starts at offset {last}.\n\n"
            ));
        } else if !(offset == 0 && shown.len() == total) {
            out.push_str(&format!(
                "⚠ INCOMPLETE PAGE — showing videos {}–{} of the {total} counted above. Do NOT report a count from this page; use enumerate_matches to cover everything.\n\n",
                offset + 1,
                offset + shown.len()
            ));
        }
        for (row, b) in shown.iter().zip(self.blocks) {
            out.push_str(&b.head);
            for line in b.hits.iter().take(fit.hits_each) {
                out.push_str(line);
            }
            if b.hits.len() > fit.hits_each {
                out.push_str(&more_hits(&row.video, fit.hits_each, label));
            }
        }
        let has_more = offset + shown.len() < total;
        out.push_str(&format!("\n---\ntotal: {total} · has_more: {has_more}\n"));
        if shown.len() < limit.min(total.saturating_sub(offset)) {
            out.push_str(&format!(
                "size budget: listed {} video(s) of the {limit} asked; the next page starts at offset {}\n",
                shown.len(),
                offset + shown.len()
            ));
        }
        out.push_str(self.tail);
        let structured = SearchPage {
            counts: self.counts.clone(),
            offset,
            has_more,
            hits_shown_per_video: self.snippets.then_some(fit.hits_each),
            order: self.order_line.to_string(),
            videos: shown.iter().map(|row| listed(row, fit.hits_each)).collect(),
            pages_read: self.pages_read,
            pages_total: r.pages_total,
            index: r.index.describe(),
            scan: ScanNotes::of(r, self.collapsed),
        };
        let structured = crate::output::content(&structured);
        (out, structured)
    }
}

/// The rows in `order` (the whole set, before paging, so every page of
/// `offset` paging agrees).
fn arranged<'a>(archive: &Archive, rows: &'a [Row], order: Order) -> Vec<&'a Row> {
    let archive_videos = archive.video_count();
    let refs: Vec<&VideoResult> = rows.iter().map(|r| &r.video).collect();
    let positions = order.arrange(&refs, archive_videos);
    positions.into_iter().map(|i| &rows[i]).collect()
}

/// How much of a page of blocks fits a budget.
struct Fit {
    /// Blocks shown (a prefix).
    videos: usize,
    /// Hit lines shown per block.
    hits_each: usize,
}

/// The blocks that fit in `budget` beside `fixed` characters of head and
/// footer: every head, if they fit (else the heads that do), and then the
/// same number of hit lines for each.
fn fit_blocks(blocks: &[Block], budget: usize, fixed: usize) -> Fit {
    const MORE_LINE: usize = 220;
    // The structured rows are not counted here: `fit_whole` shrinks the
    // room by what the whole answer overflows.
    let mut room = budget.saturating_sub(fixed);
    let mut videos = 0;
    for b in blocks {
        let more = if b.hits.is_empty() { 0 } else { MORE_LINE };
        let cost = b.head.len() + more;
        if cost > room {
            break;
        }
        room -= cost;
        videos += 1;
    }
    let lens: Vec<Vec<usize>> = blocks[..videos]
        .iter()
        .map(|b| b.hits.iter().map(String::len).collect())
        .collect();
    Fit {
        videos,
        hits_each: budget::lines_each(&lens, room),
    }
}

#[cfg(test)]
mod tests {
    use super::super::worklist::EnumerateArgs;
    use super::*;
    use archilyzer_core::index::IndexStatus;
    use archilyzer_core::query::Coverage;

    fn response() -> Response {
        Response {
            source: "local:/x".into(),
            videos: vec![],
            total_videos: 0,
            total_hits: 0,
            exact: Default::default(),
            undated_left_out: 0,
            also_heard: vec![],
            fuzzy: vec![],
            pages_read: 3,
            stopped_at_cap: false,
            pages_planned: 9,
            pages_total: 10,
            bytes_read: 2_500_000,
            index: IndexStatus::PartlyStale {
                unvouched: 2,
                pages: 10,
            },
            notes: vec!["unrecognised state \"delted\" (valid: available)".into()],
            unreadable: vec!["x/page-0002.json: not valid archive JSON: EOF".into()],
            coverage: Coverage {
                partial: true,
                scanned: vec!["a".into()],
                partly: vec![],
                unreached: vec!["b".into(), "c".into()],
            },
        }
    }

    #[test]
    fn the_footer_says_what_was_read_what_was_not_and_why() {
        let lines = report::footer(&response());
        assert_eq!(lines[0], "searched 3 of 10 page(s) (2.5 MB); index: partly stale, 2 of 10 page(s) changed or new since the build and read in full");
        assert_eq!(lines[1], "unrecognised state \"delted\" (valid: available)");
        assert_eq!(
            lines[2],
            "coverage: PARTIAL — fully scanned: a; partly scanned: none; never reached: b, c. Re-run scoped to the rest."
        );
        assert_eq!(
            lines[3],
            "UNREADABLE (not searched): x/page-0002.json: not valid archive JSON: EOF"
        );
    }

    #[test]
    fn a_scan_stopped_at_the_cap_says_which_tool_lists_every_match_after_its_notes() {
        let plain = noting_cap_remedy(response());
        assert!(!report::footer(&plain)
            .iter()
            .any(|l| l.contains("enumerate_matches")));
        let mut r = response();
        r.stopped_at_cap = true;
        let r = noting_cap_remedy(r);
        let lines = report::footer(&r);
        assert_eq!(lines[1], "unrecognised state \"delted\" (valid: available)");
        assert_eq!(
            lines[2],
            "enumerate_matches lists every match without the result cap"
        );
        assert!(ScanNotes::of(&r, &None)
            .notes
            .contains(&"enumerate_matches lists every match without the result cap".to_string()));
    }

    #[test]
    fn shared_arguments_build_one_request() {
        let args = serde_json::json!({"query": "cup", "channel": "a", "channels": ["b"], "group": "g", "states": ["deleted"], "max_pages": 5});
        let a: SearchArgs = super::super::args::parse("t", args.as_object().unwrap()).unwrap();
        let r = request(&a.query, &a.find);
        assert_eq!(r.filters.channels, ["b", "a"]);
        assert_eq!(r.filters.groups, ["g"]);
        assert_eq!((r.max_pages, r.use_aliases), (Some(5), true));
        assert_eq!((a.page.limit, a.page.include_snippets), (20, true));
        let x = serde_json::json!({"query": "x"});
        let a: EnumerateArgs = super::super::args::parse("t", x.as_object().unwrap()).unwrap();
        let r = request(&a.query, &a.find);
        assert_eq!(r.max_pages, Some(DEFAULT_MAX_PAGES));
        assert_eq!(a.batch_size, 12);
    }
}
