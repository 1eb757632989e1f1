//! `sweep_plan`, `ask_plan` and the `sweep` prompt: a plain-English
//! request (with a pasted share link anywhere in it) turned into a
//! resolved, step-by-step plan.
//!
//! The tools take the raw request string, because a client that splits a
//! prompt's arguments on whitespace shreds prose (`link="This"`,
//! `batch_size="Why"`). They are forgiving: a bad value falls back with a
//! `⚠` line. What can be resolved is resolved before the plan is written:
//! the corpus handle, the link, the channel and group tokens (an
//! unresolvable one halts the plan rather than widening it), and the group
//! roster when no scope was given. The `sweep` prompt, for form-based
//! clients, goes through the same parser and builder but is strict: values
//! that carry a tokenizer's fingerprint are refused with the `/sweep` line
//! to use instead.

pub mod instructions;

use serde_json::{json, Map, Value};

use crate::context::Context;
use crate::tool::ToolResult;
use archilyzer_core::archive::Archive;
use archilyzer_core::query::{FilterArgs, Filters};
use archilyzer_core::share::eval::{as_request, Caps};
use archilyzer_core::share::request;
use archilyzer_core::share::ShareLink;
use instructions::{build, Kind, Resolved, Worklist};
use request::{is_report_path, is_token, Parsed, MAX_BATCH};

/// The prompt's name (the one prompt the server offers).
pub const PROMPT: &str = "sweep";

/// The prompt's arguments, in the order it declares them.
pub const PROMPT_ARGS: &[(&str, &str)] = &[
    ("link", "A viewer share link (optional)."),
    ("channel", "Channel slugs or names, comma-separated."),
    ("group", "Channel groups, comma-separated."),
    ("directive", "What to extract from each video."),
    ("batch_size", "Videos per batch, 1 to 20 (default 12)."),
    (
        "parse_model",
        "The model the extractors run on (default haiku).",
    ),
    ("report", "Where to write the report (.md)."),
    ("source", "The corpus handle (default: the server's)."),
    ("content_types", "video, post or video,post."),
];

fn roster(archive: &Archive) -> Vec<String> {
    let mut lines = Vec::new();
    for site in archive.sites() {
        let corpus = site.corpus();
        for g in &corpus.groups {
            let n = corpus.members(Some(&g.id)).count();
            lines.push(format!("group {} · {} · {n} channel(s)", g.id, g.name));
        }
        for c in corpus.channels.iter().filter(|c| c.group.is_none()) {
            lines.push(format!("channel {} · {} (ungrouped)", c.slug, c.name));
        }
    }
    lines
}

/// The request enumerate_matches runs for a link whose tree is a search.
fn enumerate_args(link: &ShareLink, handle: &str) -> Option<Value> {
    let req = as_request(&link.tree, &link.filters, Caps::default())?;
    let mut args = json!({"query": req.query, "source": handle});
    let pairs: [(&str, Value); 4] = [
        ("regex", json!(req.regex)),
        ("use_aliases", json!(req.use_aliases)),
        ("exclude", json!(req.exclude)),
        ("scopes", json!(req.scopes)),
    ];
    for (k, v) in pairs {
        let default =
            v == json!([]) || v == json!(false) || (k == "use_aliases" && v == json!(true));
        if !default {
            args[k] = v;
        }
    }
    for (k, v) in req.filters.to_json() {
        args[k] = v;
    }
    Some(args)
}

/// The channel scope a request names (`channels=`, `group=`).
fn args_scope(s: &request::Settings) -> FilterArgs {
    FilterArgs {
        channels: s.channels.clone(),
        groups: s.groups.clone(),
        ..FilterArgs::default()
    }
}

/// The slugs a channel scope resolves to; `None` for no scope; a name
/// that matches no channel or group halts the plan.
fn slugs(
    args: &FilterArgs,
    archive: &Archive,
) -> Result<Option<std::collections::BTreeSet<String>>, String> {
    let scope = Filters::resolve(args, archive).map_err(|e| format!("HALT: {e}"))?;
    Ok(scope
        .channels
        .map(|set| set.into_iter().map(|(_, slug)| slug).collect()))
}

