//! The tools: their schemas ([`schema`]), dispatch, and the one rule every
//! result follows: it ends with `(corpus: <handle>)`, errors included
//! (invariant 5 of archilyzer_core's crate docs), and an error is a result with `isError`,
//! never a failed request.

pub mod catalog;
pub mod notes;
pub mod read;
pub mod reports;
pub mod schema;
pub mod search;
pub mod share;

use serde_json::{Map, Value};

use crate::editor::{self, EditorSetup};
use crate::sources::Sources;

/// What a tool answers: text for the agent, the same data structured.
#[derive(Debug, Clone)]
pub struct Output {
    pub text: String,
    pub structured: Value,
    pub is_error: bool,
}

/// Everything a tool may use: the archives and the local editor.
pub struct Context {
    pub sources: Sources,
    pub editor: EditorSetup,
    /// umtool, for `notes` (`UMTOOL_URL`).
    pub umtool: notes::UmtoolSetup,
    /// Where `transcript` finds yt-dlp and whisper-ctranslate2.
    pub binaries: crate::transcript::discover::Locator,
}

/// One step of a long call (pages of a scan, polls of a job), forwarded
/// as a progress notification to a client that asked for them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub done: f64,
    pub total: Option<f64>,
    pub message: String,
}

impl Tick {
    /// `done` of `total` pages read.
    pub fn pages(done: usize, total: usize) -> Tick {
        Tick {
            done: done as f64,
            total: Some(total as f64),
            message: format!("{done} of {total} page(s) read"),
        }
    }
}

/// Reports the steps of a long call.
pub type Progress<'a> = &'a mut dyn FnMut(Tick);

/// A tool's failure: the message, and facts to carry in the structured
/// result beside it (a job id to resume, a cooldown).
#[derive(Debug, Clone)]
pub struct Failure {
    pub message: String,
    pub facts: Value,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure {
            message,
            facts: Value::Null,
        }
    }
}

/// What a tool body returns before the corpus trailer is added.
pub type ToolResult = Result<(String, Value), Failure>;

/// Runs tool `name` with `args` (blocking: call it off the async runtime).
pub fn call(ctx: &Context, name: &str, args: &Map<String, Value>, progress: Progress) -> Output {
    let sources = &ctx.sources;
    let source_text = args.get("source").and_then(Value::as_str);
    let Some(schema) = schema::schema_of(name) else {
        let corpus = sources
            .resolve(source_text)
            .map_or_else(|_| "default".to_string(), |h| h.to_string());
        return finish(
            Err(format!("no tool named `{name}`; call tools/list for the tools there are").into()),
            &corpus,
        );
    };
    if name == "open_link" {
        if let Err(e) = schema::validate(name, &schema, args) {
            return finish(Err(e.into()), &sources.default_handle().to_string());
        }
        let (result, corpus) = share::open_link(ctx, args, progress);
        return finish(result, &corpus);
    }
    let handle = match sources.resolve(source_text) {
        Ok(h) => h,
        Err(e) => {
            return finish(
                Err(e.into()),
                &format!("unresolved {:?}", source_text.unwrap_or("")),
            )
        }
    };
    let corpus = handle.to_string();
    if let Err(e) = schema::validate(name, &schema, args) {
        return finish(Err(e.into()), &corpus);
    }
    let result = match name {
        "list_channels" => catalog::list_channels(sources, &handle, args),
        "list_sources" => catalog::list_sources(sources),
        "resolve_source" | "use_source" => {
            catalog::resolve_source(sources, &handle, name == "use_source")
        }
        "search_transcripts" => search::search_transcripts(sources, &handle, args, progress),
        "enumerate_matches" => search::enumerate_matches(sources, &handle, args, progress),
        "get_transcript" => read::get_transcript(ctx, &handle, args),
        "get_transcripts" => read::get_transcripts(sources, &handle, args),
        "get_video_metadata" => read::get_video_metadata(sources, &handle, args),
        "list_tags" => catalog::list_tags(sources, &handle),
        "list_reports" => reports::list_reports(sources, &handle),
        "get_report" => reports::get_report(sources, &handle, args),
        "get_post" => reports::get_post(sources, &handle, args),
        "get_thread" => reports::get_thread(sources, &handle, args),
        "fetch_clip" => editor::clip::fetch_clip(ctx, &handle, args, progress),
        "notes" => notes::notes(&ctx.umtool, args),
        "transcript" => crate::transcript::transcript(&ctx.binaries, args),
        "sweep_plan" => crate::plans::plan_tool(ctx, crate::plans::instructions::Kind::Sweep, args),
        "ask_plan" => crate::plans::plan_tool(ctx, crate::plans::instructions::Kind::Ask, args),
        "get_job" => editor::ops::get_job(&ctx.editor, args),
        "enqueue" => editor::ops::enqueue(&ctx.editor, args),
        "channel_coverage" => editor::coverage::channel_coverage(&ctx.editor, args),
        _ => Err(format!("{name} is not implemented in this build").into()),
    };
    finish(result, &corpus)
}

fn finish(result: ToolResult, corpus: &str) -> Output {
    match result {
        Ok((text, mut structured)) => {
            if let Value::Object(map) = &mut structured {
                map.insert("corpus".into(), Value::String(corpus.to_string()));
            }
            Output {
                text: format!("{}\n\n(corpus: {corpus})", text.trim_end()),
                structured,
                is_error: false,
            }
        }
        Err(Failure { message, facts }) => {
            let mut structured = match facts {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            structured.insert("error".into(), Value::String(message.clone()));
            structured.insert("corpus".into(), Value::String(corpus.to_string()));
            Output {
                text: format!("Error: {message}\n\n(corpus: {corpus})"),
                structured: Value::Object(structured),
                is_error: true,
            }
        }
    }
}

/// Helpers to read arguments already checked by [`schema::validate`].
pub fn str_arg<'a>(args: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

pub fn bool_arg(args: &Map<String, Value>, name: &str, default: bool) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(default)
}

pub fn int_arg(args: &Map<String, Value>, name: &str, default: usize) -> usize {
    args.get(name)
        .and_then(Value::as_u64)
        .map_or(default, |n| n as usize)
}

pub fn list_arg(args: &Map<String, Value>, name: &str) -> Vec<String> {
    args.get(name)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
