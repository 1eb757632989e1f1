//! The one table of tools: each tool's name, description, input schema
//! and handler, side by side. It drives `tools/list` ([`advertised`]),
//! argument validation and dispatch ([`super::call`]); nothing else lists
//! the tools. To add a tool, add one entry here.

use std::sync::LazyLock;

use serde_json::{json, Map, Value};

use super::schema::{filter_properties, object, query_properties, shared, source_only, with};
use super::{catalog, notes, read, reports, search, share, trend, vocabulary};
use crate::editor::{clip, coverage, ops};
use crate::plans::{self, instructions::Kind};
use crate::tool::{Context, Progress, ToolResult};
use archilyzer_core::source::SourceHandle;

/// One call of a tool whose corpus is resolved from its `source`.
pub struct Call<'a> {
    pub ctx: &'a Context,
    pub handle: &'a SourceHandle,
    pub args: &'a Map<String, Value>,
    pub progress: Progress<'a>,
}

/// How a tool runs.
pub enum Runs {
    /// On the corpus its `source` argument names (the default without one).
    OnSource(fn(Call) -> ToolResult),
    /// It finds its own corpus (`open_link`: the link's origin) and
    /// returns the handle it read, for the trailer.
    OwnCorpus(FindsItsCorpus),
}

/// A tool body that resolves its own corpus and returns its handle.
pub type FindsItsCorpus = fn(&Context, &Map<String, Value>, Progress) -> (ToolResult, String);

/// What calling a tool does to the world: the MCP annotations a client
/// auto-approves by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads the archive (or this server's own state); changes nothing.
    Reads,
    /// Reads something outside the archive (the editor, umtool, a video
    /// site through yt-dlp); changes nothing.
    ReadsOutside,
    /// Has the editor fetch media into its store: adds a file, removes
    /// nothing; asking again returns the same artifact.
    FetchesMedia,
    /// Queues work in the editor: each call adds a job.
    QueuesWork,
}

impl Effect {
    /// The annotations, with the tool's `title`.
    pub fn annotations(self, title: &str) -> rmcp::model::ToolAnnotations {
        let (read_only, idempotent, open_world) = match self {
            Effect::Reads => (true, true, false),
            Effect::ReadsOutside => (true, true, true),
            Effect::FetchesMedia => (false, true, true),
            Effect::QueuesWork => (false, false, true),
        };
        rmcp::model::ToolAnnotations::with_title(title)
            .read_only(read_only)
            .destructive(false)
            .idempotent(idempotent)
            .open_world(open_world)
    }
}

/// A tool.
pub struct Tool {
    pub name: &'static str,
    /// A short title for people (a client's approval prompt).
    pub title: &'static str,
    /// What calling it does (its MCP annotations).
    pub effect: Effect,
    pub description: &'static str,
    /// The input schema (a closed JSON Schema object).
    pub schema: Value,
    pub runs: Runs,
    /// Listed by `tools/list`; a hidden tool is an alias kept for old
    /// clients.
    pub advertised: bool,
    /// The schema of its structured result, generated from the type it
    /// serialises it from ([`super::output::of`]); every entry sets it
    /// with [`Tool::returns`].
    pub output: Value,
}

/// A tool; every schema gets the `max_chars` budget property.
fn tool(
    name: &'static str,
    title: &'static str,
    effect: Effect,
    description: &'static str,
    mut schema: Value,
    runs: Runs,
) -> Tool {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.insert("max_chars".into(), crate::budget::property());
    }
    Tool {
        name,
        title,
        effect,
        description,
        schema,
        runs,
        advertised: true,
        output: Value::Null,
    }
}

impl Tool {
    /// The tool with a declared structured result.
    pub fn returns(mut self, output: Value) -> Tool {
        self.output = output;
        self
    }
}

use Runs::{OnSource, OwnCorpus};

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut all = table();
    all.push(Tool {
        name: "use_source",
        title: "Resolve a source (old name)",
        effect: Effect::Reads,
        description: "Old name of resolve_source: says which handle to pass as source.",
        schema: object(source_only(), &["source"]),
        runs: OnSource(|c| catalog::resolve_source(&c.ctx.sources, c.handle, true)),
        advertised: false,
        output: super::output::of::<catalog::Resolved>(),
    });
    all
});

/// The tools `tools/list` shows, in order.
pub fn advertised() -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(|t| t.advertised)
}