/// Narrows a link's worklist to the channels the request names beside
/// it: the link's channels that the request also names (or the request's
/// scope, when the link has none). Nothing in common halts the plan
/// rather than sweeping the wrong channels.
fn narrow_to_request(
    args: &mut Value,
    link: &ShareLink,
    asked: &FilterArgs,
    archive: &Archive,
) -> Result<(), String> {
    let Some(wanted) = slugs(asked, archive)? else {
        return Ok(());
    };
    let link_scope = FilterArgs {
        channels: link.filters.channels.clone(),
        ..FilterArgs::default()
    };
    let chosen: Vec<String> = match slugs(&link_scope, archive)? {
        Some(linked) => linked.intersection(&wanted).cloned().collect(),
        None => wanted.into_iter().collect(),
    };
    if chosen.is_empty() {
        return Err(format!(
            "HALT: the request's channels ({}) and the link's ({}) have none in common, so the sweep would cover nothing. Name channels the link covers, or drop channels= to sweep the link's own scope.",
            asked.channels.iter().chain(&asked.groups).cloned().collect::<Vec<_>>().join(", "),
            link.filters.channels.join(", ")
        ));
    }
    args["channels"] = json!(chosen);
    Ok(())
}

/// Resolves a parsed request against the corpus; `Err` halts the plan.
pub fn resolve(
    ctx: &Context,
    kind: Kind,
    source_arg: Option<&str>,
    parsed: Parsed,
) -> Result<Resolved, String> {
    let s = &parsed.settings;
    let link = match &parsed.link {
        Some(raw) => Some(
            ShareLink::decode(raw)
                .map_err(|e| format!("HALT: the share link in the request is unusable: {e}"))?,
        ),
        None => None,
    };
    let handle = match (s.source.as_deref().or(source_arg), &link) {
        (Some(src), _) => ctx
            .sources
            .resolve(Some(src))
            .map_err(|e| format!("HALT: source {src:?}: {e}"))?,
        (None, Some(l)) => {
            ctx.sources
                .handle_for_origin(&l.origin)
                .map_err(|e| format!("HALT: {e}"))?
                .0
        }
        (None, None) => ctx.sources.default_handle().clone(),
    };
    let archive = ctx
        .sources
        .archive(&handle)
        .map_err(|e| format!("HALT: corpus {handle} cannot be read: {e}"))?;
    let notes = match Filters::resolve(&args_scope(s), &archive) {
        Ok(scope) => scope.notes,
        Err(e) => {
            let known: Vec<String> = roster(&archive);
            return Err(format!(
                "HALT: {e} in corpus {handle}, so the plan cannot run as asked. Fix the request and run it again. What there is:\n{}",
                known.join("\n")
            ));
        }
    };
    let handle_text = handle.to_string();
    let scope = if !s.channels.is_empty() || !s.groups.is_empty() {
        let named: Vec<String> = s
            .channels
            .iter()
            .map(|c| format!("channel {c}"))
            .chain(s.groups.iter().map(|g| format!("group {g}")))
            .collect();
        let resolved = notes
            .iter()
            .find(|n| n.starts_with("scope:"))
            .cloned()
            .unwrap_or_default();
        Some(format!(
            "{} ({resolved}); pass them as channels / groups on every search",
            named.join(", ")
        ))
    } else {
        link.as_ref()
            .filter(|l| !l.filters.channels.is_empty())
            .map(|l| format!("the link's channels: {}", l.filters.channels.join(", ")))
    };
    let worklist = match &link {
        Some(l) => match enumerate_args(l, &handle_text) {
            Some(mut args) => {
                narrow_to_request(&mut args, l, &args_scope(s), &archive)?;
                Worklist::Enumerate(args)
            }
            None => Worklist::OpenLink {
                link: parsed.link.clone().unwrap_or_default(),
                channels: slugs(&args_scope(s), &archive)?.map(|c| c.into_iter().collect()),
            },
        },
        None => Worklist::FromQuestion,
    };
    Ok(Resolved {
        kind,
        handle: handle_text,
        scope: scope.or_else(|| link.as_ref().map(|_| "the link's own filters".to_string())),
        roster: roster(&archive),
        worklist,
        link: parsed.link.clone(),
        parsed,
    })
}

/// `sweep_plan`'s and `ask_plan`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct PlanArgs {
    /// The whole request, as typed.
    pub request: String,
    /// The corpus.
    #[serde(flatten)]
    pub source: crate::sources::Source,
}

/// `sweep_plan` and `ask_plan`.
pub fn plan_tool(ctx: &Context, kind: Kind, args: &PlanArgs) -> ToolResult {
    let raw = args.request.as_str();
    let name = if kind == Kind::Sweep {
        "sweep_plan"
    } else {
        "ask_plan"
    };
    if raw.trim().is_empty() {
        return Err(format!("{name}: request is empty: pass the whole request as typed, e.g. \"what did they say about X? channels=a\"").into());
    }
    let parsed = request::parse(raw);
    let resolved = resolve(ctx, kind, args.source.source.as_deref(), parsed)
        .map_err(|e| format!("{name}: {e}"))?;
    let facts = PlanAnswer {
        source: resolved.handle.clone(),
        batch_size: resolved.parsed.settings.batch_size,
        warnings: resolved.parsed.warnings.clone(),
        question: resolved.parsed.question.clone(),
    };
    Ok((build(&resolved), crate::output::content(&facts)))
}

