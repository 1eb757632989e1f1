//! The tools and their dispatch. Every tool is an entry of the one table
//! in [`registry`]; [`call`] validates a call's arguments against that
//! entry's schema ([`validate`]), resolves its corpus and runs it. What
//! every tool shares (context, results, the corpus trailer) is in
//! [`crate::tool`].

pub mod args;
pub mod bounds;
pub mod catalog;
pub mod notes;
pub mod passages;
pub mod read;
pub mod registry;
pub mod related;
pub mod reports;
pub mod search;
pub mod share;
pub mod trend;
pub mod validate;
pub mod vocabulary;
pub mod worklist;

use serde::Deserialize;
use serde_json::{Map, Value};

pub use crate::context::Context;
use crate::tool::finish;
pub use crate::tool::{Failure, Output, Progress, Tick, ToolResult};
use registry::Runs;

/// Runs tool `name` with `args` (blocking: call it off the async runtime),
/// and counts the call in the context's [`crate::metrics::Metrics`].
pub fn call(ctx: &Context, name: &str, args: &Map<String, Value>, progress: Progress) -> Output {
    let started = std::time::Instant::now();
    let out = dispatch(ctx, name, args, progress);
    let tool = registry::find(name).map_or("unknown", |_| name);
    let pages = PagesRead::deserialize(&out.structured).map_or(0, |p| p.pages_read);
    ctx.metrics
        .record_call(tool, !out.is_error, started.elapsed(), pages);
    out
}

/// The pages an answer says it read (`pages_read`, in the answers of the
/// tools that scan), for the metrics; 0 in any other answer.
#[derive(Deserialize)]
struct PagesRead {
    #[serde(default)]
    pages_read: u64,
}

fn dispatch(ctx: &Context, name: &str, args: &Map<String, Value>, progress: Progress) -> Output {
    let budget = args::parse::<args::Budget>(name, args)
        .map_or(crate::budget::DEFAULT_CHARS, args::Budget::chars);
    let (result, corpus) = answer(ctx, name, args, budget, progress);
    within_budget(finish(result, &corpus), budget, &corpus)
}

/// What tool `name` answers, before the trailer, and the corpus it read.
fn answer(
    ctx: &Context,
    name: &str,
    args: &Map<String, Value>,
    budget: usize,
    progress: Progress,
) -> (ToolResult, String) {
    let sources = &ctx.sources;
    let default = || sources.default_handle().to_string();
    let Some(tool) = registry::find(name) else {
        let e = format!(
            "no tool named `{}`; call tools/list for the tools there are",
            bounds::clip(name)
        );
        return (Err(e.into()), default());
    };
    // Checked before the source is resolved: a value past its bound is
    // refused before any work, and no answer repeats it whole.
    let args = match validate::validate(name, &tool.schema, args) {
        Ok(args) => args,
        Err(e) => return (Err(e.into()), default()),
    };
    let run = match &tool.runs {
        Runs::OwnCorpus(run) => return run(ctx, &args, budget, progress),
        Runs::OnSource(run) => run,
    };
    let source = args::parse::<args::Source>(name, &args)
        .unwrap_or_default()
        .source;
    let source_text = source.as_deref();
    let handle = match sources.resolve(source_text) {
        Ok(h) => h,
        Err(e) => {
            let corpus = format!("unresolved {}", bounds::quote(source_text.unwrap_or("")));
            return (Err(e.into()), corpus);
        }
    };
    let corpus = handle.to_string();
    let call = registry::Call {
        ctx,
        handle: &handle,
        budget,
        progress,
    };
    (run(call, &args), corpus)
}

/// The answer within the call's size budget, whatever its tool rendered
/// ([`crate::budget::fit_answer`]); the corpus trailer is kept.
fn within_budget(out: Output, budget: usize, corpus: &str) -> Output {
    let trailer = crate::tool::trailer(corpus);
    let body = out
        .text
        .strip_suffix(&trailer)
        .unwrap_or(&out.text)
        .to_string();
    let room = budget.saturating_sub(trailer.chars().count());
    let (body, structured) = crate::budget::fit_answer(body, out.structured, room);
    Output {
        text: format!("{}{trailer}", body.trim_end()),
        structured,
        is_error: out.is_error,
    }
}