/// The tool named `name`, advertised or not.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

fn table() -> Vec<Tool> {
    let query = query_properties();
    vec![
        tool(
            "list_channels",
            "List channels",
            Effect::Reads,
            "List the archive's channels under their groups, with video counts and a group cheat-sheet for scoping.",
            object(with(source_only(), json!({"refresh": {"type": "boolean", "description": "Drop every cache of this source first."}})), &[]),
            OnSource(|c| catalog::list_channels(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<catalog::Channels>()),
        tool(
            "list_tags",
            "List curated tags",
            Effect::Reads,
            "The curated tags the archive publishes (what the tags filter takes): id, label, group, and how many videos carry each, per channel.",
            object(source_only(), &[]),
            OnSource(|c| catalog::list_tags(&c.ctx.sources, c.handle)),
        )
        .returns(super::output::of::<catalog::Tags>()),
        tool(
            "list_reports",
            "List reports",
            Effect::Reads,
            "The cited reports a site publishes: title, kind, claim and citation counts, a fact-check's verdict tally. A hub has none of its own: pass a member as source.",
            object(source_only(), &[]),
            OnSource(|c| reports::list_reports(&c.ctx.sources, c.handle)),
        )
        .returns(super::output::of::<archilyzer_core::format::ReportIndex>()),
        tool(
            "get_report",
            "Read a report",
            Effect::Reads,
            "One report: its verdict tally, each claim with its verdict and findings, and every citation's verbatim quote, original link and the site's moment page.",
            object(
                with(source_only(), json!({
                    "report": {"type": "string", "description": "The report id, as list_reports shows it."},
                    "section": {"type": "string", "description": "Only this section (id or title)."}
                })),
                &["report"],
            ),
            OnSource(|c| reports::get_report(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<reports::ReportAnswer>()),
        tool(
            "search_transcripts",
            "Search transcripts",
            Effect::Reads,
            "Search captions and titles (other fields on request) for a phrase or regex, alias-aware; returns matching videos with timestamped, linked snippets, most relevant first (order). Naming scopes replaces the default (captions and titles): include transcripts to keep captions. The answer fits a size budget (max_chars): every listed video gets the same number of hit lines, a cut video says how many hits it left out, and counts stay complete. Page with offset; use enumerate_matches to count or cover everything.",
            object(
                with(
                    with(filter_properties(), query.clone()),
                    json!({
                        "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Videos per page (default 20)."},
                        "order": {"type": "string", "enum": ["relevance", "newest", "oldest", "archive"], "description": "relevance (default: BM25 over the confirmed hits, weighing how often the words are said against the video's length and how rare each is), newest, oldest, or archive order. The whole set is ordered before paging."},
                        "offset": {"type": "integer", "minimum": 0, "description": "Skip this many matching videos."},
                        "include_snippets": {"type": "boolean", "description": "false: a cheap worklist without cue text."},
                        "link_style": {"type": "string", "enum": ["inline", "base"], "description": "inline links per line, or one moment_base line per video with [mm:ss|seconds] stamps."}
                    }),
                ),
                &["query"],
            ),
            OnSource(|c| search::search_transcripts(&c.ctx.sources, c.handle, c.args, c.progress)),
        )
        .returns(super::output::of::<search::SearchPage>()),
        tool(
            "enumerate_matches",
            "List every match",
            Effect::Reads,
            "A query's complete match set as a worklist (id, title, channel, date, match count) in archive order, with complete totals and the batch count. A worklist longer than the size budget (max_chars) comes in pages: call again with the same arguments and the next_cursor each page gives, until none is given. Same query and filters as search_transcripts.",
            object(
                with(with(filter_properties(), query.clone()), json!({
                    "batch_size": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Videos per batch for the batch count (default 12)."},
                    "cursor": {"type": "string", "description": "Continue the worklist: the next_cursor the previous page gave (with the same arguments)."}
                })),
                &["query"],
            ),
            OnSource(|c| search::enumerate_matches(&c.ctx.sources, c.handle, c.args, c.progress)),
        )
        .returns(super::output::of::<search::WorklistPage>()),
        tool(
            "mention_trend",
            "Mentions over time",
            Effect::Reads,
            "When something was said: a query's confirmed matches (or up to 8 queries side by side) counted per year, quarter or month, each period with its videos, hits, hours of speech in scope and hits per hour, and its top video as a linked moment. Undated matches are counted in their own row. The counts equal enumerate_matches with the same arguments. Same query options and filters as search_transcripts.",
            object(
                with(with(filter_properties(), query.clone()), json!({
                    "queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 8, "description": "Up to 8 phrases to compare, each compiled as query is (give this or query)."},
                    "by": {"type": "string", "enum": ["month", "quarter", "year"], "description": "The periods' length (default year)."}
                })),
                &[],
            ),
            OnSource(|c| trend::mention_trend(&c.ctx.sources, c.handle, c.args, c.progress)),
        )
        .returns(super::output::of::<trend::TrendAnswer>()),
        tool(
            "similar_terms",
            "Words spelled like this",
            Effect::Reads,
            "A word and its neighbours in the index's vocabulary (within max_edits: what speech recognition may have written for a name), each searched on its own in the scope given, with video and hit counts and one linked example moment. Use it before concluding something was never said, and to build an alias.",
            object(
                with(shared(&["source", "channels", "groups", "channel"]), json!({
                    "word": {"type": "string", "description": "The word, or a phrase: each of its words is looked up with its own neighbours (\"dan harmon\": dan and its neighbours, then harmon and its)."},
                    "max_edits": {"type": "integer", "minimum": 1, "maximum": 2, "description": "Edits a variant may be away (default 1, or 2 for a word of 8 letters or more)."}
                })),
                &["word"],
            ),
            OnSource(|c| vocabulary::similar_terms(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<vocabulary::SimilarTerms>()),
        tool(
            "get_transcript",
            "Read a transcript",
            Effect::ReadsOutside,
            "One video's transcript as markdown: metadata and linked, timestamped captions. A transcript longer than the size budget (max_chars) is cut at a line and says the offset to continue from. A video the archive has not published is asked of the local Archilyzer editor when one is configured.",
            object(
                with(source_only(), json!({
                    "video_id": {"type": "string", "description": "The video's id (slug) as results show it."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Skip this many caption lines (to continue a cut transcript)."},
                    "channel": {"type": "string", "description": "The owning channel, to speed the lookup."}
                })),
                &["video_id"],
            ),
            OnSource(|c| read::get_transcript(c.ctx, c.handle, c.args)),
        )
        .returns(super::output::of::<crate::tool::TranscriptAnswer>()),
        tool(
            "get_transcripts",
            "Read several transcripts",
            Effect::Reads,
            "Read up to 20 videos (or posts) in one call: whole transcripts, or with query/queries (up to 8) bounded windows of linked lines around the matches, with per-query counts. The size budget (max_chars) is shared fairly: every video gets the same number of lines, and a cut video says what it left out. Queries are compiled exactly as search_transcripts compiles them: alias-aware (use_aliases, default true; the aliases that fired are named), regex, exclude.",
            object(
                with(shared(&["source", "use_aliases", "exclude", "fuzzy"]), json!({
                    "scopes": {"type": "array", "items": {"type": "string"}, "description": "Fields counted: transcripts (captions), metadata (the title). Default both, as search_transcripts counts them."},
                    "video_ids": {"type": "array", "items": {"type": "string"}, "description": "Up to 20 ids; more are dropped and named."},
                    "query": {"type": "string", "description": "Window the transcripts around this phrase (or regex)."},
                    "queries": {"type": "array", "items": {"type": "string"}, "description": "Several queries at once (with query, at most 8); counts are reported per query."},
                    "regex": {"type": "boolean", "description": "The queries are regexes."},
                    "before": {"type": "integer", "minimum": 0, "maximum": 600, "description": "Seconds before each match (default 30)."},
                    "after": {"type": "integer", "minimum": 0, "maximum": 600, "description": "Seconds after each match (default 30)."},
                    "max_lines": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Lines per video with a query (default 200; the earliest are kept)."},
                    "content_types": {"type": "array", "items": {"type": "string"}, "description": "video and/or post (default both)."},
                    "link_style": {"type": "string", "enum": ["inline", "base"], "description": "inline links, or a moment_base line and [mm:ss|seconds] stamps."},
                    "channel": {"type": "string", "description": "Owning channel hint."},
                    "channels": {"type": "array", "items": {"type": "string"}, "description": "Owning channel hints."}
                })),
                &["video_ids"],
            ),
            OnSource(|c| read::get_transcripts(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<read::Batch>()),
        tool(
            "get_post",
            "Read a post",
            Effect::Reads,
            "One archived social post. Posts have no timeline: cite them with no time.",
            object(with(source_only(), json!({"post_id": {"type": "string", "description": "The post's id."}})), &["post_id"]),
            OnSource(|c| reports::get_post(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<reports::PostAnswer>()),
        tool(
            "get_thread",
            "Read a thread",
            Effect::Reads,
            "A post's whole thread, in order.",
            object(with(source_only(), json!({"post_id": {"type": "string", "description": "The id of any post of the thread."}})), &["post_id"]),
            OnSource(|c| reports::get_thread(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<reports::ThreadAnswer>()),
        tool(
            "get_video_metadata",
            "Video details",
            Effect::Reads,
            "Everything known about one video without its transcript: metadata, view/like counts, cue count and coverage, other archived copies with their timing-alignment verdict, and AI chapters.",
            object(
                with(source_only(), json!({
                    "video_id": {"type": "string", "description": "The video's id (slug)."},
                    "channel": {"type": "string", "description": "The owning channel, to speed the lookup."}
                })),
                &["video_id"],
            ),
            OnSource(|c| read::get_video_metadata(&c.ctx.sources, c.handle, c.args)),
        )
        .returns(super::output::of::<read::Metadata>()),
        tool(
            "fetch_clip",
            "Fetch a clip through the editor",
            Effect::FetchesMedia,
            "The media behind a cited moment, fetched by the local Archilyzer editor through its paced, cookie-aware, provenanced job: never run yt-dlp yourself. A window is the cited span plus pad (default 3 s) on each side, at most 15 min; full: true fetches the whole recording into the editor's saved-video store (a video the editor already knows). Waits up to wait_seconds (default 90, max 300), then answers a job id to resume with job; under a client with a 60 s request timeout pass wait_seconds of 50 or less. Pass the citing corpus as source so a Rumble id maps to the editor's. The file is a read-only corpus artifact. Needs ARCHILYZER_EDITOR_URL and WORKER_TOKEN.",
            object(
                with(source_only(), json!({
                    "channel": {"type": "string", "description": "The channel slug, as cited."},
                    "video": {"type": "string", "description": "The archive's video id, as cited."},
                    "start": {"type": ["number", "string"], "description": "Start of the cited span: seconds, mm:ss or h:mm:ss."},
                    "end": {"type": ["number", "string"], "description": "End of the cited span: seconds, mm:ss or h:mm:ss."},
                    "pad": {"type": "number", "description": "Seconds added before and after (default 3)."},
                    "reason": {"type": "string", "description": "One line on why these seconds are needed (stored beside the file; at most 400 characters are kept)."},
                    "report": {"type": "string", "description": "The report this clip is for, if any."},
                    "full": {"type": "boolean", "description": "The whole recording instead of a window; start, end and pad are then ignored."},
                    "maxHeight": {"type": "integer", "minimum": 144, "maximum": 2160, "description": "Cap on the source height (a window defaults to 720)."},
                    "wait_seconds": {"type": "number", "description": "How long to wait for the editor's job (default 90, 0 to 300)."},
                    "job": {"type": "string", "description": "Resume waiting for this job (the other arguments are then ignored)."}
                })),
                &[],
            ),
            OnSource(|c| clip::fetch_clip(c.ctx, c.handle, c.args, c.progress)),
        )
        .returns(super::output::of::<clip::ClipFacts>()),
        tool(
            "get_job",
            "Editor job status",
            Effect::ReadsOutside,
            "One editor job: kind, channel, status, times, exit code, its place in its queue, and the last tail log lines. For a job id enqueue or fetch_clip answered. Needs the editor.",
            object(
                json!({
                    "job": {"type": "string", "description": "The job id."},
                    "tail": {"type": "integer", "minimum": 0, "maximum": 2000, "description": "Log lines to show (default 40)."}
                }).as_object().cloned().unwrap_or_default(),
                &["job"],
            ),
            OnSource(|c| ops::get_job(&c.ctx.editor, c.args)),
        )
        .returns(super::output::of::<ops::Job>()),
        tool(
            "enqueue",
            "Queue archival work",
            Effect::QueuesWork,
            "Queue archival work on a channel the editor archives, as its channel page's buttons do: sync (full), download-missing, retry-bucket (bucket, ids: the way to download chosen videos), transcribe-bucket (ids), fetch-posts (full, older), import-video (url). Answers the job id; the editor runs it at each platform's pace. Only when the operator asks. Needs the editor.",
            object(
                json!({
                    "channel": {"type": "string", "description": "The channel slug on the editor."},
                    "kind": {"type": "string", "enum": ["sync", "download-missing", "retry-bucket", "transcribe-bucket", "fetch-posts", "import-video"], "description": "The operation."},
                    "full": {"type": "boolean", "description": "sync, fetch-posts: everything, not only what is new."},
                    "older": {"type": "boolean", "description": "fetch-posts: go further back than the oldest post held."},
                    "bucket": {"type": "string", "description": "retry-bucket: which bucket of videos to retry."},
                    "ids": {"type": "array", "items": {"type": "string"}, "description": "retry-bucket, transcribe-bucket: the video ids."},
                    "url": {"type": "string", "description": "import-video: the video's http(s) URL."}
                }).as_object().cloned().unwrap_or_default(),
                &["channel", "kind"],
            ),
            OnSource(|c| ops::enqueue(&c.ctx.editor, c.args)),
        )
        .returns(super::output::of::<ops::Queued>()),
        tool(
            "channel_coverage",
            "Channel coverage on the editor",
            Effect::ReadsOutside,
            "What a channel holds on the editor's disk, by date: count, first and last day, per year, and every gap longer than gap_days; date_from/date_to narrow it, list lists the videos. Videos are dated by their recorded date when the channel has a title rule, else their upload date. Needs the editor.",
            object(
                json!({
                    "channel": {"type": "string", "description": "The channel slug on the editor."},
                    "gap_days": {"type": "integer", "minimum": 1, "description": "Report stretches longer than this many days with no video (default 30)."},
                    "date_from": {"type": "string", "description": "From this day, YYYYMMDD."},
                    "date_to": {"type": "string", "description": "To this day, YYYYMMDD."},
                    "list": {"type": "boolean", "description": "List every video with its date."}
                }).as_object().cloned().unwrap_or_default(),
                &["channel"],
            ),
            OnSource(|c| coverage::channel_coverage(&c.ctx.editor, c.args)),
        )
        .returns(super::output::of::<coverage::CoverageAnswer>()),
        tool(
            "notes",
            "Operator notes (umtool)",
            Effect::ReadsOutside,
            "The operator's notes in umtool on articles and report-video projects: list (every open note, by target), read (one target's digest, anchors resolved, and the source file to edit), reply (answers the umtool command to run; nothing is posted). Needs UMTOOL_URL.",
            object(
                json!({
                    "action": {"type": "string", "enum": ["list", "read", "reply"], "description": "list (default), read or reply."},
                    "target": {"type": "string", "description": "read, reply: the target as list names it."},
                    "note": {"type": "string", "description": "reply: the note's id."},
                    "text": {"type": "string", "description": "reply: what to answer."}
                }).as_object().cloned().unwrap_or_default(),
                &[],
            ),
            OnSource(|c| notes::notes(&c.ctx.umtool, c.args)),
        )
        .returns(super::output::of::<notes::NotesAnswer>()),
        tool(
            "open_link",
            "Open a share link",
            Effect::Reads,
            "Re-run a viewer share link here at full fidelity (its query tree of AND/OR/NOT over any scopes, and every filter) in one call: the plan, the first page of linked results, and the corpus handle to pass as source from then on. dry_run for the plan alone; overrides to adjust it.",
            object(
                json!({
                    "link": {"type": "string", "description": "The share link, as pasted."},
                    "dry_run": {"type": "boolean", "description": "Return the plan without searching."},
                    "overrides": {"type": "object", "description": "Adjustments: clear_availability, clear_type, clear_age, clear_dates, clear_filters, clear_channels (true), channels [..], date_from, date_to (YYYYMMDD), query, regex, query_scope (transcripts, chat, metadata, description, tags, posts)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Videos per page (default 20)."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Skip this many matching videos."},
                    "collapse_duplicates": {"type": "boolean", "description": "Fold mirrors of one recording into one row, naming the copies (default true)."}
                }).as_object().cloned().unwrap_or_default(),
                &["link"],
            ),
            OwnCorpus(share::open_link),
        )
        .returns(super::output::of::<share::OpenLink>()),
        tool(
            "list_sources",
            "List sources",
            Effect::Reads,
            "Show the default corpus and, for a hub, its member sites as ready-to-paste source handles.",
            object(Map::new(), &[]),
            OnSource(|c| catalog::list_sources(&c.ctx.sources)),
        )
        .returns(super::output::of::<catalog::SourceList>()),
        tool(
            "resolve_source",
            "Resolve a source",
            Effect::Reads,
            "Turn a URL, member name or handle into the canonical source handle and check that it can be read.",
            object(source_only(), &["source"]),
            OnSource(|c| catalog::resolve_source(&c.ctx.sources, c.handle, false)),
        )
        .returns(super::output::of::<catalog::Resolved>()),
        tool(
            "transcript",
            "Transcript of any video URL",
            Effect::ReadsOutside,
            "The spoken words of any video URL (YouTube, TikTok and whatever else yt-dlp fetches), even one not in the archive: its captions when it has any, else speech-to-text on this machine. Answers url, platform, title, channel, duration_s, upload_date, caption_source (manual, auto or asr), lang, n_segments, chars, segments [{t, text}] and text with [h:mm:ss] markers; a speech-to-text result adds asr {model, language, mean_logprob, confident}: branch on confident, a false one is not evidence.",
            object(
                json!({
                    "url": {"type": "string", "description": "The video's http(s) URL."},
                    "lang": {"type": "string", "description": "Caption language to prefer (default en); the original audio's captions are used over a machine translation."},
                    "asr": {"type": "boolean", "description": "Transcribe the audio when there are no captions (default true)."},
                    "asr_model": {"type": "string", "description": "Whisper model (default small)."}
                }).as_object().cloned().unwrap_or_default(),
                &["url"],
            ),
            OnSource(|c| {
                if c.ctx.sources.is_restricted() {
                    return Err("transcript: not offered over HTTP: it runs yt-dlp (and speech-to-text) on the server for any URL, which would let a remote caller make this machine fetch any address. Run archilyzer-mcp over stdio on your own machine to use it".to_string().into());
                }
                crate::transcript::transcript(&c.ctx.binaries, c.args)
            }),
        )
        .returns(super::output::of::<crate::transcript::UrlTranscript>()),
        tool(
            "sweep_plan",
            "Plan a sweep",
            Effect::Reads,
            "Turn a /sweep request (plain English, a share link anywhere in it, key=value settings: channels, groups, batch_size, parse_model, report, directive, source, content_types, regex) into a resolved, step-by-step map-reduce plan over the complete worklist. Pass the request exactly as typed.",
            object(with(source_only(), json!({"request": {"type": "string", "description": "The whole request, as typed."}})), &["request"]),
            OnSource(|c| plans::plan_tool(c.ctx, Kind::Sweep, c.args)),
        )
        .returns(super::output::of::<crate::plans::PlanAnswer>()),
        tool(
            "ask_plan",
            "Plan an answer",
            Effect::Reads,
            "Turn an /ask question (plain English, a share link anywhere in it, key=value settings) into a resolved, step-by-step plan: scope, find, read, answer with linked citations.",
            object(with(source_only(), json!({"request": {"type": "string", "description": "The whole question, as typed."}})), &["request"]),
            OnSource(|c| plans::plan_tool(c.ctx, Kind::Ask, c.args)),
        )
        .returns(super::output::of::<crate::plans::PlanAnswer>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_closed_and_search_and_enumerate_share_the_filters() {
        for t in TOOLS.iter() {
            assert_eq!(t.schema["additionalProperties"], false, "{}", t.name);
        }
    }

    #[test]
    fn every_tool_declares_an_output_schema_generated_from_its_type() {
        for t in TOOLS.iter() {
            assert!(
                t.output.get("$schema").is_some() && t.output["type"] == "object",
                "{} has no generated output schema: {}",
                t.name,
                t.output
            );
            assert!(
                !t.output.to_string().contains("\"format\":\"uint"),
                "{}: no Rust number format reaches a client",
                t.name
            );
            assert!(
                t.output["required"]
                    .as_array()
                    .is_some_and(|r| r.contains(&serde_json::json!("corpus"))),
                "{} names its corpus",
                t.name
            );
        }
        let s = &find("search_transcripts").unwrap().schema;
        let e = &find("enumerate_matches").unwrap().schema;
        for key in filter_properties().keys() {
            assert!(
                s["properties"].get(key).is_some() && e["properties"].get(key).is_some(),
                "{key}"
            );
        }
    }
}