/// `sweep_plan`'s and `ask_plan`'s structured content (the plan itself is
/// the text).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct PlanAnswer {
    /// The corpus handle every step passes as `source`.
    pub source: String,
    /// Videos per batch of a sweep.
    pub batch_size: usize,
    /// What in the request was not taken as a setting, and why.
    pub warnings: Vec<String>,
    /// The question, settings taken out.
    pub question: String,
}

/// What makes a prompt argument look shredded by a whitespace tokenizer.
fn fingerprint(name: &str, value: &str) -> Option<String> {
    let bad = match name {
        "link" => !(value.starts_with("http://") || value.starts_with("https://")),
        "batch_size" => !value
            .parse::<usize>()
            .is_ok_and(|n| (1..=MAX_BATCH).contains(&n)),
        "parse_model" => !is_token(value),
        "report" => !is_report_path(value),
        "content_types" => !value
            .split(',')
            .all(|t| matches!(t.trim(), "video" | "post")),
        _ => false,
    };
    bad.then(|| format!("{name} = {value:?}"))
}

/// The `sweep` prompt: strict, then the same plan as `sweep_plan`.
pub fn sweep_prompt(ctx: &Context, args: &Map<String, Value>) -> Result<String, String> {
    let value = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let detected: Vec<String> = PROMPT_ARGS
        .iter()
        .filter_map(|(k, _)| fingerprint(k, value(k)?))
        .collect();
    if !detected.is_empty() {
        let words: Vec<&str> = PROMPT_ARGS.iter().filter_map(|(k, _)| value(k)).collect();
        return Err(format!(
            "This prompt refuses to plan: its arguments look split word by word by the client ({}), and a sweep of the wrong thing is worse than none. The words that arrived, in the order typed: {}\nUse the command, which receives your whole line intact:\n/sweep {}",
            detected.join("; "),
            words.join(" "),
            words.join(" ")
        ));
    }
    let mut raw: Vec<String> = Vec::new();
    raw.extend(value("link").map(str::to_string));
    raw.extend(value("directive").map(str::to_string));
    for (arg, key) in [
        ("channel", "channels"),
        ("group", "groups"),
        ("batch_size", "batch_size"),
        ("parse_model", "parse_model"),
        ("report", "report"),
        ("content_types", "content_types"),
    ] {
        raw.extend(value(arg).map(|v| format!("{key}=\"{v}\"")));
    }
    let parsed = request::parse(&raw.join(" "));
    let resolved = resolve(ctx, Kind::Sweep, value("source"), parsed)?;
    Ok(build(&resolved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::EditorSetup;
    use crate::sources::Sources;
    use archilyzer_core::source::SourceHandle;

    fn ctx() -> Context {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha");
        Context {
            sources: Sources::new(SourceHandle::local(&dir), None),
            editor: EditorSetup::Missing,
            umtool: Err("no umtool".into()),
            binaries: Default::default(),
            passages: crate::passages::PassageSetup::new(None),
            kept: Default::default(),
            metrics: Default::default(),
        }
    }

    /// Every backticked word of every plan names a real tool.
    #[test]
    fn every_backticked_name_in_the_instructions_is_a_real_tool() {
        let tools: Vec<&str> = crate::tools::registry::advertised()
            .map(|t| t.name)
            .collect();
        let c = ctx();
        let link = "https://alphalyzer.example/?qt=eyJxIjoicmVhbGx5In0&fav=d";
        let complex = "https://alphalyzer.example/?qt=eyJvciI6W3sicSI6ImEifSx7InEiOiJiIn1dfQ";
        let mut seen = std::collections::BTreeSet::new();
        for kind in [Kind::Sweep, Kind::Ask] {
            for request in [
                "what about money?",
                &format!("{link} why deleted? channels=daily-dispatch regex=true"),
                &format!("{complex} q content_types=post report=r.md"),
            ] {
                let r = resolve(&c, kind, None, request::parse(request)).unwrap();
                let text = build(&r);
                for (i, part) in text.split('`').enumerate() {
                    if i % 2 == 1 {
                        assert!(
                            tools.contains(&part),
                            "`{part}` in {kind:?} plan is not a tool:\n{text}"
                        );
                        seen.insert(part.to_string());
                    }
                }
            }
        }
        for t in [
            "enumerate_matches",
            "get_transcripts",
            "fetch_clip",
            "open_link",
            "search_transcripts",
        ] {
            assert!(seen.contains(t), "{t} never named: {seen:?}");
        }
    }
}
