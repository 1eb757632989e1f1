//! The tools and their dispatch. Every tool is an entry of the one table
//! in [`registry`]; [`call`] validates a call's arguments against that
//! entry's schema ([`validate`]), resolves its corpus and runs it. What
//! every tool shares (context, results, the corpus trailer) is in
//! [`crate::tool`].

pub mod catalog;
pub mod notes;
pub mod output;
pub mod read;
pub mod registry;
pub mod reports;
pub mod schema;
pub mod search;
pub mod share;
pub mod trend;
pub mod validate;
pub mod vocabulary;
pub mod worklist;

use serde_json::{Map, Value};

use crate::tool::finish;
pub use crate::tool::{
    bool_arg, int_arg, list_arg, str_arg, Context, Failure, Output, Progress, Tick, ToolResult,
};
use registry::Runs;

/// Runs tool `name` with `args` (blocking: call it off the async runtime),
/// and counts the call in [`crate::metrics`].
pub fn call(ctx: &Context, name: &str, args: &Map<String, Value>, progress: Progress) -> Output {
    let started = std::time::Instant::now();
    let out = dispatch(ctx, name, args, progress);
    let tool = registry::find(name).map_or("unknown", |_| name);
    let pages = out.structured.get("pages_read").and_then(Value::as_u64);
    crate::metrics::record_call(tool, !out.is_error, started.elapsed(), pages.unwrap_or(0));
    out
}

fn dispatch(ctx: &Context, name: &str, args: &Map<String, Value>, progress: Progress) -> Output {
    let sources = &ctx.sources;
    let source_text = args.get("source").and_then(Value::as_str);
    let Some(tool) = registry::find(name) else {
        let corpus = sources
            .resolve(source_text)
            .map_or_else(|_| "default".to_string(), |h| h.to_string());
        return finish(
            Err(format!("no tool named `{name}`; call tools/list for the tools there are").into()),
            &corpus,
        );
    };
    let run = match tool.runs {
        Runs::OwnCorpus(run) => {
            let args = match validate::validate(name, &tool.schema, args) {
                Ok(args) => args,
                Err(e) => return finish(Err(e.into()), &sources.default_handle().to_string()),
            };
            let (result, corpus) = run(ctx, &args, progress);
            return finish(within_budget(result, &args), &corpus);
        }
        Runs::OnSource(run) => run,
    };
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
    let args = match validate::validate(name, &tool.schema, args) {
        Ok(args) => args,
        Err(e) => return finish(Err(e.into()), &corpus),
    };
    let result = run(registry::Call {
        ctx,
        handle: &handle,
        args: &args,
        progress,
    });
    finish(within_budget(result, &args), &corpus)
}

/// The answer cut to the call's size budget where its tool did not fit
/// it already (see [`crate::budget`]).
fn within_budget(result: ToolResult, args: &Map<String, Value>) -> ToolResult {
    result.map(|(text, structured)| {
        (
            crate::budget::enforce(text, crate::budget::of(args)),
            structured,
        )
    })
}
