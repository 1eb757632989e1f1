//! `notes`: the operator's notes in umtool on articles and report-video
//! projects (`UMTOOL_URL`; contract in docs/umtool-contract.md).
//!
//! `list` and `read` only read. `reply` sends nothing: umtool records a
//! reply that arrives over HTTP as the operator's own, so the tool checks
//! that the note exists and answers the `umtool notes reply` command to run,
//! with the text shell-quoted and the ids after `--` (an id that begins
//! with `-` is never an option).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::service::Service;
use crate::tool::{str_arg, ToolResult};

/// umtool, if `UMTOOL_URL` names one; else why not.
pub type UmtoolSetup = Result<Service, String>;

/// From `UMTOOL_URL`.
pub fn from_env() -> UmtoolSetup {
    match std::env::var("UMTOOL_URL").ok().filter(|u| !u.trim().is_empty()) {
        Some(url) => Service::new("umtool", "UMTOOL_URL", url.trim(), None),
        None => Err("no umtool is configured, so nothing was read: set UMTOOL_URL (umtool's origin, for example http://localhost:4700) in this server's environment when you register it".into()),
    }
}

/// `s` quoted for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// What every rendering of a note shows (the anchored passage, resolved
/// where umtool resolved it).
struct Fields<'a> {
    id: &'a str,
    anchor: &'a str,
    text: &'a str,
    author: &'a str,
    created: &'a str,
}

impl<'a> Fields<'a> {
    fn of(n: &'a Value) -> Self {
        let s = |k: &str, default: &'a str| n[k].as_str().unwrap_or(default);
        Fields {
            id: s("id", "?"),
            anchor: n["anchorText"].as_str().unwrap_or(s("anchor", "")),
            text: s("text", ""),
            author: s("author", "?"),
            created: s("createdAt", "?"),
        }
    }
}

fn refused(reply: &crate::service::Reply) -> String {
    format!("umtool refused (HTTP {}): {}", reply.status, reply.error())
}

/// The `notes` tool.
pub fn notes(setup: &UmtoolSetup, args: &Map<String, Value>) -> ToolResult {
    let umtool = setup.as_ref().map_err(|e| format!("notes: {e}"))?;
    match str_arg(args, "action").unwrap_or("list") {
        "list" => list(umtool),
        "read" => read(umtool, required(args, "target", "read")?),
        _ => reply(umtool, args),
    }
}

fn required<'a>(args: &'a Map<String, Value>, name: &str, action: &str) -> Result<&'a str, String> {
    str_arg(args, name)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| format!("notes: action {action} needs `{name}` (as action list names it)"))
}

fn list(umtool: &Service) -> ToolResult {
    let reply = umtool.get(&["api", "notes"], &[("status", "open".into())])?;
    if !reply.ok() {
        return Err(refused(&reply).into());
    }
    let notes = reply.body["notes"].as_array().cloned().unwrap_or_default();
    let mut by_target: BTreeMap<(String, String), Vec<&Value>> = BTreeMap::new();
    for n in &notes {
        let key = (
            n["target"].as_str().unwrap_or("?").to_string(),
            n["targetTitle"].as_str().unwrap_or("").to_string(),
        );
        by_target.entry(key).or_default().push(n);
    }
    let mut out = format!(
        "{} open note(s) on {} target(s)\n",
        notes.len(),
        by_target.len()
    );
    for ((target, title), list) in &by_target {
        out.push_str(&format!("\n## {title} (target: {target})\n"));
        for n in list {
            let f = Fields::of(n);
            out.push_str(&format!(
                "- note {} at {:?}: {} ({}, {})\n",
                f.id, f.anchor, f.text, f.author, f.created
            ));
        }
    }
    if notes.is_empty() {
        out.push_str("Nothing is waiting.\n");
    }
    Ok((out, json!({"notes": notes})))
}

fn digest(umtool: &Service, target: &str) -> Result<Value, String> {
    let reply = umtool.get(
        &["api", "notes", "digest"],
        &[("target", target.to_string())],
    )?;
    match reply.status {
        404 => Err(format!(
            "notes: umtool has no target {target:?}; action list names the targets with open notes"
        )),
        _ if reply.ok() => Ok(reply.body),
        _ => Err(refused(&reply)),
    }
}

fn read(umtool: &Service, target: &str) -> ToolResult {
    let d = digest(umtool, target)?;
    let mut out = format!(
        "# {}\n- target: {target} · the source file to edit: {}\n",
        d["title"].as_str().unwrap_or("?"),
        d["sourceFile"].as_str().unwrap_or("?")
    );
    for n in d["notes"].as_array().into_iter().flatten() {
        let f = Fields::of(n);
        out.push_str(&format!(
            "\n## note {} ({}) at {:?}\n> {}\n({}, {})\n",
            f.id,
            n["status"].as_str().unwrap_or("open"),
            f.anchor,
            f.text,
            f.author,
            f.created
        ));
        for r in n["replies"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "- reply by {} ({}): {}\n",
                r["author"].as_str().unwrap_or("?"),
                r["createdAt"].as_str().unwrap_or("?"),
                r["text"].as_str().unwrap_or("")
            ));
        }
    }
    Ok((out, d))
}

fn reply(umtool: &Service, args: &Map<String, Value>) -> ToolResult {
    let target = required(args, "target", "reply")?;
    let note = required(args, "note", "reply")?;
    let text = required(args, "text", "reply")?;
    let d = digest(umtool, target)?;
    let known = d["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|n| n["id"] == note);
    if !known {
        return Err(format!(
            "notes: target {target:?} has no note {note:?}; action read lists its notes"
        )
        .into());
    }
    let command = format!(
        "umtool notes reply --text {} -- {} {}",
        shell_quote(text),
        shell_quote(target),
        shell_quote(note)
    );
    let out = format!(
        "Not sent: umtool records a reply that arrives over HTTP as the operator's own words, so this tool never posts one. Run this in the umtool checkout to reply as yourself:\n\n{command}\n"
    );
    Ok((out, json!({"command": command, "sent": false})))
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn shell_quoting_survives_quotes_and_dashes() {
        assert_eq!(shell_quote("it's -x $HOME"), r"'it'\''s -x $HOME'");
    }
}
