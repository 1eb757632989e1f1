//! The one table of tools: each tool's name, description, input schema
//! and handler, side by side. It drives `tools/list` ([`advertised`]),
//! argument validation and dispatch ([`super::call`]); nothing else lists
//! the tools. To add a tool, add one entry here.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, Budget, Source};
use super::{
    catalog, notes, passages, read, related, reports, search, share, trend, vocabulary, worklist,
};
use crate::context::Context;
use crate::editor::{clip, coverage, ops};
use crate::plans::{self, instructions::Kind};
use crate::tool::{Progress, ToolResult};
use archilyzer_core::source::SourceHandle;

/// One call of a tool whose corpus is resolved from its `source`; the
/// tool's own arguments come beside it, read into the tool's type.
pub struct Call<'a> {
    /// What every tool shares.
    pub ctx: &'a Context,
    /// The corpus the call reads.
    pub handle: &'a SourceHandle,
    /// The call's size budget in characters (its `max_chars`).
    pub budget: usize,
    /// Where the call reports its steps.
    pub progress: Progress<'a>,
}

/// How a tool runs, its arguments read into its type first.
pub enum Runs {
    /// On the corpus its `source` argument names (the default without one).
    OnSource(Box<RunsOnSource>),
    /// It finds its own corpus (`open_link`: the link's origin) and
    /// returns the handle it read, for the trailer.
    OwnCorpus(Box<FindsItsCorpus>),
}

/// A tool body run on the corpus its `source` names, given the call's
/// checked arguments (it reads them into its type).
pub type RunsOnSource = dyn Fn(Call, &Map<String, Value>) -> ToolResult + Send + Sync;

/// A tool body that resolves its own corpus and returns its handle.
pub type FindsItsCorpus =
    dyn Fn(&Context, &Map<String, Value>, usize, Progress) -> (ToolResult, String) + Send + Sync;

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
    /// Its name, as clients call it.
    pub name: &'static str,
    /// A short title for people (a client's approval prompt).
    pub title: &'static str,
    /// What calling it does (its MCP annotations).
    pub effect: Effect,
    /// What it does, for the model that picks tools.
    pub description: &'static str,
    /// The input schema, generated from the type its arguments are read
    /// into ([`args::schema_of`]), with the `max_chars` budget: what every
    /// call is validated against.
    pub schema: Value,
    /// The same schema as `tools/list` gives it, each argument described
    /// once across the tools (`said_once` in this module); null for a
    /// hidden tool.
    pub listed: Value,
    /// How it runs.
    pub runs: Runs,
    /// Listed by `tools/list`; a hidden tool is an alias kept for old
    /// clients.
    pub advertised: bool,
    /// The schema of its structured result, generated from the type it
    /// serialises it from ([`crate::output::of`]); every entry sets it
    /// with [`Tool::returns`].
    pub output: Value,
}

/// A tool's arguments beside the budget every tool takes: the type its
/// input schema is generated from. Only its schema is made; the
/// dispatcher reads the budget and [`tool`] the arguments.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct WithBudget<A> {
    #[serde(flatten)]
    args: A,
    #[serde(flatten)]
    budget: Budget,
}

/// A tool whose arguments are an `A`, run on the corpus its `source`
/// names: its input schema is generated from `A`, and `run` gets the
/// call's arguments read into an `A`.
fn tool<A: DeserializeOwned + JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    effect: Effect,
    description: &'static str,
    run: fn(Call, A) -> ToolResult,
) -> Tool {
    let runs = Runs::OnSource(Box::new(move |call, given| {
        run(call, args::parse::<A>(name, given)?)
    }));
    Tool::new::<A>(name, title, effect, description, runs)
}

/// A tool whose arguments are an `A` and which finds its own corpus.
fn own_corpus<A: DeserializeOwned + JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    effect: Effect,
    description: &'static str,
    run: fn(&Context, A, usize, Progress) -> (ToolResult, String),
) -> Tool {
    let runs = Runs::OwnCorpus(Box::new(
        move |ctx, given, budget, progress| match args::parse::<A>(name, given) {
            Ok(a) => run(ctx, a, budget, progress),
            Err(e) => (Err(e.into()), ctx.sources.default_handle().to_string()),
        },
    ));
    Tool::new::<A>(name, title, effect, description, runs)
}

