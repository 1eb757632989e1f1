//! The tools: their schemas ([`schema`]), dispatch, and the one rule every
//! result follows: it ends with `(corpus: <handle>)`, errors included
//! (ARCHITECTURE.md invariant 5), and an error is a result with `isError`,
//! never a failed request.

pub mod catalog;
pub mod read;
pub mod reports;
pub mod schema;
pub mod search;

use serde_json::{Map, Value};

use crate::sources::Sources;

/// What a tool answers: text for the agent, the same data structured.
#[derive(Debug, Clone)]
pub struct Output {
    pub text: String,
    pub structured: Value,
    pub is_error: bool,
}

/// Reports `(pages done, pages planned)` of a long scan.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// What a tool body returns before the corpus trailer is added.
pub type ToolResult = Result<(String, Value), String>;

/// Runs tool `name` with `args` (blocking: call it off the async runtime).
pub fn call(
    sources: &Sources,
    name: &str,
    args: &Map<String, Value>,
    progress: Progress,
) -> Output {
    let source_text = args.get("source").and_then(Value::as_str);
    let Some(schema) = schema::schema_of(name) else {
        let corpus = sources
            .resolve(source_text)
            .map_or_else(|_| "default".to_string(), |h| h.to_string());
        return finish(
            Err(format!(
                "no tool named `{name}`; call tools/list for the tools there are"
            )),
            &corpus,
        );
    };
    let handle = match sources.resolve(source_text) {
        Ok(h) => h,
        Err(e) => {
            return finish(
                Err(e),
                &format!("unresolved {:?}", source_text.unwrap_or("")),
            )
        }
    };
    let corpus = handle.to_string();
    if let Err(e) = schema::validate(name, &schema, args) {
        return finish(Err(e), &corpus);
    }
    let result = match name {
        "list_channels" => catalog::list_channels(sources, &handle, args),
        "list_sources" => catalog::list_sources(sources),
        "resolve_source" | "use_source" => {
            catalog::resolve_source(sources, &handle, name == "use_source")
        }
        "search_transcripts" => search::search_transcripts(sources, &handle, args, progress),
        "enumerate_matches" => search::enumerate_matches(sources, &handle, args, progress),
        "get_transcript" => read::get_transcript(sources, &handle, args),
        "get_transcripts" => read::get_transcripts(sources, &handle, args),
        "get_video_metadata" => read::get_video_metadata(sources, &handle, args),
        "list_tags" => catalog::list_tags(sources, &handle),
        "list_reports" => reports::list_reports(sources, &handle),
        "get_report" => reports::get_report(sources, &handle, args),
        "get_post" => reports::get_post(sources, &handle, args),
        "get_thread" => reports::get_thread(sources, &handle, args),
        _ => Err(format!("{name} is not implemented in this build")),
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
        Err(e) => Output {
            text: format!("Error: {e}\n\n(corpus: {corpus})"),
            structured: serde_json::json!({"error": e, "corpus": corpus}),
            is_error: true,
        },
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