impl Tool {
    /// An advertised tool whose arguments are an `A` (its input schema
    /// generated from `A` and the budget), run as `runs` says.
    fn new<A: JsonSchema>(
        name: &'static str,
        title: &'static str,
        effect: Effect,
        description: &'static str,
        runs: Runs,
    ) -> Tool {
        Tool {
            name,
            title,
            effect,
            description,
            schema: args::schema_of::<WithBudget<A>>(),
            listed: Value::Null,
            runs,
            advertised: true,
            output: Value::Null,
        }
    }

    /// The tool with a declared structured result.
    pub fn returns(mut self, output: Value) -> Tool {
        self.output = output;
        self
    }
}

/// The arguments of a tool that takes none (but the budget).
#[derive(Deserialize, JsonSchema)]
pub struct NoArguments {}

/// The arguments of a tool that names a corpus and nothing else.
#[derive(Deserialize, JsonSchema)]
pub struct SourceRequired {
    /// A corpus handle, a member name or a URL.
    pub source: String,
}

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut all = table();
    said_once(&mut all);
    let mut old = tool(
        "use_source",
        "Resolve a source (old name)",
        Effect::Reads,
        "Old name of resolve_source: says which handle to pass as source.",
        |c, _: SourceRequired| catalog::resolve_source(&c.ctx.sources, c.handle, true),
    )
    .returns(crate::output::of::<catalog::Resolved>());
    old.advertised = false;
    all.push(old);
    all
});

/// Each tool's input schema as `tools/list` gives it ([`Tool::listed`]).
/// An argument whose name and schema are word for word those of an
/// argument of an earlier tool (the query options and filters, the
/// corpus, the budget) is described there, in full, once; here such
/// arguments are named together in one `patternProperties` entry,
/// `^(channels|date_from|…)$`, whose description says which tool
/// describes them (`As in search_transcripts.`). The schema stays closed
/// (`additionalProperties: false` admits what a pattern names), and the
/// validator keeps checking every argument against the full schema
/// ([`Tool::schema`]). The `$schema` keyword goes too: an input schema
/// without one is draft 2020-12, as MCP says. An agent pays for
/// `tools/list` before its first question ([`TOOL_LIST_CHARS`]).
fn said_once(tools: &mut [Tool]) {
    let mut first: std::collections::HashMap<(String, String), &'static str> =
        std::collections::HashMap::new();
    for tool in tools.iter_mut().filter(|t| t.advertised) {
        let mut listed = tool.schema.clone();
        let mut elsewhere: std::collections::BTreeMap<&'static str, Vec<String>> =
            std::collections::BTreeMap::new();
        if let Some(props) = listed["properties"].as_object_mut() {
            props.retain(|name, spec| {
                let key = (name.clone(), spec.to_string());
                match first.get(&key) {
                    Some(earlier) => {
                        elsewhere.entry(earlier).or_default().push(name.clone());
                        false
                    }
                    None => {
                        first.insert(key, tool.name);
                        true
                    }
                }
            });
        }
        if let Value::Object(map) = &mut listed {
            map.remove("$schema");
            if !elsewhere.is_empty() {
                let patterns: serde_json::Map<String, Value> = elsewhere
                    .into_iter()
                    .map(|(earlier, names)| {
                        let pattern = format!("^({})$", names.join("|"));
                        (
                            pattern,
                            serde_json::json!({"description": format!("As in {earlier}.")}),
                        )
                    })
                    .collect();
                map.insert("patternProperties".into(), Value::Object(patterns));
            }
        }
        tool.listed = listed;
    }
}

/// The tools `tools/list` shows, in order.
pub fn advertised() -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(|t| t.advertised)
}

/// The tool named `name`, advertised or not.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

fn table() -> Vec<Tool> {
    vec![
        tool(
            "list_channels",
            "List channels",
            Effect::Reads,
            "The archive's channels under their groups, with video counts and a cheat-sheet for scoping.",
            |c, a: catalog::ChannelsArgs| catalog::list_channels(&c.ctx.sources, c.handle, &a),
        )
        .returns(crate::output::of::<catalog::Channels>()),
        tool(
            "list_tags",
            "List curated tags",
            Effect::Reads,
            "The curated tags (what the tags filter takes): id, label, group, and videos per channel.",
            |c, _: Source| catalog::list_tags(&c.ctx.sources, c.handle),
        )
        .returns(crate::output::of::<catalog::Tags>()),
        tool(
            "list_reports",
            "List reports",
            Effect::Reads,
            "The site's cited reports: title, kind, claim and citation counts, a fact-check's verdict tally. A hub has none of its own: pass a member as source.",
            |c, _: Source| reports::list_reports(&c.ctx.sources, c.handle),
        )
        .returns(crate::output::of::<archilyzer_core::format::ReportIndex>()),
        tool(
            "get_report",
            "Read a report",
            Effect::Reads,
            "One report: its verdict tally, each claim with its verdict and findings, each citation's verbatim quote, original link and moment page.",
            |c, a: reports::ReportArgs| reports::get_report(&c.ctx.sources, c.handle, &a),
        )
        .returns(crate::output::of::<reports::ReportAnswer>()),
        tool(
            "search_transcripts",
            "Search transcripts",
            Effect::Reads,
            "Search captions and titles for a phrase or regex, alias-aware: matching videos, most relevant first, with timestamped, linked snippets. Naming scopes replaces the default (captions and titles): include transcripts to keep captions. Within the size budget (max_chars) every listed video gets the same number of hit lines, a cut one says what it left out, and counts stay complete. Page with offset; enumerate_matches covers everything. Its arguments mean the same in every tool that takes them.",
            |c, a: search::SearchArgs| search::search_transcripts(c.ctx, c.handle, &a, c.budget, c.progress),
        )
        .returns(crate::output::of::<search::SearchPage>()),
        tool(
            "enumerate_matches",
            "List every match",
            Effect::Reads,
            "A query's complete match set as a worklist (id, title, channel, date, matches) in archive order, with complete totals and the batch count. A long one comes in pages: call again with the same arguments and next_cursor until none is given. Query and filters as search_transcripts.",
            |c, a: worklist::EnumerateArgs| worklist::enumerate_matches(c.ctx, c.handle, &a, c.budget, c.progress),
        )
        .returns(crate::output::of::<worklist::WorklistPage>()),
        tool(
            "mention_trend",
            "Mentions over time",
            Effect::Reads,
            "When something was said: a query's confirmed matches (or up to 8 queries side by side) per year, quarter or month: videos, hits, hours of speech in scope, hits per hour, and the top moment. Undated matches get their own row. The counts equal enumerate_matches'.",
            |c, a: trend::TrendArgs| trend::mention_trend(&c.ctx.sources, c.handle, &a, c.budget, c.progress),
        )
        .returns(crate::output::of::<trend::TrendAnswer>()),
        tool(
            "similar_terms",
            "Words spelled like this",
            Effect::Reads,
            "A word and its neighbours in the index's vocabulary (within max_edits: how speech recognition may have written a name), each searched in scope with video and hit counts and a linked example. Use it before concluding something was never said, and to build an alias.",
            |c, a: vocabulary::SimilarArgs| vocabulary::similar_terms(&c.ctx.sources, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<vocabulary::SimilarTerms>()),
        tool(
            "significant_terms",
            "Said alongside a query",
            Effect::Reads,
            "What comes up where a query is said: words said unusually often in its matching videos against every video in scope (JLH, as Elasticsearch's significant_terms), with their shares and a share link for the query AND the word. Exact whatever the index's state.",
            |c, a: related::SignificantArgs| related::significant_terms(&c.ctx.sources, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<archilyzer_core::related::SignificantTerms>()),
        tool(
            "find_passages",
            "Passages by meaning",
            Effect::Reads,
            "Passages (about 40 s of captions) nearest a question in meaning, even in other words, fused with a BM25 words ranking: text, moment link, score, both ranks. Offline. Ranks, never counts (for counts: search_transcripts). Needs `archilyzer-index build --embed`.",
            |c, a: passages::PassagesArgs| passages::find_passages(c.ctx, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<passages::PassagesAnswer>()),
        tool(
            "related_videos",
            "Videos like this one",
            Effect::Reads,
            "The videos most like one video (as Elasticsearch's more_like_this): its heaviest words by tf × idf, then the videos holding them, ranked by the idf of the words shared, each naming them. Filters choose which videos may be given.",
            |c, a: related::RelatedArgs| related::related_videos(&c.ctx.sources, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<archilyzer_core::related::Related>()),
        tool(
            "get_transcript",
            "Read a transcript",
            Effect::ReadsOutside,
            "One video's transcript as markdown: metadata and timestamped lines linked to their moments. A long one is cut at a line and gives the offset to continue from. A video the archive lacks is asked of the local editor, when one is configured.",
            |c, a: read::TranscriptArgs| read::get_transcript(c.ctx, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<crate::tool::TranscriptAnswer>()),
        tool(
            "get_transcripts",
            "Read several transcripts",
            Effect::Reads,
            "Read up to 20 videos (or posts) at once: whole, or windows around the matches of query/queries (up to 8) with per-query counts, compiled as search_transcripts compiles them (alias-aware, regex, exclude). The size budget (max_chars) is shared fairly: each video gets the same number of lines, and a cut one says what it left out.",
            |c, a: read::BatchArgs| read::get_transcripts(&c.ctx.sources, c.handle, &a, c.budget),
        )
        .returns(crate::output::of::<read::Batch>()),
        tool(
            "get_post",
            "Read a post",
            Effect::Reads,
            "One archived social post. Posts have no timeline: cite them with no time.",
            |c, a: reports::PostArgs| reports::get_post(&c.ctx.sources, c.handle, &a),
        )
        .returns(crate::output::of::<reports::PostAnswer>()),
        tool(
            "get_thread",
            "Read a thread",
            Effect::Reads,
            "A post's whole thread, in order.",
            |c, a: reports::PostArgs| reports::get_thread(&c.ctx.sources, c.handle, &a),
        )
        .returns(crate::output::of::<reports::ThreadAnswer>()),
        tool(
            "get_video_metadata",
            "Video details",
            Effect::Reads,
            "One video without its transcript: metadata, view and like counts, cues and coverage, other archived copies with their timing-alignment verdict, and AI chapters.",
            |c, a: read::MetadataArgs| read::get_video_metadata(&c.ctx.sources, c.handle, &a),
        )
        .returns(crate::output::of::<read::Metadata>()),
        tool(
            "fetch_clip",
            "Fetch a clip through the editor",
            Effect::FetchesMedia,
            "The media behind a cited moment, fetched by the local Archilyzer editor (paced, cookie-aware, provenanced): never run yt-dlp yourself. A window is the cited span plus pad each side, at most 15 min; full fetches the whole recording of a video the editor knows. Waits up to wait_seconds, then answers a job id to resume with job (under a 60 s client timeout, wait 50 s or less). Pass the citing corpus as source. Needs ARCHILYZER_EDITOR_URL and WORKER_TOKEN.",
            |c, a: clip::ClipArgs| clip::fetch_clip(&c.ctx.editor, &c.ctx.sources, c.handle, &a, c.progress),
        )
        .returns(crate::output::of::<clip::ClipFacts>()),
        tool(
            "get_job",
            "Editor job status",
            Effect::ReadsOutside,
            "One editor job: kind, channel, status, times, exit code, its place in its queue, and the last tail log lines. For a job id enqueue or fetch_clip answered. Needs the editor.",
            |c, a: ops::JobArgs| ops::get_job(&c.ctx.editor, &a),
        )
        .returns(crate::output::of::<ops::Job>()),
        tool(
            "enqueue",
            "Queue archival work",
            Effect::QueuesWork,
            "Queue archival work on a channel the editor archives, as its channel page's buttons do (kind; retry-bucket with ids downloads chosen videos). Answers the job id; the editor runs it at each platform's pace. Only when the operator asks. Needs the editor.",
            |c, a: ops::EnqueueArgs| ops::enqueue(&c.ctx.editor, &a),
        )
        .returns(crate::output::of::<ops::Queued>()),
        tool(
            "channel_coverage",
            "Channel coverage on the editor",
            Effect::ReadsOutside,
            "What a channel holds on the editor's disk, by date: count, first and last day, per year, and every gap longer than gap_days; date_from/date_to narrow it, list lists the videos (dated by recorded date under a title rule, else upload date). Needs the editor.",
            |c, a: coverage::CoverageArgs| coverage::channel_coverage(&c.ctx.editor, &a),
        )
        .returns(crate::output::of::<coverage::CoverageAnswer>()),
        tool(
            "notes",
            "Operator notes (umtool)",
            Effect::ReadsOutside,
            "The operator's notes in umtool on articles and report-video projects: list the open ones, read one target's digest with the file to edit, or reply (answers the umtool command to run; posts nothing). Needs UMTOOL_URL.",
            |c, a: notes::NotesArgs| notes::notes(&c.ctx.umtool, &a),
        )
        .returns(crate::output::of::<notes::NotesAnswer>()),
        own_corpus(
            "open_link",
            "Open a share link",
            Effect::Reads,
            "Re-run a viewer share link here at full fidelity (its query tree of AND/OR/NOT over any scopes, and every filter) in one call: the plan, the first page of linked results, and the corpus handle to pass as source from then on. dry_run for the plan alone; overrides to adjust it.",
            share::open_link,
        )
        .returns(crate::output::of::<share::OpenLink>()),
        tool(
            "list_sources",
            "List sources",
            Effect::Reads,
            "Show the default corpus and, for a hub, its member sites as ready-to-paste source handles.",
            |c, _: NoArguments| catalog::list_sources(&c.ctx.sources),
        )
        .returns(crate::output::of::<catalog::SourceList>()),
        tool(
            "resolve_source",
            "Resolve a source",
            Effect::Reads,
            "Turn a URL, member name or handle into the canonical source handle and check that it can be read.",
            |c, _: SourceRequired| catalog::resolve_source(&c.ctx.sources, c.handle, false),
        )
        .returns(crate::output::of::<catalog::Resolved>()),
        tool(
            "transcript",
            "Transcript of any video URL",
            Effect::ReadsOutside,
            "The spoken words of any video URL yt-dlp fetches, even one outside the archive: its captions, else speech-to-text on this machine. Answers its metadata, caption_source (manual, auto or asr), segments [{t, text}] and text with [h:mm:ss] markers; speech-to-text adds asr {model, language, mean_logprob, confident}: a false confident is not evidence.",
            |c, a: crate::transcript::UrlArgs| {
                if c.ctx.sources.is_restricted() {
                    return Err("transcript: not offered over HTTP: it runs yt-dlp (and speech-to-text) on the server for any URL, which would let a remote caller make this machine fetch any address. Run archilyzer-mcp over stdio on your own machine to use it".to_string().into());
                }
                crate::transcript::transcript(&c.ctx.binaries, &a)
            },
        )
        .returns(crate::output::of::<crate::transcript::UrlTranscript>()),
        tool(
            "sweep_plan",
            "Plan a sweep",
            Effect::Reads,
            "Turn a /sweep request (plain English, a share link anywhere in it, key=value settings: channels, groups, batch_size, parse_model, report, directive, source, content_types, regex) into a resolved, step-by-step map-reduce plan over the complete worklist. Pass the request exactly as typed.",
            |c, a: plans::PlanArgs| plans::plan_tool(c.ctx, Kind::Sweep, &a),
        )
        .returns(crate::output::of::<crate::plans::PlanAnswer>()),
        tool(
            "ask_plan",
            "Plan an answer",
            Effect::Reads,
            "Turn an /ask question (plain English, a share link anywhere in it, key=value settings) into a resolved, step-by-step plan: scope, find, read, answer with linked citations.",
            |c, a: plans::PlanArgs| plans::plan_tool(c.ctx, Kind::Ask, &a),
        )
        .returns(crate::output::of::<crate::plans::PlanAnswer>()),
    ]
}

/// Characters of descriptions and input schemas that `tools/list`
/// may cost an agent before its first question (about 6,250 tokens).
/// The 26 tools before `find_passages` fit in 24,000; it adds about
/// 1,000 (its own arguments and a description that says it ranks and
/// never counts).
pub const TOOL_LIST_CHARS: usize = 25_000;

/// What `tools/list` costs an agent: every advertised tool's description
/// and input schema (compact JSON), in characters.
pub fn tool_list_chars() -> usize {
    advertised()
        .map(|t| t.description.chars().count() + t.listed.to_string().chars().count())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_list_an_agent_pays_for_is_within_its_bound() {
        let each: Vec<(usize, &str)> = advertised()
            .map(|t| (t.description.len() + t.listed.to_string().len(), t.name))
            .collect();
        let chars = tool_list_chars();
        println!(
            "tools/list: {chars} characters of descriptions and input schemas over {} tools (bound {TOOL_LIST_CHARS}); by tool: {each:?}",
            each.len()
        );
        assert!(chars <= TOOL_LIST_CHARS, "{chars} > {TOOL_LIST_CHARS}");
    }

    #[test]
    fn every_input_schema_is_generated_closed_and_takes_the_budget() {
        for t in TOOLS.iter() {
            assert_eq!(t.schema["additionalProperties"], false, "{}", t.name);
            assert_eq!(t.schema["type"], "object", "{}", t.name);
            let budget = &t.schema["properties"]["max_chars"];
            assert_eq!(budget["minimum"], crate::budget::FLOOR_CHARS, "{}", t.name);
            assert_eq!(
                budget["default"],
                crate::budget::DEFAULT_CHARS,
                "{}",
                t.name
            );
            assert!(
                !t.schema.to_string().contains("\"null\""),
                "{}: an optional argument is left out, never sent as null: {}",
                t.name,
                t.schema
            );
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
        let find_options = args::schema_of::<args::FindOptions>();
        for name in ["search_transcripts", "enumerate_matches", "mention_trend"] {
            let s = &find(name).unwrap().schema;
            for key in find_options["properties"].as_object().unwrap().keys() {
                assert!(s["properties"].get(key).is_some(), "{name}: {key}");
            }
        }
    }

    /// Every `oneOf` in a schema, at any depth.
    fn one_ofs(v: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
        match v {
            serde_json::Value::Object(map) => {
                found.extend(map.get("oneOf").cloned());
                map.values().for_each(|v| one_ofs(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| one_ofs(v, found)),
            _ => {}
        }
    }

    #[test]
    fn output_schemas_are_cheap_to_validate_no_ref_no_const_choice_no_nullable_any_of() {
        for t in TOOLS.iter() {
            let text = t.output.to_string();
            assert!(
                !text.contains("\"$ref\""),
                "{}: a $ref left: {text}",
                t.name
            );
            assert!(
                !text.contains("{\"type\":\"null\"}"),
                "{}: an optional value as anyOf: {text}",
                t.name
            );
            let mut found = Vec::new();
            one_ofs(&t.output, &mut found);
            for branches in found {
                // A tagged union (objects told apart by a `kind`) stays a oneOf.
                assert!(
                    branches
                        .as_array()
                        .is_some_and(|b| b.iter().all(|b| b["type"] == "object")),
                    "{}: a choice of strings left as a oneOf: {branches}",
                    t.name
                );
            }
        }
        let search = &find("search_transcripts").unwrap().output;
        let scope = &search["properties"]["videos"]["items"]["properties"]["hits"]["items"]
            ["properties"]["scope"];
        assert_eq!(scope["enum"][0], "transcripts", "{scope}");
        assert!(
            scope["description"]
                .as_str()
                .is_some_and(|d| d.contains("`transcripts`: Captions.")),
            "each choice keeps its doc: {scope}"
        );
        let platform = &search["properties"]["videos"]["items"]["properties"]["platform"];
        assert_eq!(
            platform["type"],
            serde_json::json!(["string", "null"]),
            "{platform}"
        );
        assert_eq!(
            platform["enum"].as_array().and_then(|e| e.last()),
            Some(&serde_json::Value::Null)
        );
    }
}
